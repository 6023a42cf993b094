//! Why a log cannot be imported ([`ImportError`]), and the error that names the log and the
//! place in it ([`bad`]).

use std::path::Path;

use serde_json::Value as Json;

use super::atif::ATIF_VERSIONS;
use super::mini_swe_agent::TRAJECTORY_FORMATS;
use super::ptc_runner::VERSIONS;
use super::ptc_runner_kernel::KERNEL_VERSIONS;
use super::CountError;
use crate::recording::ReadError;

/// Why a trace log cannot be imported.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// A line that is not JSON.
    #[error("column {}: {}", .0.column(), json_cause(.0))]
    Json(#[source] serde_json::Error),
    #[error("the line is longer than the limit of {}; raise it with --max-recording-bytes", crate::recording::show_bytes(*.0))]
    TooLarge(u64),
    #[error("no root `run.start` event (one without a parent_span_id)")]
    NoRootRun,
    #[error("the root run has no mission (looked for {looked_for}); give it with --mission TEXT")]
    NoMission { looked_for: String },
    #[error("the root run records {turns} turns but has no max_turns (looked for {looked_for}), and the configured default is {default}; give it with --max-turns N")]
    NoMaxTurns {
        turns: usize,
        default: u32,
        looked_for: String,
    },
    #[error("{place} is {found}, not a list of turns")]
    TurnsNotAList { place: String, found: &'static str },
    #[error("the run it holds breaks a rule of recordings: in the recording made, {rule}")]
    BreaksARule { rule: String },
    #[error(
        "`schema_version` {found} is a trace format this ptc does not read (it reads {VERSIONS})"
    )]
    Version { found: Json },
    #[error("no call to the model (no `capability-input` record named `llm-request`)")]
    NoModelCall,
    #[error("`schema_version` {found} is an inspection schema this ptc does not read (it reads {KERNEL_VERSIONS})")]
    KernelVersion { found: Json },
    #[error("not an inspection record (no `record_type`)")]
    NotARecord,
    #[error("a ptc_runner `kernel_eval` trace (`trace_kind` \"kernel_eval\"): it keeps hashes of the programs and values and the token counts of each turn, not the programs, the messages sent or the bill, so it makes no recording; import the run's inspection artifact (`*.inspection.jsonl`, --from ptc-runner-kernel)")]
    KernelEvalTrace,
    #[error(
        "`trajectory_format` {found} is not one this ptc reads (it reads {TRAJECTORY_FORMATS})"
    )]
    TrajectoryFormat { found: Json },
    #[error("no `messages` list")]
    NoMessages,
    #[error("`schema_version` {found} is not an ATIF version this ptc reads ({ATIF_VERSIONS})")]
    AtifVersion { found: Json },
    #[error("no `steps` list")]
    NoSteps,
    #[error("no `agent` step: nothing the model did")]
    NoAgentStep,
    #[error("not a line of a Claude Code session: its `type` is {found}, not a string")]
    NotASessionLine { found: Json },
    #[error("no response of the model (looked for {looked_for})")]
    NoResponse { looked_for: &'static str },
    #[error("`cache_creation` splits {split} cache-write tokens by TTL, but `cache_creation_input_tokens` is {written}")]
    CacheSplit { split: u64, written: u64 },
    #[error("{found} is not an OpenHands run: neither a list of events nor an object with a `history` list")]
    NotARun { found: &'static str },
    #[error("event {index} of the run is {found}, not an event object")]
    NotAnEvent { index: usize, found: &'static str },
    #[error("not a line of a Codex rollout: its `type` is {found}, not a string")]
    NotARolloutLine { found: Json },
    #[error("`{field}` is {found}, not a count of tokens (a whole number from 0)")]
    TokenCount { field: String, found: Json },
    #[error("the cached tokens ({cached}, `cached_input_tokens` and `cache_write_input_tokens`) are more than `input_tokens` ({input}), which counts them")]
    CachedMoreThanInput { cached: u64, input: u64 },
    #[error("`{at}.cached` ({cached}) is more than `{at}.input` ({input}), which counts the cached tokens")]
    CachedMoreThanPrompt { at: String, cached: u64, input: u64 },
    #[error(transparent)]
    Count(#[from] CountError),
    #[error("`run_id` {found} differs from the {first} of line {first_line}: an artifact holds one run; split the file by `run_id` and import each part")]
    MixedRuns {
        found: Json,
        first: Json,
        first_line: usize,
    },
    #[error("this {kind} has the `capability_id` {id} of line {first_line} too: each call has an id of its own, so neither can be told to which it belongs")]
    RepeatedId {
        kind: String,
        id: String,
        first_line: usize,
    },
    #[error("`schema_version` {found} differs from the {first} of line {first_line}: one trace has one format")]
    MixedVersions {
        found: Json,
        first: Json,
        first_line: usize,
    },
}

/// serde_json's message without the ` at line L column C` it ends with: the line is the trace
/// log's, given with its path, and the column is given first.
fn json_cause(err: &serde_json::Error) -> String {
    let text = err.to_string();
    let place = format!(" at line {} column {}", err.line(), err.column());
    text.strip_suffix(&place).unwrap_or(&text).to_owned()
}

pub(super) fn bad(path: &Path, line: Option<usize>, source: ImportError) -> ReadError {
    ReadError::Import {
        path: path.to_owned(),
        line,
        source: Box::new(source),
    }
}
