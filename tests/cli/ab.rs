//! `ptc ab`, `ptc diff` and the token-threshold trigger.

use serde_json::Value as Json;

use crate::support::{all_strategies, bundled, example, repo, Scratch, STRATEGIES, TURN_COUNT};

/// A row of a table without its mark.
fn unmarked(line: &str) -> &str {
    line.trim_start_matches(['B', '*', ' '])
}

fn ab_json(scratch: &Scratch, args: &[&str]) -> Json {
    let mut all = vec!["ab", "--format", "json", "--no-timing"];
    all.extend_from_slice(args);
    scratch.ptc(all).json()
}

#[test]
fn without_arguments_every_strategy_runs_on_the_bundled_examples() {
    let table = all_strategies().ptc(["ab", "--wide", "--explain"]).ok();
    let lines: Vec<&str> = table.lines().collect();
    let (recordings, prompts) = bundled();
    let intro = format!(
        "{recordings} recording(s), {prompts} prompt(s) through {} strategies; tokens: o200k_base on Anthropic's content blocks; cost: anthropic pricing, baseline full-history",
        STRATEGIES.len()
    );
    assert_eq!(lines[0], intro, "{table}");
    assert!(lines[2].trim_start().starts_with("--"), "{table}");
    assert!(lines[2].contains(" retained "), "{table}");
    assert!(lines[3].starts_with("   strategy "), "{table}");
    assert!(
        lines[4].starts_with("B  full-history "),
        "the baseline comes first, marked: {table}"
    );
    for (name, _) in STRATEGIES.iter() {
        assert!(
            lines.iter().any(|l| unmarked(l).starts_with(name)),
            "{name} missing: {table}"
        );
    }
}

#[test]
fn without_a_strategy_plugin_ab_says_so_and_measures_the_baseline() {
    // A real run is compared with the requests its agent sent, a baseline no plugin makes.
    let log = repo().join("examples/realruns/mini-swe-agent-pvlib-1707.json");
    let bare = Scratch::with_plugins(&[]);
    let run = bare.ptc(["ab".as_ref(), log.as_os_str(), "--no-timing".as_ref()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("through 1 strateg"), "{}", run.stdout);
    assert!(
        run.stderr
            .contains("warning: no strategy plugin was found (`ptc plugins list` shows where ptc looks): only the baseline, as-sent, is measured"),
        "{}",
        run.stderr
    );
    let with = Scratch::new().ptc(["ab".as_ref(), log.as_os_str(), "--no-timing".as_ref()]);
    assert_eq!(with.code, 0, "{}", with.stderr);
    assert!(
        !with.stderr.contains("no strategy plugin"),
        "{}",
        with.stderr
    );
}

#[test]
fn figures_are_consistent() {
    let json = ab_json(all_strategies(), &[]);
    let strategies = json["strategies"].as_array().unwrap();
    let base = &strategies[0];
    assert_eq!(base["label"], "full-history");
    for profile in ["anthropic", "openai", "gemini", "none"] {
        assert_eq!(base["cost_vs_baseline"][profile], 1.0);
    }
    let runs = json["runs"].as_array().unwrap();
    assert_eq!(runs.len(), bundled().0 * strategies.len());
    for run in runs {
        let mut previous: Option<&Json> = None;
        for p in run["prompts"].as_array().unwrap() {
            // The tokens of the primary profile, anthropic: its content blocks.
            let tokens = p["tokens"].as_u64().unwrap();
            assert!(tokens > 0);
            // No caching: every token at $3 per million, counted in OpenAI's chat format as
            // every implicit profile counts it (the same count for each), which adds 3 tokens
            // a message and 3 a request to the blocks' text.
            let none = &p["cost"]["none"];
            let chat = none["plain"].as_u64().unwrap();
            assert_eq!(
                (none["read"].as_u64(), none["written"].as_u64()),
                (Some(0), Some(0))
            );
            let cost = none["cost"].as_f64().unwrap();
            assert!((cost - chat as f64 * 3e-6).abs() < 1e-12, "{p}");
            for implicit in ["openai", "gemini"] {
                let c = &p["cost"][implicit];
                let sum: u64 = ["read", "written", "plain"]
                    .iter()
                    .map(|k| c[k].as_u64().unwrap())
                    .sum();
                assert_eq!(sum, chat, "{implicit}: {p}");
            }
            assert!(chat >= tokens + 3 + 3, "{p}");
            // Anthropic: every token is read, written or plain; below 1,024 tokens nothing
            // is cached.
            let anthropic = &p["cost"]["anthropic"];
            let count = |key: &str| anthropic[key].as_u64().unwrap();
            assert_eq!(
                count("read") + count("written") + count("plain"),
                tokens,
                "{p}"
            );
            if tokens < 1024 {
                assert_eq!((count("read"), count("written")), (0, 0), "{p}");
            }
            // full-history is append-only: each prompt shares all of the previous one (in
            // Anthropic's count, which has no reply header), and reads what the previous one
            // cached (its breakpoint is on the last message).
            if run["strategy"] == "full-history" {
                if let Some(prev) = previous {
                    assert_eq!(
                        p["shared"].as_u64().unwrap(),
                        prev["tokens"].as_u64().unwrap(),
                        "{p}"
                    );
                    let before = &prev["cost"]["anthropic"];
                    let cached =
                        before["read"].as_u64().unwrap() + before["written"].as_u64().unwrap();
                    assert_eq!(count("read"), cached, "{p}");
                }
            }
            previous = Some(p);
        }
    }
}

#[test]
fn output_is_identical_whatever_the_thread_count() {
    let run = |threads: &str| {
        let output = crate::support::ptc_command(all_strategies().path())
            .args(["ab", "--format", "csv", "--no-timing"])
            .env("RAYON_NUM_THREADS", threads)
            .output()
            .unwrap();
        assert!(output.status.success());
        output.stdout
    };
    let one = run("1");
    assert_eq!(one, run("2"));
    assert_eq!(one, run("4"));
    let text = String::from_utf8(one).unwrap();
    assert!(
        text.starts_with(
            "recording,strategy,turns,tokens,shared,read_anthropic,written_anthropic,plain_anthropic,cost_anthropic,"
        ),
        "{text}"
    );
    assert_eq!(text.lines().count(), 1 + bundled().1 * STRATEGIES.len());
}

#[test]
fn variants_compare_settings_of_one_strategy() {
    let json = ab_json(
        all_strategies(),
        &[
            "--strategies",
            "single-user-coalesced,single-user-coalesced@println_limit=1@tool_call_limit=1",
        ],
    );
    let labels: Vec<&str> = json["strategies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["label"].as_str().unwrap())
        .collect();
    assert_eq!(
        labels,
        [
            "full-history",
            "single-user-coalesced",
            "single-user-coalesced@println_limit=1@tool_call_limit=1"
        ]
    );
    let tokens = |i: usize| json["strategies"][i]["tokens"].as_u64().unwrap();
    assert!(tokens(2) < tokens(1), "tighter limits send fewer tokens");
}

#[test]
fn the_token_threshold_sends_the_full_history_until_it_is_exceeded() {
    let scratch = all_strategies();
    let path = example("tool-actions.json");
    let full = scratch.render_json(&path, 2, &["--strategy", "full-history"]);
    let suc = scratch.render_json(&path, 2, &[]);
    let high = scratch.render_json(&path, 2, &["--set", "compress_above_tokens=1000000"]);
    assert_eq!(high["messages"], full["messages"]);
    assert_eq!(high["strategy"], "full-history");
    let low = scratch.render_json(&path, 2, &["--set", "compress_above_tokens=1"]);
    assert_eq!(low["messages"], suc["messages"]);
    assert_eq!(low["strategy"], "single-user-coalesced");

    let json = ab_json(scratch, &["--strategies", "single-user-coalesced@compress_above_tokens=1000000,single-user-coalesced@compress_above_tokens=1"]);
    let s = json["strategies"].as_array().unwrap();
    assert_eq!(
        s[1]["tokens"], s[0]["tokens"],
        "a threshold above every prompt is the full history"
    );
    let plain = ab_json(scratch, &["--strategies", "single-user-coalesced"]);
    assert_eq!(
        s[2]["tokens"], plain["strategies"][1]["tokens"],
        "a threshold of 1 is the strategy"
    );
}

#[test]
fn a_failing_strategy_is_reported_and_the_others_complete() {
    let scratch = Scratch::with_plugins(&["ptc-strategy-full-history", TURN_COUNT]);
    let run = scratch.ptc([
        "ab",
        "--wide",
        "--explain",
        "--strategies",
        "turn-count@fail_after=0",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("warning: strategy turn-count@fail_after=0 failed on"),
        "{}",
        run.stderr
    );
    assert!(
        run.stdout.contains("turn-count@fail_after=0 (failed on"),
        "{}",
        run.stdout
    );
    let prompts = format!(" {} ", bundled().1);
    assert!(
        run.stdout
            .lines()
            .any(|l| unmarked(l).starts_with("full-history ") && l.contains(&prompts)),
        "{}",
        run.stdout
    );
}

#[test]
fn the_html_report_draws_nothing_for_a_strategy_that_rendered_nothing() {
    let scratch = Scratch::with_plugins(&["ptc-strategy-full-history", TURN_COUNT]);
    let out = scratch.path().join("failed.html");
    let run = scratch.ptc([
        "ab",
        "--strategies",
        "full-history,turn-count@template=nope",
        "--report",
        out.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let html = std::fs::read_to_string(&out).unwrap();
    assert!(
        html.contains("turn-count@template=nope (rendered nothing)"),
        "the legend says so"
    );
    // Lines (two charts) and retention bars are drawn for full-history only.
    let failed = "<title>turn-count@template=nope";
    assert_eq!(html.matches(failed).count(), 0, "no line");
    assert_eq!(html.matches("<polyline").count(), 2);
    assert!(html.contains("<title>full-history"));
    let (recordings, _) = bundled();
    let row = format!(
        r#"turn-count@template=nope (failed on {recordings})</span><span class="bar-none">n/a: rendered nothing</span>"#
    );
    assert_eq!(
        html.matches(&row).count(),
        5,
        "one row per category with something to measure (evidence has not), no bar"
    );
    assert_eq!(html.matches(r#"class="bar-fill""#).count(), 5);
    // The reason, as the table gives it.
    assert!(
        html.contains(&format!(
            "<li>turn-count@template=nope failed on {recordings} recording(s); first: "
        )),
        "{html}"
    );
}

#[test]
fn the_html_report_is_self_contained() {
    let scratch = all_strategies();
    let out = scratch.path().join("report.html");
    scratch.ptc(["ab", "--report", out.to_str().unwrap()]).ok();
    let html = std::fs::read_to_string(&out).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(
        html.contains(r#"<meta name="viewport" content="width=device-width, initial-scale=1">"#)
    );
    assert_eq!(html.matches("<svg").count(), 2, "tokens, cumulative cost");
    assert_eq!(
        html.matches(r#"<div class="category">"#).count(),
        5,
        "retention bars: one group per category with something to measure (evidence has not)"
    );
    for (name, _) in STRATEGIES.iter() {
        assert!(
            html.contains(&format!("<title>{name}")),
            "{name} has a series"
        );
    }
    assert!(
        !html.contains("src=") && !html.contains("href=") && !html.contains("http"),
        "no network"
    );
    // One script of data and one of code, both inline; the data is the prompts, the second
    // strategy shown the verdict's.
    assert_eq!(html.matches("<script").count(), 2);
    let data = html
        .split(r#"<script type="application/json" id="prompt-data">"#)
        .nth(1)
        .and_then(|rest| rest.split("</script>").next())
        .unwrap();
    let data: Json = serde_json::from_str(data).unwrap();
    assert_eq!(data["recordings"].as_array().unwrap().len(), bundled().0);
    assert_eq!(data["left_out"], 0);
    let labels = data["strategies"].as_array().unwrap();
    assert_eq!(
        labels[data["pair"][0].as_u64().unwrap() as usize],
        "full-history"
    );
    assert_eq!(
        labels[data["pair"][1].as_u64().unwrap() as usize],
        "delta-log"
    );
    let recording = &data["recordings"][0];
    let lines = recording["lines"].as_array().unwrap();
    let first = &recording["prompts"][0][0];
    let text: Vec<&str> = first
        .as_array()
        .unwrap()
        .iter()
        .map(|n| lines[n.as_u64().unwrap() as usize].as_str().unwrap())
        .collect();
    assert_eq!(text[0], "=== system ===");
    assert!(text.contains(&"=== user ==="), "{text:?}");
    // Each line is held once per recording.
    let mut distinct = lines.clone();
    distinct.sort_by_key(|l| l.to_string());
    distinct.dedup();
    assert_eq!(distinct.len(), lines.len());
}

/// The same run writes the same page, byte for byte, with --no-timing.
#[test]
fn the_html_report_is_reproducible() {
    let scratch = all_strategies();
    let page = |name: &str| {
        let out = scratch.path().join(name);
        scratch
            .ptc(["ab", "--no-timing", "--report", out.to_str().unwrap()])
            .ok();
        std::fs::read(&out).unwrap()
    };
    let first = page("first.html");
    assert!(first.len() > 100_000, "the prompts are in it");
    assert!(
        first == page("second.html"),
        "two runs, two different pages"
    );
}

#[test]
fn the_html_report_page_is_a_template_that_can_be_replaced() {
    let scratch = Scratch::with_plugins(&["ptc-strategy-full-history", TURN_COUNT]);
    scratch.write(
        "templates/report.html.tera",
        "<h1>{{ baseline }}</h1>{% for s in strategies %}[{{ s.label }}]{% endfor %}\n{{ retention_chart }}\n",
    );
    let out = scratch.path().join("mine.html");
    scratch
        .ptc([
            "ab",
            "--strategies",
            "full-history,turn-count",
            "--report",
            out.to_str().unwrap(),
        ])
        .ok();
    let html = std::fs::read_to_string(&out).unwrap();
    assert!(
        html.starts_with(
            "<h1>full-history</h1>[full-history][turn-count]\n<figure class=\"retention\">"
        ),
        "{html}"
    );
    assert!(
        html.ends_with("nothing to measure on these recordings: evidence (fewer than 5 in the history).</p></figure>\n"),
        "{html}"
    );
}

#[test]
fn bad_arguments_are_errors() {
    let scratch = all_strategies();
    let err = scratch.ptc(["ab", "--strategies", "nope"]).bad_input();
    assert!(err.contains("unknown strategy `nope`"), "{err}");
    let err = scratch.ptc(["ab", "--pricing", "cheap"]).bad_input();
    assert!(
        err.contains("unknown pricing profile `cheap` (known: anthropic, deepseek, gemini, gemini-explicit, mistral, none, openai, openai-gpt-5-6, openrouter-deepseek, qwen, qwen-explicit, xai)"),
        "{err}"
    );
    let err = scratch.ptc(["ab", "--tokenizer", "gpt2"]).bad_input();
    assert!(err.contains("unknown tokenizer `gpt2`"), "{err}");
    let err = scratch
        .ptc(["ab", "--strategies", "single-user-coalesced@window"])
        .bad_input();
    assert!(
        err.contains("bad strategy variant `single-user-coalesced@window`"),
        "{err}"
    );
    let err = scratch
        .ptc(["ab", "--strategies", "single-user-coalesced@windw=2"])
        .bad_input();
    assert!(
        err.contains("unknown option `windw` in `single-user-coalesced@windw=2`"),
        "{err}"
    );
}

/// A value the strategy refuses for one of its options (a count below zero) is one error, exit
/// 2, nothing written, however it was set: not the strategy failing on every recording.
#[test]
fn an_option_value_the_strategy_refuses_is_one_error() {
    let scratch = all_strategies();
    let report = scratch.path().join("report.html");
    for args in [
        vec!["--set", "strategies.single-user-coalesced.println_limit=-5"],
        vec!["--strategies", "single-user-coalesced@println_limit=-5"],
    ] {
        let mut full = vec!["ab", "--report", report.to_str().unwrap()];
        full.extend(&args);
        let run = scratch.ptc(full);
        assert!(!run.stderr.contains("failed on"), "{}", run.stderr);
        let err = run.bad_input();
        assert!(
            err.starts_with("error: strategy `single-user-coalesced` (")
                && err
                    .contains("option `println_limit`: expected a non-negative integer, found -5"),
            "{args:?}: {err}"
        );
        assert!(!report.exists(), "{args:?}");
    }
}

/// A name no loaded plugin provides is a usage error before anything runs, naming what was
/// typed and the closest known name.
#[test]
fn misspelt_names_are_usage_errors_with_a_suggestion() {
    let scratch = all_strategies();
    let err = scratch
        .ptc(["ab", "--strategies", "single-user-coalesed,delta-log"])
        .bad_input();
    assert!(
        err.starts_with(
            "error: unknown strategy `single-user-coalesed`: the loaded strategies are"
        ),
        "{err}"
    );
    assert!(
        err.ends_with("; did you mean `single-user-coalesced`?"),
        "{err}"
    );
    let err = scratch
        .ptc(["ab", "--strategies", "rolling-window@windw=1"])
        .bad_input();
    assert!(
        err.starts_with("error: unknown option `windw` in `rolling-window@windw=1`: strategy `rolling-window` has the options window, "),
        "{err}"
    );
    assert!(err.ends_with("; did you mean `window`?"), "{err}");
    let err = scratch.ptc(["ab", "--pricing", "anthropc"]).bad_input();
    assert_eq!(
        err,
        "error: unknown pricing profile `anthropc` (known: anthropic, deepseek, gemini, gemini-explicit, mistral, none, openai, openai-gpt-5-6, openrouter-deepseek, qwen, qwen-explicit, xai); did you mean `anthropic`?"
    );
    let err = scratch
        .ptc(["ab", "--pricing", "anthropic@cache_tl=1h"])
        .bad_input();
    assert!(err.contains("; did you mean `cache_ttl`?"), "{err}");
    let err = scratch.ptc(["ab", "--tokenizer", "o200k_bse"]).bad_input();
    assert!(
        err.ends_with("(known: o200k_base, cl100k_base); did you mean `o200k_base`?"),
        "{err}"
    );
    let recording = example("failure-recovery.json");
    let recording = recording.to_str().unwrap();
    let err = scratch
        .ptc(["render", recording, "--strategy", "delta-lgo"])
        .bad_input();
    assert!(err.ends_with("; did you mean `delta-log`?"), "{err}");
    let err = scratch
        .ptc(["render", recording, "--set", "println_limt=2"])
        .bad_input();
    assert!(
        err.starts_with("error: unknown key `println_limt` in --set println_limt=2"),
        "{err}"
    );
    assert!(err.ends_with("; did you mean `println_limit`?"), "{err}");
    let err = scratch
        .ptc(["render", recording, "--set", "compresion.println_limit=2"])
        .bad_input();
    assert!(err.ends_with("; did you mean `compression`?"), "{err}");
    // A variant's value is named as it was written, not as a configuration key.
    let err = scratch
        .ptc(["ab", "--strategies", "rolling-window@window=abc"])
        .bad_input();
    assert_eq!(
        err.trim_end(),
        "error: bad value for `window` in `rolling-window@window=abc`: expected an integer \
         (like the default 2), found the string \"abc\""
    );
}

#[test]
fn diff_with_one_strategy_says_it_takes_two() {
    let err = all_strategies()
        .ptc([
            "diff",
            example("failure-recovery.json").to_str().unwrap(),
            "--strategies",
            "delta-log",
        ])
        .bad_input();
    assert_eq!(
        err,
        "error: `ptc diff` compares two strategies, --strategies A,B (e.g. --strategies full-history,delta-log); `delta-log` names only one"
    );
}

#[test]
fn diff_shows_what_two_strategies_send_differently() {
    let text = all_strategies()
        .ptc([
            "diff",
            example("failure-recovery.json").to_str().unwrap(),
            "--turns",
            "2",
            "--strategies",
            "single-user-coalesced,aggressive",
        ])
        .ok();
    assert!(
        text.starts_with("--- single-user-coalesced\n+++ aggressive\n@@ "),
        "{text}"
    );
    assert!(text.lines().any(|l| l == "-;; === tool/ ==="), "{text}");
    assert!(
        text.lines()
            .any(|l| l.starts_with("+;; tool/: fetch-orders(status, month)")),
        "{text}"
    );
    assert!(
        !text.contains('\x1b'),
        "no colour when stdout is not a terminal"
    );
    let same = all_strategies()
        .ptc([
            "diff",
            example("failure-recovery.json").to_str().unwrap(),
            "--strategies",
            "full-history,full-history",
        ])
        .ok();
    assert_eq!(same, "");
}

/// One bad recording among good ones loses none of the work: the others are measured and
/// written, the bad one is named with its place, and the exit code (1) says results are partial.
#[test]
fn a_bad_recording_is_reported_and_the_others_are_measured() {
    let scratch = Scratch::new();
    let good = std::fs::read_to_string(example("tool-actions.json")).unwrap();
    let line: Json = serde_json::from_str(&good).unwrap();
    let jsonl = format!("{line}\n{line}\n{{\"mission\": 5}}\n");
    scratch.write("runs/a.json", &good);
    scratch.write("runs/b.jsonl", jsonl);
    // This scratch has no full-history plugin: the baseline is the strategy compared.
    let args = [
        "ab",
        "runs",
        "--strategies",
        "single-user-coalesced",
        "--set",
        "ab.baseline=single-user-coalesced",
        "--format",
        "json",
        "--no-timing",
    ];
    let run = scratch.ptc(args);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let json: Json = serde_json::from_str(&run.stdout).unwrap();
    let measured: Vec<&str> = json["runs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["strategy"] == "single-user-coalesced")
        .map(|r| r["recording"].as_str().unwrap())
        .collect();
    assert_eq!(
        measured,
        ["runs/a.json", "runs/b.jsonl:1", "runs/b.jsonl:2"],
        "the three good ones"
    );
    assert!(
        run.stderr
            .contains("warning: skipping recording runs/b.jsonl:3: ")
            && run.stderr.contains(
                "error: 1 of 4 recordings could not be read and are left out of the results"
            ),
        "{}",
        run.stderr
    );
    // --strict: today's all-or-nothing, exit 2 and nothing on stdout.
    let mut strict = args.to_vec();
    strict.push("--strict");
    let err = scratch.ptc(strict).bad_input();
    assert!(err.contains("b.jsonl:3"), "{err}");

    // Nothing to read is an error, not a table of zeros.
    scratch.write("empty/notes.txt", "not a recording");
    let err = scratch.ptc(["ab", "empty"]).bad_input();
    assert!(
        err.starts_with("error: no recording in empty (no .json or .jsonl file)"),
        "{err}"
    );
    std::fs::create_dir(scratch.path().join("nothing")).unwrap();
    scratch.ptc(["ab", "nothing"]).bad_input();
    // Only bad recordings: an error too.
    scratch.write("bad/x.json", "{\"mission\": 5}");
    let err = scratch
        .ptc(["ab", "bad", "--set", "ab.baseline=single-user-coalesced"])
        .bad_input();
    assert!(
        err.contains("none of the 1 recording(s) could be read"),
        "{err}"
    );
}

/// With per-turn times, an Anthropic cache entry not used for longer than its TTL is gone; the
/// one-hour TTL keeps it. Without times the requests are taken to follow each other at once.
#[test]
fn recorded_times_expire_cache_entries_past_the_ttl() {
    let mut recording: Json =
        serde_json::from_slice(&std::fs::read(example("data-exploration.json")).unwrap()).unwrap();
    let read = |recording: &Json, pricing: &str| -> u64 {
        let file = all_strategies().write("timed/run.json", recording.to_string());
        let json = ab_json(
            all_strategies(),
            &[
                file.to_str().unwrap(),
                "--strategies",
                "full-history",
                "--pricing",
                pricing,
            ],
        );
        json["strategies"][0]["cache"][pricing]["read"]
            .as_u64()
            .unwrap()
    };
    let untimed = read(&recording, "anthropic");
    assert!(untimed > 0, "full-history reads its earlier prompts");
    let set_times = |recording: &mut Json, gap: f64| {
        for (i, turn) in recording["turns"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .enumerate()
        {
            turn["started_at"] = Json::from(1_700_000_000.0 + gap * i as f64);
        }
    };
    set_times(&mut recording, 60.0);
    assert_eq!(read(&recording, "anthropic"), untimed);
    set_times(&mut recording, 301.0);
    assert_eq!(read(&recording, "anthropic"), 0);
    assert_eq!(read(&recording, "anthropic@cache_ttl=1h"), untimed);
    // Times that go backwards are a rule error, like a skipped turn number.
    recording["turns"][2]["started_at"] = Json::from(1.0);
    let file = all_strategies().write("timed/backwards.json", recording.to_string());
    let run = all_strategies().ptc(["validate", file.to_str().unwrap()]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stdout.contains("turns[2].started_at") || run.stderr.contains("turns[2].started_at"),
        "{}{}",
        run.stdout,
        run.stderr
    );
}

/// Two turns: the first program reads `data/orders`; the second calls `tool/notify` with the
/// memory's `n` and reads `:total`, a key of the data (`:message` is only in its own call).
const USED_NEXT_RUN: &str = r#"{
  "mission": "Count the orders.",
  "max_turns": 3,
  "tools": [{"name": "notify", "signature": "(message :string) -> nil"}],
  "data": {"orders": [{":id": 1, ":total": 5.0}]},
  "turns": [
    {"number": 1, "raw_response": "Counting.", "program": null,
     "success": true, "result": 1, "prints": [], "tool_calls": [], "memory": {"n": 1}},
    {"number": 2, "raw_response": "Done.",
     "program": "(tool/notify {:message (str n)}) ; (tool/other)\n(return (:total (first data/orders)))",
     "success": true, "result": 5.0, "prints": [],
     "tool_calls": [{"name": "notify", "args": {":message": "1"}, "result": null}],
     "memory": {"n": 1}}
  ]
}"#;

/// Before turn 1: nothing (the first turn's program was not logged). Before turn 2:
/// `tool/notify`, `n`, `data/orders` and `:total`, all shown by the coalesced prompt (`n` in
/// its `user/` section), all but `n` by full history (its first response names no `n`).
#[test]
fn used_next_is_in_every_format() {
    let scratch = Scratch::with_plugins(&["ptc-strategy-full-history", crate::support::SUC]);
    scratch.write("runs/used.json", USED_NEXT_RUN);
    let args = |format: &str| {
        vec![
            "ab".to_owned(),
            "runs".to_owned(),
            "--wide".to_owned(),
            "--strategies".to_owned(),
            "single-user-coalesced".to_owned(),
            "--no-timing".to_owned(),
            "--format".to_owned(),
            format.to_owned(),
        ]
    };
    let json = scratch.ptc(args("json")).json();
    let used = |i: usize| json["strategies"][i]["retention"]["used_next"].clone();
    assert_eq!(
        used(0),
        serde_json::json!({"visible": 3, "total": 4, "ratio": 0.75})
    );
    assert_eq!(
        used(1),
        serde_json::json!({"visible": 4, "total": 4, "ratio": 1.0})
    );
    let per_prompt: Vec<&Json> = json["runs"][0]["prompts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| &p["retention"]["used_next"]["total"])
        .collect();
    assert_eq!(per_prompt, [0, 4]);

    let table = scratch.ptc(args("table")).ok();
    let lines: Vec<&str> = table.lines().collect();
    assert!(
        lines[2].ends_with("- retained --------------------"),
        "{table}"
    );
    assert!(
        lines[3].ends_with("error  used next  evidence  render µs"),
        "{table}"
    );
    assert!(lines[4].ends_with("75%       n/a        0.0"), "{table}");
    assert!(lines[5].ends_with("100%       n/a        0.0"), "{table}");
    let markdown = scratch.ptc(args("markdown")).ok();
    assert!(
        markdown
            .contains("| retained error | retained used next | retained evidence | render µs |"),
        "{markdown}"
    );
    assert!(markdown.contains("| 75% | n/a | 0.0 |"), "{markdown}");

    let csv = scratch.ptc(args("csv")).ok();
    let mut rows = csv.lines();
    assert!(
        rows.next()
            .unwrap()
            .ends_with(",error_visible,error_total,used_next_visible,used_next_total,evidence_visible,evidence_total,cited_actions_visible,cited_actions_total,render_us"),
        "{csv}"
    );
    let used: Vec<&str> = rows
        .map(|row| {
            let cells: Vec<&str> = row.split(',').collect();
            cells[cells.len() - 7]
        })
        .collect();
    assert_eq!(used, ["0", "3", "0", "4"], "visible, per prompt: {csv}");

    let out = scratch.path().join("used.html");
    let mut report = args("table");
    report.extend(["--report".to_owned(), out.display().to_string()]);
    scratch.ptc(report).ok();
    let html = std::fs::read_to_string(&out).unwrap();
    assert!(
        html.contains(r#"<div class="category-name">used next</div>"#)
            && (html.contains(r#"<div class="category-name">evidence</div>"#)
                || html.contains("evidence (fewer than 5 in the history).")),
        "a group of bars; evidence drawn, or named when there is nothing to measure"
    );
    assert!(html.contains("<th>used next</th>"), "a column");
}

/// The verdict's row and the baseline's are marked in the table and in markdown; when no
/// strategy meets the requirements, the verdict names the cheapest and what it lacks.
#[test]
fn the_verdict_and_the_baseline_are_marked_and_a_shortfall_is_named() {
    let whole = all_strategies()
        .ptc(["ab", "--wide", "--explain", "--no-timing"])
        .ok();
    // The generated runs' tables; the bundled real runs follow, with their own.
    let table = whole.split("\nReal runs (bundled").next().unwrap();
    let lines: Vec<&str> = table.lines().collect();
    let marked = |mark: &str| -> Vec<&str> {
        // A row's mark is followed by two spaces at least, a legend's by one.
        lines
            .iter()
            .filter(|l| l.starts_with(&format!("{mark}  ")))
            .map(|l| unmarked(l).split(' ').next().unwrap())
            .collect()
    };
    // Both tables: the baseline, and delta-log, the cheapest that keeps every symbol and the
    // latest error; in the second, per provider: under Gemini's minimum of 2,048 tokens, where
    // few of these prompts are cached, per-turn-summary's best case is the cheapest.
    assert_eq!(marked("B"), ["full-history", "full-history"], "{table}");
    assert_eq!(
        marked("*"),
        ["delta-log", "delta-log", "per-turn-summary"],
        "{table}"
    );
    assert!(
        table.contains("\nB the baseline\n* the cheapest that keeps every symbol, the latest error and 90% of the literals the next action cites under anthropic pricing (the verdict below)\n"),
        "{table}"
    );
    // What it keeps, measured, beside it; and which strategies fail which requirement.
    // Anthropic's prompts are counted as its content blocks (no blank line between blocks,
    // no per-message overhead): delta-log $0.3381 against full-history's $0.3757, 0.8999x
    // (0.88x when they were counted in OpenAI's chat format: the overhead and separators
    // weigh more in full history's many messages).
    assert!(
        table.contains(
            "
verdict: per provider, the cheapest strategy that keeps every symbol, the latest error and 90% of the literals the next action cites (--require symbols,error,evidence=90%)
  anthropic: delta-log with breakpoints=strategy, 0.90x full-history (10% less), if each call comes within 5m of the one before (the runs carry no call times), is the cheapest that keeps every symbol, the latest error and 90% of the literals the next action cites; it also shows 99% of tool calls, 98% of printed lines and 88% of the names the next program uses
"
        ),
        "{table}"
    );
    assert!(
        table.contains(
            "\nnot recommended, failing a requirement:\n  aggressive: error 28% (100% required)\n  observation-masking: error 63% (100% required)\n  rolling-window: error 63% (100% required)\n  single-user-coalesced: error 28% (100% required)\n  trim: symbols 92% (100% required); error 96% (100% required)\n"
        ),
        "{table}"
    );
    // The against-the-baseline table marks the column of the placement.
    let delta = lines
        .iter()
        .rev()
        .find(|l| l.starts_with("*  delta-log"))
        .unwrap();
    let cells: Vec<&str> = delta.split_whitespace().collect();
    assert_eq!(&cells[3..5], ["0.90x*", "4.40x"], "{table}");

    let markdown = all_strategies()
        .ptc([
            "ab",
            "--wide",
            "--explain",
            "--no-timing",
            "--format",
            "markdown",
        ])
        .ok();
    assert!(
        markdown.contains("\n| B | full-history | 327 |"),
        "{markdown}"
    );
    assert!(markdown.contains("\n| * | delta-log | 327 |"), "{markdown}");

    // Nothing keeps every latest error: the cheapest is named with what it drops.
    let scratch = all_strategies();
    let table = scratch
        .ptc([
            "ab",
            "--wide",
            "--explain",
            "--no-timing",
            "--strategies",
            "aggressive,single-user-coalesced",
            "--set",
            "ab.baseline=aggressive",
        ])
        .ok();
    assert!(
        table.contains("\n  openai: no strategy keeps every symbol, the latest error and 90% of the literals the next action cites; the cheapest is single-user-coalesced, 0.61x aggressive (39% less), if each call comes within 5m of the one before (the runs carry no call times), and it keeps only 28% of latest errors; it shows every symbol, 96% of tool calls, 98% of printed lines and 88% of the names the next program uses\n"),
        "{table}"
    );
    assert!(table.contains("\n* the cheapest under anthropic pricing, though it does not keep every symbol, the latest error and 90% of the literals the next action cites (the verdict below)\n"), "{table}");
    let json = ab_json(
        scratch,
        &[
            "--strategies",
            "aggressive",
            "--set",
            "ab.baseline=aggressive",
        ],
    );
    assert_eq!(json["verdict"][0]["meets_requirements"], false);
    assert_eq!(json["verdict"][0]["drops"], serde_json::json!(["error"]));
    let error = json["verdict"][0]["retention"]["error"].as_f64().unwrap();
    assert!((error - 0.28).abs() < 0.005, "{error}");
    assert_eq!(
        json["requirements"],
        serde_json::json!([
            {"measure": "symbols", "at_least": 1.0},
            {"measure": "error", "at_least": 1.0},
            {"measure": "evidence", "at_least": 0.9},
        ])
    );
}

/// `--require` (or `[ab] require`) sets what the verdict asks of a strategy: a stricter
/// requirement on the names the next program uses passes delta-log over, and says so.
#[test]
fn with_both_ttls_the_verdict_says_which_is_cheaper_for_the_time_between_calls() {
    // One example run, its calls 10 minutes apart, then 1 minute apart.
    let scratch = Scratch::new();
    let run: Json =
        serde_json::from_str(&std::fs::read_to_string(example("data-exploration.json")).unwrap())
            .unwrap();
    let verdict = |gap: f64| -> String {
        let mut timed = run.clone();
        for (i, turn) in timed["turns"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .enumerate()
        {
            turn["started_at"] = serde_json::json!(1000.0 + gap * i as f64);
        }
        scratch.write("timed.json", timed.to_string());
        let table = all_strategies()
            .ptc([
                "ab",
                "--wide",
                "--explain",
                scratch.path().join("timed.json").to_str().unwrap(),
                "--no-timing",
                "--strategies",
                "full-history,delta-log",
                "--pricing",
                "anthropic@cache_ttl=1h",
            ])
            .ok();
        assert!(
            table.contains("\ntime between calls: modelled on 1 of 1 recording(s)"),
            "{table}"
        );
        table
            .lines()
            .find(|l| l.starts_with("  anthropic: "))
            .unwrap_or_default()
            .to_owned()
    };
    // Past 5 minutes every 5-minute entry is gone: the 1-hour writes pay.
    let slow = verdict(600.0);
    assert!(
        slow.starts_with("  anthropic: delta-log with cache_ttl=1h, "),
        "{slow}"
    );
    // Within them, the cheaper writes.
    let fast = verdict(60.0);
    assert!(
        fast.starts_with("  anthropic: delta-log with breakpoints=strategy, cache_ttl=5m, "),
        "{fast}"
    );
}

#[test]
fn the_summarizers_call_of_compact_is_priced_with_the_prompt_it_builds() {
    let scratch = all_strategies();
    let json = scratch
        .ptc([
            "ab",
            "--no-timing",
            "--format",
            "json",
            "--strategies",
            "compact,compact@trigger_tokens=1000",
            "--set",
            "ab.baseline=\"compact\"",
        ])
        .json();
    // Below its default trigger, compact never compacts these runs: no call.
    let (mut calls, mut prompts, mut reading) = (0, 0, 0);
    for run in json["runs"].as_array().unwrap() {
        for prompt in run["prompts"].as_array().unwrap() {
            let cost = &prompt["cost"]["anthropic"];
            let Some(call) = cost.get("model_calls") else {
                continue;
            };
            assert_eq!(run["strategy"], "compact@trigger_tokens=1000", "{run}");
            calls += 1;
            // The prompt's dollars are its own tokens at Anthropic's prices ($3 input, $0.30
            // read, $3.75 written) and the call's input likewise, with its output at $15.
            let n = |v: &Json| v.as_u64().unwrap() as f64;
            let input = |c: &Json| {
                (n(&c["read"]) * 0.3 + n(&c["written"]) * 3.75 + n(&c["plain"]) * 3.0) / 1e6
            };
            let expected = input(cost) + input(call) + n(&call["output"]) * 15.0 / 1e6;
            let dollars = cost["cost"].as_f64().unwrap();
            assert!((dollars - expected).abs() < 1e-12, "{cost} != {expected}");
            assert!(n(&call["output"]) > 0.0, "{call}");
            // Its request is the conversation so far: past the minimum, it reads what the
            // earlier prompts wrote.
            reading += usize::from(n(&call["read"]) > 0.0);
        }
        prompts += run["prompts"].as_array().unwrap().len();
    }
    assert!(
        calls > 0 && calls < prompts,
        "{calls} calls in {prompts} prompts"
    );
    assert!(
        2 * reading > calls,
        "{reading} of {calls} calls read from the cache"
    );
    // The variant's sums carry them, and its cost is more than its prompts' alone.
    let compacting = &json["strategies"][1];
    assert_eq!(compacting["label"], "compact@trigger_tokens=1000");
    let summed = &compacting["cache"]["anthropic"]["model_calls"];
    assert!(summed["output"].as_u64().unwrap() > 0, "{compacting}");
}

#[test]
fn the_report_says_whether_time_between_calls_was_modelled() {
    let scratch = all_strategies();
    // The generated examples carry no call times: the TTL cannot bite, and the report and the
    // verdict of a profile with a TTL say so; those with no stated lifetime say nothing.
    let table = scratch
        .ptc([
            "ab",
            "--wide",
            "--explain",
            "--no-timing",
            "--strategies",
            "delta-log",
        ])
        .ok();
    assert!(
        table.contains(
            "\ntime between calls: not modelled (no recording carries the time of its calls"
        ),
        "{table}"
    );
    let verdict = |provider: &str| -> String {
        table
            .lines()
            .find(|l| l.starts_with(&format!("  {provider}: ")))
            .unwrap_or_default()
            .to_owned()
    };
    assert!(
        verdict("openai").contains("if each call comes within 5m of the one before"),
        "{table}"
    );
    assert!(!verdict("deepseek").contains("if each call"), "{table}");
    // The imported real runs carry them.
    let real = repo().join("examples/realruns");
    let table = scratch
        .ptc([
            "ab",
            "--wide",
            "--explain",
            real.to_str().unwrap(),
            "--no-timing",
            "--strategies",
            "as-sent,delta-log",
            "--set",
            "ab.baseline=\"as-sent\"",
        ])
        .ok();
    assert!(
        table.contains("\ntime between calls: modelled on 4 of 4 recording(s)"),
        "{table}"
    );
    assert!(!table.contains("the runs carry no call times"), "{table}");
}

#[test]
fn the_ttl_hint_names_a_profile_shown_whose_ttl_a_request_may_lengthen() {
    let scratch = all_strategies();
    let real = repo().join("examples/realruns");
    let run = |pricing: &[&str]| {
        let mut args = vec![
            "ab",
            real.to_str().unwrap(),
            "--no-timing",
            "--strategies",
            "delta-log",
        ];
        args.extend_from_slice(pricing);
        let table = scratch.ptc(args).ok();
        table
            .split_once("\ntime between calls: ")
            .map(|(_, note)| note.split("\n\n").next().unwrap().replace("\n  ", " "))
            .unwrap_or_else(|| panic!("no time note in {table}"))
    };
    // Runs billed by DeepSeek only: DeepSeek states no TTL, so no TTL is suggested.
    let deepseek = run(&[]);
    assert!(
        deepseek.starts_with("modelled on 4 of 4 recording(s)"),
        "{deepseek}"
    );
    assert!(!deepseek.contains("cache_ttl"), "{deepseek}");
    // A profile asked for whose entries last 5 minutes is named with its own key.
    let anthropic = run(&["--pricing", "anthropic@model=claude-haiku-4-5"]);
    assert!(
        anthropic.contains(
            "compare TTLs with `--pricing anthropic@model=claude-haiku-4-5@cache_ttl=1h`"
        ),
        "{anthropic}"
    );
    // A placement priced in hindsight is not one a TTL is tried on.
    let planned = run(&["--pricing", "anthropic@breakpoints=planned"]);
    assert!(planned.starts_with("modelled on 4 of 4"), "{planned}");
    assert!(!planned.contains("planned@cache_ttl"), "{planned}");
}

#[test]
fn require_sets_what_the_verdict_asks_and_names_who_fails_what() {
    let scratch = all_strategies();
    let strict = scratch
        .ptc([
            "ab",
            "--wide",
            "--explain",
            "--no-timing",
            "--strategies",
            "delta-log,per-turn-summary,aggressive",
            "--require",
            "symbols,error,used-next=95%",
        ])
        .ok();
    assert!(
        strict.contains(
            "\nverdict: per provider, the cheapest strategy that keeps every symbol, the latest error and 95% of the names the next program uses (--require symbols,error,used-next=95%)\n  anthropic: full-history with breakpoints=strategy, 1.00x full-history, if each call comes within 5m of the one before (the runs carry no call times), is the cheapest that keeps every symbol, the latest error and 95% of the names the next program uses; it also shows 98% of tool calls, 99% of printed lines and 97% of the names the next program uses\n"
        ),
        "{strict}"
    );
    assert!(
        strict.contains(
            "\nnot recommended, failing a requirement:\n  delta-log: used-next 88% (95% required)\n  aggressive: error 28% (100% required); used-next 29% (95% required)\n"
        ),
        "{strict}"
    );
    // The configuration key, the same requirement; the command line wins over it.
    let set = [
        "--set",
        "ab.require=[\"symbols\", \"error\", \"used-next=95%\"]",
    ];
    let json = ab_json(
        scratch,
        &[
            &["--strategies", "delta-log,per-turn-summary"][..],
            &set[..],
        ]
        .concat(),
    );
    assert_eq!(json["verdict"][0]["strategy"], "full-history");
    assert_eq!(json["verdict"][0]["meets_requirements"], true);
    let delta = &json["strategies"][1];
    assert_eq!(delta["label"], "delta-log");
    assert_eq!(
        delta["unmet_requirements"][0]["measure"], "used_next",
        "{delta}"
    );
    assert_eq!(delta["unmet_requirements"][0]["at_least"], 0.95);
    let json = ab_json(
        scratch,
        &[
            &["--strategies", "delta-log", "--require", "symbols"][..],
            &set[..],
        ]
        .concat(),
    );
    assert_eq!(json["verdict"][0]["strategy"], "delta-log");
    // Nothing required: the cheapest of all.
    let json = ab_json(
        scratch,
        &[
            "--strategies",
            "aggressive,single-user-coalesced",
            "--set",
            "ab.baseline=aggressive",
            "--require",
            "",
        ],
    );
    assert_eq!(json["verdict"][0]["meets_requirements"], true);
    assert_eq!(json["requirements"], serde_json::json!([]));
}

#[test]
fn a_bad_requirement_is_refused_naming_it() {
    let scratch = all_strategies();
    let error = scratch
        .ptc(["ab", "--require", "symbols,used-nxt=95%"])
        .bad_input();
    assert_eq!(
        error,
        "error: --require: bad requirement `used-nxt=95%`: unknown measure `used-nxt` (did you mean `used-next`?); the measures are symbols, calls, prints, error, used-next, evidence"
    );
    for bad in [
        "error=95%%",
        "error=101",
        "error=-5%",
        "used-next=lots",
        "error=",
    ] {
        let error = scratch.ptc(["ab", "--require", bad]).bad_input();
        assert!(
            error.starts_with(&format!("error: --require: bad requirement `{bad}`: `"))
                && error.contains("is not a percentage: write a number from 0 to 100"),
            "{error}"
        );
    }
    let error = scratch
        .ptc(["ab", "--set", "ab.require=[\"calls=half\"]"])
        .bad_input();
    assert!(
        error.starts_with(
            "error: [ab] require: bad requirement `calls=half`: `half` is not a percentage"
        ),
        "{error}"
    );
    // `ptc ab merge` reads them the same way, before it reads any part.
    let error = scratch
        .ptc(["ab", "merge", "nothing.json", "--require", "nope"])
        .bad_input();
    assert!(error.contains("unknown measure `nope`"), "{error}");
}

#[test]
fn a_misspelt_as_sent_baseline_is_answered_with_as_sent() {
    let run = all_strategies().ptc(["ab", "--set", "ab.baseline=as-snt"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("did you mean `as-sent`?"),
        "{}",
        run.stderr
    );
}

/// The tables of a corpus priced by the one profile its bill names show the costs of that
/// profile's provider only, and ptc prices no other profile for them. They are the same as
/// when every profile is priced (as for a report), on the logs of every agent; the report
/// prices the other providers.
#[test]
fn tables_priced_by_the_bill_are_those_with_every_profile_priced() {
    let scratch = all_strategies();
    let logs = repo().join("tests/fixtures/realruns");
    let priced_alone = [
        (
            "mini-swe-agent/deepseek_reasoner_dev_pvlib__pvlib-python-1707.traj.json",
            "deepseek",
        ),
        ("claude-code", "anthropic"),
        ("codex", "openai@model=gpt-5.3-codex"),
        ("gemini-cli", "gemini"),
        ("ptc_runner-kernel", "openrouter-deepseek"),
        // Priced run by run: every profile is priced.
        ("openhands", "several"),
    ];
    for (logs_of, billed) in priced_alone {
        let input = logs.join(logs_of).display().to_string();
        for format in ["table", "markdown"] {
            let args = ["ab", "--no-timing", "--format", format, &input];
            let alone = scratch.ptc(args);
            assert_eq!(alone.code, 0, "{logs_of}: {}", alone.stderr);
            let note = match billed {
                "several" => "billed under several profiles".to_owned(),
                one => format!("priced by {one}, the profile"),
            };
            assert!(alone.stderr.contains(&note), "{logs_of}: {}", alone.stderr);
            let report = scratch.path().join(format!("every-profile-{format}.html"));
            let mut with_report = args.map(str::to_owned).to_vec();
            with_report.extend(["--report".to_owned(), report.display().to_string()]);
            let every = scratch.ptc(&with_report);
            assert_eq!(every.code, 0, "{logs_of}: {}", every.stderr);
            assert_eq!(alone.stdout, every.stdout, "{logs_of}, {format}");
        }
        // JSON prices every profile: a cost under another provider is not 0.
        let json = scratch
            .ptc(["ab", "--no-timing", "--format", "json", &input])
            .json();
        let costs = &json["strategies"][0]["cost"];
        let provider = billed.split('@').next().unwrap();
        let other = costs
            .as_object()
            .unwrap()
            .iter()
            .filter(|(name, _)| !name.starts_with(provider) && !name.starts_with("as-billed"))
            .any(|(_, cost)| cost.as_f64().unwrap() > 0.0);
        assert!(other, "{logs_of}: {costs}");
    }
}

/// A run's bill is found however many runs without requests come before it: once one was
/// read, a recording that holds no request is told by its text, and one that holds some is
/// still read whole. After more of them than are read at once, the rest are presumed to name
/// no bill while they are measured; the billed run refutes it, and the corpus is measured
/// again, read whole, with nothing said twice. With `--pricing`, the runs read ahead stop at
/// the first without requests.
#[test]
fn a_bill_after_many_runs_without_requests_still_prices_the_corpus() {
    let scratch = all_strategies();
    let plain = std::fs::read(example("data-exploration.json")).unwrap();
    // More than the runs read at once (64) before the bill.
    for i in 0..70 {
        scratch.write(&format!("bill-after-many/a-{i:03}.json"), &plain);
    }
    let billed = std::fs::read(repo().join("examples/realruns/mini-swe-agent-pvlib-1707.json"));
    scratch.write("bill-after-many/y-billed.json", billed.unwrap());
    let log = repo().join(
        "tests/fixtures/realruns/mini-swe-agent/deepseek_reasoner_dev_pvlib__pvlib-python-1707.traj.json",
    );
    scratch.write(
        "bill-after-many/z-log.traj.json",
        std::fs::read(log).unwrap(),
    );
    let ab = |extra: &[&str]| {
        let mut args = vec!["ab", "--no-timing", "--strategies", "full-history"];
        args.extend_from_slice(extra);
        args.push("bill-after-many");
        let run = scratch.ptc(args);
        assert_eq!(run.code, 0, "{}", run.stderr);
        // A bill among them does not make every run one that holds its requests.
        assert!(
            !run.stderr.contains("compared with as-sent"),
            "{}",
            run.stderr
        );
        // Every run is measured, the log read after them imported, the two billed runs
        // compared with their bill.
        assert!(run.stdout.starts_with("72 recording(s)"), "{}", run.stdout);
        assert!(
            run.stdout.contains("Simulated against the bill: 2 run(s)"),
            "{}",
            run.stdout
        );
        run
    };
    let found = ab(&[]);
    assert_eq!(
        found
            .stderr
            .matches("note: priced by deepseek, the profile")
            .count(),
        1,
        "{}",
        found.stderr
    );
    assert!(
        found.stdout.contains("cost: deepseek pricing"),
        "{}",
        found.stdout
    );
    // With the pricing given, the runs read ahead stop at the first without requests; the
    // rest are read when measured, to the same table.
    let given = ab(&["--pricing", "deepseek"]);
    assert_eq!(given.stdout, found.stdout);
}
