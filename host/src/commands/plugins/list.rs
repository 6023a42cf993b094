//! `ptc plugins list`: every plugin directory searched, in order, why it is searched, and each
//! plugin file in it with the strategy it provides, or why it was not loaded, or which file of
//! an earlier directory hides it.

use serde_json::{json, Value as Json};

use super::cause;
use crate::config::Config;
use crate::output::{escape_controls, pretty, Format};
use crate::plugins::directories::DirectoryKind;
use crate::plugins::{DirectoryState, FileOutcome, FoundFile, PluginSet};

/// The listing in `format`.
pub fn list(config: &Config, format: Format) -> String {
    let directories = config.plugin_directory_list();
    let paths: Vec<_> = directories.iter().map(|d| d.path.clone()).collect();
    let set = PluginSet::discover(&paths, config.allow_insecure_plugins());
    let searched = directories.iter().zip(&set.directories);
    match format {
        Format::Json => {
            let list: Vec<Json> = searched
                .map(|(dir, found)| {
                    let (state, error) = match &found.state {
                        DirectoryState::Searched => ("searched", None),
                        DirectoryState::Missing => ("missing", None),
                        DirectoryState::Repeated => ("repeated", None),
                        DirectoryState::Skipped(err) => ("skipped", Some(cause(err))),
                    };
                    json!({
                        "directory": dir.path.display().to_string(),
                        "kind": dir.kind.id(),
                        "why": dir.kind.to_string(),
                        "state": state,
                        "error": error,
                        "files": found.files.iter().map(file_json).collect::<Vec<_>>(),
                    })
                })
                .collect();
            pretty(&list)
        }
        Format::Text => {
            let mut text = String::new();
            for (dir, found) in searched {
                let user = dir.kind == DirectoryKind::User;
                text.push_str(&format!("{} ({})\n", dir.path.display(), dir.kind));
                let note = match &found.state {
                    DirectoryState::Missing if user => {
                        Some("does not exist (`ptc plugins install` creates it)".to_owned())
                    }
                    DirectoryState::Missing => Some("does not exist".to_owned()),
                    DirectoryState::Repeated => {
                        Some("the same directory as one above: searched once".to_owned())
                    }
                    DirectoryState::Skipped(err) => Some(cause(err)),
                    DirectoryState::Searched if found.files.is_empty() => {
                        Some("no plugin file".to_owned())
                    }
                    DirectoryState::Searched => None,
                };
                if let Some(note) = note {
                    text.push_str(&format!("  {note}\n"));
                }
                let width = found
                    .files
                    .iter()
                    .map(|f| file_name(f).len())
                    .max()
                    .unwrap_or(0);
                for file in &found.files {
                    let what = match &file.outcome {
                        FileOutcome::Loaded { strategy, version } => {
                            format!("{strategy} {version}")
                        }
                        FileOutcome::Hidden {
                            strategy,
                            version,
                            by,
                        } => format!(
                            "{strategy} {version}, hidden by {} (searched first)",
                            by.display()
                        ),
                        FileOutcome::Skipped(err) => format!("not loaded: {}", cause(err)),
                    };
                    text.push_str(&format!("  {:width$}  {what}\n", file_name(file)));
                }
            }
            // A file name is shown as it is, but never moves the cursor of a terminal.
            escape_controls(&text).into_owned()
        }
    }
}

fn file_name(file: &FoundFile) -> String {
    file.path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn file_json(file: &FoundFile) -> Json {
    let (status, version, hidden_by, error) = match &file.outcome {
        FileOutcome::Loaded { version, .. } => ("loaded", Some(version.clone()), None, None),
        FileOutcome::Hidden { version, by, .. } => (
            "hidden",
            Some(version.clone()),
            Some(by.display().to_string()),
            None,
        ),
        FileOutcome::Skipped(err) => ("skipped", None, None, Some(cause(err))),
    };
    json!({
        "file": file.path.display().to_string(),
        "strategy": file.strategy(),
        "version": version,
        "status": status,
        "hidden_by": hidden_by,
        "error": error,
    })
}
