//! A/B testing strategies on recorded runs: for every recording and strategy, the prompt sent
//! before each turn is rendered and measured: tokens, prompt-cache cost under every pricing
//! profile, retention, render time. Recordings are spread over cores as they are listed
//! ([`crate::parallel::in_order`]); their results are added up in recording order, so every
//! figure but the render time is identical whatever the thread count, and what is held does
//! not grow with the corpus unless the output lists every prompt.
//!
//! This module holds the run itself, [`run_corpus`] and its result [`Ab`]; what it compares is resolved
//! in `plan`, one recording through one variant is measured in `measure`, and the measures are
//! added up in `summary`. The prompts the HTML report shows side by side are rendered again,
//! after the run and only for a report, in `prompts`.

pub mod bill;
mod by_run;
mod corpus_facts;
mod measure;
pub mod merge;
pub mod partial;
mod plan;
mod prompters;
pub use plan::{pricing_variant, requirements, Clock, PlanOptions};
mod prompts;
pub mod report;
pub mod retention;
mod run_options;
mod settle;
pub mod shard;
pub mod spool;
pub(crate) mod summary;
mod totals;

use std::path::PathBuf;
use std::sync::atomic::Ordering;

use crate::ab::measure::{measure, unmeasured, unusable, Priced};
use crate::ab::retention::Facts;
use crate::ab::totals::Totals;
use crate::host::Host;
use crate::pricing::Pricing;
use crate::recording::corpus::Source;
use crate::recording::Lack;
use crate::render::trigger::Prompter;
use crate::tokens::{Counter, Counters, Tokenizer};
use crate::Error;

pub use by_run::PricedByRun;
pub use corpus_facts::{BadRecording, BadRecordings, Lacking, RebuiltRun};
pub use measure::{DroppedAction, PromptMeasure, RunMeasure, DRILL_DOWN};
pub use plan::{AbPlan, Variant};
pub use prompters::prompter_for;
use prompters::renders_from;
pub use prompts::{script_json, PromptLog, PROMPT_BYTES, PROMPT_RECORDINGS};
pub use run_options::{Presumed, Rows, RunOptions};
pub use summary::Summary;
pub use totals::Judged;

/// Recordings measured and not yet added up, at most: enough to keep every core busy while a
/// long one is measured, few enough that their measures take little memory.
const WINDOW: usize = 1024;

/// The most bytes of recordings measured and not yet added up (fewer than [`WINDOW`] long
/// ones): the recordings handed on to the comparison with their bill are held until those
/// before them are measured, so what is held does not grow with the corpus.
const WINDOW_BYTES: u64 = 16 << 20;

/// An A/B run: the variants, the pricing profiles, and the measures added up per variant.
pub struct Ab {
    pub variants: Vec<Variant>,
    /// Index of the baseline in `variants`.
    pub baseline: usize,
    pub pricing: Vec<Pricing>,
    /// Index of the profile of the table's cost column.
    pub primary_pricing: usize,
    pub tokenizer: Tokenizer,
    /// Every run added up, per variant: see [`Ab::summaries`] and [`Ab::by_turn`].
    totals: Totals,
    /// Every prompt's measures, only when the run was asked for detail (else empty).
    /// Recording-major: all variants of recording 0, then of recording 1, ...
    pub runs: Vec<RunDetail>,
    /// Whether the baseline was added to the variants asked for.
    pub baseline_added: bool,
    /// The recordings that could not be read, in order. They are left out of every figure.
    pub bad_recordings: BadRecordings,
    /// Recordings holding a request as sent with the usage billed for it (`ptc bill` compares
    /// them with their bill).
    pub billed_recordings: usize,
    /// Recordings whose turns carry the time they were sent (a cache entry then expires after
    /// its profile's TTL); `None` when not known.
    pub timed_recordings: Option<usize>,
    /// Per variant: why it is not judged on this corpus (its recordings lack data its prompts
    /// are made from), or `None`; from [`Ab::lacking`].
    pub unjudged: Vec<Option<String>>,
    /// Per variant: the recordings that lack data its prompts are made from, and what they
    /// lack (parts carry it, so that a merge judges as one run does).
    pub lacking: Vec<Lacking>,
    /// What the verdict requires of a strategy (`--require`, `[ab] require`).
    pub requirements: report::Requirements,
    /// The recordings that carry no bill, when the run was asked to hand the others on
    /// ([`RunOptions::billed`]); else empty.
    pub billed: Billed,
    /// The recordings whose as-sent baseline is rebuilt from their log, in path order.
    pub rebuilt: Vec<RebuiltRun>,
    /// How a corpus billed by several profiles was priced run by run, when it was.
    pub by_run: Option<PricedByRun>,
}

/// The recordings of a run that carry no bill, when the run was asked to hand the others to
/// the comparison with their bill ([`RunOptions::billed`]), in corpus order.
#[derive(Default)]
pub struct Billed {
    pub without_bill: Vec<PathBuf>,
}

/// The prompts of one recording through one variant, as the per-prompt outputs (JSON, CSV)
/// list them.
#[derive(Clone, Debug, PartialEq)]
pub struct RunDetail {
    /// What the recording is called: its name, else where it is.
    pub recording: PathBuf,
    /// Where the recording is (its file, `file:line`), when it has a name of its own.
    pub place: Option<PathBuf>,
    pub variant: usize,
    /// Why the variant could not render this recording.
    pub error: Option<String>,
    pub prompts: Vec<PromptMeasure>,
}

/// Renders and measures every recording of `sources` through every variant of `plan`.
/// Recordings are read one at a time per thread and dropped once measured, and their measures
/// are added up per variant as they arrive, so memory stays bounded by the largest recording
/// and the number of variants; only with [`Rows::Keep`] is every prompt's measure kept. A
/// variant whose strategy's plugin did not load is reported as failed on every recording; a
/// name that no loaded plugin provides and a bad option of a variant are errors, before any
/// recording is read.
pub fn run_corpus(
    host: &Host,
    plan: AbPlan,
    sources: &[Source],
    options: RunOptions<'_>,
) -> Result<Ab, Error> {
    let mut positions = sources.iter().cloned().enumerate().map(Ok);
    run_listed(host, plan, &mut positions, options)
}

/// [`run_corpus`] over recordings listed as they are measured, each with its position in the
/// corpus (in increasing order). An error of the listing ends the run with it.
pub fn run_listed(
    host: &Host,
    plan: AbPlan,
    sources: &mut dyn Iterator<Item = Result<(usize, Source), Error>>,
    options: RunOptions<'_>,
) -> Result<Ab, Error> {
    let RunOptions {
        mut rows,
        strict,
        progress,
        billed: mut hand_billed,
        presumed,
    } = options;
    let clock = plan.clock;
    let keep_billed = hand_billed.is_some();
    // The profiles the comparison with the bill prices by, for a run's billed calls to be
    // counted where the run is measured ([`bill::Counted`]); the comparison says why it
    // cannot be made when they cannot be read.
    let bill_profiles = match keep_billed {
        true => host.config().pricing_profiles().ok(),
        false => None,
    }
    .map(|pricing| (pricing, host.config().pricing_info()));
    let mut without_bill = Vec::new();
    let detail = !matches!(rows, Rows::Sums);
    let prompters: Vec<Result<Prompter<'_>, String>> = plan
        .variants
        .iter()
        .map(|v| match prompter_for(host, v) {
            Ok(prompter) => Ok(Ok(prompter)),
            Err(e @ Error::StrategyNotLoaded { .. }) => Ok(Err(e.to_string())),
            Err(e) => Err(e),
        })
        .collect::<Result<_, _>>()?;
    let defaults = host.recording_defaults()?;
    let primary_pricing = plan
        .pricing
        .iter()
        .position(|p| p.name == plan.primary_pricing)
        .unwrap_or(0);
    let billed = std::sync::atomic::AtomicUsize::new(0);
    let timed = std::sync::atomic::AtomicUsize::new(0);
    // What each variant's prompts are made from, and per variant the recordings that lack some
    // of it (and what they lack).
    let needs: Vec<Vec<String>> = plan
        .variants
        .iter()
        .map(|v| renders_from(host, v))
        .collect();
    let read = std::sync::atomic::AtomicUsize::new(0);
    let lacking: Vec<std::sync::Mutex<(usize, std::collections::BTreeSet<&'static str>)>> =
        needs.iter().map(|_| Default::default()).collect();
    let rebuilt: std::sync::Mutex<Vec<(PathBuf, RebuiltRun)>> = Default::default();
    let by_run = match plan.by_run.is_empty() {
        true => None,
        false => by_run::ByRun::new(
            &plan.by_run,
            &plan.pricing,
            host.config().pricing_profiles()?,
            host.config().pricing_info(),
        ),
    };
    // A run's measures, and the recording when it is handed on: whole when it carries its
    // bill, else its name.
    type Measured = (Vec<RunMeasure>, Option<Result<bill::ToBill, PathBuf>>);
    let measure_all =
        |counter: &mut Counter, index: usize, source: &Source| -> Result<Measured, Error> {
            // Once what was presumed is refuted, the corpus is measured again: nothing more now
            // (the results after the refutation are not taken).
            if presumed.is_some_and(Presumed::is_refuted) {
                return Ok((Vec::new(), None));
            }
            let loaded = source.load(&defaults).and_then(|recording| {
                recording.check_sent_messages()?;
                Ok(recording)
            });
            if presumed.is_some_and(|p| !p.check(loaded.as_ref().map_err(|_| source))) {
                return Ok((Vec::new(), None));
            }
            let recording = match loaded {
                Ok(recording) => recording,
                Err(e) => {
                    progress();
                    return Err(e.into());
                }
            };
            let is_billed = bill::is_billed(&recording);
            if is_billed {
                billed.fetch_add(1, Ordering::Relaxed);
            }
            if recording.started_at.iter().any(Option::is_some) {
                timed.fetch_add(1, Ordering::Relaxed);
            }
            read.fetch_add(1, Ordering::Relaxed);
            if recording.requests.iter().flatten().any(|r| r.rebuilt) {
                let run = RebuiltRun {
                    recording: recording.label().display().to_string(),
                    inferred_prefix_tokens: recording.inferred_prefix,
                };
                let mut rebuilt = rebuilt.lock().expect("no panic holds it");
                rebuilt.push((recording.label(), run));
            }
            let mut judged = Vec::with_capacity(needs.len());
            for (needed, lacking) in needs.iter().zip(&lacking) {
                let missing: Vec<&'static str> = recording
                    .lacks
                    .iter()
                    .map(|lack| lack.as_str())
                    .filter(|lack| needed.iter().any(|n| n == lack))
                    .collect();
                judged.push(missing.is_empty());
                if !missing.is_empty() {
                    let mut lacking = lacking.lock().expect("no panic holds it");
                    lacking.0 += 1;
                    lacking.1.extend(missing);
                }
            }
            counter.next_run();
            let facts = Facts::of(&recording.run, &recording.turns);
            let facts = match recording.lacks.contains(&Lack::ToolResults) {
                true => facts.without_evidence(),
                false => facts,
            };
            let run_pricing = by_run.as_ref().map(|b| b.run(index, &recording));
            let pricing = Priced {
                profiles: &plan.pricing,
                primary: primary_pricing,
                by_run: run_pricing.as_ref(),
                priced: &plan.priced,
            };
            let runs = prompters
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    let mut run = match p {
                        // The recorded requests of a run whose prefix is unknown have no size:
                        // not measured, and not judged (its lack says why), rather than failed.
                        Ok(Prompter::AsSent) if recording.lacks.contains(&Lack::PromptPrefix) => {
                            unmeasured(i, &recording, plan.pricing.len())
                        }
                        Ok(p) => {
                            let mut run =
                                measure(p, i, &recording, &facts, &pricing, detail, counter);
                            clock.measure(&mut run);
                            run
                        }
                        Err(reason) => unusable(i, &recording, plan.pricing.len(), reason),
                    };
                    run.judged = judged[i];
                    run
                })
                .collect();
            let kept = keep_billed.then(|| match (is_billed, &bill_profiles) {
                (true, Some((pricing, info))) => {
                    let bytes = source.size();
                    let counted = bill::Counted::of(&recording, pricing, info, bytes, counter);
                    Ok(bill::ToBill { recording, counted })
                }
                (true, None) => Ok(bill::ToBill::from(recording)),
                (false, _) => Err(recording.label()),
            });
            progress();
            Ok((runs, kept))
        };
    let baseline = plan
        .variants
        .iter()
        .position(|v| v.label == plan.baseline)
        .unwrap_or(0);
    let mut totals = Totals::new(plan.variants.len(), plan.pricing.len(), baseline);
    let mut runs = Vec::new();
    let mut bad_recordings = BadRecordings::default();
    // A counter per thread, kept from run to run: the texts recordings share (the system
    // prompt, the templates' text, the lines runs repeat) are counted once for all of them.
    let counters = Counters::new(plan.tokenizer);
    let window = crate::parallel::Window {
        count: WINDOW,
        weight: WINDOW_BYTES,
    };
    crate::parallel::in_order(
        sources,
        window,
        |(_, source)| source.size(),
        |(index, source)| counters.with(|counter| measure_all(counter, *index, source)),
        |(index, source), result| {
            if presumed.is_some_and(Presumed::is_refuted) {
                return Ok(crate::parallel::Next::Stop);
            }
            match result {
                Ok((measures, kept)) => {
                    // An option's value the strategy refuses is the configuration's fault: one
                    // error that ends the run (exit 2, nothing written), not a failure on every
                    // recording.
                    if let Some(error) = measures.iter().find(|m| m.option_error) {
                        return Err(Error::Usage(format!(
                            "{} (a value the strategy refuses: see the configuration, --set and the variant's options)",
                            error.error.as_deref().unwrap_or_default()
                        )));
                    }
                    match (kept, &mut hand_billed) {
                        (Some(Ok(recording)), Some(hand)) => hand(recording),
                        (Some(Err(path)), _) => without_bill.push(path),
                        _ => {}
                    }
                    totals.add(index, &measures);
                    let label = source.label();
                    let details = measures.into_iter().map(|m| RunDetail {
                        place: (m.recording != label).then(|| label.clone()),
                        recording: m.recording,
                        variant: m.variant,
                        error: m.error,
                        prompts: m.prompts,
                    });
                    match &mut rows {
                        Rows::Sums => {}
                        Rows::Keep => runs.extend(details),
                        Rows::Each(each) => {
                            for detail in details {
                                each(index, detail)?;
                            }
                        }
                    }
                }
                Err(e) if strict => return Err(e),
                Err(e) => bad_recordings.push(BadRecording {
                    index,
                    label: source.label().display().to_string(),
                    error: e.to_string(),
                })?,
            }
            Ok(crate::parallel::Next::Continue)
        },
    )?;
    totals.price(&plan.pricing, &plan.by_run);
    let read = read.into_inner();
    let lacking: Vec<Lacking> = lacking
        .into_iter()
        .map(|lacking| {
            let (recordings, kinds) = lacking.into_inner().expect("no panic holds it");
            Lacking {
                recordings,
                kinds: kinds.into_iter().map(str::to_owned).collect(),
            }
        })
        .collect();
    let unjudged = lacking
        .iter()
        .zip(&totals.judged)
        .map(|(l, judged)| l.unjudged(judged.recordings, read))
        .collect();
    Ok(Ab {
        variants: plan.variants,
        baseline,
        pricing: plan.pricing,
        primary_pricing,
        tokenizer: plan.tokenizer,
        totals,
        runs,
        baseline_added: plan.baseline_added,
        bad_recordings,
        billed_recordings: billed.into_inner(),
        timed_recordings: Some(timed.into_inner()),
        unjudged,
        lacking,
        requirements: plan.requirements,
        billed: Billed { without_bill },
        rebuilt: {
            let mut rebuilt = rebuilt.into_inner().expect("no panic holds it");
            rebuilt.sort_by(|a, b| a.1.recording.cmp(&b.1.recording));
            rebuilt.into_iter().map(|(_, run)| run).collect()
        },
        by_run: by_run.map(by_run::ByRun::finish),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ab::spool::Spool;
    use crate::config::Config;
    use crate::plugins::LoadedStrategy;

    /// A host with two of the strategies `cargo test` built next to this test binary.
    fn host() -> Host {
        let deps = std::env::current_exe()
            .unwrap()
            .parent()
            .unwrap()
            .to_owned();
        let strategies = ["full_history", "turn_count"]
            .iter()
            .map(|name| {
                let file = deps.join(format!(
                    "{}ptc_strategy_{name}{}",
                    std::env::consts::DLL_PREFIX,
                    std::env::consts::DLL_SUFFIX
                ));
                LoadedStrategy::load(&file).unwrap()
            })
            .collect();
        Host::with_strategies(Config::defaults(), strategies)
    }

    /// The bundled real run that carries its bill (mini-swe-agent on DeepSeek).
    fn billed_run() -> (&'static str, &'static str) {
        *crate::examples::REAL_RUNS
            .iter()
            .find(|(name, _)| name.ends_with("mini-swe-agent-pvlib-1707.json"))
            .unwrap()
    }

    /// The first recording that cannot be read is the error.
    fn strict(rows: Rows<'_>) -> RunOptions<'_> {
        RunOptions {
            rows,
            strict: true,
            ..RunOptions::default()
        }
    }

    /// `copies` times the same bundled recording through both strategies.
    fn ab(host: &Host, copies: usize, detail: bool) -> Ab {
        let (name, json) = crate::examples::EXAMPLES
            .iter()
            .find(|(name, _)| *name == "data-exploration.json")
            .unwrap();
        let sources = vec![Source::Embedded { name, json }; copies];
        let plan = AbPlan::new(host, &PlanOptions::strategies("full-history,turn-count")).unwrap();
        let rows = if detail { Rows::Keep } else { Rows::Sums };
        run_corpus(host, plan, &sources, strict(rows)).unwrap()
    }

    #[test]
    fn without_detail_what_is_held_does_not_grow_with_the_recordings() {
        let host = host();
        let (one, many) = (ab(&host, 1, false), ab(&host, WINDOW + 3, false));
        assert_eq!((one.recordings(), many.recordings()), (1, WINDOW + 3));
        assert!(many.runs.is_empty(), "no run is kept without detail");
        assert_eq!(many.summaries().len(), 2);
        // The per-turn series are as long as the longest recording, whatever their number.
        let shape = |ab: &Ab| ab.by_turn().iter().map(Vec::len).collect::<Vec<_>>();
        assert_eq!(shape(&one), vec![4, 4]);
        assert_eq!(shape(&many), shape(&one));
        // Every recording reaches every turn of its own.
        assert_eq!(one.turn_reach(), [[1; 4], [1; 4]]);
        assert_eq!(many.turn_reach(), [[WINDOW + 3; 4], [WINDOW + 3; 4]]);
        for (a, b) in one.summaries().iter().zip(many.summaries()) {
            assert_eq!(b.prompts, a.prompts * (WINDOW + 3));
            assert_eq!(b.tokens, a.tokens * (WINDOW + 3));
        }
        for (a, b) in one.by_turn().iter().zip(many.by_turn()) {
            for ((tokens_a, _), (tokens_b, _)) in a.iter().zip(b) {
                assert_eq!(*tokens_a, tokens_b, "a mean over identical recordings");
            }
        }
    }

    #[test]
    fn rows_written_as_they_are_made_give_the_output_of_rows_kept() {
        let host = host();
        let (name, json) = crate::examples::EXAMPLES
            .iter()
            .find(|(name, _)| *name == "failure-recovery.json")
            .unwrap();
        let sources = vec![Source::Embedded { name, json }; 3];
        let plan =
            || AbPlan::new(&host, &PlanOptions::strategies("full-history,turn-count")).unwrap();
        let mut kept = run_corpus(&host, plan(), &sources, strict(Rows::Keep)).unwrap();
        kept.clear_timing();
        assert_eq!(kept.runs.len(), 3 * 2);

        let (mut json_rows, mut csv_rows) = (Spool::default(), Spool::default());
        let (variants, pricing) = (plan().variants, plan().pricing);
        let mut each = |_: usize, mut run: RunDetail| {
            run.prompts.iter_mut().for_each(|p| p.render_ns = 0);
            let first = json_rows.is_empty();
            json_rows.push(&report::json_run_text(&variants, &pricing, &run, first))?;
            csv_rows.push(&report::csv_rows(&variants, &run))
        };
        let mut positions = sources.iter().cloned().enumerate().map(Ok);
        let mut streamed =
            run_listed(&host, plan(), &mut positions, strict(Rows::Each(&mut each))).unwrap();
        streamed.clear_timing();
        assert!(streamed.runs.is_empty());
        let (mut json_out, mut csv_out) = (Vec::new(), Vec::new());
        report::write_json(&streamed, &mut json_rows, &mut json_out).unwrap();
        report::write_csv(&streamed, &mut csv_rows, &mut csv_out).unwrap();
        assert_eq!(
            String::from_utf8(json_out).unwrap(),
            crate::output::pretty(&report::json(&kept))
        );
        assert_eq!(String::from_utf8(csv_out).unwrap(), report::csv(&kept));

        // No row at all.
        let mut none = kept;
        none.runs.clear();
        let mut json_out = Vec::new();
        report::write_json(&none, &mut Spool::default(), &mut json_out).unwrap();
        assert_eq!(
            String::from_utf8(json_out).unwrap(),
            crate::output::pretty(&report::json(&none))
        );
    }

    #[test]
    fn unreadable_recordings_are_spooled_in_order_and_the_first_is_held() {
        let mut bad = BadRecordings::default();
        assert!(bad.is_empty() && bad.first().is_none());
        assert_eq!(bad.iter().unwrap().count(), 0);
        let all: Vec<BadRecording> = (0..2000)
            .map(|i| BadRecording {
                index: i * 3,
                label: format!("corpus/run-{i}.json"),
                error: format!("line {i}: \"quoted\"\nand a line break"),
            })
            .collect();
        for b in &all {
            bad.push(b.clone()).unwrap();
        }
        assert_eq!(bad.len(), 2000);
        assert_eq!(bad.first(), Some(&all[0]));
        for _ in 0..2 {
            let back: Vec<BadRecording> = bad.iter().unwrap().map(Result::unwrap).collect();
            assert_eq!(back, all);
        }
    }

    #[test]
    fn billed_recordings_are_handed_on_in_order_as_they_are_measured() {
        let host = host();
        let (name, json) = billed_run();
        // More copies than the bytes measured and not yet added up.
        let copies = (WINDOW_BYTES / json.len() as u64) as usize + 8;
        let listed = std::cell::Cell::new(0);
        let mut sources = (0..copies).map(|i| {
            listed.set(i + 1);
            Ok((i, Source::Embedded { name, json }))
        });
        let mut handed: Vec<(usize, usize)> = Vec::new();
        let mut hand = |run: bill::ToBill| {
            // Its billed calls counted where it was measured, for the comparison to take.
            assert!(run.counted.is_some());
            handed.push((listed.get(), run.recording.turns.len()))
        };
        let plan = AbPlan::new(&host, &PlanOptions::strategies("full-history")).unwrap();
        let options = RunOptions {
            billed: Some(&mut hand),
            ..strict(Rows::Sums)
        };
        let ab = run_listed(&host, plan, &mut sources, options).unwrap();
        assert_eq!(ab.billed_recordings, copies);
        assert!(ab.billed.without_bill.is_empty());
        assert_eq!(handed.len(), copies, "every billed recording, whole");
        assert!(handed.iter().all(|&(_, turns)| turns > 0));
        // The first recording went on once the bytes it waited with were listed, long before
        // the corpus was listed to its end: none is held for the whole run.
        let window = (WINDOW_BYTES / json.len() as u64) as usize + 1;
        assert!(
            handed[0].0 <= window && window < copies,
            "handed on after {} listed",
            handed[0].0
        );
    }

    #[test]
    fn a_profile_left_out_of_the_pricing_costs_nothing_and_the_others_the_same() {
        let host = host();
        let (name, json) = billed_run();
        let sources = vec![Source::Embedded { name, json }; 2];
        let plan = || AbPlan::new(&host, &PlanOptions::strategies("full-history")).unwrap();
        let every = run_corpus(&host, plan(), &sources, strict(Rows::Sums)).unwrap();
        // Only the cost column's profile (Anthropic's blocks) and OpenAI's chat format with
        // its breakpoints: the other countings are not made.
        let mut some = plan();
        some.price_only(|p| p.name == "openai-gpt-5-6");
        let kept: Vec<bool> = some.priced.clone();
        assert_eq!(kept.iter().filter(|&&k| k).count(), 2, "{kept:?}");
        let names: Vec<String> = some.pricing.iter().map(|p| p.name.clone()).collect();
        let fewer = run_corpus(&host, some, &sources, strict(Rows::Sums)).unwrap();
        for (all, few) in every.summaries().iter().zip(fewer.summaries()) {
            assert_eq!((all.tokens, all.prompts), (few.tokens, few.prompts));
            for (i, name) in names.iter().enumerate() {
                match kept[i] {
                    true => assert_eq!(all.costs[i], few.costs[i], "{name}"),
                    false => assert_eq!(few.costs[i], 0.0, "{name}"),
                }
            }
            assert!(all.costs.iter().all(|&c| c > 0.0), "{:?}", all.costs);
        }
    }

    #[test]
    fn detail_keeps_every_prompt_and_the_same_totals() {
        let host = host();
        let (mut brief, mut detailed) = (ab(&host, 3, false), ab(&host, 3, true));
        brief.clear_timing();
        detailed.clear_timing();
        assert_eq!(detailed.runs.len(), 3 * 2);
        assert!(detailed.runs.iter().all(|r| r.prompts.len() == 4));
        assert_eq!(brief.summaries(), detailed.summaries());
        assert_eq!(brief.by_turn(), detailed.by_turn());
    }
}
