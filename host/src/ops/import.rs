//! Making recordings from the logs agents write (`ptc import`): every log read, its runs
//! imported and summarized, the destination checked before anything is written, then the
//! recordings written where the options say.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::host::Host;
use crate::output::{pretty, write_new, write_with};
use crate::recording::import::{read_log, Format, Imported, Supplied};
use crate::recording::RecordingDefaults;
use crate::Error;

/// What to import, and where to write it.
#[derive(Clone, Debug, Default)]
pub struct ImportOptions {
    /// Log files, and directories of them (the logs of a format ptc reads among their `.json`
    /// and `.jsonl` files).
    pub logs: Vec<PathBuf>,
    /// The format of every log; none: each file's detected.
    pub format: Option<Format>,
    /// What the caller gives in place of the log's own (a mission, a turn budget).
    pub supplied: Supplied,
    /// Leave out a log that cannot be imported (saying why on stderr) instead of stopping.
    pub skip_unreadable: bool,
    /// Where to write: a `.json` file (one run), a `.jsonl` file (a run a line), a directory
    /// (a file a run); none: [`Import::write`]'s stream.
    pub output: Option<PathBuf>,
    /// Replace an existing output file.
    pub force: bool,
}

/// The runs imported, ready to be written.
pub struct Import {
    /// Each run as its JSONL line and the lines about it.
    runs: Vec<(String, Vec<String>)>,
    /// The first run whole (one run is written pretty): a run's parsed JSON takes several
    /// times its text.
    first: Option<serde_json::Value>,
    output: Option<PathBuf>,
    force: bool,
}

impl Import {
    /// The number of runs imported.
    pub fn runs(&self) -> usize {
        self.runs.len()
    }

    /// What each run's log held and lost, a line each (and notes), in the order read.
    pub fn notes(&self) -> impl Iterator<Item = &str> {
        self.runs
            .iter()
            .flat_map(|(_, notes)| notes.iter().map(String::as_str))
    }

    /// Writes the recordings to the output the options named, else to `out`: one run, one
    /// recording (pretty JSON); several, a line each.
    pub fn write(&self, out: &mut dyn Write) -> Result<(), Error> {
        let runs = &self.runs;
        let destination = destination(self.output.as_deref(), runs.len())?;
        let several = |out: &mut dyn Write| -> std::io::Result<()> {
            runs.iter().try_for_each(|(line, _)| {
                out.write_all(line.as_bytes())?;
                out.write_all(b"\n")
            })
        };
        let one = |out: &mut dyn Write| -> std::io::Result<()> {
            match &self.first {
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
            // Without --force the file was found absent before reading: one created
            // meanwhile (by another import to the same name) is not replaced.
            Destination::Json(path) if !self.force => write_new(path, one),
            Destination::Jsonl(path) if !self.force => write_new(path, several),
            Destination::Json(path) => write_with(path, one),
            Destination::Jsonl(path) => write_with(path, several),
            Destination::Directory(dir) => write_each(dir, runs, self.force),
        }
    }
}

/// Reads every log `options` names and imports its runs; the output is checked first (never
/// one of the logs, an existing file only with `force`) and again for the number of runs
/// read. Nothing is written.
pub fn import(host: &Host, options: &ImportOptions) -> Result<Import, Error> {
    let (format, supplied, skip) = (options.format, &options.supplied, options.skip_unreadable);
    let files = logs_in(&options.logs, format.is_some())?;
    // An output that would destroy a log, or a file, is refused before anything is read.
    if let Some(path) = &options.output {
        for file in &files {
            check_output(file, path, options.force)?;
        }
    }
    let defaults = host.recording_defaults()?;
    let mut runs: Vec<(String, Vec<String>)> = Vec::new();
    let mut first: Option<serde_json::Value> = None;
    let mut skipped = 0;
    // Logs that share a file name are named with the folders that tell them apart.
    let names = crate::recording::import::unique_names(&files);
    for file in &files {
        match read_log(file, format, &defaults, supplied) {
            Ok((format, mut imported)) => {
                if let Some(shown) = names.get(file) {
                    crate::recording::import::name_after(&mut imported, file, shown);
                }
                for run in imported {
                    let notes = summary(file, format, &run, &defaults);
                    first.get_or_insert(run.json);
                    runs.push((run.text, notes));
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
    // The destination is checked for the runs read before anything is written.
    destination(options.output.as_deref(), runs.len())?;
    Ok(Import {
        runs,
        first,
        output: options.output.clone(),
        force: options.force,
    })
}

/// Where the recordings go: stdout (one run pretty, several a line each), a `.json` file (one
/// run), a `.jsonl` file (a run a line, however many), or a directory (a file a run).
enum Destination<'a> {
    Stdout,
    Json(&'a Path),
    Jsonl(&'a Path),
    Directory(&'a Path),
}

/// The destination `output` names for `runs` runs; several runs into one `.json` file, or
/// into a file named with neither extension, are refused with the fix.
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
        // A stream (`/dev/stdout`, a pipe) takes them a line each, as stdout does.
        _ if runs > 1 && is_stream(path) => Ok(Destination::Jsonl(path)),
        // Written a line each, they would be a file that reads as no recording (ptc reads a
        // file as a JSONL corpus by its `.jsonl`): refused with the names that work.
        _ if runs > 1 => Err(Error::Usage(format!(
            "--output {p}: the logs hold {runs} runs, and a file whose name ends in neither .json nor .jsonl holds one recording; write them to {p}.jsonl (a run a line) or {p}/ (a file a run)",
            p = path.display()
        ))),
        _ => Ok(Destination::Json(path)),
    }
}

/// Whether `path` exists and is no regular file or directory: a device or a pipe.
fn is_stream(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

/// Writes each run to a file of its own in `dir` (made when missing), named after the run's
/// name (`NAME.json`, with `-K` when names repeat); an existing file only with `force`.
/// A run's file stem from its name with every unsafe character made `-`: no run of dashes,
/// none at either end, and the log's extension dropped (`s.jsonl--thread-from-line-2-` is
/// `s-thread-from-line-2`).
fn file_stem(safe: &str) -> String {
    let mut stem = String::with_capacity(safe.len());
    for part in safe.split('-').filter(|p| !p.is_empty()) {
        let part = part
            .strip_suffix(".jsonl")
            .or_else(|| part.strip_suffix(".json"))
            .unwrap_or(part);
        if part.is_empty() {
            continue;
        }
        if !stem.is_empty() {
            stem.push('-');
        }
        stem.push_str(part);
    }
    if stem.is_empty() {
        stem.push_str("run");
    }
    stem
}

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
        let stem = file_stem(&stem);
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
        let found = crate::recording::corpus::files_under(path, &["json", "jsonl"])?;
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
            "note: {markers} text(s) of {} are redaction markers (`[REDACTED_… len=N …]`, standing for {chars} characters in all), kept as written; ptc counts each as a text of its length would count, at {} characters a token (an estimate)",
            file.display(),
            crate::tokens::redaction::CHARS_PER_TOKEN
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
