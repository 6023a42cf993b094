//! What must be equal for two parts to be merged: the ptc version, every variant as it
//! renders, the tokenizer, the pricing profiles with every price exact, and what recordings
//! are given by default.

use serde::{Deserialize, Serialize};
use serde_json::Value as Json;

use crate::ab::{prompter_for, AbPlan};
use crate::hash::fnv1a64;
use crate::host::Host;
use crate::pricing::Pricing;
use crate::render::trigger::Prompter;
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
    /// The pricing profiles, every price exact.
    pub pricing: Vec<Pricing>,
    /// Index of the primary profile in `pricing`.
    pub primary_pricing: usize,
    /// The profiles asked for ([`AbPlan::asked_pricing`]): the merged tables show them, as
    /// one run's do (written only when some were asked for).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub asked_pricing: Vec<String>,
    /// Hash of `max_turns` and the system prompt recordings without one get.
    pub recording_defaults: String,
    pub max_recording_bytes: u64,
    /// The billed profiles each run was priced by alone, when the corpus was priced run by
    /// run (their column `as-billed` adds them up).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub by_run: Vec<String>,
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
                    // The recorded requests: no plugin, option or template to fingerprint.
                    Ok(Prompter::AsSent) => {}
                    Ok(Prompter::Strategy(prompter)) => {
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
            pricing: plan.pricing.clone(),
            primary_pricing: position(&plan.primary_pricing).unwrap_or(0),
            asked_pricing: plan.asked_pricing.clone(),
            recording_defaults: hex(fnv1a64(&text)),
            max_recording_bytes: defaults.max_recording_bytes,
            by_run: plan.by_run.clone(),
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
