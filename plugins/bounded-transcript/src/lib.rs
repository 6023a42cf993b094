//! `bounded-transcript`: the tool-call transcript an agent loop that runs one program per turn
//! sends (ptc_runner's Kernel agent loop): the system prompt, the first user message, then for
//! each turn the assistant's whole response and a user message with the observation of running
//! its program (its value and prints, or its error), each observation capped at
//! `observation_chars` characters, the cut saying how many were left out. No turn is ever
//! dropped. Append-only: the prompt for turn k + 1 extends the prompt for turn k, so a
//! provider's prompt cache reads all of it.

use ptc_plugin_api::{
    export_strategy, OptionSpec, Options, Output, RenderError, Run, Stats, Strategy, Turn,
};
use ptc_strategy_kit::coalesce;
use ptc_strategy_kit::transcript;

pub struct BoundedTranscript;

export_strategy!(BoundedTranscript);

impl Strategy for BoundedTranscript {
    const NAME: &'static str = "bounded-transcript";
    const DESCRIPTION: &'static str =
        "Every response and the observation of running it, each observation capped at `observation_chars`; append-only.";

    /// The cap of each observation, and the samples of `data/` in the first user message.
    fn options() -> Vec<OptionSpec> {
        transcript::options(Vec::new())
    }

    fn templates() -> Vec<(&'static str, &'static str)> {
        transcript::templates(&[])
    }

    const RENDERS_FROM: &'static [&'static str] = &["prints", "results", "errors"];

    fn render<'r>(
        run: &'r Run,
        turns: &'r [Turn],
        options: &Options,
    ) -> Result<Output<'r>, RenderError> {
        let settings = coalesce::settings_with_defaults(options)?;
        let cap = options.count("observation_chars")?;
        let mut messages = transcript::head(run, &settings);
        messages.reserve(2 * turns.len());
        let mut stats = Stats::default();
        for turn in turns {
            messages.extend(transcript::exchange(run, turn, cap, &mut stats));
        }
        // Append-only: the whole prompt is the next one's prefix.
        if let Some(last) = messages.last_mut() {
            last.set_cache_breakpoint();
        }
        Ok(Output {
            messages: messages.into(),
            stats,
        })
    }
}

#[cfg(test)]
mod tests {
    use abi_stable::std_types::{ROption, RVec};
    use ptc_plugin_api::{Field, OptionValue, Role, Section, ToolCall, TurnError, Value};

    use super::*;

    fn run() -> Run {
        Run {
            mission: "Count the orders.".into(),
            system_prompt: "System.".into(),
            tools: RVec::new(),
            data: RVec::new(),
            max_turns: 3,
            signature: ROption::RNone,
            key: 0,
        }
    }

    fn turn(number: u32, prints: &[&str], error: Option<&str>) -> Turn {
        Turn {
            number,
            raw_response: format!("response {number}").into(),
            program: ROption::RSome(format!("(step {number})").into()),
            success: error.is_none(),
            result: Value::Integer(number.into()),
            error: match error {
                Some(m) => ROption::RSome(TurnError {
                    reason: "eval_error".into(),
                    message: ROption::RSome(m.into()),
                }),
                None => ROption::RNone,
            },
            prints: prints.iter().map(|p| (*p).into()).collect(),
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

    fn options(cap: i64) -> Options {
        let mut options = Options::defaults(&BoundedTranscript::options());
        for e in options.entries.iter_mut() {
            if e.0.as_str() == "observation_chars" {
                e.1 = OptionValue::Integer(cap);
            }
        }
        options
    }

    fn observation<'a>(
        number: u32,
        result: &'a str,
        prints: &[&'a str],
        omitted: usize,
    ) -> Section<'a> {
        let prints: Vec<Field> = prints.iter().map(|p| (*p).into()).collect();
        Section::new("observation")
            .with("failed", false)
            .with("result", result)
            .with("printed", !prints.is_empty())
            .with("prints", prints)
            .with("omitted", omitted)
            .with("next_turn", number + 1)
            .with("max_turns", 3u32)
    }

    /// The prompt after two turns, the second failed, with a cap of 6 characters: every
    /// response whole, each observation cut to 6 characters of its value and prints.
    #[test]
    fn each_turn_is_its_response_then_its_capped_observation() {
        let turns = [
            turn(1, &["found 12", "done"], None),
            turn(2, &[], Some("undefined symbol: totl")),
        ];
        let the_run = run();
        let output = BoundedTranscript::render(&the_run, &turns, &options(6)).unwrap();
        let messages = output.messages;
        assert_eq!(messages.len(), 6);
        assert_eq!(messages[0].role, Role::System);
        assert_eq!(messages[1].role, Role::User);
        let sections = |i: usize| -> Vec<Section> { messages[i].sections().cloned().collect() };
        assert_eq!(
            sections(2),
            // The response does not hold its program: the program follows, with the tools
            // it called.
            [Section::new("assistant")
                .with("raw_response", "response 1")
                .with("program", "(step 1)")
                .with("tools", vec!["search".to_string()])]
        );
        // "1" then 5 characters of "found 12"; 3 + 4 characters left out.
        assert_eq!(sections(3), [observation(1, "1", &["found"], 7)]);
        assert_eq!(
            sections(5),
            [Section::new("observation")
                .with("failed", true)
                .with("error", "undefi")
                .with("omitted", 16usize)
                .with("next_turn", 3u32)
                .with("max_turns", 3u32)]
        );
        // One breakpoint, on the last message.
        let marks: Vec<bool> = messages
            .iter()
            .flat_map(|m| m.blocks.iter().map(|b| b.cache_breakpoint))
            .collect();
        assert_eq!(marks, [false, false, false, false, false, true]);
        assert_eq!(
            output.stats,
            Stats {
                turns_compressed: 2,
                tool_calls_total: 1,
                tool_calls_shown: 1,
                printlns_total: 2,
                printlns_shown: 1,
                printlns_dropped: 1,
                ..Stats::default()
            }
        );
    }

    #[test]
    fn the_prompt_of_a_turn_extends_the_prompt_before_it() {
        let turns = [
            turn(1, &["a"], None),
            turn(2, &[], Some("boom")),
            turn(3, &["b"], None),
        ];
        let options = options(2048);
        for k in 0..turns.len() {
            let the_run = run();
            let before = BoundedTranscript::render(&the_run, &turns[..k], &options).unwrap();
            let the_run = run();
            let after = BoundedTranscript::render(&the_run, &turns[..k + 1], &options).unwrap();
            assert_eq!(after.messages.len(), before.messages.len() + 2);
            for (a, b) in before.messages.iter().zip(after.messages.iter()) {
                assert!(a.sections().eq(b.sections()), "turn {k}");
            }
        }
        let the_run = run();
        let last = BoundedTranscript::render(&the_run, &turns, &options).unwrap();
        assert_eq!(last.stats.turns_compressed, 0, "nothing was cut");
    }
}
