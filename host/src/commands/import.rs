//! `ptc import`: a recording made from another runtime's log, written to a file or returned
//! for stdout, with what the log lost summarized on stderr.

use std::path::Path;

use crate::host::Host;
use crate::output::{pretty, write_atomically};
use crate::Error;

/// `ptc import ptc-runner`: the root run of a ptc_runner JSONL trace. Returns the recording,
/// or nothing when it was written to `output`.
pub fn ptc_runner(host: &Host, trace: &Path, output: Option<&Path>) -> Result<String, Error> {
    let imported = crate::recording::import::ptc_runner(trace, &host.recording_defaults()?)?;
    eprintln!(
        "imported 1 run ({} turns) from {}: {}",
        imported.turns,
        trace.display(),
        imported.losses
    );
    let text = pretty(&imported.json);
    match output {
        Some(path) => {
            write_atomically(path, text.as_bytes())?;
            Ok(String::new())
        }
        None => Ok(text),
    }
}
