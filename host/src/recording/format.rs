//! The recording file format: the serde shapes a recording's JSON is read into, the JSON
//! Schema derived from them, and the parse that locates a syntax error by line, column and
//! JSON path.

use std::path::Path;

use schemars::JsonSchema;
use serde::Deserialize;

use crate::recording::value_json::{NamedValues, TopValue};
use crate::recording::RecordingError;

/// A recorded run of a PTC-Lisp agent: its mission, tools, data and turns.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Recording", title = "ptc recording")]
pub(super) struct RecordingJson {
    /// The task. `{{name}}` placeholders are replaced by `data/name`.
    pub mission: String,
    /// The run's system prompt; default: ptc's language reference and output format.
    pub system_prompt: Option<String>,
    /// At least 1; default: `[compression] max_turns` (5). No more turns may be recorded.
    #[schemars(range(min = 1))]
    pub max_turns: Option<u32>,
    /// The expected output, in PTC-Lisp signature syntax.
    pub signature: Option<String>,
    /// The tools the agent may call.
    #[serde(default)]
    pub tools: Vec<ToolJson>,
    /// The `data/` namespace: name -> value.
    #[serde(default)]
    pub data: NamedValues,
    /// The turns, in order.
    #[serde(default)]
    pub turns: Vec<TurnJson>,
}

/// A tool the agent may call.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Tool")]
pub(super) struct ToolJson {
    pub name: String,
    /// `(name :type, ...) -> :return`.
    pub signature: Option<String>,
    pub description: Option<String>,
}

/// One LLM interaction cycle.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Turn")]
pub(super) struct TurnJson {
    /// 1, 2, 3, ... in order.
    #[schemars(range(min = 1))]
    pub number: u32,
    /// The whole LLM response, reasoning included.
    #[serde(default)]
    pub raw_response: String,
    /// The program extracted from the response, or null.
    pub program: Option<String>,
    /// Whether the program ran without error.
    pub success: bool,
    /// The program's value.
    #[serde(default)]
    pub result: TopValue,
    /// Why the turn failed; required when `success` is false.
    pub error: Option<ErrorJson>,
    /// One entry per `println` call.
    #[serde(default)]
    pub prints: Vec<String>,
    /// The tool calls the program made.
    #[serde(default)]
    pub tool_calls: Vec<ToolCallJson>,
    /// The whole `user/` namespace after the turn: name -> value.
    #[serde(default)]
    pub memory: NamedValues,
    /// When the prompt before this turn was sent, in seconds (any epoch, e.g. Unix time).
    /// Optional; `ptc ab` uses it to expire prompt-cache entries older than the TTL.
    #[schemars(range(min = 0))]
    pub started_at: Option<f64>,
}

/// Why a turn failed.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "TurnError")]
pub(super) struct ErrorJson {
    /// A short machine word such as `eval_error`.
    pub reason: String,
    pub message: Option<String>,
}

/// A tool call.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "ToolCall")]
pub(super) struct ToolCallJson {
    pub name: String,
    #[serde(default)]
    pub args: TopValue,
    #[serde(default)]
    pub result: TopValue,
}

/// The JSON Schema of the recording format, derived from the types that read it.
pub fn schema() -> serde_json::Value {
    serde_json::to_value(schemars::schema_for!(RecordingJson)).expect("a schema is JSON")
}

/// Reads the JSON of a recording that starts on line `first_line` of `path`, without checking
/// its rules; a syntax error gives the line in the file.
pub(super) fn parse_json(
    bytes: &[u8],
    path: &Path,
    first_line: usize,
) -> Result<RecordingJson, RecordingError> {
    // A UTF-8 byte order mark, which some editors write, is not JSON: skipped.
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
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
    // Read without keeping track of the place first: only a recording that fails is read
    // again, to name the place of its error.
    // An integer literal too large for 64 bits is an error, not the float serde_json makes of it.
    crate::recording::value_json::reading(bytes, || {
        let fast = RecordingJson::deserialize(&mut de).and_then(|json| de.end().map(|()| json));
        if let Ok(json) = fast {
            return Ok(json);
        }
        let mut de = serde_json::Deserializer::from_slice(bytes);
        de.disable_recursion_limit();
        let json: RecordingJson = serde_path_to_error::deserialize(&mut de).map_err(|err| {
            let json_path = err.path().to_string();
            syntax(json_path, err.into_inner())
        })?;
        de.end().map_err(|err| syntax(".".into(), err))?;
        Ok(json)
    })
}
