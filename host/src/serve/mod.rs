//! `ptc serve --stdio`: strategies for agents written in any language, one JSON request per line
//! on stdin, one JSON response per line on stdout.
//!
//! What a request and a response hold is [`protocol`]'s: read it there. A bad request gets an
//! error response; the server goes on with the next line, whatever the line holds: invalid
//! UTF-8, a line longer than the limit (read no further than the limit, then skipped to its
//! end), a field unknown or of the wrong type.
//!
//! The server keeps the renderers of the [`RENDERER_CACHE`] most recently used (strategy,
//! options) pairs, whose options take at most [`RENDERER_CACHE_BYTES`] together (and the one
//! in use, whatever its size), so memory stays bounded whatever the requests ask for.

use std::io::{BufRead, Write};

pub mod protocol;

use serde_json::{Map, Value as Json};

use crate::config::Config;
use crate::host::Host;
use crate::ops::render_recording;
use crate::recording::Recording;
use crate::render::trigger::{Prompter, AS_SENT};
use crate::render::{PromptView, RenderError, StatsView};
use crate::tokens::{Counter, Tokenizer};
use crate::Error;
use protocol::{Code, Response, ServeRequest};

/// The default bound on one request line, in bytes (`--max-request-bytes`): 64 MiB.
pub const DEFAULT_MAX_REQUEST_BYTES: usize = 64 << 20;

/// How many renderers (one per distinct strategy and options) the server keeps; the least
/// recently used one is dropped first.
pub const RENDERER_CACHE: usize = 32;

/// How many bytes of (strategy, options) the kept renderers may take together: 8 MiB. Each
/// renderer holds its options, so this bounds the cache's memory, not its count only.
pub const RENDERER_CACHE_BYTES: usize = 8 << 20;

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
            Ok(Line::TooLong) => Response::error(
                protocol::Id::default(),
                Code::TooLarge,
                format!(
                    "the request is longer than {max_request_bytes} bytes (--max-request-bytes)"
                ),
            )
            .line(),
            Ok(Line::Read) => match std::str::from_utf8(&line) {
                Err(e) => Response::error(
                    protocol::Id::default(),
                    Code::BadRequest,
                    format!("not UTF-8: {e}"),
                )
                .line(),
                Ok(text) if text.trim().is_empty() => continue,
                Ok(text) => answer(host, text, &defaults, tokenizer, &mut prompters),
            },
        };
        output
            .write_all(response.as_bytes())
            .map_err(Error::Output)?;
        output.flush().map_err(Error::Output)?;
    }
}

/// The stream the answers go to, kept apart from the process's standard output: the real
/// standard output is duplicated for the answers, then standard output is pointed at standard
/// error. Whatever a strategy prints goes to stderr, so it can neither put a line into the
/// answers (every later answer would be one behind) nor forge an answer.
#[cfg(unix)]
pub fn answer_stream() -> std::io::Result<std::fs::File> {
    use std::os::fd::FromRawFd;
    std::io::stdout().flush()?;
    // SAFETY: dup and dup2 on the standard descriptors, which are open; the descriptor dup
    // returns is new and owned by the file made from it alone.
    unsafe {
        let answers = libc::dup(libc::STDOUT_FILENO);
        if answers < 0 {
            return Err(std::io::Error::last_os_error());
        }
        if libc::dup2(libc::STDERR_FILENO, libc::STDOUT_FILENO) < 0 {
            let err = std::io::Error::last_os_error();
            libc::close(answers);
            return Err(err);
        }
        Ok(std::fs::File::from_raw_fd(answers))
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
    /// The most the keys may take together, in bytes (the most recent is kept whatever its
    /// size).
    bytes: usize,
}

/// The renderers of the most recently used (strategy, options) pairs.
type Prompters<'h> = Recent<Prompter<'h>>;

impl<T> Default for Recent<T> {
    fn default() -> Self {
        Recent {
            entries: Vec::new(),
            capacity: RENDERER_CACHE,
            bytes: RENDERER_CACHE_BYTES,
        }
    }
}

impl<T> Recent<T> {
    /// The value for `key`, made by `make` when it is not kept; the least recently used values
    /// are dropped while the cache holds more than its count or its bytes.
    fn get<E>(&mut self, key: String, make: impl FnOnce() -> Result<T, E>) -> Result<&T, E> {
        match self.entries.iter().position(|(k, _)| *k == key) {
            Some(i) => {
                let entry = self.entries.remove(i);
                self.entries.push(entry);
            }
            None => {
                let value = make()?;
                self.entries.push((key, value));
                let mut held: usize = self.entries.iter().map(|(k, _)| k.len()).sum();
                while self.entries.len() > 1
                    && (self.entries.len() > self.capacity || held > self.bytes)
                {
                    held -= self.entries.remove(0).0.len();
                }
            }
        }
        Ok(&self.entries.last().expect("just pushed").1)
    }
}

/// The response line to one request line.
fn answer<'h>(
    host: &'h Host,
    line: &str,
    defaults: &crate::recording::RecordingDefaults,
    tokenizer: Tokenizer,
    prompters: &mut Prompters<'h>,
) -> String {
    let request = match ServeRequest::parse(line) {
        Ok(request) => request,
        Err((id, message)) => return Response::error(id, Code::BadRequest, message).line(),
    };
    let id = request.id.clone();
    let fail =
        |code, message: &dyn std::fmt::Display| Response::error(id.clone(), code, message).line();
    let checked = match request.checked() {
        Ok(checked) => checked,
        Err(message) => return fail(Code::BadRequest, &message),
    };
    let recording = match Recording::parse(
        checked.recording.get().as_bytes(),
        "request".as_ref(),
        defaults,
    ) {
        Ok(r) => r,
        Err(e) => return fail(Code::BadRecording, &e),
    };
    let strategy = checked
        .strategy
        .unwrap_or_else(|| host.config().strategy().to_owned());
    let key = format!("{strategy}\u{0}{}", Json::Object(checked.options.clone()));
    let prompter = match prompters.get(key, || prompter(host, &strategy, &checked.options)) {
        Ok(p) => p,
        Err(e @ (Error::UnknownStrategy { .. } | Error::StrategyNotLoaded { .. })) => {
            return fail(Code::UnknownStrategy, &e)
        }
        Err(e) => return fail(Code::BadRequest, &e),
    };
    let mut counter = Counter::new(tokenizer);
    let rendered = match render_recording(
        prompter,
        &recording,
        checked.turns,
        checked.format,
        checked.request,
        &mut counter,
    ) {
        Ok(rendered) => rendered,
        Err(e @ RenderError::TurnsOutOfRange { .. }) => return fail(Code::BadRequest, &e),
        // An option value the strategy cannot use is the request's fault, as one the
        // configuration refuses is.
        Err(e @ RenderError::Strategy { .. }) if e.is_option_error() => {
            return fail(Code::BadRequest, &e)
        }
        Err(e) => return fail(Code::RenderFailed, &e),
    };
    let body = match rendered.request_body() {
        Ok(Some(body)) => serde_json::to_value(body),
        Ok(None) => {
            return Response::Prompt {
                id,
                prompt: PromptView::from(&rendered.prompt),
            }
            .line()
        }
        Err(e) => return fail(Code::RenderFailed, &e),
    };
    let prompt = &rendered.prompt;
    Response::Body {
        id,
        strategy: &prompt.strategy,
        turns: prompt.turns,
        request: body.expect("a request body serializes"),
        stats: StatsView::of(prompt),
    }
    .line()
}

/// A prompter for `strategy` with the request's `options` set for it; `as-sent` gives the
/// recording's requests, as every command takes it, and has no option to set.
fn prompter<'h>(
    host: &'h Host,
    strategy: &str,
    options: &Map<String, Json>,
) -> Result<Prompter<'h>, Error> {
    if strategy == AS_SENT {
        if let Some(name) = options.keys().next() {
            return Err(Error::Usage(format!(
                "{AS_SENT} sends the recorded requests and has no option `{name}`"
            )));
        }
        return Ok(Prompter::AsSent);
    }
    let mut config: Config = host.config().clone();
    for (name, value) in options {
        // Checked by the protocol: a string, a number or a boolean.
        let value = protocol::option_value(value).ok_or_else(|| {
            Error::Usage(format!(
                "option `{name}` is not a string, a number or a boolean"
            ))
        })?;
        config.set_option_value(strategy, name, value, "the request's \"options\"")?;
    }
    let threshold = config.compress_above_tokens();
    Ok(host
        .prompter_with(Some(strategy), &config, threshold)?
        .into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cache_keeps_the_most_recently_used_and_no_more() {
        let mut recent: Recent<usize> = Recent {
            entries: Vec::new(),
            capacity: 2,
            bytes: 1 << 20,
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
    fn the_cache_keeps_no_more_bytes_than_its_bound_but_the_one_in_use() {
        let mut recent: Recent<usize> = Recent {
            entries: Vec::new(),
            capacity: 32,
            bytes: 10,
        };
        let get = |recent: &mut Recent<usize>, key: &str| {
            *recent
                .get(key.to_owned(), || Ok::<_, ()>(key.len()))
                .unwrap()
        };
        get(&mut recent, "aaaa");
        get(&mut recent, "bbbb");
        assert_eq!(recent.entries.len(), 2, "8 bytes are kept");
        get(&mut recent, "cccc");
        let keys: Vec<&str> = recent.entries.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["bbbb", "cccc"], "12 bytes are not: the oldest goes");
        assert_eq!(get(&mut recent, &"x".repeat(100)), 100);
        assert_eq!(
            recent.entries.len(),
            1,
            "only the one in use is kept past the bound"
        );
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
