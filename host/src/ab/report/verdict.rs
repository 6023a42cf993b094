//! The answer a user runs `ptc ab` for: per provider, which strategy, with which cache
//! placement, is the cheapest of those that meet the requirements ([`Requirements`]: by
//! default every symbol, the latest error and 90% of the literals the next actions cite), with
//! the figures of what it keeps beside it. A strategy that failed on some recording does not qualify. The pricing
//! profiles of one provider are the profile and its variants (`anthropic`,
//! `anthropic@breakpoints=auto`): they are compared together, so the answer names the
//! placement too.

pub use super::providers::{family, is_no_hits};
use super::requirement::{Measure, Requirement, Requirements, MIN_EVIDENCE};
#[cfg(test)]
use super::tier_decided::tiered;
use crate::ab::plan::NO_HITS;
use crate::ab::{Ab, Judged, Summary};
use crate::cache::{Caching, Ttl};
use crate::pricing::Pricing;

/// The cheapest (variant, profile) of one provider.
#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    /// The profile judged: its name without its placement ([`family`]).
    pub provider: String,
    /// Index in [`Ab::variants`].
    pub variant: usize,
    /// Index in [`Ab::pricing`].
    pub profile: usize,
    /// Cost relative to the baseline under the provider's own profile.
    pub vs_baseline: Option<f64>,
    /// Whether the strategy meets every requirement; when no strategy does, the verdict is the
    /// cheapest of all.
    pub meets: bool,
    /// When the provider promises no cache hit: the cost relative to the baseline with no
    /// hit at all (its profile with `hits=none`), the other end of the range whose best case
    /// is `vs_baseline`.
    pub no_hits: Option<f64>,
    /// When a price tier decided it: the variant and profile that would be the verdict with
    /// every request priced at the prices listed (no tier).
    pub untiered: Option<(usize, usize)>,
}

/// One verdict per provider, in the order of the profiles. Each strategy is weighed on the
/// recordings it is judged on, against the baseline on the same recordings ([`Ab::judged`]).
pub fn verdicts(ab: &Ab) -> Vec<Verdict> {
    super::tier_decided::verdicts(ab)
}

/// [`verdicts`] from the profiles, the baseline's summary, every variant's and the
/// requirements, every variant judged on every recording.
#[cfg(test)]
fn cheapest(
    pricing: &[Pricing],
    base: &Summary,
    summaries: &[Summary],
    requirements: &Requirements,
) -> Vec<Verdict> {
    let baseline = summaries
        .iter()
        .position(|s| std::ptr::eq(s, base))
        .expect("the baseline is one of the summaries");
    cheapest_judged(
        pricing,
        &judged_on_all(summaries, baseline),
        baseline,
        requirements,
        &[],
    )
}

/// Every variant of `summaries` judged on every recording (one), beside `baseline`.
#[cfg(test)]
fn judged_on_all(summaries: &[Summary], baseline: usize) -> Vec<Judged> {
    summaries
        .iter()
        .map(|s| Judged {
            recordings: 1,
            summary: s.clone(),
            baseline: summaries[baseline].clone(),
        })
        .collect()
}

/// A variant's cost under profile `p` relative to the baseline's under `own` on the same
/// recordings (its cost alone when the baseline's is 0).
fn relative(judged: &Judged, p: usize, own: usize) -> f64 {
    let base = judged.baseline.costs[own];
    let cost = judged.summary.costs[p];
    if base > 0.0 {
        cost / base
    } else {
        cost
    }
}

/// [`cheapest`] among the variants that can be judged (`unjudged[v]` is `None`, or missing),
/// each weighed against the baseline on the recordings it is judged on.
pub(super) fn cheapest_judged(
    pricing: &[Pricing],
    judged: &[Judged],
    baseline: usize,
    requirements: &Requirements,
    unjudged: &[Option<String>],
) -> Vec<Verdict> {
    let can_judge = |v: usize| unjudged.get(v).is_none_or(Option::is_none);
    let mut providers: Vec<(String, Vec<usize>)> = Vec::new();
    for (i, p) in pricing.iter().enumerate() {
        // The profile with no hits is the other end of a range, not a choice.
        if is_no_hits(p) {
            continue;
        }
        let provider = family(&p.name);
        match providers.iter_mut().find(|(name, _)| *name == provider) {
            Some((_, profiles)) => profiles.push(i),
            None => providers.push((provider, vec![i])),
        }
    }
    providers
        .into_iter()
        .filter_map(|(provider, profiles)| {
            let none = pricing
                .iter()
                .position(|p| p.name == format!("{provider}@{NO_HITS}"));
            let own = *profiles.first()?;
            let candidates = |qualified: bool| {
                judged
                    .iter()
                    .enumerate()
                    .filter(move |&(v, j)| {
                        can_judge(v)
                            && j.recordings > 0
                            && j.summary.prompts > 0
                            && crate::ab::by_run::priced_any(j, own)
                            && (!qualified || requirements.met_by(&j.summary))
                    })
                    .flat_map(|(v, j)| profiles.iter().map(move |&p| (v, p, relative(j, p, own))))
                    .min_by(|a, b| a.2.total_cmp(&b.2))
            };
            let (best, meets) = match candidates(true) {
                Some(best) => (best, true),
                None => (candidates(false)?, false),
            };
            let (mut variant, mut profile, _) = best;
            let mut meets = meets;
            // Never the cheapest where it costs more than the baseline on the same recordings
            // under the profile judged: then the baseline stands.
            let chosen = &judged[variant];
            // (The baseline judged on none of the provider's runs, priced run by run, cannot
            // stand: the cheapest judged there is the answer.)
            let base = judged
                .get(baseline)
                .filter(|b| b.summary.prompts > 0 && crate::ab::by_run::priced_any(b, own));
            if let Some(base) = base.filter(|_| {
                chosen.baseline.costs[own] > 0.0
                    && chosen.summary.costs[profile] > chosen.baseline.costs[own]
            }) {
                (variant, profile) = (baseline, own);
                meets = requirements.met_by(&base.summary);
            }
            let chosen = &judged[variant];
            let ratio = |n: usize| {
                (chosen.baseline.costs[n] > 0.0).then(|| {
                    let p = if n == own { profile } else { n };
                    chosen.summary.costs[p] / chosen.baseline.costs[n]
                })
            };
            Some(Verdict {
                provider: provider.clone(),
                variant,
                profile,
                vs_baseline: ratio(own),
                meets,
                no_hits: none.and_then(ratio),
                untiered: None,
            })
        })
        .collect()
}

/// A share as a whole percentage, never 100 for a share just below it.
fn whole_percent(kept: f64) -> f64 {
    let percent = (kept * 100.0).round();
    if kept < 1.0 {
        percent.min(99.0)
    } else {
        percent
    }
}

/// What a verdict's figure holds under, in words short (`on 1 of 4 runs`) and long (`on the 1
/// of 4 recordings it is judged on`), in the order they are said.
#[derive(Clone, Debug, PartialEq)]
pub struct Qualifier {
    pub short: String,
    pub long: String,
}

/// The placement of a verdict's profile among its provider's, after the strategy: the keys
/// its name sets (`breakpoints=auto, cache_ttl=1h`), or for the provider's own profile its
/// placement, and its TTL when another of the group has another one; empty when the
/// provider has one profile.
pub fn placement(ab: &Ab, verdict: &Verdict) -> String {
    let profile = &ab.pricing[verdict.profile];
    let group: Vec<&Pricing> = ab
        .pricing
        .iter()
        .filter(|p| p.name.split('@').next() == Some(verdict.provider.as_str()) && !is_no_hits(p))
        .collect();
    match profile.name.split_once('@') {
        _ if group.len() < 2 => String::new(),
        Some((_, keys)) => keys.replace('@', ", "),
        None if group.iter().any(|p| p.ttl != profile.ttl) => format!(
            "breakpoints={}, cache_ttl={}",
            profile.placement,
            profile.ttl.as_str()
        ),
        None => format!("breakpoints={}", profile.placement),
    }
}

/// The verdict's figure against the baseline: `0.88x full-history (12% less)`.
pub fn versus(ab: &Ab, verdict: &Verdict) -> String {
    let baseline = &ab.variants[ab.baseline].label;
    match verdict.vs_baseline {
        Some(r) if r < 1.0 => format!("{r:.2}x {baseline} ({:.0}% less)", (1.0 - r) * 100.0),
        Some(r) if r > 1.0 => format!("{r:.2}x {baseline} ({:.0}% more)", (r - 1.0) * 100.0),
        Some(r) => format!("{r:.2}x {baseline}"),
        None => "no baseline cost to compare".to_owned(),
    }
}

/// What the verdict's figure holds under: the recordings it is judged on when not all, the
/// best case of a provider that promises no hit, and the calls' spacing a cache that expires
/// needs when the runs carry no call times.
pub fn qualifiers(ab: &Ab, verdict: &Verdict) -> Vec<Qualifier> {
    let profile = &ab.pricing[verdict.profile];
    let mut said = Vec::new();
    if let Some((short, long)) = ab.by_run.as_ref().and_then(|b| b.qualifier(&profile.name)) {
        said.push(Qualifier { short, long });
    }
    let judged = &ab.judged()[verdict.variant];
    let all = ab.recordings();
    if judged.recordings < all {
        let n = judged.recordings;
        said.push(Qualifier {
            short: format!("on {n} of {all} runs"),
            long: format!("on the {n} of {all} recordings it is judged on"),
        });
    }
    said.extend(super::tier_decided::qualifier(ab, verdict));
    if let Some(r) = verdict.no_hits {
        said.push(Qualifier {
            short: format!("best case, {r:.2}x with no cache hit"),
            long: format!(
                "with every cacheable prefix read (the best case: modelled, not guaranteed; {r:.2}x with no cache hit)"
            ),
        });
    }
    if ab.timed_recordings == Some(0)
        && profile.ttl != Ttl::Unstated
        && profile.min_cacheable_tokens > 0
    {
        let ttl = profile.ttl.as_str();
        let (short, long) = if profile.caching == Caching::GeminiExplicit {
            (
                format!("if each run ends within {ttl}"),
                format!("if each run ends within {ttl} of its cache's creation"),
            )
        } else {
            (
                format!("if calls come within {ttl}"),
                format!("if each call comes within {ttl} of the one before"),
            )
        };
        said.push(Qualifier {
            short,
            long: format!("{long} (the runs carry no call times)"),
        });
    }
    said
}

/// The verdict as one short line: `anthropic: delta-log (breakpoints=strategy) 0.90x
/// full-history (10% less; if calls come within 5m)`; when no strategy meets the
/// requirements, the cheapest and what it lacks.
pub fn short(ab: &Ab, verdict: &Verdict) -> String {
    let variant = &ab.variants[verdict.variant].label;
    let placement = match placement(ab, verdict) {
        p if p.is_empty() => p,
        p => format!(" ({p})"),
    };
    let versus = versus(ab, verdict);
    let said: Vec<String> = qualifiers(ab, verdict)
        .into_iter()
        .map(|q| q.short)
        .collect();
    let versus = match (versus.strip_suffix(')'), said.is_empty()) {
        (_, true) => versus,
        (Some(open), false) => format!("{open}; {})", said.join("; ")),
        (None, false) => format!("{versus} ({})", said.join("; ")),
    };
    let s = &ab.judged()[verdict.variant].summary;
    match verdict.meets {
        true => format!("{}: {variant}{placement} {versus}", verdict.provider),
        false => format!(
            "{}: none qualifies; the cheapest, {variant}{placement} {versus}, {}",
            verdict.provider,
            shortfall(s, &ab.requirements.unmet(s))
        ),
    }
}

/// The verdict as one line: `anthropic: delta-log with breakpoints=strategy, 0.88x
/// full-history (12% less), is the cheapest that keeps every symbol, the latest error and 90%
/// of the literals the next action cites; it also shows 99% of tool calls, ...`.
pub fn line(ab: &Ab, verdict: &Verdict) -> String {
    let variant = &ab.variants[verdict.variant].label;
    let placement = match placement(ab, verdict) {
        p if p.is_empty() => p,
        p => format!(" with {p}"),
    };
    let said: Vec<String> = qualifiers(ab, verdict)
        .into_iter()
        .map(|q| q.long)
        .collect();
    let versus = match said.as_slice() {
        [] => versus(ab, verdict),
        _ => format!("{}, {}", versus(ab, verdict), said.join(", ")),
    };
    let judged = &ab.judged()[verdict.variant];
    let requirements = &ab.requirements;
    let s = &judged.summary;
    if verdict.meets {
        let what = if requirements.0.is_empty() {
            "is the cheapest".to_owned()
        } else {
            format!("is the cheapest that keeps {}", requirements.text())
        };
        let shown = figures(s, requirements, &[]);
        let shown = if shown.is_empty() {
            String::new()
        } else {
            format!("; it also shows {shown}")
        };
        format!(
            "{}: {variant}{placement}, {versus}, {what}{shown}",
            verdict.provider
        )
    } else {
        let unmet = requirements.unmet(s);
        let shown = figures(s, requirements, &unmet);
        let shown = if shown.is_empty() {
            String::new()
        } else {
            format!("; it shows {shown}")
        };
        format!(
            "{}: no strategy keeps {}; the cheapest is {variant}{placement}, {versus}, and it {}{shown}",
            verdict.provider,
            requirements.text(),
            shortfall(s, &unmet),
        )
    }
}

/// The figures of a strategy's other measures, in words, none with nothing to retain: for a
/// strategy that meets the requirements (`unmet` empty), every measure but those required at
/// 100% (it keeps them whole); for one that does not, every measure but those of `unmet`
/// (said already): `99% of tool calls, every printed line and 77% of the
/// names the next program uses`.
fn figures(s: &Summary, requirements: &Requirements, unmet: &[Requirement]) -> String {
    let parts: Vec<String> = Measure::ALL
        .into_iter()
        .filter(|&m| {
            if unmet.is_empty() {
                !requirements.requires_all(m)
            } else {
                !unmet.iter().any(|r| r.measure == m)
            }
        })
        .filter_map(|m| {
            let share = m.share(&s.retention);
            // Evidence of a few literals is too little to judge: no figure, not 0%.
            if m == Measure::Evidence && share.total < MIN_EVIDENCE {
                return None;
            }
            Some(m.kept(whole_percent(share.ratio()?)))
        })
        .collect();
    match parts.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// A requirement a strategy does not meet, with what it keeps.
#[derive(Clone, Debug, PartialEq)]
pub struct Dropped {
    /// Its key in `--format json`: `symbols`, `error`, `used_next`, ...
    pub category: &'static str,
    /// The share required, from 0 to 1.
    pub required: f64,
    /// The share kept, below the one required.
    pub kept: f64,
}

/// The requirements a strategy does not meet, in the order they were given.
pub fn dropped(s: &Summary, requirements: &Requirements) -> Vec<Dropped> {
    requirements
        .unmet(s)
        .into_iter()
        .filter_map(|r| {
            Some(Dropped {
                category: r.measure.key(),
                required: r.percent / 100.0,
                kept: r.measure.share(&s.retention).ratio()?,
            })
        })
        .collect()
}

/// What keeps a strategy from the requirements, after "it": `keeps only 28% of the latest
/// errors`, `keeps only 90% of the names the next program uses (95% required), and failed on 2
/// recording(s)`.
fn shortfall(s: &Summary, unmet: &[Requirement]) -> String {
    let short: Vec<String> = unmet
        .iter()
        .filter_map(|r| {
            let kept = whole_percent(r.measure.share(&s.retention).ratio()?);
            let required = if r.percent >= 100.0 {
                String::new()
            } else {
                format!(" ({}% required)", r.percent)
            };
            Some(format!("{}{required}", r.measure.kept(kept)))
        })
        .collect();
    let mut text = match short.as_slice() {
        [] => String::new(),
        [one] => format!("keeps only {one}"),
        [rest @ .., last] => format!("keeps only {} and {last}", rest.join(", ")),
    };
    if s.failed > 0 {
        if !text.is_empty() {
            text.push_str(", and ");
        }
        text.push_str(&format!("failed on {} recording(s)", s.failed));
    }
    text
}

/// Why a strategy is not recommended, in the terms of the requirements: `error 28% (100%
/// required); failed on 2 recording(s)`; `None` when it meets them all.
pub fn not_met(s: &Summary, requirements: &Requirements) -> Option<String> {
    if s.prompts == 0 {
        return Some("rendered no prompt".to_owned());
    }
    let mut parts: Vec<String> = requirements
        .unmet(s)
        .iter()
        .filter_map(|r| {
            let kept = whole_percent(r.measure.share(&s.retention).ratio()?);
            Some(format!(
                "{} {kept}% ({}% required)",
                r.measure.name(),
                r.percent
            ))
        })
        .collect();
    if s.failed > 0 {
        parts.push(format!("failed on {} recording(s)", s.failed));
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ab::retention::{Retention, Share};
    use crate::cache::{Caching, Placement, Ttl};

    fn profile(name: &str) -> Pricing {
        Pricing {
            name: name.into(),
            input_per_mtok: 3.0,
            cache_read_per_mtok: 0.3,
            cache_write_per_mtok: 3.75,
            cache_write_1h_per_mtok: 6.0,
            min_cacheable_tokens: 1024,
            cache_step_tokens: 1,
            caching: Caching::Explicit,
            ttl: Ttl::FiveMinutes,
            placement: Placement::Strategy,
            output_per_mtok: 15.0,
            tiers: crate::pricing::Tiers::default(),
        }
    }

    /// A variant's summary: its cost per profile, and symbols and errors kept of 10.
    fn summary(costs: &[f64], symbols: usize, errors: usize) -> Summary {
        Summary {
            prompts: 10,
            costs: costs.to_vec(),
            retention: Retention {
                symbols: Share {
                    visible: symbols,
                    total: 10,
                },
                error: Share {
                    visible: errors,
                    total: 10,
                },
                ..Retention::default()
            },
            ..Summary::default()
        }
    }

    #[test]
    fn a_model_profile_is_judged_on_its_own_and_a_costlier_strategy_is_never_its_verdict() {
        let pricing = [
            profile("anthropic"),
            profile("anthropic@breakpoints=auto"),
            profile("anthropic@model=claude-haiku-4-5"),
        ];
        let summaries = [
            summary(&[1.0, 1.0, 1.0], 10, 10),   // the baseline
            summary(&[0.69, 0.8, 1.78], 10, 10), // cheaper under Sonnet, costlier under Haiku
        ];
        let v = cheapest(
            &pricing,
            &summaries[0],
            &summaries,
            &Requirements::default(),
        );
        let names: Vec<&str> = v.iter().map(|v| v.provider.as_str()).collect();
        assert_eq!(names, ["anthropic", "anthropic@model=claude-haiku-4-5"]);
        assert_eq!((v[0].variant, v[0].profile), (1, 0));
        // Under Haiku the baseline stands, at 1.00x; the strategy at 1.78x is not the verdict.
        assert_eq!((v[1].variant, v[1].profile), (0, 2));
        assert_eq!(v[1].vs_baseline, Some(1.0));
        assert_eq!(
            family("anthropic@model=m@breakpoints=auto@cache_ttl=1h"),
            "anthropic@model=m"
        );
    }

    /// A profile whose requests over 100 tokens pay 5x: the strategy whose prompts stay
    /// under the line is the verdict, and the verdict says the tier decided it, naming the
    /// one that is cheapest at the prices listed.
    #[test]
    fn a_verdict_a_tier_decided_names_the_one_without_tiers() {
        use crate::ab::summary::CacheTokens;
        use crate::pricing::{LongPrompt, TierTokens, Tiers};
        let mut tiered = profile("haiku");
        (tiered.input_per_mtok, tiered.min_cacheable_tokens) = (1.0, 0);
        tiered.tiers = Tiers {
            long_prompt: Some(LongPrompt {
                above_tokens: 100,
                multiplier: 5.0,
            }),
            peak: None,
        };
        let pricing = [tiered.clone()];
        // Every token plain: the baseline 400 under the line; `short` 300 under it; `long`
        // 250, 200 of them in requests over the line.
        let priced = |plain: usize, over: usize| {
            let mut s = summary(&[0.0], 10, 10);
            let mut cache = CacheTokens {
                plain,
                ..CacheTokens::default()
            };
            cache.tiered[0] = TierTokens {
                plain: over,
                ..TierTokens::default()
            };
            s.cache = vec![cache];
            s.price(&pricing);
            s
        };
        let summaries = [priced(400, 0), priced(300, 0), priced(250, 200)];
        // 250 + 4 x 200 tokens at $1 per Mtok.
        assert!((summaries[2].costs[0] - 1050e-6).abs() < 1e-15);
        let judged = judged_on_all(&summaries, 0);
        let v = tiered_verdicts(&pricing, &judged);
        assert_eq!((v[0].variant, v[0].untiered), (1, Some((2, 0))));
        assert!((v[0].vs_baseline.unwrap() - 0.75).abs() < 1e-12);
        // Without the tier no verdict says so.
        let plain = [Pricing {
            tiers: Tiers::default(),
            ..tiered
        }];
        let v = tiered_verdicts(&plain, &judged);
        assert_eq!((v[0].variant, v[0].untiered), (1, None));
    }

    fn tiered_verdicts(pricing: &[Pricing], judged: &[Judged]) -> Vec<Verdict> {
        tiered(pricing, judged, 0, &Requirements::default(), &[], &[])
    }

    #[test]
    fn the_cheapest_meeting_the_requirements_across_a_providers_placements() {
        let pricing = [
            profile("anthropic"),
            profile("anthropic@breakpoints=auto"),
            profile("openai"),
        ];
        let summaries = [
            summary(&[1.0, 1.0, 1.0], 10, 10), // the baseline
            summary(&[0.5, 0.4, 0.9], 10, 9),  // cheapest, but drops an error
            summary(&[0.8, 3.0, 0.95], 10, 10),
            summary(&[0.9, 0.7, 0.97], 10, 10),
        ];
        let v = cheapest(
            &pricing,
            &summaries[0],
            &summaries,
            &Requirements::default(),
        );
        assert_eq!(v.len(), 2, "one per provider");
        // anthropic: variant 3 with the auto placement (0.7) beats variant 2's own (0.8).
        assert_eq!(
            (v[0].provider.as_str(), v[0].variant, v[0].profile),
            ("anthropic", 3, 1)
        );
        assert!((v[0].vs_baseline.unwrap() - 0.7).abs() < 1e-12);
        assert!(v[0].meets);
        assert_eq!(
            (v[1].provider.as_str(), v[1].variant, v[1].profile),
            ("openai", 2, 2)
        );
    }

    #[test]
    fn a_strategy_not_judged_on_the_corpus_is_never_the_verdict() {
        let pricing = [profile("openai")];
        let summaries = [
            summary(&[1.0], 10, 10), // the baseline
            summary(&[0.5], 10, 10), // cheapest, but the recordings lack what it renders from
            summary(&[0.8], 10, 10),
        ];
        let requirements = Requirements::default();
        let on_all = judged_on_all(&summaries, 0);
        let judged = cheapest_judged(&pricing, &on_all, 0, &requirements, &[]);
        assert_eq!(judged[0].variant, 1);
        let unjudged = [
            None,
            Some("1 of 1 recording(s) lack prints".to_owned()),
            None,
        ];
        let v = cheapest_judged(&pricing, &on_all, 0, &requirements, &unjudged);
        assert_eq!((v[0].variant, v[0].meets), (2, true));
        // Nothing judged but the baseline: the baseline stands.
        let all = [None, Some("x".to_owned()), Some("y".to_owned())];
        let v = cheapest_judged(&pricing, &on_all, 0, &requirements, &all);
        assert_eq!(v[0].variant, 0);
    }

    #[test]
    fn each_strategy_is_weighed_against_the_baseline_on_the_recordings_it_is_judged_on() {
        let pricing = [profile("openai")];
        let base = summary(&[10.0], 10, 10);
        // Judged on some recordings: 4 where the baseline costs 5 there (0.8x), cheaper in sum
        // than the other's 7 only because it is summed over fewer recordings.
        let some = Judged {
            recordings: 2,
            summary: summary(&[4.0], 10, 10),
            baseline: summary(&[5.0], 10, 10),
        };
        let all = Judged {
            recordings: 4,
            summary: summary(&[7.0], 10, 10),
            baseline: base.clone(),
        };
        let baseline = Judged {
            recordings: 4,
            summary: base.clone(),
            baseline: base,
        };
        let judged = [baseline, some, all];
        let v = cheapest_judged(&pricing, &judged, 0, &Requirements::default(), &[]);
        assert_eq!(v[0].variant, 2);
        assert!((v[0].vs_baseline.unwrap() - 0.7).abs() < 1e-12);
        // Alone, it is the verdict, at its own ratio on its own recordings.
        let v = cheapest_judged(&pricing, &judged[..2], 0, &Requirements::default(), &[]);
        assert_eq!(v[0].variant, 1);
        assert!((v[0].vs_baseline.unwrap() - 0.8).abs() < 1e-12);
        // Costlier than the baseline on its recordings: the baseline stands.
        let mut costlier = judged[1].clone();
        costlier.summary = summary(&[6.0], 10, 10);
        let judged = [judged[0].clone(), costlier];
        let v = cheapest_judged(&pricing, &judged, 0, &Requirements::default(), &[]);
        assert_eq!(v[0].variant, 0);
    }

    #[test]
    fn a_failed_strategy_does_not_qualify_and_without_a_qualifier_the_cheapest_is_named() {
        let pricing = [profile("p")];
        let mut failed = summary(&[0.1], 10, 10);
        failed.failed = 1;
        let summaries = [
            summary(&[1.0], 10, 5),
            failed,
            summary(&[0.6], 9, 10),
            summary(&[0.5], 10, 9),
        ];
        let v = cheapest(
            &pricing,
            &summaries[0],
            &summaries,
            &Requirements::default(),
        );
        // Nobody keeps everything: the cheapest of those that rendered, the failed one included.
        assert_eq!((v[0].variant, v[0].meets), (1, false));
        // With nothing to retain a category counts as kept.
        let mut nothing = summary(&[0.7], 0, 0);
        nothing.retention = Retention::default();
        let summaries = [summary(&[1.0], 10, 10), nothing];
        let v = cheapest(
            &pricing,
            &summaries[0],
            &summaries,
            &Requirements::default(),
        );
        assert_eq!((v[0].variant, v[0].meets), (1, true));
        // A strategy that rendered nothing is never the answer.
        let mut silent = summary(&[0.0], 10, 10);
        silent.prompts = 0;
        let summaries = [summary(&[1.0], 10, 10), silent];
        let v = cheapest(
            &pricing,
            &summaries[0],
            &summaries,
            &Requirements::default(),
        );
        assert_eq!(v[0].variant, 0);
    }

    #[test]
    fn the_default_requirements_need_every_symbol_and_error_and_no_failure() {
        let r = Requirements::default();
        assert!(r.met_by(&summary(&[1.0], 10, 10)));
        assert!(!r.met_by(&summary(&[1.0], 9, 10)));
        assert!(!r.met_by(&summary(&[1.0], 10, 9)));
        let mut failed = summary(&[1.0], 10, 10);
        failed.failed = 2;
        assert!(!r.met_by(&failed));
    }

    #[test]
    fn a_requirement_on_used_next_changes_the_verdict() {
        let pricing = [profile("p")];
        let mut cheap = summary(&[0.5], 10, 10);
        cheap.retention.used_next = Share {
            visible: 90,
            total: 100,
        };
        let mut dear = summary(&[0.8], 10, 10);
        dear.retention.used_next = Share {
            visible: 96,
            total: 100,
        };
        let summaries = [summary(&[1.0], 10, 10), cheap, dear];
        let v = cheapest(
            &pricing,
            &summaries[0],
            &summaries,
            &Requirements::default(),
        );
        assert_eq!((v[0].variant, v[0].meets), (1, true));
        let strict = Requirements::parse(["symbols", "error", "used-next=95%"]).unwrap();
        let v = cheapest(&pricing, &summaries[0], &summaries, &strict);
        assert_eq!((v[0].variant, v[0].meets), (2, true));
        assert_eq!(
            not_met(&summaries[1], &strict).as_deref(),
            Some("used-next 90% (95% required)")
        );
        assert_eq!(not_met(&summaries[2], &strict), None);
        assert_eq!(
            dropped(&summaries[1], &strict),
            [Dropped {
                category: "used_next",
                required: 0.95,
                kept: 0.9
            }]
        );
    }

    #[test]
    fn what_keeps_a_strategy_from_the_requirements_is_named() {
        let r = Requirements::default();
        let whole = summary(&[1.0], 10, 10);
        assert_eq!(dropped(&whole, &r), []);
        let errors = summary(&[1.0], 10, 3);
        assert_eq!(
            shortfall(&errors, &r.unmet(&errors)),
            "keeps only 30% of latest errors"
        );
        assert_eq!(
            not_met(&errors, &r).as_deref(),
            Some("error 30% (100% required)")
        );
        let mut both = summary(&[1.0], 9, 0);
        both.failed = 2;
        assert_eq!(
            shortfall(&both, &r.unmet(&both)),
            "keeps only 90% of symbols and 0% of latest errors, and failed on 2 recording(s)"
        );
        let mut failed = whole.clone();
        failed.failed = 1;
        assert_eq!(
            shortfall(&failed, &r.unmet(&failed)),
            "failed on 1 recording(s)"
        );
        // 999 of 1,000 is not rounded up to all of them.
        let mut almost = whole;
        almost.retention.symbols = Share {
            visible: 999,
            total: 1000,
        };
        assert_eq!(
            shortfall(&almost, &r.unmet(&almost)),
            "keeps only 99% of symbols"
        );
    }

    #[test]
    fn the_other_figures_stand_beside_the_verdict() {
        let r = Requirements::default();
        let mut s = summary(&[1.0], 10, 10);
        s.retention.tool_calls = Share {
            visible: 52,
            total: 100,
        };
        s.retention.used_next = Share {
            visible: 10,
            total: 10,
        };
        // Required at 100% and met: not repeated; nothing to retain: left out.
        assert_eq!(
            figures(&s, &r, &[]),
            "52% of tool calls and every name the next program uses"
        );
        // Evidence of too few literals to judge has no figure, not 0%.
        s.retention.evidence = Share {
            visible: 0,
            total: 2,
        };
        assert_eq!(
            figures(&s, &r, &[]),
            "52% of tool calls and every name the next program uses"
        );
        let mut short = s.clone();
        short.retention.error.visible = 5;
        assert_eq!(
            figures(&short, &r, &r.unmet(&short)),
            "every symbol, 52% of tool calls and every name the next program uses"
        );
    }
}
