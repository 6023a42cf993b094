//! Whether a price tier decided a verdict: the verdicts again with every request at the
//! prices listed (no tier); where one names another strategy or placement, the tier decided
//! it, and the verdict names the one it would be without.

use super::requirement::Requirements;
use super::verdict::{cheapest_judged, Qualifier, Verdict};
use crate::ab::{Ab, Judged};
use crate::pricing::{Pricing, Tiers};

/// One verdict per provider ([`cheapest_judged`]), each saying when a tier decided it.
pub(super) fn verdicts(ab: &Ab) -> Vec<Verdict> {
    let names: Vec<String> = ab
        .by_run
        .iter()
        .flat_map(|b| b.profiles.iter().map(|(name, _)| name.clone()))
        .collect();
    tiered(
        &ab.pricing,
        ab.judged(),
        ab.baseline,
        &ab.requirements,
        &ab.unjudged,
        &names,
    )
}

/// What a verdict a tier decided says: the strategy (and placement, when it is another) that
/// would be the verdict without tiers.
pub(super) fn qualifier(ab: &Ab, verdict: &Verdict) -> Option<Qualifier> {
    let (variant, profile) = verdict.untiered?;
    let label = &ab.variants[variant].label;
    let keys = match ab.pricing[profile].name.split_once('@') {
        Some((_, keys)) if profile != verdict.profile => format!(" ({})", keys.replace('@', ", ")),
        _ => String::new(),
    };
    Some(Qualifier {
        short: format!("a tier decided it: {label}{keys} without tiers"),
        long: format!(
            "a price tier decided it (priced without tiers, {label}{keys} would be the cheapest)"
        ),
    })
}

/// [`cheapest_judged`], each verdict with the one it would be with every request at the
/// prices listed when a price tier decided it (`by_run`: the billed profiles of a corpus
/// priced run by run).
pub(super) fn tiered(
    pricing: &[Pricing],
    judged: &[Judged],
    baseline: usize,
    requirements: &Requirements,
    unjudged: &[Option<String>],
    by_run: &[String],
) -> Vec<Verdict> {
    let mut verdicts = cheapest_judged(pricing, judged, baseline, requirements, unjudged);
    if pricing.iter().all(|p| p.tiers.is_empty()) {
        return verdicts;
    }
    // The same verdicts with every request at the prices listed: where they differ, a tier
    // decided the verdict.
    let listed: Vec<Pricing> = pricing
        .iter()
        .map(|p| Pricing {
            tiers: Tiers::default(),
            ..p.clone()
        })
        .collect();
    let summed = crate::ab::by_run::summed(&listed, by_run);
    let judged: Vec<Judged> = judged
        .iter()
        .map(|j| {
            let mut j = j.clone();
            j.summary.price_summed(&listed, summed.as_ref());
            j.baseline.price_summed(&listed, summed.as_ref());
            j
        })
        .collect();
    let without = cheapest_judged(&listed, &judged, baseline, requirements, unjudged);
    for verdict in &mut verdicts {
        let other = without.iter().find(|w| w.provider == verdict.provider);
        if let Some(w) =
            other.filter(|w| (w.variant, w.profile) != (verdict.variant, verdict.profile))
        {
            verdict.untiered = Some((w.variant, w.profile));
        }
    }
    verdicts
}
