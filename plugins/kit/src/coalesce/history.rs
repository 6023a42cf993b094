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
        let tool_calls: Vec<_> = turns
            .iter()
            .filter(|t| t.success || settings.failed_turn_tool_calls)
            .flat_map(|t| t.tool_calls.iter())
            .collect();
        let prints: Vec<&str> = successful()
            .flat_map(|t| t.prints.iter().map(|p| p.as_str()))
            .collect();
        let memory = turns
            .iter()
            .rev()
            .find(|t| t.success)
            .map(|t| t.memory.iter().map(|e| (e.0.as_str(), &e.1)).collect())
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
    pub fn sections(&self, run: &Run, settings: &Settings) -> Vec<Section> {
        let mut sections = Vec::new();
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
        sections
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
