//! `per-turn-summary`: each turn compressed on its own, keeping USER/ASSISTANT pairs. After the
//! first prompt, every turn is an assistant message holding only its program (the reasoning
//! dropped) and a user message summarising that turn alone: the symbols it defined or
//! redefined, its tool calls, its output, its error if it failed, and the turns left.
//! Nothing already sent ever changes, so a provider's prompt cache keeps every earlier turn.

use std::cell::RefCell;

use ptc_plugin_api::{
    export_strategy, Message, OptionSpec, Options, Output, RenderError, Role, Run, Section, Stats,
    Strategy, Turn,
};
use ptc_strategy_kit::coalesce::{self, Settings};
use ptc_strategy_kit::ByRun;

pub struct PerTurnSummary;

export_strategy!(PerTurnSummary);

/// This strategy's own templates; the rest are the coalesced view's.
const OWN_TEMPLATES: &[(&str, &str)] = &[
    (
        "program",
        include_str!("../../../templates/per-turn-summary/program.tera"),
    ),
    (
        "defined",
        include_str!("../../../templates/per-turn-summary/defined.tera"),
    ),
    (
        "turn_error",
        include_str!("../../../templates/per-turn-summary/turn_error.tera"),
    ),
];

impl Strategy for PerTurnSummary {
    const NAME: &'static str = "per-turn-summary";
    const DESCRIPTION: &'static str =
        "Each turn's program, then a summary of that turn alone; append-only, cache-friendly.";

    /// The coalesced view's options; the limits apply to each turn's summary.
    fn options() -> Vec<OptionSpec> {
        coalesce::options()
    }

    fn templates() -> Vec<(&'static str, &'static str)> {
        let mut templates = coalesce::TEMPLATES.to_vec();
        templates.extend_from_slice(OWN_TEMPLATES);
        templates
    }

    const RENDERS_FROM: &'static [&'static str] = &["memory_values", "prints", "errors"];

    fn render<'r>(
        run: &'r Run,
        turns: &'r [Turn],
        options: &Options,
    ) -> Result<Output<'r>, RenderError> {
        let settings = Settings::read(options)?;
        let mut messages = Vec::with_capacity(2 + 2 * turns.len());
        messages.extend(coalesce::head(run, &settings));
        let mut stats = Stats {
            turns_compressed: turns.len() as u64,
            ..Stats::default()
        };
        for turn in turns {
            let (exchange, counted) = exchange(run, turn, &settings);
            messages.extend(exchange);
            stats += counted;
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

/// A turn's two messages, its program and the summary of what it did, with what the summary
/// adds to the statistics. Every prompt shows every earlier turn: while a run with a key
/// renders, they are made once per turn and settings and shared by the prompts that show them.
fn exchange<'r>(run: &'r Run, turn: &'r Turn, settings: &Settings) -> ([Message<'r>; 2], Stats) {
    let made = || {
        let mut program = Section::new("program");
        if let Some(text) = turn.program.as_ref().into_option() {
            program = program.with("program", text.as_str());
        }
        let mut stats = Stats::default();
        let summary = summary(run, turn, settings, &mut stats);
        let messages = [
            Message::new(Role::Assistant, vec![program]),
            Message::new(Role::User, summary),
        ];
        (messages, stats)
    };
    let kept = KEPT.with(|kept| {
        let key = (std::ptr::from_ref(turn) as usize, settings.clone());
        kept.borrow_mut().get(key, || {
            let (messages, stats) = made();
            (messages.map(Message::shared), stats)
        })
    });
    kept.unwrap_or_else(made)
}

/// A turn's messages, shared, and what they add to the statistics.
type Kept = ([Message<'static>; 2], Stats);

thread_local! {
    /// By the turn's address and the settings: what [`exchange`] made of the turn.
    static KEPT: RefCell<ByRun<(usize, Settings), Kept>> = RefCell::default();
}

/// What one turn did: new or changed definitions, tool calls, output, error, turns left.
fn summary<'r>(
    run: &'r Run,
    turn: &'r Turn,
    settings: &Settings,
    stats: &mut Stats,
) -> Vec<Section<'r>> {
    let mut sections = Vec::new();
    let printed = turn.success && !turn.prints.is_empty();
    if turn.success {
        let changed: Vec<_> = turn.defined_entries().collect();
        if !changed.is_empty() {
            let mut defined = coalesce::user_section(&changed, printed, settings.sample);
            defined.template = "defined".into();
            sections.push(defined);
        }
    }
    if turn.success || settings.failed_turn_tool_calls {
        let calls: Vec<_> = turn.tool_calls.iter().collect();
        if !calls.is_empty() {
            let with_results = settings.tool_call_results_when_no_println && !printed;
            sections.push(coalesce::tool_calls_section(&calls, settings, with_results));
            coalesce::count_tool_calls(stats, calls.len(), settings.tool_call_limit);
        }
    }
    if printed {
        let prints: Vec<&str> = turn.prints.iter().map(|p| p.as_str()).collect();
        sections.push(coalesce::output_section(&prints, settings));
        coalesce::count_printlns(stats, prints.len(), settings.println_limit);
    }
    if !turn.success {
        let message = turn.error_text().unwrap_or("error");
        sections.push(Section::new("turn_error").with("message", message));
    }
    sections.push(coalesce::turns_left_section(run, turn.number as usize));
    sections
}

#[cfg(test)]
mod tests {
    use abi_stable::std_types::{ROption, RVec};
    use ptc_plugin_api::{OptionValue, ToolCall, Value};

    use super::*;

    fn turn(number: u32, calls: usize, prints: usize) -> Turn {
        Turn {
            number,
            raw_response: "".into(),
            program: ROption::RSome("(x)".into()),
            success: true,
            result: Value::Nil,
            error: ROption::RNone,
            prints: (0..prints).map(|i| format!("p{i}").into()).collect(),
            tool_calls: (0..calls)
                .map(|i| ToolCall {
                    name: format!("t{i}").into(),
                    args: Value::Nil,
                    result: Value::Nil,
                })
                .collect(),
            memory: RVec::new(),
            defined: RVec::new(),
        }
    }

    /// The limits apply to each turn's summary, and the statistics add the turns up.
    #[test]
    fn each_turn_drops_what_is_past_its_limits() {
        let run = Run {
            mission: "m".into(),
            system_prompt: "s".into(),
            tools: RVec::new(),
            data: RVec::new(),
            max_turns: 5,
            signature: ROption::RNone,
            key: 0,
        };
        let mut options = Options::defaults(&PerTurnSummary::options());
        for entry in options.entries.iter_mut() {
            match entry.0.as_str() {
                "tool_call_limit" => entry.1 = OptionValue::Integer(1),
                "println_limit" => entry.1 = OptionValue::Integer(2),
                _ => {}
            }
        }
        let turns = [turn(1, 2, 3), turn(2, 1, 1)];
        let output = PerTurnSummary::render(&run, &turns, &options).expect("renders");
        assert_eq!(
            output.stats,
            Stats {
                turns_compressed: 2,
                tool_calls_total: 3,
                tool_calls_shown: 2,
                tool_calls_dropped: 1,
                printlns_total: 4,
                printlns_shown: 3,
                printlns_dropped: 1,
                error_turns_collapsed: 0,
            }
        );
    }
}
