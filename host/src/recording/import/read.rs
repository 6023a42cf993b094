//! Reading an agent's log wherever a user points ptc at one: the log's format detected from
//! its first record (or given), its runs imported, and each named after the log and, when the
//! log holds several, which run it is. `ptc import` saves what this reads; `ptc ab`, `ptc
//! bill`, `ptc render`, `ptc diff` and `ptc trace` read logs through it directly.

use std::path::Path;

use clap::ValueEnum;

use crate::recording::import::{self as from, Format, Imported, Supplied};
use crate::recording::{ReadError, RecordingDefaults};

/// The runs of the log `file`, in its format (given, or detected from its first record), each
/// with its `name`. A missing file, a directory and a file of no format ptc reads are errors
/// that say so.
pub fn read_log(
    file: &Path,
    format: Option<Format>,
    defaults: &RecordingDefaults,
    supplied: &Supplied,
) -> Result<(Format, Vec<Imported>), ReadError> {
    let meta = std::fs::metadata(file).map_err(|source| ReadError::Input {
        path: file.to_owned(),
        source,
    })?;
    if meta.is_dir() {
        return Err(ReadError::NotALog {
            path: file.to_owned(),
            why: "is a directory: name the logs in it (a shell glob: DIR/*)".into(),
        });
    }
    let Some(format) = format.or_else(|| Format::detect(file)) else {
        if super::canonical_trace::is_canonical_trace(file) {
            return Err(ReadError::NotALog {
                path: file.to_owned(),
                why: super::canonical_trace::not_imported(file),
            });
        }
        return Err(ReadError::UnknownFormat {
            path: file.to_owned(),
            formats: formats(),
        });
    };
    let mut imported = match format {
        Format::PtcRunner => vec![from::ptc_runner(file, defaults, supplied)?],
        Format::PtcRunnerKernel => vec![from::ptc_runner_kernel(file, defaults, supplied)?],
        Format::MiniSweAgent => vec![from::mini_swe_agent(file, defaults, supplied)?],
        Format::Atif => vec![from::atif(file, defaults, supplied)?],
        Format::ClaudeCode => from::claude_code(file, defaults, supplied)?,
        Format::Openhands => from::openhands(file, defaults, supplied)?,
        Format::Codex => vec![from::codex(file, defaults, supplied)?],
        Format::GeminiCli => vec![from::gemini_cli(file, defaults, supplied)?],
    };
    let several = imported.len() > 1;
    for run in &mut imported {
        run.json["name"] = serde_json::json!(name(file, run.part.as_deref().filter(|_| several)));
        run.text = from::reads_back(file, &mut run.json, defaults)?;
    }
    Ok((format, imported))
}

/// The formats ptc reads, by their `--from` names.
pub fn formats() -> String {
    Format::value_variants()
        .iter()
        .map(|f| f.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// A run's name: the log's file name (the same on every machine, short enough for a table),
/// and which of its runs it is when it holds several.
fn name(file: &Path, part: Option<&str>) -> String {
    let log = file.file_name().map_or_else(
        || file.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    match part {
        Some(part) => format!("{log} ({part})"),
        None => log,
    }
}

/// What each of `files` is called in a run's name: its file name, or, where several of them
/// share it, the file name with as many of its parent folders as tell it from the others
/// (`loop/inspect/run.inspection.jsonl` beside `fast/inspect/run.inspection.jsonl`).
pub fn unique_names(
    files: &[std::path::PathBuf],
) -> std::collections::HashMap<std::path::PathBuf, String> {
    let parts = |file: &Path| -> Vec<String> {
        file.components()
            .rev()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect()
    };
    let tail = |parts: &[String], depth: usize| -> String {
        let mut taken: Vec<&str> = parts.iter().take(depth).map(String::as_str).collect();
        taken.reverse();
        taken.join("/").replace("//", "/")
    };
    let mut by_name: std::collections::HashMap<String, Vec<Vec<String>>> = Default::default();
    let mut unique: Vec<&std::path::PathBuf> = files.iter().collect();
    unique.sort();
    unique.dedup();
    for file in &unique {
        let parts = parts(file);
        by_name.entry(parts[0].clone()).or_default().push(parts);
    }
    let mut names = std::collections::HashMap::new();
    for file in unique {
        let own = parts(file);
        let others = &by_name[&own[0]];
        let depth = (1..=own.len())
            .find(|&depth| {
                let mine = tail(&own, depth);
                others
                    .iter()
                    .filter(|other| **other != own)
                    .all(|other| tail(other, depth) != mine)
            })
            .unwrap_or(own.len());
        names.insert(file.clone(), tail(&own, depth));
    }
    names
}

/// Names the runs `imported` from `file` after `shown` (a name [`unique_names`] gave it) in
/// place of its file name.
pub fn name_after(imported: &mut [Imported], file: &Path, shown: &str) {
    let log = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    for run in imported {
        let Some(rest) = run.json["name"].as_str().and_then(|n| n.strip_prefix(&log)) else {
            continue;
        };
        let renamed = format!("{shown}{rest}");
        if run.json["name"] != renamed.as_str() {
            run.json["name"] = serde_json::json!(renamed);
            run.text = run.json.to_string();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::unique_names;

    #[test]
    fn a_file_name_shared_is_qualified_with_the_folders_that_tell_it_apart() {
        let files: Vec<PathBuf> = [
            "runs/loop/inspect/run.inspection.jsonl",
            "runs/fast/inspect/run.inspection.jsonl",
            "other/run.inspection.jsonl",
            "runs/loop/session.jsonl",
        ]
        .iter()
        .map(PathBuf::from)
        .collect();
        let names = unique_names(&files);
        let name = |i: usize| names[&files[i]].as_str();
        assert_eq!(name(0), "loop/inspect/run.inspection.jsonl");
        assert_eq!(name(1), "fast/inspect/run.inspection.jsonl");
        assert_eq!(name(2), "other/run.inspection.jsonl");
        assert_eq!(name(3), "session.jsonl");
    }
}
