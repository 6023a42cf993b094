//! The rule and the arithmetic of the comparison with the bill, on small recordings whose
//! figures are computed here by hand from ptc's counts of their requests.

use std::path::Path;

use serde_json::json;

use super::*;
use crate::cache::{Caching, Placement};
use crate::message::RenderedMessage;
use crate::recording::RecordingDefaults;
use crate::render::trigger::as_sent;

fn defaults() -> RecordingDefaults {
    RecordingDefaults {
        max_turns: 10,
        system_prompt: "system".into(),
        max_recording_bytes: crate::recording::DEFAULT_MAX_RECORDING_BYTES,
    }
}

/// A recording of `turns` turns; turn `k` sends the mission, then for each earlier turn its
/// response and a tool result, as an agent appending to its transcript does. `usage[k]` is
/// (uncached input, cache read, output, stated cost).
fn run(name: &str, provider: &str, usage: &[(u64, u64, u64, Option<f64>)]) -> Recording {
    let mut turns = Vec::new();
    let mut messages = vec![
        json!({"role": "system", "content": "You are an agent. ".repeat(40)}),
        json!({"role": "user", "content": format!("Mission of {name}: find the fault.")}),
    ];
    for (k, (input, read, output, cost)) in usage.iter().enumerate() {
        let mut usage = json!({"input": input, "cache_read": read, "output": output, "provider": provider, "model": "m-1"});
        if let Some(cost) = cost {
            usage["cost_usd"] = json!(cost);
        }
        turns.push(json!({
            "number": k + 1,
            "raw_response": format!("step {k}"),
            "program": format!("(step {k})"),
            "success": true,
            "started_at": 1000.0 + 10.0 * k as f64,
            "request": {"messages": messages.clone()},
            "usage": usage,
        }));
        messages.push(json!({"role": "assistant", "content": format!("step {k}: looking at the logs of service {k}")}));
        messages.push(json!({"role": "user", "content": format!("result {k}: ").repeat(30)}));
    }
    let recording = json!({"mission": format!("Mission of {name}"), "turns": turns});
    Recording::parse(
        recording.to_string().as_bytes(),
        Path::new(&format!("{name}.json")),
        &defaults(),
    )
    .unwrap()
}

fn implicit(name: &str, min: usize, step: usize) -> Pricing {
    Pricing {
        name: name.into(),
        input_per_mtok: 0.27,
        cache_read_per_mtok: 0.135,
        cache_write_per_mtok: 0.27,
        cache_write_1h_per_mtok: 0.54,
        min_cacheable_tokens: min,
        cache_step_tokens: step,
        caching: Caching::Implicit,
        ttl: crate::cache::Ttl::FiveMinutes,
        placement: Placement::Strategy,
        output_per_mtok: 15.0,
        tiers: crate::pricing::Tiers::default(),
    }
}

fn info(name: &str, provider: &str, output: f64, includes_output: bool) -> ProfileInfo {
    ProfileInfo {
        name: name.into(),
        output_per_mtok: output,
        cache_includes_output: includes_output,
        provider: Some(provider.into()),
        prices_unlisted_models: true,
        ..ProfileInfo::default()
    }
}

fn minimum(min: usize) -> crate::pricing::ModelPrices {
    crate::pricing::ModelPrices {
        min_cacheable_tokens: Some(crate::pricing::Price(min as f64)),
        ..Default::default()
    }
}

fn options(miss_rate: MissRate) -> BillOptions {
    BillOptions {
        miss_rate,
        shared_cache: false,
        profile: None,
        keep_runs: true,
    }
}

/// The bill of `recordings` of provider `router`, priced by a profile of implicit caching in
/// units of 64 tokens ($0.27 input, $0.135 read, $0.40 output).
fn router_bill(
    recordings: impl IntoIterator<Item = Recording>,
    rate: MissRate,
) -> Result<Bill, Error> {
    Bill::new(
        recordings,
        &[implicit("p", 64, 64)],
        &[info("p", "router", 0.40, false)],
        Tokenizer::O200kBase,
        &options(rate),
    )
}

/// ptc's count of the request of turn `turns + 1` of `recording`, the tokens it shares with
/// the one before, and the count of the message after the previous request.
fn counts(recording: &Recording, turns: usize) -> (usize, usize, usize) {
    let mut counter = Counter::new(Tokenizer::O200kBase);
    let before: Vec<RenderedMessage> = if turns == 0 {
        Vec::new()
    } else {
        as_sent(recording, turns - 1).unwrap().messages
    };
    let now = as_sent(recording, turns).unwrap().messages;
    let (total, shared) = counter.measure(&before, &now);
    let response = now.get(before.len()).map_or(0, |m| counter.message(m));
    (total, shared, response)
}

#[test]
fn the_read_is_the_previous_request_measured_back_from_its_bill_in_whole_steps() {
    let usage = [(900, 0, 50, None), (300, 800, 60, None)];
    let recording = run("a", "router", &usage);
    let (c1, _, _) = counts(&recording, 0);
    let (c2, shared, _) = counts(&recording, 1);
    let bill = router_bill([recording], MissRate::Fit).unwrap();
    let calls = &bill.runs[0].calls;
    assert_eq!(calls[0].counted, c1 as u64);
    assert_eq!(calls[1].counted, c2 as u64);
    assert_eq!(calls[0].billed_prompt, 900);
    assert_eq!(calls[1].billed_prompt, 1100);
    // Nothing before the first request.
    assert_eq!(calls[0].simulated_read, 0);
    // 900 billed, less what of it the second request does not send, in billed tokens.
    let prefix = 900.0 - (c1 - shared) as f64 * 900.0 / c1 as f64;
    assert_eq!(calls[1].simulated_read, (prefix as u64) / 64 * 64);
    // Priced: reads at 0.135, the rest at 0.27, output at 0.40 per million.
    let read = calls[1].simulated_read as f64;
    let best = (read * 0.135 + (1100.0 - read) * 0.27 + 60.0 * 0.40) / 1e6;
    assert!((calls[1].best_cost - best).abs() < 1e-15);
    let miss = (1100.0 * 0.27 + 60.0 * 0.40) / 1e6;
    assert!((calls[1].miss_cost - miss).abs() < 1e-15);
    // The bill priced by the profile: 800 read, 300 plain.
    let priced = (800.0 * 0.135 + 300.0 * 0.27 + 60.0 * 0.40) / 1e6;
    assert!((calls[1].priced_bill - priced).abs() < 1e-15);
}

#[test]
fn a_provider_that_caches_the_response_is_read_up_to_its_end() {
    let usage = [(900, 0, 50, None), (300, 800, 60, None)];
    let recording = run("a", "deepseek", &usage);
    let (c1, _, _) = counts(&recording, 0);
    let (_, _, response) = counts(&recording, 1);
    let bill = Bill::new(
        [recording],
        &[implicit("d", 64, 64)],
        &[info("d", "deepseek", 0.42, true)],
        Tokenizer::O200kBase,
        &options(MissRate::Fit),
    )
    .unwrap();
    let prefix = 900.0 + response as f64 * 900.0 / c1 as f64;
    assert_eq!(
        bill.runs[0].calls[1].simulated_read,
        (prefix as u64) / 64 * 64
    );
    assert!(bill.runs[0].calls[1].simulated_read > 900 / 64 * 64);
}

#[test]
fn under_the_minimum_nothing_is_read() {
    let usage = [(900, 0, 50, None), (300, 800, 60, None)];
    let bill = Bill::new(
        [run("a", "router", &usage)],
        &[implicit("p", 5000, 64)],
        &[info("p", "router", 0.40, false)],
        Tokenizer::O200kBase,
        &options(MissRate::Fit),
    )
    .unwrap();
    assert_eq!(bill.runs[0].calls[1].simulated_read, 0);
}

#[test]
fn the_miss_rate_is_fitted_on_runs_with_a_read_and_each_run_is_checked_with_the_others_rate() {
    // The best case reads 832 tokens on the second call of each run and 1,088 on the third.
    // Run a: the second call reads them all, the third misses whole. Run b: the second reads
    // them all, the third half (an older prefix). Run c reads nothing at all: it says where it
    // was served, not how often a cache misses.
    let a = run(
        "a",
        "router",
        &[
            (900, 0, 10, None),
            (268, 832, 10, None),
            (1600, 0, 10, None),
        ],
    );
    let b = run(
        "b",
        "router",
        &[
            (900, 0, 10, None),
            (268, 832, 10, None),
            (1056, 544, 10, None),
        ],
    );
    let c = run(
        "c",
        "router",
        &[(900, 0, 10, None), (1100, 0, 10, None), (1600, 0, 10, None)],
    );
    let bill = router_bill([a, b, c], MissRate::Fit).unwrap();
    for run in &bill.runs[..2] {
        let best: Vec<u64> = run.calls.iter().map(|c| c.simulated_read).collect();
        assert_eq!(best, [0, 832, 1088]);
    }
    let fit = bill.profiles[0].2;
    assert!(fit.fitted);
    assert_eq!((fit.predicted, fit.missed), (4, 1));
    // Whole and partial misses, by the tokens not read: 2,208 read of 3,840.
    assert_eq!((fit.predicted_tokens, fit.read_tokens), (3840, 2208));
    let close = |rate: Option<f64>, expected: f64| (rate.unwrap() - expected).abs() < 1e-12;
    assert!(close(Some(fit.rate), 1.0 - 2208.0 / 3840.0));
    assert!(!bill.runs[2].any_read());
    // Run a checked with b's rate (1,376 of 1,920 read), b with a's (832 of 1,920), c with
    // both.
    assert!(close(bill.runs[0].held_out_rate, 1.0 - 1376.0 / 1920.0));
    assert!(close(bill.runs[1].held_out_rate, 1.0 - 832.0 / 1920.0));
    assert!(close(bill.runs[2].held_out_rate, fit.rate));
    // The expected cost of a call the best case has reading.
    let call = &bill.runs[0].calls[2];
    let expected = 0.75 * call.best_cost + 0.25 * call.miss_cost;
    assert!((call.expected_cost(0.25) - expected).abs() < 1e-18);
    // A call the best case has not reading costs the same either way.
    let first = &bill.runs[0].calls[0];
    assert_eq!(first.expected_cost(0.25), first.best_cost);
}

#[test]
fn runs_not_kept_are_added_up_all_the_same() {
    // Two profiles, runs of both: the fits, the counts and the heading do not depend on
    // whether each run is kept once it is simulated.
    let runs = || {
        [
            run(
                "a",
                "router",
                &[
                    (900, 0, 10, None),
                    (268, 832, 10, None),
                    (1600, 0, 10, None),
                ],
            ),
            run(
                "b",
                "elsewhere",
                &[(900, 0, 10, None), (268, 832, 10, None)],
            ),
            run("c", "router", &[(900, 0, 10, None), (1100, 0, 10, None)]),
            run(
                "d",
                "router",
                &[
                    (900, 0, 10, None),
                    (268, 832, 10, None),
                    (1056, 544, 10, None),
                ],
            ),
        ]
    };
    let pricing = [implicit("p", 64, 64), implicit("q", 64, 64)];
    let infos = [
        info("p", "router", 0.4, false),
        info("q", "elsewhere", 0.4, false),
    ];
    let bill = |keep_runs: bool| {
        let options = BillOptions {
            keep_runs,
            ..options(MissRate::Fit)
        };
        Bill::new(runs(), &pricing, &infos, Tokenizer::O200kBase, &options).unwrap()
    };
    let (kept, added) = (bill(true), bill(false));
    assert_eq!(kept.runs.len(), 4);
    assert!(added.runs.is_empty());
    let calls = Compared { runs: 4, calls: 10 };
    assert_eq!((kept.compared, added.compared), (calls, calls));
    assert_eq!(kept.profiles, added.profiles);
    let fits: Vec<(usize, usize)> = kept
        .profiles
        .iter()
        .map(|(_, _, fit)| (fit.predicted, fit.missed))
        .collect();
    // Router: a reads its second call and misses its third, d reads both, c reads nothing
    // (kept out); elsewhere: b reads its second call.
    assert_eq!(fits, [(4, 1), (1, 0)]);
    assert_eq!(heading(&kept), heading(&added));
    assert!(heading(&added).contains("4 run(s), 10 billed call(s)"));
}

#[test]
fn reads_over_the_best_case_offset_reads_under_it_and_the_rate_is_never_negative() {
    // Every call reads a unit more than the best case: nothing is missed.
    let a = run(
        "a",
        "router",
        &[
            (900, 0, 10, None),
            (204, 896, 10, None),
            (448, 1152, 10, None),
        ],
    );
    let fit = router_bill([a], MissRate::Fit).unwrap().profiles[0].2;
    assert_eq!((fit.predicted_tokens, fit.read_tokens), (1920, 2048));
    assert_eq!(fit.rate, 0.0);
}

#[test]
fn a_given_rate_is_not_fitted() {
    let a = run(
        "a",
        "router",
        &[
            (900, 0, 10, None),
            (300, 800, 10, None),
            (1600, 0, 10, None),
        ],
    );
    let bill = router_bill([a], MissRate::Fixed(0.1)).unwrap();
    let fit = bill.profiles[0].2;
    assert!(!fit.fitted);
    assert_eq!(fit.rate, 0.1);
    assert_eq!(bill.runs[0].held_out_rate, None);
}

#[test]
fn each_run_is_priced_by_the_profile_of_its_provider_and_model() {
    let profiles = [
        implicit("any", 64, 64),
        implicit("named", 64, 64),
        implicit("other", 64, 64),
    ];
    let mut named = info("named", "router", 0.4, false);
    named.models = vec![("m-1".into(), minimum(64))];
    named.prices_unlisted_models = false;
    let infos = [
        info("any", "router", 0.4, false),
        named,
        info("other", "elsewhere", 0.4, false),
    ];
    let bill = Bill::new(
        [
            run("a", "router", &[(900, 0, 10, None)]),
            run("b", "elsewhere", &[(900, 0, 10, None)]),
        ],
        &profiles,
        &infos,
        Tokenizer::O200kBase,
        &options(MissRate::Fit),
    )
    .unwrap();
    // The profile naming the model wins over the one for every model of the provider.
    assert_eq!(bill.profiles[bill.runs[0].profile].0.name, "named");
    assert_eq!(bill.profiles[bill.runs[1].profile].0.name, "other");
    let err = Bill::new(
        [run("a", "nobody", &[(900, 0, 10, None)])],
        &profiles,
        &infos,
        Tokenizer::O200kBase,
        &options(MissRate::Fit),
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("a.json") && err.contains("`nobody`") && err.contains("--pricing"),
        "{err}"
    );
    let mut forced = options(MissRate::Fit);
    forced.profile = Some("none-such".into());
    let err = Bill::new(
        [run("a", "router", &[(900, 0, 10, None)])],
        &profiles,
        &infos,
        Tokenizer::O200kBase,
        &forced,
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("none-such"), "{err}");
}

#[test]
fn recordings_without_a_bill_are_set_apart_and_a_corpus_of_them_is_refused() {
    let plain = Recording::parse(
        br#"{"mission": "m", "turns": [{"number": 1, "raw_response": "r", "success": true}]}"#,
        Path::new("plain.json"),
        &defaults(),
    )
    .unwrap();
    let err = router_bill([plain.clone()], MissRate::Fit).unwrap_err();
    assert!(matches!(err, Error::NothingBilled { .. }));
    let bill = router_bill(
        [plain, run("a", "router", &[(900, 0, 10, None)])],
        MissRate::Fit,
    )
    .unwrap();
    assert_eq!(
        bill.without_bill,
        vec![std::path::PathBuf::from("plain.json")]
    );
    assert_eq!(bill.runs.len(), 1);
}

#[test]
fn a_shared_cache_lets_a_run_read_what_an_earlier_one_wrote() {
    // Two runs with the same system prompt: the second's first request reads it when the
    // cache is shared, and nothing when each run has its own.
    let usage = [(900, 0, 10, None)];
    let pricing = [implicit("p", 64, 1)];
    let infos = [info("p", "router", 0.4, false)];
    let own = Bill::new(
        [run("a", "router", &usage), run("b", "router", &usage)],
        &pricing,
        &infos,
        Tokenizer::O200kBase,
        &options(MissRate::Fit),
    )
    .unwrap();
    assert_eq!(own.runs[1].calls[0].simulated_read, 0);
    let mut shared = options(MissRate::Fit);
    shared.shared_cache = true;
    let bill = Bill::new(
        [run("a", "router", &usage), run("b", "router", &usage)],
        &pricing,
        &infos,
        Tokenizer::O200kBase,
        &shared,
    )
    .unwrap();
    assert!(bill.time_ordered);
    assert_eq!(bill.runs[0].calls[0].simulated_read, 0);
    // The system message (the first message boundary the runs share), in billed tokens.
    let recording = run("b", "router", &usage);
    let mut counter = Counter::new(Tokenizer::O200kBase);
    let messages = as_sent(&recording, 0).unwrap().messages;
    let system = counter.blocks(&messages)[0].end;
    let total = counts(&recording, 0).0;
    assert_eq!(
        bill.runs[1].calls[0].simulated_read,
        (system as f64 * 900.0 / total as f64) as u64
    );
}

#[test]
fn a_model_the_profile_lists_is_priced_with_its_own_minimum() {
    let usage = [(900, 0, 50, None), (300, 800, 60, None)];
    let priced = |models: Vec<(String, usize)>| {
        let mut about = info("p", "router", 0.40, false);
        about.models = models
            .into_iter()
            .map(|(name, min)| (name, minimum(min)))
            .collect();
        Bill::new(
            [run("a", "router", &usage)],
            &[implicit("p", 64, 64)],
            &[about],
            Tokenizer::O200kBase,
            &options(MissRate::Fit),
        )
        .unwrap()
    };
    // The usage names `m-1`: with a minimum of its own past every request, nothing is read,
    // and the run is priced by the profile with that model's rule.
    let bill = priced(vec![("m-1".into(), 100_000), ("m-2".into(), 64)]);
    assert_eq!(bill.profiles.len(), 1);
    assert_eq!(bill.profiles[0].0.name, "p@model=m-1");
    assert_eq!(bill.profiles[0].0.min_cacheable_tokens, 100_000);
    assert_eq!(bill.profiles[0].1.name, "p@model=m-1");
    assert_eq!(bill.runs[0].calls[1].simulated_read, 0);
    // A model listed with the profile's own minimum, or not listed: the profile as it is.
    for models in [vec![("m-1".into(), 64)], vec![("m-2".into(), 100_000)]] {
        let bill = priced(models);
        assert_eq!(bill.profiles[0].0.name, "p");
        assert!(bill.runs[0].calls[1].simulated_read > 0);
    }
}

#[test]
fn a_run_is_billed_by_the_rule_of_its_date_with_its_long_prompt_tier() {
    use crate::pricing::Profile;
    // The run's calls are sent at 1,000 s and 1,010 s (1970-01-01): a rule dated 1970-01-02
    // is not yet in force, one dated 1970-01-01 is.
    let usage = [(900, 0, 50, None), (300, 800, 60, None)];
    let bill = |effective: &str| {
        let table: Profile = toml::from_str(&format!(
            r#"
            [models."m-1"]
            output_per_mtok = 0.40
            long_prompt_tokens = 1000
            long_prompt_multiplier = 5
            effective = "{effective}"
            [models."m-1".earlier]
            long_prompt_multiplier = 1
            input_per_mtok = 1
            "#
        ))
        .unwrap();
        let mut about = info("p", "router", 0.40, false);
        about.models = table.info("p").models;
        Bill::new(
            [run("a", "router", &usage)],
            &[implicit("p", 64, 64)],
            &[about],
            Tokenizer::O200kBase,
            &options(MissRate::Fit),
        )
        .unwrap()
    };
    let now = bill("1970-01-01");
    assert_eq!(now.profiles[0].0.name, "p@model=m-1@rule=1970-01-01");
    // By hand, at $0.27 input, $0.135 read, $0.40 output per Mtok: the first call's prompt of
    // 900 tokens is under the line: 900 x 0.27 + 50 x 0.40 = 263 µ$; the second's of 1,100
    // passes it, and pays 5x on every token: (300 x 0.27 + 800 x 0.135 + 60 x 0.40) x 5
    // = 213 x 5 = 1,065 µ$.
    let priced: Vec<f64> = now.runs[0].calls.iter().map(|c| c.priced_bill).collect();
    assert!((priced[0] - 263e-6).abs() < 1e-12, "{priced:?}");
    assert!((priced[1] - 1065e-6).abs() < 1e-12, "{priced:?}");
    // Before the rule took effect: $1 input, no tier: 900 + 20 = 920 µ$; 300 + 108 + 24.
    let before = bill("1970-01-02");
    assert_eq!(
        before.profiles[0].0.name,
        "p@model=m-1@rule=before-1970-01-02"
    );
    let priced: Vec<f64> = before.runs[0].calls.iter().map(|c| c.priced_bill).collect();
    assert!((priced[0] - 920e-6).abs() < 1e-12, "{priced:?}");
    assert!((priced[1] - 432e-6).abs() < 1e-12, "{priced:?}");
}

#[test]
fn reads_the_bill_does_not_match_are_told_apart() {
    // The first call reads 512 tokens no earlier request of the run sent (another run's); the
    // second reads its whole prefix (within the tolerance); the third reads only 256 of the
    // ~1,600 the rule allows (a partial miss); the fourth reads nothing (a miss).
    let recording = run(
        "a",
        "router",
        &[
            (388, 512, 10, None),
            (300, 800, 10, None),
            (1344, 256, 10, None),
            (2100, 0, 10, None),
        ],
    );
    let bill = router_bill([recording], MissRate::Fit).unwrap();
    let calls = &bill.runs[0].calls;
    assert_eq!(calls[0].simulated_read, 0);
    assert!(calls[1].read_close(), "{:?}", calls[1]);
    assert!(
        calls[2].simulated_read > 256 + READ_TOLERANCE,
        "{:?}",
        calls[2]
    );
    assert!(calls[3].simulated_read > 0, "{:?}", calls[3]);
    let json = to_json::json(&bill);
    let run = &json["runs"][0];
    assert_eq!(run["read_calls"], 3);
    assert_eq!(run["read_calls_within_tolerance"], 1);
    assert_eq!(run["read_calls_shorter"], 1);
    assert_eq!(run["read_calls_longer"], 1);
    assert_eq!(run["missed_calls"], 1);
    let table = report::table(&bill);
    assert!(
        table.contains("1 of the 3 read calls read less than it by more than 128 tokens (an older, shorter prefix: a partial miss) and 1 more (a prefix no earlier request of the run sent: another run's, see --shared-cache); 1 call(s) read nothing where it reads"),
        "{table}"
    );
}

#[test]
fn a_run_whose_calls_name_several_providers_is_refused_naming_them() {
    let mut mixed = run("a", "deepseek", &[(900, 0, 10, None), (900, 0, 10, None)]);
    if let Some(Some(usage)) = mixed.usage.get_mut(1) {
        usage.provider = Some("openrouter".into());
    }
    let error = Bill::new(
        [mixed],
        &[implicit("deepseek", 64, 64), implicit("openrouter", 64, 64)],
        &[
            info("deepseek", "deepseek", 0.4, false),
            info("openrouter", "openrouter", 0.4, false),
        ],
        Tokenizer::O200kBase,
        &options(MissRate::Fit),
    )
    .unwrap_err();
    let text = error.to_string();
    assert!(
        text.contains("several pricing profiles (deepseek (1 call(s)), openrouter (1 call(s)))"),
        "{text}"
    );
    assert_eq!(error.exit_code(), 2);
}

#[test]
fn a_model_is_labelled_with_its_provider_once() {
    use super::report::model_label;
    assert_eq!(
        model_label(Some("deepseek"), Some("deepseek/deepseek-chat")),
        "deepseek/deepseek-chat"
    );
    assert_eq!(
        model_label(Some("deepseek"), Some("deepseek-chat")),
        "deepseek/deepseek-chat"
    );
    assert_eq!(
        model_label(Some("openrouter"), None),
        "openrouter (no model named)"
    );
}

#[test]
fn a_call_in_peak_hours_pays_the_peak_multiplier_and_the_rule_of_its_date_caches() {
    use crate::pricing::Profile;
    // The calls are sent at 1,000 s and 1,010 s: 00:16 on Thursday 1970-01-01, a weekday.
    let usage = [(900, 0, 50, None), (300, 800, 60, None)];
    let bill = |window: &str, effective: &str| {
        let table: Profile = toml::from_str(&format!(
            r#"
            [models."m-1"]
            output_per_mtok = 0.40
            weekday_peak_hours_utc = ["{window}"]
            peak_multiplier = 2
            caching = "prefix-units"
            effective = "{effective}"
            [models."m-1".earlier]
            caching = "implicit"
            "#
        ))
        .unwrap();
        let mut about = info("p", "router", 0.40, false);
        about.models = table.info("p").models;
        Bill::new(
            [run("a", "router", &usage)],
            &[implicit("p", 64, 64)],
            &[about],
            Tokenizer::O200kBase,
            &options(MissRate::Fit),
        )
        .unwrap()
    };
    // By hand, at $0.27 input, $0.135 read, $0.40 output per Mtok: 900 x 0.27 + 50 x 0.40 =
    // 263 µ$ and 300 x 0.27 + 800 x 0.135 + 60 x 0.40 = 213 µ$ off-peak; twice that at peak.
    for (window, factor) in [
        ("00:16-00:17", 2.0),
        ("00:17-01:00", 1.0),
        ("00:00-00:16", 1.0),
    ] {
        let priced: Vec<f64> = bill(window, "1970-01-01").runs[0]
            .calls
            .iter()
            .map(|c| c.priced_bill)
            .collect();
        assert!(
            (priced[0] - 263e-6 * factor).abs() < 1e-12,
            "{window}: {priced:?}"
        );
        assert!(
            (priced[1] - 213e-6 * factor).abs() < 1e-12,
            "{window}: {priced:?}"
        );
    }
    // The caching rule is the one in force on the run's day.
    let now = bill("00:16-00:17", "1970-01-01");
    assert_eq!(now.profiles[0].0.caching, Caching::PrefixUnits);
    let before = bill("00:16-00:17", "1970-01-02");
    assert_eq!(
        before.profiles[0].0.name,
        "p@model=m-1@rule=before-1970-01-02"
    );
    assert_eq!(before.profiles[0].0.caching, Caching::Implicit);
    // Each request sends the whole previous one and its response: both rules read it.
    for bill in [now, before] {
        assert!(bill.runs[0].calls[1].simulated_read > 0);
        assert_eq!(bill.runs[0].calls[0].simulated_read, 0);
    }
}

#[test]
fn calls_counted_where_the_run_was_measured_are_those_the_comparison_counts() {
    let explicit = Pricing {
        caching: Caching::Explicit,
        ..implicit("blocks", 64, 64)
    };
    let profiles = [implicit("p", 64, 64), explicit];
    let infos = [
        info("p", "router", 0.4, false),
        info("blocks", "elsewhere", 0.4, false),
    ];
    let usage = [
        (900, 0, 10, None),
        (400, 640, 10, None),
        (500, 960, 12, None),
    ];
    let recordings = || {
        [
            run("a", "router", &usage),
            run("b", "elsewhere", &usage),
            run("c", "router", &usage[..2]),
        ]
    };
    let read = |to_bill: Vec<ToBill>, profiles: &[Pricing]| {
        let bill = Bill::read(
            to_bill.into_iter().map(Ok),
            profiles,
            &infos,
            Tokenizer::O200kBase,
            &options(MissRate::Fit),
        )
        .unwrap();
        format!("{:?} {:?}", bill.runs, bill.profiles)
    };
    let alone = read(recordings().map(ToBill::from).into(), &profiles);
    // Counted on a counter that knows the runs' texts already, as a run's measure leaves it.
    let mut counter = Counter::new(Tokenizer::O200kBase);
    let counted = |counter: &mut Counter, pricing: &[Pricing], bytes: u64| -> Vec<ToBill> {
        recordings()
            .into_iter()
            .map(|recording| {
                counter.next_run();
                let counted = Counted::of(&recording, pricing, &infos, bytes, counter);
                ToBill { recording, counted }
            })
            .collect()
    };
    let warm = counted(&mut counter, &profiles, 1 << 20);
    assert!(warm.iter().all(|r| r.counted.is_some()));
    assert_eq!(read(warm, &profiles), alone);
    // Counted under another caching than the comparison's profile, or past their bound (none
    // kept): the comparison counts them itself.
    let other = [implicit("p", 64, 64), implicit("blocks", 64, 64)];
    assert_eq!(
        read(counted(&mut counter, &other, 1 << 20), &profiles),
        alone
    );
    let bounded = counted(&mut counter, &profiles, 0);
    assert!(bounded.iter().all(|r| r.counted.is_none()));
    assert_eq!(read(bounded, &profiles), alone);
}
