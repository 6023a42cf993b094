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
    /// What every table, row and report calls the run: the log it was imported from and,
    /// when the log holds several, which of them (`session.jsonl (side chain from line 16)`).
    /// Written by `ptc import`; default: where the recording is (its file, `file:line`).
    pub name: Option<String>,
    /// The task. `{{name}}` placeholders are replaced by `data/name`, unless `literal_mission`.
    pub mission: String,
    /// The mission is text as the agent was given it, with no placeholders: `{{` and `}}` are
    /// kept as written. Importers set it: a log's mission is already filled in, and may hold
    /// braces of its own (a template language's, in an issue's text).
    #[serde(default)]
    pub literal_mission: bool,
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
    /// What the run's source did not record (an imported trace): the strategies that need it
    /// cannot be judged on this recording. Nothing is invented in its place.
    #[serde(default)]
    pub lacks: Vec<Lack>,
}

/// A kind of data a recording's source did not record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Deserialize, serde::Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Lack {
    /// The values of the `user/` namespace after each turn (`memory`).
    MemoryValues,
    /// What each program printed.
    Prints,
    /// The value each program returned.
    Results,
    /// The results of the tool calls.
    ToolResults,
    /// The requests sent to the model (`request`).
    Requests,
    /// What the provider billed for each call (`usage`).
    Usage,
    /// When each request was sent (`started_at`).
    Timestamps,
    /// The system prompt the agent sent.
    SystemPrompt,
    /// The run's turn budget: `max_turns` is the number of turns taken.
    MaxTurns,
    /// Whether each turn failed: every turn is recorded as not failed.
    Errors,
    /// Whether the reasoning the model gave was sent back with the requests after it: the log
    /// cannot tell, and the requests leave it out.
    SentReasoning,
    /// The size of what a rebuilt run's requests sent before the conversation (the system
    /// prompt and tool schemas its log does not hold), which its first call's bill could not
    /// give: set when the recording is read, never read from a file.
    #[serde(skip_deserializing)]
    #[schemars(skip)]
    PromptPrefix,
}

impl Lack {
    pub fn as_str(self) -> &'static str {
        match self {
            Lack::MemoryValues => "memory_values",
            Lack::Prints => "prints",
            Lack::Results => "results",
            Lack::ToolResults => "tool_results",
            Lack::Requests => "requests",
            Lack::Usage => "usage",
            Lack::Timestamps => "timestamps",
            Lack::SystemPrompt => "system_prompt",
            Lack::MaxTurns => "max_turns",
            Lack::Errors => "errors",
            Lack::SentReasoning => "sent_reasoning",
            Lack::PromptPrefix => "prompt_prefix",
        }
    }
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
    /// The request the agent sent to the model for this turn, as sent (an imported trace).
    pub request: Option<RequestJson>,
    /// What the provider reported for that request.
    pub usage: Option<UsageJson>,
    /// What the log did not keep of this turn alone (`results`, `prints`): the fields stand
    /// empty, and are not what the turn had. The run lacks it too for what renders the turns
    /// but the last (which no later prompt shows).
    #[serde(default)]
    pub lacks: Vec<Lack>,
    /// The start of the program's value as the log holds it, cut (the agent's observation
    /// limit): `result` is then unknown (nil), and the turn lacks `results`.
    pub partial_result: Option<String>,
}

/// A request to a model as the agent sent it: the text of each part, in order.
#[derive(Clone, Debug, PartialEq, Deserialize, serde::Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Request")]
pub struct RequestJson {
    /// The model asked for, as the agent named it.
    pub model: Option<String>,
    /// The system prompt, when it was sent apart from the messages.
    pub system: Option<String>,
    /// How many messages of the previous turn's request this one sends again first, unchanged
    /// (an agent appending to its conversation): `messages` are those after them. Written by
    /// `ptc import`, so that a run's requests take the size of its conversation, not its
    /// square. Default 0: `messages` are all of them.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub repeats: usize,
    /// The messages, in order (after the `repeats` first ones).
    pub messages: Vec<RequestMessageJson>,
    /// The tool definitions, as the JSON text sent.
    pub tools: Option<String>,
    /// Rebuilt from the conversation the log holds, not recorded as sent.
    #[serde(default, skip_serializing_if = "is_false")]
    pub rebuilt: bool,
    /// The size, in tokens, of what the agent sent before the messages and the log does not
    /// hold — its system prompt and tool schemas — inferred from the bill.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inferred_prefix_tokens: Option<u64>,
}

/// One message of a request.
#[derive(Clone, Debug, PartialEq, Deserialize, serde::Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "RequestMessage")]
pub struct RequestMessageJson {
    /// `system`, `user`, `assistant` or `tool`, as sent.
    pub role: String,
    /// The text of the message.
    #[serde(default)]
    pub content: String,
    /// The reasoning of an assistant message, where the agent sent it back with the message
    /// (DeepSeek's `reasoning_content`): part of what was sent, before the text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
    /// The tool calls of an assistant message, as sent.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<RequestToolCallJson>,
    /// The call a `tool` message answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
}

/// A tool call in an assistant message of a request.
#[derive(Clone, Debug, PartialEq, Deserialize, serde::Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "RequestToolCall")]
pub struct RequestToolCallJson {
    pub id: Option<String>,
    pub name: String,
    /// The arguments, as the JSON text sent.
    pub arguments: String,
}

/// The most one request can cost, in US dollars: far above any provider's price for the
/// largest context, and low enough that no sum of costs over a corpus can overflow. A cost
/// above it is refused as one that cannot be.
pub const MAX_COST_USD: f64 = 1e6;

/// What the provider reported for one request, in one convention whatever the source's:
/// every input token is counted once, in exactly one of `input`, `cache_read`,
/// `cache_write_5m` and `cache_write_1h`.
#[derive(Clone, Debug, PartialEq, Deserialize, serde::Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Usage")]
pub struct UsageJson {
    /// Input tokens neither read from nor written to the cache.
    pub input: u64,
    /// Input tokens read from the cache.
    #[serde(default)]
    pub cache_read: u64,
    /// Input tokens written to the cache for 5 minutes.
    #[serde(default)]
    pub cache_write_5m: u64,
    /// Input tokens written to the cache for 1 hour.
    #[serde(default)]
    pub cache_write_1h: u64,
    #[serde(default)]
    pub output: u64,
    /// The cost in US dollars, only where the source states one (never computed).
    pub cost_usd: Option<f64>,
    /// Who served and billed the request (`openrouter`, `deepseek`, `anthropic`).
    pub provider: Option<String>,
    /// The model that answered, as the source names it.
    pub model: Option<String>,
}

impl UsageJson {
    /// Every token it counts (input, cache reads and writes, output); none when they add up to
    /// more than 64 bits hold, which no bill can.
    pub fn tokens(&self) -> Option<u64> {
        [
            self.cache_read,
            self.cache_write_5m,
            self.cache_write_1h,
            self.output,
        ]
        .into_iter()
        .try_fold(self.input, u64::checked_add)
    }

    /// What makes it a bill that cannot be, each as (field, why): a cost that is negative or
    /// above [`MAX_COST_USD`] (an integer beyond 64 bits reads as a number above it), counts
    /// that overflow when added.
    pub(super) fn problems(&self) -> Vec<(&'static str, String)> {
        let mut found = Vec::new();
        if let Some(cost) = self.cost_usd {
            if !(0.0..=MAX_COST_USD).contains(&cost) {
                found.push((
                    "cost_usd",
                    format!("{cost} is not a cost of one request: it must be from 0 to {MAX_COST_USD:e} dollars"),
                ));
            }
        }
        if self.tokens().is_none() {
            found.push((
                "input",
                "the counts add up to more than 18446744073709551615 tokens, which no bill can"
                    .to_owned(),
            ));
        }
        found
    }
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

/// The top-level keys of a recording, as [`RecordingJson`] reads them (a test checks them
/// against its schema).
pub(super) const RECORDING_KEYS: &[&str] = &[
    "name",
    "mission",
    "literal_mission",
    "system_prompt",
    "max_turns",
    "signature",
    "tools",
    "data",
    "turns",
    "lacks",
];

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
    // again, from its own text, to name the place of its error.
    if let Some(json) = read_quickly(bytes) {
        return Ok(json);
    }
    use crate::recording::value_json::reading;
    reading(bytes, || {
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

/// The JSON of a recording (its byte order mark taken off), read without keeping track of the
/// place and with the memory entries that repeat the turn before replaced
/// (`value_json::reduce`); `None` when it cannot be read so, whatever the cause.
/// An integer literal too large for 64 bits is an error, not the float serde_json makes of it.
pub(super) fn read_quickly(bytes: &[u8]) -> Option<RecordingJson> {
    use crate::recording::value_json::{reading, reduce, reusing, Reduced};
    let (text, replaced) = match reduce(bytes) {
        Some(Reduced { text, replaced }) => (std::borrow::Cow::Owned(text), Some(replaced)),
        None => (std::borrow::Cow::Borrowed(bytes), None),
    };
    // The integer literals too large for 64 bits are looked for in the recording's own text:
    // the copy read has none in the entries it writes `0`.
    reading(bytes, || {
        // Memory entries repeated from the turn before are copied, not read again.
        reusing(replaced, || {
            let mut de = serde_json::Deserializer::from_slice(&text);
            // Values bound their own depth (value_json::MAX_DEPTH); every other level is fixed.
            de.disable_recursion_limit();
            RecordingJson::deserialize(&mut de).and_then(|json| de.end().map(|()| json))
        })
    })
    .ok()
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

fn is_false(b: &bool) -> bool {
    !*b
}
