//! `ptc plugins install DIR`: a strategy crate built with cargo, and the plugin libraries it
//! made picked out of cargo's messages.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value as Json;

use super::PluginsError;

/// Builds the crate or workspace in `dir` with `cargo build --release`; returns the plugin
/// libraries it built from the crates inside `dir`. Cargo's progress and messages go to stderr.
pub(super) fn build(dir: &Path) -> Result<Vec<PathBuf>, PluginsError> {
    let root = dir.canonicalize().unwrap_or_else(|_| dir.to_owned());
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    eprintln!("building {} (cargo build --release)", dir.display());
    let mut child = Command::new(cargo)
        .args([
            "build",
            "--release",
            "--message-format=json-render-diagnostics",
            "--manifest-path",
        ])
        .arg(dir.join("Cargo.toml"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|source| PluginsError::Cargo {
            path: dir.to_owned(),
            source,
        })?;
    let mut built = Vec::new();
    if let Some(stdout) = child.stdout.take() {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if let Ok(message) = serde_json::from_str::<Json>(&line) {
                built.extend(plugin_artifacts(&message, &root));
            }
        }
    }
    let status = child.wait().map_err(|source| PluginsError::Cargo {
        path: dir.to_owned(),
        source,
    })?;
    if !status.success() {
        return Err(PluginsError::Build {
            path: dir.to_owned(),
            status: status.to_string(),
        });
    }
    if built.is_empty() {
        return Err(PluginsError::NothingBuilt {
            path: dir.to_owned(),
        });
    }
    built.sort();
    built.dedup();
    Ok(built)
}

/// The dynamic libraries of a cargo `compiler-artifact` message about a `cdylib` crate whose
/// manifest is inside `root`.
fn plugin_artifacts(message: &Json, root: &Path) -> Vec<PathBuf> {
    let is_cdylib = message["target"]["kind"]
        .as_array()
        .is_some_and(|kinds| kinds.iter().any(|k| k == "cdylib"));
    let inside = message["manifest_path"].as_str().is_some_and(|manifest| {
        let manifest = Path::new(manifest);
        manifest
            .canonicalize()
            .unwrap_or_else(|_| manifest.to_owned())
            .starts_with(root)
    });
    if message["reason"] != "compiler-artifact" || !is_cdylib || !inside {
        return Vec::new();
    }
    message["filenames"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Json::as_str)
        .filter(|f| f.ends_with(std::env::consts::DLL_SUFFIX))
        .map(PathBuf::from)
        .collect()
}
