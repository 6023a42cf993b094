//! The prompts of a run measured under a profile whose placement is settled once the run is
//! known (`breakpoints=planned`, `breakpoints=bound`): each was priced provisionally; at the
//! run's end (or where it failed) its cost under such a profile is replaced by the settled
//! one, and the prompts are added up.

use crate::ab::measure::{Priced, PromptMeasure, RunMeasure};
use crate::ab::summary::CacheTokens;
use crate::cache::CacheState;

/// Settles `deferred` (each prompt with the number of model calls made to build it) under
/// every profile of `priced` in hindsight, from what its cache in `caches` recorded, and adds
/// the prompts to `run`.
pub(super) fn settle(
    run: &mut RunMeasure,
    mut deferred: Vec<(PromptMeasure, usize)>,
    priced: &Priced<'_>,
    caches: &[CacheState],
    detail: bool,
) {
    let skipped = |i: usize, turn: usize| priced.skips(i, turn);
    for (i, (profile, cache)) in priced.profiles.iter().zip(caches).enumerate() {
        let Some(settled) = profile.settle(cache) else {
            continue;
        };
        // Each profile priced its calls, then its prompt, on each turn it prices.
        let priced_here: usize = deferred
            .iter()
            .filter(|(m, _)| !skipped(i, m.turns))
            .map(|(_, calls)| calls + 1)
            .sum();
        if priced_here != settled.len() {
            // A profile that caches nothing (minimum 0) skipped a request: its costs do not
            // depend on the placement, and stay as priced.
            continue;
        }
        let mut next = settled.iter();
        for (measure, calls) in &mut deferred {
            if skipped(i, measure.turns) {
                continue;
            }
            let cost = &mut measure.costs[i];
            for (was, now) in next.by_ref().take(*calls) {
                cost.resettle_call(was, now);
            }
            if let Some((was, now)) = next.next() {
                cost.resettle(was, now);
            }
        }
    }
    for (mut measure, _) in deferred {
        if let Some((slot, own)) = priced.by_run.and_then(|b| b.as_billed(measure.turns)) {
            measure.costs[slot] = measure.costs[own];
        }
        run.totals.add_prompt(&measure, priced.primary);
        run.by_turn.push((
            measure.tokens,
            CacheTokens::from(&measure.costs[priced.primary]),
        ));
        if detail {
            run.prompts.push(measure);
        }
    }
}
