//! Recordings: a recorded agent run (mission, tools, data, limits and its turns) read from a
//! JSON file, checked, and turned into what strategies render from.
//!
//! Errors name the file, the line and column, and the JSON path of the problem.

use std::path::{Path, PathBuf};

use ptc_plugin_api::abi_stable::std_types::{ROption, RString, RVec, Tuple2};
use ptc_plugin_api::{Run, Tool, ToolCall, Turn, TurnError};
use serde::Deserialize;

use crate::mission;
use crate::value_json::{NamedValues, TopValue};

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

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RecordingJson {
    mission: String,
    system_prompt: Option<String>,
    max_turns: Option<u32>,
    signature: Option<String>,
    #[serde(default)]
    tools: Vec<ToolJson>,
    #[serde(default)]
    data: NamedValues,
    #[serde(default)]
    turns: Vec<TurnJson>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ToolJson {
    name: String,
    signature: Option<String>,
    description: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TurnJson {
    number: u32,
    #[serde(default)]
    raw_response: String,
    program: Option<String>,
    success: bool,
    #[serde(default)]
    result: TopValue,
    error: Option<ErrorJson>,
    #[serde(default)]
    prints: Vec<String>,
    #[serde(default)]
    tool_calls: Vec<ToolCallJson>,
    #[serde(default)]
    memory: NamedValues,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ErrorJson {
    reason: String,
    message: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ToolCallJson {
    name: String,
    #[serde(default)]
    args: TopValue,
    #[serde(default)]
    result: TopValue,
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
        let json = parse_json(bytes, path)?;
        let rule = |json_path: &str, message: String| RecordingError::Rule {
            path: path.to_owned(),
            json_path: json_path.to_owned(),
            message,
        };
        let max_turns = match json.max_turns {
            Some(0) => return Err(rule("max_turns", "must be at least 1".into())),
            Some(n) => n,
            None => defaults.max_turns,
        };
        if json.turns.len() > max_turns as usize {
            let source = if json.max_turns.is_some() {
                "max_turns"
            } else {
                "max_turns (not in the recording; the configured default)"
            };
            return Err(rule(
                "turns",
                format!(
                    "{} turns recorded but {source} is {max_turns}",
                    json.turns.len()
                ),
            ));
        }
        for (i, turn) in json.turns.iter().enumerate() {
            if turn.number as usize != i + 1 {
                return Err(rule(
                    &format!("turns[{i}].number"),
                    format!(
                        "turn numbers must be consecutive from 1: expected {}, found {}",
                        i + 1,
                        turn.number
                    ),
                ));
            }
            if !turn.success && turn.error.is_none() {
                return Err(rule(
                    &format!("turns[{i}]"),
                    "a failed turn (\"success\": false) needs an \"error\": {\"reason\": ..., \"message\": ...}".into(),
                ));
            }
        }
        let mission = mission::expand(&json.mission, &json.data.0)
            .map_err(|message| rule("mission", message))?;
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
            path: path.to_owned(),
            run,
            turns,
        })
    }
}

fn parse_json(bytes: &[u8], path: &Path) -> Result<RecordingJson, RecordingError> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    // Values bound their own depth (value_json::MAX_DEPTH); every other level is fixed.
    de.disable_recursion_limit();
    let syntax = |json_path: String, err: serde_json::Error| {
        let full = err.to_string();
        let suffix = format!(" at line {} column {}", err.line(), err.column());
        RecordingError::Syntax {
            path: path.to_owned(),
            line: err.line(),
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
