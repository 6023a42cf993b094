//! Why a configuration cannot be used.

use std::path::PathBuf;

/// A configuration that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read configuration {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("invalid configuration {origin}:{line}:{column}: {message}")]
    Syntax {
        origin: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("unknown key `{key}` in {origin}{hint}")]
    UnknownKey {
        key: String,
        origin: String,
        hint: String,
    },
    #[error("bad value for `{key}` in {origin}: expected {expected}, found {found}")]
    BadValue {
        key: String,
        origin: String,
        expected: String,
        found: String,
    },
    #[error("bad value for `{key}` in {origin}: {message}")]
    Invalid {
        key: String,
        origin: String,
        message: String,
    },
    #[error("bad flag `--set {arg}`: {reason}")]
    BadSet { arg: String, reason: String },
    /// A configuration file another user could have written: it chooses the plugin directories,
    /// so it is refused as a plugin would be.
    #[error("refusing configuration {path}: {reason} (or pass --allow-insecure-plugins)")]
    Insecure { path: PathBuf, reason: String },
}
