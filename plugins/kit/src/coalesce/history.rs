//! The history of a run as the coalesced view sees it: the tool calls, prints and memory its
//! turns leave, gathered once into a [`History`], and the statistics of what the prompt shows of
//! them and what it drops.

use ptc_plugin_api::{Run, Section, Stats, ToolCall, Turn, Value};

use super::sections::{error_section, output_section, tool_calls_section, user_section};
use super::Settings;

/// What the turns so far add to the prompt, gathered once.
pub struct History<'a> {
    turns: &'a [Turn],
    /// Tool calls eligible for the list (successful turns, plus failed ones when asked).
    tool_calls: Vec<&'a ToolCall>,
    /// Prints of successful turns.
    prints: Vec<&'a str>,
    /// The memory of the last successful turn.
    memory: Vec<(&'a str, &'a Value)>,
    pub has_println: bool,
    pub stats: Stats,
}

impl<'a> History<'a> {
    pub fn of(turns: &'a [Turn], settings: &Settings) -> History<'a> {
        let successful = || turns.iter().filter(|t| t.success);
        let listed = || {
            turns
                .iter()
                .filter(|t| t.success || settings.failed_turn_tool_calls)
        };
        // Counted first: a flattened iterator cannot tell its length, and growing the lists
        // costs more than counting them.
        let mut tool_calls = Vec::with_capacity(listed().map(|t| t.tool_calls.len()).sum());
        for turn in listed() {
            tool_calls.extend(turn.tool_calls.iter());
        }
        let mut prints = Vec::with_capacity(successful().map(|t| t.prints.len()).sum());
        for turn in successful() {
            prints.extend(turn.prints.iter().map(|p| p.as_str()));
        }
        let memory = turns
            .iter()
            .rev()
            .find(|t| t.success)
            .map(|t| t.memory.iter().map(|e| (e.0.as_str(), &*e.1)).collect())
            .unwrap_or_default();
        let failed = turns.iter().filter(|t| !t.success).count();
        let last_failed = turns.last().is_some_and(|t| !t.success);
        let mut stats = Stats {
            turns_compressed: turns.len() as u64,
            error_turns_collapsed: (failed - usize::from(last_failed)) as u64,
            ..Stats::default()
        };
        count_tool_calls(&mut stats, tool_calls.len(), settings.tool_call_limit);
        count_printlns(&mut stats, prints.len(), settings.println_limit);
        History {
            turns,
            has_println: !prints.is_empty(),
            tool_calls,
            prints,
            memory,
            stats,
        }
    }

    /// `user/`, expected output, tool calls, output and the latest error, as each applies.
    pub fn sections(&self, run: &'a Run, settings: &Settings) -> Vec<Section<'a>> {
        let mut sections = Vec::with_capacity(5);
        self.push_sections(run, settings, &mut sections);
        sections
    }

    /// [`History::sections`], pushed onto `sections`.
    pub fn push_sections(
        &self,
        run: &'a Run,
        settings: &Settings,
        sections: &mut Vec<Section<'a>>,
    ) {
        if !self.memory.is_empty() {
            sections.push(user_section(
                &self.memory,
                self.has_println,
                settings.sample,
            ));
        }
        if let Some(signature) = run.signature.as_ref().into_option() {
            sections.push(Section::new("expected_output").with("signature", signature.as_str()));
        }
        if !self.turns.is_empty() {
            let with_results = settings.tool_call_results_when_no_println && !self.has_println;
            sections.push(tool_calls_section(&self.tool_calls, settings, with_results));
        }
        if self.has_println {
            sections.push(output_section(&self.prints, settings));
        }
        if let Some(last) = self.turns.last().filter(|t| !t.success) {
            sections.push(error_section(last));
        }
    }
}

/// Statistics of turns shown whole: nothing compressed, every tool call and print of a
/// successful turn counted as shown.
pub fn shown_whole(turns: &[Turn]) -> Stats {
    let successful = turns.iter().filter(|t| t.success);
    let calls: u64 = successful.clone().map(|t| t.tool_calls.len() as u64).sum();
    let prints: u64 = successful.map(|t| t.prints.len() as u64).sum();
    Stats {
        tool_calls_total: calls,
        tool_calls_shown: calls,
        printlns_total: prints,
        printlns_shown: prints,
        ..Stats::default()
    }
}

/// Counts a tool-calls section of `total` calls, of which the most recent `limit` are shown.
pub fn count_tool_calls(stats: &mut Stats, total: usize, limit: usize) {
    let shown = total.min(limit) as u64;
    stats.tool_calls_total += total as u64;
    stats.tool_calls_shown += shown;
    stats.tool_calls_dropped += total as u64 - shown;
}

/// Counts an output section of `total` println entries, of which the most recent `limit` are
/// shown.
pub fn count_printlns(stats: &mut Stats, total: usize, limit: usize) {
    let shown = total.min(limit) as u64;
    stats.printlns_total += total as u64;
    stats.printlns_shown += shown;
    stats.printlns_dropped += total as u64 - shown;
}

#[cfg(test)]
mod tests {
    use abi_stable::std_types::{ROption, RVec};
    use ptc_plugin_api::{Options, TurnError};

    use super::*;
    use crate::coalesce::settings_with_defaults;

    fn stats(total: u64, shown: u64, dropped: u64) -> Stats {
        Stats {
            tool_calls_total: total,
            tool_calls_shown: shown,
            tool_calls_dropped: dropped,
            printlns_total: total * 10,
            printlns_shown: shown * 10,
            printlns_dropped: dropped * 10,
            ..Stats::default()
        }
    }

    fn call(name: &str) -> ToolCall {
        ToolCall {
            name: name.into(),
            args: Value::Nil,
            result: Value::Nil,
        }
    }

    /// A turn with `calls` tool calls and `prints` println entries.
    fn turn(number: u32, success: bool, calls: usize, prints: usize) -> Turn {
        Turn {
            number,
            raw_response: "".into(),
            program: ROption::RNone,
            success,
            result: Value::Nil,
            error: match success {
                true => ROption::RNone,
                false => ROption::RSome(TurnError {
                    reason: "eval_error".into(),
                    message: ROption::RNone,
                }),
            },
            prints: (0..prints).map(|i| format!("p{i}").into()).collect(),
            tool_calls: (0..calls).map(|i| call(&format!("t{i}"))).collect(),
            memory: RVec::new(),
            defined: RVec::new(),
        }
    }

    fn settings(tool_call_limit: usize, println_limit: usize, failed_calls: bool) -> Settings {
        let mut settings = settings_with_defaults(&Options::default()).unwrap();
        settings.tool_call_limit = tool_call_limit;
        settings.println_limit = println_limit;
        settings.failed_turn_tool_calls = failed_calls;
        settings
    }

    #[test]
    fn calls_past_the_limit_are_dropped_and_added_to_the_counts() {
        let mut s = Stats::default();
        count_tool_calls(&mut s, 2, 1);
        assert_eq!(
            (s.tool_calls_total, s.tool_calls_shown, s.tool_calls_dropped),
            (2, 1, 1)
        );
        let mut s = stats(10, 7, 3);
        count_tool_calls(&mut s, 5, 2);
        assert_eq!(
            (s.tool_calls_total, s.tool_calls_shown, s.tool_calls_dropped),
            (15, 9, 6)
        );
        count_tool_calls(&mut s, 3, 20);
        assert_eq!(
            (s.tool_calls_total, s.tool_calls_shown, s.tool_calls_dropped),
            (18, 12, 6)
        );
        assert_eq!(
            (s.printlns_total, s.printlns_shown, s.printlns_dropped),
            (100, 70, 30),
            "printlns untouched"
        );
    }

    #[test]
    fn printlns_past_the_limit_are_dropped_and_added_to_the_counts() {
        let mut s = Stats::default();
        count_printlns(&mut s, 2, 1);
        assert_eq!(
            (s.printlns_total, s.printlns_shown, s.printlns_dropped),
            (2, 1, 1)
        );
        let mut s = stats(1, 1, 0);
        count_printlns(&mut s, 5, 2);
        assert_eq!(
            (s.printlns_total, s.printlns_shown, s.printlns_dropped),
            (15, 12, 3)
        );
        count_printlns(&mut s, 3, 20);
        assert_eq!(
            (s.printlns_total, s.printlns_shown, s.printlns_dropped),
            (18, 15, 3)
        );
        assert_eq!(
            (s.tool_calls_total, s.tool_calls_shown, s.tool_calls_dropped),
            (1, 1, 0),
            "tool calls untouched"
        );
    }

    #[test]
    fn turns_shown_whole_count_the_successful_turns_only() {
        let turns = [
            turn(1, true, 2, 3),
            turn(2, false, 4, 5),
            turn(3, true, 1, 0),
        ];
        assert_eq!(
            shown_whole(&turns),
            Stats {
                tool_calls_total: 3,
                tool_calls_shown: 3,
                printlns_total: 3,
                printlns_shown: 3,
                ..Stats::default()
            }
        );
        assert_eq!(shown_whole(&[]), Stats::default());
    }

    #[test]
    fn the_history_counts_what_its_sections_show_and_drop() {
        let turns = [
            turn(1, true, 2, 3),
            turn(2, false, 4, 5),
            turn(3, false, 1, 1),
            turn(4, true, 1, 0),
        ];
        let history = History::of(&turns, &settings(1, 2, false));
        assert_eq!(
            history.stats,
            Stats {
                turns_compressed: 4,
                tool_calls_total: 3,
                tool_calls_shown: 1,
                tool_calls_dropped: 2,
                printlns_total: 3,
                printlns_shown: 2,
                printlns_dropped: 1,
                error_turns_collapsed: 2,
            }
        );
        assert!(history.has_println);
        // With the failed turns' calls, still with only the successful turns' prints; the
        // latest failed turn is shown, not collapsed.
        let history = History::of(&turns[..3], &settings(10, 10, true));
        assert_eq!(
            history.stats,
            Stats {
                turns_compressed: 3,
                tool_calls_total: 7,
                tool_calls_shown: 7,
                tool_calls_dropped: 0,
                printlns_total: 3,
                printlns_shown: 3,
                printlns_dropped: 0,
                error_turns_collapsed: 1,
            }
        );
        let history = History::of(&turns[3..], &settings(10, 10, false));
        assert!(!history.has_println);
        assert_eq!(
            History::of(&[], &settings(1, 1, false)).stats,
            Stats::default()
        );
    }
}
