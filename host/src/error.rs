//! The errors a command can end with, one variant per phase, and their exit codes.

use std::path::PathBuf;

use crate::config::ConfigError;
use crate::recording::RecordingError;
use crate::render::templates::TemplateError;

/// Why a command failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Recording(#[from] RecordingError),
    #[error(transparent)]
    Template(#[from] TemplateError),
    #[error("unknown strategy `{name}`: the loaded strategies are {loaded} (searched {dirs}; `ptc strategies` lists them){skipped}")]
    UnknownStrategy {
        name: String,
        loaded: String,
        dirs: String,
        /// `; N plugin file(s) were not loaded (see the warnings)` when some were not.
        skipped: String,
    },
    #[error("strategy `{name}` is not loaded: {reason}")]
    StrategyNotLoaded { name: String, reason: String },
    #[error("strategy `{strategy}` ({file}) failed: {source}")]
    StrategyTemplate {
        strategy: String,
        file: PathBuf,
        #[source]
        source: Box<TemplateError>,
    },
    #[error("no strategy asked for could be compared: {failures}")]
    AbAllFailed { failures: String },
    #[error("--turns {asked} is more than the {recorded} turn(s) recorded in {path}")]
    TurnsOutOfRange {
        path: PathBuf,
        asked: usize,
        recorded: usize,
    },
    #[error("strategy `{strategy}` ({file}) failed: {source}")]
    Strategy {
        strategy: String,
        file: PathBuf,
        #[source]
        source: ptc_plugin_api::RenderError,
    },
    #[error("bad strategy variant `{spec}`: {reason} (write name@option=value)")]
    BadVariant { spec: String, reason: String },
    #[error("unknown {what} `{name}` (known: {known})")]
    UnknownName {
        what: &'static str,
        name: String,
        known: String,
    },
    #[error("cannot read {path}: {source}")]
    Input {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot write {path}: {source}")]
    WriteFile {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot import {path}{place}: {message}")]
    Import {
        path: PathBuf,
        place: String,
        message: String,
    },
    #[error("{path} exists (--force overwrites it)")]
    Exists { path: PathBuf },
    #[error("{0}")]
    Usage(String),
    #[error("no recording in {what}")]
    NoRecording { what: String },
    #[error("{path} holds {count} recordings; name one, e.g. {path}:LINE for a JSONL file")]
    TooManyRecordings { path: PathBuf, count: usize },
    #[error("{errors} error(s) in {recordings} recording(s)")]
    Invalid { errors: usize, recordings: usize },
    #[error("cannot write output: {0}")]
    Output(#[source] std::io::Error),
}

impl Error {
    /// 2 for bad input, bad configuration or an unusable strategy; 1 when the output cannot
    /// be written.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Output(_) | Error::WriteFile { .. } => 1,
            _ => 2,
        }
    }
}
