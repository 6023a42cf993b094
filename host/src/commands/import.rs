//! `ptc import`: a recording made from another runtime's log, written to a file or returned
//! for stdout, with what the log lost summarized on stderr.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::commands::args::{ConfigArgs, RecordingArgs};
use crate::commands::Context;
use crate::output::{pretty, write_with};
use crate::recording::import::{Format, Imported, Supplied};
use crate::recording::RecordingDefaults;
use crate::Error;

/// Make recordings from the logs agents write
///
/// Each FILE is a log of one run or more; its format is detected from its first record (or given with
/// --from): ptc_runner's Kernel inspection artifact (`*.inspection.jsonl`: every request as sent
/// and what it was billed), a mini-swe-agent trajectory (`*.traj.json`, format 1 or 1.1), an
/// ATIF trajectory (v1.0 to v1.7), a Claude Code session (`<session>.jsonl`: a run per thread),
/// an OpenHands run (an event trajectory, or an evaluation's `output.jsonl`: a run per line) or
/// ptc_runner's trace log (v1, v2). One run gives one recording (pretty JSON); several give one
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
    /// Write the recording(s) here instead of stdout; never one of the logs read, and an
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
    let supplied = Supplied {
        mission: run.mission,
        max_turns: run.max_turns,
    };
    // An output that would destroy a log, or a file, is refused before anything is read.
    if let Some(path) = &run.output {
        for file in &files {
            check_output(file, path, run.force)?;
        }
    }
    let defaults = host.recording_defaults()?;
    // Each run as its JSONL line and the notes about it, the first also whole (one run is
    // written pretty): a run's parsed JSON takes several times its text.
    let mut runs: Vec<(String, Vec<String>)> = Vec::new();
    let mut first: Option<serde_json::Value> = None;
    let mut skipped = 0;
    for file in &files {
        match import(file, format, &defaults, &supplied) {
            Ok((format, imported)) => {
                for run in imported {
                    let notes = summary(file, format, &run, &defaults);
                    runs.push((run.json.to_string(), notes));
                    first.get_or_insert(run.json);
                }
            }
            Err(error) if skip => {
                crate::output::warn(format_args!("skipped: {error}"));
                skipped += 1;
            }
            Err(error) => return Err(error),
        }
    }
    if skipped > 0 && runs.is_empty() {
        return Err(Error::Usage(format!(
            "none of the {} log(s) could be imported (each is named above)",
            files.len()
        )));
    }
    if skipped > 0 {
        crate::output::note(format_args!(
            "note: skipped {skipped} of {} log(s) that could not be imported (--skip-unreadable)",
            files.len()
        ));
    }
    // Nothing is written before every log is read: one run, one recording; several, a JSONL
    // corpus, a line at a time.
    for (_, notes) in &runs {
        for note in notes {
            crate::output::note(note);
        }
    }
    let write = |out: &mut dyn Write| -> std::io::Result<()> {
        match (runs.len(), &first) {
            (1, Some(json)) => out.write_all(pretty(json).as_bytes()),
            _ => runs.iter().try_for_each(|(line, _)| {
                out.write_all(line.as_bytes())?;
                out.write_all(b"\n")
            }),
        }
    };
    match &run.output {
        Some(path) => write_with(path, write),
        None => write(out).and_then(|()| out.flush()).map_err(Error::Output),
    }
}

/// The runs of one log, in its format (given, or detected from its first record).
fn import(
    file: &Path,
    format: Option<Format>,
    defaults: &RecordingDefaults,
    supplied: &Supplied,
) -> Result<(Format, Vec<Imported>), Error> {
    let Some(format) = format.or_else(|| Format::detect(file)) else {
        return Err(Error::Usage(format!(
            "cannot tell the format of {}: it is none of those ptc imports (ptc-runner-kernel, mini-swe-agent, atif, claude-code, openhands, ptc-runner; --from forces one). Gemini CLI logs convert to ATIF with Harbor's converters",
            file.display()
        )));
    };
    use crate::recording::import as from;
    let imported = match format {
        Format::PtcRunner => vec![from::ptc_runner(file, defaults, supplied)?],
        Format::PtcRunnerKernel => vec![from::ptc_runner_kernel(file, defaults, supplied)?],
        Format::MiniSweAgent => vec![from::mini_swe_agent(file, defaults, supplied)?],
        Format::Atif => vec![from::atif(file, defaults, supplied)?],
        Format::ClaudeCode => from::claude_code(file, defaults, supplied)?,
        Format::Openhands => from::openhands(file, defaults, supplied)?,
    };
    Ok((format, imported))
}

/// The lines on stderr about one imported run. A ptc_runner trace's says what its lossy
/// encoding of values cost (and when the recording takes the configured `max_turns`); the
/// others' say the turns, tool calls, calls with billed usage and what the log did not record.
fn summary(
    file: &Path,
    format: Format,
    imported: &Imported,
    defaults: &RecordingDefaults,
) -> Vec<String> {
    if format == Format::PtcRunner {
        let mut notes = vec![format!(
            "imported 1 run ({} turns) from {} (trace format v{}): {}",
            imported.turns,
            file.display(),
            imported.version,
            imported.losses
        )];
        if imported.default_max_turns {
            notes.push(format!(
                "note: the trace gives no max_turns for the run: the recording takes the configured default ({}); --max-turns N sets one",
                defaults.max_turns
            ));
        }
        return notes;
    }
    let turns = imported.json["turns"]
        .as_array()
        .map_or(&[][..], Vec::as_slice);
    let tool_calls: usize = turns
        .iter()
        .map(|t| t["tool_calls"].as_array().map_or(0, Vec::len))
        .sum();
    let billed = turns.iter().filter(|t| t.get("usage").is_some()).count();
    let lacks: Vec<&str> = imported.json["lacks"]
        .as_array()
        .map(|l| l.iter().filter_map(|x| x.as_str()).collect())
        .unwrap_or_default();
    let part = imported
        .part
        .as_ref()
        .map_or_else(String::new, |part| format!(", {part}"));
    // Requests rebuilt from the conversation, with the prefix inferred from the bill.
    let rebuilt = match turns.first().map(|t| &t["request"]) {
        Some(request) if request["rebuilt"] == true => match request["inferred_prefix_tokens"].as_u64() {
            Some(n) => format!("; requests rebuilt from the conversation, with an inferred prefix of {n} tokens (system prompt and tool schemas)"),
            None => "; requests rebuilt from the conversation, their prefix unknown (the first call's bill is missing or smaller than the conversation)".to_owned(),
        },
        _ => String::new(),
    };
    vec![format!(
        "imported {} ({}{part}): {} turn(s), {} tool call(s), {} call(s) with billed usage{rebuilt}; the log lacks: {}",
        file.display(),
        format.as_str(),
        turns.len(),
        tool_calls,
        billed,
        if lacks.is_empty() {
            "nothing".to_owned()
        } else {
            lacks.join(", ")
        }
    )]
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
