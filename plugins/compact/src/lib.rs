//! `compact`: threshold compaction (Anthropic's `compact_20260112`, OpenHands' summarizing
//! condenser, Claude Code's auto-compact) over the tool-call transcript of
//! `bounded-transcript`. The conversation appends turn after turn; when a prompt would pass
//! `trigger_tokens`, the history so far becomes one summary and the conversation continues,
//! appending after it, until the next time.
//!
//! Offline there is no model to write the summary: its text is the coalesced state of the
//! turns it replaces, what `single-user-coalesced` shows at that point (`user/`, the tool
//! calls, the output, the latest error, the turns left), opened by a line saying which turns
//! it replaced. The call that would write it is reported as a model call (`model_calls`): the
//! conversation as the prompt before the compaction would have sent it, one instruction
//! appended, and the summary as its response; `ptc ab` prices it with the prompt.
//!
//! The points where the history was compacted follow from the turns alone: each render walks
//! the prompts from the first, estimating each one's size (characters / 4 of the text the
//! strategy hands its templates) and compacting where a prompt passes the trigger, as the agent
//! loop would have.

use ptc_plugin_api::{
    export_strategy, Block, Message, ModelCall, OptionSpec, OptionValue, Options, Output,
    RenderError, Role, Run, Section, Stats, Strategy, Turn,
};
use ptc_strategy_kit::coalesce::{self, History, Settings};
use ptc_strategy_kit::transcript::{self, Observation};

pub struct Compact;

export_strategy!(Compact);

impl Strategy for Compact {
    const NAME: &'static str = "compact";
    const DESCRIPTION: &'static str =
        "The capped transcript; each time a prompt passes `trigger_tokens`, the history so far becomes one summary (the coalesced state).";

    fn options() -> Vec<OptionSpec> {
        let mut options = vec![
            OptionSpec::count(
                "trigger_tokens",
                150_000,
                "compact the history once a prompt passes this many tokens (estimated as characters / 4)",
            ),
            OptionSpec::new(
                "cache_gated",
                OptionValue::Boolean(false),
                "past the trigger, compact only when the modelled saving on the turns left exceeds what compacting costs",
            ),
            OptionSpec::new(
                "cache_read_ratio",
                OptionValue::Float(0.1),
                "cache_gated: the price of a token read from the cache, relative to an input token",
            ),
            OptionSpec::new(
                "cache_write_ratio",
                OptionValue::Float(1.25),
                "cache_gated: the price of a token written to the cache, relative to an input token",
            ),
            OptionSpec::new(
                "output_ratio",
                OptionValue::Float(5.0),
                "cache_gated: the price of an output token (the summary), relative to an input token",
            ),
            transcript::observation_option(),
        ];
        options.extend(coalesce::options());
        options
    }

    fn templates() -> Vec<(&'static str, &'static str)> {
        transcript::templates(&[
            (
                "compacted",
                include_str!("../../../templates/compact/compacted.tera"),
            ),
            (
                "summarize",
                include_str!("../../../templates/compact/summarize.tera"),
            ),
        ])
    }

    const RENDERS_FROM: &'static [&'static str] = &["memory_values", "prints", "results", "errors"];

    fn render<'r>(
        run: &'r Run,
        turns: &'r [Turn],
        options: &Options,
    ) -> Result<Output<'r>, RenderError> {
        let mut walk = Walk::of(run, turns, options)?;
        let summary = std::mem::take(&mut walk.summary);
        let point = walk.point;
        let (messages, stats) = walk.prompt(run, turns, point, summary);
        Ok(Output {
            messages: messages.into(),
            stats,
        })
    }

    /// The summarizer's call, when the history is compacted right before this prompt: the
    /// prompt that would have been sent (the conversation verbatim, its breakpoints kept) with
    /// one instruction appended, which carries the breakpoint (the request reads what the
    /// previous prompt wrote); its response is the summary the prompt shows.
    fn model_calls<'r>(
        run: &'r Run,
        turns: &'r [Turn],
        options: &Options,
    ) -> Result<Vec<ModelCall<'r>>, RenderError> {
        let mut walk = Walk::of(run, turns, options)?;
        if walk.point != turns.len() {
            return Ok(Vec::new());
        }
        let Some((point, summary)) = walk.before.take() else {
            return Ok(Vec::new());
        };
        let response = std::mem::take(&mut walk.summary);
        let compacted = walk.point;
        let (mut request, _) = walk.prompt(run, turns, point, summary);
        if let Some(last) = request.last_mut() {
            for block in last.blocks.to_mut().iter_mut() {
                block.cache_breakpoint = false;
            }
        }
        let instruction = Section::new("summarize").with("to", compacted as u32);
        let mut ask = Message::new(Role::User, vec![instruction]);
        ask.set_cache_breakpoint();
        request.push(ask);
        Ok(vec![ModelCall {
            request: request.into(),
            response: response.into(),
        }])
    }
}

/// Where a run's history was compacted, walking its prompts from the first: the prompt for
/// the first j turns shows the summary of the first `point` and the turns after it; when it
/// passes the trigger (and the gate allows), it is compacted.
struct Walk<'r> {
    settings: Settings,
    /// Each turn's observation, in order.
    observations: Vec<Observation<'r>>,
    /// The last compaction point (0: none) and the summary the prompt shows.
    point: usize,
    summary: Vec<Section<'r>>,
    /// Before the last compaction: its point and summary.
    before: Option<(usize, Vec<Section<'r>>)>,
}

impl<'r> Walk<'r> {
    fn of(run: &'r Run, turns: &'r [Turn], options: &Options) -> Result<Walk<'r>, RenderError> {
        let settings = Settings::read(options)?;
        let trigger = options.count("trigger_tokens")?;
        let cap = options.count("observation_chars")?;
        let gate = Gate::read(options)?;
        let system = coalesce::system_message(run);
        let head = coalesce::first_prompt_head(run, &settings);
        let fixed = transcript::message_chars(&system)
            + head.iter().map(transcript::estimate_chars).sum::<usize>();
        let mut walk = Walk {
            point: 0,
            summary: summary_sections(run, &turns[..0], &settings).0,
            before: None,
            settings,
            observations: Vec::with_capacity(turns.len()),
        };
        let mut summary_chars = 0;
        let mut running = 0;
        for j in 1..=turns.len() {
            let turn = &turns[j - 1];
            let observation = transcript::observation(run, turn, cap);
            running += transcript::exchange_chars(turn, &observation);
            walk.observations.push(observation);
            let size = fixed + summary_chars + running;
            if transcript::tokens(size) > trigger {
                let compacted = summary_sections(run, &turns[..j], &walk.settings).0;
                let compacted_chars: usize = compacted.iter().map(transcript::estimate_chars).sum();
                let left = run.turns_left(j).saturating_sub(1);
                if gate.allows(size, fixed + compacted_chars, left) {
                    let previous = std::mem::replace(&mut walk.summary, compacted);
                    walk.before = Some((walk.point, previous));
                    walk.point = j;
                    running = 0;
                    summary_chars = compacted_chars;
                }
            }
        }
        Ok(walk)
    }

    /// The messages of the prompt for `turns` that shows `summary` of the first `point` turns
    /// and every turn after them, with its statistics.
    fn prompt(
        self,
        run: &'r Run,
        turns: &'r [Turn],
        point: usize,
        summary: Vec<Section<'r>>,
    ) -> (Vec<Message<'r>>, Stats) {
        let system = coalesce::system_message(run);
        let head = coalesce::first_prompt_head(run, &self.settings);
        // Only the last summary is shown; its statistics are those of the coalesced view.
        let mut stats = if point > 0 {
            summary_sections(run, &turns[..point], &self.settings).1
        } else {
            Stats::default()
        };
        // The head (mission, `tool/`, `data/`) is the same block in every prompt; the summary
        // (or, before the first compaction, the turns left of the first prompt) follows it.
        let first = Message::of_blocks(
            Role::User,
            vec![Block::new(head).cached(), Block::new(summary)],
        );
        let mut messages = Vec::with_capacity(2 + 2 * (turns.len() - point));
        messages.push(system);
        messages.push(first);
        let observations = self.observations.into_iter().skip(point);
        for (turn, observation) in turns[point..].iter().zip(observations) {
            transcript::count(turn, &observation, &mut stats);
            messages.push(transcript::response(turn));
            messages.push(observation.message);
        }
        // Until the next compaction the next prompt appends to this one.
        if let Some(last) = messages.last_mut() {
            last.set_cache_breakpoint();
        }
        (messages, stats)
    }
}

/// `cache_gated`: whether a compaction pays for itself, in the prices of an input token.
struct Gate {
    on: bool,
    read: f64,
    write: f64,
    output: f64,
}

impl Gate {
    fn read(options: &Options) -> Result<Gate, RenderError> {
        let ratio = |name: &str| match options.get(name) {
            Some(OptionValue::Float(x)) if x.is_finite() && *x >= 0.0 => Ok(*x),
            Some(OptionValue::Integer(i)) if *i >= 0 => Ok(*i as f64),
            Some(other) => Err(RenderError::option(
                name,
                &format!("expected a non-negative number, found {other}"),
            )),
            None => Err(RenderError::option(name, "missing")),
        };
        Ok(Gate {
            on: options.boolean("cache_gated")?,
            read: ratio("cache_read_ratio")?,
            write: ratio("cache_write_ratio")?,
            output: ratio("output_ratio")?,
        })
    }

    /// Whether to compact a prompt of `before` characters into one of `after` (the head and
    /// the summary), with `left` prompts still to be sent after it. Not compacting, each of
    /// them reads the whole history from the cache; compacting, each reads the summary
    /// instead, and the compaction costs the summarizer's call (the prompt read from the
    /// cache, the summary written as output) and the summary written to the cache.
    fn allows(&self, before: usize, after: usize, left: u32) -> bool {
        if !self.on {
            return true;
        }
        let (before, after) = (before as f64 / 4.0, after as f64 / 4.0);
        let saving = f64::from(left) * self.read * (before - after);
        let cost = self.read * before + (self.output + self.write) * after;
        saving > cost
    }
}

/// The summary of `turns` (the coalesced state after them, opened by the line saying which
/// turns it replaced; for no turns, what the first prompt shows after its head), and the
/// statistics of the coalesced view.
fn summary_sections<'r>(
    run: &'r Run,
    turns: &'r [Turn],
    settings: &Settings,
) -> (Vec<Section<'r>>, Stats) {
    let history = History::of(turns, settings);
    let mut sections = Vec::with_capacity(7);
    if let Some(last) = turns.last() {
        sections.push(Section::new("compacted").with("to", last.number));
    }
    sections.extend(history.sections(run, settings));
    sections.push(coalesce::turns_left_section(run, turns.len()));
    (sections, history.stats)
}

#[cfg(test)]
mod tests {
    use abi_stable::std_types::{RArc, ROption, RVec, Tuple2};
    use ptc_plugin_api::{Field, OptionValue, ToolCall, TurnError, Value};

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

    /// Each turn: a 200-character response, a nil value and a 37-character print, 240
    /// characters; a successful one defines `x` as its number.
    fn turn(number: u32, failed: bool) -> Turn {
        Turn {
            number,
            raw_response: "r".repeat(200).into(),
            program: ROption::RSome(format!("(step {number})").into()),
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
            memory: vec![Tuple2("x".into(), RArc::new(Value::Integer(number.into())))].into(),
            defined: vec![0].into(),
        }
    }

    fn options(trigger: i64) -> Options {
        let mut options = Options::defaults(&Compact::options());
        for e in options.entries.iter_mut() {
            if e.0.as_str() == "trigger_tokens" {
                e.1 = OptionValue::Integer(trigger);
            }
        }
        options
    }

    /// The templates of the first user message's second block, and the numbers of the turns
    /// shown whole after it.
    fn shape<'a>(output: &'a Output<'_>) -> (Vec<&'a str>, Vec<u32>) {
        let summary = output.messages[1].blocks[1]
            .sections
            .iter()
            .map(|s| s.template.as_str())
            .collect();
        let whole = output.messages[2..]
            .iter()
            .filter(|m| m.role == Role::Assistant)
            .count() as u32;
        let first = match output.messages[1].blocks[1].sections.first() {
            Some(s) if s.template.as_str() == "compacted" => match &s.fields[0].1 {
                Field::Integer(i) => *i as u32,
                other => panic!("{other:?}"),
            },
            _ => 0,
        };
        (summary, (first + 1..=first + whole).collect())
    }

    #[test]
    fn below_the_trigger_it_is_the_transcript() {
        let turns: Vec<Turn> = (1..=4).map(|n| turn(n, n == 2)).collect();
        let the_run = run();
        let output = Compact::render(&the_run, &turns, &options(150_000)).unwrap();
        assert_eq!(shape(&output), (vec!["turns_left"], vec![1, 2, 3, 4]));
        // The head block and the last message carry the breakpoints.
        assert!(output.messages[1].blocks[0].cache_breakpoint);
        assert!(!output.messages[1].blocks[1].cache_breakpoint);
        assert!(output.messages[9].blocks[0].cache_breakpoint);
        assert_eq!(output.stats.turns_compressed, 0);
    }

    /// System 7 + mission 8 = 15 characters; each turn 240, so the prompt for j turns before
    /// any compaction has 15 + 240 j characters. A trigger of 150 tokens is passed past 600
    /// characters: by the prompt for 3 turns (735), not for 2 (495). The summary of turns 1-3
    /// (turn 2 failed) hands its templates 123 characters: `x`, the padding to the comment
    /// column and `integer` (1 + 29 + 7), `search` twice (12), the two prints (74). Then the
    /// prompt for 4 turns has 15 + 123 + 240 = 378 characters, and the one for 5 turns 618:
    /// compacted again.
    #[test]
    fn past_the_trigger_the_history_becomes_the_summary() {
        let turns: Vec<Turn> = (1..=5).map(|n| turn(n, n == 2)).collect();
        let the_run = run();
        let at = |k: usize| Compact::render(&the_run, &turns[..k], &options(150)).unwrap();
        assert_eq!(shape(&at(2)), (vec!["turns_left"], vec![1, 2]));
        let summary = vec!["compacted", "user", "tool_calls", "output", "turns_left"];
        assert_eq!(shape(&at(3)), (summary.clone(), vec![]));
        let four = at(4);
        assert_eq!(shape(&four), (summary.clone(), vec![4]));
        assert_eq!(
            four.messages[1].blocks[1].sections[0],
            Section::new("compacted").with("to", 3u32)
        );
        assert_eq!(
            four.stats,
            Stats {
                turns_compressed: 3,
                tool_calls_total: 3,
                tool_calls_shown: 3,
                tool_calls_dropped: 0,
                printlns_total: 3,
                printlns_shown: 3,
                printlns_dropped: 0,
                error_turns_collapsed: 1,
            }
        );
        assert_eq!(shape(&at(5)), (summary, vec![]));
        // The head block is the same as before any compaction.
        assert_eq!(four.messages[1].blocks[0], at(0).messages[1].blocks[0]);
        // Nothing is compacted under a trigger the whole transcript stays below.
        assert_eq!(
            shape(&Compact::render(&run(), &turns, &options(304)).unwrap()).1,
            vec![1, 2, 3, 4, 5]
        );
    }

    /// The summarizer's call comes with the prompt the compaction made (for 3 turns, then for
    /// 5, as above), and with no other: its request is the conversation the prompt would
    /// otherwise have been, with the instruction appended (which alone carries a breakpoint
    /// after the head's); its response is the summary the prompt shows.
    #[test]
    fn the_summarizers_call_comes_with_the_compacted_prompt() {
        let turns: Vec<Turn> = (1..=5).map(|n| turn(n, n == 2)).collect();
        let the_run = run();
        let calls = |k: usize| Compact::model_calls(&the_run, &turns[..k], &options(150)).unwrap();
        for k in [0, 1, 2, 4] {
            assert!(calls(k).is_empty(), "{k}");
        }
        let three = calls(3);
        assert_eq!(three.len(), 1);
        let call = &three[0];
        // System, the first user message (before any compaction: the first prompt's rest),
        // turns 1-3 whole, the instruction.
        let the_run = run();
        let whole = Compact::render(&the_run, &turns[..3], &options(150_000)).unwrap();
        assert_eq!(call.request.len(), whole.messages.len() + 1);
        for (sent, uncompacted) in call.request.iter().zip(whole.messages.iter()).take(8) {
            assert_eq!(
                sent.blocks.iter().map(|b| &b.sections).collect::<Vec<_>>(),
                uncompacted
                    .blocks
                    .iter()
                    .map(|b| &b.sections)
                    .collect::<Vec<_>>()
            );
        }
        let ask = call.request.last().unwrap();
        assert_eq!(
            ask.blocks[0].sections[0],
            Section::new("summarize").with("to", 3u32)
        );
        let marks: Vec<(usize, usize)> = call
            .request
            .iter()
            .enumerate()
            .flat_map(|(m, message)| {
                message
                    .blocks
                    .iter()
                    .enumerate()
                    .filter(|(_, b)| b.cache_breakpoint)
                    .map(move |(b, _)| (m, b))
            })
            .collect();
        assert_eq!(marks, [(1, 0), (call.request.len() - 1, 0)]);
        let the_run = run();
        let compacted = Compact::render(&the_run, &turns[..3], &options(150)).unwrap();
        assert_eq!(
            call.response.as_slice(),
            compacted.messages[1].blocks[1].sections.as_slice()
        );
        // The second: the summary of turns 1-3, turns 4 and 5, the instruction.
        let five = calls(5);
        assert_eq!(five.len(), 1);
        assert_eq!(
            five[0].request[1].blocks[1].sections[0],
            Section::new("compacted").with("to", 3u32)
        );
        assert_eq!(five[0].request.len(), 2 + 2 * 2 + 1);
        assert_eq!(
            five[0].response[0],
            Section::new("compacted").with("to", 5u32)
        );
    }

    /// With `cache_gated`, compacting the prompt for 3 turns (735 characters, 183.75 tokens)
    /// into 15 + 123 = 138 characters (34.5 tokens), with 9 - 3 - 1 = 5 prompts left, saves
    /// 5 x 0.1 x 149.25 = 75 tokens' worth and costs 0.1 x 183.75 + (5 + 1.25) x 34.5 = 234:
    /// it waits. In a run of 99 turns, 95 prompts are left: it saves 1,418 and compacts.
    #[test]
    fn cache_gated_compacts_only_when_the_turns_left_repay_it() {
        let turns: Vec<Turn> = (1..=4).map(|n| turn(n, n == 2)).collect();
        let mut gated = options(150);
        for e in gated.entries.iter_mut() {
            if e.0.as_str() == "cache_gated" {
                e.1 = OptionValue::Boolean(true);
            }
        }
        let the_run = run();
        let output = Compact::render(&the_run, &turns[..3], &gated).unwrap();
        assert_eq!(shape(&output).1, vec![1, 2, 3]);
        let long = Run {
            max_turns: 99,
            ..run()
        };
        let output = Compact::render(&long, &turns[..3], &gated).unwrap();
        assert_eq!(shape(&output).1, Vec::<u32>::new());
        // A ratio the gate cannot use is an error naming it.
        for e in gated.entries.iter_mut() {
            if e.0.as_str() == "output_ratio" {
                e.1 = OptionValue::Float(-1.0);
            }
        }
        let the_run = run();
        let err = Compact::render(&the_run, &turns, &gated).unwrap_err();
        assert!(err.message.contains("output_ratio"), "{err}");
    }

    #[test]
    fn between_compactions_each_prompt_extends_the_one_before() {
        let turns: Vec<Turn> = (1..=9).map(|n| turn(n, n % 4 == 0)).collect();
        let opts = options(150);
        let mut compactions = 0;
        for k in 0..turns.len() {
            let the_run = run();
            let before = Compact::render(&the_run, &turns[..k], &opts).unwrap();
            let the_run = run();
            let after = Compact::render(&the_run, &turns[..k + 1], &opts).unwrap();
            if after.messages.len() == before.messages.len() + 2 {
                for (a, b) in before.messages.iter().zip(after.messages.iter()) {
                    assert!(a.sections().eq(b.sections()), "turn {k}");
                }
            } else {
                compactions += 1;
                assert_eq!(after.messages.len(), 2, "compacted at the newest turn");
                assert_eq!(before.messages[1].blocks[0], after.messages[1].blocks[0]);
            }
        }
        assert!(compactions >= 2, "{compactions}");
    }
}
