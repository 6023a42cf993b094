//! The errors a command can end with and their exit codes. The variants are grouped by the
//! phase that raises them: the command line and configuration, choosing a strategy, reading
//! recordings, rendering, comparing strategies, writing results. The layers below this one
//! (recordings, configuration, plugins, rendering) return errors of their own, which this one
//! wraps; the host, `ptc ab`, `serve` and the commands return this one. Each carries the context a
//! user needs; a variant with a cause keeps it as its source and its message includes the
//! cause's, so that the one `error:` line `main` prints says it all.

use std::path::PathBuf;
use std::sync::Arc;

use crate::config::ConfigError;
use crate::plugins::{PluginError, PluginsError};
use crate::recording::{ReadError, RecordingError};
use crate::render::templates::TemplateError;
use crate::render::RenderError;

/// Why a command failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    // The command line and the configuration.
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("{0}")]
    Usage(String),
    #[error(transparent)]
    Plugins(#[from] PluginsError),
    #[error("bad strategy variant `{spec}`: {reason} (write name@option=value)")]
    BadVariant { spec: String, reason: String },
    #[error("unknown {what} `{name}` (known: {known}){suggestion}")]
    UnknownName {
        what: &'static str,
        name: String,
        known: String,
        /// `; did you mean `...`?` when a known name is close, else empty.
        suggestion: String,
    },
    /// An option of a strategy variant (`name@option=value`) that the strategy does not have.
    #[error("unknown option `{option}` in `{spec}`: strategy `{strategy}` has the options {known}{suggestion}")]
    UnknownOption {
        spec: String,
        option: String,
        strategy: String,
        known: String,
        suggestion: String,
    },

    // Choosing a strategy among the loaded plugins.
    #[error("unknown strategy `{name}`: the loaded strategies are {loaded} (searched {dirs}; `ptc strategies` lists them){skipped}{suggestion}")]
    UnknownStrategy {
        name: String,
        /// `; did you mean `...`?` when a loaded strategy's name is close, else empty.
        suggestion: String,
        loaded: String,
        dirs: String,
        /// `; N plugin file(s) were not loaded (see the warnings)` when some were not.
        skipped: String,
    },
    /// The strategy's plugin file did not load; the source is the warning about that file.
    #[error("strategy `{name}` is not loaded: {source}")]
    StrategyNotLoaded {
        name: String,
        #[source]
        source: Arc<PluginError>,
    },

    // Reading recordings.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// A file that is not a recording (a part, a plugin's source) cannot be read.
    #[error("cannot read {path}: {source}")]
    Input {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{errors} error(s) in {recordings} recording(s)")]
    Invalid { errors: usize, recordings: usize },
    // Rendering a prompt: the strategy, then the templates.
    #[error(transparent)]
    Render(#[from] RenderError),

    // Comparing strategies (`ptc ab`).
    #[error("none of the {count} recording(s) could be read (see the warnings above)")]
    NoGoodRecording { count: usize },
    /// The results were written; these recordings are left out of them.
    #[error("{bad} of {count} recordings could not be read and are left out of the results (first: {first}; the warnings name each, --strict stops at the first)")]
    SomeRecordingsBad {
        bad: usize,
        count: usize,
        first: String,
    },
    #[error("no strategy asked for could be compared: {failures}")]
    AbAllFailed { failures: String },

    // Comparing the simulation with the bill (`ptc bill`).
    #[error(
        "{path}: no pricing profile prices what `{provider}` billed for {model}; give one with \
         --pricing, or add a [pricing.<name>] profile with provider = \"{provider}\""
    )]
    NoBillProfile {
        path: String,
        provider: String,
        model: String,
    },
    #[error(
        "{path}: its usage names no provider, and no profile lists its model, so no profile can be chosen; give one with --pricing"
    )]
    NoBillProvider { path: String },
    #[error("{}: with the recordings before it, the billed tokens add up to more than 18446744073709551615, which no bill can", .path.display())]
    BillTooLarge { path: PathBuf },
    #[error(
        "{path}: its calls are billed under several pricing profiles ({profiles}), and one run is priced by one; split the run, or price every call with one profile (--pricing)"
    )]
    MixedBillProfiles {
        path: String,
        /// Each profile with the calls it prices: `deepseek (3 calls), openrouter (2 calls)`.
        profiles: String,
    },
    #[error("no recording holds both the requests it sent and the usage they were billed{why}")]
    NothingBilled {
        /// What the recordings hold instead, and what to do.
        why: String,
    },

    // Merging the parts of a split run (`ptc ab merge`).
    #[error(
        "{path} is not a part of `ptc ab` (write parts with `ptc ab --shard K/N --format partial`)"
    )]
    NotPartial { path: PathBuf },
    #[error("{path} is a part of layout {found}; this ptc reads {expected} (merge parts with the ptc that wrote them)")]
    PartialLayout {
        path: PathBuf,
        found: String,
        expected: &'static str,
    },
    #[error("{path} was written by ptc {found}; this is ptc {expected} (merge parts with the ptc that wrote them)")]
    PartialVersion {
        path: PathBuf,
        found: String,
        expected: &'static str,
    },
    #[error("cannot read part {path} at {place}: {source}")]
    Partial {
        path: PathBuf,
        /// Where in the JSON: `summaries[1].tokens`, `the top level`, `the end`.
        place: String,
        #[source]
        source: serde_json::Error,
    },
    #[error("part {path} does not hold together: {reason}")]
    PartialInconsistent { path: PathBuf, reason: String },
    #[error("cannot merge: {reason}")]
    MergeRefused { reason: String },

    // Writing results.
    #[error("{path} exists (--force overwrites it)")]
    Exists { path: PathBuf },
    #[error("{path} exists and is not empty; choose another directory (--path DIR) or empty it")]
    NotEmpty { path: PathBuf },
    #[error("cannot write {path}: {source}")]
    WriteFile {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot write output: {0}")]
    Output(#[source] std::io::Error),
}

impl From<RecordingError> for Error {
    fn from(err: RecordingError) -> Error {
        Error::Read(ReadError::Recording(err))
    }
}

impl From<TemplateError> for Error {
    fn from(err: TemplateError) -> Error {
        Error::Render(RenderError::Template(err))
    }
}

impl Error {
    /// An unknown name among `known`, with a suggestion when one of them is close.
    pub fn unknown_name(what: &'static str, name: &str, known: &[&str]) -> Error {
        Error::UnknownName {
            what,
            name: name.to_owned(),
            known: known.join(", "),
            suggestion: crate::suggest::did_you_mean(name, known.iter().copied()),
        }
    }

    /// 2 for bad input, bad configuration or an unusable strategy; 1 when the output cannot
    /// be written, or when `ptc ab` wrote its results without the recordings it could not read.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Output(_) | Error::WriteFile { .. } | Error::SomeRecordingsBad { .. } => 1,
            _ => 2,
        }
    }
}
