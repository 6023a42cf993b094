//! `ptc import`: recordings made from the logs other runtimes write. One file per source
//! format; what they share is here: what an import could not bring back ([`Losses`]), what
//! the caller supplies in place of the log's own ([`Supplied`]), and why an import fails.

mod atif;
pub mod canonical_trace;
mod claude_code;
mod codex;
mod counts;
mod error;
mod first_record;
mod gemini_cli;
mod mini_swe_agent;
mod openhands;
mod ptc_runner;
mod ptc_runner_kernel;
mod read;
mod rebuild;
mod transcript;

use std::fmt;
use std::path::Path;

use serde_json::Value as Json;

pub use atif::atif;
pub use claude_code::claude_code;
pub use codex::{codex, redacted};
use error::bad;
pub use error::ImportError;
pub use gemini_cli::gemini_cli;
pub use mini_swe_agent::mini_swe_agent;
pub use openhands::openhands;
pub use ptc_runner::ptc_runner;
pub use ptc_runner_kernel::ptc_runner_kernel;
pub use read::{formats, name_after, read_log, unique_names};
use transcript::transcript_recording;

use crate::recording::ReadError;
pub(super) use counts::litellm_usage;
pub use counts::CountError;

/// What the import could not bring back as it was.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Losses {
    pub truncated_strings: usize,
    pub summarized_lists: usize,
    pub keys_read_as_keywords: usize,
    pub sets: usize,
    pub functions: usize,
    pub nested_runs_skipped: usize,
}

impl fmt::Display for Losses {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} string(s) truncated by the trace (kept as its preview), {} list(s) summarized as \"List(N items)\" (kept as that text), {} map key(s) read as keywords, {} set(s) and {} function(s) restored, {} nested run(s) skipped",
            self.truncated_strings,
            self.summarized_lists,
            self.keys_read_as_keywords,
            self.sets,
            self.functions,
            self.nested_runs_skipped
        )
    }
}

/// An imported recording: its JSON (the recording format) and what was lost.
pub struct Imported {
    pub json: Json,
    /// The recording as JSON, as `json` writes it: set by [`read_log`] once the run is named
    /// and read back as a recording.
    pub text: String,
    pub turns: usize,
    pub losses: Losses,
    /// The trace format read: 1 or 2.
    pub version: u64,
    /// True when neither the trace nor the caller gave a `max_turns`: the recording takes the
    /// configured default.
    pub default_max_turns: bool,
    /// Which run of the log it is, when a log holds several (`side chain from line 16`).
    pub part: Option<String>,
}

/// What the caller gives for a recording, in place of the trace's own (`--mission`,
/// `--max-turns`).
#[derive(Clone, Debug, Default)]
pub struct Supplied {
    pub mission: Option<String>,
    pub max_turns: Option<u32>,
    /// Replay a Kernel run's programs and record the memory of its turns (`--replay`).
    pub replay: bool,
}

/// The formats `ptc import` reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// ptc_runner's JSONL trace log, v1 or v2 (SubAgent runs)
    PtcRunner,
    /// ptc_runner's Kernel agent: the inspection artifact (`*.inspection.jsonl`, schema 2 or 7), every
    /// request as sent and what it was billed
    PtcRunnerKernel,
    /// mini-swe-agent's trajectory (`*.traj.json`: format 1.1 with tool calls or bash blocks,
    /// format 1 with bash blocks), every request as sent and the provider's token counts
    MiniSweAgent,
    /// An ATIF trajectory (Harbor's Agent Trajectory Interchange Format, v1.0 to v1.7): many
    /// agents export it; per step the tokens (cached included) and the cost it states
    Atif,
    /// A Claude Code session log (`<session>.jsonl`): one run per thread (the main conversation
    /// and each side chain), per response the tokens Anthropic reported
    ClaudeCode,
    /// An OpenHands run: its event trajectory (a JSON list of events) or the lines of an
    /// evaluation's `output.jsonl` (`history`); per response the tokens litellm reported
    Openhands,
    /// A Codex CLI session (`rollout-*.jsonl`): per call the tokens OpenAI reported, cached
    /// included
    Codex,
    /// A Gemini CLI session (`session-*.json` under `~/.gemini/tmp/`): per response the tokens
    /// Gemini reported, cached included
    GeminiCli,
}

impl Format {
    /// The format of the log at `path`, from its first record; none when it is not one ptc
    /// reads.
    pub fn detect(path: &Path) -> Option<Format> {
        use std::io::{Read, Seek};
        // The file is opened once and its first bytes read once: the prefix the single-JSON
        // formats are told by, and the first line of a JSONL log (up to 1 MiB: a rollout's
        // first line holds the base instructions).
        let mut file = std::fs::File::open(path).ok()?;
        // A pipe gives its bytes once: what detection read, the import would not see again
        // (and would import the rest as if it were the whole log). Its format is given with
        // --from.
        let meta = file.metadata().ok()?;
        if !meta.is_file() {
            return None;
        }
        // Room for all it reads, in one piece.
        let mut head = Vec::with_capacity(meta.len().min(1 << 20) as usize);
        (&mut file).take(1 << 20).read_to_end(&mut head).ok()?;
        // A leading byte-order mark (as some editors save JSON) hides the opening brace.
        let head = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(&head);
        let prefix = String::from_utf8_lossy(&head[..head.len().min(8 << 10)]);
        // A trajectory is one JSON object whose `trajectory_format` is written first or last.
        let len = file.metadata().ok()?.len();
        let mut suffix = Vec::new();
        if len > head.len() as u64 {
            file.seek(std::io::SeekFrom::Start(len.saturating_sub(8 << 10)))
                .ok()?;
            file.take(8 << 10).read_to_end(&mut suffix).ok()?;
        } else {
            suffix.extend_from_slice(&head[head.len().saturating_sub(8 << 10)..]);
        }
        // A rollout's first line opens with its type; it goes first, as its texts (the base
        // instructions) could mention another format's marks.
        if codex::detect_prefix(&prefix) {
            return Some(Format::Codex);
        }
        if atif::detect(&prefix) {
            return Some(Format::Atif);
        }
        if mini_swe_agent::detect(&prefix, &String::from_utf8_lossy(&suffix)) {
            return Some(Format::MiniSweAgent);
        }
        if openhands::detect(&prefix) {
            return Some(Format::Openhands);
        }
        if gemini_cli::detect(&prefix) {
            return Some(Format::GeminiCli);
        }
        if mini_swe_agent::detect_bare(path, &prefix) {
            return Some(Format::MiniSweAgent);
        }
        let text = String::from_utf8_lossy(head);
        let first = text.lines().find(|l| !l.trim().is_empty())?;
        let record = first_record::read(first.trim_start_matches('\u{feff}'))?;
        if ptc_runner_kernel::detect(&record) {
            Some(Format::PtcRunnerKernel)
        } else if claude_code::detect(&record) {
            Some(Format::ClaudeCode)
        } else if codex::detect(&record) {
            Some(Format::Codex)
        } else if record.get("event").is_some() {
            Some(Format::PtcRunner)
        } else {
            None
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Format::PtcRunner => "ptc-runner",
            Format::PtcRunnerKernel => "ptc-runner-kernel",
            Format::MiniSweAgent => "mini-swe-agent",
            Format::Atif => "atif",
            Format::ClaudeCode => "claude-code",
            Format::Openhands => "openhands",
            Format::Codex => "codex",
            Format::GeminiCli => "gemini-cli",
        }
    }
}

/// Writes each turn's request as the messages it adds to the previous turn's (`repeats`: how
/// many of the previous request's messages it sends again first, unchanged), so that a run's
/// requests take the size of its conversation rather than its square.
fn repeat_requests(recording: &mut Json) {
    let Some(turns) = recording.get_mut("turns").and_then(Json::as_array_mut) else {
        return;
    };
    // An importer that wrote them so already (it knows what each request adds).
    if turns.iter().any(|t| t["request"].get("repeats").is_some()) {
        return;
    }
    // The previous turn's messages, whole.
    let mut previous: Option<Vec<Json>> = None;
    for turn in turns {
        let Some(messages) = turn
            .get_mut("request")
            .and_then(|r| r.get_mut("messages"))
            .and_then(Json::as_array_mut)
        else {
            previous = None;
            continue;
        };
        let whole = std::mem::take(messages);
        let repeats = previous.as_ref().map_or(0, |before| {
            before
                .iter()
                .zip(&whole)
                .take_while(|(a, b)| a == b)
                .count()
        });
        *messages = whole[repeats..].to_vec();
        if repeats > 0 {
            turn["request"]["repeats"] = Json::from(repeats);
        }
        previous = Some(whole);
    }
}

/// Checks that the recording an import made reads back as ptc reads recordings, and returns
/// its text. Its errors are about the recording made, not a place in the log: they name the
/// field of the recording.
pub(super) fn reads_back(
    path: &Path,
    recording: &mut Json,
    defaults: &crate::recording::RecordingDefaults,
) -> Result<String, ReadError> {
    use crate::recording::{Recording, RecordingError};
    repeat_requests(recording);
    let text = serde_json::to_string(&*recording).expect("JSON serializes");
    Recording::parse(text.as_bytes(), path, defaults).map_err(|err| {
        let rule = match err {
            RecordingError::Syntax {
                json_path, message, ..
            }
            | RecordingError::Rule {
                json_path, message, ..
            } => format!("{json_path}: {message}"),
            other => other.to_string(),
        };
        bad(path, None, ImportError::BreaksARule { rule })
    })?;
    Ok(text)
}

/// Seconds since the Unix epoch of an ISO 8601 UTC time (`2026-08-03T09:09:32.385197Z`).
pub(super) fn seconds(text: &str) -> Option<f64> {
    let text = text.strip_suffix('Z')?;
    let (date, time) = text.split_once('T')?;
    let mut date = date.split('-').map(|p| p.parse::<i64>().ok());
    let (y, m, d) = (date.next()??, date.next()??, date.next()??);
    let mut time = time.split(':');
    let (h, min) = (
        time.next()?.parse::<i64>().ok()?,
        time.next()?.parse::<i64>().ok()?,
    );
    let s: f64 = time.next()?.parse().ok()?;
    let days = crate::pricing::days_from_civil(y, m, d);
    Some((days * 86_400 + h * 3_600 + min * 60) as f64 + s)
}

/// The text of a message's content: a string as it is, its parts' `text`, one after the other
/// (a line between two).
pub(super) fn content_text(content: &Json) -> String {
    match content {
        Json::String(text) => text.clone(),
        Json::Array(parts) => parts
            .iter()
            .filter_map(|p| p["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// The log at `path`, one JSON object (of at most `limit` bytes; a UTF-8 byte order mark
/// skipped); a syntax error names its line.
pub(super) fn read_json(path: &Path, limit: u64) -> Result<Json, ReadError> {
    let bytes = crate::recording::read_limited(path, limit)?;
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
    serde_json::from_slice(bytes).map_err(|e| bad(path, Some(e.line()), ImportError::Json(e)))
}

/// A message of a request as sent: its role, its content's text (a string as it is, text parts
/// one after the other, anything else as its JSON), its tool calls as `tool_call` reads each from the source's shape, and the
/// call a `tool` message answers.
pub(super) fn request_message(
    message: &Json,
    tool_call: impl Fn(&Json) -> crate::recording::format::RequestToolCallJson,
) -> crate::recording::format::RequestMessageJson {
    crate::recording::format::RequestMessageJson {
        role: message["role"].as_str().unwrap_or("").to_owned(),
        content: match &message["content"] {
            Json::String(text) => text.clone(),
            Json::Null => String::new(),
            // Text parts (`[{"type": "text", "text": ...}]`, as a client marking a cache
            // breakpoint sends them): their texts, one after the other.
            Json::Array(parts) if parts.iter().all(|p| p["text"].is_string()) => {
                parts.iter().filter_map(|p| p["text"].as_str()).collect()
            }
            other => other.to_string(),
        },
        tool_calls: message["tool_calls"]
            .as_array()
            .map(|calls| calls.iter().map(&tool_call).collect())
            .unwrap_or_default(),
        tool_call_id: message["tool_call_id"].as_str().map(str::to_owned),
        reasoning: None,
    }
}

/// The run's turn budget: the one given (`--max-turns`, or the log's own), else the number of
/// turns taken (at least 1), and then the recording says it lacks the budget.
pub(super) fn turn_budget(
    given: Option<u32>,
    turns: usize,
    lacks: &mut Vec<crate::recording::format::Lack>,
) -> u32 {
    given.unwrap_or_else(|| {
        lacks.push(crate::recording::format::Lack::MaxTurns);
        u32::try_from(turns.max(1)).unwrap_or(u32::MAX)
    })
}

/// The JSON values of a JSONL log at `path`, each with its line (each line within the
/// `limit` bytes; blank lines and a UTF-8 byte order mark skipped); a line that is not
/// JSON is an error naming it.
pub(super) fn read_lines(path: &Path, limit: u64) -> Result<Vec<(usize, Json)>, ReadError> {
    use std::io::{BufRead, Read};
    let input = |source| ReadError::Input {
        path: path.to_owned(),
        source,
    };
    let file = std::fs::File::open(path).map_err(input)?;
    let mut reader = std::io::BufReader::new(file);
    let mut lines = Vec::new();
    let mut bytes = Vec::new();
    for line in 1.. {
        bytes.clear();
        let read = (&mut reader)
            .take(limit.saturating_add(1))
            .read_until(b'\n', &mut bytes)
            .map_err(input)?;
        if read == 0 {
            break;
        }
        if bytes.len() as u64 > limit && bytes.last() != Some(&b'\n') {
            return Err(bad(path, Some(line), ImportError::TooLarge(limit)));
        }
        let text = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
        if text.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let record: Json = serde_json::from_slice(text)
            .map_err(|e| bad(path, Some(line), ImportError::Json(e)))?;
        lines.push((line, record));
    }
    Ok(lines)
}

/// The first line of a JSONL file (within 1 MiB), when it is a JSON object.
pub(crate) fn first_line_object(path: &Path) -> Option<serde_json::Value> {
    use std::io::{BufRead, Read};
    if path.extension().and_then(|e| e.to_str()) != Some("jsonl") {
        return None;
    }
    let file = std::fs::File::open(path).ok()?;
    let mut line = Vec::new();
    let read = std::io::BufReader::new(file.take(1 << 20)).read_until(b'\n', &mut line);
    if read.is_err() || line.last() != Some(&b'\n') {
        return None;
    }
    serde_json::from_slice::<serde_json::Value>(&line)
        .ok()
        .filter(serde_json::Value::is_object)
}

/// Whether the first non-blank line of the file at `path` is a JSON value on its own.
pub(super) fn first_line_is_json(path: &Path) -> bool {
    use std::io::{BufRead, Read};
    let Ok(file) = std::fs::File::open(path) else {
        return false;
    };
    let mut reader =
        std::io::BufReader::new(file).take(crate::recording::DEFAULT_MAX_RECORDING_BYTES);
    let mut line = Vec::new();
    while line.iter().all(u8::is_ascii_whitespace) {
        line.clear();
        if reader.read_until(b'\n', &mut line).unwrap_or(0) == 0 {
            return false;
        }
    }
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&line);
    serde_json::from_slice::<Json>(line).is_ok()
}

/// The name of a JSON value's kind, for an error.
pub(super) fn kind(value: &Json) -> &'static str {
    match value {
        Json::Null => "null",
        Json::Bool(_) => "a boolean",
        Json::Number(_) => "a number",
        Json::String(_) => "a string",
        Json::Array(_) => "a list",
        Json::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_message_of_text_parts_is_their_text_and_anything_else_its_json() {
        let no_calls = |_: &Json| unreachable!("no tool calls");
        let parts = json!({"role": "user", "content": [
            {"type": "text", "text": "Fix it."},
            {"type": "text", "text": " Now.", "cache_control": {"type": "ephemeral"}}]});
        assert_eq!(request_message(&parts, no_calls).content, "Fix it. Now.");
        let image = json!({"role": "user", "content": [{"type": "image_url", "image_url": "x"}]});
        assert_eq!(
            request_message(&image, no_calls).content,
            r#"[{"image_url":"x","type":"image_url"}]"#
        );
    }
}
