//! Adding measures up: the [`Summary`] of a variant over every recording, the means and shares
//! the reports show, and the per-turn series of an [`Ab`] run.

use crate::ab::retention::Retention;
use crate::ab::{Ab, PromptMeasure};

/// Input tokens by how a provider's cache billed them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheTokens {
    pub read: usize,
    pub written: usize,
    pub plain: usize,
}

impl CacheTokens {
    /// The share of input tokens read from the cache.
    pub fn read_share(self) -> f64 {
        let total = self.read + self.written + self.plain;
        if total == 0 {
            0.0
        } else {
            self.read as f64 / total as f64
        }
    }
}

/// The figures of one variant over every recording.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Summary {
    pub prompts: usize,
    pub tokens: usize,
    pub max_tokens: usize,
    /// Under the primary pricing profile.
    pub cached_tokens: usize,
    /// One per pricing profile.
    pub costs: Vec<f64>,
    /// Tokens read from the cache, written to it and paid plain: one per pricing profile.
    pub cache: Vec<CacheTokens>,
    pub retention: Retention,
    pub render_ns: u64,
    /// Recordings the variant failed on, with the first error.
    pub failed: usize,
    pub first_error: Option<String>,
}

impl Summary {
    pub(super) fn add_prompt(&mut self, p: &PromptMeasure, primary: usize) {
        self.prompts += 1;
        self.tokens += p.tokens;
        self.max_tokens = self.max_tokens.max(p.tokens);
        self.cached_tokens += p.costs[primary].read;
        for (total, cost) in self.costs.iter_mut().zip(&p.costs) {
            *total += cost.cost;
        }
        self.cache.resize(p.costs.len(), CacheTokens::default());
        for (total, cost) in self.cache.iter_mut().zip(&p.costs) {
            total.read += cost.read;
            total.written += cost.written;
            total.plain += cost.plain;
        }
        self.retention.add(&p.retention);
        self.render_ns += p.render_ns;
    }

    fn merge(&mut self, other: &Summary) {
        self.prompts += other.prompts;
        self.tokens += other.tokens;
        self.max_tokens = self.max_tokens.max(other.max_tokens);
        self.cached_tokens += other.cached_tokens;
        for (total, cost) in self.costs.iter_mut().zip(&other.costs) {
            *total += cost;
        }
        self.cache.resize(
            self.cache.len().max(other.cache.len()),
            CacheTokens::default(),
        );
        for (total, more) in self.cache.iter_mut().zip(&other.cache) {
            total.read += more.read;
            total.written += more.written;
            total.plain += more.plain;
        }
        self.retention.add(&other.retention);
        self.render_ns += other.render_ns;
        self.failed += other.failed;
        if self.first_error.is_none() {
            self.first_error.clone_from(&other.first_error);
        }
    }

    pub fn mean_tokens(&self) -> f64 {
        if self.prompts == 0 {
            0.0
        } else {
            self.tokens as f64 / self.prompts as f64
        }
    }

    pub fn cached_share(&self) -> f64 {
        if self.tokens == 0 {
            0.0
        } else {
            self.cached_tokens as f64 / self.tokens as f64
        }
    }

    pub fn mean_render_us(&self) -> f64 {
        if self.prompts == 0 {
            0.0
        } else {
            self.render_ns as f64 / self.prompts as f64 / 1000.0
        }
    }
}

impl Ab {
    /// The variants asked for that rendered no prompt at all, with the first reason; `None`
    /// when at least one rendered (the command then succeeds, the failures in its report).
    pub fn all_asked_failed(&self) -> Option<String> {
        let summaries = self.summaries();
        let mut failures = Vec::new();
        for (i, (variant, summary)) in self.variants.iter().zip(&summaries).enumerate() {
            if i == self.baseline && self.baseline_added {
                continue;
            }
            if summary.prompts > 0 || summary.failed == 0 {
                return None;
            }
            failures.push(format!(
                "{} failed: {}",
                variant.label,
                summary
                    .first_error
                    .as_deref()
                    .unwrap_or("no prompt rendered")
            ));
        }
        (!failures.is_empty()).then(|| failures.join("; "))
    }

    /// One summary per variant, in variant order.
    pub fn summaries(&self) -> Vec<Summary> {
        let mut sums = vec![
            Summary {
                costs: vec![0.0; self.pricing.len()],
                ..Summary::default()
            };
            self.variants.len()
        ];
        for run in &self.runs {
            sums[run.variant].merge(&run.totals);
        }
        sums
    }

    /// Per turn index k (the prompt before turn k + 1): (mean tokens, summed cost under the
    /// primary profile) over the recordings that reach it, per variant.
    pub fn by_turn(&self) -> Vec<Vec<(f64, f64)>> {
        let max_turns = self.runs.iter().map(|r| r.by_turn.len()).max().unwrap_or(0);
        let mut sums = vec![vec![(0usize, 0.0f64, 0usize); max_turns]; self.variants.len()];
        for run in &self.runs {
            for (k, (tokens, cost)) in run.by_turn.iter().enumerate() {
                let cell = &mut sums[run.variant][k];
                cell.0 += tokens;
                cell.1 += cost;
                cell.2 += 1;
            }
        }
        sums.into_iter()
            .map(|series| {
                series
                    .into_iter()
                    .map(|(tokens, cost, n)| {
                        (
                            if n == 0 {
                                0.0
                            } else {
                                tokens as f64 / n as f64
                            },
                            cost,
                        )
                    })
                    .collect()
            })
            .collect()
    }
}
