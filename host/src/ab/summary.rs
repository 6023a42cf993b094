//! Adding measures up: the [`Summary`] of a variant over every recording, the means and shares
//! the reports show, and the per-turn series of an [`Ab`] run. Each run is folded into
//! [`Totals`] as it is measured, so what is held does not grow with the number of recordings.
//! Every sum in [`Totals`] is an integer (tokens, counts, nanoseconds); costs are priced from
//! the summed tokens at the end ([`Pricing::priced`] is linear), so the totals of any split of
//! the recordings, added in any order, are exactly those of one run.

use crate::ab::measure::DroppedAction;
use crate::ab::retention::Retention;
use crate::ab::{Ab, Judged, PromptMeasure};
use crate::pricing::{Pricing, PromptCost, TierTokens};

/// Input tokens by how a provider's cache billed them, and the output tokens of the model
/// calls a strategy made besides its prompts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CacheTokens {
    pub read: usize,
    pub written: usize,
    pub plain: usize,
    /// The input tokens of the model calls a strategy made besides its prompts (a
    /// compaction's summarizer), by how the cache billed them, and their output tokens: 0 in
    /// a part written before model calls were priced.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub call_read: usize,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub call_written: usize,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub call_plain: usize,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub output: usize,
    /// Of those, the tokens of requests that fell in one of the profile's price tiers, per
    /// tier: they pay its surcharge on top ([`Pricing::surcharge`]).
    #[serde(default, skip_serializing_if = "TierTokens::none")]
    pub tiered: [TierTokens; 3],
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl std::ops::AddAssign for CacheTokens {
    fn add_assign(&mut self, more: CacheTokens) {
        self.read += more.read;
        self.written += more.written;
        self.plain += more.plain;
        self.call_read += more.call_read;
        self.call_written += more.call_written;
        self.call_plain += more.call_plain;
        self.output += more.output;
        for (mine, theirs) in self.tiered.iter_mut().zip(more.tiered) {
            mine.read += theirs.read;
            mine.written += theirs.written;
            mine.plain += theirs.plain;
            mine.output += theirs.output;
        }
    }
}

impl CacheTokens {
    /// `self + more`, `None` when a sum does not fit.
    pub fn checked_add(self, more: CacheTokens) -> Option<CacheTokens> {
        Some(CacheTokens {
            read: self.read.checked_add(more.read)?,
            written: self.written.checked_add(more.written)?,
            plain: self.plain.checked_add(more.plain)?,
            call_read: self.call_read.checked_add(more.call_read)?,
            call_written: self.call_written.checked_add(more.call_written)?,
            call_plain: self.call_plain.checked_add(more.call_plain)?,
            output: self.output.checked_add(more.output)?,
            tiered: TierTokens::add_all(self.tiered, more.tiered)?,
        })
    }

    /// Every input token of the prompts billed: read, written and plain (the model calls'
    /// apart); `None` when the sum does not fit.
    pub fn total(self) -> Option<usize> {
        self.read.checked_add(self.written)?.checked_add(self.plain)
    }

    /// What these tokens cost under `profile`, the model calls' included, the tiers'
    /// surcharge included.
    pub fn priced(self, profile: &Pricing) -> PromptCost {
        let mut cost = profile.priced(self.read, self.written, self.plain);
        let mut calls = profile.priced(self.call_read, self.call_written, self.call_plain);
        calls.output = self.output;
        calls.cost += profile.output(self.output).cost;
        cost.add_call(calls);
        cost.cost += profile.surcharge(&self.tiered);
        cost.tiered = self.tiered;
        cost
    }
}

impl From<&PromptCost> for CacheTokens {
    fn from(cost: &PromptCost) -> CacheTokens {
        CacheTokens {
            read: cost.read,
            written: cost.written,
            plain: cost.plain,
            call_read: cost.call_read,
            call_written: cost.call_written,
            call_plain: cost.call_plain,
            output: cost.output,
            tiered: cost.tiered,
        }
    }
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
    /// One per pricing profile, priced from [`Summary::cache`].
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
            *total += CacheTokens::from(cost);
        }
        self.retention.add(&p.retention);
        self.render_ns += p.render_ns;
    }

    /// Adds `other`'s sums; the costs are left to [`Summary::price`]. A sum that does not fit
    /// is an error naming its field, and leaves `self` as it was.
    pub(super) fn merge(&mut self, other: &Summary) -> Result<(), &'static str> {
        fn add(a: usize, b: usize, field: &'static str) -> Result<usize, &'static str> {
            a.checked_add(b).ok_or(field)
        }
        let mut cache = self.cache.clone();
        cache.resize(cache.len().max(other.cache.len()), CacheTokens::default());
        for (total, more) in cache.iter_mut().zip(&other.cache) {
            *total = total.checked_add(*more).ok_or("cache")?;
        }
        let prompts = add(self.prompts, other.prompts, "prompts")?;
        let tokens = add(self.tokens, other.tokens, "tokens")?;
        let cached_tokens = add(self.cached_tokens, other.cached_tokens, "cached_tokens")?;
        let retention = self
            .retention
            .checked_add(&other.retention)
            .ok_or("retention")?;
        let render_ns = self
            .render_ns
            .checked_add(other.render_ns)
            .ok_or("render_ns")?;
        let failed = add(self.failed, other.failed, "failed")?;
        self.prompts = prompts;
        self.tokens = tokens;
        self.max_tokens = self.max_tokens.max(other.max_tokens);
        self.cached_tokens = cached_tokens;
        self.cache = cache;
        self.retention = retention;
        self.render_ns = render_ns;
        self.failed = failed;
        if self.first_error.is_none() {
            self.first_error.clone_from(&other.first_error);
        }
        Ok(())
    }

    /// Sets the costs from the tokens each profile's cache billed.
    pub(super) fn price(&mut self, pricing: &[Pricing]) {
        self.costs = pricing
            .iter()
            .enumerate()
            .map(|(i, profile)| {
                let c = self.cache.get(i).copied().unwrap_or_default();
                c.priced(profile).cost
            })
            .collect();
    }

    /// As [`Summary::price`], and the column `summed` names (`as-billed`, of a corpus priced
    /// run by run) the sum of the columns it adds up.
    pub(super) fn price_summed(
        &mut self,
        pricing: &[Pricing],
        summed: Option<&(usize, Vec<usize>)>,
    ) {
        self.price(pricing);
        if let Some((slot, columns)) = summed {
            self.costs[*slot] = columns.iter().map(|&c| self.costs[c]).sum();
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
        let mut failures = Vec::new();
        for (i, (variant, summary)) in self.variants.iter().zip(self.summaries()).enumerate() {
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

    /// The recordings measured (the bad ones left out).
    pub fn recordings(&self) -> usize {
        self.totals.recordings
    }

    /// Per variant, the first actions whose cited literals its prompts dropped (at most
    /// [`DRILL_DOWN`]); none after a merge of parts.
    pub fn dropped_actions(&self, variant: usize) -> &[DroppedAction] {
        self.totals.dropped.get(variant).map_or(&[], Vec::as_slice)
    }

    /// The recordings with an action that cites evidence; `None` after a merge of parts.
    pub fn cited_runs(&self) -> Option<usize> {
        self.totals.cited_runs
    }

    /// One summary per variant, in variant order.
    pub fn summaries(&self) -> &[Summary] {
        &self.totals.summaries
    }

    /// Per variant, in variant order: its figures and the baseline's on the recordings it is
    /// judged on, which its ratios to the baseline and the verdict compare.
    pub fn judged(&self) -> &[Judged] {
        &self.totals.judged
    }

    /// Per turn index k (the prompt before turn k + 1): (mean tokens, summed cost under the
    /// primary profile) over the recordings that reach it, per variant.
    pub fn by_turn(&self) -> Vec<Vec<(f64, f64)>> {
        let turns = self.totals.turns.iter().map(Vec::len).max().unwrap_or(0);
        self.totals
            .turns
            .iter()
            .map(|series| {
                // A turn index no recording reaches counts as 0.
                (0..turns)
                    .map(|k| {
                        series.get(k).map_or((0.0, 0.0), |sum| {
                            let cost = sum.cache.priced(&self.pricing[self.primary_pricing]).cost;
                            (sum.tokens as f64 / sum.recordings as f64, cost)
                        })
                    })
                    .collect()
            })
            .collect()
    }

    /// Per variant, per turn index (as [`Ab::by_turn`]): the recordings whose prompts before that
    /// turn the variant rendered.
    pub fn turn_reach(&self) -> Vec<Vec<usize>> {
        let turns = self.totals.turns.iter().map(Vec::len).max().unwrap_or(0);
        self.totals
            .turns
            .iter()
            .map(|series| {
                (0..turns)
                    .map(|k| series.get(k).map_or(0, |sum| sum.recordings))
                    .collect()
            })
            .collect()
    }

    /// Sets every render time to 0, so that the output is reproducible.
    pub fn clear_timing(&mut self) {
        for summary in &mut self.totals.summaries {
            summary.render_ns = 0;
        }
        for judged in &mut self.totals.judged {
            judged.summary.render_ns = 0;
            judged.baseline.render_ns = 0;
        }
        for run in &mut self.runs {
            for p in &mut run.prompts {
                p.render_ns = 0;
            }
        }
    }
}

/// The prompts before one turn index of one variant, added up over the recordings that reach it.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TurnSum {
    pub tokens: usize,
    /// How the primary pricing profile's cache billed the tokens.
    pub cache: CacheTokens,
    pub recordings: usize,
}
