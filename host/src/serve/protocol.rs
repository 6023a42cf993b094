//! The protocol of `ptc serve`, in one place: what a request may hold and what a response
//! holds. One JSON object per line each way.
//!
//! A request is [`ServeRequest`]: `recording` is required; `id` (any JSON, echoed back), `turns`,
//! `strategy`, `options`, `format` and the request-body options `model`, `max_tokens`,
//! `cache_placement` and `cache_ttl` are optional (`null` is the same as leaving one out). A
//! field that is not one of these is refused, so that a misspelt one is never silently ignored.
//!
//! A response is [`Response`]: the prompt (`format` `json`, the default), a request body
//! (`anthropic`, `openai`), or an error with one of the [`Code`]s.

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value as Json};

use crate::recording::value_json::MAX_DEPTH;
use crate::render::request::{RenderFormat, RequestArgs, RequestOptions};
use crate::render::{PromptView, StatsView};

/// A request as it is written, every field but `recording` optional. Values are checked by
/// [`ServeRequest::checked`], which gives each wrong one its own message.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServeRequest<'a> {
    /// Echoed in the response.
    #[serde(default)]
    pub id: Id,
    /// The run so far, in the recording format: left unparsed here, so that the recording
    /// parser sees the keys of its maps in the order the request wrote them.
    #[serde(borrow)]
    pub recording: Option<&'a RawValue>,
    /// How many recorded turns to render from (default: all).
    #[serde(default)]
    pub turns: Json,
    /// The strategy (default: the configured one).
    #[serde(default)]
    pub strategy: Json,
    /// The strategy's options, by name.
    #[serde(default)]
    pub options: Json,
    /// `json` (default), `anthropic` or `openai`.
    #[serde(default)]
    pub format: Json,
    #[serde(default)]
    pub model: Json,
    #[serde(default)]
    pub max_tokens: Json,
    #[serde(default)]
    pub cache_placement: Json,
    #[serde(default)]
    pub cache_ttl: Json,
}

/// A request whose fields all have the right types.
#[derive(Debug)]
pub struct Checked<'a> {
    pub recording: &'a RawValue,
    pub turns: Option<usize>,
    pub strategy: Option<String>,
    pub options: Map<String, Json>,
    pub format: RenderFormat,
    pub request: RequestOptions,
}

/// Why a request was refused, and the response's `error.code`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Code {
    /// Not JSON, not an object, a field unknown or of the wrong type, a turn out of range, an
    /// option the strategy does not have.
    BadRequest,
    /// The line is longer than `--max-request-bytes`.
    TooLarge,
    /// The recording does not parse or breaks its rules.
    BadRecording,
    /// The strategy is not loaded.
    UnknownStrategy,
    /// The strategy or its templates failed.
    RenderFailed,
}

/// One response line. Written through a JSON value, so that every object's keys are in
/// alphabetical order (`{"id", "messages", "stats", "strategy", "turns"}`).
#[derive(Serialize)]
#[serde(untagged)]
pub enum Response<'a> {
    /// The prompt, for `format: json`: `{"id", "strategy", "turns", "messages": [{"role",
    /// "content"}], "stats"}`, as `ptc render --format json` prints it.
    Prompt {
        id: Id,
        #[serde(flatten)]
        prompt: PromptView<'a>,
    },
    /// A request body, for `format: anthropic` or `openai`: `{"id", "strategy", "turns",
    /// "request", "stats"}`.
    Body {
        id: Id,
        strategy: &'a str,
        turns: usize,
        request: Json,
        stats: StatsView,
    },
    /// `{"id", "error": {"code", "message"}}`.
    Error { id: Id, error: ErrorBody },
}

/// What went wrong.
#[derive(Serialize)]
pub struct ErrorBody {
    pub code: Code,
    pub message: String,
}

impl Response<'_> {
    /// The response as one line of JSON, with its newline; a numeric `id` as the request
    /// wrote it.
    pub fn line(&self) -> String {
        let value = serde_json::to_value(self).expect("a response serializes");
        let Json::Object(fields) = value else {
            unreachable!("a response is an object")
        };
        let id = match self {
            Response::Prompt { id, .. }
            | Response::Body { id, .. }
            | Response::Error { id, .. } => id,
        };
        let mut text = String::from("{");
        for (i, (key, value)) in fields.iter().enumerate() {
            if i > 0 {
                text.push(',');
            }
            text.push_str(&Json::from(key.as_str()).to_string());
            text.push(':');
            match (key.as_str(), &id.number) {
                ("id", Some(number)) => text.push_str(number),
                _ => text.push_str(&value.to_string()),
            }
        }
        text.push_str("}\n");
        text
    }

    pub fn error(id: Id, code: Code, message: impl std::fmt::Display) -> Response<'static> {
        Response::Error {
            id,
            error: ErrorBody {
                code,
                message: message.to_string(),
            },
        }
    }
}

/// The deepest a request may nest: a recorded value's [`MAX_DEPTH`] levels below the fields
/// of a recording (at most 8 levels: `turns[i].tool_calls[j].args`) below the request.
pub const MAX_REQUEST_DEPTH: usize = MAX_DEPTH + 9;

/// How deep the arrays and objects of `line` nest (strings skipped), counted without reading
/// it: a line that is not JSON counts what it holds so far.
fn nesting(line: &str) -> usize {
    let (mut depth, mut deepest, mut in_string, mut escaped) = (0usize, 0usize, false, false);
    for &b in line.as_bytes() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// Reads `line` as any JSON without keeping it, however deep it nests (skipped without
/// recursion).
fn without_depth_limit(line: &str) -> Result<(), serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(line);
    de.disable_recursion_limit();
    <&RawValue>::deserialize(&mut de)?;
    de.end()
}

/// Only the `id` of a request, read when the request as a whole is refused, so that the
/// error still names the request it answers.
#[derive(Deserialize)]
struct IdOnly {
    #[serde(default)]
    id: Id,
}

/// A request's `id`, echoed in its response: its JSON value, and a number also as the request
/// wrote it, so that one beyond 64 bits (or with more digits than a float holds) comes back
/// unchanged.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Id {
    pub value: Json,
    /// The number's text, when the id is a number.
    number: Option<String>,
}

impl<'de> Deserialize<'de> for Id {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Id, D::Error> {
        let raw = Box::<RawValue>::deserialize(deserializer)?;
        let mut de = serde_json::Deserializer::from_str(raw.get());
        de.disable_recursion_limit();
        let value = Json::deserialize(&mut de).map_err(serde::de::Error::custom)?;
        let number = value.is_number().then(|| raw.get().trim().to_owned());
        Ok(Id { value, number })
    }
}

impl Serialize for Id {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.value.serialize(serializer)
    }
}

impl<'a> ServeRequest<'a> {
    /// Reads a request line; on failure, the request's `id` when it could be found, and why.
    pub fn parse(line: &'a str) -> Result<ServeRequest<'a>, (Id, String)> {
        // A struct also reads from a JSON array: only an object is a request.
        if !line.trim_start().starts_with('{') {
            return Err(match without_depth_limit(line) {
                Ok(_) => (Id::default(), "a request is a JSON object".to_owned()),
                Err(e) => (Id::default(), format!("not JSON: {e}")),
            });
        }
        // serde_json's own limit (128 levels in all) would refuse a recording that a file may
        // hold (values nest 128 levels below the recording's own): the request is read without
        // it, once it is known to nest no deeper than a recording may.
        if nesting(line) > MAX_REQUEST_DEPTH {
            return Err((
                Id::default(),
                format!(
                    "bad request: nested deeper than {MAX_REQUEST_DEPTH} levels (a recorded value \
                     nests at most {MAX_DEPTH})"
                ),
            ));
        }
        let read = |line: &'a str| {
            let mut de = serde_json::Deserializer::from_str(line);
            de.disable_recursion_limit();
            let request = ServeRequest::deserialize(&mut de)?;
            de.end().map(|()| request)
        };
        read(line).map_err(|e| {
            use serde_json::error::Category;
            match e.classify() {
                Category::Syntax | Category::Eof | Category::Io => {
                    (Id::default(), format!("not JSON: {e}"))
                }
                Category::Data => {
                    let mut de = serde_json::Deserializer::from_str(line);
                    de.disable_recursion_limit();
                    let id = IdOnly::deserialize(&mut de).map_or(Id::default(), |r| r.id);
                    (id, format!("bad request: {e}"))
                }
            }
        })
    }

    /// The request with each field checked, or the message saying which is wrong.
    pub fn checked(&self) -> Result<Checked<'a>, String> {
        let recording = self
            .recording
            .filter(|r| r.get() != "null")
            .ok_or("missing \"recording\"")?;
        let strategy = match &self.strategy {
            Json::Null => None,
            Json::String(name) if name.len() > MAX_NAME_BYTES => {
                return Err(format!("\"strategy\": no strategy is named {}", cut(name)))
            }
            Json::String(name) => Some(name.clone()),
            other => {
                return Err(format!(
                    "\"strategy\" must be a strategy name (a string), not {other}"
                ))
            }
        };
        let options = match &self.options {
            Json::Null => Map::new(),
            Json::Object(options) => options.clone(),
            other => return Err(format!("\"options\" must be an object, not {other}")),
        };
        for (name, value) in &options {
            if name.len() > MAX_NAME_BYTES {
                return Err(format!("\"options\": no option is named {}", cut(name)));
            }
            if option_value(value).is_none() {
                return Err(format!(
                    "\"options\": option `{}` must be a string, a number or true or false, not {}",
                    name.escape_debug(),
                    kind(value)
                ));
            }
        }
        let turns = match &self.turns {
            Json::Null => None,
            k => match k.as_u64() {
                Some(k) => Some(usize::try_from(k).unwrap_or(usize::MAX)),
                None => return Err("\"turns\" must be a non-negative integer".to_owned()),
            },
        };
        let (format, request) = self.request_format()?;
        Ok(Checked {
            recording,
            turns,
            strategy,
            options,
            format,
            request,
        })
    }

    /// The `format` and the options of a request body, or why they are wrong.
    fn request_format<'s>(&'s self) -> Result<(RenderFormat, RequestOptions), String> {
        let text = |name: &str, value: &'s Json, what: &str| match value {
            Json::Null => Ok(None),
            Json::String(s) => Ok(Some(s.as_str())),
            other => Err(format!("\"{name}\" must be {what}, not {other}")),
        };
        let format = match text(
            "format",
            &self.format,
            "\"json\", \"anthropic\" or \"openai\"",
        )? {
            None | Some("json") => RenderFormat::Json,
            Some("anthropic") => RenderFormat::Anthropic,
            Some("openai") => RenderFormat::OpenAi,
            Some(other) => {
                return Err(format!(
                    "\"format\" must be \"json\", \"anthropic\" or \"openai\", not \"{other}\""
                ))
            }
        };
        let max_tokens = match &self.max_tokens {
            Json::Null => None,
            n => match n.as_u64().and_then(|n| u32::try_from(n).ok()) {
                Some(n) if n > 0 => Some(n),
                _ => {
                    return Err(format!(
                        "\"max_tokens\" must be a positive integer (at most {}), not {n}",
                        u32::MAX
                    ))
                }
            },
        };
        let args = RequestArgs {
            model: text("model", &self.model, "a model name (a string)")?.map(str::to_owned),
            max_tokens,
            placement: text(
                "cache_placement",
                &self.cache_placement,
                "\"strategy\", \"auto\" or \"none\"",
            )?
            .map(str::parse)
            .transpose()
            .map_err(|e| format!("\"cache_placement\": {e}"))?,
            ttl: text("cache_ttl", &self.cache_ttl, "\"5m\" or \"1h\"")?
                .map(str::parse)
                .transpose()
                .map_err(|e| format!("\"cache_ttl\": {e}"))?,
        };
        let options = args.for_format(format, |name| format!("\"{name}\""))?;
        Ok((format, options))
    }
}

/// The longest strategy or option name a request may give, in bytes; a longer one is refused
/// without being echoed whole.
pub const MAX_NAME_BYTES: usize = 256;

/// A name too long to echo: its first characters, then its length.
fn cut(name: &str) -> String {
    let start: String = name.chars().take(40).collect();
    format!(
        "`{}…` ({} bytes, more than the {MAX_NAME_BYTES} a name may have)",
        start.escape_debug(),
        name.len()
    )
}

/// An option's value as the configuration holds it, taken as it is (a string is never parsed
/// again): a string, an integer (of 64 bits), a float or a boolean; anything else is no option
/// value.
pub fn option_value(value: &Json) -> Option<toml::Value> {
    match value {
        Json::String(s) => Some(toml::Value::String(s.clone())),
        Json::Bool(b) => Some(toml::Value::Boolean(*b)),
        Json::Number(n) => match n.as_i64() {
            Some(i) => Some(toml::Value::Integer(i)),
            None if n.is_u64() => None,
            None => n.as_f64().map(toml::Value::Float),
        },
        Json::Null | Json::Array(_) | Json::Object(_) => None,
    }
}

/// What kind of JSON value `value` is, in an error message (not the value: it may be large).
fn kind(value: &Json) -> &'static str {
    match value {
        Json::Null => "null",
        Json::Bool(_) => "a boolean",
        Json::Number(_) => "an integer beyond 64 bits",
        Json::String(_) => "a string",
        Json::Array(_) => "an array",
        Json::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_misspelt_field_is_refused_with_the_request_id() {
        let (id, message) =
            ServeRequest::parse(r#"{"id": 7, "recording": {}, "stratgy": "delta-log"}"#)
                .unwrap_err();
        assert_eq!(id.value, Json::from(7));
        assert!(message.contains("unknown field `stratgy`"), "{message}");
        assert!(message.contains("`strategy`"), "{message}");
    }

    #[test]
    fn not_an_object_and_not_json_are_told_apart() {
        assert_eq!(
            ServeRequest::parse("[1]").unwrap_err().1,
            "a request is a JSON object"
        );
        assert!(ServeRequest::parse("{")
            .unwrap_err()
            .1
            .starts_with("not JSON"));
    }

    #[test]
    fn null_is_the_same_as_leaving_a_field_out() {
        let request = ServeRequest::parse(
            r#"{"recording": {"a": 1}, "turns": null, "strategy": null, "format": null}"#,
        )
        .unwrap();
        let checked = request.checked().unwrap();
        assert_eq!(checked.recording.get(), r#"{"a": 1}"#);
        assert_eq!(checked.turns, None);
        assert_eq!(checked.strategy, None);
        assert_eq!(checked.format, RenderFormat::Json);
        let missing = ServeRequest::parse(r#"{"recording": null}"#).unwrap();
        assert_eq!(missing.checked().unwrap_err(), "missing \"recording\"");
    }
}
