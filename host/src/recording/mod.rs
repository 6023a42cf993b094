//! Recordings: a recorded agent run (mission, tools, data, limits and its turns) read from a
//! JSON file, checked, and turned into what strategies render from.
//!
//! This module holds the [`Recording`] and its loading; the file format is read in `format`,
//! its rules are checked in `rules`, the requests as sent are held in `request` (each sharing
//! the messages it repeats); `ptc validate` checks the whole shape in `shape`, placed in the
//! text by `place`. Errors name the file, the line and column, and the JSON
//! path of the problem.

pub mod bundled;
pub mod corpus;
mod corpus_imports;
mod corpus_lines;
mod folders;
mod format;
pub mod import;
pub(crate) mod logs;
pub mod mission;
pub mod names;
mod place;
mod read_error;
mod request;
mod request_messages;
mod rules;
mod shape;
pub mod value_json;

use std::io::Read;
use std::path::{Path, PathBuf};

use ptc_plugin_api::abi_stable::std_types::{RArc, ROption, RString, RVec, Tuple2};
use ptc_plugin_api::{Run, Tool, ToolCall, Turn, TurnError};

use crate::recording::format::{parse_json, TurnJson};
pub use crate::recording::format::{
    Lack, RequestMessageJson as RequestMessage, RequestToolCallJson as RequestToolCall,
    UsageJson as Usage,
};
pub use crate::recording::read_error::ReadError;
pub use crate::recording::request::Request;
pub use crate::recording::request_messages::SentMessages;
use crate::recording::rules::problems;
use crate::recording::value_json::NamedValues;

pub use format::schema;
pub use rules::{Problem, Severity};

/// A recorded run, ready to render.
#[derive(Clone, Debug)]
pub struct Recording {
    /// Where the recording is: its file, `file:line` for a JSONL line (what errors name).
    pub path: PathBuf,
    /// What the run is called: the log it was imported from, and which run of it.
    pub name: Option<String>,
    pub run: Run,
    /// The turns, each with its [`Turn::defined`] filled; after changing turns, call
    /// `ptc_strategy_kit::mark_defined` on them again.
    pub turns: Vec<Turn>,
    /// Per turn: when the prompt before it was sent (seconds), if the recording says.
    pub started_at: Vec<Option<f64>>,
    /// Per turn: the request the agent sent for it, as sent, if the recording has it.
    pub requests: Vec<Option<Request>>,
    /// Per turn: what the provider billed for that request, if the recording says.
    pub usage: Vec<Option<Usage>>,
    /// What the recording's source did not record.
    pub lacks: Vec<Lack>,
    /// The size, in tokens, of what the agent sent before the messages of its requests and
    /// its log does not hold (its system prompt and tool schemas), inferred from the bill:
    /// the `inferred_prefix_tokens` of its rebuilt requests. A strategy renders the run with
    /// it in place of a system prompt.
    pub inferred_prefix: Option<u64>,
}

/// What a recording takes from configuration when it does not say.
#[derive(Clone, Debug)]
pub struct RecordingDefaults {
    /// Used when the recording has no `max_turns` (the agent's default turn budget).
    pub max_turns: u32,
    /// Used when the recording has no `system_prompt`.
    pub system_prompt: String,
    /// The largest recording read, in bytes (a recording file, a line of a JSONL file, a log):
    /// a larger one is an error naming the file and the limit, found before more than the
    /// limit is read (`--max-recording-bytes`; [`DEFAULT_MAX_RECORDING_BYTES`]).
    pub max_recording_bytes: u64,
}

/// The largest recording read by default, in bytes (a recording file, a line of a JSONL
/// file): 256 MiB.
pub const DEFAULT_MAX_RECORDING_BYTES: u64 = 256 << 20;

/// `268435456 bytes (256 MiB)`.
pub(crate) fn show_bytes(n: u64) -> String {
    if n >= 1 << 20 && n % (1 << 20) == 0 {
        format!("{n} bytes ({} MiB)", n >> 20)
    } else {
        format!("{n} bytes")
    }
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
    #[error("recording {path} is larger than the limit of {}; raise it with --max-recording-bytes", show_bytes(*.limit))]
    TooLarge { path: PathBuf, limit: u64 },
    /// A problem placed in the text, worded as `ptc validate` words it: bad JSON, a problem of
    /// shape, or a rule broken.
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

impl Recording {
    /// What every output calls the run: its name, else where it is.
    pub fn label(&self) -> PathBuf {
        self.name
            .as_ref()
            .map_or_else(|| self.path.clone(), PathBuf::from)
    }

    /// Refuses a run whose requests send more than [`request::MAX_SENT_MESSAGES`] messages
    /// in all, naming the turn where they pass it: what `ab` takes.
    pub fn check_sent_messages(&self) -> Result<(), RecordingError> {
        match request::over_sent_messages(&self.requests) {
            None => Ok(()),
            Some((turn, sent)) => Err(RecordingError::Rule {
                path: self.path.clone(),
                json_path: format!("turns[{turn}].request"),
                message: format!(
                    "the requests up to this turn send {sent} messages in all (each \
                     counting again those it repeats), over the limit of {} one run may send \
                     to be measured: `ab` renders every prompt whole, in a time that grows \
                     with the square of the turns; measure the run's first {turn} turns in a \
                     recording of their own, or render one prompt with `ptc render --turns N`",
                    request::MAX_SENT_MESSAGES
                ),
            }),
        }
    }

    /// Reads and checks the recording at `path` (no larger than
    /// [`RecordingDefaults::max_recording_bytes`]).
    pub fn load(path: &Path, defaults: &RecordingDefaults) -> Result<Recording, RecordingError> {
        let bytes = read_limited(path, defaults.max_recording_bytes)?;
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
        // The first error is reported as `ptc validate` places and words it (one home for the
        // diagnostic: its line, its closest known name); the reader's own is kept only where the
        // check finds none.
        let placed = |err: RecordingError| {
            Recording::first_error(bytes, path, first_line, defaults).unwrap_or(err)
        };
        let json = parse_json(bytes, path, first_line).map_err(placed)?;
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
            return Err(placed(RecordingError::Rule {
                path: located(),
                json_path: problem.json_path,
                message: problem.message,
            }));
        }
        let max_turns = json.max_turns.unwrap_or(defaults.max_turns);
        let mission = if json.literal_mission {
            json.mission
        } else {
            mission::expand(&json.mission, &json.data.0).map_err(|message| {
                placed(RecordingError::Rule {
                    path: located(),
                    json_path: "mission".into(),
                    message,
                })
            })?
        };
        // A run whose log kept no system prompt (it lacks one, or its requests are rebuilt) is
        // another agent's: ptc's PTC-Lisp system prompt never stands in for its own.
        let rebuilt = json
            .turns
            .iter()
            .filter_map(|t| t.request.as_ref())
            .find(|r| r.rebuilt);
        let inferred_prefix = rebuilt.and_then(|r| r.inferred_prefix_tokens);
        let foreign = rebuilt.is_some() || json.lacks.contains(&Lack::SystemPrompt);
        let unknown_prefix = rebuilt.is_some() && inferred_prefix.is_none();
        let run = Run {
            mission: mission.into(),
            system_prompt: json
                .system_prompt
                .unwrap_or_else(|| {
                    if foreign {
                        String::new()
                    } else {
                        defaults.system_prompt.clone()
                    }
                })
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
            key: next_run_key(),
        };
        let started_at = json.turns.iter().map(|t| t.started_at).collect();
        // What some turns lack, the run lacks for what renders them: every turn but the last,
        // which no later prompt shows.
        let mut lacks = json.lacks;
        let shown = json.turns.len().saturating_sub(1);
        lacks.extend(
            json.turns[..shown]
                .iter()
                .flat_map(|t| t.lacks.iter().copied()),
        );
        let mut requests = Vec::with_capacity(json.turns.len());
        let mut usage = Vec::with_capacity(json.turns.len());
        let mut turns: Vec<Turn> = Vec::with_capacity(json.turns.len());
        for mut t in json.turns {
            // A request that repeats messages of the previous one shares them with it; the
            // rules checked above that the previous one sent that many.
            let previous = requests.last().and_then(Option::as_ref);
            let request = t.request.take().map(|json| Request::new(json, previous));
            requests.push(request);
            usage.push(t.usage.take());
            turns.push(turn(t));
        }
        ptc_strategy_kit::mark_defined(&mut turns);
        if unknown_prefix {
            lacks.push(Lack::PromptPrefix);
        }
        lacks.sort_by_key(|l| l.as_str());
        lacks.dedup();
        Ok(Recording {
            path: located(),
            name: json.name,
            run,
            turns,
            started_at,
            requests,
            usage,
            lacks,
            inferred_prefix,
        })
    }
}

impl Recording {
    /// Whether the run is another agent's, whose log kept no system prompt: it lacks one, or
    /// its requests are rebuilt from the conversation. ptc's PTC-Lisp system prompt never
    /// stands in for its own.
    pub fn is_another_agents(&self) -> bool {
        self.lacks.contains(&Lack::SystemPrompt)
            || self.requests.iter().flatten().any(|r| r.rebuilt)
    }
}

/// A run's key ([`Run::key`]): a new one for every run read in this process, never 0. A run is
/// never changed once it has one.
fn next_run_key() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// The bytes of the file at `path`, when there are no more than `limit`: a larger file is
/// refused from its size, a stream (a pipe, a device) once it has given more than `limit`.
pub(crate) fn read_limited(path: &Path, limit: u64) -> Result<Vec<u8>, RecordingError> {
    let io = |source| RecordingError::Io {
        path: path.to_owned(),
        source,
    };
    let too_large = || RecordingError::TooLarge {
        path: path.to_owned(),
        limit,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    if meta.is_file() && meta.len() > limit {
        return Err(too_large());
    }
    let mut bytes = Vec::with_capacity(if meta.is_file() {
        meta.len() as usize
    } else {
        0
    });
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > limit {
        return Err(too_large());
    }
    Ok(bytes)
}

/// The entries of `data`, each value its own: the values `reusing` shared with the object
/// before are not shared once it returns, so taking them costs no copy.
fn named(values: NamedValues) -> RVec<Tuple2<RString, ptc_plugin_api::Value>> {
    values
        .0
        .into_iter()
        .map(|(name, value)| {
            let value = RArc::try_unwrap(value).unwrap_or_else(|shared| (*shared).clone());
            Tuple2(name.into(), value)
        })
        .collect()
}

/// The entries of a turn's `memory`, shared with the turns that hold them unchanged.
fn shared(values: NamedValues) -> RVec<Tuple2<RString, RArc<ptc_plugin_api::Value>>> {
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
        memory: shared(json.memory),
        // Filled for the whole run by `mark_defined`.
        defined: RVec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn defaults() -> RecordingDefaults {
        RecordingDefaults {
            max_turns: 5,
            system_prompt: "SYSTEM".into(),
            max_recording_bytes: crate::recording::DEFAULT_MAX_RECORDING_BYTES,
        }
    }

    fn parse(json: &str) -> Result<Recording, String> {
        Recording::parse(json.as_bytes(), Path::new("r.json"), &defaults())
            .map_err(|e| e.to_string())
    }

    /// Three turns whose requests send `sent` messages: the first whole, the others repeating
    /// `repeats[i]` of the previous request's.
    fn appended(repeats: [usize; 2], first: Option<usize>) -> String {
        let message = |k: usize| format!(r#"{{"role": "user", "content": "m{k}"}}"#);
        let request = |repeats: usize, from: usize, to: usize| {
            let messages: Vec<String> = (from..to).map(message).collect();
            format!(
                r#"{{"repeats": {repeats}, "messages": [{}]}}"#,
                messages.join(", ")
            )
        };
        let first = match first {
            Some(n) => format!(r#", "request": {}"#, request(0, 0, n)),
            None => String::new(),
        };
        format!(
            r#"{{"mission": "m", "turns": [
                {{"number": 1, "success": true{first}}},
                {{"number": 2, "success": true, "request": {}}},
                {{"number": 3, "success": true, "request": {}}}]}}"#,
            request(repeats[0], 2, 4),
            request(repeats[1], 4, 5)
        )
    }

    #[test]
    fn a_request_that_repeats_the_previous_ones_messages_holds_them_all() {
        // The contents of the messages of turn `i`'s request.
        let contents = |r: &Recording, i: usize| -> Vec<String> {
            let request = r.requests[i].as_ref().unwrap();
            request.messages().map(|m| m.content.clone()).collect()
        };
        let r = parse(&appended([2, 4], Some(2))).unwrap();
        assert_eq!(contents(&r, 0), ["m0", "m1"]);
        assert_eq!(contents(&r, 1), ["m0", "m1", "m2", "m3"]);
        assert_eq!(contents(&r, 2), ["m0", "m1", "m2", "m3", "m4"]);
        // A request may repeat fewer than the previous one sent (it changed one of them).
        let r = parse(&appended([1, 3], Some(2))).unwrap();
        assert_eq!(contents(&r, 1), ["m0", "m2", "m3"]);
        assert_eq!(contents(&r, 2), ["m0", "m2", "m3", "m4"]);
    }

    #[test]
    fn a_request_cannot_repeat_messages_that_were_not_sent() {
        let err = parse(&appended([3, 4], Some(2))).unwrap_err();
        assert!(
            err.ends_with("at `turns[1].request.repeats`: 3 message(s) of the previous turn's request, which sent 2"),
            "{err}"
        );
        let err = parse(&appended([2, 4], None)).unwrap_err();
        assert!(
            err.ends_with("at `turns[1].request.repeats`: 2 message(s) of the previous turn's request, but the previous turn has no request"),
            "{err}"
        );
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
            "invalid recording r.json:2:37: at `turns[0].success`: invalid type: string \"yes\", expected a boolean"
        );
        assert_eq!(
            parse(r#"{"turns": []}"#).unwrap_err(),
            "invalid recording r.json:1:1: at `.`: missing field `mission`"
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
    fn a_recording_that_cannot_be_read_is_placed_and_worded_as_validate_does() {
        // A misspelt turn field, a missing one at the end of a long turn, a rule broken: each
        // has the place and the words of the first error `ptc validate` reports.
        let cases = [
            "{\"mission\": \"x\",\n \"turns\": [{\"number\": 1, \"success\": true, \"raw_respons\": \"r\"}]}",
            "{\"mission\": \"x\",\n \"turns\": [{\"number\": 1,\n\n  \"prints\": []\n}]}",
            "{\"mission\": \"x\",\n \"max_turns\": 1, \"turns\": [{\"number\": 1, \"success\": true},\n {\"number\": 2, \"success\": true}]}",
        ];
        for json in cases {
            let err = parse(json).unwrap_err();
            let first = Recording::check(json.as_bytes(), Path::new("r.json"), 1, &defaults())
                .into_iter()
                .next()
                .unwrap();
            let expected = format!(
                "invalid recording r.json:{}:{}: at `{}`: {}",
                first.line.unwrap(),
                first.column.unwrap(),
                first.json_path,
                first.message
            );
            assert_eq!(err, expected);
        }
        assert_eq!(
            parse(cases[0]).unwrap_err(),
            "invalid recording r.json:2:43: at `turns[0].raw_respons`: unknown field `raw_respons`; did you mean `raw_response`?"
        );
        // The turn that lacks `success` is named where it starts, not where it ends.
        assert_eq!(
            parse(cases[1]).unwrap_err(),
            "invalid recording r.json:2:12: at `turns[0]`: missing field `success`"
        );
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
    fn a_recording_over_the_limit_is_refused_unread() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.json");
        // 2 GiB of holes: reading it would take seconds and gigabytes.
        std::fs::File::create(&path)
            .unwrap()
            .set_len(2 << 30)
            .unwrap();
        let err = read_limited(&path, DEFAULT_MAX_RECORDING_BYTES).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "recording {} is larger than the limit of 268435456 bytes (256 MiB); raise it with --max-recording-bytes",
                path.display()
            )
        );
        std::fs::write(&path, "12345").unwrap();
        assert_eq!(read_limited(&path, 5).unwrap(), b"12345");
        assert!(matches!(
            read_limited(&path, 4),
            Err(RecordingError::TooLarge { limit: 4, .. })
        ));
        // A stream with no end: read up to the limit, then refused.
        #[cfg(unix)]
        assert!(matches!(
            read_limited(Path::new("/dev/zero"), 1 << 16),
            Err(RecordingError::TooLarge { .. })
        ));
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

    #[test]
    fn a_mission_may_not_expand_over_its_limit() {
        let recording = |mission: &str, value: &str| {
            serde_json::json!({"mission": mission, "data": {"x": value}}).to_string()
        };
        let big = "A".repeat(1 << 19);
        // Two copies of half a MiB and the text around them: over 1 MiB.
        let over = recording("Use {{x}} and {{x}}.", &big);
        let err = parse(&over).unwrap_err();
        assert_eq!(
            err,
            "invalid recording r.json:1:524306: at `mission`: with its placeholders filled in the mission is over 1 MiB (1048576 bytes); placeholder {{x}} takes it past the limit"
        );
        let problems = Recording::check(over.as_bytes(), Path::new("r.json"), 1, &defaults());
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(err.ends_with(&problems[0].message), "{problems:?}");
        assert_eq!(problems[0].json_path, "mission");
        // Exactly 1 MiB is fine, and so is a longer mission as written.
        let exact = parse(&recording("{{x}}{{x}}", &big)).unwrap();
        assert_eq!(exact.run.mission.len(), 1 << 20);
        let long = "m".repeat(2 << 20);
        assert_eq!(
            parse(&recording(&long, "")).unwrap().run.mission.len(),
            2 << 20
        );
        // The text after the last placeholder counts too.
        let tail = format!("{{{{x}}}}{{{{x}}}}{}", "t".repeat(10));
        assert!(parse(&recording(&tail, &big))
            .unwrap_err()
            .ends_with("the mission is over 1 MiB (1048576 bytes)"));
    }

    #[test]
    fn a_byte_order_mark_is_skipped() {
        let r = parse("\u{feff}{\"mission\": \"Do it\"}").unwrap();
        assert_eq!(r.run.mission.as_str(), "Do it");
        let err = parse("\u{feff}{\"mission\": 5}").unwrap_err();
        assert!(err.starts_with("invalid recording r.json:1:"), "{err}");
    }

    #[test]
    fn private_values_never_expand() {
        let err =
            parse(r#"{"mission": "Use {{_key}}", "data": {"_key": "token123"}}"#).unwrap_err();
        assert_eq!(
            err,
            "invalid recording r.json:1:2: at `mission`: placeholder {{_key}} names a private value: data/_key starts with `_`, and private values are never shown"
        );
        // A public value expands without its private entries.
        let r = parse(
            r#"{"mission": "Post {{post}}", "data": {"post": {":title": "Hi", ":_body": "x"}}}"#,
        )
        .unwrap();
        assert_eq!(r.run.mission.as_str(), "Post {:title \"Hi\"}");
    }

    #[test]
    fn tool_call_names_must_be_names() {
        let json = r#"{"mission": "x", "tools": [{"name": "api"}], "turns": [{"number": 1,
            "success": true, "tool_calls": [{"name": "api\n;; === tool/ ===", "args": null}]}]}"#;
        assert!(parse(json).unwrap_err().contains(
            r#"at `turns[0].tool_calls[0].name`: "api\n;; === tool/ ===" is not a valid name"#
        ));
    }
}
