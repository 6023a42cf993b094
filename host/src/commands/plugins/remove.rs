//! `ptc plugins remove NAME...`: plugins deleted from the user plugin directory, named by the
//! strategy they provide or by file name. Every name is resolved before anything is deleted; a
//! name that matches nothing there is an error saying where that strategy comes from instead,
//! or which installed name is close to it.

use std::path::{Path, PathBuf};

use super::{cause, user_plugin_directory, PluginsError};
use crate::config::Config;
use crate::plugins::{DirectoryState, FileOutcome, FoundFile, PluginSet};
use crate::suggest::did_you_mean;
use crate::Error;

/// Removes what `names` name from the user plugin directory; returns one line per file removed.
pub fn remove(config: &Config, names: &[String]) -> Result<String, Error> {
    let dir = user_plugin_directory()?;
    let found = PluginSet::discover(std::slice::from_ref(&dir), config.allow_insecure_plugins());
    let files: Vec<&FoundFile> = found.directories.iter().flat_map(|d| &d.files).collect();
    let mut errors = Vec::new();
    let mut chosen: Vec<(&str, &FoundFile)> = Vec::new();
    for name in names {
        let matching: Vec<&FoundFile> = files
            .iter()
            .copied()
            .filter(|f| provides(f, name) || file_name(f) == *name)
            .collect();
        if matching.is_empty() {
            let reason = match found.directories.first().map(|d| &d.state) {
                Some(DirectoryState::Skipped(err)) => {
                    format!("the user plugin directory is not searched: {}", cause(err))
                }
                _ => not_installed(config, &dir, &files, name),
            };
            errors.push(PluginsError::Remove {
                name: name.clone(),
                reason,
            });
        }
        for file in matching {
            if !chosen.iter().any(|(_, f)| f.path == file.path) {
                chosen.push((name, file));
            }
        }
    }
    if let Some(err) = PluginsError::all(errors) {
        return Err(err.into());
    }
    let mut text = String::new();
    for (name, file) in chosen {
        std::fs::remove_file(&file.path).map_err(|source| Error::WriteFile {
            path: file.path.clone(),
            source,
        })?;
        let what = file.strategy().unwrap_or(name);
        text.push_str(&format!("removed {what}: {}\n", file.path.display()));
    }
    Ok(text)
}

/// Whether `file` provides strategy `name`: it loaded and says so, or it did not load and its
/// file name says so (`libNAME.so`, `libptc_strategy_NAME.so`).
fn provides(file: &FoundFile, name: &str) -> bool {
    match &file.outcome {
        FileOutcome::Skipped(err) if file.strategy().is_none() => err.may_hold(name),
        _ => file.strategy() == Some(name),
    }
}

fn file_name(file: &FoundFile) -> String {
    file.path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Why nothing named `name` is removed: where the strategy comes from when another directory
/// provides it, else what is installed and the closest name.
fn not_installed(config: &Config, dir: &Path, installed: &[&FoundFile], name: &str) -> String {
    let elsewhere: Vec<PathBuf> = config
        .plugin_directory_list()
        .into_iter()
        .map(|d| d.path)
        .filter(|path| path != dir)
        .collect();
    let others = PluginSet::discover(&elsewhere, config.allow_insecure_plugins());
    if let Some(file) = others
        .directories
        .iter()
        .flat_map(|d| &d.files)
        .find(|f| f.strategy() == Some(name) || file_name(f) == name)
    {
        return format!(
            "it is not in the user plugin directory {}: it comes from {}, which `ptc plugins remove` leaves alone (delete that file yourself)",
            dir.display(),
            file.path.display()
        );
    }
    let mut known: Vec<String> = Vec::new();
    for file in installed {
        known.extend(file.strategy().map(str::to_owned));
        known.push(file_name(file));
    }
    if known.is_empty() {
        return format!(
            "nothing is installed in the user plugin directory {}",
            dir.display()
        );
    }
    let suggestion = did_you_mean(name, known.iter().map(String::as_str));
    format!(
        "no strategy or file of that name in the user plugin directory {} (installed: {}){suggestion}",
        dir.display(),
        known.join(", ")
    )
}
