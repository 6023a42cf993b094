//! Pricing: what a provider charges for a model's tokens, and what a request costs under its
//! caching rule. One home for a pricing profile: `ptc.toml`'s `[pricing.<name>]` tables
//! deserialize into [`Profile`] (with its per-model prices, [`ModelPrices`]), which resolves
//! into the [`Pricing`] the simulation prices with (`simulate`) and that parts of `ptc ab`
//! serialize in their fingerprint, and into the [`ProfileInfo`] that says whom and which models
//! a profile prices. A field of a profile is added here, and nowhere else.

mod plan;
mod profile;
mod rule;
mod simulate;

use serde::{Deserialize, Deserializer, Serialize};

use crate::cache::{Caching, Placement, Ttl};

#[cfg(test)]
pub use profile::{ModelPrices, Price};
pub use profile::{Profile, ProfileInfo};
pub use rule::{days_from_civil, TierClass, Tiers};
#[cfg(test)]
pub use rule::{LongPrompt, PeakHours, PeakWindow};

/// A provider's prices (per million tokens) and caching rule, for one model or for every model
/// of a profile: what the simulation prices with. Serialized as parts of `ptc ab` carry it,
/// every price exact.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pricing {
    /// The profile's name, with its keys for one run when it has some
    /// (`anthropic@breakpoints=auto`, `anthropic@model=claude-haiku-4-5`).
    pub name: String,
    #[serde(deserialize_with = "exact_f64")]
    pub input_per_mtok: f64,
    /// Price of a token read from the cache.
    #[serde(deserialize_with = "exact_f64")]
    pub cache_read_per_mtok: f64,
    /// Price of a token written to the cache with a 5-minute TTL (explicit caching).
    #[serde(deserialize_with = "exact_f64")]
    pub cache_write_per_mtok: f64,
    /// Price of a token written to the cache with a 1-hour TTL (explicit caching).
    #[serde(deserialize_with = "exact_f64")]
    pub cache_write_1h_per_mtok: f64,
    /// A prefix shorter than this is neither read from nor written to the cache; 0 disables
    /// caching.
    pub min_cacheable_tokens: usize,
    /// Cached prefixes count in steps of this many tokens (OpenAI: 128); 1 for any length.
    /// Implicit caching only.
    pub cache_step_tokens: usize,
    pub caching: Caching,
    #[serde(rename = "cache_ttl")]
    pub ttl: Ttl,
    #[serde(rename = "breakpoints")]
    pub placement: Placement,
    /// Price of an output token: the responses of the model calls a strategy makes besides
    /// its prompts (a compaction's summary); 0 when the profile does not say (and in a part
    /// written before model calls were priced).
    #[serde(default, deserialize_with = "exact_f64")]
    pub output_per_mtok: f64,
    /// The price tiers of the model's rule (by prompt length, by the hour): every price of a
    /// request in a tier, output included, is multiplied by it. None for most profiles.
    #[serde(default, skip_serializing_if = "Tiers::is_empty")]
    pub tiers: Tiers,
}

impl Pricing {
    /// Whether `self` caches as `other` does: the same requests, in the same order, read and
    /// write the same tokens under both, whatever their prices and tiers (the rule, its
    /// minimum, steps, lifetime and placement are the same, and neither is settled in
    /// hindsight). Then [`Pricing::cost_like`] prices a request from `other`'s cost of it,
    /// without a cache of its own.
    pub fn caches_like(&self, other: &Pricing) -> bool {
        self.caching == other.caching
            && self.min_cacheable_tokens == other.min_cacheable_tokens
            && self.cache_step_tokens == other.cache_step_tokens
            && self.ttl == other.ttl
            && self.placement == other.placement
            && !self.in_hindsight()
            && !other.in_hindsight()
    }
}

/// A price read from its text by Rust's correctly rounded parser, so that a price written
/// (shortest round-trip form) reads back to the same bits; one that is not finite (a number
/// too large for an `f64`) or is negative is refused.
fn exact_f64<'de, D: Deserializer<'de>>(deserializer: D) -> Result<f64, D::Error> {
    let raw = Box::<serde_json::value::RawValue>::deserialize(deserializer)?;
    let price: f64 = raw
        .get()
        .parse()
        .map_err(|_| serde::de::Error::custom(format!("expected a number, found {}", raw.get())))?;
    if !price.is_finite() || price < 0.0 {
        return Err(serde::de::Error::custom(format!(
            "expected a finite price of 0 or more, found {}",
            raw.get()
        )));
    }
    Ok(price)
}

/// The tokens of the requests that fell in one of a rule's tiers ([`TierClass`]): already
/// counted at the prices listed, they pay the tier's surcharge on top. `output` holds the
/// output of those requests, the response of a prompt included (the same for every strategy,
/// so only its surcharge is priced).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TierTokens {
    pub read: usize,
    pub written: usize,
    pub plain: usize,
    pub output: usize,
}

impl TierTokens {
    /// `self + more`, `None` when a sum does not fit.
    pub fn checked_add(self, more: TierTokens) -> Option<TierTokens> {
        Some(TierTokens {
            read: self.read.checked_add(more.read)?,
            written: self.written.checked_add(more.written)?,
            plain: self.plain.checked_add(more.plain)?,
            output: self.output.checked_add(more.output)?,
        })
    }

    /// Per tier, `a + b`; `None` when a sum does not fit.
    pub fn add_all(a: [TierTokens; 3], b: [TierTokens; 3]) -> Option<[TierTokens; 3]> {
        Some([
            a[0].checked_add(b[0])?,
            a[1].checked_add(b[1])?,
            a[2].checked_add(b[2])?,
        ])
    }

    /// Whether no request fell in any tier.
    pub fn none(tiered: &[TierTokens; 3]) -> bool {
        tiered.iter().all(|t| *t == TierTokens::default())
    }
}

/// What one prompt costs, with the model calls made to build it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PromptCost {
    /// Tokens read from the cache.
    pub read: usize,
    /// Tokens written to the cache.
    pub written: usize,
    /// Tokens paid at the plain input price.
    pub plain: usize,
    /// The input tokens of the model calls made to build the prompt (a compaction's
    /// summarizer), by how the cache billed them: read, written, plain.
    pub call_read: usize,
    pub call_written: usize,
    pub call_plain: usize,
    /// Their output tokens (the prompt's own response is the recording's, the same for every
    /// strategy, and not counted).
    pub output: usize,
    /// In dollars, the calls' included, each request's tier surcharge included.
    pub cost: f64,
    /// The tokens of this prompt and its calls that fell in a tier, per [`TierClass`].
    pub tiered: [TierTokens; 3],
    /// The tier this prompt's own request fell in.
    pub class: Option<TierClass>,
}

impl PromptCost {
    /// Adds what a model call made to build the prompt cost: its input to the calls' tokens,
    /// its output, its dollars.
    pub fn add_call(&mut self, call: PromptCost) {
        self.call_read += call.read + call.call_read;
        self.call_written += call.written + call.call_written;
        self.call_plain += call.plain + call.call_plain;
        self.output += call.output;
        self.cost += call.cost;
        for (mine, theirs) in self.tiered.iter_mut().zip(call.tiered) {
            mine.read += theirs.read;
            mine.written += theirs.written;
            mine.plain += theirs.plain;
            mine.output += theirs.output;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prices_read_back_to_the_same_bits() {
        let awkward = [
            0.1 + 0.2,
            1e-7 / 3.0,
            123_456.789_012_345_67,
            2.2250738585072014e-308,
            9_007_199_254_740_993.0,
            0.3,
        ];
        for price in awkward {
            let pricing = Pricing {
                name: "p".into(),
                input_per_mtok: price,
                cache_read_per_mtok: price / 7.0,
                cache_write_per_mtok: price * 1.25,
                cache_write_1h_per_mtok: price * 2.0,
                min_cacheable_tokens: 1024,
                cache_step_tokens: 1,
                caching: Caching::Explicit,
                ttl: Ttl::OneHour,
                placement: Placement::Auto,
                output_per_mtok: 15.0,
                tiers: Tiers::default(),
            };
            let text = serde_json::to_string(&pricing).unwrap();
            let back: Pricing = serde_json::from_reader(text.as_bytes()).unwrap();
            assert_eq!(back, pricing, "{text}");
        }
        let err = serde_json::from_str::<Pricing>("{\"name\": \"p\", \"input_per_mtok\": \"3\"}")
            .unwrap_err();
        assert!(err.to_string().contains("expected a number"), "{err}");
        for bad in ["1e999", "-1e999", "-1", "-0.5"] {
            let err = serde_json::from_str::<Pricing>(&format!(
                "{{\"name\": \"p\", \"input_per_mtok\": {bad}}}"
            ))
            .unwrap_err();
            assert!(
                err.to_string().contains("a finite price of 0 or more"),
                "{bad}: {err}"
            );
        }
    }
}
