//! What the search of the plugin directories found, directory by directory and file by file:
//! the record `ptc plugins list` shows, and that `ptc plugins remove` resolves names against.

use std::path::PathBuf;
use std::sync::Arc;

use super::PluginError;

/// A directory searched, in search order, with what it held.
#[derive(Debug)]
pub struct SearchedDirectory {
    pub path: PathBuf,
    pub state: DirectoryState,
    /// The plugin files in it (names ending in the platform's library suffix), sorted by name.
    pub files: Vec<FoundFile>,
}

/// Whether a directory could be searched.
#[derive(Debug)]
pub enum DirectoryState {
    Searched,
    /// It does not exist (which is fine).
    Missing,
    /// The same directory as an earlier one on the list (its files are listed there).
    Repeated,
    /// It could not be read, or another user could write it: the warning about it.
    Skipped(Arc<PluginError>),
}

/// A plugin file and what became of it.
#[derive(Debug)]
pub struct FoundFile {
    pub path: PathBuf,
    pub outcome: FileOutcome,
}

/// What became of a plugin file.
#[derive(Debug)]
pub enum FileOutcome {
    /// It provides this strategy, which commands use.
    Loaded { strategy: String, version: String },
    /// It provides a strategy that a file of an earlier directory provides too: that one is
    /// used.
    Hidden {
        strategy: String,
        version: String,
        by: PathBuf,
    },
    /// It did not load, or was refused, or repeats a strategy of its own directory: the
    /// warning about it.
    Skipped(Arc<PluginError>),
}

impl FoundFile {
    /// The strategy the file provides, when it loaded.
    pub fn strategy(&self) -> Option<&str> {
        match &self.outcome {
            FileOutcome::Loaded { strategy, .. } | FileOutcome::Hidden { strategy, .. } => {
                Some(strategy)
            }
            FileOutcome::Skipped(err) => match &**err {
                PluginError::Duplicate { name, .. } => Some(name),
                _ => None,
            },
        }
    }
}
