//! The answer a user runs `ptc ab` for: per provider, which strategy, with which cache
//! placement, is cheapest at full retention.
//!
//! **Full retention** means that every prompt showed every symbol defined so far and the
//! latest error (the `symbols` and `error` retention categories at 100%, or nothing to retain).
//! A strategy that failed on some recording does not qualify. The pricing profiles of one
//! provider are the profile and its variants (`anthropic`, `anthropic@breakpoints=auto`): they
//! are compared together, so the answer names the placement too.

use crate::ab::retention::Share;
use crate::ab::{Ab, Summary};
use crate::cache::Pricing;

/// The cheapest (variant, profile) of one provider.
#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    /// The provider: the profile's name without its variant keys.
    pub provider: String,
    /// Index in [`Ab::variants`].
    pub variant: usize,
    /// Index in [`Ab::pricing`].
    pub profile: usize,
    /// Cost relative to the baseline under the provider's own profile.
    pub vs_baseline: Option<f64>,
    /// Whether the strategy keeps every symbol and the latest error; when no strategy does,
    /// the verdict is the cheapest of all.
    pub full_retention: bool,
}

fn full(share: Share) -> bool {
    share.ratio().is_none_or(|r| r >= 1.0)
}

/// Whether a variant qualifies: it rendered every recording and kept every symbol and error.
pub fn keeps_everything(s: &Summary) -> bool {
    s.prompts > 0 && s.failed == 0 && full(s.retention.symbols) && full(s.retention.error)
}

/// One verdict per provider, in the order of the profiles.
pub fn verdicts(ab: &Ab, summaries: &[Summary]) -> Vec<Verdict> {
    cheapest(&ab.pricing, &summaries[ab.baseline], summaries)
}

/// [`verdicts`] from the profiles, the baseline's summary and every variant's.
fn cheapest(pricing: &[Pricing], base: &Summary, summaries: &[Summary]) -> Vec<Verdict> {
    let mut providers: Vec<(&str, Vec<usize>)> = Vec::new();
    for (i, p) in pricing.iter().enumerate() {
        let provider = p.name.split('@').next().unwrap_or(&p.name);
        match providers.iter_mut().find(|(name, _)| *name == provider) {
            Some((_, profiles)) => profiles.push(i),
            None => providers.push((provider, vec![i])),
        }
    }
    providers
        .into_iter()
        .filter_map(|(provider, profiles)| {
            let own = *profiles.first()?;
            let candidates = |qualified: bool| {
                summaries
                    .iter()
                    .enumerate()
                    .filter(move |(_, s)| s.prompts > 0 && (!qualified || keeps_everything(s)))
                    .flat_map(|(v, s)| profiles.iter().map(move |&p| (v, p, s.costs[p])))
                    .min_by(|a, b| a.2.total_cmp(&b.2))
            };
            let (best, full_retention) = match candidates(true) {
                Some(best) => (best, true),
                None => (candidates(false)?, false),
            };
            let (variant, profile, cost) = best;
            Some(Verdict {
                provider: provider.to_owned(),
                variant,
                profile,
                vs_baseline: (base.costs[own] > 0.0).then(|| cost / base.costs[own]),
                full_retention,
            })
        })
        .collect()
}

/// The verdict as one line: `anthropic: delta-log (breakpoints=strategy), 0.88x full-history
/// (12% less), is the cheapest at full retention`.
pub fn line(ab: &Ab, summaries: &[Summary], verdict: &Verdict) -> String {
    let variant = &ab.variants[verdict.variant].label;
    let profile = &ab.pricing[verdict.profile];
    let grouped = ab
        .pricing
        .iter()
        .filter(|p| p.name.split('@').next() == Some(verdict.provider.as_str()))
        .count();
    let placement = if grouped > 1 {
        format!(" with breakpoints={}", profile.placement)
    } else {
        String::new()
    };
    let baseline = &ab.variants[ab.baseline].label;
    let versus = match verdict.vs_baseline {
        Some(r) if r < 1.0 => format!("{r:.2}x {baseline} ({:.0}% less)", (1.0 - r) * 100.0),
        Some(r) if r > 1.0 => format!("{r:.2}x {baseline} ({:.0}% more)", (r - 1.0) * 100.0),
        Some(r) => format!("{r:.2}x {baseline}"),
        None => "no baseline cost to compare".to_owned(),
    };
    if verdict.full_retention {
        format!(
            "{}: {variant}{placement}, {versus}, is the cheapest at full retention",
            verdict.provider
        )
    } else {
        format!(
            "{}: no strategy keeps full retention; the cheapest is {variant}{placement}, {versus}, and it {}",
            verdict.provider,
            shortfall(&summaries[verdict.variant])
        )
    }
}

/// A category of full retention that a strategy keeps less than all of.
#[derive(Clone, Debug, PartialEq)]
pub struct Dropped {
    /// Its key in `--format json`: `symbols` or `error`.
    pub category: &'static str,
    /// The share kept, below 1.
    pub kept: f64,
}

/// The categories of full retention a strategy keeps less than all of, in the order symbols,
/// error.
pub fn dropped(s: &Summary) -> Vec<Dropped> {
    [
        ("symbols", s.retention.symbols),
        ("error", s.retention.error),
    ]
    .into_iter()
    .filter_map(|(category, share)| {
        let kept = share.ratio()?;
        (kept < 1.0).then_some(Dropped { category, kept })
    })
    .collect()
}

/// What keeps a strategy from full retention, after "it": `drops latest errors (keeps 28%)`,
/// `drops symbols (keeps 97%) and latest errors (keeps 28%), and failed on 2 recording(s)`.
fn shortfall(s: &Summary) -> String {
    let drops: Vec<String> = dropped(s)
        .iter()
        .map(|d| {
            let name = match d.category {
                "symbols" => "symbols",
                _ => "latest errors",
            };
            // Never "keeps 100%" for a share just below 1.
            let kept = (d.kept * 100.0).round().min(99.0);
            format!("{name} (keeps {kept:.0}%)")
        })
        .collect();
    let mut text = match drops.len() {
        0 => String::new(),
        _ => format!("drops {}", drops.join(" and ")),
    };
    if s.failed > 0 {
        if !text.is_empty() {
            text.push_str(", and ");
        }
        text.push_str(&format!("failed on {} recording(s)", s.failed));
    }
    text
}

/// Every verdict line, under a heading.
pub fn section(ab: &Ab, summaries: &[Summary]) -> String {
    let mut out = String::from("\nverdict: per provider, the cheapest strategy at full retention (every symbol and the latest error kept)\n");
    for verdict in verdicts(ab, summaries) {
        out.push_str("  ");
        out.push_str(&line(ab, summaries, &verdict));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ab::retention::Retention;
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
    fn the_cheapest_at_full_retention_across_a_providers_placements() {
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
        let v = cheapest(&pricing, &summaries[0], &summaries);
        assert_eq!(v.len(), 2, "one per provider");
        // anthropic: variant 3 with the auto placement (0.7) beats variant 2's own (0.8).
        assert_eq!(
            (v[0].provider.as_str(), v[0].variant, v[0].profile),
            ("anthropic", 3, 1)
        );
        assert!((v[0].vs_baseline.unwrap() - 0.7).abs() < 1e-12);
        assert!(v[0].full_retention);
        assert_eq!(
            (v[1].provider.as_str(), v[1].variant, v[1].profile),
            ("openai", 2, 2)
        );
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
        let v = cheapest(&pricing, &summaries[0], &summaries);
        // Nobody keeps everything: the cheapest of those that rendered, the failed one included.
        assert_eq!((v[0].variant, v[0].full_retention), (1, false));
        // With nothing to retain a category counts as kept.
        let mut nothing = summary(&[0.7], 0, 0);
        nothing.retention = Retention::default();
        let summaries = [summary(&[1.0], 10, 10), nothing];
        let v = cheapest(&pricing, &summaries[0], &summaries);
        assert_eq!((v[0].variant, v[0].full_retention), (1, true));
        // A strategy that rendered nothing is never the answer.
        let mut silent = summary(&[0.0], 10, 10);
        silent.prompts = 0;
        let summaries = [summary(&[1.0], 10, 10), silent];
        let v = cheapest(&pricing, &summaries[0], &summaries);
        assert_eq!(v[0].variant, 0);
    }

    #[test]
    fn keeps_everything_needs_every_symbol_and_error_and_no_failure() {
        assert!(keeps_everything(&summary(&[1.0], 10, 10)));
        assert!(!keeps_everything(&summary(&[1.0], 9, 10)));
        assert!(!keeps_everything(&summary(&[1.0], 10, 9)));
        let mut failed = summary(&[1.0], 10, 10);
        failed.failed = 2;
        assert!(!keeps_everything(&failed));
    }

    #[test]
    fn what_keeps_a_strategy_from_full_retention_is_named() {
        let whole = summary(&[1.0], 10, 10);
        assert_eq!(dropped(&whole), []);
        let errors = summary(&[1.0], 10, 3);
        assert_eq!(
            dropped(&errors),
            [Dropped {
                category: "error",
                kept: 0.3
            }]
        );
        assert_eq!(shortfall(&errors), "drops latest errors (keeps 30%)");
        let mut both = summary(&[1.0], 9, 0);
        both.failed = 2;
        assert_eq!(
            shortfall(&both),
            "drops symbols (keeps 90%) and latest errors (keeps 0%), and failed on 2 recording(s)"
        );
        let mut failed = whole.clone();
        failed.failed = 1;
        assert_eq!(shortfall(&failed), "failed on 1 recording(s)");
        // 999 of 1,000 is not rounded up to all of them.
        let mut almost = whole;
        almost.retention.symbols = Share {
            visible: 999,
            total: 1000,
        };
        assert_eq!(shortfall(&almost), "drops symbols (keeps 99%)");
    }
}
