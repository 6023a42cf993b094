//! Why recordings could not be read: a file that cannot be opened, a path that holds no
//! recording or several, a recording that breaks the format, a trace that cannot be imported.

use std::path::PathBuf;

use crate::recording::import::ImportError;
use crate::recording::RecordingError;

/// Why reading recordings (files, directories, JSONL lines, traces to import) failed.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error(transparent)]
    Recording(#[from] RecordingError),
    #[error("cannot read {path}: {source}")]
    Input {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot import {path}{}: {source}", .line.map(|l| format!(":{l}")).unwrap_or_default())]
    Import {
        path: PathBuf,
        /// The line of the trace log, when the error is about one.
        line: Option<usize>,
        /// Boxed: the error of every command carries a `ReadError`, kept small.
        #[source]
        source: Box<ImportError>,
    },
    #[error("cannot import {path}: it {why}")]
    NotALog { path: PathBuf, why: String },
    #[error("cannot tell the format of {path}: it is none of those ptc imports ({formats}; --from forces one)")]
    UnknownFormat { path: PathBuf, formats: String },
    /// A run of an agent's log found in a corpus that could not be imported (the first error,
    /// as its import gave it).
    #[error("{0}")]
    Log(String),
    #[error("no recording in {what}")]
    NoRecording { what: String },
    #[error("{path} holds {count} recordings; name one, e.g. {path}:LINE for a JSONL file")]
    TooManyRecordings { path: PathBuf, count: usize },
}
