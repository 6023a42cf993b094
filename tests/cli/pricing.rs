//! `ptc pricing`: every pricing profile with its rule, prices, provider, models, source and
//! date; `--requests`, the requests a run's prompts make as a cache sees them; per-model
//! minimums picked by `ptc ab --pricing NAME@model=M` and by `ptc bill` from the usage's model;
//! the range of a profile whose hits are not guaranteed; and a second opinion on the cost
//! simulation from an independent cost model (`cost_check.py`).

use serde_json::Value as Json;

use crate::support::{all_strategies, example, python_with, repo, shared, Scratch, EXAMPLES};

#[test]
fn every_built_in_profile_says_its_provider_source_and_date() {
    let list = shared().ptc(["pricing", "--format", "json"]).json();
    let list = list.as_array().unwrap();
    let names: Vec<&str> = list.iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "anthropic",
            "deepseek",
            "gemini",
            "gemini-explicit",
            "mistral",
            "none",
            "openai",
            "openai-gpt-5-6",
            "openrouter-deepseek",
            "qwen",
            "qwen-explicit",
            "xai"
        ]
    );
    for profile in list {
        let name = &profile["name"];
        for key in ["source", "as_of"] {
            assert!(profile[key].is_string(), "{name} has no {key}");
        }
        // A date: YYYY-MM or YYYY-MM-DD.
        let as_of = profile["as_of"].as_str().unwrap();
        assert!(
            as_of.len() >= 7 && as_of[..4].parse::<u32>().is_ok() && &as_of[4..5] == "-",
            "{name}: {as_of}"
        );
        if name != "none" {
            assert!(profile["provider"].is_string(), "{name} has no provider");
            assert!(profile["output_per_mtok"].as_f64().unwrap() > 0.0, "{name}");
        }
    }
    let anthropic = &list[0];
    assert_eq!(anthropic["default"], true);
    assert_eq!(anthropic["caching"], "explicit");
    assert_eq!(anthropic["cache_ttl"], "5m");
    assert_eq!(anthropic["breakpoints"], "strategy");
    assert_eq!(anthropic["cache_step_tokens"], Json::Null);
    let models = &anthropic["models"];
    // Each model's own minimum and prices.
    for (model, min, input, output) in [
        ("claude-opus-5", 512, 5.0, 25.0),
        ("claude-sonnet-4-5", 1024, 3.0, 15.0),
        ("claude-opus-4-7", 2048, 5.0, 25.0),
        ("claude-haiku-4-5", 4096, 1.0, 5.0),
    ] {
        assert_eq!(models[model]["min_cacheable_tokens"], min, "{model}");
        assert_eq!(models[model]["input_per_mtok"], input, "{model}");
        assert_eq!(models[model]["output_per_mtok"], output, "{model}");
    }
    let gemini = &list[2];
    assert_eq!(gemini["caching"], "implicit");
    assert_eq!(gemini["cache_write_per_mtok"], Json::Null);
    assert_eq!(gemini["cache_ttl"], "unstated");
    let explicit = &list[3];
    assert_eq!(explicit["caching"], "gemini-explicit");
    assert_eq!(explicit["cache_ttl"], "1h");
    assert_eq!(explicit["cache_write_1h_per_mtok"].as_f64(), Some(1.375));
    assert_eq!(list[5]["caching"], "none");
    let openai = &list[6];
    assert_eq!(openai["cache_ttl"], "5m");
    let gpt_5_6 = &list[7];
    assert_eq!(gpt_5_6["caching"], "openai-breakpoints");
    assert_eq!(gpt_5_6["cache_ttl"], "30m");
    assert_eq!(gpt_5_6["breakpoints"], "strategy");
    assert_eq!(
        (
            gpt_5_6["input_per_mtok"].as_f64(),
            gpt_5_6["cache_read_per_mtok"].as_f64(),
            gpt_5_6["cache_write_per_mtok"].as_f64()
        ),
        (Some(2.5), Some(0.25), Some(3.125))
    );
    // The rules of November 2026: each provider's ratios to its input price.
    let profile = |name: &str| list.iter().find(|p| p["name"] == name).unwrap();
    let ratios = |p: &Json| {
        let input = p["input_per_mtok"].as_f64().unwrap();
        let ratio = |key: &str| {
            p[key]
                .as_f64()
                .map(|v| (v / input * 1000.0).round() / 1000.0)
        };
        (
            p["caching"].as_str().unwrap().to_owned(),
            ratio("cache_read_per_mtok"),
            ratio("cache_write_per_mtok"),
            p["min_cacheable_tokens"].as_u64(),
        )
    };
    let xai = profile("xai");
    assert_eq!(
        ratios(xai),
        ("implicit".into(), Some(0.25), None, Some(128))
    );
    assert_eq!(xai["cache_step_tokens"], 128);
    let grok = &xai["models"]["grok-4.7"];
    assert_eq!(
        (&grok["long_prompt_tokens"], &grok["long_prompt_multiplier"]),
        (&Json::from(199_999), &Json::from(2.0))
    );
    assert_eq!(
        ratios(profile("qwen")),
        ("implicit".into(), Some(0.2), None, Some(1024))
    );
    assert_eq!(
        ratios(profile("qwen-explicit")),
        ("explicit".into(), Some(0.1), Some(1.25), Some(1024))
    );
    assert_eq!(profile("qwen-explicit")["cache_ttl"], "5m");
    assert_eq!(ratios(profile("mistral")).1, Some(0.1));
    for name in ["xai", "qwen", "mistral"] {
        assert_eq!(profile(name)["hits_guaranteed"], false, "{name}");
    }
}

#[test]
fn the_text_says_each_rule_and_how_old_it_is() {
    let text = shared().ptc(["pricing"]).ok();
    for needle in [
        "anthropic [anthropic, every model] (the cost column of `ptc ab`)\n",
        "  rule      explicit: breakpoints (strategy), from 1,024 tokens, TTL 5m, at most 4 breakpoints, 20-block lookback\n",
        "  per Mtok  input $3, cache read $0.3, cache write $3.75 (5m) / $6 (1h), output $15\n",
        "  claude-haiku-4-5                      1      0.1      1.25         2        5  4,096\n",
        "  rule      implicit: the prefix shared with the previous request, from 1,024 tokens, in steps of 128; gone after 5m without a request\n",
        "  rule      implicit: the prefix shared with the previous request, from 64 tokens, in steps of 64; the response is cached after its request; no lifetime stated (not expired)\n",
        "  rule      openai-breakpoints: breakpoints (strategy), none on the assistant's blocks, from 1,024 tokens, TTL 30m from the write, at most 4 written a request, matched against the latest 80 at any block\n",
        "  per Mtok  input $2.5, cache read $0.25, cache write $3.125, output $15\n",
        "  rule      no caching: every token at the input price\n",
        "  as of     2026-08\n",
    ] {
        assert!(text.contains(needle), "{needle}\n{text}");
    }
    // A profile of the user's with no source or date says so.
    let scratch = Scratch::new();
    scratch.write(
        "mine.toml",
        "[pricing.mine]\ninput_per_mtok = 1\ncache_read_per_mtok = 0.1\ncache_write_per_mtok = 1\nmin_cacheable_tokens = 0\ncache_step_tokens = 1\n",
    );
    let text = scratch.ptc(["pricing", "--config", "mine.toml"]).ok();
    assert!(
        text.contains("mine [no provider]\n  rule      no caching: every token at the input price\n  per Mtok  input $1, cache read $0.1, output not set\n  source    not stated\n  as of     not stated\n"),
        "{text}"
    );
}

#[test]
fn requests_are_the_prompts_as_a_cache_sees_them() {
    let path = example("data-exploration.json");
    let out = all_strategies()
        .ptc([
            "pricing",
            "--requests",
            &path.display().to_string(),
            "--strategy",
            "single-user-coalesced",
        ])
        .json();
    let prompts = out["prompts"].as_array().unwrap();
    assert_eq!(out["strategy"], "single-user-coalesced");
    assert_eq!(out["tokenizer"], "o200k_base");
    // One request per prompt `ptc ab` prices, with the same tokens.
    let ab = all_strategies()
        .ptc([
            "ab",
            &path.display().to_string(),
            "--strategies",
            "single-user-coalesced",
            "--format",
            "json",
            "--no-timing",
        ])
        .json();
    let run = ab["runs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["strategy"] == "single-user-coalesced")
        .unwrap();
    let measured = run["prompts"].as_array().unwrap();
    assert_eq!(prompts.len(), measured.len());
    for (request, prompt) in prompts.iter().zip(measured) {
        assert_eq!(request["tokens"], prompt["tokens"]);
        assert_eq!(request["shared"], prompt["shared"]);
        let blocks = request["blocks"].as_array().unwrap();
        assert!(blocks[0]["system"].as_bool().unwrap());
        let ends: Vec<u64> = blocks.iter().map(|b| b["end"].as_u64().unwrap()).collect();
        assert!(ends.windows(2).all(|w| w[0] <= w[1]), "{ends:?}");
        assert!(ends.last().unwrap() <= &request["tokens"].as_u64().unwrap());
    }
    let error = shared()
        .ptc(["pricing", "--strategy", "delta-log"])
        .run_failed();
    assert!(error.contains("--requests"), "{error}");
}

/// Under Anthropic's profile the requests are counted as the Messages API body sends them:
/// each block's text, nothing between two blocks and no overhead. So the blocks of `ptc pricing
/// --requests` end where the text blocks of `ptc render --format anthropic` end, counted one by
/// one, and the request's tokens are the body's.
#[test]
fn anthropic_requests_count_the_text_blocks_of_the_body() {
    let tokenizer = ptc::Tokenizer::O200kBase;
    for name in ["data-exploration.json", "failure-recovery.json"] {
        let path = example(name).display().to_string();
        for strategy in ["full-history", "delta-log", "single-user-coalesced"] {
            let out = all_strategies()
                .ptc(["pricing", "--requests", &path, "--strategy", strategy])
                .json();
            assert_eq!(out["pricing"], "anthropic");
            assert_eq!(out["counting"], "anthropic-blocks");
            for request in out["prompts"].as_array().unwrap() {
                let turns = request["turns"].to_string();
                let body = all_strategies()
                    .ptc([
                        "render",
                        &path,
                        "--turns",
                        &turns,
                        "--strategy",
                        strategy,
                        "--format",
                        "anthropic",
                    ])
                    .json();
                let mut texts: Vec<&str> = Vec::new();
                for block in body["system"].as_array().into_iter().flatten() {
                    texts.push(block["text"].as_str().unwrap());
                }
                for message in body["messages"].as_array().unwrap() {
                    for block in message["content"].as_array().unwrap() {
                        texts.push(block["text"].as_str().unwrap());
                    }
                }
                let mut end = 0;
                let body_ends: Vec<u64> = texts
                    .iter()
                    .map(|text| {
                        end += tokenizer.count(text) as u64;
                        end
                    })
                    .collect();
                let ends: Vec<u64> = request["blocks"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|b| b["end"].as_u64().unwrap())
                    .collect();
                assert_eq!(ends, body_ends, "{name} {strategy} turn {turns}");
                assert_eq!(request["tokens"], end, "{name} {strategy} turn {turns}");
            }
        }
    }
}

/// A model's minimum through `--pricing anthropic@model=M`: the same run reads from the cache
/// under Claude Opus 5 (512 tokens), Sonnet 4.5 (1,024) and not at all under Haiku 4.5
/// (4,096) when its prompts stay under 4,096 tokens.
#[test]
fn ab_takes_a_models_minimum_from_the_profiles_table() {
    let path = example("data-exploration.json");
    let read = |spec: &str| -> (u64, u64) {
        let ab = all_strategies()
            .ptc([
                "ab",
                &path.display().to_string(),
                "--strategies",
                "full-history",
                "--pricing",
                spec,
                "--format",
                "json",
                "--no-timing",
            ])
            .json();
        let pricing = ab["pricing"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == spec)
            .unwrap()
            .clone();
        let run = &ab["runs"][0];
        let read: u64 = run["prompts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["cost"][spec]["read"].as_u64().unwrap())
            .sum();
        (pricing["min_cacheable_tokens"].as_u64().unwrap(), read)
    };
    let (opus, opus_read) = read("anthropic@model=claude-opus-5");
    let (sonnet, sonnet_read) = read("anthropic@model=claude-sonnet-4-5");
    let (haiku, haiku_read) = read("anthropic@model=claude-haiku-4-5");
    assert_eq!((opus, sonnet, haiku), (512, 1024, 4096));
    assert!(
        opus_read >= sonnet_read && sonnet_read > 0,
        "{opus_read} {sonnet_read}"
    );
    assert_eq!(haiku_read, 0);
    let error = all_strategies()
        .ptc([
            "ab",
            &path.display().to_string(),
            "--pricing",
            "anthropic@model=claude-haiku-4",
        ])
        .bad_input();
    assert!(
        error.contains("model `claude-haiku-4` is not in [pricing.anthropic.models]"),
        "{error}"
    );
    assert!(
        error.contains("did you mean `claude-haiku-4-5`?"),
        "{error}"
    );
}

/// Gemini's implicit caching promises no hit: its figure is a range, the best case (every
/// cacheable prefix read) beside `gemini@hits=none`, and the verdict says so.
#[test]
fn an_unguaranteed_cache_is_reported_as_a_range() {
    let scratch = all_strategies();
    // Prompts past Gemini's minimum: a minimum low enough for the bundled examples.
    let ab = scratch
        .ptc([
            "ab",
            "--wide",
            "--explain",
            "--strategies",
            "full-history,delta-log",
            "--set",
            "pricing.gemini.min_cacheable_tokens=256",
            "--format",
            "json",
            "--no-timing",
        ])
        .json();
    let names: Vec<&str> = ab["pricing"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"gemini@hits=none"), "{names:?}");
    assert!(!names.contains(&"openai@hits=none"), "{names:?}");
    let none = ab["pricing"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "gemini@hits=none")
        .unwrap();
    assert_eq!(none["min_cacheable_tokens"], 0);
    let verdicts = ab["verdict"].as_array().unwrap();
    let gemini = verdicts.iter().find(|v| v["provider"] == "gemini").unwrap();
    assert_eq!(gemini["pricing"], "gemini", "the range's end is no choice");
    assert_eq!(gemini["best_case"], true);
    // Each figure relative to the baseline under the same assumption; the no-hit one is the
    // strategy's cost with no hit over the baseline's.
    let strategy = gemini["strategy"].as_str().unwrap();
    let cost = |label: &str, profile: &str| -> f64 {
        ab["strategies"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["label"] == label)
            .unwrap()["cost"][profile]
            .as_f64()
            .unwrap()
    };
    let no_hits = cost(strategy, "gemini@hits=none") / cost("full-history", "gemini@hits=none");
    let figure = gemini["cost_vs_baseline_no_hits"].as_f64().unwrap();
    assert!((figure - no_hits).abs() < 1e-12, "{figure} {no_hits}");
    // Hits only make a strategy cheaper: the best case is the low end of its cost.
    assert!(cost(strategy, "gemini") < cost(strategy, "gemini@hits=none"));
    let text = gemini["text"].as_str().unwrap();
    assert!(
        text.contains(&format!(
            " with every cacheable prefix read (the best case: modelled, not guaranteed; {no_hits:.2}x with no cache hit)"
        )),
        "{text}"
    );
    assert!(!text.contains("breakpoints="), "{text}");
    // The providers that promise hits give a single figure; DeepSeek's cache, direct or
    // through OpenRouter, is best effort too, as are xAI's, Model Studio's implicit one and
    // Mistral's.
    for v in verdicts.iter() {
        let provider = v["provider"].as_str().unwrap();
        let ranged = matches!(
            provider,
            "gemini" | "deepseek" | "openrouter-deepseek" | "xai" | "qwen" | "mistral"
        );
        assert_eq!(v["best_case"], ranged, "{provider}");
        assert_eq!(
            v["text"].as_str().unwrap().contains("best case"),
            ranged,
            "{provider}"
        );
    }
    // The table has the range's end as a column of its own.
    let table = scratch
        .ptc([
            "ab",
            "--wide",
            "--explain",
            "--strategies",
            "full-history,delta-log",
            "--set",
            "pricing.gemini.min_cacheable_tokens=256",
            "--no-timing",
        ])
        .ok();
    assert!(table.contains("gemini@hits=none"), "{table}");
}

/// The bundled examples and the fixtures' real runs, for 3 strategies, priced by ptc and by
/// cacheeconomics (an independent cost model, installed from the registry in a venv of the
/// test's own): every run within 1%, or a difference `cost_check.py` explains. Without python3
/// or the registry the test says why on stdout and passes, unless `PTC_REQUIRE_COST_CHECK` is
/// set.
#[test]
fn an_independent_cost_model_prices_the_same_requests_alike() {
    let scratch = tempfile::tempdir().unwrap();
    let mut python = match python_with(scratch.path(), &["cacheeconomics==0.2.1"]) {
        Ok(python) => python,
        Err(reason) if std::env::var_os("PTC_REQUIRE_COST_CHECK").is_none() => {
            println!("skipped: {reason}");
            return;
        }
        Err(reason) => panic!("PTC_REQUIRE_COST_CHECK is set and {reason}"),
    };
    let runs = Scratch::new();
    let mut recordings: Vec<String> = EXAMPLES
        .iter()
        .map(|name| example(name).display().to_string())
        .collect();
    for (from, to) in [
        (
            "ptc_runner-kernel/checkout-5xx-9.inspection.jsonl",
            "k9.json",
        ),
        (
            "mini-swe-agent/deepseek_reasoner_dev_pvlib__pvlib-python-1707.traj.json",
            "swe.json",
        ),
    ] {
        let out = runs.path().join(to).display().to_string();
        let from = repo().join("tests/fixtures/realruns").join(from);
        runs.ptc(["import", &from.display().to_string(), "-o", &out])
            .ok();
        recordings.push(out);
    }
    let output = python
        .arg(repo().join("tests/cli/cost_check.py"))
        .arg(env!("CARGO_BIN_EXE_ptc"))
        .args(&recordings)
        .arg("--")
        .args(["full-history", "delta-log", "single-user-coalesced"])
        .current_dir(all_strategies().path())
        .env("XDG_DATA_HOME", all_strategies().path().join("data"))
        .output()
        .expect("python3 runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.starts_with("ok: "), "{stdout}");
    println!("{stdout}");
}

/// A price tier by prompt length in `ptc ab`: each request over the line pays 5x on every
/// token (no caching and no output price, so that a prompt's cost is its tokens at $1 per
/// Mtok, times 5 over 1,660 tokens). On failure-recovery, full-history's last prompt (1,661
/// tokens) passes the line and per-turn-summary's (1,656) does not: per-turn-summary, which
/// sends more tokens in all, is the verdict, and the verdict says a tier decided it.
#[test]
fn ab_prices_each_request_by_its_tier_and_says_when_a_tier_decided_the_verdict() {
    let scratch = all_strategies();
    scratch.write(
        "tier.toml",
        "[pricing.t]\nprovider = \"t\"\ninput_per_mtok = 1\ncache_read_per_mtok = 0.1\ncache_write_per_mtok = 1\nmin_cacheable_tokens = 0\ncache_step_tokens = 1\n\n[pricing.t.models.\"m\"]\nlong_prompt_tokens = 1660\nlong_prompt_multiplier = 5\n",
    );
    let path = example("failure-recovery.json").display().to_string();
    let args = |format: &str| {
        [
            "ab",
            "--config",
            "tier.toml",
            &path,
            "--strategies",
            "full-history,per-turn-summary",
            "--pricing",
            "t@model=m,t",
            "--format",
            format,
            "--no-timing",
        ]
        .map(String::from)
    };
    let ab = scratch.ptc(args("json")).json();
    let tiers = ab["pricing"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "t@model=m")
        .unwrap()["tiers"]
        .clone();
    assert_eq!(tiers["long_prompt"]["above_tokens"], 1660);
    for run in ab["runs"].as_array().unwrap() {
        let mut tokens = Vec::new();
        for prompt in run["prompts"].as_array().unwrap() {
            let n = prompt["tokens"].as_u64().unwrap();
            let factor = if n > 1660 { 5.0 } else { 1.0 };
            let cost = prompt["cost"]["t@model=m"]["cost"].as_f64().unwrap();
            assert!(
                (cost - factor * n as f64 / 1e6).abs() < 1e-12,
                "{n}: {cost}"
            );
            // The profile without the tier prices every token alike.
            let plain = prompt["cost"]["t"]["cost"].as_f64().unwrap();
            assert!((plain - n as f64 / 1e6).abs() < 1e-12, "{n}: {plain}");
            tokens.push(n);
        }
        // The prompts this test is about, on either side of the line.
        let last = *tokens.last().unwrap();
        match run["strategy"].as_str().or(run["variant"].as_str()) {
            Some("full-history") => assert_eq!(last, 1661, "{tokens:?}"),
            Some("per-turn-summary") => assert_eq!(last, 1656, "{tokens:?}"),
            other => panic!("{other:?}"),
        }
    }
    let verdicts = ab["verdict"].as_array().unwrap();
    let tiered = verdicts
        .iter()
        .find(|v| v["provider"] == "t@model=m")
        .unwrap();
    assert_eq!(tiered["strategy"], "per-turn-summary");
    assert_eq!(tiered["without_tiers"]["strategy"], "full-history");
    let plain = verdicts.iter().find(|v| v["provider"] == "t").unwrap();
    assert_eq!(plain["strategy"], "full-history");
    assert!(plain.get("without_tiers").is_none(), "{plain}");
    let table = scratch.ptc(args("table")).ok();
    assert!(
        table.contains("t@model=m: per-turn-summary 0.48x full-history (52% less; a tier decided it: full-history without\n    tiers)"),
        "{table}"
    );
}
