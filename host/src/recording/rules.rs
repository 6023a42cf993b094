//! The rules a recording must follow beyond its JSON shape, and the problems `ptc validate`
//! reports: every rule broken, in document order, each an error (the recording cannot be
//! used) or a warning.

use std::path::Path;

use crate::recording::format::{parse_json, RecordingJson};
use crate::recording::{mission, Recording, RecordingDefaults, RecordingError};

impl Recording {
    /// Every problem of a recording (`ptc validate`): a syntax error alone, else every rule
    /// broken, warnings included.
    pub fn check(
        bytes: &[u8],
        path: &Path,
        first_line: usize,
        defaults: &RecordingDefaults,
    ) -> Vec<Problem> {
        match parse_json(bytes, path, first_line) {
            Err(RecordingError::Syntax {
                line,
                column,
                json_path,
                message,
                ..
            }) => vec![Problem {
                severity: Severity::Error,
                line: Some(line),
                column: Some(column),
                json_path,
                message,
            }],
            Err(other) => vec![Problem {
                severity: Severity::Error,
                line: None,
                column: None,
                json_path: ".".into(),
                message: other.to_string(),
            }],
            Ok(json) => problems(&json, defaults),
        }
    }
}

/// How bad a problem is: an error makes the recording unusable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// A problem `ptc validate` reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub severity: Severity,
    /// Line and column in the file, for syntax errors.
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub json_path: String,
    pub message: String,
}

/// A name PTC-Lisp can bind: not empty, no whitespace (line breaks included), control
/// characters, brackets, quotes or commas, not starting with a digit or `:`. Every name a
/// prompt shows (data, memory, tools, tool calls, function parameters) is one, so none can
/// break a line of the prompt.
pub(crate) fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    match chars.next() {
        None => false,
        Some(first) if first.is_ascii_digit() || first == ':' => false,
        Some(_) => !name
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || "()[]{}\"',;`~@^\\".contains(c)),
    }
}

/// Every rule `json` breaks, in document order.
pub(super) fn problems(json: &RecordingJson, defaults: &RecordingDefaults) -> Vec<Problem> {
    let mut found = Vec::new();
    let mut rule = |severity, json_path: String, message: String| {
        found.push(Problem {
            severity,
            line: None,
            column: None,
            json_path,
            message,
        })
    };
    use Severity::{Error as E, Warning as W};
    if json.max_turns == Some(0) {
        rule(E, "max_turns".into(), "must be at least 1".into());
    }
    for placeholder in mission::problems(&json.mission, &json.data.0) {
        rule(E, "mission".into(), placeholder);
    }
    for (i, tool) in json.tools.iter().enumerate() {
        if !valid_name(&tool.name) {
            rule(
                E,
                format!("tools[{i}].name"),
                format!("{:?} is not a valid name", tool.name),
            );
        }
    }
    for (name, _) in &json.data.0 {
        if !valid_name(name) {
            rule(
                E,
                format!("data.{}", name.escape_debug()),
                format!("{name:?} is not a valid name"),
            );
        }
    }
    let max_turns = json.max_turns.unwrap_or(defaults.max_turns).max(1);
    if json.turns.len() > max_turns as usize {
        let source = if json.max_turns.is_some() {
            "max_turns"
        } else {
            "max_turns (not in the recording; the configured default)"
        };
        rule(
            E,
            "turns".into(),
            format!(
                "{} turns recorded but {source} is {max_turns}",
                json.turns.len()
            ),
        );
    }
    for (i, turn) in json.turns.iter().enumerate() {
        if turn.number as usize != i + 1 {
            rule(
                E,
                format!("turns[{i}].number"),
                format!(
                    "turn numbers must be consecutive from 1: expected {}, found {}",
                    i + 1,
                    turn.number
                ),
            );
        }
        if let Some(at) = turn.started_at {
            let before = json.turns[..i].iter().rev().find_map(|t| t.started_at);
            if !at.is_finite() || at < 0.0 {
                rule(
                    E,
                    format!("turns[{i}].started_at"),
                    format!("must be a number of seconds, not {at}"),
                );
            } else if let Some(before) = before.filter(|&b| at < b) {
                rule(
                    E,
                    format!("turns[{i}].started_at"),
                    format!("{at} is before the {before} of an earlier turn"),
                );
            }
        }
        if !turn.success && turn.error.is_none() {
            rule(
                E,
                format!("turns[{i}]"),
                "a failed turn (\"success\": false) needs an \"error\": {\"reason\": ..., \"message\": ...}".into(),
            );
        }
        for (name, _) in &turn.memory.0 {
            if !valid_name(name) {
                rule(
                    E,
                    format!("turns[{i}].memory.{}", name.escape_debug()),
                    format!("{name:?} is not a valid name"),
                );
            }
        }
        for (j, call) in turn.tool_calls.iter().enumerate() {
            if !valid_name(&call.name) {
                rule(
                    E,
                    format!("turns[{i}].tool_calls[{j}].name"),
                    format!("{:?} is not a valid name", call.name),
                );
            } else if !json.tools.iter().any(|t| t.name == call.name) {
                rule(
                    W,
                    format!("turns[{i}].tool_calls[{j}].name"),
                    format!(
                        "calls `{}`, which the recording's tools do not declare",
                        call.name
                    ),
                );
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_cannot_break_a_line() {
        for name in ["orders", "_secret", "valid?", "a->b", "&", "ns/name", "*x*"] {
            assert!(valid_name(name), "{name:?}");
        }
        for name in [
            "",
            "a b",
            "a\nb",
            "a\r",
            "\n;; === tool/ ===",
            "a\tb",
            "a\u{0B}b",
            "a\u{85}b",
            "a\u{2028}b",
            "a\u{2029}b",
            "a\u{1b}b",
            "a\u{0}b",
            "1st",
            ":k",
            "a,b",
            "(x)",
        ] {
            assert!(!valid_name(name), "{name:?}");
        }
    }
}
