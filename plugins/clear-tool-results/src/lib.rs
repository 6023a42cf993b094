//! `clear-tool-results`: the tool-call transcript of `bounded-transcript`, edited as Anthropic's
//! context editing (`clear_tool_uses_20250919`) edits it. Each turn's program is one tool use,
//! and its observation the tool's result. Once the prompt passes `trigger_tokens`, the
//! observations of the oldest turns are replaced by a placeholder, keeping the last
//! `keep_tool_uses` whole, provided that clears at least `clear_at_least_tokens`; a turn whose
//! program called a tool named in `exclude_tools` is never cleared. Responses are kept.
//!
//! The edit is made again on every prompt from the whole transcript, as the provider makes it
//! on every request: the decision depends on the turns only. Once the prompt passes the
//! trigger, each prompt clears one observation more than the one before, the oldest still
//! whole; everything before it is byte-identical, so a provider's cache is invalidated only
//! from that observation on.

use std::cell::RefCell;
use std::collections::BTreeSet;

use ptc_plugin_api::{
    export_strategy, Message, OptionSpec, OptionValue, Options, Output, RenderError, Role, Run,
    Section, Stats, Strategy, Turn,
};
use ptc_strategy_kit::coalesce;
use ptc_strategy_kit::transcript::{self, Observation};
use ptc_strategy_kit::{turn_message, ByRun};

pub struct ClearToolResults;

export_strategy!(ClearToolResults);

impl Strategy for ClearToolResults {
    const NAME: &'static str = "clear-tool-results";
    const DESCRIPTION: &'static str =
        "The capped transcript; past `trigger_tokens`, observations older than the last `keep_tool_uses` become a placeholder.";

    fn options() -> Vec<OptionSpec> {
        transcript::options(vec![
            OptionSpec::count(
                "trigger_tokens",
                100_000,
                "clear once the prompt passes this many tokens (estimated as characters / 4)",
            ),
            OptionSpec::count(
                "keep_tool_uses",
                3,
                "most recent turns whose observation is never cleared",
            ),
            OptionSpec::count(
                "clear_at_least_tokens",
                0,
                "clear only when that frees at least this many tokens (estimated as characters / 4)",
            ),
            OptionSpec::new(
                "exclude_tools",
                OptionValue::String("".into()),
                "tool names, comma-separated: a turn whose program called one keeps its observation",
            ),
        ])
    }

    fn templates() -> Vec<(&'static str, &'static str)> {
        transcript::templates(&[(
            "cleared",
            include_str!("../../../templates/clear-tool-results/cleared.tera"),
        )])
    }

    const RENDERS_FROM: &'static [&'static str] = &["prints", "results", "errors"];

    fn render<'r>(
        run: &'r Run,
        turns: &'r [Turn],
        options: &Options,
    ) -> Result<Output<'r>, RenderError> {
        let settings = coalesce::settings_with_defaults(options)?;
        let trigger = options.count("trigger_tokens")?;
        let keep = options.count("keep_tool_uses")?;
        let clear_at_least = options.count("clear_at_least_tokens")?;
        let cap = options.count("observation_chars")?;
        let exclude = exclude_tools(options)?;
        let excluded = |turn: &Turn| {
            !exclude.is_empty()
                && turn
                    .tool_calls
                    .iter()
                    .any(|call| exclude.contains(call.name.as_str()))
        };

        let mut messages = transcript::head(run, &settings);
        let observations: Vec<Observation> = turns
            .iter()
            .map(|turn| transcript::observation(run, turn, cap))
            .collect();
        // The prompt as the transcript would send it, before any edit.
        let whole: usize = messages
            .iter()
            .map(transcript::message_chars)
            .sum::<usize>()
            + turns
                .iter()
                .zip(&observations)
                .map(|(turn, o)| transcript::exchange_chars(turn, o))
                .sum::<usize>();
        // The observations that may be cleared: all but the last `keep`, never an excluded one.
        let older = turns.len().saturating_sub(keep);
        let clearable = |i: usize| i < older && !excluded(&turns[i]);
        let freed: usize = (0..older)
            .filter(|&i| clearable(i))
            .map(|i| observations[i].shown_chars)
            .sum();
        let clearing = transcript::tokens(whole) > trigger
            && freed > 0
            && transcript::tokens(freed) >= clear_at_least;

        messages.reserve(2 * turns.len());
        let mut stats = Stats::default();
        for (i, (turn, observation)) in turns.iter().zip(observations).enumerate() {
            messages.push(transcript::response(turn));
            if clearing && clearable(i) {
                messages.push(cleared(run, turn, &mut stats));
            } else {
                transcript::count(turn, &observation, &mut stats);
                messages.push(observation.message);
            }
        }
        // While clearing, the next prompt clears one more observation, the one of turn
        // `older + 1` (index `older`), and repeats everything before it: the breakpoint goes on
        // that turn's response, unless that turn is excluded (then nothing changes). Otherwise
        // the next prompt appends to this one: the breakpoint is on the last message.
        let mark = if clearing && older < turns.len() && !excluded(&turns[older]) {
            2 + 2 * older
        } else {
            messages.len() - 1
        };
        messages[mark].set_cache_breakpoint();
        Ok(Output {
            messages: messages.into(),
            stats,
        })
    }
}

/// The tool names of `exclude_tools`, trimmed, empty names left out.
fn exclude_tools(options: &Options) -> Result<BTreeSet<String>, RenderError> {
    match options.get("exclude_tools") {
        Some(OptionValue::String(names)) => Ok(names
            .split(',')
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .map(str::to_owned)
            .collect()),
        Some(other) => Err(RenderError::option(
            "exclude_tools",
            &format!("expected a string of comma-separated tool names, found {other}"),
        )),
        None => Err(RenderError::option("exclude_tools", "missing")),
    }
}

/// The placeholder of a cleared observation, and what it hid in `stats`. Once clearing, every
/// prompt clears every observation before its last ones: while a run with a key renders, the
/// message is made once per turn and shared by the prompts that show it.
fn cleared<'r>(run: &'r Run, turn: &'r Turn, stats: &mut Stats) -> Message<'r> {
    stats.turns_compressed += 1;
    if turn.success {
        let calls = turn.tool_calls.len() as u64;
        stats.tool_calls_total += calls;
        stats.tool_calls_shown += calls;
        stats.printlns_total += turn.prints.len() as u64;
        stats.printlns_dropped += turn.prints.len() as u64;
    } else {
        stats.error_turns_collapsed += 1;
    }
    turn_message(&CLEARED, turn, || {
        let section = Section::new("cleared")
            .with("turn", turn.number)
            .with("failed", !turn.success)
            .with("next_turn", turn.number + 1)
            .with("max_turns", run.max_turns);
        Message::new(Role::User, vec![section])
    })
}

thread_local! {
    /// By the turn's address: the placeholder of its observation, shared.
    static CLEARED: RefCell<ByRun<usize, Message<'static>>> = RefCell::default();
}

#[cfg(test)]
mod tests {
    use abi_stable::std_types::{ROption, RVec};
    use ptc_plugin_api::{ToolCall, TurnError, Value};

    use super::*;

    fn run() -> Run {
        Run {
            mission: "Mission.".into(),
            system_prompt: "System.".into(),
            tools: RVec::new(),
            data: RVec::new(),
            max_turns: 9,
            signature: ROption::RNone,
            key: 0,
        }
    }

    /// A turn that calls `tool`, printed 40 characters (10 estimated tokens) and returned nil.
    fn turn(number: u32, tool: &str, failed: bool) -> Turn {
        Turn {
            number,
            raw_response: "r".into(),
            program: ROption::RNone,
            success: !failed,
            result: Value::Nil,
            error: if failed {
                ROption::RSome(TurnError {
                    reason: "eval_error".into(),
                    message: ROption::RSome("e".repeat(40).into()),
                })
            } else {
                ROption::RNone
            },
            prints: vec!["p".repeat(37).into()].into(),
            tool_calls: vec![ToolCall {
                name: tool.into(),
                args: Value::Nil,
                result: Value::Nil,
            }]
            .into(),
            memory: RVec::new(),
            defined: RVec::new(),
        }
    }

    fn options(pairs: &[(&str, OptionValue)]) -> Options {
        let mut options = Options::defaults(&ClearToolResults::options());
        for (name, value) in pairs {
            for e in options.entries.iter_mut() {
                if e.0.as_str() == *name {
                    e.1 = value.clone();
                }
            }
        }
        options
    }

    /// Per user message after the first: `C` for a cleared observation, `O` for a whole one;
    /// and the index of the message with the breakpoint.
    fn shape(output: &Output) -> (String, usize) {
        let shape = output
            .messages
            .iter()
            .skip(3)
            .step_by(2)
            .map(|m| match m.sections().next().unwrap().template.as_str() {
                "cleared" => 'C',
                "observation" => 'O',
                other => panic!("{other}"),
            })
            .collect();
        let marks: Vec<usize> = output
            .messages
            .iter()
            .enumerate()
            .filter(|(_, m)| m.blocks.iter().any(|b| b.cache_breakpoint))
            .map(|(i, _)| i)
            .collect();
        assert_eq!(marks.len(), 1);
        (shape, marks[0])
    }

    fn int(i: i64) -> OptionValue {
        OptionValue::Integer(i)
    }

    #[test]
    fn below_the_trigger_nothing_is_cleared() {
        let turns: Vec<Turn> = (1..=6).map(|n| turn(n, "search", false)).collect();
        let the_run = run();
        let output = ClearToolResults::render(&the_run, &turns, &options(&[])).unwrap();
        assert_eq!(shape(&output), ("OOOOOO".into(), 13));
        assert_eq!(output.stats.turns_compressed, 0);
    }

    /// Head: "System." (7) + "Mission." (8) = 15 characters; each turn: 1 response + 3 + 37
    /// observation = 41 characters. Six turns: 261 characters, 66 tokens.
    #[test]
    fn past_the_trigger_all_but_the_last_kept_are_cleared() {
        let turns: Vec<Turn> = (1..=6).map(|n| turn(n, "search", n == 2)).collect();
        let at = |trigger| options(&[("trigger_tokens", int(trigger))]);
        assert_eq!(
            shape(&ClearToolResults::render(&run(), &turns, &at(66)).unwrap()).0,
            "OOOOOO"
        );
        let the_run = run();
        let output = ClearToolResults::render(&the_run, &turns, &at(65)).unwrap();
        // Turns 1-3 cleared; the next prompt clears turn 4's: the breakpoint is on its response
        // (message 2 + 2 * 3).
        assert_eq!(shape(&output), ("CCCOOO".into(), 8));
        assert_eq!(
            output.stats,
            Stats {
                turns_compressed: 3,
                tool_calls_total: 5,
                tool_calls_shown: 5,
                tool_calls_dropped: 0,
                printlns_total: 5,
                printlns_shown: 3,
                printlns_dropped: 2,
                error_turns_collapsed: 1,
            }
        );
        assert_eq!(
            output.messages[5].sections().next().unwrap(),
            &Section::new("cleared")
                .with("turn", 2u32)
                .with("failed", true)
                .with("next_turn", 3u32)
                .with("max_turns", 9u32)
        );
        let keep_one = options(&[("trigger_tokens", int(0)), ("keep_tool_uses", int(1))]);
        let the_run = run();
        let output = ClearToolResults::render(&the_run, &turns, &keep_one).unwrap();
        assert_eq!(shape(&output), ("CCCCCO".into(), 12));
    }

    #[test]
    fn clearing_waits_until_it_frees_enough() {
        let turns: Vec<Turn> = (1..=6).map(|n| turn(n, "search", false)).collect();
        // Three clearable observations of 40 characters: 30 tokens.
        let needing = |least| {
            options(&[
                ("trigger_tokens", int(0)),
                ("clear_at_least_tokens", int(least)),
            ])
        };
        let the_run = run();
        let output = ClearToolResults::render(&the_run, &turns, &needing(30)).unwrap();
        assert_eq!(shape(&output).0, "CCCOOO");
        let the_run = run();
        let output = ClearToolResults::render(&the_run, &turns, &needing(31)).unwrap();
        assert_eq!(shape(&output), ("OOOOOO".into(), 13));
    }

    #[test]
    fn excluded_tools_keep_their_observations() {
        let turns: Vec<Turn> = (1..=6)
            .map(|n| turn(n, if n % 2 == 0 { "read-file" } else { "search" }, false))
            .collect();
        let opts = options(&[
            ("trigger_tokens", int(0)),
            (
                "exclude_tools",
                OptionValue::String(" read-file , x".into()),
            ),
        ]);
        let the_run = run();
        let output = ClearToolResults::render(&the_run, &turns, &opts).unwrap();
        // Turn 4, the next to leave the kept three, is excluded: the next prompt changes
        // nothing before its end, so the breakpoint is on the last message.
        assert_eq!(shape(&output), ("COCOOO".into(), 13));
        let the_run = run();
        let five = ClearToolResults::render(&the_run, &turns[..5], &opts).unwrap();
        // Turn 3, the next to be cleared, has its response at message 2 + 2 * 2.
        assert_eq!(shape(&five), ("COOOO".into(), 6));
    }

    #[test]
    fn each_prompt_repeats_the_previous_one_up_to_its_breakpoint() {
        let turns: Vec<Turn> = (1..=8).map(|n| turn(n, "search", n == 5)).collect();
        let opts = options(&[("trigger_tokens", int(60))]);
        for k in 0..turns.len() {
            let the_run = run();
            let before = ClearToolResults::render(&the_run, &turns[..k], &opts).unwrap();
            let the_run = run();
            let after = ClearToolResults::render(&the_run, &turns[..k + 1], &opts).unwrap();
            let (_, mark) = shape(&before);
            // The first prompt past the trigger clears from the first observation on: no
            // prompt before it could tell where the trigger would be passed.
            if before.stats.turns_compressed == 0 && after.stats.turns_compressed > 0 {
                assert_eq!(k, 5, "six turns pass the trigger");
                continue;
            }
            for i in 0..=mark {
                assert!(
                    before.messages[i]
                        .sections()
                        .eq(after.messages[i].sections()),
                    "turn {k}, message {i}"
                );
            }
        }
    }

    #[test]
    fn a_misspelt_option_kind_is_an_error() {
        let opts = options(&[("exclude_tools", int(3))]);
        let the_run = run();
        let err = ClearToolResults::render(&the_run, &[], &opts).unwrap_err();
        assert!(err.message.contains("exclude_tools"), "{err}");
    }
}
