//! `ptc import`: a recording made from another runtime's log, written to a file or returned
//! for stdout, with what the log lost summarized on stderr.

use std::io::Write;
use std::path::PathBuf;

use crate::commands::args::{ConfigArgs, RecordingArgs};
use crate::commands::Context;
use crate::ops::{self, ImportOptions};
use crate::recording::import::{Format, Supplied};
use crate::Error;

/// Make recordings from the logs agents write
///
/// Each FILE is a log of one run or more; its format is detected from its first record (or given with
/// --from): ptc_runner's Kernel inspection artifact (`*.inspection.jsonl`: every request as sent
/// and what it was billed), a mini-swe-agent trajectory (`*.traj.json`, format 1 or 1.1), an
/// ATIF trajectory (v1.0 to v1.7), a Claude Code session (`<session>.jsonl`: a run per thread),
/// an OpenHands run (an event trajectory, or an evaluation's `output.jsonl`: a run per line), a
/// Codex CLI session (`rollout-*.jsonl`), a Gemini CLI session (`session-*.json`) or ptc_runner's trace log (v1, v2). One run gives one recording (pretty JSON); several give one
/// recording per line (JSONL, a corpus `ptc ab` reads). A line per run on stderr says what was
/// imported and what the log did not record (a recording lists it under `lacks`: nothing is
/// invented in its place).
#[derive(Debug, clap::Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct Args {
    #[command(subcommand)]
    legacy: Option<Legacy>,
    /// The logs to import
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// The format of every FILE [default: detected from each file's first record]
    #[arg(long = "from", value_enum, value_name = "FORMAT")]
    format: Option<Format>,
    /// Leave out a log that cannot be imported, saying why on stderr, and write the others
    /// (without it, the first such log stops the import and nothing is written)
    #[arg(long)]
    skip_unreadable: bool,
    #[command(flatten)]
    run: RunArgs,
}

/// What both forms of `ptc import` take besides the logs.
#[derive(Debug, clap::Args)]
struct RunArgs {
    /// The run's mission, when the log has none (replaces the log's own)
    #[arg(long, value_name = "TEXT")]
    mission: Option<String>,
    /// The run's max_turns, when the log has none (replaces the log's own)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    max_turns: Option<u32>,
    /// Replay a ptc_runner Kernel run's PTC-Lisp programs and record the memory after each
    /// turn, when every turn an agent sent replays exactly (see the manual's "Replaying
    /// PTC-Lisp runs"); otherwise the recording keeps no memory
    #[arg(long)]
    replay: bool,
    /// Write the recording(s) here instead of stdout: `OUT.jsonl` a run a line, `DIR/` (or an
    /// existing directory) a file a run, any other name one run; never one of the logs read,
    /// and an existing file only with --force
    #[arg(short, long, value_name = "OUT")]
    output: Option<PathBuf>,
    /// Overwrite the --output file when it exists
    #[arg(long)]
    force: bool,
    #[command(flatten)]
    config: ConfigArgs,
    #[command(flatten)]
    limits: RecordingArgs,
}

/// The form of `ptc import` with the format as a command (`ptc import ptc-runner TRACE`).
#[derive(Debug, clap::Subcommand)]
enum Legacy {
    /// A ptc_runner JSONL trace log: the root run becomes a recording; what the trace lost is
    /// summarized on stderr (the same as `ptc import --from ptc-runner TRACE`)
    ///
    /// Reads both trace formats: v1 (events without `schema_version`, the agent in
    /// `metadata.agent`) and v2 (`schema_version: 2`, the agent in an `agent.config` event).
    /// A trace without the run's mission, or without its max_turns when it has more turns than
    /// the configured default, is an error naming the field; --mission and --max-turns give them.
    PtcRunner {
        /// The trace log (JSONL)
        trace: PathBuf,
        #[command(flatten)]
        run: RunArgs,
    },
}

/// `ptc import FILE...`, or `ptc import ptc-runner TRACE` (the same with `--from ptc-runner`).
pub fn exec(args: Args, context: &Context, out: &mut dyn Write) -> Result<(), Error> {
    let (files, format, run, skip) = match args.legacy {
        Some(Legacy::PtcRunner { trace, run }) => {
            (vec![trace], Some(Format::PtcRunner), run, false)
        }
        None => (args.files, args.format, args.run, args.skip_unreadable),
    };
    let host = context.reading(&run.config, &run.limits)?;
    let options = ImportOptions {
        logs: files,
        format,
        supplied: Supplied {
            mission: run.mission,
            max_turns: run.max_turns,
            replay: run.replay,
        },
        skip_unreadable: skip,
        output: run.output,
        force: run.force,
    };
    let import = ops::import(&host, &options)?;
    for note in import.notes() {
        crate::output::note(note);
    }
    import.write(out)
}
