//! A `[pricing.<name>]` table as `ptc.toml` writes it ([`Profile`]), with the prices of each
//! model it lists (`[pricing.<name>.models."<model>"]`, [`ModelPrices`]), and what it resolves
//! into: the [`Pricing`] of the profile or of one of its models, and the [`ProfileInfo`] that
//! says whom it prices. A model's field that is not set is the profile's.
//!
//! A model is found by the name usage or `@model=` gives: after any gateway prefix
//! (`anthropic/`), with dots read as dashes, the listed name equal to it, or the longest listed
//! name it starts with followed by a dated snapshot (`-20250514`, `-2025-08-07`) or `-latest`; another model
//! that merely starts with a listed name (`claude-opus-4-9` for `claude-opus-4`) is not it.

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{self, Unexpected, Visitor};
use serde::Deserialize;

use super::rule::{Date, LongPrompt, PeakHours, PeakWindow, Tiers};
use super::Pricing;
use crate::cache::{Caching, Placement, Ttl};

/// A `[pricing.<name>]` table. Its required keys may be set over several layers of the
/// configuration, so a layer is read with the keys it has and the profile is checked to be
/// complete once every layer is applied ([`Profile::complete`]).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a [pricing.<name>] table")]
pub struct Profile {
    pub input_per_mtok: Option<Price>,
    pub cache_read_per_mtok: Option<Price>,
    pub cache_write_per_mtok: Option<Price>,
    pub min_cacheable_tokens: Option<Price>,
    pub cache_step_tokens: Option<Price>,
    /// Optional: `implicit` when not set.
    pub caching: Option<Caching>,
    /// Optional: twice the input price when not set.
    pub cache_write_1h_per_mtok: Option<Price>,
    /// Optional: when not set, `5m` for `explicit` caching, `30m` for `openai-breakpoints`,
    /// `1h` for `gemini-explicit`, `unstated` (no expiry) for `implicit`.
    pub cache_ttl: Option<Ttl>,
    /// Optional: `strategy` when not set.
    #[serde(rename = "breakpoints")]
    pub placement: Option<Placement>,
    /// Optional: the output price (0 when not set).
    pub output_per_mtok: Option<Price>,
    /// Optional: implicit caching also caches each response after its request (false when
    /// not set); only `ptc bill` uses it.
    pub cache_includes_output: Option<bool>,
    /// Optional: who bills with this profile, as recordings name it (`deepseek`).
    pub provider: Option<String>,
    /// Optional: the models it lists, each with its own prices and minimum.
    pub models: Option<BTreeMap<String, ModelPrices>>,
    /// Optional: false when the profile prices only the models it lists (true when not set).
    pub prices_unlisted_models: Option<bool>,
    /// Optional: where the figures come from.
    pub source: Option<String>,
    /// Optional: the date the source was read (`2026-11-26`).
    pub as_of: Option<String>,
    /// Optional: false when the provider promises no cache hit (true when not set).
    pub cache_hits_guaranteed: Option<bool>,
}

/// A `[pricing.<name>.models."<model>"]` table: what the model is charged where it differs
/// from the profile, and where those figures come from.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a [pricing.<name>.models.\"<model>\"] table"
)]
pub struct ModelPrices {
    pub input_per_mtok: Option<Price>,
    pub output_per_mtok: Option<Price>,
    pub cache_read_per_mtok: Option<Price>,
    pub cache_write_per_mtok: Option<Price>,
    pub cache_write_1h_per_mtok: Option<Price>,
    pub min_cacheable_tokens: Option<Price>,
    /// A price tier by prompt length: above this many prompt tokens, every price of the
    /// request (output included) is multiplied by `long_prompt_multiplier`.
    pub long_prompt_tokens: Option<Price>,
    pub long_prompt_multiplier: Option<Price>,
    /// A price tier by the hour: on Monday to Friday, a request sent within one of these
    /// windows (UTC) pays `peak_multiplier` times every price.
    pub weekday_peak_hours_utc: Option<Vec<PeakWindow>>,
    pub peak_multiplier: Option<Price>,
    /// The model's caching rule, where it is not the profile's (DeepSeek's prefix units).
    pub caching: Option<Caching>,
    pub source: Option<String>,
    pub as_of: Option<String>,
    /// The day these figures took effect, when the provider states it.
    pub effective: Option<Date>,
    /// The figures in force before `effective` (a key not set is the model's current one);
    /// they may be dated themselves, with figures earlier still.
    pub earlier: Option<Box<ModelPrices>>,
}

impl ModelPrices {
    /// `profile` with this model's prices and minimum where it sets them.
    pub fn apply(&self, profile: &mut Pricing) {
        let set = |price: Option<Price>, field: &mut f64| {
            if let Some(Price(price)) = price {
                *field = price;
            }
        };
        set(self.input_per_mtok, &mut profile.input_per_mtok);
        set(self.output_per_mtok, &mut profile.output_per_mtok);
        set(self.cache_read_per_mtok, &mut profile.cache_read_per_mtok);
        set(self.cache_write_per_mtok, &mut profile.cache_write_per_mtok);
        set(
            self.cache_write_1h_per_mtok,
            &mut profile.cache_write_1h_per_mtok,
        );
        if let Some(Price(min)) = self.min_cacheable_tokens {
            profile.min_cacheable_tokens = min as usize;
        }
        if let Some(caching) = self.caching {
            profile.caching = caching;
        }
        profile.tiers = self.tiers();
    }

    /// The price tier by prompt length these figures set, if any.
    pub fn long_prompt(&self) -> Option<LongPrompt> {
        match (self.long_prompt_tokens, self.long_prompt_multiplier) {
            (Some(Price(above)), Some(Price(multiplier))) => Some(LongPrompt {
                above_tokens: above as u64,
                multiplier,
            }),
            _ => None,
        }
    }

    /// The price tiers these figures set: by prompt length, by the hour.
    pub fn tiers(&self) -> Tiers {
        let peak = match (&self.weekday_peak_hours_utc, self.peak_multiplier) {
            (Some(windows), Some(Price(multiplier)))
                if !windows.is_empty() && multiplier != 1.0 =>
            {
                Some(PeakHours {
                    windows: windows.clone(),
                    multiplier,
                })
            }
            _ => None,
        };
        Tiers {
            long_prompt: self.long_prompt(),
            peak,
        }
    }

    /// The rule in force at `at` (seconds, UTC; `None`: now): these figures, or, for a call
    /// sent before they took effect, the earlier ones over them; with the rule's name
    /// (`2026-10-07`, `before-2026-10-07`) when the figures are dated.
    pub fn at(&self, at: Option<f64>) -> (ModelPrices, Option<String>) {
        let Some(effective) = &self.effective else {
            return (self.clone(), None);
        };
        match (&self.earlier, at) {
            (Some(earlier), Some(t)) if effective.after(t) => {
                let older = self.over(earlier);
                match older.effective {
                    Some(_) => older.at(at),
                    None => (older, Some(format!("before-{effective}"))),
                }
            }
            _ => (self.clone(), Some(effective.to_string())),
        }
    }

    /// The rule `name` (as [`ModelPrices::at`] names them), or the names there are.
    pub fn rule(&self, name: &str) -> Result<ModelPrices, Vec<String>> {
        let Some(effective) = &self.effective else {
            return Err(Vec::new());
        };
        let (mut names, mut rule) = (Vec::new(), self.clone());
        let mut effective = effective.clone();
        loop {
            names.push(effective.to_string());
            if name == effective.to_string() {
                return Ok(rule);
            }
            let Some(earlier) = &rule.earlier else {
                return Err(names);
            };
            let older = rule.over(earlier);
            match &older.effective {
                Some(date) => (effective, rule) = (date.clone(), older),
                None => {
                    names.push(format!("before-{effective}"));
                    return match name == format!("before-{effective}") {
                        true => Ok(older),
                        false => Err(names),
                    };
                }
            }
        }
    }

    /// These figures with `earlier`'s where it sets them.
    fn over(&self, earlier: &ModelPrices) -> ModelPrices {
        let pick = |then: Option<Price>, now: Option<Price>| then.or(now);
        ModelPrices {
            input_per_mtok: pick(earlier.input_per_mtok, self.input_per_mtok),
            output_per_mtok: pick(earlier.output_per_mtok, self.output_per_mtok),
            cache_read_per_mtok: pick(earlier.cache_read_per_mtok, self.cache_read_per_mtok),
            cache_write_per_mtok: pick(earlier.cache_write_per_mtok, self.cache_write_per_mtok),
            cache_write_1h_per_mtok: pick(
                earlier.cache_write_1h_per_mtok,
                self.cache_write_1h_per_mtok,
            ),
            min_cacheable_tokens: pick(earlier.min_cacheable_tokens, self.min_cacheable_tokens),
            long_prompt_tokens: pick(earlier.long_prompt_tokens, self.long_prompt_tokens),
            long_prompt_multiplier: pick(
                earlier.long_prompt_multiplier,
                self.long_prompt_multiplier,
            ),
            weekday_peak_hours_utc: earlier
                .weekday_peak_hours_utc
                .clone()
                .or_else(|| self.weekday_peak_hours_utc.clone()),
            peak_multiplier: pick(earlier.peak_multiplier, self.peak_multiplier),
            caching: earlier.caching.or(self.caching),
            source: earlier.source.clone().or_else(|| self.source.clone()),
            as_of: earlier.as_of.clone().or_else(|| self.as_of.clone()),
            effective: earlier.effective.clone(),
            earlier: earlier.earlier.clone(),
        }
    }
}

impl Profile {
    /// The profile called `name` with every key set, or the first required key (in the order
    /// of the file) that is not.
    pub fn complete(&self, name: &str) -> Result<Pricing, &'static str> {
        let price = |price: Option<Price>, key| price.map(|p| p.0).ok_or(key);
        let input = price(self.input_per_mtok, "input_per_mtok")?;
        let caching = self.caching.unwrap_or(Caching::Implicit);
        Ok(Pricing {
            name: name.to_owned(),
            input_per_mtok: input,
            cache_read_per_mtok: price(self.cache_read_per_mtok, "cache_read_per_mtok")?,
            cache_write_per_mtok: price(self.cache_write_per_mtok, "cache_write_per_mtok")?,
            cache_write_1h_per_mtok: self.cache_write_1h_per_mtok.map_or(2.0 * input, |p| p.0),
            min_cacheable_tokens: price(self.min_cacheable_tokens, "min_cacheable_tokens")?
                as usize,
            cache_step_tokens: price(self.cache_step_tokens, "cache_step_tokens")? as usize,
            caching,
            ttl: self.cache_ttl.unwrap_or(match caching {
                Caching::Explicit => Ttl::FiveMinutes,
                Caching::OpenAiBreakpoints => Ttl::ThirtyMinutes,
                Caching::GeminiExplicit => Ttl::OneHour,
                Caching::Implicit | Caching::PrefixUnits => Ttl::Unstated,
            }),
            placement: self.placement.unwrap_or(Placement::Strategy),
            output_per_mtok: self.output_per_mtok.map_or(0.0, |p| p.0),
            tiers: Tiers::default(),
        })
    }

    /// What the profile called `name` says besides its prices.
    pub fn info(&self, name: &str) -> ProfileInfo {
        ProfileInfo {
            name: name.to_owned(),
            output_per_mtok: self.output_per_mtok.map_or(0.0, |p| p.0),
            cache_includes_output: self.cache_includes_output.unwrap_or(false),
            provider: self.provider.clone(),
            models: self
                .models
                .iter()
                .flatten()
                .map(|(model, prices)| (model.clone(), prices.clone()))
                .collect(),
            prices_unlisted_models: self.prices_unlisted_models.unwrap_or(true),
            source: self.source.clone(),
            as_of: self.as_of.clone(),
            hits_not_guaranteed: self.cache_hits_guaranteed == Some(false),
        }
    }
}

/// What a pricing profile says besides its prices: whom and which models it prices, each
/// listed model's own prices, and where its figures come from.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProfileInfo {
    /// The profile's name.
    pub name: String,
    /// Dollars per million output tokens; 0 when the profile does not say.
    pub output_per_mtok: f64,
    /// Implicit caching keeps each response with its request: the next request reads up to the
    /// end of the previous response when it sends that response as it was given (DeepSeek: "a
    /// cache prefix unit at the end position of the model output").
    pub cache_includes_output: bool,
    /// Who bills with it, as recordings name it (`deepseek`, `openrouter`).
    pub provider: Option<String>,
    /// The models it lists, by API name (`claude-haiku-4-5`), in name order, each with its
    /// own prices.
    pub models: Vec<(String, ModelPrices)>,
    /// Whether it prices the models of its provider it does not list (at its own prices).
    pub prices_unlisted_models: bool,
    /// Where its figures come from.
    pub source: Option<String>,
    /// When the source was read.
    pub as_of: Option<String>,
    /// The provider promises no cache hit (Gemini's implicit caching): the simulated reads
    /// are the best case, and reading nothing is as possible.
    pub hits_not_guaranteed: bool,
}

/// The name a provider's profiles give it, for the name a log gives it: Google's Gemini API is
/// `gemini` in ptc's profiles and in litellm's model names (`gemini/gemini-2.5-flash`), while
/// OpenRouter's model names call it `google` (`google/gemini-3-pro-preview`), and some gateways'
/// write `@google/...`.
pub fn provider_name(provider: &str) -> &str {
    match provider.trim_start_matches('@') {
        "google" => "gemini",
        other => other,
    }
}

impl ProfileInfo {
    /// Whether this profile is for what `provider` (as a log names it) billed.
    pub fn serves(&self, provider: &str) -> bool {
        self.provider.as_deref() == Some(provider_name(provider))
    }

    /// Whether this profile prices what `provider` billed for `model`.
    pub fn prices(&self, provider: &str, model: Option<&str>) -> bool {
        self.serves(provider)
            && (self.prices_unlisted_models || model.is_some_and(|m| self.model(m).is_some()))
    }

    /// The listed model that `model` names (as usage or a request names it), as the module
    /// documentation says; a model no entry names has none.
    pub fn model(&self, model: &str) -> Option<(&str, &ModelPrices)> {
        let model = model
            .rsplit('/')
            .next()
            .unwrap_or(model)
            .to_ascii_lowercase()
            .replace('.', "-");
        self.models
            .iter()
            .filter(|(name, _)| {
                let name = name.to_ascii_lowercase().replace('.', "-");
                model == name
                    || model.strip_prefix(name.as_str()).is_some_and(|rest| {
                        rest.strip_prefix('-').is_some_and(|snapshot| {
                            let digits = snapshot.bytes().filter(u8::is_ascii_digit).count();
                            // `-20250514`, or OpenAI's `-2025-08-07`.
                            snapshot == "latest"
                                || (digits >= 6
                                    && snapshot.bytes().all(|b| b.is_ascii_digit() || b == b'-'))
                        })
                    })
            })
            .max_by_key(|(name, _)| name.len())
            .map(|(name, prices)| (name.as_str(), prices))
    }

    /// `profile` (this profile, perhaps with keys for one run) priced for `model`: named
    /// `<profile>@model=<listed name>`, with the model's prices and minimum; `None` when the
    /// profile does not list the model.
    pub fn for_model(&self, profile: &Pricing, model: &str) -> Option<Pricing> {
        self.for_model_at(profile, model, None)
    }

    /// As [`ProfileInfo::for_model`], by the rule in force at `at` (seconds, UTC; `None`: the
    /// current rule), named after it when the model's figures are dated
    /// (`anthropic@model=claude-sonnet-5-5@rule=before-2026-10-07`), with the rule's price
    /// tiers by prompt length and by the hour.
    pub fn for_model_at(&self, profile: &Pricing, model: &str, at: Option<f64>) -> Option<Pricing> {
        let (name, prices) = self.model(model)?;
        let (prices, rule) = prices.at(at);
        let mut priced = profile.clone();
        priced.name = format!("{}@model={name}", profile.name);
        if let Some(rule) = rule {
            priced.name = format!("{}@rule={rule}", priced.name);
        }
        prices.apply(&mut priced);
        Some(priced)
    }
}

/// The highest price per million tokens: a dollar a token, far above any provider's. A
/// higher one (`1e308`) would make a cost infinite and a verdict compare `NaN`s.
const MAX_PRICE_PER_MTOK: f64 = 1e6;

/// A number from 0 to [`MAX_PRICE_PER_MTOK`], written as an integer or a float (`nan`, `inf`
/// and prices that would make a cost infinite are no prices).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Price(pub f64);

impl<'de> Deserialize<'de> for Price {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct PriceVisitor;
        impl Visitor<'_> for PriceVisitor {
            type Value = Price;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "a non-negative number up to {MAX_PRICE_PER_MTOK}")
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Price, E> {
                if (0.0..=MAX_PRICE_PER_MTOK).contains(&v) {
                    Ok(Price(v))
                } else {
                    Err(E::invalid_value(Unexpected::Float(v), &self))
                }
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Price, E> {
                match u64::try_from(v) {
                    Ok(v) => self.visit_u64(v),
                    Err(_) => Err(E::invalid_value(Unexpected::Signed(v), &self)),
                }
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Price, E> {
                if v as f64 <= MAX_PRICE_PER_MTOK {
                    Ok(Price(v as f64))
                } else {
                    Err(E::invalid_value(Unexpected::Unsigned(v), &self))
                }
            }
        }
        deserializer.deserialize_f64(PriceVisitor)
    }
}

#[cfg(test)]
mod tests;
