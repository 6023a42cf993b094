//! `ptc import`: a recording made from another runtime's log, written to a file or returned
//! for stdout, with what the log lost summarized on stderr.

use std::path::Path;

use crate::host::Host;
use crate::output::{pretty, write_atomically};
use crate::recording::import::Supplied;
use crate::Error;

/// `ptc import ptc-runner`: the root run of a ptc_runner JSONL trace (v1 or v2), with what
/// `supplied` gives in place of the trace's own. Returns the recording, or nothing when it was
/// written to `output`. An `output` that is the trace itself is refused, and one that is an
/// existing file unless `force`: both are checked before anything is read.
pub fn ptc_runner(
    host: &Host,
    trace: &Path,
    output: Option<&Path>,
    force: bool,
    supplied: &Supplied,
) -> Result<String, Error> {
    if let Some(path) = output {
        check_output(trace, path, force)?;
    }
    let defaults = host.recording_defaults()?;
    let imported = crate::recording::import::ptc_runner(trace, &defaults, supplied)?;
    if !crate::output::quiet() {
        eprintln!(
            "imported 1 run ({} turns) from {} (trace format v{}): {}",
            imported.turns,
            trace.display(),
            imported.version,
            imported.losses
        );
    }
    if imported.default_max_turns && !crate::output::quiet() {
        eprintln!(
            "note: the trace gives no max_turns for the run: the recording takes the configured default ({}); --max-turns N sets one",
            defaults.max_turns
        );
    }
    let text = pretty(&imported.json);
    match output {
        Some(path) => {
            write_atomically(path, text.as_bytes())?;
            Ok(String::new())
        }
        None => Ok(text),
    }
}

/// Refuses an output that would destroy a file: the trace being imported (whatever the path
/// that names it), or an existing file unless `force`. A pipe or a device is written as given.
fn check_output(trace: &Path, output: &Path, force: bool) -> Result<(), Error> {
    let Ok(existing) = std::fs::metadata(output) else {
        return Ok(());
    };
    if same_file(trace, output) {
        return Err(Error::Usage(format!(
            "--output {} is the trace being imported; write the recording to another file",
            output.display()
        )));
    }
    if existing.is_file() && !force {
        return Err(Error::Exists {
            path: output.to_owned(),
        });
    }
    Ok(())
}

/// Whether `a` and `b` name the same file (through links, `..` or another hard link).
fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let (Ok(a), Ok(b)) = (std::fs::metadata(a), std::fs::metadata(b)) {
            return a.dev() == b.dev() && a.ino() == b.ino();
        }
    }
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}
