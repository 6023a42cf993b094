//! The end of a comparison and of a merge: the warnings about what was left out and what
//! failed, the HTML report, and the results in the format asked for, the tables for people
//! followed by the comparison with the bill when the recordings carry one.

use std::io::{BufWriter, Write};
use std::path::Path;

use crate::ab::bill::{Bill, BillOptions, MissRate, ToBill};
use crate::ab::shard::Shard;
use crate::ab::spool::Spool;
use crate::ab::{report, Ab, PromptLog, RunDetail, Variant};
use crate::host::Host;
use crate::ops::{Corpus, Format};
use crate::output::{write_atomically, write_out};
use crate::pricing::Pricing;
use crate::recording::ReadError;
use crate::Error;

/// How results are written.
pub(super) struct Finish<'a> {
    /// The corpus measured and the shard of it; `None` after a merge, which has no recordings
    /// (the report then shows no prompts).
    pub corpus: Option<(&'a Corpus, Shard)>,
    /// The number of recordings given, read or not.
    pub count: usize,
    pub format: Format,
    /// The HTML report's file.
    pub report: Option<&'a Path>,
    /// The section on the bundled real runs the report ends with, as the terminal shows it.
    pub real_runs: Option<&'a str>,
    /// How much the tables for people show.
    pub view: report::View,
}

/// The width the tables for people fit without `--wide`.
const WIDTH: usize = 100;

/// Adds the rows of `run` to `rows` as `format` (JSON or CSV) prints them.
pub(super) fn spool_row(
    rows: &mut Spool,
    format: Format,
    variants: &[Variant],
    pricing: &[Pricing],
    run: RunDetail,
) -> Result<(), Error> {
    let text = match format {
        Format::Json => report::json_run_text(variants, pricing, &run, rows.is_empty()),
        _ => report::csv_rows(variants, &run),
    };
    rows.push(&text)
}

/// Warns of each recording that could not be read; returns how many.
fn warn_bad_recordings(result: &mut Ab) -> Result<usize, Error> {
    let mut count = 0;
    for bad in result.bad_recordings.iter()? {
        let bad = bad?;
        count += 1;
        crate::output::warn(format_args!(
            "skipping recording {}: {}",
            bad.label, bad.error
        ));
    }
    Ok(count)
}

fn warn_failures(result: &Ab) {
    for (variant, summary) in result.variants.iter().zip(result.summaries()) {
        if let Some(err) = &summary.first_error {
            crate::output::warn(format_args!(
                "strategy {} failed on {} recording(s); first: {err}",
                variant.label, summary.failed
            ));
        }
    }
}

/// The end of a shard's run whose part is written: the recordings it could not read and the
/// failures are warnings only (the part carries them; the merge reports them and sets the exit
/// code), unless none of its `selected` recordings could be read.
pub(super) fn part_written(mut result: Ab, selected: usize, shard: Shard) -> Result<(), Error> {
    let unreadable = warn_bad_recordings(&mut result)?;
    warn_failures(&result);
    if selected > 0 && unreadable == selected {
        return Err(ReadError::NoRecording {
            what: format!("shard {shard}: none of its {selected} recording(s) could be read"),
        }
        .into());
    }
    Ok(())
}

/// Warns on stderr about what was left out and what failed, writes the HTML report when
/// asked, and writes `result` in `finish.format`, with the per-prompt rows of JSON and CSV
/// from `rows` (made by [`spool_row`]), and the tables for people with `bill`, the
/// comparison of the recordings that carry their bill with it ([`of_the_billed`]).
pub(super) fn write(
    host: &Host,
    mut result: Ab,
    rows: &mut Spool,
    finish: &Finish<'_>,
    bill: Option<Result<Bill, Error>>,
    out: &mut dyn Write,
) -> Result<(), Error> {
    let count = finish.count;
    warn_bad_recordings(&mut result)?;
    if result.bad_recordings.len() == count {
        return Err(Error::NoGoodRecording { count });
    }
    if let Some(failures) = result.all_asked_failed() {
        return Err(Error::AbAllFailed { failures });
    }
    warn_failures(&result);
    if let Some(file) = finish.report {
        // The prompts side by side: the first recordings read again, rendered once more
        // (at most `PROMPT_RECORDINGS` of them, within `PROMPT_BYTES`).
        let mut bad = result
            .bad_recordings
            .iter()?
            .map_while(Result::ok)
            .map(|b| b.index);
        let prompts = match finish.corpus {
            Some((corpus, shard)) => {
                let listing = corpus.listing(&host.recording_defaults()?);
                let mut sources = crate::ab::shard::ShardSources::new(listing, shard);
                PromptLog::collect(host, &result, &mut sources, &mut bad)
            }
            None => PromptLog::collect(host, &result, &mut std::iter::empty(), &mut bad),
        };
        let page = report::html(&result, &prompts, finish.real_runs, &host.host_templates()?)?;
        write_atomically(file, page.as_bytes())?;
    }
    // Real runs carry their bill: the tables say how the simulation compares with it.
    let mut view = finish.view.clone();
    let (bill, per_run) = match (finish.corpus, bill) {
        (Some((_, shard)), Some(bill))
            if result.billed_recordings > 0 && shard.count == 1 && finish.format.for_people() =>
        {
            against_the_bill(bill, &mut result, &mut view)
        }
        _ => Default::default(),
    };
    match finish.format {
        // The text is wrapped to the width, the table of runs against their bill aside.
        Format::Table => {
            let text = report::table(&result, &view) + &bill;
            match view.wide {
                true => write_out(out, &(text + &per_run))?,
                false => write_out(out, &(report::wrap(&text, WIDTH) + &per_run))?,
            }
        }
        Format::Markdown => write_out(
            out,
            &(report::markdown_tables(&result, &view) + &bill + &per_run),
        )?,
        Format::Csv => report::write_csv(&result, rows, &mut BufWriter::new(&mut *out))?,
        Format::Json => report::write_json(&result, rows, &mut BufWriter::new(&mut *out))?,
        Format::Partial => {
            return Err(Error::Usage(
                "--format partial is written by `ptc ab --shard K/N`; merge parts into table, json, markdown or csv".into(),
            ))
        }
    }
    match result.bad_recordings.first() {
        None => Ok(()),
        Some(first) => Err(Error::SomeRecordingsBad {
            bad: result.bad_recordings.len(),
            count,
            first: first.label.clone(),
        }),
    }
}

/// The comparison with their bill of the recordings a run hands on ([`RunOptions::billed`]),
/// taken one at a time from `recordings` as the run measures them; each run is kept only when
/// `view` shows the table of runs ([`runs_shown`]).
///
/// [`RunOptions::billed`]: crate::ab::RunOptions::billed
pub(super) fn of_the_billed(
    host: &Host,
    recordings: impl Iterator<Item = ToBill>,
    view: &report::View,
) -> Result<Bill, Error> {
    let options = BillOptions {
        miss_rate: MissRate::Fit,
        shared_cache: false,
        profile: None,
        keep_runs: runs_shown(view),
    };
    crate::ops::bill::of_recordings(host, recordings, &options)
}

/// Whether the tables for people show each run against its bill, after the heading.
fn runs_shown(view: &report::View) -> bool {
    view.wide || view.explain
}

/// `ptc bill`'s heading for the recordings the run handed on, after a blank line, and its
/// table of runs when `view` asks for more (else a line saying where it is); a warning instead
/// when the corpus cannot be compared with its bill (no profile for its provider, say). The
/// profiles that price the runs as billed are shown in `view`.
fn against_the_bill(
    bill: Result<Bill, Error>,
    result: &mut Ab,
    view: &mut report::View,
) -> (String, String) {
    let kept = std::mem::take(&mut result.billed);
    match bill {
        Ok(mut bill) => {
            bill.without_bill = kept.without_bill;
            view.billed = crate::ab::bill::billed_profiles(&bill);
            let heading = crate::ab::bill::heading(&bill);
            match runs_shown(view) {
                true => {
                    let table = crate::ab::bill::table(&bill);
                    let rest = table.strip_prefix(&heading).unwrap_or(&table);
                    (format!("\n{heading}"), rest.to_owned())
                }
                false => (
                    format!("\n{heading}(each run against its bill: --explain, or `ptc bill`)\n"),
                    String::new(),
                ),
            }
        }
        Err(err) => {
            crate::output::warn(format_args!(
                "the recordings carry their bill, but it is not compared: {err}"
            ));
            Default::default()
        }
    }
}
