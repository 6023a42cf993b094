//! Comparing strategies on a corpus (`ptc ab`): the plan resolved, the corpus listed and
//! measured in one pass, and the results written in the format asked for. Without a corpus
//! the bundled example recordings are compared, followed by the same comparison of the bundled
//! real runs against what their agents sent.

use std::io::Write;
use std::path::PathBuf;

use crate::ab::bill::{Bill, ToBill};
use crate::ab::report::View;
use crate::ab::shard::{Shard, ShardSources};
use crate::ab::spool::Spool;
use crate::ab::{
    partial, run_listed, Ab, AbPlan, PlanOptions, Presumed, Rows, RunDetail, RunOptions,
};
use crate::host::Host;
use crate::ops::read_ahead::{read_ahead, Unread};
use crate::ops::results::{self, Finish};
use crate::ops::{progress, Corpus};
use crate::output::write_out;
use crate::recording::corpus::{Imports, Source};
use crate::recording::{ReadError, Recording};
use crate::render::trigger::AS_SENT;
use crate::Error;

/// What a comparison writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Aligned columns, for a terminal
    Table,
    /// Everything, per-turn series included
    Json,
    /// Markdown tables
    Markdown,
    /// One row per prompt
    Csv,
    /// What `ptc ab merge` combines: this shard's sums and every prompt's row (JSON)
    Partial,
}

impl Format {
    /// Whether the format is for people (its tables end with the comparison with the bill).
    pub(crate) fn for_people(self) -> bool {
        matches!(self, Format::Table | Format::Markdown)
    }

    /// Whether the format lists every prompt's row.
    pub(crate) fn lists_rows(self) -> bool {
        matches!(self, Format::Json | Format::Csv)
    }
}

/// A comparison: which recordings, what is compared on them, and what is written.
#[derive(Clone, Debug)]
pub struct CompareOptions {
    pub corpus: Corpus,
    pub plan: PlanOptions,
    pub format: Format,
    /// Also write the HTML report to this file.
    pub report: Option<PathBuf>,
    /// Stop at the first recording that cannot be read instead of leaving it out.
    pub strict: bool,
    /// The shard of the corpus measured ([`Shard::ALL`]: all of it).
    pub shard: Shard,
    /// Show a progress bar on stderr when it is a terminal.
    pub progress: bool,
    /// How much the tables for people show (`--wide`, `--explain`).
    pub view: View,
}

impl CompareOptions {
    /// The whole of `corpus` compared as `plan` says, written as a table.
    pub fn new(corpus: Corpus, plan: PlanOptions) -> CompareOptions {
        CompareOptions {
            corpus,
            plan,
            format: Format::Table,
            report: None,
            strict: false,
            shard: Shard::ALL,
            progress: false,
            view: View::default(),
        }
    }
}

/// Compares the strategies `options` name on its corpus and writes the results to `out`.
/// Strategies that fail are warned about on stderr; the recordings that cannot be read are
/// left out, warned about, and make the result [`Error::SomeRecordingsBad`] once the results
/// are written (`strict`: the first is the error, nothing written).
pub fn compare(host: &Host, options: &CompareOptions, out: &mut dyn Write) -> Result<(), Error> {
    let paths = options.corpus.paths();
    if let Some(file) = &options.report {
        crate::output::check_not_input("--report", file, paths, &["json", "jsonl"])?;
    }
    let defaults = host.recording_defaults()?;
    if let Some(note) = crate::recording::logs::passed_over_in(paths) {
        crate::output::note(format_args!("note: {note}"));
    }
    // A corpus whose first recordings name no bill is measured while the rest are presumed to
    // name none (see `read_ahead`); when one does, it is measured again after a whole
    // read-ahead. A part, a shard (it measures some of the recordings read ahead) and a strict
    // run always read ahead whole.
    let may_presume =
        options.format != Format::Partial && options.shard.count == 1 && !options.strict;
    let measured = match measure(host, options, &defaults, may_presume, out)? {
        Outcome::Refuted => {
            tracing::debug!("a recording after those read ahead names a bill: measured again");
            measure(host, options, &defaults, false, out)?
        }
        outcome => outcome,
    };
    let Outcome::Measured(measured) = measured else {
        return Ok(());
    };
    let Measured {
        asked,
        selected,
        mut rows,
        result,
        bill,
    } = *measured;
    let (format, shard) = (options.format, options.shard);
    let whole = shard.count == 1;
    // Without a corpus, the bundled real runs follow the generated ones (in the formats for
    // people, and in the report): the same comparison, against what their agents sent.
    let bundled = options.corpus == Corpus::Paths(Vec::new()) && whole;
    let real_runs = |format: Format| -> Result<String, Error> {
        let real_runs = CompareOptions {
            corpus: Corpus::RealRuns,
            plan: PlanOptions {
                baseline: Some(AS_SENT.to_owned()),
                ..options.plan.clone()
            },
            strict: true,
            progress: false,
            format,
            report: None,
            ..options.clone()
        };
        let mut section = Vec::new();
        compare(host, &real_runs, &mut section)?;
        Ok(String::from_utf8_lossy(&section).into_owned())
    };
    let in_report = match bundled && options.report.is_some() {
        true => Some(real_runs(Format::Table)?),
        false => None,
    };
    let finish = Finish {
        corpus: Some((&options.corpus, shard)),
        count: selected,
        format,
        report: options.report.as_deref(),
        real_runs: in_report.as_deref(),
        view: View {
            asked: asked
                .pricing
                .iter()
                .flat_map(|p| p.split(','))
                .map(|p| p.trim().to_owned())
                .filter(|p| !p.is_empty())
                .collect(),
            ..options.view.clone()
        },
    };
    results::write(host, result, &mut rows, &finish, bill, out)?;
    if bundled && format.for_people() {
        let section = match (in_report, format) {
            (Some(text), Format::Table) => text,
            _ => real_runs(format)?,
        };
        write_out(
            out,
            &format!(
                "\n\nReal runs (bundled in examples/realruns: logs of other people's agents; its README names them)\n\n{section}"
            ),
        )?;
    }
    Ok(())
}

/// What [`measure`] ends with.
enum Outcome {
    /// A part, written.
    Written,
    /// A recording refuted what was presumed of those not read ahead: nothing is kept.
    Refuted,
    Measured(Box<Measured>),
}

/// A corpus measured, its results not yet written.
struct Measured {
    /// The plan as the read-ahead completed it.
    asked: PlanOptions,
    /// How many recordings the shard measured.
    selected: usize,
    /// The per-prompt rows, for the formats that list them.
    rows: Spool,
    result: Ab,
    bill: Option<Result<Bill, Error>>,
}

/// Reads `options`'s corpus ahead (presuming of the recordings after the first ones with
/// `may_presume`), completes its plan and measures it; a part is written to `out`.
fn measure(
    host: &Host,
    options: &CompareOptions,
    defaults: &crate::recording::RecordingDefaults,
    may_presume: bool,
    out: &mut dyn Write,
) -> Result<Outcome, Error> {
    let paths = options.corpus.paths();
    let (format, shard) = (options.format, options.shard);
    if format == Format::Partial && options.report.is_some() {
        return Err(Error::Usage(
            "--report is written by `ptc ab merge`; a shard with --format partial writes its part only".into(),
        ));
    }
    let Planned {
        asked,
        plan,
        imports,
        unread,
    } = planned(host, options, defaults, may_presume)?;
    if format == Format::Partial {
        // A shard run where the corpus is not (a node that does not see it) would list it as
        // one recording that cannot be read and succeed; the merge would fail much later.
        crate::recording::corpus::check_given(paths)?;
    }
    let listed = || {
        let listing = options.corpus.listing(defaults);
        ShardSources::new(listing.reusing_imports(imports.as_ref()), shard)
    };
    let bar = match options.progress {
        true => progress::for_corpus(|| listed().take_while(Result::is_ok).count()),
        false => indicatif::ProgressBar::hidden(),
    };
    let mut sources = match format {
        // A part names its corpus by the recordings' bytes too, so that a merge never mixes
        // parts measured on other contents of the same files.
        Format::Partial => listed().hashing_contents(),
        _ => listed(),
    };
    if !sources.start()? {
        check_selected(&sources, paths, format, shard)?;
    }
    if format == Format::Partial {
        let result = partial::write(
            host,
            plan,
            &mut sources,
            options.strict,
            &|| bar.inc(1),
            out,
        );
        bar.finish_and_clear();
        results::part_written(result?, sources.selected, shard)?;
        return Ok(Outcome::Written);
    }
    let planned = (asked, plan);
    let measured = measure_listed(host, options, planned, &mut sources, unread.as_ref(), &bar);
    bar.finish_and_clear();
    measured
}

/// A comparison's plan, completed by what its corpus's runs say before they are measured.
struct Planned {
    /// The plan as the read-ahead completed it.
    asked: PlanOptions,
    plan: AbPlan,
    /// The runs of the logs read to find the profiles, taken from there by the listings.
    imports: Option<std::sync::Arc<Imports>>,
    /// The recordings presumed to name no bill, when the read-ahead stopped before them.
    unread: Option<Unread>,
}

/// `options`'s plan, completed by a read-ahead of its corpus when it asks for one: the
/// profiles the runs were billed by, when no pricing is given, and the requests their agents
/// sent as the baseline, when every run holds them and no baseline is asked for. A corpus
/// priced by the one profile its bill names is priced by that profile alone in the tables
/// for people.
fn planned(
    host: &Host,
    options: &CompareOptions,
    defaults: &crate::recording::RecordingDefaults,
    may_presume: bool,
) -> Result<Planned, Error> {
    let mut asked = options.plan.clone();
    // The bundled generated runs keep the configured profile: their output is the reference
    // one. Real runs, the bundled ones included, are priced as billed.
    let given = match &options.corpus {
        Corpus::Paths(paths) => !paths.is_empty(),
        Corpus::RealRuns => true,
    };
    let (mut imports, mut unread, mut priced_as_billed) = (None, None, None);
    // Runs that hold the requests their agent sent are compared with them, not with ptc's
    // reconstruction of them (full-history), unless `--set ab.baseline` asks for it.
    let config = host.config();
    let may_be_as_sent = asked.baseline.is_none()
        && config.ab_baseline() == crate::host::UNCOMPRESSED_STRATEGY
        && !config.ab_baseline_set_by_flag();
    if given && (asked.pricing.is_none() || may_be_as_sent) {
        // The runs are read ahead before any is counted: the encoding loads meanwhile.
        if let Ok(tokenizer) = host.tokenizer(asked.tokenizer.as_deref()) {
            tokenizer.load_in_background();
        }
        let find_profiles = asked.pricing.is_none();
        let read = read_ahead(host, &options.corpus, defaults, find_profiles, may_presume)?;
        unread = read.unread;
        if find_profiles {
            asked.pricing = read.profiles;
            asked.by_run = asked.pricing.as_deref().is_some_and(|p| p.contains(','));
            priced_as_billed = asked.pricing.clone().filter(|_| !asked.by_run);
        }
        if may_be_as_sent && read.every_run_sent {
            crate::output::note(format_args!(
                "note: compared with {AS_SENT}, the requests every run's agent sent (--set ab.baseline={} compares with ptc's reconstruction of them)",
                config.ab_baseline()
            ));
            asked.baseline = Some(AS_SENT.to_owned());
        }
        imports = Some(std::sync::Arc::new(read.imports));
    }
    let mut plan = AbPlan::new(host, &asked)?;
    // The built-in baseline runs without a plugin: say when it is all that runs.
    if plan.variants.len() == 1
        && plan.variants[0].label == AS_SENT
        && host.plugins().strategies().is_empty()
    {
        crate::output::warn(format_args!(
            "no strategy plugin was found (`ptc plugins list` shows where ptc looks): only the baseline, {AS_SENT}, is measured"
        ));
    }
    // The tables for people show, of a corpus priced by the profile its bill names, only the
    // costs under that profile's provider (and the bill's comparison, which prices the runs on
    // its own): the other profiles are not priced. Every output that shows them (the other
    // formats, a report, a part) prices them all.
    if let Some(billed) = &priced_as_billed {
        if options.format.for_people() && options.report.is_none() {
            plan.price_only(|profile| options.view.reads_beside_bill(billed, &profile.name));
        }
    }
    Ok(Planned {
        asked,
        plan,
        imports,
        unread,
    })
}

/// Fails when a listing selected no recording: the corpus holds none, or the shard none of
/// those it holds (a part is written all the same, empty).
fn check_selected(
    sources: &ShardSources,
    paths: &[PathBuf],
    format: Format,
    shard: Shard,
) -> Result<(), Error> {
    let corpus = sources.corpus().recordings;
    if corpus == 0 {
        let what: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        return Err(ReadError::NoRecording {
            what: format!("{} (no .json or .jsonl file)", what.join(", ")),
        }
        .into());
    }
    if format != Format::Partial {
        return Err(ReadError::NoRecording {
            what: format!("shard {shard} (none of the {corpus} recordings)"),
        }
        .into());
    }
    Ok(())
}

/// Measures `sources` as `plan` says, in the formats other than a part: the per-prompt rows
/// spooled when the format lists them, and (a whole corpus, for people) each recording that
/// carries its bill compared with it, on a thread of its own. With `unread`, each recording
/// is checked for a bill as it is measured; the first that names one ends the comparison,
/// [`Outcome::Refuted`].
fn measure_listed(
    host: &Host,
    options: &CompareOptions,
    (asked, plan): (PlanOptions, AbPlan),
    sources: &mut ShardSources,
    unread: Option<&Unread>,
    bar: &indicatif::ProgressBar,
) -> Result<Outcome, Error> {
    let holds = unread
        .map(|unread| move |loaded: Result<&Recording, &Source>| unread.names_no_bill(loaded));
    let presumed = holds.as_ref().map(|holds| Presumed::new(holds));
    let format = options.format;
    // The per-prompt rows go to a spool as the output will print them.
    let mut rows = Spool::default();
    let (variants, pricing) = (plan.variants.clone(), plan.pricing.clone());
    let mut each =
        |_: usize, run: RunDetail| results::spool_row(&mut rows, format, &variants, &pricing, run);
    // The tables end with the comparison with the bill, made from this same read: each
    // recording that carries its bill goes to it once measured, on a thread of its own.
    let keep_billed = options.shard.count == 1 && format.for_people();
    let view = &options.view;
    let (result, bill) = std::thread::scope(|scope| {
        let (send, receive) = std::sync::mpsc::sync_channel::<ToBill>(BILL_QUEUE);
        let bill = keep_billed
            .then(|| scope.spawn(move || results::of_the_billed(host, receive.into_iter(), view)));
        // The comparison may end early (an error it reports); the run goes on without it.
        let mut hand = move |recording| drop(send.send(recording));
        let run = RunOptions {
            rows: match format.lists_rows() {
                true => Rows::Each(&mut each),
                false => Rows::Sums,
            },
            strict: options.strict,
            progress: &|| bar.inc(1),
            billed: match keep_billed {
                true => Some(&mut hand),
                false => None,
            },
            presumed: presumed.as_ref(),
        };
        let result = run_listed(host, plan, sources, run);
        drop(hand);
        let bill = bill.map(|b| b.join().unwrap_or_else(|e| std::panic::resume_unwind(e)));
        (result, bill)
    });
    if presumed.as_ref().is_some_and(Presumed::is_refuted) {
        return Ok(Outcome::Refuted);
    }
    Ok(Outcome::Measured(Box::new(Measured {
        asked,
        selected: sources.selected,
        rows,
        result: result?,
        bill,
    })))
}

/// How many recordings measured wait for the comparison with their bill, at most.
const BILL_QUEUE: usize = 8;
