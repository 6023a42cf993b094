//! `ptc import`: a recording made from another runtime's log, written to a file or returned
//! for stdout, with what the log lost summarized on stderr.

use std::path::Path;

use crate::commands::args::{ConfigArgs, RecordingArgs};
use crate::commands::Context;
use crate::host::Host;
use crate::output::write_out;
use crate::output::{pretty, write_atomically};
use crate::recording::import::Supplied;
use crate::Error;
use std::io::Write;
use std::path::PathBuf;

/// Make a recording from another runtime's log
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    from: From,
}

/// Where `ptc import` reads from.
#[derive(Debug, clap::Subcommand)]
enum From {
    /// A ptc_runner JSONL trace log: the root run becomes a recording; what the trace lost is
    /// summarized on stderr
    ///
    /// Reads both trace formats: v1 (events without `schema_version`, the agent in
    /// `metadata.agent`) and v2 (`schema_version: 2`, the agent in an `agent.config` event).
    /// A trace without the run's mission, or without its max_turns when it has more turns than
    /// the configured default, is an error naming the field; --mission and --max-turns give them.
    PtcRunner {
        /// The trace log (JSONL)
        trace: PathBuf,
        /// The run's mission, when the trace has none (replaces the trace's own)
        #[arg(long, value_name = "TEXT")]
        mission: Option<String>,
        /// The run's max_turns, when the trace has none (replaces the trace's own)
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
        max_turns: Option<u32>,
        /// Write the recording here instead of stdout; never the trace itself, and an
        /// existing file only with --force
        #[arg(short, long, value_name = "OUT")]
        output: Option<PathBuf>,
        /// Overwrite the --output file when it exists
        #[arg(long)]
        force: bool,
        #[command(flatten)]
        config: ConfigArgs,
        #[command(flatten)]
        limits: RecordingArgs,
    },
}

/// `ptc import FORMAT`.
pub fn exec(args: Args, context: &Context, out: &mut dyn Write) -> Result<(), Error> {
    let From::PtcRunner {
        trace,
        mission,
        max_turns,
        output,
        force,
        config,
        limits,
    } = args.from;
    let host = context.reading(&config, &limits)?;
    let supplied = Supplied { mission, max_turns };
    write_out(
        out,
        &ptc_runner(&host, &trace, output.as_deref(), force, &supplied)?,
    )
}

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
    if crate::output::same_file(trace, output) {
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
