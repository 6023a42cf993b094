//! What an A/B run compares: the variants (a strategy with options, written
//! `name@option=value`), the baseline among them, the pricing profiles and the tokenizer,
//! resolved from the configuration and the command line.

use crate::ab::by_run::AS_BILLED;
use crate::ab::report::Requirements;
use crate::ab::RunDetail;
use crate::cache::{Caching, Placement, Ttl};
use crate::host::Host;
use crate::pricing::{Pricing, ProfileInfo};
use crate::tokens::Tokenizer;
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

/// What a comparison is asked for; each field left `None` takes the configuration's (`[ab]`).
#[derive(Clone, Debug, Default)]
pub struct PlanOptions {
    /// Comma-separated strategies or variants (`[ab] strategies`, else every loaded strategy).
    pub strategies: Option<String>,
    /// The BPE encoding (`[ab] tokenizer`).
    pub tokenizer: Option<String>,
    /// The pricing profile of the cost column, with its keys (`[ab] pricing`).
    pub pricing: Option<String>,
    /// What the verdict requires, comma-separated (`[ab] require`).
    pub require: Option<String>,
    /// The variant every other is compared with (`[ab] baseline`).
    pub baseline: Option<String>,
    /// Whether render times are measured.
    pub clock: Clock,
    /// Whether each run is priced by the one of the `pricing` profiles its usage names (the
    /// corpus was billed by several), rather than by every profile.
    pub by_run: bool,
}

impl PlanOptions {
    /// The configuration's plan for the strategies of `list`.
    pub fn strategies(list: &str) -> PlanOptions {
        PlanOptions {
            strategies: Some(list.to_owned()),
            ..PlanOptions::default()
        }
    }
}

/// Whether render times are measured, or reported as 0 so that every output is reproducible
/// byte for byte (`--no-timing`). The one place times are cleared.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Clock {
    #[default]
    Measured,
    Zero,
}

impl Clock {
    /// The render times of `run` as this clock reports them.
    pub fn run(self, run: &mut RunDetail) {
        if self == Clock::Zero {
            run.prompts.iter_mut().for_each(|p| p.render_ns = 0);
        }
    }

    /// The render times of one recording's measures as this clock reports them.
    pub(crate) fn measure(self, run: &mut crate::ab::RunMeasure) {
        if self == Clock::Zero {
            run.prompts.iter_mut().for_each(|p| p.render_ns = 0);
            run.totals.render_ns = 0;
        }
    }

    /// The render times of `ab` (its sums and the prompts it keeps) as this clock reports them.
    pub fn ab(self, ab: &mut crate::ab::Ab) {
        if self == Clock::Zero {
            ab.clear_timing();
        }
    }
}

/// What to compare, resolved from the configuration and the command line.
pub struct AbPlan {
    pub variants: Vec<Variant>,
    pub baseline: String,
    pub pricing: Vec<Pricing>,
    pub primary_pricing: String,
    /// The profiles `--pricing` (or the runs' bill) asked for, as given: the tables show
    /// them without `--wide`. Empty when none was asked for.
    pub asked_pricing: Vec<String>,
    pub tokenizer: Tokenizer,
    /// Whether the baseline was added because the list did not name it.
    pub baseline_added: bool,
    /// What the verdict requires of a strategy.
    pub requirements: Requirements,
    /// Whether render times are measured.
    pub clock: Clock,
    /// The profiles asked for when each run is priced by the one its usage names
    /// ([`PlanOptions::by_run`]); empty when every run is priced by every profile.
    pub by_run: Vec<String>,
    /// Per profile of `pricing`, whether its costs are computed: every one, unless the output
    /// shows only some ([`AbPlan::price_only`]). A profile left out costs nothing in the
    /// results.
    pub priced: Vec<bool>,
}

impl AbPlan {
    /// Leaves every profile of [`AbPlan::pricing`] out of the pricing but those `keep`
    /// accepts: for an output that shows no other. The cost column's profile is
    /// always priced.
    pub fn price_only(&mut self, keep: impl Fn(&Pricing) -> bool) {
        let primary = self
            .pricing
            .iter()
            .position(|p| p.name == self.primary_pricing);
        for (i, (priced, profile)) in self.priced.iter_mut().zip(&self.pricing).enumerate() {
            *priced = Some(i) == primary || keep(profile);
        }
    }

    /// The plan `options` ask for, the configuration filling what they leave out; the
    /// baseline is added to the strategies when they do not name it.
    pub fn new(host: &Host, options: &PlanOptions) -> Result<AbPlan, Error> {
        let (strategies, tokenizer, pricing) = (
            options.strategies.as_deref(),
            options.tokenizer.as_deref(),
            options.pricing.as_deref(),
        );
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
        let baseline = options
            .baseline
            .clone()
            .unwrap_or_else(|| config.ab_baseline().to_owned());
        let (base, baseline_added) = match variants.iter().position(|v| v.label == baseline) {
            Some(i) => (variants.remove(i), false),
            None => (Variant::parse(&baseline)?, true),
        };
        variants.insert(0, base);
        let tokenizer = host.tokenizer(tokenizer)?;
        let configured = config.pricing_profiles()?;
        let info = config.pricing_info();
        // Every profile, and each explicit one also with the `auto` placement, so that the
        // report compares the strategies' layouts with the common client policy.
        // A profile whose provider promises no hit also with `hits=none`, the other end of
        // its range.
        let mut profiles = Vec::with_capacity(configured.len() * 2);
        for profile in &configured {
            profiles.push(profile.clone());
            if profile.caching.has_breakpoints() && profile.placement != Placement::Auto {
                let auto = format!("{}@breakpoints=auto", profile.name);
                profiles.push(pricing_variant(&configured, &info, &auto)?);
            }
            let unguaranteed = info
                .iter()
                .any(|i| i.name == profile.name && i.hits_not_guaranteed);
            if unguaranteed && profile.min_cacheable_tokens > 0 {
                let none = format!("{}@{NO_HITS}", profile.name);
                profiles.push(pricing_variant(&configured, &info, &none)?);
            }
        }
        // `--pricing` may name several profiles: each is priced (and judged), the first is the
        // cost column of the table.
        let asked: Vec<&str> = pricing
            .unwrap_or(config.ab_pricing())
            .split(',')
            .map(str::trim)
            .filter(|spec| !spec.is_empty())
            .collect();
        let primary = asked
            .first()
            .copied()
            .unwrap_or(config.ab_pricing())
            .to_owned();
        for spec in asked.iter().copied().chain([primary.as_str()]) {
            if !profiles.iter().any(|p| p.name == spec) {
                profiles.push(pricing_variant(&configured, &info, spec)?);
            }
        }
        // A planned placement is shown beside the profile's own, the automatic one and the
        // bound beneath every placement.
        for spec in asked
            .iter()
            .filter(|s| s.split('@').any(|k| k == "breakpoints=planned"))
        {
            let own: Vec<&str> = spec
                .split('@')
                .filter(|k| *k != "breakpoints=planned")
                .collect();
            let own = own.join("@");
            let beside = [
                own.clone(),
                format!("{own}@breakpoints=auto"),
                spec.replace("breakpoints=planned", "breakpoints=bound"),
            ];
            for spec in beside {
                if !profiles.iter().any(|p| p.name == spec) {
                    profiles.push(pricing_variant(&configured, &info, &spec)?);
                }
            }
        }
        // Priced run by run, the cost column adds up each run at its own profile's prices; it
        // counts tokens as the first billed profile does.
        let primary = match (options.by_run, profiles.iter().find(|p| p.name == primary)) {
            (true, Some(first)) => {
                profiles.push(Pricing {
                    name: AS_BILLED.to_owned(),
                    ..first.clone()
                });
                AS_BILLED.to_owned()
            }
            _ => primary,
        };
        Ok(AbPlan {
            variants,
            baseline,
            priced: vec![true; profiles.len()],
            pricing: profiles,
            primary_pricing: primary,
            asked_pricing: match pricing {
                Some(_) => asked.iter().map(|&spec| spec.to_owned()).collect(),
                None => Vec::new(),
            },
            tokenizer,
            baseline_added,
            requirements: requirements(host, options.require.as_deref())?,
            clock: options.clock,
            by_run: match options.by_run {
                true => asked.iter().map(|s| (*s).to_owned()).collect(),
                false => Vec::new(),
            },
        })
    }
}

/// The variant key of a profile that reads nothing from its cache: the other end of the range
/// of a provider that promises no hit.
pub const NO_HITS: &str = "hits=none";

/// The keys a pricing profile may be given for one run.
const VARIANT_KEYS: [&str; 6] = [
    "breakpoints",
    "cache_ttl",
    "min_cacheable_tokens",
    "model",
    "rule",
    "hits",
];

/// A configured pricing profile with keys set for this run: `name@key=value@...`, where a
/// key is `breakpoints` (`strategy`, `auto`, `none`), `cache_ttl` (`5m`, `30m`, `1h`, `24h`,
/// `unstated`),
/// `min_cacheable_tokens`, `model` (a model the profile lists in its `models` table, or a
/// dated snapshot of one: its prices and minimum, by its current rule), `rule` (after `model`:
/// one of the model's dated rules, `2026-10-07` or `before-2026-10-07`) or `hits` (`all`, the rule as simulated; `none`, nothing read or written: the
/// other end of a cache that guarantees nothing). It is named as written. `info` holds the
/// profiles' per-model prices, in any order.
pub fn pricing_variant(
    profiles: &[Pricing],
    info: &[ProfileInfo],
    spec: &str,
) -> Result<Pricing, Error> {
    let spec = spec.trim();
    let mut parts = spec.split('@');
    let name = parts.next().unwrap_or("").trim();
    let Some(base) = profiles.iter().find(|p| p.name == name) else {
        let known: Vec<&str> = profiles.iter().map(|p| p.name.as_str()).collect();
        return Err(Error::unknown_name("pricing profile", name, &known));
    };
    let bad = |reason: String| Error::BadVariant {
        spec: spec.to_owned(),
        reason,
    };
    let mut profile = base.clone();
    profile.name = spec.to_owned();
    // The model `model=` named, for a `rule=` after it.
    let mut model = None;
    for part in parts {
        let (key, value) = part
            .split_once('=')
            .map(|(k, v)| (k.trim(), v.trim()))
            .ok_or_else(|| bad(format!("`{part}` is not key=value")))?;
        match key {
            "breakpoints" => {
                profile.placement = Placement::parse(value).ok_or_else(|| {
                    bad(format!(
                        "breakpoints must be `strategy`, `auto`, `none`, `planned` or `bound`, not `{value}`"
                    ))
                })?;
                let breakpoints = matches!(
                    profile.caching,
                    Caching::Explicit | Caching::OpenAiBreakpoints
                );
                if profile.placement.in_hindsight() && !breakpoints {
                    return Err(bad(format!(
                        "breakpoints={value} needs a profile whose requests carry breakpoints \
                         (caching `explicit` or `openai-breakpoints`), not `{}`",
                        profile.caching.as_str()
                    )));
                }
            }
            "cache_ttl" => {
                profile.ttl = Ttl::parse(value).ok_or_else(|| {
                    bad(format!(
                        "cache_ttl must be `5m`, `30m`, `1h`, `24h` or `unstated`, not `{value}`"
                    ))
                })?;
            }
            "min_cacheable_tokens" => {
                profile.min_cacheable_tokens = value.parse().map_err(|_| {
                    bad(format!(
                        "min_cacheable_tokens must be a number of tokens, not `{value}`"
                    ))
                })?;
            }
            "model" => {
                let about = info.iter().find(|i| i.name == name);
                let models = about.map_or(&[][..], |i| &i.models[..]);
                let Some((_, prices)) = about.and_then(|i| i.model(value)) else {
                    let known: Vec<&str> = models.iter().map(|(m, _)| m.as_str()).collect();
                    return Err(bad(if known.is_empty() {
                        format!("[pricing.{name}] lists no models")
                    } else {
                        format!(
                            "model `{value}` is not in [pricing.{name}.models] (known: {}){}",
                            known.join(", "),
                            crate::suggest::did_you_mean(value, known.iter().copied())
                        )
                    }));
                };
                prices.apply(&mut profile);
                model = Some((value, prices));
            }
            "rule" => {
                let Some((named, prices)) = model else {
                    return Err(bad("`rule` chooses a model's rule: name the model first (`@model=...@rule=...`)".into()));
                };
                match prices.rule(value) {
                    Ok(rule) => rule.apply(&mut profile),
                    Err(rules) if rules.is_empty() => {
                        return Err(bad(format!(
                            "model `{named}` has one rule: its figures are not dated"
                        )));
                    }
                    Err(rules) => {
                        return Err(bad(format!(
                            "model `{named}` has no rule `{value}` (its rules: {})",
                            rules.join(", ")
                        )));
                    }
                }
            }
            "hits" => match value {
                "all" => {}
                "none" => profile.min_cacheable_tokens = 0,
                _ => return Err(bad(format!("hits must be `all` or `none`, not `{value}`"))),
            },
            other => {
                return Err(bad(format!(
                    "unknown key `{other}`; a pricing profile's keys for one run are {}{}",
                    VARIANT_KEYS.join(", "),
                    crate::suggest::did_you_mean(other, VARIANT_KEYS)
                )));
            }
        }
    }
    Ok(profile)
}

/// The requirements of the verdict given (`--require`), else those of `[ab] require`.
pub fn requirements(host: &Host, given: Option<&str>) -> Result<Requirements, Error> {
    match given {
        Some(list) => Requirements::parse(list.split(','))
            .map_err(|e| Error::Usage(format!("--require: {e}"))),
        None => Requirements::parse(host.config().ab_require().iter().map(String::as_str))
            .map_err(|e| Error::Usage(format!("[ab] require: {e}"))),
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

    #[test]
    fn pricing_variants_set_keys_for_one_run() {
        let base = Pricing {
            name: "anthropic".into(),
            input_per_mtok: 3.0,
            cache_read_per_mtok: 0.3,
            cache_write_per_mtok: 3.75,
            cache_write_1h_per_mtok: 6.0,
            min_cacheable_tokens: 1024,
            cache_step_tokens: 1,
            caching: crate::cache::Caching::Explicit,
            ttl: Ttl::FiveMinutes,
            placement: Placement::Strategy,
            output_per_mtok: 15.0,
            tiers: crate::pricing::Tiers::default(),
        };
        let profiles = [base.clone()];
        let minimum = |min: f64| crate::pricing::ModelPrices {
            min_cacheable_tokens: Some(crate::pricing::Price(min)),
            ..Default::default()
        };
        let info = [ProfileInfo {
            name: "anthropic".into(),
            models: vec![
                ("claude-haiku-4-5".into(), minimum(4096.0)),
                ("claude-opus-5".into(), minimum(512.0)),
            ],
            ..ProfileInfo::default()
        }];
        let v = pricing_variant(
            &profiles,
            &info,
            " anthropic@breakpoints=auto@cache_ttl=1h@min_cacheable_tokens=2048 ",
        )
        .unwrap();
        assert_eq!(
            v,
            Pricing {
                name: "anthropic@breakpoints=auto@cache_ttl=1h@min_cacheable_tokens=2048".into(),
                placement: Placement::Auto,
                ttl: Ttl::OneHour,
                min_cacheable_tokens: 2048,
                ..base.clone()
            }
        );
        assert_eq!(
            pricing_variant(&profiles, &info, "anthropic").unwrap(),
            base
        );
        // A model's minimum, from the profile's table; the rest of the profile as it is.
        let model = |spec| pricing_variant(&profiles, &info, spec).unwrap();
        assert_eq!(
            model("anthropic@model=claude-haiku-4-5").min_cacheable_tokens,
            4096
        );
        assert_eq!(
            model("anthropic@model=claude-opus-5").min_cacheable_tokens,
            512
        );
        assert_eq!(
            model("anthropic@model=claude-opus-5").cache_read_per_mtok,
            0.3
        );
        // A dated snapshot of a model, or its name through a gateway, is that model.
        for name in ["claude-haiku-4-5-20251001", "anthropic/claude-haiku-4.5"] {
            let spec = format!("anthropic@model={name}");
            let p = pricing_variant(&profiles, &info, &spec).unwrap();
            assert_eq!(p.min_cacheable_tokens, 4096, "{spec}");
        }
        // No hits: nothing is cached; all hits: the rule as it is.
        assert_eq!(model("anthropic@hits=none").min_cacheable_tokens, 0);
        assert_eq!(model("anthropic@hits=all").min_cacheable_tokens, 1024);
        let error = |spec| {
            pricing_variant(&profiles, &info, spec)
                .unwrap_err()
                .to_string()
        };
        assert!(error("anthropic@model=claude-haiku-4-6").contains(
            "model `claude-haiku-4-6` is not in [pricing.anthropic.models] (known: claude-haiku-4-5, claude-opus-5); did you mean `claude-haiku-4-5`?"
        ));
        assert!(error("anthropic@hits=some").contains("`all` or `none`, not `some`"));
        assert!(error("anthropic@breakpoints=all")
            .contains("`strategy`, `auto`, `none`, `planned` or `bound`, not `all`"));
        assert!(error("anthropic@cache_ttl=1d")
            .contains("`5m`, `30m`, `1h`, `24h` or `unstated`, not `1d`"));
        assert!(error("anthropic@min_cacheable_tokens=x").contains("not `x`"));
        assert!(error("anthropic@ttl=1h").contains("unknown key `ttl`"));
        assert!(error("anthropic@auto").contains("`auto` is not key=value"));
        assert!(error("claude").contains("anthropic"));
    }

    #[test]
    fn a_user_chooses_a_models_dated_rule() {
        use crate::pricing::Profile;
        let table: Profile = toml::from_str(
            r#"
            input_per_mtok = 3
            cache_read_per_mtok = 0.3
            cache_write_per_mtok = 3.75
            min_cacheable_tokens = 1024
            cache_step_tokens = 1
            caching = "explicit"
            [models."claude-sonnet-5-5"]
            cache_read_per_mtok = 0.10
            effective = "2026-10-07"
            [models."claude-sonnet-5-5".earlier]
            cache_read_per_mtok = 0.20
            [models."claude-opus-5"]
            min_cacheable_tokens = 512
            "#,
        )
        .unwrap();
        let profiles = [table.complete("anthropic").unwrap()];
        let info = [table.info("anthropic")];
        let read = |spec| {
            pricing_variant(&profiles, &info, spec)
                .map(|p| p.cache_read_per_mtok)
                .map_err(|e| e.to_string())
        };
        assert_eq!(read("anthropic@model=claude-sonnet-5-5"), Ok(0.10));
        assert_eq!(
            read("anthropic@model=claude-sonnet-5-5@rule=2026-10-07"),
            Ok(0.10)
        );
        assert_eq!(
            read("anthropic@model=claude-sonnet-5-5@rule=before-2026-10-07"),
            Ok(0.20)
        );
        let err = read("anthropic@model=claude-sonnet-5-5@rule=2025-01-01").unwrap_err();
        assert!(
            err.contains("no rule `2025-01-01` (its rules: 2026-10-07, before-2026-10-07)"),
            "{err}"
        );
        let err = read("anthropic@rule=2026-10-07").unwrap_err();
        assert!(err.contains("name the model first"), "{err}");
        let err = read("anthropic@model=claude-opus-5@rule=2026-10-07").unwrap_err();
        assert!(err.contains("its figures are not dated"), "{err}");
    }
}
