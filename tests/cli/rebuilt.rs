//! Logs that keep no requests (Claude Code, OpenHands, ATIF, Codex CLI): each call's request is rebuilt
//! from the conversation, with a prefix inferred from the bill in place of the system prompt
//! and tool schemas the log does not hold; `as-sent`, `ptc bill` and `ptc ab` use it, and no
//! strategy renders such a run with ptc's own PTC-Lisp system prompt.

use std::path::{Path, PathBuf};

use serde_json::Value as Json;

use crate::support::{repo, Scratch, STRATEGIES};

/// A scratch directory with every bundled strategy installed.
fn every_strategy() -> Scratch {
    let crates: Vec<&str> = STRATEGIES.iter().map(|(_, c)| *c).collect();
    Scratch::with_plugins(&crates)
}

fn realrun(path: &str) -> PathBuf {
    repo().join("tests/fixtures/realruns").join(path)
}

/// Imports `log` into `name` in the scratch directory; returns its path and the stderr.
fn import(scratch: &Scratch, log: &Path, name: &str) -> (PathBuf, String) {
    let out = scratch.path().join(name);
    let run = scratch.ptc([
        "import".to_string(),
        log.display().to_string(),
        "-o".into(),
        out.display().to_string(),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    (out, run.stderr)
}

/// The median of ptc's count of each call over its billed prompt, per run of a `ptc bill`
/// JSON.
fn median_ratios(bill: &Json) -> Vec<f64> {
    bill["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|run| {
            let mut ratios: Vec<f64> = run["per_call"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| {
                    c["counted_prompt_tokens"].as_f64().unwrap()
                        / c["billed_prompt_tokens"].as_f64().unwrap()
                })
                .collect();
            ratios.sort_by(f64::total_cmp);
            ratios[ratios.len() / 2]
        })
        .collect()
}

#[test]
fn every_call_of_a_claude_code_session_is_rebuilt_and_priced_within_ten_percent_of_its_bill() {
    let scratch = Scratch::new();
    let log = realrun("claude-code/session-5c0375b4.jsonl");
    let (corpus, stderr) = import(&scratch, &log, "cc.jsonl");
    assert!(
        stderr.contains("requests rebuilt from the conversation, with an inferred prefix of "),
        "{stderr}"
    );
    let recordings: Vec<Json> = std::fs::read_to_string(&corpus)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for recording in &recordings {
        // The prefix is known: nothing of the request is lacking but its text, which the
        // recording does not pretend to hold.
        assert_eq!(recording["lacks"], serde_json::json!(["max_turns"]));
        assert!(recording.get("system_prompt").is_none());
        for turn in recording["turns"].as_array().unwrap() {
            assert_eq!(turn["request"]["rebuilt"], true);
            assert!(turn["request"]["inferred_prefix_tokens"].as_u64().unwrap() > 10_000);
        }
    }
    let bill = scratch
        .ptc(["bill", &corpus.display().to_string(), "--format", "json"])
        .json();
    let calls: Vec<u64> = bill["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["calls"].as_u64().unwrap())
        .collect();
    assert_eq!(calls, [10, 3, 7], "every call is compared");
    for (run, median) in median_ratios(&bill).iter().enumerate() {
        assert!(
            (0.9..=1.1).contains(median),
            "run {run}: ptc's count is {median} of the bill"
        );
    }
    let totals = &bill["totals"]["every_run"];
    let ratio = totals["best_case_usd"].as_f64().unwrap() / totals["billed_usd"].as_f64().unwrap();
    assert!((0.9..=1.1).contains(&ratio), "simulated / billed = {ratio}");
    for run in bill["runs"].as_array().unwrap() {
        assert_eq!(run["rebuilt"], true);
        assert!(run["inferred_prefix_tokens"].as_u64().unwrap() > 10_000);
    }
    let table = scratch.ptc(["bill", &corpus.display().to_string()]).ok();
    assert!(
        table.contains("note: the as-sent baseline is rebuilt")
            && table.contains("session-5c0375b4.jsonl (thread from line 1): inferred prefix of "),
        "{table}"
    );
}

#[test]
fn ptc_ab_says_which_baselines_are_rebuilt_and_the_prefix_inferred() {
    let scratch = every_strategy();
    let log = realrun("openhands/replay-wrong_initial_state.json");
    let (recording, _) = import(&scratch, &log, "oh.json");
    let path = recording.display().to_string();
    let table = scratch
        .ptc(["ab", &path, "--strategies", "as-sent,rolling-window"])
        .ok();
    assert!(
        table.contains("note: the as-sent baseline is rebuilt")
            && table.contains("replay-wrong_initial_state.json: inferred prefix of "),
        "{table}"
    );
    let json = scratch
        .ptc([
            "ab",
            &path,
            "--strategies",
            "as-sent,rolling-window",
            "--format",
            "json",
        ])
        .json();
    assert!(
        json["rebuilt"][0]["inferred_prefix_tokens"]
            .as_u64()
            .unwrap()
            > 1_000
    );
    let report = scratch.path().join("report.html");
    scratch
        .ptc([
            "ab",
            &path,
            "--strategies",
            "as-sent,rolling-window",
            "--report",
            &report.display().to_string(),
        ])
        .ok();
    let page = std::fs::read_to_string(&report).unwrap();
    assert!(
        page.contains("<ul class=\"rebuilt\">")
            && page.contains("replay-wrong_initial_state.json: inferred prefix of "),
        "the report names the rebuilt run"
    );
}

/// The four published Codex sessions (redacted: each text a marker of its length): every call
/// rebuilt after one inferred prefix, `ptc bill` compares every call, and `ptc ab` judges
/// strategies against the rebuilt baseline. A marker counts as a text of its stated length
/// would (at a ratio of characters to tokens measured on other agents' logs, not on these),
/// so ptc's count of a request comes within 10% of its bill on the median call; the medians
/// measured here are those the manual gives (redacted logs).
#[test]
fn every_call_of_a_codex_session_is_rebuilt_billed_and_judged_against_the_rebuilt_baseline() {
    let scratch = every_strategy();
    // (rollout, calls, ptc's median count over the bill: at least, at most)
    let sessions = [
        ("12-40-23-019c8a4c", 81, 0.92, 0.95),
        ("12-54-34-019c8a59", 286, 0.95, 0.98),
        ("13-19-38-019c8a70", 1, 1.0, 1.0),
        ("20-34-25-019c8bfe", 6, 0.98, 1.0),
    ];
    for (name, calls, least, most) in sessions {
        let log = realrun(&format!("codex/rollout-2026-02-23T{name}.jsonl"));
        let (recording, stderr) = import(&scratch, &log, &format!("{name}.json"));
        assert!(
            stderr.contains("requests rebuilt from the conversation, with an inferred prefix of "),
            "{stderr}"
        );
        let json: Json = serde_json::from_slice(&std::fs::read(&recording).unwrap()).unwrap();
        for turn in json["turns"].as_array().unwrap() {
            assert_eq!(turn["request"]["rebuilt"], true, "{name}");
            assert!(
                turn["request"]["inferred_prefix_tokens"].as_u64().unwrap() > 10_000,
                "{name}"
            );
        }
        let path = recording.display().to_string();
        let bill = scratch.ptc(["bill", &path, "--format", "json"]).json();
        assert_eq!(
            bill["runs"][0]["calls"], calls,
            "{name}: every call is compared"
        );
        let median = median_ratios(&bill)[0];
        assert!(
            (least..=most).contains(&median),
            "{name}: ptc's count is {median} of the bill"
        );
        let ab = scratch.ptc([
            "ab",
            &path,
            "--strategies",
            "as-sent,full-history",
            "--set",
            "ab.baseline=as-sent",
            "--no-timing",
        ]);
        assert_eq!(ab.code, 0, "{name}: {}", ab.stderr);
        assert!(
            ab.stdout.contains("note: the as-sent baseline is rebuilt"),
            "{name}: {}",
            ab.stdout
        );
    }
}

/// No strategy renders a Claude Code, OpenHands, ATIF, Codex or Gemini CLI run with ptc's PTC-Lisp system
/// prompt, at any turn: the log kept none, and ptc's is not the agent's.
#[test]
fn no_strategy_prompt_of_another_agents_run_holds_the_ptc_lisp_system_prompt() {
    let scratch = every_strategy();
    let system_prompt =
        std::fs::read_to_string(repo().join("templates/system_prompt.tera")).unwrap();
    let opening = system_prompt.lines().next().unwrap();
    assert!(opening.contains("PTC-Lisp"), "{opening}");
    for (log, name) in [
        ("claude-code/session-5c0375b4.jsonl", "cc.jsonl"),
        ("openhands/replay-wrong_initial_state.json", "oh.json"),
        ("atif/harbor-golden-openhands-hello-world.json", "atif.json"),
        (
            "codex/rollout-2026-02-23T20-34-25-019c8bfe.jsonl",
            "codex.json",
        ),
        ("gemini-cli/atif-rfc-example-gemini-cli.json", "gemini.json"),
    ] {
        let (recording, _) = import(&scratch, &realrun(log), name);
        // The first run of a JSONL corpus: the Claude Code session's main thread.
        let recording = if name.ends_with(".jsonl") {
            let first = std::fs::read_to_string(&recording).unwrap();
            scratch.write(&format!("first-{name}.json"), first.lines().next().unwrap())
        } else {
            recording
        };
        for (strategy, _) in STRATEGIES.iter() {
            let recorded: Json =
                serde_json::from_str(&std::fs::read_to_string(&recording).unwrap()).unwrap();
            let count = recorded["turns"].as_array().unwrap().len();
            for turns in [0, 2.min(count)] {
                let render = scratch.render_json(&recording, turns, &["--strategy", strategy]);
                let text = render["messages"].to_string();
                assert!(
                    !text.contains(opening) && !text.contains("PTC-Lisp, a Clojure-like"),
                    "{strategy} on {name} after {turns} turn(s) shows ptc's system prompt"
                );
            }
        }
    }
}

/// A hostile log: the first call billed fewer tokens than its conversation holds. The prefix
/// cannot be inferred; the recording says so, `as-sent` is refused, `ptc bill` compares
/// nothing of it and says why, and `ptc ab` judges no strategy on it.
#[test]
fn a_bill_smaller_than_the_conversation_leaves_the_prefix_unknown_and_says_so() {
    let scratch = every_strategy();
    let words = "every word of this mission counts ".repeat(100);
    let lines = [
        serde_json::json!({"type": "user", "uuid": "u1", "parentUuid": null, "sessionId": "s",
            "timestamp": "2026-01-01T00:00:00Z",
            "message": {"role": "user", "content": words}}),
        serde_json::json!({"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": "s",
            "requestId": "r1", "timestamp": "2026-01-01T00:00:01Z",
            "message": {"id": "m1", "model": "claude-sonnet-4-20250514", "role": "assistant",
                "content": [{"type": "text", "text": "Done."}],
                "usage": {"input_tokens": 3, "cache_read_input_tokens": 0,
                    "cache_creation_input_tokens": 0, "output_tokens": 2}}}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let log = scratch.write("hostile.jsonl", text);
    let (recording, stderr) = import(&scratch, &log, "hostile.json");
    assert!(stderr.contains("their prefix unknown"), "{stderr}");
    let json: Json = serde_json::from_slice(&std::fs::read(&recording).unwrap()).unwrap();
    assert_eq!(json["turns"][0]["request"]["rebuilt"], true);
    assert!(json["turns"][0]["request"]
        .get("inferred_prefix_tokens")
        .is_none());
    let lacks = json["lacks"].to_string();
    assert!(
        lacks.contains("requests") && lacks.contains("system_prompt"),
        "{lacks}"
    );
    let path = recording.display().to_string();
    let bill = scratch.ptc(["bill", &path]).ok();
    assert!(
        bill.contains("hostile.jsonl: prefix unknown")
            && bill.contains("no call of it is compared"),
        "{bill}"
    );
    let ab = scratch
        .ptc(["ab", &path, "--strategies", "full-history,rolling-window"])
        .ok();
    assert!(
        ab.contains("hostile.jsonl: prefix unknown")
            && ab.contains("lack prompt_prefix, system_prompt"),
        "{ab}"
    );
    // The recorded requests have no size either: as-sent is not judged on the run, and does
    // not fail on it.
    let ab = scratch.ptc(["ab", &path, "--strategies", "as-sent,full-history"]);
    assert_eq!(ab.code, 0, "{}", ab.stderr);
    assert!(
        !ab.stdout.contains("failed") && !ab.stderr.contains("failed"),
        "{}{}",
        ab.stdout,
        ab.stderr
    );
    assert!(ab.stdout.contains("lack prompt_prefix"), "{}", ab.stdout);
}

#[test]
fn the_schema_documents_a_rebuilt_request_and_its_inferred_prefix() {
    let schema = Scratch::new().ptc(["schema"]).ok();
    for text in [
        "rebuilt from the conversation the log holds, not recorded as sent",
        "inferred_prefix_tokens",
        "inferred from the bill",
    ] {
        assert!(
            schema.to_lowercase().contains(&text.to_lowercase()),
            "{text}"
        );
    }
}

#[test]
fn render_and_trace_take_as_sent_as_ab_and_diff_do() {
    let scratch = Scratch::new();
    let log = realrun("mini-swe-agent/deepseek_reasoner_dev_pvlib__pvlib-python-1707.traj.json");
    let trajectory: Json = serde_json::from_str(&std::fs::read_to_string(&log).unwrap()).unwrap();
    let render = scratch.render_json(&log, 2, &["--strategy", "as-sent"]);
    assert_eq!(render["strategy"], "as-sent");
    // The request the agent sent before turn 3: its own system prompt, not ptc's.
    assert_eq!(
        render["messages"][0]["content"],
        trajectory["messages"][0]["content"]
    );
    let trace = scratch.ptc([
        "trace".as_ref(),
        log.as_os_str(),
        "--strategy".as_ref(),
        "as-sent".as_ref(),
        "--usage".as_ref(),
        "--turns".as_ref(),
        "2".as_ref(),
    ]);
    assert_eq!(trace.code, 0, "{}", trace.stderr);
    // Explaining sections needs a strategy's templates: as-sent has none, and says so.
    let explain = scratch.ptc([
        "render".as_ref(),
        log.as_os_str(),
        "--strategy".as_ref(),
        "as-sent".as_ref(),
        "--explain".as_ref(),
    ]);
    assert_eq!(explain.code, 2);
    assert!(
        explain
            .stderr
            .contains("no sections or templates to explain"),
        "{}",
        explain.stderr
    );
}
