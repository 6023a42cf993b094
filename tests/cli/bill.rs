//! `ptc bill`: the cost simulation set beside what the provider billed, on real runs imported
//! with their requests and usage; the bill read back exactly, the simulation's reads checked
//! against the billed ones, and what cannot be compared refused with a reason.

use std::path::PathBuf;

use serde_json::Value as Json;

use crate::support::{repo, Scratch};

fn fixture(path: &str) -> String {
    repo()
        .join("tests/fixtures/realruns")
        .join(path)
        .display()
        .to_string()
}

/// The fixtures' real runs imported into `scratch`: two of ptc_runner's Kernel agent (served
/// by OpenRouter) and one of mini-swe-agent (served by DeepSeek).
fn imported(scratch: &Scratch) -> Vec<PathBuf> {
    [
        (
            "ptc_runner-kernel/checkout-5xx-9.inspection.jsonl",
            "k9.json",
        ),
        (
            "ptc_runner-kernel/fast-checkout-5xx-10.inspection.jsonl",
            "fast.json",
        ),
        (
            "mini-swe-agent/deepseek_reasoner_dev_pvlib__pvlib-python-1707.traj.json",
            "swe.json",
        ),
    ]
    .iter()
    .map(|(from, to)| {
        let out = scratch.path().join(to);
        scratch
            .ptc(["import", &fixture(from), "-o", &out.display().to_string()])
            .ok();
        out
    })
    .collect()
}

fn bill(scratch: &Scratch, runs: &[PathBuf], extra: &[&str]) -> Json {
    let mut args: Vec<String> = vec!["bill".into(), "--format".into(), "json".into()];
    args.extend(runs.iter().map(|p| p.display().to_string()));
    args.extend(extra.iter().map(|s| s.to_string()));
    scratch.ptc(&args).json()
}

#[test]
fn the_bill_is_read_back_exactly_and_each_run_priced_by_its_provider() {
    let scratch = Scratch::new();
    let runs = imported(&scratch);
    let bill = bill(&scratch, &runs, &[]);
    // Each run is listed by the name its import gave it: the log's.
    let by_name = |file: &str| -> &Json {
        let text = std::fs::read_to_string(scratch.path().join(file)).unwrap();
        let recording: Json = serde_json::from_str(&text).unwrap();
        let name = recording["name"].as_str().unwrap().to_owned();
        bill["runs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["recording"] == name.as_str())
            .unwrap()
    };
    // Every billed call is compared, with the tokens and cost its recording holds.
    for (name, profile) in [
        ("k9.json", "openrouter-deepseek"),
        ("fast.json", "openrouter-deepseek"),
        // A run of 2025: DeepSeek's rule before its prefix units, the profile's own.
        ("swe.json", "deepseek"),
    ] {
        let run = by_name(name);
        assert_eq!(run["profile"], profile, "{name}");
        let recording: Json =
            serde_json::from_str(&std::fs::read_to_string(scratch.path().join(name)).unwrap())
                .unwrap();
        let turns = recording["turns"].as_array().unwrap();
        let calls = run["per_call"].as_array().unwrap();
        assert_eq!(calls.len(), turns.len(), "{name}");
        for (call, turn) in calls.iter().zip(turns) {
            let usage = &turn["usage"];
            let field = |f: &str| usage[f].as_u64().unwrap_or(0);
            assert_eq!(
                call["billed_prompt_tokens"].as_u64().unwrap(),
                field("input")
                    + field("cache_read")
                    + field("cache_write_5m")
                    + field("cache_write_1h"),
                "{name}"
            );
            assert_eq!(call["billed_read"], usage["cache_read"], "{name}");
            assert_eq!(call["billed_usd"], usage["cost_usd"], "{name}");
        }
    }
    // The Kernel runs state what OpenRouter billed; mini-swe-agent's log states no billed cost,
    // so its bill is its billed tokens priced by the profile.
    assert_eq!(by_name("k9.json")["billed_usd_stated"], true);
    assert_eq!(by_name("swe.json")["billed_usd_stated"], false);
    // The one call of the fast run read what another run had written: the best case of a cache
    // of its own reads nothing, and the run is not one that read nothing.
    let fast = by_name("fast.json");
    assert_eq!(fast["any_read"], true);
    assert_eq!(fast["per_call"][0]["simulated_read"], 0);
    assert!(fast["per_call"][0]["billed_read"].as_u64().unwrap() > 0);
}

#[test]
fn the_simulated_reads_come_close_to_the_billed_ones() {
    // Not a fit: the rule is the provider's, the requests are as sent. Most calls that read are
    // read within 128 tokens; the others read an older prefix than the best case (the
    // provider's cache is best effort), which is why a miss rate exists.
    let scratch = Scratch::new();
    let runs = imported(&scratch);
    let bill = bill(&scratch, &runs, &[]);
    for run in bill["runs"].as_array().unwrap() {
        let calls = run["per_call"].as_array().unwrap();
        let reads: Vec<&Json> = calls
            .iter()
            .filter(|c| c["billed_read"].as_u64().unwrap() > 0)
            .collect();
        let close = reads
            .iter()
            .filter(|c| c["read_within_tolerance"] == true)
            .count();
        for call in calls {
            let (billed, simulated) = (
                call["billed_read"].as_u64().unwrap(),
                call["simulated_read"].as_u64().unwrap(),
            );
            assert_eq!(
                call["read_within_tolerance"],
                billed.abs_diff(simulated) <= 128
            );
            // Reads come in the provider's 64-token units.
            assert_eq!(simulated % 64, 0, "{call}");
            assert!(simulated <= call["billed_prompt_tokens"].as_u64().unwrap());
        }
        if reads.len() > 2 {
            assert!(
                close * 10 >= reads.len() * 7,
                "{}: {close} of {}",
                run["recording"],
                reads.len()
            );
        }
    }
    // The totals hold together: the runs that read and those that did not make every run.
    let totals = &bill["totals"];
    let sum = |k: &str| {
        totals["runs_with_a_read"][k].as_u64().unwrap()
            + totals["runs_without_a_read"][k].as_u64().unwrap()
    };
    for key in [
        "runs",
        "calls",
        "billed_read",
        "simulated_read",
        "billed_prompt_tokens",
    ] {
        assert_eq!(
            sum(key),
            totals["every_run"][key].as_u64().unwrap(),
            "{key}"
        );
    }
}

#[test]
fn a_given_miss_rate_prices_the_calls_the_best_case_has_reading() {
    let scratch = Scratch::new();
    let runs = imported(&scratch);
    let none = bill(&scratch, &runs, &["--miss-rate", "0"]);
    let all = bill(&scratch, &runs, &["--miss-rate", "1"]);
    let every = |b: &Json, k: &str| b["totals"]["every_run"][k].as_f64().unwrap();
    assert_eq!(
        every(&none, "with_misses_usd"),
        every(&none, "best_case_usd")
    );
    // Every read missed: each call pays what it would without the cache.
    let miss: f64 = all["runs"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["per_call"].as_array().unwrap())
        .map(|c| c["miss_usd"].as_f64().unwrap())
        .sum();
    assert!((every(&all, "with_misses_usd") - miss).abs() < 1e-6);
    assert!(every(&all, "with_misses_usd") > every(&all, "best_case_usd"));
    assert_eq!(all["profiles"][0]["miss_rate"]["fitted"], false);
}

#[test]
fn the_table_says_what_is_modelled_and_sets_apart_runs_that_read_nothing() {
    let scratch = Scratch::new();
    let runs = imported(&scratch);
    let mut args = vec!["bill".to_owned()];
    args.extend(runs.iter().map(|p| p.display().to_string()));
    let table = scratch.ptc(&args).ok();
    for expected in [
        "Simulated against the bill: 3 run(s)",
        "openrouter-deepseek: implicit caching from 64 tokens in steps of 64",
        "miss rate",
        "runs with a cache read (3)",
        "every run (3)",
        "Modelled, not measured",
        "ptc counted",
    ] {
        assert!(table.contains(expected), "{expected}:\n{table}");
    }
}

#[test]
fn what_cannot_be_compared_is_refused_with_a_reason() {
    let scratch = Scratch::new();
    // Generated runs have no bill.
    let example = repo().join("examples/recordings/tool-actions.json");
    let err = scratch
        .ptc(["bill", &example.display().to_string()])
        .bad_input();
    assert!(
        err.contains("no recording holds both the requests"),
        "{err}"
    );
    let runs = imported(&scratch);
    let k9 = runs[0].display().to_string();
    let err = scratch.ptc(["bill", &k9, "--pricing", "nope"]).bad_input();
    assert!(err.contains("unknown pricing profile `nope`"), "{err}");
    let err = scratch
        .ptc(["bill", &k9, "--miss-rate", "1.5"])
        .run_failed();
    assert!(
        err.contains("neither `fit` nor a number from 0 to 1"),
        "{err}"
    );
    // A provider no profile names: the fix is in the message.
    let text = std::fs::read_to_string(&runs[0])
        .unwrap()
        .replace("\"openrouter\"", "\"acme\"");
    let acme = scratch.write("acme.json", text);
    let err = scratch
        .ptc(["bill", &acme.display().to_string()])
        .bad_input();
    assert!(
        err.contains("`acme`") && err.contains("--pricing") && err.contains("acme.json"),
        "{err}"
    );
    // Forced, it is priced.
    scratch
        .ptc([
            "bill",
            &acme.display().to_string(),
            "--pricing",
            "openrouter-deepseek",
        ])
        .ok();
}

#[test]
fn ab_without_a_corpus_shows_the_bundled_real_runs_against_what_was_sent_and_their_bill() {
    let scratch = crate::support::all_strategies();
    let table = scratch
        .ptc(["ab", "--wide", "--explain", "--no-timing"])
        .ok();
    let (generated, real) = table
        .split_once("Real runs (bundled in examples/realruns")
        .unwrap_or_else(|| panic!("no real runs section:\n{table}"));
    assert!(generated.contains("baseline full-history"), "{generated}");
    assert!(
        real.contains("4 recording(s)") && real.contains("baseline as-sent"),
        "{real}"
    );
    // The Kernel runs were imported with --replay: every strategy is judged on each run.
    assert!(!real.contains("of 4 recordings ("), "{real}");
    assert!(
        real.contains(
            "(the literals the next actions cite: cited by 35 of 45 actions, in 4 of 4 runs)"
        ),
        "{real}"
    );
    // Real runs are priced as billed, each by its own profile, with a verdict per profile.
    assert!(
        real.contains("cost: as-billed pricing, baseline as-sent"),
        "{real}"
    );
    assert!(
        real.contains("(runs: openrouter-deepseek 3, deepseek 1)"),
        "{real}"
    );
    for verdict in [
        "\n  deepseek: per-turn-summary, 0.53x as-sent (47% less), on the 1 run billed under it (priced run by run), ",
        "\n  openrouter-deepseek: delta-log, 0.74x as-sent (26% less), on the 3 runs billed under it (priced run by run), ",
        "\n  as-billed: delta-log, 0.71x as-sent (29% less), ",
    ] {
        assert!(real.contains(verdict), "{verdict}\n{real}");
    }
    assert!(
        real.contains("Simulated against the bill: 4 run(s)"),
        "{real}"
    );
    // The generated runs are judged as before.
    assert!(
        !generated.contains("not judged") && !generated.contains("judged on some"),
        "{generated}"
    );
    // The formats for programs hold the corpus asked for only.
    let json = scratch
        .ptc([
            "ab",
            "--wide",
            "--explain",
            "--no-timing",
            "--format",
            "json",
        ])
        .json();
    assert_eq!(json["baseline"], "full-history");
    assert!(!json.to_string().contains("examples/realruns"));
}

#[test]
fn a_strategy_is_judged_only_where_its_data_was_recorded() {
    // The same real run, with and without what full-history renders from.
    let scratch = Scratch::with_plugins(&["ptc-strategy-full-history"]);
    let runs = imported(&scratch);
    let k9 = runs[0].display().to_string();
    let args = |path: &str| -> Vec<String> {
        [
            "ab",
            path,
            "--no-timing",
            "--format",
            "json",
            "--strategies",
            "as-sent,full-history",
            "--set",
            "ab.baseline=\"as-sent\"",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    };
    let lacking = scratch.ptc(args(&k9)).json();
    let full = |json: &Json| -> Json {
        json["strategies"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["label"] == "full-history")
            .unwrap()["not_judged"]
            .clone()
    };
    let why = full(&lacking);
    assert!(
        why.as_str().unwrap().contains("1 of 1 recording(s) lack"),
        "{why}"
    );
    // Say the log recorded everything (the run and each turn): full-history is judged again.
    let mut recording: Json =
        serde_json::from_str(&std::fs::read_to_string(&runs[0]).unwrap()).unwrap();
    recording.as_object_mut().unwrap().remove("lacks");
    for turn in recording["turns"].as_array_mut().unwrap() {
        let turn = turn.as_object_mut().unwrap();
        turn.remove("lacks");
        turn.remove("partial_result");
    }
    let whole = scratch.write("whole.json", recording.to_string());
    let judged = scratch.ptc(args(&whole.display().to_string())).json();
    assert_eq!(full(&judged), Json::Null);
}

/// A stretch of calls that read nothing inside a run that reads elsewhere (a router sending
/// them to an upstream that does not cache) is reported apart, as runs that read nothing are,
/// and not counted as misses; two calls in a row that read nothing are chance misses still.
#[test]
fn stretches_that_read_nothing_inside_a_reading_run_are_set_apart() {
    let scratch = Scratch::new();
    let runs = imported(&scratch);
    let kernel = &runs[0];
    let before = bill(&scratch, std::slice::from_ref(kernel), &[]);
    // The bill of turns 2 to 5 read nothing: their reads become uncached input.
    let mut recording: Json =
        serde_json::from_str(&std::fs::read_to_string(kernel).unwrap()).unwrap();
    let routed = |recording: &mut Json, turns: std::ops::RangeInclusive<usize>| {
        for turn in recording["turns"].as_array_mut().unwrap() {
            if turns.contains(&(turn["number"].as_u64().unwrap() as usize)) {
                let usage = &mut turn["usage"];
                let read = usage["cache_read"].as_u64().unwrap();
                usage["input"] = Json::from(usage["input"].as_u64().unwrap() + read);
                usage["cache_read"] = Json::from(0);
                usage.as_object_mut().unwrap().remove("cost_usd");
            }
        }
    };
    routed(&mut recording, 2..=5);
    let file = scratch.write("routed.json", recording.to_string());
    let after = bill(&scratch, std::slice::from_ref(&file), &[]);
    let run = &after["runs"][0];
    assert_eq!(
        run["stretches_apart"],
        serde_json::json!([{"first_turn": 2, "last_turn": 5, "calls": 4}])
    );
    let apart: Vec<u64> = run["per_call"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["apart"] == true)
        .map(|c| c["turn"].as_u64().unwrap())
        .collect();
    assert_eq!(apart, [2, 3, 4, 5]);
    assert_eq!(after["totals"]["stretches_apart"]["calls"], 4);
    // Not misses: the fit counts the other calls only, as it did the run's before.
    let fit = |bill: &Json| bill["profiles"][0]["miss_rate"]["missed"].clone();
    assert_eq!(fit(&after), fit(&before));
    // The table lists the stretch under its run.
    let table = scratch.ptc(["bill", &file.display().to_string()]).ok();
    assert!(
        table.contains("  turns 2-5 apart") && table.contains("stretches apart, in 1 run(s)"),
        "{table}"
    );
    // Two calls in a row: chance misses, in the rate.
    let mut recording: Json =
        serde_json::from_str(&std::fs::read_to_string(kernel).unwrap()).unwrap();
    routed(&mut recording, 4..=5);
    let file = scratch.write("two.json", recording.to_string());
    let two = bill(&scratch, std::slice::from_ref(&file), &[]);
    assert_eq!(two["runs"][0]["stretches_apart"], serde_json::json!([]));
    assert_eq!(
        two["profiles"][0]["miss_rate"]["missed"].as_u64().unwrap(),
        fit(&before).as_u64().unwrap() + 2
    );
}
