//! `ptc validate`: every problem of every recording (syntax, types, rules), each with its file,
//! line and column and JSON path, then a count; an error when any problem is an error.

use std::io::Write;
use std::path::PathBuf;

use serde_json::json;

use crate::commands::args::{ConfigArgs, RecordingArgs};
use crate::commands::Context;
use crate::host::Host;
use crate::output::{escape_controls, pretty, write_out, Format};
use crate::recording::corpus::{self, Source};
use crate::recording::{Problem, Recording, Severity};
use crate::Error;

/// Check recordings: syntax, types and rules, every problem reported
///
/// Every problem in one run, each as FILE:LINE:COLUMN with its JSON path: the shape
/// (types, unknown, missing or repeated fields, values) checked against `ptc schema`, and
/// the rules: consecutive turn numbers from 1, an `error` on failed turns, no more turns
/// than `max_turns`, valid names, mission placeholders that have data; tool calls naming
/// tools the recording does not declare are warnings. Exit 0 when there is no error, 2
/// otherwise.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Recording files, JSONL files or directories [default: the bundled examples]
    paths: Vec<PathBuf>,
    /// What to print: one line per problem, or every problem as JSON
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    #[command(flatten)]
    config: ConfigArgs,
    #[command(flatten)]
    limits: RecordingArgs,
}

/// `ptc validate`.
pub fn exec(args: Args, context: &Context, out: &mut dyn Write) -> Result<(), Error> {
    let host = context.reading(&args.config, &args.limits)?;
    validate(&host, &args.paths, args.format, out)
}

/// Writes the report on `out`, then fails with [`Error::Invalid`] when there was an error.
pub fn validate(
    host: &Host,
    paths: &[PathBuf],
    format: Format,
    out: &mut dyn Write,
) -> Result<(), Error> {
    let (text, errors, recordings) = report(host, paths, format)?;
    write_out(out, &text)?;
    if errors > 0 {
        return Err(Error::Invalid { errors, recordings });
    }
    Ok(())
}

/// How many recordings are checked and not yet reported, at most: what is held (a recording
/// of an agent's log holds its run's text) does not grow with the corpus.
const CHECKED_AHEAD: usize = 256;

/// The problems of the recording `source`, with the file and the line they are counted from.
fn check(
    source: &Source,
    defaults: &crate::recording::RecordingDefaults,
) -> (PathBuf, usize, Vec<Problem>) {
    let (file, first_line) = match source {
        Source::Line { path, line, .. } => (path.to_path_buf(), *line),
        other => (other.label(), 1),
    };
    let problems = match source.bytes(defaults.max_recording_bytes) {
        Ok(bytes) => Recording::check(&bytes, &file, first_line, defaults),
        Err(err) => vec![Problem {
            severity: Severity::Error,
            line: None,
            column: None,
            json_path: ".".into(),
            message: err.to_string(),
        }],
    };
    (file, first_line, problems)
}

/// Every problem of every recording: (report, errors, recordings read).
fn report(host: &Host, paths: &[PathBuf], format: Format) -> Result<(String, usize, usize), Error> {
    let defaults = host.recording_defaults()?;
    let listing = corpus::Listing::new(paths).reading_logs(&defaults);
    let (mut errors, mut recordings) = (0, 0);
    let mut text = String::new();
    let mut json = Vec::new();
    // The recordings are checked over every core as they are listed, and reported in order.
    let window = crate::parallel::Window {
        count: CHECKED_AHEAD,
        weight: u64::MAX,
    };
    crate::parallel::in_order(
        listing.map(|source| source.map_err(Error::from)),
        window,
        |_| 1,
        |source| check(source, &defaults),
        |source, (file, first_line, problems)| {
            recordings += 1;
            for p in &problems {
                if p.severity == Severity::Error {
                    errors += 1;
                }
                let place = match (p.line, p.column) {
                    (Some(line), Some(column)) => format!("{}:{line}:{column}", file.display()),
                    _ => source.label().display().to_string(),
                };
                text.push_str(&format!(
                    "{place}: {}: at `{}`: {}\n",
                    p.severity.as_str(),
                    p.json_path,
                    p.message
                ));
                json.push(json!({
                    "file": file.display().to_string(),
                    "line": p.line.or((first_line > 1).then_some(first_line)),
                    "column": p.column,
                    "severity": p.severity.as_str(),
                    "json_path": p.json_path,
                    "message": p.message,
                }));
            }
            Ok(crate::parallel::Next::Continue)
        },
    )?;
    let summary = format!(
        "{recordings} recording(s), {errors} error(s), {} warning(s)\n",
        json.len() - errors
    );
    Ok(match format {
        // The problems quote what the recording holds: never raw control characters.
        Format::Text => (
            escape_controls(&(text + &summary)).into_owned(),
            errors,
            recordings,
        ),
        Format::Json => (
            pretty(&json!({"recordings": recordings, "errors": errors, "problems": json})),
            errors,
            recordings,
        ),
    })
}
