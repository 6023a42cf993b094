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
