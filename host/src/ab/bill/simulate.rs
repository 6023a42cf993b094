//! The simulated caches the billed calls are priced through, one after another (one cache per
//! run, or one per profile shared by its runs), and the miss rate fitted on what they read
//! against what the bill read.

use rustc_hash::FxHashMap;

use super::{MissFit, MissRate, Pending, RunBill};
use crate::cache::{CacheState, Caching, Placement};
use crate::pricing::{Pricing, ProfileInfo};

/// What the simulated caches hold, as calls are simulated one after another.
pub(super) struct Simulator {
    shared_cache: bool,
    /// Implicit caching: per cache, each prefix held, with when it was last sent.
    prefixes: FxHashMap<usize, FxHashMap<u64, f64>>,
    /// Implicit caching: when each run last sent a request (a gap longer than the TTL reads
    /// nothing).
    last_sent: FxHashMap<usize, f64>,
    explicit: FxHashMap<usize, CacheState>,
}

impl Simulator {
    /// Caches per profile when `shared_cache`, per run otherwise.
    pub(super) fn new(shared_cache: bool) -> Simulator {
        Simulator {
            shared_cache,
            prefixes: FxHashMap::default(),
            last_sent: FxHashMap::default(),
            explicit: FxHashMap::default(),
        }
    }

    /// Starts the calls of another run: with one cache per run, what the caches of the runs
    /// before held is never read again and is forgotten, so that what the simulator holds does
    /// not grow with the corpus.
    pub(super) fn next_run(&mut self) {
        if !self.shared_cache {
            self.prefixes.clear();
            self.last_sent.clear();
            self.explicit.clear();
        }
    }

    /// Simulates one call, after those of its cache before it, and files it under its run.
    pub(super) fn call(
        &mut self,
        pending: Pending,
        runs: &mut [RunBill],
        used: &[usize],
        pricing: &[Pricing],
        info: &[ProfileInfo],
    ) {
        let Pending {
            run,
            mut call,
            shared,
            previous,
            response,
            prefixes: ends,
            request,
        } = pending;
        let shared_cache = self.shared_cache;
        let (prefixes, last_sent, explicit) =
            (&mut self.prefixes, &mut self.last_sent, &mut self.explicit);
        let slot = runs[run].profile;
        let (profile, about) = (&pricing[used[slot]], &info[used[slot]]);
        let cache_key = if shared_cache { slot } else { usize::MAX - run };
        let scale = if call.counted == 0 {
            1.0
        } else {
            call.billed_prompt as f64 / call.counted as f64
        };
        let (read, written) = match profile.caching {
            _ if profile.min_cacheable_tokens == 0 => (0, 0),
            Caching::Implicit => {
                let held = prefixes.entry(cache_key).or_default();
                let (now, ttl) = (call.at.unwrap_or(0.0), profile.ttl.seconds());
                let gap = call
                    .at
                    .and_then(|now| last_sent.insert(run, now).map(|then| now - then));
                let expired = gap.is_some_and(|gap| gap > ttl);
                // The previous request of the same run is held whole (it may share the start
                // of a message); every earlier one (of this run, or of any run when the cache
                // is shared) at its message boundaries, while it is within the TTL.
                let stored = ends
                    .iter()
                    .filter(|(key, _)| held.get(key).is_some_and(|&at| now - at <= ttl))
                    .map(|&(_, end)| end)
                    .max()
                    .unwrap_or(0);
                held.extend(ends.iter().map(|&(key, _)| (key, now)));
                // The prefix shared with the previous request is measured back from that
                // request's billed size (exact) by ptc's count of what differs, scaled; other
                // prefixes by this call's scale.
                let from_previous = match previous {
                    _ if expired => 0.0,
                    Some((counted, billed)) if about.cache_includes_output && counted > 0 => {
                        match response {
                            Some(response) => {
                                billed as f64 + response as f64 * billed as f64 / counted as f64
                            }
                            None => shared as f64 * scale,
                        }
                    }
                    Some((counted, billed)) if shared > 0 && counted > 0 => {
                        let unshared = counted.saturating_sub(shared as u64) as f64;
                        (billed as f64 - unshared * billed as f64 / counted as f64).max(0.0)
                    }
                    _ => shared as f64 * scale,
                };
                let prefix = from_previous.max(stored as f64 * scale) as u64;
                (stepped(prefix, call.billed_prompt, profile), 0)
            }
            Caching::PrefixUnits => {
                // The units are found in ptc's count, then scaled; the minimum and the steps
                // apply in billed tokens.
                let mut units = profile.clone();
                (units.min_cacheable_tokens, units.cache_step_tokens) = (1, 1);
                let cache = explicit.entry(cache_key).or_default();
                let unit = (units.cost(&request, cache).read as f64 * scale) as u64;
                (stepped(unit, call.billed_prompt, profile), 0)
            }
            Caching::Explicit | Caching::OpenAiBreakpoints | Caching::GeminiExplicit => {
                // Nothing recorded where the agent asked for caching: the breakpoints go where
                // automatic caching puts them, unless the profile says otherwise.
                let mut auto = profile.clone();
                if auto.placement == Placement::Strategy {
                    auto.placement = Placement::Auto;
                }
                let cache = explicit.entry(cache_key).or_default();
                let cost = auto.cost(&request, cache);
                let read = (cost.read as f64 * scale) as u64;
                let written = ((cost.written as f64 * scale) as u64)
                    .min(call.billed_prompt.saturating_sub(read));
                (read.min(call.billed_prompt), written)
            }
        };
        // A price tier (by prompt length, by the hour) multiplies every price of the call,
        // output included.
        let tier = profile.tiers.factor(call.billed_prompt, call.at);
        let output = call.output as f64 * about.output_per_mtok / 1_000_000.0;
        let plain = call.billed_prompt - read - written;
        call.simulated_read = read;
        call.simulated_written = written;
        call.best_cost = profile
            .priced(read as usize, written as usize, plain as usize)
            .cost
            + output;
        call.best_cost *= tier;
        call.miss_cost = match profile.caching {
            Caching::Implicit | Caching::PrefixUnits => {
                profile.priced(0, 0, call.billed_prompt as usize).cost
            }
            Caching::Explicit | Caching::OpenAiBreakpoints | Caching::GeminiExplicit => {
                profile
                    .priced(0, (read + written) as usize, plain as usize)
                    .cost
            }
        } + output;
        call.miss_cost *= tier;
        let billed_plain = call.billed_prompt - call.billed_read - call.billed_written;
        call.priced_bill = profile
            .priced(
                call.billed_read as usize,
                call.billed_written as usize,
                billed_plain as usize,
            )
            .cost
            + output;
        call.priced_bill *= tier;
        runs[run].calls.push(call);
    }
}

/// What a fit adds up of a run's calls ([`MissFit`]'s counts): the calls the best case has
/// reading (none on a run with no billed read) and, of those, the calls that read nothing,
/// the tokens they read in the best case and the tokens the bill read.
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
pub(super) struct FitSums {
    predicted: usize,
    missed: usize,
    predicted_tokens: u64,
    read_tokens: u64,
}

impl FitSums {
    /// The sums of `run`'s calls.
    pub(super) fn of(run: &RunBill) -> FitSums {
        let mut sums = FitSums::default();
        if !run.any_read() {
            return sums;
        }
        for call in run
            .calls
            .iter()
            .filter(|c| c.simulated_read > 0 && !c.apart)
        {
            sums.predicted += 1;
            sums.missed += usize::from(call.billed_read == 0);
            sums.predicted_tokens += call.simulated_read;
            // Reads a little over the best case (the provider's units fall either side of
            // ptc's scaled count) offset those a little under.
            sums.read_tokens += call.billed_read;
        }
        sums
    }

    pub(super) fn add(self, other: FitSums) -> FitSums {
        FitSums {
            predicted: self.predicted + other.predicted,
            missed: self.missed + other.missed,
            predicted_tokens: self.predicted_tokens + other.predicted_tokens,
            read_tokens: self.read_tokens + other.read_tokens,
        }
    }

    /// These sums less those of a run they hold.
    fn less(self, held: FitSums) -> FitSums {
        FitSums {
            predicted: self.predicted - held.predicted,
            missed: self.missed - held.missed,
            predicted_tokens: self.predicted_tokens - held.predicted_tokens,
            read_tokens: self.read_tokens - held.read_tokens,
        }
    }
}

/// The miss rate of the profile whose runs' calls add up to `sums` ([`FitSums::of`]).
pub(super) fn miss_fit(sums: FitSums, rate: MissRate) -> MissFit {
    let mut fit = MissFit {
        rate: 0.0,
        fitted: rate == MissRate::Fit,
        predicted: sums.predicted,
        missed: sums.missed,
        predicted_tokens: sums.predicted_tokens,
        read_tokens: sums.read_tokens,
    };
    fit.rate = match rate {
        MissRate::Fixed(rate) => rate,
        MissRate::Fit if fit.predicted_tokens == 0 => 0.0,
        MissRate::Fit => (1.0 - fit.read_tokens as f64 / fit.predicted_tokens as f64).max(0.0),
    };
    fit
}

/// The miss rate fitted on the runs of `run`'s profile but `run`, from the sums of all of them
/// (`slot_sums`, its profile's): those less its own, in one step however many
/// runs there are.
pub(super) fn held_out_fit(run: &RunBill, slot_sums: FitSums) -> MissFit {
    miss_fit(slot_sums.less(FitSums::of(run)), MissRate::Fit)
}

/// What an implicit cache reads of a `prefix` (billed tokens) for a call billed `billed`
/// prompt tokens: nothing under the profile's minimum, else the prefix in its steps.
fn stepped(prefix: u64, billed: u64, profile: &Pricing) -> u64 {
    let (min, step) = (
        profile.min_cacheable_tokens as u64,
        profile.cache_step_tokens.max(1) as u64,
    );
    if billed >= min && prefix >= min {
        (prefix / step * step).min(billed)
    } else {
        0
    }
}
