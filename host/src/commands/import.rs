//! `ptc import`: a recording made from another runtime's log, written to a file or returned
//! for stdout, with what the log lost summarized on stderr.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::commands::args::{ConfigArgs, RecordingArgs};
use crate::commands::Context;
use crate::output::{pretty, write_with};
use crate::recording::import::{read_log, Format, Imported, Supplied};
use crate::recording::RecordingDefaults;
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
    let files = logs_in(&files, format.is_some())?;
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
    let names = crate::recording::import::unique_names(&files);
    for file in &files {
        match read_log(file, format, &defaults, &supplied) {
            Ok((format, mut imported)) => {
                if let Some(shown) = names.get(file) {
                    crate::recording::import::name_after(&mut imported, file, shown);
                }
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
            Err(error) => return Err(error.into()),
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
    // Nothing is written before every log is read, and the output is checked first: one
    // run, one recording; several, a JSONL corpus, a line at a time.
    let destination = destination(run.output.as_deref(), runs.len())?;
    for (_, notes) in &runs {
        for note in notes {
            crate::output::note(note);
        }
    }
    let several = |out: &mut dyn Write| -> std::io::Result<()> {
        runs.iter().try_for_each(|(line, _)| {
            out.write_all(line.as_bytes())?;
            out.write_all(b"\n")
        })
    };
    let one = |out: &mut dyn Write| -> std::io::Result<()> {
        match &first {
            Some(json) => out.write_all(pretty(json).as_bytes()),
            None => Ok(()),
        }
    };
    match destination {
        Destination::Stdout if runs.len() == 1 => {
            one(out).and_then(|()| out.flush()).map_err(Error::Output)
        }
        Destination::Stdout => several(out)
            .and_then(|()| out.flush())
            .map_err(Error::Output),
        Destination::Json(path) => write_with(path, one),
        Destination::Jsonl(path) => write_with(path, several),
        Destination::Directory(dir) => write_each(dir, &runs, run.force),
    }
}

/// Where the recordings go: stdout (one run pretty, several a line each), a `.json` file (one
/// run), a `.jsonl` file (a run a line, however many), or a directory (a file a run).
enum Destination<'a> {
    Stdout,
    Json(&'a Path),
    Jsonl(&'a Path),
    Directory(&'a Path),
}

/// The destination `output` names for `runs` runs; several runs into one `.json` file are
/// refused with the fix.
fn destination(output: Option<&Path>, runs: usize) -> Result<Destination<'_>, Error> {
    let Some(path) = output else {
        return Ok(Destination::Stdout);
    };
    let is_dir = path.is_dir() || path.as_os_str().to_string_lossy().ends_with('/');
    if is_dir {
        return Ok(Destination::Directory(path));
    }
    match path.extension().and_then(|e| e.to_str()) {
        Some("jsonl") => Ok(Destination::Jsonl(path)),
        Some("json") if runs > 1 => Err(Error::Usage(format!(
            "--output {}: the logs hold {runs} runs, and a .json file holds one recording; write them to a .jsonl file (a run a line) or a directory (`-o DIR/`, a file a run)",
            path.display()
        ))),
        Some("json") => Ok(Destination::Json(path)),
        _ if runs > 1 => Ok(Destination::Jsonl(path)),
        _ => Ok(Destination::Json(path)),
    }
}

/// Writes each run to a file of its own in `dir` (made when missing), named after the run's
/// name (`NAME.json`, with `-K` when names repeat); an existing file only with `force`.
fn write_each(dir: &Path, runs: &[(String, Vec<String>)], force: bool) -> Result<(), Error> {
    std::fs::create_dir_all(dir).map_err(|source| Error::WriteFile {
        path: dir.to_owned(),
        source,
    })?;
    let mut used = std::collections::BTreeSet::new();
    let mut files = Vec::with_capacity(runs.len());
    for (line, _) in runs {
        let json: serde_json::Value = serde_json::from_str(line).expect("an imported run is JSON");
        let name = json["name"].as_str().unwrap_or("run");
        let stem: String = name
            .rsplit('/')
            .next()
            .unwrap_or(name)
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                    c
                } else {
                    '-'
                }
            })
            .collect();
        let stem = stem
            .trim_end_matches(".json")
            .trim_end_matches(".jsonl")
            .to_owned();
        let mut file = dir.join(format!("{stem}.json"));
        let mut k = 2;
        while !used.insert(file.clone()) {
            file = dir.join(format!("{stem}-{k}.json"));
            k += 1;
        }
        if file.exists() && !force {
            return Err(Error::Exists { path: file });
        }
        files.push((file, json));
    }
    for (file, json) in files {
        write_with(&file, |out: &mut dyn Write| {
            out.write_all(pretty(&json).as_bytes())
        })?;
    }
    Ok(())
}

/// The logs `paths` name: a file as given, a directory as the `.json` and `.jsonl` files in it
/// that are logs of a format ptc reads (every one of them when the format is given).
fn logs_in(paths: &[PathBuf], format_given: bool) -> Result<Vec<PathBuf>, Error> {
    let mut files = Vec::new();
    for path in paths {
        if !path.is_dir() {
            files.push(path.clone());
            continue;
        }
        let found = crate::recording::corpus::files_in(path, &["json", "jsonl"])?;
        let logs: Vec<PathBuf> = found
            .into_iter()
            .filter(|f| format_given || Format::detect(f).is_some())
            .collect();
        if logs.is_empty() {
            return Err(Error::Usage(format!(
                "{} holds no log of a format ptc imports ({})",
                path.display(),
                crate::recording::import::formats()
            )));
        }
        files.extend(logs);
    }
    Ok(files)
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
    let mut notes = vec![format!(
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
    )];
    // What some turns alone lack: how many turns lack each.
    let mut some: Vec<(&str, usize)> = Vec::new();
    for kind in turns
        .iter()
        .flat_map(|t| t["lacks"].as_array().map_or(&[][..], Vec::as_slice))
        .filter_map(serde_json::Value::as_str)
    {
        match some.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, n)) => *n += 1,
            None => some.push((kind, 1)),
        }
    }
    if !some.is_empty() {
        let said: Vec<String> = some.iter().map(|(k, n)| format!("{k} ({n})")).collect();
        notes[0].push_str(&format!("; turns lack: {}", said.join(", ")));
    }
    // A redacted log's texts are markers of their length, kept as written: prompts made from
    // them are not the run's.
    let (markers, chars) = crate::recording::import::redacted(&imported.json);
    if format == Format::Codex && markers > 0 {
        notes.push(format!(
            "note: {markers} text(s) of {} are redaction markers (`[REDACTED_… len=N …]`, standing for {chars} characters in all), kept as written",
            file.display()
        ));
    }
    notes
}

/// Refuses an output that would destroy a file: the trace being imported (whatever the path
/// that names it), a log ptc imports, or an existing file unless `force`. A pipe or a device is written as given.
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
    // `ptc import --force -o logs/*.jsonl` makes the first log the output: a log ptc imports
    // is never replaced by a recording, --force or not.
    if let Some(format) = existing.is_file().then(|| Format::detect(output)).flatten() {
        return Err(Error::Usage(format!(
            "--output {} is a {} log ptc imports (an input, as when a glob lists it first); name a new .json or .jsonl file",
            output.display(),
            format.as_str()
        )));
    }
    if existing.is_file() && !force {
        return Err(Error::Exists {
            path: output.to_owned(),
        });
    }
    Ok(())
}
