//! The partial results of one shard, `ptc ab --shard K/N --format partial`: one JSON object
//! holding everything `ptc ab merge` needs to produce what one run over the whole corpus
//! produces, byte for byte. It holds sums and counts, never means, and integers only (costs
//! are priced from the summed tokens by the merge), so that parts add up exactly:
//!
//! - `format` (`ptc-ab-partial/1`), `shard` (`{"index", "count"}`), `corpus` (the number of
//!   recordings of the whole corpus, a hash of their identities and one of their bytes: every shard must have
//!   been given the same corpus) and `sources` (the recordings of this shard);
//! - `fingerprint`: what must be equal for parts to be merged: the ptc version, every variant
//!   with its plugin's version, its resolved options, its threshold and a hash of its
//!   templates, the baseline, the tokenizer, every pricing profile, the primary profile, a hash
//!   of what recordings without a system prompt get, and the recording size limit;
//! - `recordings`, `timed_recordings` (those whose calls carry times), `lacking` (per variant,
//!   the recordings that lack data its prompts are made from), `rebuilt` (the recordings whose
//!   as-sent baseline is rebuilt from their log), and per variant `summaries` (sums, the
//!   maximum, failures with the first error and the corpus position of the recording it came
//!   from), `judged` (its sums and the baseline's over the recordings it is judged on, written
//!   only when some variant is not judged on all) and `turns` (per turn index: summed tokens,
//!   how the primary profile's cache billed them, and the recordings reaching it);
//! - `bad_recordings`: the recordings that could not be read, with their corpus position;
//! - `runs`, last: every prompt's measures, one line per recording and variant, with the
//!   recording's corpus position. They (and the recordings that could not be read) are written
//!   to an unnamed temporary file as they are made and copied out after the sums, so a shard
//!   holds nothing per recording.

mod fingerprint;
mod read;
mod write;

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

pub use fingerprint::Fingerprint;
pub use read::{read, CheckedRows, RowReader};
pub use write::write;

use crate::ab::retention::Retention;
use crate::ab::shard::{CorpusIdentity, Shard};
use crate::ab::summary::{CacheTokens, TurnSum};
use crate::ab::{PromptMeasure, RunDetail};
use crate::pricing::{Pricing, PromptCost};

/// The value of `format`: the layout's name and version.
pub const FORMAT: &str = "ptc-ab-partial/1";

/// A variant's sums over the recordings of a part.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SummaryPart {
    pub prompts: usize,
    pub tokens: usize,
    pub max_tokens: usize,
    pub cached_tokens: usize,
    /// Per pricing profile.
    pub cache: Vec<CacheTokens>,
    pub retention: Retention,
    pub render_ns: u64,
    pub failed: usize,
    pub first_error: Option<String>,
    /// The corpus position of the recording `first_error` is about.
    pub first_error_position: Option<usize>,
}

/// A variant's sums and the baseline's over the recordings of a part the variant is judged on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JudgedPart {
    pub recordings: usize,
    pub summary: SummaryPart,
    pub baseline: SummaryPart,
}

/// A recording that could not be read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BadPart {
    pub position: usize,
    pub recording: String,
    pub error: String,
}

/// The prompts of one recording through one variant.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RowPart {
    pub position: usize,
    pub recording: String,
    /// Where the recording is, when `recording` is its name: its shard is found from it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub place: Option<String>,
    pub variant: usize,
    pub error: Option<String>,
    pub prompts: Vec<PromptPart>,
}

/// One prompt's measures; its costs are priced from `cache` by the merge.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PromptPart {
    pub turns: usize,
    pub tokens: usize,
    pub shared: usize,
    /// Per pricing profile.
    pub cache: Vec<CacheTokens>,
    pub retention: Retention,
    pub render_ns: u64,
}

/// A part. `runs` is what reading does with the rows: kept (`Vec<RowPart>`) or skipped
/// (`IgnoredAny`); when writing, they follow the rest and are not part of this value.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Part<R> {
    pub format: String,
    pub shard: Shard,
    pub corpus: CorpusIdentity,
    pub sources: usize,
    pub fingerprint: Fingerprint,
    pub recordings: usize,
    /// The recordings whose calls carry times (0 in a part written before it was kept).
    #[serde(default)]
    pub timed_recordings: usize,
    /// Per variant, the recordings that lack data its prompts are made from (none in a part
    /// written before it was kept).
    #[serde(default)]
    pub lacking: Vec<crate::ab::Lacking>,
    /// The shard's recordings whose as-sent baseline is rebuilt from their log, with the
    /// prefix inferred for each (none written when there are none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rebuilt: Vec<crate::ab::RebuiltRun>,
    /// How the shard's runs were priced, when the corpus is priced run by run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by_run: Option<crate::ab::PricedByRun>,
    pub summaries: Vec<SummaryPart>,
    /// Per variant, its sums and the baseline's over the recordings it is judged on; written
    /// only when some variant is not judged on every recording (else they are `summaries`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub judged: Vec<JudgedPart>,
    pub turns: Vec<Vec<TurnSum>>,
    /// The recordings with an action that cites evidence (none in a part written before
    /// they were counted: the merge then cannot say).
    #[serde(default)]
    pub cited_runs: Option<usize>,
    /// Per variant, the first actions whose cited literals its prompts dropped.
    #[serde(default)]
    pub dropped: Vec<Vec<crate::ab::DroppedAction>>,
    /// When writing, they follow the rest and are not part of this value.
    #[serde(skip_serializing)]
    pub bad_recordings: Vec<BadPart>,
    #[serde(skip_serializing)]
    pub runs: R,
}

impl RowPart {
    pub(super) fn of(position: usize, run: RunDetail) -> RowPart {
        RowPart {
            position,
            recording: run.recording.display().to_string(),
            place: run.place.map(|p| p.display().to_string()),
            variant: run.variant,
            error: run.error,
            prompts: run
                .prompts
                .into_iter()
                .map(|p| PromptPart {
                    turns: p.turns,
                    tokens: p.tokens,
                    shared: p.shared,
                    cache: p.costs.iter().map(CacheTokens::from).collect(),
                    retention: p.retention,
                    render_ns: p.render_ns,
                })
                .collect(),
        }
    }

    /// The row as one run lists it, its costs priced under `pricing` (`by_run`: the billed
    /// profiles of a corpus priced run by run, whose run's own one `as-billed` copies).
    pub fn detail(self, pricing: &[Pricing], by_run: &[String]) -> RunDetail {
        let summed = crate::ab::by_run::summed(pricing, by_run);
        RunDetail {
            recording: PathBuf::from(self.recording),
            place: self.place.map(PathBuf::from),
            variant: self.variant,
            error: self.error,
            prompts: self
                .prompts
                .into_iter()
                .map(|p| {
                    let mut costs: Vec<PromptCost> = pricing
                        .iter()
                        .zip(&p.cache)
                        .map(|(profile, c)| -> PromptCost { c.priced(profile) })
                        .collect();
                    // The run's own billed profile is the one that billed its tokens.
                    if let Some((slot, columns)) = &summed {
                        let own = columns
                            .iter()
                            .find(|&&c| p.cache.get(c).and_then(|c| c.total()) > Some(0));
                        costs[*slot] = own.map(|&c| costs[c]).unwrap_or_default();
                    }
                    PromptMeasure {
                        turns: p.turns,
                        tokens: p.tokens,
                        shared: p.shared,
                        costs,
                        retention: p.retention,
                        render_ns: p.render_ns,
                    }
                })
                .collect(),
        }
    }
}
