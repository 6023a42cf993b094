//! `trim`: the tool-call transcript of `bounded-transcript` trimmed from the front: the system
//! prompt and the first user message (the mission, `tool/`, `data/`) are always kept, then only
//! the last `keep_turns` turns, fewer when the prompt would pass `max_tokens` (the latest turn
//! is always kept). A line after the first user message says which turns were left out.
//!
//! Until the first turn is dropped the prompt is append-only. From then on every prompt drops
//! the oldest turn it showed, so only the system prompt and the first block of the first user
//! message are repeated from one prompt to the next: a cache breakpoint is always there, and
//! one on the last message while nothing is left out.

use ptc_plugin_api::{
    export_strategy, Block, OptionSpec, Options, Output, RenderError, Run, Section, Stats,
    Strategy, Turn,
};
use ptc_strategy_kit::coalesce;
use ptc_strategy_kit::transcript::{self, Observation};

pub struct Trim;

export_strategy!(Trim);

impl Strategy for Trim {
    const NAME: &'static str = "trim";
    const DESCRIPTION: &'static str =
        "The first user message and the last `keep_turns` turns of the capped transcript (fewer past `max_tokens`).";

    fn options() -> Vec<OptionSpec> {
        transcript::options(vec![
            OptionSpec::count(
                "keep_turns",
                10,
                "most recent turns kept (at least 1); older ones are left out",
            ),
            OptionSpec::count(
                "max_tokens",
                100_000,
                "also leave out the oldest kept turns while the prompt passes this many tokens (estimated as characters / 4); the latest turn is always kept",
            ),
        ])
    }

    fn templates() -> Vec<(&'static str, &'static str)> {
        transcript::templates(&[(
            "trimmed",
            include_str!("../../../templates/trim/trimmed.tera"),
        )])
    }

    const RENDERS_FROM: &'static [&'static str] = &["prints", "results", "errors"];

    fn render<'r>(
        run: &'r Run,
        turns: &'r [Turn],
        options: &Options,
    ) -> Result<Output<'r>, RenderError> {
        let settings = coalesce::settings_with_defaults(options)?;
        let keep = options.count("keep_turns")?;
        if keep == 0 {
            return Err(RenderError::option(
                "keep_turns",
                "must be at least 1: the latest turn is always kept",
            ));
        }
        let max_tokens = options.count("max_tokens")?;
        let cap = options.count("observation_chars")?;

        let mut messages = transcript::head(run, &settings);
        let mut start = turns.len().saturating_sub(keep);
        let kept: Vec<Observation> = turns[start..]
            .iter()
            .map(|turn| transcript::observation(run, turn, cap))
            .collect();
        // The prompt's size from the first kept turn on; drop turns from the front while it
        // passes `max_tokens`, keeping the latest.
        let head: usize = messages.iter().map(transcript::message_chars).sum();
        let mut size = head
            + turns[start..]
                .iter()
                .zip(&kept)
                .map(|(turn, o)| transcript::exchange_chars(turn, o))
                .sum::<usize>();
        let mut skip = 0;
        while start + skip + 1 < turns.len() && transcript::tokens(size) > max_tokens {
            size -= transcript::exchange_chars(&turns[start + skip], &kept[skip]);
            skip += 1;
        }
        start += skip;

        let mut stats = Stats::default();
        if start > 0 {
            for turn in &turns[..start] {
                dropped(turn, &mut stats);
            }
            let note = Section::new("trimmed")
                .with("from", 1u32)
                .with("to", turns[start - 1].number)
                .with("count", start);
            messages[1].blocks.to_mut().push(Block::new(vec![note]));
        }
        messages.reserve(2 * (turns.len() - start));
        for (turn, observation) in turns[start..].iter().zip(kept.into_iter().skip(skip)) {
            transcript::count(turn, &observation, &mut stats);
            messages.push(transcript::response(turn));
            messages.push(observation.message);
        }
        // The system prompt and the first block of the first user message start every prompt:
        // a breakpoint there keeps them cached whatever is left out. Until a turn is left out
        // the prompt also extends the one before it, whose cached prefix it reads only through
        // a breakpoint of its own past it: one on the last message too. Once turns are left
        // out, nothing after the head is repeated by the next prompt, and a breakpoint there
        // would only write what is never read.
        messages[1].blocks.to_mut()[0].cache_breakpoint = true;
        if start == 0 {
            if let Some(last) = messages.last_mut() {
                last.set_cache_breakpoint();
            }
        }
        Ok(Output {
            messages: messages.into(),
            stats,
        })
    }
}

/// Counts a turn left out: compressed; a successful one's tool calls and prints dropped, a
/// failed one collapsed.
fn dropped(turn: &Turn, stats: &mut Stats) {
    stats.turns_compressed += 1;
    if turn.success {
        let calls = turn.tool_calls.len() as u64;
        let prints = turn.prints.len() as u64;
        stats.tool_calls_total += calls;
        stats.tool_calls_dropped += calls;
        stats.printlns_total += prints;
        stats.printlns_dropped += prints;
    } else {
        stats.error_turns_collapsed += 1;
    }
}

#[cfg(test)]
mod tests {
    use abi_stable::std_types::{ROption, RVec};
    use ptc_plugin_api::{Field, OptionValue, Role, ToolCall, TurnError, Value};

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

    /// Each turn: a 1-character response, a nil value and a 37-character print, 41 characters.
    fn turn(number: u32, failed: bool) -> Turn {
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
                name: "search".into(),
                args: Value::Nil,
                result: Value::Nil,
            }]
            .into(),
            memory: RVec::new(),
            defined: RVec::new(),
        }
    }

    fn options(keep: i64, max_tokens: i64) -> Options {
        let mut options = Options::defaults(&Trim::options());
        for e in options.entries.iter_mut() {
            match e.0.as_str() {
                "keep_turns" => e.1 = OptionValue::Integer(keep),
                "max_tokens" => e.1 = OptionValue::Integer(max_tokens),
                _ => {}
            }
        }
        options
    }

    /// The turn numbers whose observations the prompt shows, the note's range, and where the
    /// breakpoint is: (message, block).
    #[allow(clippy::type_complexity)]
    fn shape(output: &Output) -> (Vec<i64>, Option<(i64, i64)>, Vec<(usize, usize)>) {
        let mut shown = Vec::new();
        for m in output.messages[2..].iter() {
            for s in m.sections() {
                if s.template.as_str() == "observation" {
                    let next = s.fields.iter().find(|f| f.0.as_str() == "next_turn");
                    if let Some(f) = next {
                        if let Field::Integer(n) = f.1 {
                            shown.push(n - 1);
                        }
                    }
                }
            }
        }
        let note = output.messages[1]
            .sections()
            .find(|s| s.template.as_str() == "trimmed");
        let range = note.map(|s| {
            let get = |name: &str| match s.fields.iter().find(|f| f.0.as_str() == name) {
                Some(f) => match f.1 {
                    Field::Integer(i) => i,
                    _ => panic!(),
                },
                None => panic!(),
            };
            (get("from"), get("to"))
        });
        let marks: Vec<(usize, usize)> = output
            .messages
            .iter()
            .enumerate()
            .flat_map(|(i, m)| {
                m.blocks
                    .iter()
                    .enumerate()
                    .filter(|(_, b)| b.cache_breakpoint)
                    .map(move |(j, _)| (i, j))
            })
            .collect();
        (shown, range, marks)
    }

    #[test]
    fn the_last_turns_are_kept_and_the_note_says_which_were_left_out() {
        let turns: Vec<Turn> = (1..=5).map(|n| turn(n, n == 1)).collect();
        let the_run = run();
        let output = Trim::render(&the_run, &turns, &options(2, 100_000)).unwrap();
        assert_eq!(shape(&output), (vec![4, 5], Some((1, 3)), vec![(1, 0)]));
        assert_eq!(output.messages[1].role, Role::User);
        assert_eq!(output.messages[1].blocks.len(), 2);
        assert_eq!(
            output.stats,
            Stats {
                turns_compressed: 3,
                tool_calls_total: 4,
                tool_calls_shown: 2,
                tool_calls_dropped: 2,
                printlns_total: 4,
                printlns_shown: 2,
                printlns_dropped: 2,
                error_turns_collapsed: 1,
            }
        );
    }

    #[test]
    fn before_the_window_is_full_the_prompt_appends() {
        let turns: Vec<Turn> = (1..=3).map(|n| turn(n, false)).collect();
        // Nothing left out yet: the head and the last message are marked, whether the next
        // prompt keeps everything (three turns of four) or leaves turn 1 out (three of three).
        for keep in [4, 3] {
            let the_run = run();
            let output = Trim::render(&the_run, &turns, &options(keep, 100_000)).unwrap();
            assert_eq!(shape(&output), (vec![1, 2, 3], None, vec![(1, 0), (7, 0)]));
        }
        // The first prompt is the head alone: one breakpoint.
        let the_run = run();
        let output = Trim::render(&the_run, &[], &options(3, 100_000)).unwrap();
        assert_eq!(shape(&output).2, vec![(1, 0)]);
    }

    /// Head: 15 characters; each turn 41. Five turns: 220 characters, 55 tokens.
    #[test]
    fn past_max_tokens_older_turns_are_left_out_too() {
        let turns: Vec<Turn> = (1..=5).map(|n| turn(n, false)).collect();
        let shown = |max| shape(&Trim::render(&run(), &turns, &options(10, max)).unwrap());
        assert_eq!(
            shown(55),
            (vec![1, 2, 3, 4, 5], None, vec![(1, 0), (11, 0)])
        );
        // 15 + 4 * 41 = 179 characters, 45 tokens.
        assert_eq!(shown(54), (vec![2, 3, 4, 5], Some((1, 1)), vec![(1, 0)]));
        assert_eq!(shown(45), (vec![2, 3, 4, 5], Some((1, 1)), vec![(1, 0)]));
        assert_eq!(shown(44).0, vec![3, 4, 5]);
        // The latest turn stays, whatever the budget.
        assert_eq!(shown(0), (vec![5], Some((1, 4)), vec![(1, 0)]));
    }

    #[test]
    fn keeping_no_turn_is_refused() {
        let the_run = run();
        let err = Trim::render(&the_run, &[], &options(0, 100)).unwrap_err();
        assert!(err.message.contains("keep_turns"), "{err}");
    }
}
