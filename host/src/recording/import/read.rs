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
