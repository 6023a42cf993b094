//! Comparing strategies on a corpus (`ptc ab`): the plan resolved, the corpus listed and
//! measured in one pass, and the results written in the format asked for. Without a corpus
//! the bundled example recordings are compared, followed by the same comparison of the bundled
//! real runs against what their agents sent.

use std::io::Write;
use std::path::PathBuf;

use crate::ab::bill::ToBill;
use crate::ab::report::View;
use crate::ab::shard::{Shard, ShardSources};
use crate::ab::spool::Spool;
use crate::ab::{partial, run_listed, AbPlan, PlanOptions, Rows, RunDetail, RunOptions};
use crate::host::Host;
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
    let mut asked = options.plan.clone();
    // The bundled generated runs keep the configured profile: their output is the reference
    // one. Real runs, the bundled ones included, are priced as billed.
    let given = match &options.corpus {
        Corpus::Paths(paths) => !paths.is_empty(),
        Corpus::RealRuns => true,
    };
    // The runs of the logs read to find the profiles, taken from there by the listings below.
    let mut imports = None;
    // The one profile the runs' bill names, when they are priced by it.
    let mut priced_as_billed = None;
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
        let read = read_ahead(host, &options.corpus, &defaults, asked.pricing.is_none())?;
        if asked.pricing.is_none() {
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
    // The tables for people show, of a corpus priced by the profile its bill names, only the
    // costs under that profile's provider (and the bill's comparison, which prices the runs on
    // its own): the other profiles are not priced. Every output that shows them (the other
    // formats, a report, a part) prices them all.
    if let Some(billed) = &priced_as_billed {
        if options.format.for_people() && options.report.is_none() {
            plan.price_only(|profile| options.view.reads_beside_bill(billed, &profile.name));
        }
    }
    let (format, shard) = (options.format, options.shard);
    if format == Format::Partial && options.report.is_some() {
        return Err(Error::Usage(
            "--report is written by `ptc ab merge`; a shard with --format partial writes its part only".into(),
        ));
    }
    if format == Format::Partial {
        // A shard run where the corpus is not (a node that does not see it) would list it as
        // one recording that cannot be read and succeed; the merge would fail much later.
        crate::recording::corpus::check_given(paths)?;
    }
    let listed = || {
        let listing = options.corpus.listing(&defaults);
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
        return results::part_written(result?, sources.selected, shard);
    }
    // The per-prompt rows go to a spool as the output will print them.
    let mut rows = Spool::default();
    let (variants, pricing) = (plan.variants.clone(), plan.pricing.clone());
    let mut each =
        |_: usize, run: RunDetail| results::spool_row(&mut rows, format, &variants, &pricing, run);
    let whole = shard.count == 1;
    // The tables end with the comparison with the bill, made from this same read: each
    // recording that carries its bill goes to it once measured, on a thread of its own.
    let keep_billed = whole && format.for_people();
    let (result, bill) = std::thread::scope(|scope| {
        let (send, receive) = std::sync::mpsc::sync_channel::<ToBill>(BILL_QUEUE);
        let bill = keep_billed
            .then(|| scope.spawn(move || results::of_the_billed(host, receive.into_iter())));
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
        };
        let result = run_listed(host, plan, &mut sources, run);
        drop(hand);
        let bill = bill.map(|b| b.join().unwrap_or_else(|e| std::panic::resume_unwind(e)));
        (result, bill)
    });
    let result = result?;
    bar.finish_and_clear();
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
        count: sources.selected,
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

/// How many recordings measured wait for the comparison with their bill, at most.
const BILL_QUEUE: usize = 8;

/// How many recordings are read and not yet looked at, at most, to find the profiles a corpus
/// was billed by.
const READ_AHEAD: usize = 64;

/// What a corpus's runs say before they are measured, read once for both.
struct ReadAhead {
    /// The profiles the runs were billed by (see [`read_ahead`]).
    profiles: Option<String>,
    /// Whether every run holds the request its agent sent before each turn, and the size of
    /// what they sent first.
    every_run_sent: bool,
    /// The runs of the agents' logs imported to read them, so that they are not imported
    /// again.
    imports: Imports,
}

/// Reads every recording of `corpus`, over every core as they are listed, for what the runs
/// say before they are measured: whether each holds the requests its agent sent, and (with
/// `find_profiles`) the profile they were billed by, when no profile is asked for: that of
/// the provider and model their usage names, when they name one; those profiles, when they
/// name several (each run is then priced by its own: [`PlanOptions::by_run`]); `None` (the
/// configuration's `[ab] pricing`) when no run carries a bill. A note on stderr names the
/// profiles.
fn read_ahead(
    host: &Host,
    corpus: &Corpus,
    defaults: &crate::recording::RecordingDefaults,
    find_profiles: bool,
) -> Result<ReadAhead, Error> {
    use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
    let config = host.config();
    let (pricing, info) = (config.pricing_profiles()?, config.pricing_info());
    let mut named: Vec<String> = Vec::new();
    let (mut inferred_runs, mut inferred_count) = (Vec::new(), 0);
    let (every_run_sent, mut read) = (AtomicBool::new(true), 0usize);
    let mut listing = corpus.listing(defaults).keeping_imports();
    // A run whose calls were billed under several profiles names each of them.
    type Found = (bool, Option<Vec<String>>, Option<(String, String)>);
    let look = |source: &Source| -> Option<Found> {
        let bytes = source.bytes(defaults.max_recording_bytes).ok()?;
        // Once a run that does not hold its requests was read, a recording that holds no
        // request names no bill, whether or not it can be read: its text is enough.
        if !every_run_sent.load(Relaxed) && holds_no_request(&bytes) {
            return None;
        }
        // Neither question needs the values of the run's memory: left unread.
        let recording = source.parse_without_values(&bytes, defaults).ok()?;
        let sent = holds_what_was_sent(&recording);
        if !find_profiles {
            return Some((sent, None, None));
        }
        let turns = crate::ab::bill::billed_by_turn(&recording, &pricing, &info);
        let inferred = crate::ab::bill::model_without_provider(&recording)
            .filter(|_| turns.is_some())
            .map(|model| (recording.label().display().to_string(), model.to_owned()));
        Some((sent, turns, inferred))
    };
    let window = crate::parallel::Window {
        count: READ_AHEAD,
        weight: u64::MAX,
    };
    crate::parallel::in_order(
        listing.by_ref().flatten().map(Ok::<_, Error>),
        window,
        |_| 1,
        look,
        |_, found| {
            let Some((sent, billed, inferred)) = found else {
                return Ok(crate::parallel::Next::Continue);
            };
            if !sent {
                every_run_sent.store(false, Relaxed);
            }
            read += 1;
            if let Some(run) = inferred {
                inferred_count += 1;
                if inferred_runs.len() < 3 {
                    inferred_runs.push(run);
                }
            }
            for name in billed.into_iter().flatten() {
                if !named.contains(&name) {
                    named.push(name);
                }
            }
            // With the pricing given, a run without requests settles the only question left:
            // the logs not read yet are imported when they are measured.
            Ok(match !find_profiles && !every_run_sent.load(Relaxed) {
                true => crate::parallel::Next::Stop,
                false => crate::parallel::Next::Continue,
            })
        },
    )?;
    let every_run_sent = every_run_sent.into_inner();
    let imports = listing.into_imports();
    if inferred_count > 0 {
        crate::output::note(format_args!(
            "{}",
            crate::ab::bill::inferred_provider_note(&inferred_runs, inferred_count)
        ));
    }
    let profiles = match &named[..] {
        _ if !find_profiles => None,
        [] => None,
        [one] => {
            crate::output::note(format_args!(
                "note: priced by {one}, the profile of the provider and model the runs' usage names (--pricing chooses others)"
            ));
            Some(one.clone())
        }
        several => {
            crate::output::note(format_args!(
                "note: the runs were billed under several profiles ({}): each run is priced by its own, a verdict per profile on its runs (--pricing prices every run by each profile it names)",
                several.join(", ")
            ));
            Some(several.join(","))
        }
    };
    Ok(ReadAhead {
        profiles,
        every_run_sent: every_run_sent && read > 0,
        imports,
    })
}

/// Whether the recording whose text is `bytes` holds no request, told from its text alone: no
/// `"request"` in it (a key, or a string of that text; a string's quotes inside another are
/// escaped). `false` when it may hold one.
fn holds_no_request(bytes: &[u8]) -> bool {
    memchr::memmem::find(bytes, b"\"request\"").is_none()
}

/// Whether `recording` holds the request its agent sent before every turn (recorded, or
/// rebuilt from its log with the size of what it sent first).
fn holds_what_was_sent(recording: &Recording) -> bool {
    !recording.requests.is_empty()
        && recording.requests.iter().all(Option::is_some)
        && !recording
            .lacks
            .contains(&crate::recording::Lack::PromptPrefix)
}
