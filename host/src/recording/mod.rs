//! Recordings: a recorded agent run (mission, tools, data, limits and its turns) read from a
//! JSON file, checked, and turned into what strategies render from.
//!
//! Errors name the file, the line and column, and the JSON path of the problem.

pub mod corpus;
pub mod import;
pub mod mission;
pub mod value_json;

use std::path::{Path, PathBuf};

use ptc_plugin_api::abi_stable::std_types::{ROption, RString, RVec, Tuple2};
use ptc_plugin_api::{Run, Tool, ToolCall, Turn, TurnError};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::recording::value_json::{NamedValues, TopValue};

/// A recorded run, ready to render.
#[derive(Clone, Debug)]
pub struct Recording {
    pub path: PathBuf,
    pub run: Run,
    pub turns: Vec<Turn>,
}

/// What a recording takes from configuration when it does not say.
#[derive(Clone, Debug)]
pub struct RecordingDefaults {
    /// Used when the recording has no `max_turns` (SS-002).
    pub max_turns: u32,
    /// Used when the recording has no `system_prompt`.
    pub system_prompt: String,
}

/// A recording that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum RecordingError {
    #[error("cannot read recording {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("invalid recording {path}:{line}:{column}: at `{json_path}`: {message}")]
    Syntax {
        path: PathBuf,
        line: usize,
        column: usize,
        json_path: String,
        message: String,
    },
    #[error("invalid recording {path}: at `{json_path}`: {message}")]
    Rule {
        path: PathBuf,
        json_path: String,
        message: String,
    },
}

/// A recorded run of a PTC-Lisp agent: its mission, tools, data and turns.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Recording", title = "ptc recording")]
struct RecordingJson {
    /// The task. `{{name}}` placeholders are replaced by `data/name`.
    mission: String,
    /// The run's system prompt; default: ptc's language reference and output format.
    system_prompt: Option<String>,
    /// At least 1; default: `[compression] max_turns` (5). No more turns may be recorded.
    #[schemars(range(min = 1))]
    max_turns: Option<u32>,
    /// The expected output, in PTC-Lisp signature syntax.
    signature: Option<String>,
    /// The tools the agent may call.
    #[serde(default)]
    tools: Vec<ToolJson>,
    /// The `data/` namespace: name -> value.
    #[serde(default)]
    data: NamedValues,
    /// The turns, in order.
    #[serde(default)]
    turns: Vec<TurnJson>,
}

/// A tool the agent may call.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Tool")]
struct ToolJson {
    name: String,
    /// `(name :type, ...) -> :return`.
    signature: Option<String>,
    description: Option<String>,
}

/// One LLM interaction cycle.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Turn")]
struct TurnJson {
    /// 1, 2, 3, ... in order.
    #[schemars(range(min = 1))]
    number: u32,
    /// The whole LLM response, reasoning included.
    #[serde(default)]
    raw_response: String,
    /// The program extracted from the response, or null.
    program: Option<String>,
    /// Whether the program ran without error.
    success: bool,
    /// The program's value.
    #[serde(default)]
    result: TopValue,
    /// Why the turn failed; required when `success` is false.
    error: Option<ErrorJson>,
    /// One entry per `println` call.
    #[serde(default)]
    prints: Vec<String>,
    /// The tool calls the program made.
    #[serde(default)]
    tool_calls: Vec<ToolCallJson>,
    /// The whole `user/` namespace after the turn: name -> value.
    #[serde(default)]
    memory: NamedValues,
}

/// Why a turn failed.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "TurnError")]
struct ErrorJson {
    /// A short machine word such as `eval_error`.
    reason: String,
    message: Option<String>,
}

/// A tool call.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "ToolCall")]
struct ToolCallJson {
    name: String,
    #[serde(default)]
    args: TopValue,
    #[serde(default)]
    result: TopValue,
}

/// The JSON Schema of the recording format, derived from the types that read it.
pub fn schema() -> serde_json::Value {
    serde_json::to_value(schemars::schema_for!(RecordingJson)).expect("a schema is JSON")
}

impl Recording {
    /// Reads and checks the recording at `path`.
    pub fn load(path: &Path, defaults: &RecordingDefaults) -> Result<Recording, RecordingError> {
        let bytes = std::fs::read(path).map_err(|source| RecordingError::Io {
            path: path.to_owned(),
            source,
        })?;
        Recording::parse(&bytes, path, defaults)
    }

    /// Parses and checks a recording; `path` names it in errors.
    pub fn parse(
        bytes: &[u8],
        path: &Path,
        defaults: &RecordingDefaults,
    ) -> Result<Recording, RecordingError> {
        Recording::parse_at(bytes, path, 1, defaults)
    }

    /// [`Recording::parse`] for JSON that starts on line `first_line` of `path` (a JSONL line):
    /// errors give the line in the file.
    pub fn parse_at(
        bytes: &[u8],
        path: &Path,
        first_line: usize,
        defaults: &RecordingDefaults,
    ) -> Result<Recording, RecordingError> {
        let json = parse_json(bytes, path, first_line)?;
        // A JSONL line is named `file:line`.
        let located = || {
            if first_line > 1 || path.extension().is_some_and(|e| e == "jsonl") {
                PathBuf::from(format!("{}:{first_line}", path.display()))
            } else {
                path.to_owned()
            }
        };
        if let Some(problem) = problems(&json, defaults)
            .into_iter()
            .find(|p| p.severity == Severity::Error)
        {
            return Err(RecordingError::Rule {
                path: located(),
                json_path: problem.json_path,
                message: problem.message,
            });
        }
        let max_turns = json.max_turns.unwrap_or(defaults.max_turns);
        let mission = mission::expand(&json.mission, &json.data.0).map_err(|message| {
            RecordingError::Rule {
                path: located(),
                json_path: "mission".into(),
                message,
            }
        })?;
        let run = Run {
            mission: mission.into(),
            system_prompt: json
                .system_prompt
                .unwrap_or_else(|| defaults.system_prompt.clone())
                .into(),
            tools: json
                .tools
                .into_iter()
                .map(|t| Tool {
                    name: t.name.into(),
                    signature: t.signature.map(RString::from).into(),
                    description: t.description.map(RString::from).into(),
                })
                .collect(),
            data: named(json.data),
            max_turns,
            signature: json.signature.map(RString::from).into(),
        };
        let turns = json.turns.into_iter().map(turn).collect();
        Ok(Recording {
            path: located(),
            run,
            turns,
        })
    }

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

/// A name PTC-Lisp can bind: not empty, no whitespace, brackets, quotes or commas, not starting
/// with a digit or `:`.
fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    match chars.next() {
        None => false,
        Some(first) if first.is_ascii_digit() || first == ':' => false,
        Some(_) => !name
            .chars()
            .any(|c| c.is_whitespace() || "()[]{}\"',;`~@^\\".contains(c)),
    }
}

/// Every rule `json` breaks, in document order.
fn problems(json: &RecordingJson, defaults: &RecordingDefaults) -> Vec<Problem> {
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
    for placeholder in mission::missing(&json.mission, &json.data.0) {
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
                format!("data.{name}"),
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
                    format!("turns[{i}].memory.{name}"),
                    format!("{name:?} is not a valid name"),
                );
            }
        }
        for (j, call) in turn.tool_calls.iter().enumerate() {
            if !json.tools.iter().any(|t| t.name == call.name) {
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

fn parse_json(
    bytes: &[u8],
    path: &Path,
    first_line: usize,
) -> Result<RecordingJson, RecordingError> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    // Values bound their own depth (value_json::MAX_DEPTH); every other level is fixed.
    de.disable_recursion_limit();
    let syntax = |json_path: String, err: serde_json::Error| {
        let full = err.to_string();
        let suffix = format!(" at line {} column {}", err.line(), err.column());
        RecordingError::Syntax {
            path: path.to_owned(),
            line: err.line() + first_line - 1,
            column: err.column(),
            json_path,
            message: full.strip_suffix(&suffix).unwrap_or(&full).to_owned(),
        }
    };
    let json: RecordingJson = serde_path_to_error::deserialize(&mut de).map_err(|err| {
        let json_path = err.path().to_string();
        syntax(json_path, err.into_inner())
    })?;
    de.end().map_err(|err| syntax(".".into(), err))?;
    Ok(json)
}

fn named(values: NamedValues) -> RVec<Tuple2<RString, ptc_plugin_api::Value>> {
    values
        .0
        .into_iter()
        .map(|(name, value)| Tuple2(name.into(), value))
        .collect()
}

fn turn(json: TurnJson) -> Turn {
    Turn {
        number: json.number,
        raw_response: json.raw_response.into(),
        program: json.program.map(RString::from).into(),
        success: json.success,
        result: json.result.0,
        error: match json.error {
            Some(e) => ROption::RSome(TurnError {
                reason: e.reason.into(),
                message: e.message.map(RString::from).into(),
            }),
            None => ROption::RNone,
        },
        prints: json.prints.into_iter().map(RString::from).collect(),
        tool_calls: json
            .tool_calls
            .into_iter()
            .map(|c| ToolCall {
                name: c.name.into(),
                args: c.args.0,
                result: c.result.0,
            })
            .collect(),
        memory: named(json.memory),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn defaults() -> RecordingDefaults {
        RecordingDefaults {
            max_turns: 5,
            system_prompt: "SYSTEM".into(),
        }
    }

    fn parse(json: &str) -> Result<Recording, String> {
        Recording::parse(json.as_bytes(), Path::new("r.json"), &defaults())
            .map_err(|e| e.to_string())
    }

    #[test]
    fn minimal_recording_takes_defaults() {
        let r = parse(r#"{"mission": "Do it"}"#).unwrap();
        assert_eq!(r.run.max_turns, 5);
        assert_eq!(r.run.system_prompt.as_str(), "SYSTEM");
        assert!(r.turns.is_empty());
    }

    #[test]
    fn errors_name_file_place_and_path() {
        assert_eq!(
            parse("{\"mission\": \"x\",\n \"turns\": [{\"number\": 1, \"success\": \"yes\"}]}")
                .unwrap_err(),
            "invalid recording r.json:2:41: at `turns[0].success`: invalid type: string \"yes\", expected a boolean"
        );
        assert_eq!(
            parse(r#"{"turns": []}"#).unwrap_err(),
            "invalid recording r.json:1:13: at `.`: missing field `mission`"
        );
        assert!(parse(r#"{"mission": "x", "extra": 1}"#)
            .unwrap_err()
            .contains("at `extra`: unknown field `extra`"));
        let invalid_utf8 =
            Recording::parse(b"{\"mission\": \"\xff\"}", Path::new("r.json"), &defaults());
        assert!(invalid_utf8
            .unwrap_err()
            .to_string()
            .starts_with("invalid recording r.json:1:"));
    }

    #[test]
    fn rules_are_checked() {
        let failed = r#"{"mission": "x", "turns": [{"number": 1, "success": false}]}"#;
        assert!(parse(failed)
            .unwrap_err()
            .contains("at `turns[0]`: a failed turn"));
        let gap = r#"{"mission": "x", "turns": [{"number": 2, "success": true}]}"#;
        assert!(parse(gap).unwrap_err().contains("expected 1, found 2"));
        let many = r#"{"mission": "x", "max_turns": 1, "turns": [
            {"number": 1, "success": true}, {"number": 2, "success": true}]}"#;
        assert!(parse(many)
            .unwrap_err()
            .contains("2 turns recorded but max_turns is 1"));
    }

    #[test]
    fn mission_placeholders_expand() {
        let r = parse(
            r#"{"mission": "Find {{name}} in {{ ids }}", "data": {"name": "Bob", "ids": [1, 2]}}"#,
        )
        .unwrap();
        assert_eq!(r.run.mission.as_str(), "Find Bob in [1 2]");
        assert!(parse(r#"{"mission": "Find {{who}}"}"#)
            .unwrap_err()
            .contains("placeholder {{who}} has no data/who"));
    }
}
