//! Finding a model in a profile's list, and each model priced at its own prices.

use super::*;
use crate::pricing::PromptCost;

fn minimum(min: f64) -> ModelPrices {
    ModelPrices {
        min_cacheable_tokens: Some(Price(min)),
        ..ModelPrices::default()
    }
}

fn listing(models: &[(&str, ModelPrices)]) -> ProfileInfo {
    ProfileInfo {
        models: models
            .iter()
            .map(|(name, prices)| (name.to_string(), prices.clone()))
            .collect(),
        prices_unlisted_models: true,
        ..ProfileInfo::default()
    }
}

#[test]
fn a_model_is_found_by_its_name_or_a_snapshot_of_it() {
    let info = listing(&[
        ("claude-haiku-4-5", minimum(4096.0)),
        ("claude-opus-4", minimum(1024.0)),
        ("claude-opus-4-5", minimum(4096.0)),
        ("claude-opus-5", minimum(512.0)),
    ]);
    let name = |model| info.model(model).map(|(name, _)| name);
    assert_eq!(name("claude-haiku-4-5"), Some("claude-haiku-4-5"));
    assert_eq!(name("claude-haiku-4-5-20251001"), Some("claude-haiku-4-5"));
    assert_eq!(name("anthropic/claude-haiku-4.5"), Some("claude-haiku-4-5"));
    assert_eq!(name("claude-opus-4-20250514"), Some("claude-opus-4"));
    assert_eq!(name("claude-opus-4-5-20251101"), Some("claude-opus-4-5"));
    assert_eq!(name("claude-opus-5-latest"), Some("claude-opus-5"));
    // Another model is not taken for the one whose name it starts with.
    assert_eq!(name("claude-opus-4-9"), None);
    assert_eq!(name("claude-opus-5-fast"), None);
    assert_eq!(name("gpt-5"), None);
    let openai = listing(&[("gpt-5", ModelPrices::default())]);
    assert!(openai.model("gpt-5-2025-08-07").is_some());
    assert!(openai.model("gpt-5.4").is_none());
    // Names with dots match either spelling.
    let gemini = listing(&[("gemini-3.5-flash", minimum(4096.0))]);
    assert!(gemini.model("gemini-3.5-flash").is_some());
    assert!(gemini.model("google/gemini-3-5-flash").is_some());
}

fn sonnet() -> Pricing {
    Pricing {
        name: "anthropic".into(),
        input_per_mtok: 3.0,
        cache_read_per_mtok: 0.3,
        cache_write_per_mtok: 3.75,
        cache_write_1h_per_mtok: 6.0,
        min_cacheable_tokens: 1024,
        cache_step_tokens: 1,
        caching: Caching::Explicit,
        ttl: Ttl::FiveMinutes,
        placement: Placement::Strategy,
        output_per_mtok: 15.0,
        tiers: crate::pricing::Tiers::default(),
    }
}

#[test]
fn each_model_is_priced_at_its_own_prices_and_the_rest_at_the_profiles() {
    let haiku = ModelPrices {
        input_per_mtok: Some(Price(1.0)),
        output_per_mtok: Some(Price(5.0)),
        cache_read_per_mtok: Some(Price(0.1)),
        cache_write_per_mtok: Some(Price(1.25)),
        cache_write_1h_per_mtok: Some(Price(2.0)),
        min_cacheable_tokens: Some(Price(4096.0)),
        ..ModelPrices::default()
    };
    // Opus 4 sets its prices but not its minimum: the profile's 1,024 holds.
    let opus = ModelPrices {
        input_per_mtok: Some(Price(15.0)),
        cache_read_per_mtok: Some(Price(1.5)),
        cache_write_per_mtok: Some(Price(18.75)),
        ..ModelPrices::default()
    };
    let info = listing(&[("claude-haiku-4-5", haiku), ("claude-opus-4", opus)]);
    let base = sonnet();
    let h = info.for_model(&base, "claude-haiku-4-5-20251001").unwrap();
    assert_eq!(h.name, "anthropic@model=claude-haiku-4-5");
    assert_eq!(h.min_cacheable_tokens, 4096);
    // 1,000 read, 2,000 written (5 minutes), 3,000 plain, 500 output, by hand:
    // 1000 x 0.10 + 2000 x 1.25 + 3000 x 1.00 = 5,600 µ$; 500 x 5 = 2,500 µ$.
    let cost = |p: &Pricing| {
        let mut c: PromptCost = p.priced(1000, 2000, 3000);
        c.add_call(p.output(500));
        c.cost
    };
    assert!((cost(&h) - 0.0081).abs() < 1e-12, "{}", cost(&h));
    let o = info.for_model(&base, "claude-opus-4").unwrap();
    assert_eq!(o.min_cacheable_tokens, 1024);
    // 1000 x 1.50 + 2000 x 18.75 + 3000 x 15 = 84,000 µ$; output at the profile's 15: 7,500.
    assert!((cost(&o) - 0.0915).abs() < 1e-12, "{}", cost(&o));
    // The profile itself: 300 + 7,500 + 9,000 + 7,500 µ$.
    assert!((cost(&base) - 0.0243).abs() < 1e-12, "{}", cost(&base));
    assert_eq!(info.for_model(&base, "claude-sonnet-4"), None);
}

#[test]
fn a_profile_that_prices_only_its_models_does_not_price_another() {
    let mut info = listing(&[("gpt-5.6", ModelPrices::default())]);
    info.provider = Some("openai".into());
    info.prices_unlisted_models = false;
    assert!(info.prices("openai", Some("gpt-5.6")));
    assert!(!info.prices("openai", Some("gpt-5.3-codex")));
    assert!(!info.prices("openai", None));
    assert!(!info.prices("anthropic", Some("gpt-5.6")));
    info.prices_unlisted_models = true;
    assert!(info.prices("openai", Some("gpt-5.3-codex")));
}

#[test]
fn a_gateways_name_for_a_provider_finds_its_profile() {
    let gemini = ProfileInfo {
        provider: Some("gemini".into()),
        ..listing(&[("gemini-3-pro-preview", minimum(4096.0))])
    };
    // OpenRouter's model names call the Gemini API `google`; some gateways write `@google`.
    for provider in ["gemini", "google", "@google"] {
        assert!(gemini.serves(provider), "{provider}");
        assert!(gemini.prices(provider, Some("google/gemini-3-pro-preview")));
    }
    assert!(!gemini.serves("openai"));
    assert!(!gemini.serves("googl"));
    assert_eq!(provider_name("anthropic"), "anthropic");
}

/// Sonnet 5.5 as the registry dates it: reads $0.10 since 2026-10-07, $0.20 before.
fn sonnet_5_5() -> ModelPrices {
    ModelPrices {
        input_per_mtok: Some(Price(2.0)),
        cache_read_per_mtok: Some(Price(0.10)),
        effective: Some(super::Date::parse("2026-10-07").unwrap()),
        earlier: Some(Box::new(ModelPrices {
            cache_read_per_mtok: Some(Price(0.20)),
            ..ModelPrices::default()
        })),
        ..ModelPrices::default()
    }
}

#[test]
fn a_run_is_priced_by_the_rule_in_force_when_it_was_sent() {
    let info = listing(&[("claude-sonnet-5-5", sonnet_5_5())]);
    let base = sonnet();
    // 2026-10-07T00:00:00Z is 1,791,331,200 s.
    let day = 1_791_331_200.0;
    let priced = |at| info.for_model_at(&base, "claude-sonnet-5-5", at).unwrap();
    let before = priced(Some(day - 1.0));
    assert_eq!(
        before.name,
        "anthropic@model=claude-sonnet-5-5@rule=before-2026-10-07"
    );
    assert_eq!(before.cache_read_per_mtok, 0.20);
    // The rest of the model's figures hold before the change too.
    assert_eq!(before.input_per_mtok, 2.0);
    for at in [Some(day), Some(day + 86_400.0 * 50.0), None] {
        let now = priced(at);
        assert_eq!(
            now.name,
            "anthropic@model=claude-sonnet-5-5@rule=2026-10-07"
        );
        assert_eq!(now.cache_read_per_mtok, 0.10, "{at:?}");
    }
    // 1,000,000 read: $0.20 before, $0.10 since.
    assert!((before.priced(1_000_000, 0, 0).cost - 0.20).abs() < 1e-12);
    assert!((priced(None).priced(1_000_000, 0, 0).cost - 0.10).abs() < 1e-12);
    // A rule is chosen by name; an unknown name lists the model's rules.
    let prices = sonnet_5_5();
    assert_eq!(
        prices
            .rule("before-2026-10-07")
            .unwrap()
            .cache_read_per_mtok,
        Some(Price(0.20))
    );
    assert_eq!(
        prices.rule("2026-10-07").unwrap().cache_read_per_mtok,
        Some(Price(0.10))
    );
    assert_eq!(
        prices.rule("2026-01-01").unwrap_err(),
        ["2026-10-07", "before-2026-10-07"]
    );
    // Undated figures have one rule and no name for it.
    assert!(minimum(512.0).rule("2026-10-07").unwrap_err().is_empty());
    let plain = listing(&[("claude-opus-5", minimum(512.0))]);
    let p = plain
        .for_model_at(&base, "claude-opus-5", Some(day))
        .unwrap();
    assert_eq!(p.name, "anthropic@model=claude-opus-5");
    assert!(p.tiers.is_empty());
}

#[test]
fn the_registry_reads_dated_rules_and_tiers_and_refuses_a_bad_date() {
    let table: Profile = toml::from_str(
        r#"
        input_per_mtok = 3
        [models."claude-haiku-5-5"]
        input_per_mtok = 0.10
        long_prompt_tokens = 100000
        long_prompt_multiplier = 5
        effective = "2026-10-07"
        [models."claude-sonnet-5-5"]
        cache_read_per_mtok = 0.10
        effective = "2026-10-07"
        [models."claude-sonnet-5-5".earlier]
        cache_read_per_mtok = 0.20
        "#,
    )
    .unwrap();
    let info = table.info("anthropic");
    let (_, haiku) = info.model("claude-haiku-5-5").unwrap();
    assert_eq!(
        haiku.long_prompt(),
        Some(super::LongPrompt {
            above_tokens: 100_000,
            multiplier: 5.0
        })
    );
    let (_, sonnet) = info.model("claude-sonnet-5-5").unwrap();
    assert_eq!(sonnet.at(Some(0.0)).1.as_deref(), Some("before-2026-10-07"));
    let err =
        toml::from_str::<Profile>("input_per_mtok = 3\n[models.m]\neffective = \"2026-10-32\"\n")
            .unwrap_err()
            .to_string();
    assert!(
        err.contains("YYYY-MM-DD") && err.contains("2026-10-32"),
        "{err}"
    );
}

#[test]
fn rules_chain_back_by_their_dates() {
    let table: Profile = toml::from_str(
        r#"
        input_per_mtok = 1
        cache_read_per_mtok = 0.1
        cache_write_per_mtok = 1
        min_cacheable_tokens = 64
        cache_step_tokens = 64
        [models."m"]
        input_per_mtok = 3
        caching = "prefix-units"
        weekday_peak_hours_utc = ["01:00-04:00"]
        peak_multiplier = 2
        effective = "2026-11-26"
        [models."m".earlier]
        caching = "implicit"
        effective = "2026-08-17"
        [models."m".earlier.earlier]
        input_per_mtok = 2
        peak_multiplier = 1
        "#,
    )
    .unwrap();
    let (profile, info) = (table.complete("p").unwrap(), table.info("p"));
    let day = |y, m, d| crate::pricing::days_from_civil(y, m, d) as f64 * 86_400.0;
    let at = |t: f64| info.for_model_at(&profile, "m", Some(t)).unwrap();
    let now = at(day(2026, 11, 26));
    assert_eq!(now.name, "p@model=m@rule=2026-11-26");
    assert_eq!(
        (now.input_per_mtok, now.caching),
        (3.0, Caching::PrefixUnits)
    );
    assert!(now.tiers.peak.is_some());
    // The second before 2026-11-26: the rule of 2026-08-17, with the newer figures it does
    // not set.
    let then = at(day(2026, 11, 26) - 1.0);
    assert_eq!(then.name, "p@model=m@rule=2026-08-17");
    assert_eq!(
        (then.input_per_mtok, then.caching),
        (3.0, Caching::Implicit)
    );
    assert!(then.tiers.peak.is_some());
    let first = at(day(2026, 8, 17) - 1.0);
    assert_eq!(first.name, "p@model=m@rule=before-2026-08-17");
    assert_eq!(
        (first.input_per_mtok, first.caching),
        (2.0, Caching::Implicit)
    );
    assert!(first.tiers.peak.is_none());
    // `@rule=` names each, and the error names them all.
    let (_, prices) = info.model("m").unwrap();
    assert_eq!(
        prices.rule("2026-08-17").unwrap().caching,
        Some(Caching::Implicit)
    );
    assert_eq!(
        prices.rule("before-2026-08-17").unwrap().input_per_mtok,
        Some(Price(2.0))
    );
    assert_eq!(
        prices.rule("2025-01-01").unwrap_err(),
        ["2026-11-26", "2026-08-17", "before-2026-08-17"]
    );
    // A window that is no window is refused with the place it is in.
    let err =
        toml::from_str::<Profile>("[models.\"m\"]\nweekday_peak_hours_utc = [\"10:00-09:00\"]\n")
            .unwrap_err()
            .to_string();
    assert!(
        err.contains("ends before it starts") && err.contains("10:00-09:00"),
        "{err}"
    );
}
