//! The cost simulation checked against what providers billed: the requests a recording holds
//! (as sent) are priced by the simulated cache rule of the provider that served them, call by
//! call, and set beside the usage the provider reported for the same call.
//!
//! The simulation is the best case: every prefix the rule allows to be read is read. Real
//! caches miss sometimes, so a miss rate (measured on billed runs, or given) turns the best case
//! into an expectation: a call the best case has reading from the cache reads nothing with that
//! probability. Runs whose calls read nothing at all (a provider that did not cache) are kept
//! apart: they say where a run was served, not how often a cache misses; so are stretches of
//! calls that read nothing inside a run that reads elsewhere (`stretch`).
//!
//! Tokens are counted by ptc's tokenizer, in the request format of the run's profile
//! ([`Counting`]: Anthropic's blocks for explicit caching, OpenAI's chat format for implicit);
//! the tokenizer is not the provider's: each request's prefix is
//! measured in ptc's tokens, then scaled by that call's billed prompt over ptc's count of it,
//! so that the cache's steps and minimum apply in the provider's tokens. The scale factors are
//! reported (how far ptc's count is from the bill).

mod call;
mod counted;
mod measure;
mod profile;
mod report;
mod simulate;
mod stretch;
mod to_json;

use std::path::PathBuf;

use crate::pricing::{Pricing, ProfileInfo};
use crate::recording::Recording;
use crate::tokens::{Counter, Tokenizer};
use crate::Error;

pub use call::Call;
pub use counted::Counted;
use measure::{measure, Pending};
pub use profile::{billed_by_turn, inferred_provider_note, is_billed, model_without_provider};
use profile::{first_billed, first_sent, for_model, one_profile};
pub use report::{billed_profiles, heading, table};
use simulate::{held_out_fit, miss_fit, FitSums, Simulator};
pub use stretch::STRETCH_CALLS;
pub use to_json::json;

/// How close a simulated read must come to the billed one to count as right, in tokens.
pub const READ_TOLERANCE: u64 = 128;

/// What the miss rate is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MissRate {
    /// Measured on the runs compared: of the tokens the best case reads from the cache, the
    /// share the bill did not read, on runs with at least one read.
    Fit,
    /// Given.
    Fixed(f64),
}

/// What the comparison is asked for.
#[derive(Clone, Debug)]
pub struct BillOptions {
    pub miss_rate: MissRate,
    /// One cache across every run served by one profile, in the order the calls were sent
    /// (runs sharing a provider and a prefix read what another wrote); else one per run.
    pub shared_cache: bool,
    /// The profile every run is priced with; else each run's from the provider and model its
    /// usage names.
    pub profile: Option<String>,
    /// Whether each run is kept with its calls ([`Bill::runs`]: the table of runs, the JSON);
    /// else, with one cache per run, each run is added up once simulated and dropped (what
    /// [`heading`] says needs no more), so that memory does not grow with the corpus.
    pub keep_runs: bool,
}

/// The billed calls of one run.
#[derive(Clone, Debug, PartialEq)]
pub struct RunBill {
    pub recording: PathBuf,
    /// Index into [`Bill::profiles`].
    pub profile: usize,
    pub provider: Option<String>,
    pub model: Option<String>,
    pub calls: Vec<Call>,
    /// Turns with usage but no request, or a request but no usage: not compared.
    pub skipped: usize,
    /// The miss rate fitted on the other runs of its profile (a check of the fitted rate on a
    /// run it was not fitted on); `None` when the rate is given, or no other run has reads.
    pub held_out_rate: Option<f64>,
    /// Its requests are rebuilt from its log (none was recorded as sent), with this prefix
    /// inferred from the bill; `Some(None)` when it could not be inferred (then no call is
    /// compared); `None` for recorded requests.
    pub rebuilt: Option<Option<u64>>,
}

/// How many runs and billed calls a comparison holds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Compared {
    pub runs: usize,
    pub calls: usize,
}

/// A profile's miss rate and how it was found.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MissFit {
    pub rate: f64,
    pub fitted: bool,
    /// Calls the best case has reading, on runs with at least one billed read.
    pub predicted: usize,
    /// Of those, the calls that read nothing.
    pub missed: usize,
    /// The tokens those calls read in the best case.
    pub predicted_tokens: u64,
    /// Of those, the tokens the bill read.
    pub read_tokens: u64,
}

/// The comparison of a corpus.
#[derive(Clone, Debug)]
pub struct Bill {
    pub tokenizer: Tokenizer,
    pub shared_cache: bool,
    /// The calls were simulated in the order they were sent (every call has a time); else in
    /// corpus order.
    pub time_ordered: bool,
    /// The profiles used, each with its miss rate.
    pub profiles: Vec<(Pricing, ProfileInfo, MissFit)>,
    /// The runs compared, when they are kept ([`BillOptions::keep_runs`]).
    pub runs: Vec<RunBill>,
    /// How many runs and billed calls were compared, kept or not.
    pub compared: Compared,
    /// Recordings with no billed call to compare (no usage, or no requests).
    pub without_bill: Vec<PathBuf>,
}

/// A recording to compare with its bill.
pub struct ToBill {
    pub recording: Recording,
    /// Its billed calls, when they were counted where it was read ([`Counted::of`]).
    pub counted: Option<Counted>,
}

impl From<Recording> for ToBill {
    fn from(recording: Recording) -> ToBill {
        ToBill {
            recording,
            counted: None,
        }
    }
}

impl Bill {
    /// Compares `recordings` with their bills.
    pub fn new(
        recordings: impl IntoIterator<Item = Recording>,
        pricing: &[Pricing],
        info: &[ProfileInfo],
        tokenizer: Tokenizer,
        options: &BillOptions,
    ) -> Result<Bill, Error> {
        Bill::read(
            recordings.into_iter().map(|r| Ok(ToBill::from(r))),
            pricing,
            info,
            tokenizer,
            options,
        )
    }

    /// Compares the recordings `recordings` reads, one at a time (each is measured, then
    /// dropped), with their bills; the first that cannot be read is the error. A recording's
    /// calls counted already ([`ToBill::counted`]) are taken as they are when they were
    /// counted under the caching of the profile the run is priced by.
    pub fn read(
        recordings: impl IntoIterator<Item = Result<ToBill, Error>>,
        pricing: &[Pricing],
        info: &[ProfileInfo],
        tokenizer: Tokenizer,
        options: &BillOptions,
    ) -> Result<Bill, Error> {
        // The profiles, to which a model's own rule is added when a run needs it.
        let mut pricing = pricing.to_vec();
        let mut info = info.to_vec();
        let forced =
            match &options.profile {
                Some(name) => Some(pricing.iter().position(|p| &p.name == name).ok_or_else(
                    || {
                        Error::unknown_name(
                            "pricing profile",
                            name,
                            &pricing.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(),
                        )
                    },
                )?),
                None => None,
            };
        let mut counter = Counter::new(tokenizer);
        let mut used: Vec<usize> = Vec::new();
        let mut runs = Vec::new();
        // A call is simulated as soon as it is counted, unless the cache is shared: then the
        // calls of every run are simulated together, in the order they were sent. Holding no
        // more than one call at a time keeps a run's requests, which repeat each other, from
        // taking memory in the square of its turns.
        let mut pending = Vec::new();
        let mut simulator = Simulator::new(options.shared_cache);
        // Per profile slot, what its miss rate is fitted on, added up as each run is finished.
        let mut sums: Vec<FitSums> = Vec::new();
        let mut compared = Compared::default();
        let mut time_ordered = true;
        let mut without_bill = Vec::new();
        let mut usage_only = 0;
        // Every billed token of the corpus: within 64 bits, no sum of the report can wrap.
        let mut total: u64 = 0;
        for recording in recordings {
            let ToBill { recording, counted } = recording?;
            // The texts of the runs before are forgotten: what the counter holds does not grow
            // with the corpus.
            counter.next_run();
            simulator.next_run();
            for usage in recording.usage.iter().flatten() {
                total = usage
                    .tokens()
                    .and_then(|tokens| total.checked_add(tokens))
                    .ok_or_else(|| Error::BillTooLarge {
                        path: recording.path.clone(),
                    })?;
            }
            let Some((provider, model)) = first_billed(&recording) else {
                usage_only += usize::from(recording.usage.iter().any(Option::is_some));
                without_bill.push(recording.label());
                continue;
            };
            let profile = match forced {
                Some(profile) => for_model(
                    &mut pricing,
                    &mut info,
                    profile,
                    model.as_deref(),
                    first_sent(&recording),
                ),
                None => one_profile(&recording, &mut pricing, &mut info)?,
            };
            let slot = match used.iter().position(|&u| u == profile) {
                Some(slot) => slot,
                None => {
                    used.push(profile);
                    used.len() - 1
                }
            };
            let run = runs.len();
            compared.runs += 1;
            runs.push(RunBill {
                recording: recording.label(),
                profile: slot,
                provider,
                model,
                calls: Vec::new(),
                skipped: 0,
                held_out_rate: None,
                rebuilt: recording
                    .requests
                    .iter()
                    .flatten()
                    .any(|r| r.rebuilt)
                    .then_some(recording.inferred_prefix),
            });
            let mut take = |call: Pending| {
                time_ordered &= call.call.at.is_some();
                if options.shared_cache {
                    pending.push(call);
                } else {
                    simulator.call(call, &mut runs, &used, &pricing, &info);
                }
            };
            let skipped = match counted.filter(|c| c.caching == pricing[profile].caching) {
                Some(counted) => {
                    for call in counted.calls {
                        take(Pending { run, ..call });
                    }
                    counted.skipped
                }
                None => measure(&recording, run, &pricing[profile], &mut counter, &mut take),
            };
            runs[run].skipped = skipped;
            // With one cache per run, every call of it is simulated now.
            if !options.shared_cache {
                finish(&mut runs[run], &mut sums, &mut compared);
                if !options.keep_runs {
                    runs.pop();
                }
            }
        }
        if compared.runs == 0 {
            let why = if usage_only > 0 {
                format!(
                    ": {usage_only} of {} carry billed usage, but their logs do not record the requests sent, so there is nothing to simulate",
                    without_bill.len()
                )
            } else {
                " (real runs imported with `ptc import` from logs that keep both)".to_owned()
            };
            return Err(Error::NothingBilled { why });
        }
        if options.shared_cache && time_ordered {
            // Stable: calls sent at the same second keep their corpus order.
            pending.sort_by(|a, b| a.call.at.partial_cmp(&b.call.at).expect("times are finite"));
        }
        for call in pending {
            simulator.call(call, &mut runs, &used, &pricing, &info);
        }
        if options.shared_cache {
            for run in runs.iter_mut() {
                finish(run, &mut sums, &mut compared);
            }
        }
        // Each profile's fit adds up the calls of its runs; each run's own (held out) is that
        // less its calls: one pass over the runs for all of them. Every profile used has a
        // finished run, so `sums` has a slot for each.
        debug_assert_eq!(sums.len(), used.len());
        let profiles = used
            .iter()
            .zip(&sums)
            .map(|(&p, &sums)| {
                let fit = miss_fit(sums, options.miss_rate);
                (pricing[p].clone(), info[p].clone(), fit)
            })
            .collect();
        if options.miss_rate == MissRate::Fit {
            for run in runs.iter_mut() {
                let fit = held_out_fit(run, sums[run.profile]);
                run.held_out_rate = (fit.predicted > 0).then_some(fit.rate);
            }
        }
        Ok(Bill {
            tokenizer,
            shared_cache: options.shared_cache,
            time_ordered,
            profiles,
            runs,
            compared,
            without_bill,
        })
    }
}

/// A run whose every call is simulated: its calls in turn order, its stretches that read
/// nothing marked, and its calls added to its profile's fit (`sums`) and to `compared`.
fn finish(run: &mut RunBill, sums: &mut Vec<FitSums>, compared: &mut Compared) {
    run.calls.sort_by_key(|c| c.turn);
    stretch::mark(run);
    if sums.len() <= run.profile {
        sums.resize(run.profile + 1, FitSums::default());
    }
    sums[run.profile] = sums[run.profile].add(FitSums::of(run));
    compared.calls += run.calls.len();
}

impl RunBill {
    /// Whether any call of the run read from the cache.
    pub fn any_read(&self) -> bool {
        self.calls.iter().any(|c| c.billed_read > 0)
    }
}

#[cfg(test)]
mod tests;
