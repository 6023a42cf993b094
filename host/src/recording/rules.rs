//! The rules a recording must follow beyond its JSON shape, and the problems `ptc validate`
//! reports: every rule broken, in document order, each an error (the recording cannot be
//! used) or a warning.

use std::path::Path;

use rustc_hash::FxHashSet;
use serde::de::IgnoredAny;
use serde::Deserialize;

use crate::recording::format::{parse_json, read_quickly, RecordingJson};
use crate::recording::names::valid_name;
use crate::recording::place::{strip_place, Lines};
use crate::recording::{mission, shape, Recording, RecordingDefaults, RecordingError};

impl Recording {
    /// Every problem of a recording (`ptc validate`), each placed by line and column: a syntax
    /// error alone (nothing can be placed in a text that is not JSON), else every problem of
    /// shape (types, unknown and missing fields, values) and every rule broken, warnings
    /// included, in document order. Rules are checked on the recording with its problems of
    /// shape taken out; a rule broken only where such a problem is is not repeated.
    pub fn check(
        bytes: &[u8],
        path: &Path,
        first_line: usize,
        defaults: &RecordingDefaults,
    ) -> Vec<Problem> {
        let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        // A recording the reader takes has no problem of shape (the schema is the reader's
        // types'; `validate_finds_every_error_the_reader_stops_at` holds them to it): when it
        // breaks no rule either, nothing is to be placed, and the walk (which reads the text
        // three times over) is spared. Most recordings of a corpus are such.
        if let Some(json) = read_quickly(bytes) {
            let broken = problems(&json, defaults);
            if broken.is_empty() {
                return broken;
            }
        }
        Recording::check_walked(bytes, path, first_line, defaults)
    }

    /// [`Recording::check`] by the walk, whatever the recording: the text (its byte order mark
    /// already taken off) read as JSON, walked against the schema, then its rules.
    pub(super) fn check_walked(
        bytes: &[u8],
        path: &Path,
        first_line: usize,
        defaults: &RecordingDefaults,
    ) -> Vec<Problem> {
        if let Some(problem) = not_json(bytes, first_line) {
            return vec![problem];
        }
        let shape = shape::check(bytes);
        let lines = Lines::new(bytes);
        let mut found: Vec<(usize, Problem)> = Vec::new();
        let mut add = |at: usize, severity, json_path: String, message: String| {
            let (line, column) = lines.line_col(at);
            found.push((
                at,
                Problem {
                    severity,
                    line: Some(line + first_line - 1),
                    column: Some(column),
                    json_path,
                    message,
                },
            ));
        };
        for p in &shape.problems {
            add(
                p.at,
                Severity::Error,
                p.json_path.clone(),
                p.message.clone(),
            );
        }
        match parse_json(shape.repaired.as_bytes(), path, 1) {
            Ok(json) => {
                for p in problems(&json, defaults) {
                    if !shape.covers(&p.json_path) {
                        add(
                            shape.place_of(&p.json_path),
                            p.severity,
                            p.json_path,
                            p.message,
                        );
                    }
                }
            }
            // What the walk let through and the reader refuses: reported all the same.
            Err(RecordingError::Syntax {
                json_path, message, ..
            }) => add(
                shape.place_of(&json_path),
                Severity::Error,
                json_path,
                message,
            ),
            Err(other) => add(0, Severity::Error, ".".into(), other.to_string()),
        }
        found.sort_by_key(|(at, _)| *at);
        found.into_iter().map(|(_, p)| p).collect()
    }
}

impl Recording {
    /// The first error [`Recording::check`] finds, as the error of reading the recording: the
    /// same place, path and words as `ptc validate` gives (none when the check finds none).
    pub(super) fn first_error(
        bytes: &[u8],
        path: &Path,
        first_line: usize,
        defaults: &RecordingDefaults,
    ) -> Option<RecordingError> {
        // Text that is not JSON: the reader's error names the JSON path too.
        let text = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        if not_json(text, first_line).is_some() {
            return None;
        }
        let problem = Recording::check(bytes, path, first_line, defaults)
            .into_iter()
            .find(|p| p.severity == Severity::Error)?;
        Some(RecordingError::Syntax {
            path: path.to_owned(),
            line: problem.line?,
            column: problem.column?,
            json_path: problem.json_path,
            message: problem.message,
        })
    }
}

/// The error of a text that is not JSON, placed (nothing else can be placed in it).
fn not_json(bytes: &[u8], first_line: usize) -> Option<Problem> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    de.disable_recursion_limit();
    let err = IgnoredAny::deserialize(&mut de)
        .and_then(|_| de.end())
        .err()?;
    Some(Problem {
        severity: Severity::Error,
        line: Some(err.line() + first_line - 1),
        column: Some(err.column()),
        json_path: ".".into(),
        message: strip_place(&err),
    })
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
    /// Line and column in the file (none when the file cannot be read).
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub json_path: String,
    pub message: String,
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
    if !json.literal_mission {
        for placeholder in mission::problems(&json.mission, &json.data.0) {
            rule(E, "mission".into(), placeholder);
        }
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
    // Looked up once per tool call: a set, so that checking a recording takes time linear in
    // its calls and tools, not their product.
    let declared: FxHashSet<&str> = json.tools.iter().map(|t| t.name.as_str()).collect();
    // The latest `started_at` of the turns before, kept as the turns are read.
    let mut latest: Option<f64> = None;
    // The run's billed tokens so far: a sum that would wrap is a bill that cannot be.
    let mut billed = Some(0u64);
    for (i, turn) in json.turns.iter().enumerate() {
        for (field, why) in turn.usage.iter().flat_map(|u| u.problems()) {
            rule(E, format!("turns[{i}].usage.{field}"), why);
        }
        if let (Some(so_far), Some(tokens)) = (billed, turn.usage.as_ref().and_then(|u| u.tokens()))
        {
            billed = so_far.checked_add(tokens);
            if billed.is_none() {
                rule(
                    E,
                    format!("turns[{i}].usage"),
                    "with the turns before it, the billed tokens add up to more than 18446744073709551615, which no bill can".into(),
                );
            }
        }
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
            let before = latest.replace(at);
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
        if let Some(request) = turn.request.as_ref().filter(|r| r.repeats > 0) {
            // The previous turn's request, as many messages as it sent.
            let previous = i
                .checked_sub(1)
                .and_then(|p| json.turns[p].request.as_ref())
                .map(|p| p.repeats + p.messages.len());
            match previous {
                None => rule(
                    E,
                    format!("turns[{i}].request.repeats"),
                    format!(
                        "{} message(s) of the previous turn's request, but {}",
                        request.repeats,
                        if i == 0 {
                            "this is the first turn"
                        } else {
                            "the previous turn has no request"
                        }
                    ),
                ),
                Some(sent) if sent < request.repeats => rule(
                    E,
                    format!("turns[{i}].request.repeats"),
                    format!(
                        "{} message(s) of the previous turn's request, which sent {sent}",
                        request.repeats
                    ),
                ),
                Some(_) => {}
            }
        }
        if !turn.success && turn.error.is_none() {
            rule(
                E,
                format!("turns[{i}]"),
                "a failed turn (\"success\": false) needs an \"error\": {\"reason\": ..., \"message\": ...}".into(),
            );
        }
        // A cut value is no value: the turn's result stays unknown, and it says so.
        if turn.partial_result.is_some()
            && (!turn.lacks.contains(&super::format::Lack::Results)
                || turn.result.0 != ptc_plugin_api::Value::Nil)
        {
            rule(
                E,
                format!("turns[{i}].partial_result"),
                "a turn with a cut value has no \"result\" and lists \"results\" in its \"lacks\""
                    .into(),
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
            } else if !declared.contains(call.name.as_str()) {
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
