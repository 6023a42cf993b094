//! Why `ptc plugins install` or `remove` refused: the errors of managing the user plugin
//! directory, beside the loader's own.

use std::path::PathBuf;

use crate::plugins::{LoadError, PluginError};

/// Why `ptc plugins install` or `remove` refused.
#[derive(Debug, thiserror::Error)]
pub enum PluginsError {
    #[error("there is no user plugin directory: neither XDG_DATA_HOME nor HOME names an absolute directory")]
    NoUserDirectory,
    #[error("cannot install {path}: it does not exist")]
    Missing { path: PathBuf },
    #[error("cannot install {path}: {reason}")]
    NotAPlugin { path: PathBuf, reason: String },
    #[error("cannot install {path}: {source}")]
    Load {
        path: PathBuf,
        #[source]
        source: LoadError,
    },
    /// Refused for a reason other than the loader's (a directory that cannot be read).
    #[error("cannot install {path}: {source}")]
    Refused {
        path: PathBuf,
        #[source]
        source: PluginError,
    },
    #[error("not building {path}: building runs the crate's build scripts and procedural macros as you; pass --yes to agree (or answer the question on a terminal)")]
    NotAgreed { path: PathBuf },
    #[error("cannot install {path}: cannot run `cargo build --release` in it: {source}")]
    Cargo {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "cannot install {path}: `cargo build --release` failed ({status}; its messages are above)"
    )]
    Build { path: PathBuf, status: String },
    #[error("cannot install {path}: it builds no strategy plugin (no crate in it has crate-type \"cdylib\")")]
    NothingBuilt { path: PathBuf },
    #[error("cannot install {first} and {second} together: both provide strategy `{strategy}`")]
    SameStrategy {
        first: PathBuf,
        second: PathBuf,
        strategy: String,
    },
    #[error("cannot install {first} and {second} together: both are named {name}")]
    SameFileName {
        first: PathBuf,
        second: PathBuf,
        name: String,
    },
    #[error("cannot remove `{name}`: {reason}")]
    Remove { name: String, reason: String },
    /// Several of the above, reported together (nothing was changed).
    #[error("{}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    Several(Vec<PluginsError>),
}

impl PluginsError {
    /// One error for `errors`: the error itself when there is one, else all of them.
    pub fn all(mut errors: Vec<PluginsError>) -> Option<PluginsError> {
        match errors.len() {
            0 => None,
            1 => errors.pop(),
            _ => Some(PluginsError::Several(errors)),
        }
    }
}
