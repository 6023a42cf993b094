//! ptc_runner's canonical trace (`*.trace.jsonl`): the public event stream a run writes beside
//! its inspection artifact (`*.inspection.jsonl`), events with ids, names and durations and
//! no prompt, program, response or bill. It holds no run ptc reads: the run is in the
//! artifact. A corpus passes it over with a note; named alone, it is an error that says where
//! the run is.

use std::path::{Path, PathBuf};

/// What a canonical trace holds, as the notes and errors about one say it.
const HOLDS: &str = "(the public events of a run, without its prompts, programs or bill)";

/// Whether `path` is a canonical trace: a JSONL file whose first record has the trace's
/// envelope (`schema_version`, `trace_id`, `run_id`, `sequence`, `type`, `data`).
pub fn is_canonical_trace(path: &Path) -> bool {
    super::first_line_object(path).is_some_and(|first| {
        first["schema_version"].is_u64()
            && first["trace_id"].is_string()
            && first["run_id"].is_string()
            && first["sequence"].is_u64()
            && first["type"].is_string()
            && first["data"].is_object()
    })
}

/// The one note that says which files of a corpus were passed over (canonical traces) and
/// where their runs are.
pub fn passed_over_note(files: &[PathBuf]) -> Option<String> {
    let name = |f: &PathBuf| {
        f.file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned()
    };
    let beside = files
        .iter()
        .filter(|f| artifact_beside(f).is_some())
        .count();
    let names: Vec<String> = files.iter().map(name).collect();
    let (first, rest) = names.split_first()?;
    let listed = match rest.len() {
        0 => first.clone(),
        n => format!("{first} and {n} more"),
    };
    let holds = match beside {
        0 => "its run is in the inspection artifact the run writes with --inspect (`*.inspection.jsonl`), not among these files".to_owned(),
        n if n == files.len() => "each run is in the inspection artifact of the same name beside it (`*.inspection.jsonl`), read in its place".to_owned(),
        n => format!("{n} of their runs are in the inspection artifact of the same name beside them (`*.inspection.jsonl`), read in their place; the others' are not among these files"),
    };
    let what = match rest.len() {
        0 => "a ptc_runner canonical trace",
        _ => "ptc_runner canonical traces",
    };
    Some(format!("{listed} passed over: {what} {HOLDS}; {holds}"))
}

/// Why `path`, a canonical trace, cannot be imported, naming the file to import in its place:
/// the inspection artifact of the same name beside it, when there is one.
pub fn not_imported(path: &Path) -> String {
    match artifact_beside(path) {
        Some(artifact) => format!(
            "is a ptc_runner canonical trace {HOLDS}: its run is in the inspection artifact beside it; import {} instead",
            artifact.display()
        ),
        None => format!(
            "is a ptc_runner canonical trace {HOLDS}: its run is in the inspection artifact the run writes with --inspect (`*.inspection.jsonl`); import that"
        ),
    }
}

/// The inspection artifact of the same name beside the trace `path`, when there is one.
fn artifact_beside(path: &Path) -> Option<PathBuf> {
    let name = path.file_name()?.to_string_lossy();
    let stem = name.strip_suffix(".trace.jsonl").unwrap_or(&name);
    let artifact = path.with_file_name(format!("{stem}.inspection.jsonl"));
    artifact.is_file().then_some(artifact)
}
