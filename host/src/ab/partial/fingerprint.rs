//! What must be equal for two parts to be merged: the ptc version, every variant as it
//! renders, the tokenizer, the pricing profiles with every price exact, and what recordings
//! are given by default.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value as Json;

use crate::ab::{prompter_for, AbPlan};
use crate::cache::{Caching, Placement, Pricing, Ttl};
use crate::hash::fnv1a64;
use crate::host::Host;
use crate::Error;

/// What must be equal for two parts to be merged.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fingerprint {
    /// The version of ptc that measured.
    pub ptc: String,
    pub variants: Vec<VariantPrint>,
    /// Index of the baseline in `variants`.
    pub baseline: usize,
    pub baseline_added: bool,
    pub tokenizer: String,
    pub pricing: Vec<PricingPrint>,
    /// Index of the primary profile in `pricing`.
    pub primary_pricing: usize,
    /// Hash of `max_turns` and the system prompt recordings without one get.
    pub recording_defaults: String,
    pub max_recording_bytes: u64,
}

/// A variant as it renders.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VariantPrint {
    pub label: String,
    pub strategy: String,
    /// The options the variant sets, as written (`name@option=value`).
    pub asked: Vec<(String, String)>,
    /// The version of the strategy's plugin; none when it is not loaded.
    pub version: Option<String>,
    /// Every option the strategy renders with, resolved from the defaults, the configuration
    /// and the variant.
    pub options: serde_json::Map<String, Json>,
    pub compress_above_tokens: Option<usize>,
    /// Hash of the templates in effect.
    pub templates: Option<String>,
    /// Why the variant cannot render at all, when it cannot.
    pub unusable: Option<String>,
}

/// A pricing profile, every price exact.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PricingPrint {
    pub name: String,
    #[serde(deserialize_with = "exact_f64")]
    pub input_per_mtok: f64,
    #[serde(deserialize_with = "exact_f64")]
    pub cache_read_per_mtok: f64,
    #[serde(deserialize_with = "exact_f64")]
    pub cache_write_per_mtok: f64,
    #[serde(deserialize_with = "exact_f64")]
    pub cache_write_1h_per_mtok: f64,
    pub min_cacheable_tokens: usize,
    pub cache_step_tokens: usize,
    pub caching: Caching,
    pub cache_ttl: Ttl,
    pub breakpoints: Placement,
    /// 0 in a part written before model calls were priced.
    #[serde(default, deserialize_with = "exact_f64")]
    pub output_per_mtok: f64,
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

impl From<&Pricing> for PricingPrint {
    fn from(p: &Pricing) -> PricingPrint {
        PricingPrint {
            name: p.name.clone(),
            input_per_mtok: p.input_per_mtok,
            cache_read_per_mtok: p.cache_read_per_mtok,
            cache_write_per_mtok: p.cache_write_per_mtok,
            cache_write_1h_per_mtok: p.cache_write_1h_per_mtok,
            min_cacheable_tokens: p.min_cacheable_tokens,
            cache_step_tokens: p.cache_step_tokens,
            caching: p.caching,
            cache_ttl: p.ttl,
            breakpoints: p.placement,
            output_per_mtok: p.output_per_mtok,
        }
    }
}

impl From<&PricingPrint> for Pricing {
    fn from(p: &PricingPrint) -> Pricing {
        Pricing {
            name: p.name.clone(),
            input_per_mtok: p.input_per_mtok,
            cache_read_per_mtok: p.cache_read_per_mtok,
            cache_write_per_mtok: p.cache_write_per_mtok,
            cache_write_1h_per_mtok: p.cache_write_1h_per_mtok,
            min_cacheable_tokens: p.min_cacheable_tokens,
            cache_step_tokens: p.cache_step_tokens,
            caching: p.caching,
            ttl: p.cache_ttl,
            placement: p.breakpoints,
            output_per_mtok: p.output_per_mtok,
        }
    }
}

impl Fingerprint {
    /// The fingerprint of `plan` run by `host`.
    pub fn of(host: &Host, plan: &AbPlan) -> Result<Fingerprint, Error> {
        let hex = |digest: u64| format!("{digest:016x}");
        let variants = plan
            .variants
            .iter()
            .map(|v| {
                let mut print = VariantPrint {
                    label: v.label.clone(),
                    strategy: v.strategy.clone(),
                    asked: v.options.clone(),
                    version: None,
                    options: serde_json::Map::new(),
                    compress_above_tokens: None,
                    templates: None,
                    unusable: None,
                };
                match prompter_for(host, v) {
                    Ok(prompter) => {
                        let renderer = &prompter.strategy;
                        print.version = Some(renderer.strategy().version.clone());
                        print.options = renderer
                            .options()
                            .entries
                            .iter()
                            .map(|e| (e.0.to_string(), option_json(&e.1)))
                            .collect();
                        let mut digests = hex(renderer.templates().digest());
                        if let Some((full, limit)) = &prompter.threshold {
                            print.compress_above_tokens = Some(*limit);
                            digests.push('+');
                            digests.push_str(&hex(full.templates().digest()));
                        }
                        print.templates = Some(digests);
                    }
                    Err(e @ Error::StrategyNotLoaded { .. }) => {
                        print.unusable = Some(e.to_string())
                    }
                    Err(e) => return Err(e),
                }
                Ok(print)
            })
            .collect::<Result<Vec<_>, Error>>()?;
        let defaults = host.recording_defaults()?;
        let mut text = defaults.max_turns.to_string().into_bytes();
        text.push(b'\n');
        text.extend_from_slice(defaults.system_prompt.as_bytes());
        let position = |name: &str| plan.pricing.iter().position(|p| p.name == name);
        Ok(Fingerprint {
            ptc: env!("CARGO_PKG_VERSION").to_owned(),
            baseline: plan
                .variants
                .iter()
                .position(|v| v.label == plan.baseline)
                .unwrap_or(0),
            variants,
            baseline_added: plan.baseline_added,
            tokenizer: plan.tokenizer.name().to_owned(),
            pricing: plan.pricing.iter().map(PricingPrint::from).collect(),
            primary_pricing: position(&plan.primary_pricing).unwrap_or(0),
            recording_defaults: hex(fnv1a64(&text)),
            max_recording_bytes: crate::recording::max_recording_bytes(),
        })
    }
}

fn option_json(value: &ptc_plugin_api::OptionValue) -> Json {
    use ptc_plugin_api::OptionValue;
    match value {
        OptionValue::Boolean(b) => Json::from(*b),
        OptionValue::Integer(i) => Json::from(*i),
        OptionValue::Float(x) => Json::from(*x),
        OptionValue::String(s) => Json::from(s.as_str()),
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
            let print = PricingPrint {
                name: "p".into(),
                input_per_mtok: price,
                cache_read_per_mtok: price / 7.0,
                cache_write_per_mtok: price * 1.25,
                cache_write_1h_per_mtok: price * 2.0,
                min_cacheable_tokens: 1024,
                cache_step_tokens: 1,
                caching: Caching::Explicit,
                cache_ttl: Ttl::OneHour,
                breakpoints: Placement::Auto,
                output_per_mtok: 15.0,
            };
            let text = serde_json::to_string(&print).unwrap();
            let back: PricingPrint = serde_json::from_reader(text.as_bytes()).unwrap();
            assert_eq!(back, print, "{text}");
            assert_eq!(Pricing::from(&back), Pricing::from(&print));
        }
        let err =
            serde_json::from_str::<PricingPrint>("{\"name\": \"p\", \"input_per_mtok\": \"3\"}")
                .unwrap_err();
        assert!(err.to_string().contains("expected a number"), "{err}");
        for bad in ["1e999", "-1e999", "-1", "-0.5"] {
            let err = serde_json::from_str::<PricingPrint>(&format!(
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
