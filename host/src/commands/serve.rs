//! `ptc serve --stdio`: strategies for agents written in any language, one JSON request per line
//! on stdin, one JSON response per line on stdout.
//!
//! Request: `{"id": any, "recording": RECORDING, "turns": K, "strategy": NAME, "options": {...}}`
//! where RECORDING is the recording format with the turns so far, and `turns` (default: all),
//! `strategy` (default: the configured one) and `options` (the strategy's options) are optional.
//! Response: `{"id", "strategy", "turns", "messages": [{"role", "content"}], "stats": {...}}`.
//! With `"format": "anthropic"` or `"openai"` (default `"json"`: the response above) the
//! response holds a request body in place of the messages, as `ptc render --format` prints it:
//! `{"id", "strategy", "turns", "request": BODY, "stats"}`; `model`, `max_tokens` and, for
//! anthropic, `cache_placement` and `cache_ttl` are the options of `ptc render`. An error is
//! `{"id", "error": {"code", "message"}}` with code `bad_request`, `too_large`, `bad_recording`,
//! `unknown_strategy` or `render_failed`. A bad request gets an error response; the server goes
//! on with the next line, whatever the line holds: invalid UTF-8, a line longer than the limit
//! (read no further than the limit, then skipped to its end), a field of the wrong type.
//!
//! The server keeps the renderers of the [`RENDERER_CACHE`] most recently used (strategy,
//! options) pairs, so memory stays bounded whatever the requests ask for.

use std::io::{BufRead, Write};

use serde_json::{json, Value as Json};

use crate::ab::tokens::{Counter, Tokenizer};
use crate::commands::render::{RenderFormat, RequestArgs};
use crate::config::Config;
use crate::host::Host;
use crate::recording::Recording;
use crate::render::request::{self, RequestOptions};
use crate::render::trigger::Prompter;
use crate::render::{PromptView, StatsView};
use crate::Error;

/// The default bound on one request line, in bytes (`--max-request-bytes`): 64 MiB.
pub const DEFAULT_MAX_REQUEST_BYTES: usize = 64 << 20;

/// How many renderers (one per distinct strategy and options) the server keeps; the least
/// recently used one is dropped first.
pub const RENDERER_CACHE: usize = 32;

/// Answers requests from `input` on `output` until `input` ends. A request line longer than
/// `max_request_bytes` gets a `too_large` error without being held in memory.
pub fn serve(
    host: &Host,
    mut input: impl BufRead,
    mut output: impl Write,
    max_request_bytes: usize,
) -> Result<(), Error> {
    let defaults = host.recording_defaults()?;
    let tokenizer =
        Tokenizer::from_name(host.config().ab_tokenizer()).unwrap_or(Tokenizer::O200kBase);
    let mut prompters = Prompters::default();
    let mut line = Vec::new();
    loop {
        let response = match read_line(&mut input, &mut line, max_request_bytes) {
            Err(source) => {
                return Err(Error::Input {
                    path: "standard input".into(),
                    source,
                })
            }
            Ok(Line::End) => return Ok(()),
            Ok(Line::TooLong) => failure(
                &Json::Null,
                "too_large",
                format!(
                    "the request is longer than {max_request_bytes} bytes (--max-request-bytes)"
                ),
            ),
            Ok(Line::Read) => match std::str::from_utf8(&line) {
                Err(e) => failure(&Json::Null, "bad_request", format!("not UTF-8: {e}")),
                Ok(text) if text.trim().is_empty() => continue,
                Ok(text) => answer(host, text, &defaults, tokenizer, &mut prompters),
            },
        };
        let mut text = serde_json::to_string(&response).expect("JSON serializes");
        text.push('\n');
        output.write_all(text.as_bytes()).map_err(Error::Output)?;
        output.flush().map_err(Error::Output)?;
    }
}

/// What [`read_line`] found.
enum Line {
    /// A line (without its newline) is in the buffer.
    Read,
    /// The line was longer than the limit; it was skipped to its end.
    TooLong,
    /// The input ended.
    End,
}

/// Reads the next line into `line`, keeping at most `limit` bytes of it.
fn read_line(input: &mut impl BufRead, line: &mut Vec<u8>, limit: usize) -> std::io::Result<Line> {
    line.clear();
    let mut too_long = false;
    let mut any = false;
    loop {
        let available = match input.fill_buf() {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok(match (any, too_long) {
                (false, _) => Line::End,
                (true, true) => Line::TooLong,
                (true, false) => Line::Read,
            });
        }
        any = true;
        let (chunk, found) = match memchr::memchr(b'\n', available) {
            Some(i) => (&available[..i], Some(i + 1)),
            None => (available, None),
        };
        if !too_long {
            if line.len() + chunk.len() > limit {
                too_long = true;
                line.clear();
            } else {
                line.extend_from_slice(chunk);
            }
        }
        let used = found.unwrap_or(available.len());
        input.consume(used);
        if found.is_some() {
            return Ok(if too_long { Line::TooLong } else { Line::Read });
        }
    }
}

/// The values of the [`RENDERER_CACHE`] most recently used keys, most recent last.
struct Recent<T> {
    entries: Vec<(String, T)>,
    capacity: usize,
}

/// The renderers of the most recently used (strategy, options) pairs.
type Prompters<'h> = Recent<Prompter<'h>>;

impl<T> Default for Recent<T> {
    fn default() -> Self {
        Recent {
            entries: Vec::new(),
            capacity: RENDERER_CACHE,
        }
    }
}

impl<T> Recent<T> {
    /// The value for `key`, made by `make` when it is not kept; the least recently used value
    /// is dropped when the cache is full.
    fn get<E>(&mut self, key: String, make: impl FnOnce() -> Result<T, E>) -> Result<&T, E> {
        match self.entries.iter().position(|(k, _)| *k == key) {
            Some(i) => {
                let entry = self.entries.remove(i);
                self.entries.push(entry);
            }
            None => {
                let value = make()?;
                if self.entries.len() >= self.capacity {
                    self.entries.remove(0);
                }
                self.entries.push((key, value));
            }
        }
        Ok(&self.entries.last().expect("just pushed").1)
    }
}

/// A request's `recording` field, unparsed.
#[derive(serde::Deserialize)]
struct RawRecording<'a> {
    #[serde(borrow)]
    recording: &'a serde_json::value::RawValue,
}

fn failure(id: &Json, code: &str, message: impl std::fmt::Display) -> Json {
    json!({"id": id, "error": {"code": code, "message": message.to_string()}})
}

fn answer<'h>(
    host: &'h Host,
    line: &str,
    defaults: &crate::recording::RecordingDefaults,
    tokenizer: Tokenizer,
    prompters: &mut Prompters<'h>,
) -> Json {
    let request: Json = match serde_json::from_str(line) {
        Ok(Json::Object(map)) => Json::Object(map),
        Ok(_) => return failure(&Json::Null, "bad_request", "a request is a JSON object"),
        Err(e) => return failure(&Json::Null, "bad_request", format!("not JSON: {e}")),
    };
    let id = request.get("id").cloned().unwrap_or(Json::Null);
    let Some(recording) = request.get("recording") else {
        return failure(&id, "bad_request", "missing \"recording\"");
    };
    // The recording as the request wrote it: a map's keys in their order (definitions,
    // tool-call arguments), which a JSON value would sort.
    let raw;
    let bytes = match serde_json::from_str::<RawRecording<'_>>(line) {
        Ok(RawRecording { recording }) => recording.get().as_bytes(),
        Err(_) => {
            raw = serde_json::to_vec(recording).expect("JSON serializes");
            &raw
        }
    };
    let recording = match Recording::parse(bytes, "request".as_ref(), defaults) {
        Ok(r) => r,
        Err(e) => return failure(&id, "bad_recording", e),
    };
    let strategy = match request.get("strategy") {
        None | Some(Json::Null) => host.config().strategy().to_owned(),
        Some(Json::String(name)) => name.clone(),
        Some(other) => {
            return failure(
                &id,
                "bad_request",
                format!("\"strategy\" must be a strategy name (a string), not {other}"),
            )
        }
    };
    let options = request.get("options").cloned().unwrap_or(json!({}));
    let key = format!("{strategy}\u{0}{options}");
    let prompter = match prompters.get(key, || prompter(host, &strategy, &options)) {
        Ok(p) => p,
        Err(e @ (Error::UnknownStrategy { .. } | Error::StrategyNotLoaded { .. })) => {
            return failure(&id, "unknown_strategy", e)
        }
        Err(e) => return failure(&id, "bad_request", e),
    };
    let turns = match request.get("turns") {
        None | Some(Json::Null) => recording.turns.len(),
        Some(k) => match k.as_u64() {
            Some(k) => k as usize,
            None => {
                return failure(
                    &id,
                    "bad_request",
                    "\"turns\" must be a non-negative integer",
                )
            }
        },
    };
    let (format, options) = match request_format(&request) {
        Ok(asked) => asked,
        Err(message) => return failure(&id, "bad_request", message),
    };
    let mut counter = Counter::new(tokenizer);
    let prompt = match prompter.render(&recording, turns, &mut counter) {
        Ok((prompt, _)) => prompt,
        Err(e @ Error::TurnsOutOfRange { .. }) => return failure(&id, "bad_request", e),
        Err(e) => return failure(&id, "render_failed", e),
    };
    let body = match format {
        RenderFormat::Anthropic => match request::anthropic(&prompt, &options) {
            Ok(body) => serde_json::to_value(body),
            Err(e) => return failure(&id, "render_failed", e),
        },
        RenderFormat::OpenAi => serde_json::to_value(request::openai(&prompt, &options)),
        RenderFormat::Json | RenderFormat::Text => {
            let mut response = serde_json::to_value(PromptView::from(&prompt)).expect("JSON");
            response["id"] = id;
            return response;
        }
    };
    json!({
        "id": id,
        "strategy": prompt.strategy,
        "turns": prompt.turns,
        "request": body.expect("JSON"),
        "stats": StatsView::from(prompt.stats),
    })
}

/// The request's `format` and the options of a request body, or why they are wrong.
fn request_format(request: &Json) -> Result<(RenderFormat, RequestOptions), String> {
    let given = |name: &str| request.get(name).filter(|v| !v.is_null());
    let text = |name: &str, what: &str| match given(name) {
        None => Ok(None),
        Some(Json::String(s)) => Ok(Some(s.as_str())),
        Some(other) => Err(format!("\"{name}\" must be {what}, not {other}")),
    };
    let format = match text("format", "\"json\", \"anthropic\" or \"openai\"")? {
        None | Some("json") => RenderFormat::Json,
        Some("anthropic") => RenderFormat::Anthropic,
        Some("openai") => RenderFormat::OpenAi,
        Some(other) => {
            return Err(format!(
                "\"format\" must be \"json\", \"anthropic\" or \"openai\", not \"{other}\""
            ))
        }
    };
    let max_tokens = match given("max_tokens") {
        None => None,
        Some(n) => match n.as_u64().and_then(|n| u32::try_from(n).ok()) {
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
        model: text("model", "a model name (a string)")?.map(str::to_owned),
        max_tokens,
        placement: text("cache_placement", "\"strategy\", \"auto\" or \"none\"")?
            .map(str::parse)
            .transpose()
            .map_err(|e| format!("\"cache_placement\": {e}"))?,
        ttl: text("cache_ttl", "\"5m\" or \"1h\"")?
            .map(str::parse)
            .transpose()
            .map_err(|e| format!("\"cache_ttl\": {e}"))?,
    };
    let options = args.for_format(format, |name| format!("\"{name}\""))?;
    Ok((format, options))
}

/// A prompter for `strategy` with the request's `options` set for it.
fn prompter<'h>(host: &'h Host, strategy: &str, options: &Json) -> Result<Prompter<'h>, Error> {
    let mut config: Config = host.config().clone();
    if let Json::Object(options) = options {
        for (name, value) in options {
            let literal = match value {
                Json::String(s) => format!("{s:?}"),
                other => other.to_string(),
            };
            config.set_option(strategy, name, &literal, "the request's \"options\"")?;
        }
    } else if !options.is_null() {
        return Err(Error::Usage(format!(
            "\"options\" must be an object, not {options}"
        )));
    }
    let threshold = config.compress_above_tokens();
    host.prompter_with(Some(strategy), &config, threshold)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cache_keeps_the_most_recently_used_and_no_more() {
        let mut recent: Recent<usize> = Recent {
            entries: Vec::new(),
            capacity: 2,
        };
        let mut made = 0;
        let mut get = |recent: &mut Recent<usize>, key: &str| {
            *recent
                .get(key.to_owned(), || {
                    made += 1;
                    Ok::<_, ()>(made)
                })
                .unwrap()
        };
        assert_eq!(get(&mut recent, "a"), 1);
        assert_eq!(get(&mut recent, "b"), 2);
        assert_eq!(get(&mut recent, "a"), 1, "kept");
        assert_eq!(get(&mut recent, "c"), 3, "b, the least recently used, goes");
        assert_eq!(recent.entries.len(), 2);
        assert_eq!(get(&mut recent, "a"), 1, "still kept");
        assert_eq!(get(&mut recent, "b"), 4, "made again");
        assert_eq!(recent.entries.len(), 2);
    }

    #[test]
    fn lines_are_read_up_to_the_limit() {
        let mut input: &[u8] = b"abc\nabcdef\n\nxy";
        let mut line = Vec::new();
        let mut next = || match read_line(&mut input, &mut line, 4).unwrap() {
            Line::Read => Some(String::from_utf8(line.clone()).unwrap()),
            Line::TooLong => Some("<too long>".into()),
            Line::End => None,
        };
        assert_eq!(next().as_deref(), Some("abc"));
        assert_eq!(next().as_deref(), Some("<too long>"));
        assert_eq!(next().as_deref(), Some(""));
        assert_eq!(next().as_deref(), Some("xy"));
        assert_eq!(next(), None);
    }
}
