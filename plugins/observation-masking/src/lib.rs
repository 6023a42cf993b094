//! `observation-masking`: the full history, except that the feedback of turns older than
//! `window` is replaced by one line saying what was hidden (the strategy that halved cost at
//! equal solve rate in "The Complexity Trap", 2025). Assistant messages are kept.
//!
//! When an earlier message changes: the feedback of turn t is shown whole while fewer than
//! `window` turns follow it, and is masked from the prompt rendered after turn t + `window` on.
//! So between two consecutive prompts exactly one earlier message changes (none while the run
//! has no more than `window` turns); that is where a provider's prompt cache breaks.

use std::cell::RefCell;

use ptc_plugin_api::{
    export_strategy, Message, OptionSpec, Options, Output, RenderError, Role, Run, Section, Stats,
    Strategy, Turn,
};
use ptc_strategy_kit::coalesce::{self, Settings};
use ptc_strategy_kit::{turn_message, ByRun};

pub struct ObservationMasking;

export_strategy!(ObservationMasking);

impl Strategy for ObservationMasking {
    const NAME: &'static str = "observation-masking";
    const DESCRIPTION: &'static str =
        "Full history; the feedback of turns older than `window` becomes one line saying what was hidden.";

    fn options() -> Vec<OptionSpec> {
        let mut options = vec![OptionSpec::count(
            "window",
            3,
            "most recent turns whose feedback is shown whole",
        )];
        options.extend(coalesce::options());
        options
    }

    fn templates() -> Vec<(&'static str, &'static str)> {
        let mut templates = coalesce::TEMPLATES.to_vec();
        templates.push((
            "masked",
            include_str!("../../../templates/observation-masking/masked.tera"),
        ));
        templates
    }

    const RENDERS_FROM: &'static [&'static str] = &["memory_values", "prints", "results", "errors"];

    fn render<'r>(
        run: &'r Run,
        turns: &'r [Turn],
        options: &Options,
    ) -> Result<Output<'r>, RenderError> {
        let settings = Settings::read(options)?;
        let window = options.count("window")?;
        let masked = turns.len().saturating_sub(window);
        let mut messages = Vec::with_capacity(2 + 2 * turns.len());
        messages.extend(coalesce::head(run, &settings));
        let mut stats = coalesce::shown_whole(turns);
        for (i, turn) in turns.iter().enumerate() {
            if i < masked {
                messages.push(coalesce::response(turn));
                messages.push(masked_message(run, turn, &mut stats));
            } else {
                messages.extend(coalesce::exchange(run, turn));
            }
        }
        // The next prompt masks one more turn, the oldest shown whole, and keeps everything
        // before its feedback: the breakpoint goes on that turn's response (message 2 + 2i),
        // or on the last message while no turn is to be masked next.
        let next_masked = (turns.len() + 1).saturating_sub(window);
        let mark = if next_masked > masked && masked < turns.len() {
            2 + 2 * masked
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

/// The message that replaces a turn's feedback, and what it hid in `stats`. Every prompt
/// masks every turn before its window: while a run with a key renders, the message is made
/// once per turn and shared by the prompts that show it.
fn masked_message<'r>(run: &'r Run, turn: &'r Turn, stats: &mut Stats) -> Message<'r> {
    stats.turns_compressed += 1;
    if turn.success {
        stats.printlns_shown -= turn.prints.len() as u64;
        stats.printlns_dropped += turn.prints.len() as u64;
    } else {
        stats.error_turns_collapsed += 1;
    }
    turn_message(&MASKED, turn, || {
        Message::new(Role::User, vec![masked_section(run, turn)])
    })
}

thread_local! {
    /// By the turn's address: the message that masks its feedback, shared.
    static MASKED: RefCell<ByRun<usize, Message<'static>>> = RefCell::default();
}

/// How many lines `text` holds, as `str::lines` counts them: one per line break, and one
/// for what follows the last.
fn line_count(text: &str) -> usize {
    let breaks = memchr::memchr_iter(b'\n', text.as_bytes()).count();
    breaks + usize::from(!text.is_empty() && !text.ends_with('\n'))
}

/// The line that replaces a turn's feedback.
fn masked_section<'r>(run: &'r Run, turn: &'r Turn) -> Section<'r> {
    let (printed_lines, defined) = if turn.success {
        let lines: usize = turn.prints.iter().map(|p| line_count(p).max(1)).sum();
        let defined: Vec<String> = turn
            .defined_entries()
            .map(|(name, _)| name.to_owned())
            .collect();
        (lines, defined)
    } else {
        (0, Vec::new())
    };
    Section::with_capacity("masked", 7)
        .with("turn", turn.number)
        .with("failed", !turn.success)
        .with("printed_lines", printed_lines)
        .with("tool_calls", turn.tool_calls.len())
        .with("defined", defined)
        .with("next_turn", turn.number + 1)
        .with("max_turns", run.max_turns)
}

#[cfg(test)]
mod tests {
    proptest::proptest! {
        /// Line breaks counted at once are the lines `str::lines` gives, whatever the text.
        #[test]
        fn lines_are_counted_as_str_lines_counts_them(text in "[a\n\r é]{0,12}") {
            proptest::prop_assert_eq!(super::line_count(&text), text.lines().count());
        }
    }
}
