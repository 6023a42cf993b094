//! What an A/B run compares: the variants (a strategy with options, written
//! `name@option=value`), the baseline among them, the pricing profiles and the tokenizer,
//! resolved from the configuration and the command line.

use crate::ab::pricing::Pricing;
use crate::ab::tokens::Tokenizer;
use crate::host::Host;
use crate::Error;

/// A strategy with options: `name` or `name@option=value@option=value`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Variant {
    /// As written, e.g. `single-user-coalesced@println_limit=5`.
    pub label: String,
    pub strategy: String,
    /// `(option, value)` set for this variant only.
    pub options: Vec<(String, String)>,
}

impl Variant {
    pub fn parse(spec: &str) -> Result<Variant, Error> {
        let mut parts = spec.trim().split('@');
        let strategy = parts.next().unwrap_or("").trim().to_owned();
        if strategy.is_empty() {
            return Err(Error::BadVariant {
                spec: spec.into(),
                reason: "no strategy name".into(),
            });
        }
        let options = parts
            .map(|p| {
                p.split_once('=')
                    .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
                    .ok_or_else(|| Error::BadVariant {
                        spec: spec.into(),
                        reason: format!("`{p}` is not option=value"),
                    })
            })
            .collect::<Result<_, _>>()?;
        Ok(Variant {
            label: spec.trim().to_owned(),
            strategy,
            options,
        })
    }
}

/// What to compare, resolved from the configuration and the command line.
pub struct AbPlan {
    pub variants: Vec<Variant>,
    pub baseline: String,
    pub pricing: Vec<Pricing>,
    pub primary_pricing: String,
    pub tokenizer: Tokenizer,
    /// Whether the baseline was added because the list did not name it.
    pub baseline_added: bool,
}

impl AbPlan {
    /// `strategies` (or `[ab] strategies`, or every loaded strategy), the baseline added when
    /// missing.
    pub fn new(
        host: &Host,
        strategies: Option<&str>,
        tokenizer: Option<&str>,
        pricing: Option<&str>,
    ) -> Result<AbPlan, Error> {
        let config = host.config();
        let specs: Vec<String> = match strategies {
            Some(list) => list
                .split(',')
                .map(str::to_owned)
                .filter(|s| !s.trim().is_empty())
                .collect(),
            None if !config.ab_strategies().is_empty() => config.ab_strategies(),
            None => host
                .plugins()
                .strategies()
                .iter()
                .map(|s| s.name.clone())
                .collect(),
        };
        let mut variants: Vec<Variant> = specs
            .iter()
            .map(|s| Variant::parse(s))
            .collect::<Result<_, _>>()?;
        // The baseline comes first, added when the list does not name it.
        let baseline = config.ab_baseline().to_owned();
        let (base, baseline_added) = match variants.iter().position(|v| v.label == baseline) {
            Some(i) => (variants.remove(i), false),
            None => (Variant::parse(&baseline)?, true),
        };
        variants.insert(0, base);
        let tokenizer_name = tokenizer.unwrap_or(config.ab_tokenizer());
        let tokenizer = Tokenizer::named(tokenizer_name)?;
        let profiles = config.pricing_profiles()?;
        let primary = pricing.unwrap_or(config.ab_pricing()).to_owned();
        if !profiles.iter().any(|p| p.name == primary) {
            return Err(Error::UnknownName {
                what: "pricing profile",
                name: primary,
                known: profiles
                    .iter()
                    .map(|p| p.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        }
        Ok(AbPlan {
            variants,
            baseline,
            pricing: profiles,
            primary_pricing: primary,
            tokenizer,
            baseline_added,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variants_parse_options() {
        let v = Variant::parse("single-user-coalesced@println_limit=5@tool_call_limit=3").unwrap();
        assert_eq!(v.strategy, "single-user-coalesced");
        assert_eq!(
            v.options,
            vec![
                ("println_limit".to_string(), "5".to_string()),
                ("tool_call_limit".to_string(), "3".to_string())
            ]
        );
        assert!(Variant::parse("x@nope").is_err());
        assert!(Variant::parse("@a=1").is_err());
    }
}
