//! `ptc import FILE...`: the format of each log detected, real runs of ptc_runner's Kernel agent
//! imported with every request as sent and what the provider billed, nothing invented, and
//! hostile logs refused with the file and the place.

use std::path::PathBuf;

use serde_json::Value as Json;

use crate::support::{repo, Scratch};

fn kernel(name: &str) -> PathBuf {
    repo()
        .join("tests/fixtures/realruns/ptc_runner-kernel")
        .join(format!("{name}.inspection.jsonl"))
}

/// The billed tokens of every model call of an inspection artifact, read straight from it:
/// (calls, input as billed, cache reads, cost).
fn billed(path: &PathBuf) -> (usize, u64, u64, f64) {
    let mut totals = (0, 0, 0, 0.0);
    for line in std::fs::read_to_string(path).unwrap().lines() {
        let record: Json = serde_json::from_str(line).unwrap();
        if record["record_type"] == "capability-output"
            && record["payload"]["name"] == "llm-request"
        {
            let tokens = &record["payload"]["result"]["value"]["tokens"];
            totals.0 += 1;
            totals.1 += tokens["input"].as_u64().unwrap();
            totals.2 += tokens["cache_read"].as_u64().unwrap();
            totals.3 += tokens["total_cost"].as_f64().unwrap();
        }
    }
    totals
}

#[test]
fn a_kernel_run_imports_with_its_requests_and_its_bill() {
    let scratch = Scratch::new();
    let path = kernel("checkout-5xx-9");
    let run = scratch.ptc(["import", &path.display().to_string()]);
    let recording: Json = serde_json::from_str(&run.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}", run.stderr);
    });
    assert!(
        run.stderr.contains("(ptc-runner-kernel): 10 turn(s), ")
            && run.stderr.contains("10 call(s) with billed usage; the log lacks: memory_values, results, prints, max_turns"),
        "{}",
        run.stderr
    );
    let turns = recording["turns"].as_array().unwrap();
    let (calls, input, read, cost) = billed(&path);
    assert_eq!(turns.len(), calls, "one turn per call to the model");
    // Every billed token is counted once, in one of the convention's fields; the cost is the
    // billed one, summed, never computed.
    let sum = |field: &str| -> u64 {
        turns
            .iter()
            .map(|t| t["usage"][field].as_u64().unwrap())
            .sum()
    };
    assert_eq!(sum("cache_read"), read);
    assert_eq!(
        sum("input") + sum("cache_read") + sum("cache_write_5m"),
        input
    );
    let imported_cost: f64 = turns
        .iter()
        .map(|t| t["usage"]["cost_usd"].as_f64().unwrap())
        .sum();
    assert!(
        (imported_cost - cost).abs() < 1e-12,
        "{imported_cost} vs {cost}"
    );
    // The request as sent: the first is the mission alone, each later one adds the previous
    // turn's response and the feedback on it.
    let first = &turns[0]["request"];
    assert_eq!(first["messages"].as_array().unwrap().len(), 1);
    assert_eq!(first["messages"][0]["content"], recording["mission"]);
    assert!(first["system"]
        .as_str()
        .unwrap()
        .starts_with("PTC_AGENT_PROMPT_V1"));
    assert_eq!(recording["system_prompt"], first["system"]);
    let second = &turns[1]["request"]["messages"];
    assert_eq!(second.as_array().unwrap().len(), 3);
    assert_eq!(second[1]["role"], "assistant");
    assert_eq!(second[1]["tool_calls"][0]["name"], "run_ptc_lisp");
    let program: Json =
        serde_json::from_str(second[1]["tool_calls"][0]["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(program["program"], turns[0]["program"]);
    assert_eq!(second[2]["role"], "tool");
    // Nothing invented: no memory, no result, and what the log lacks is said.
    for turn in turns {
        assert_eq!(turn["memory"], Json::Null);
        assert_eq!(turn["result"], Json::Null);
    }
    assert_eq!(recording["max_turns"], 10);
    // The recording made validates, and `ptc ab` measures it.
    let file = scratch.write("kernel.json", &run.stdout);
    scratch.ptc(["validate", &file.display().to_string()]).ok();
    scratch
        .ptc([
            "ab",
            "--strategies",
            "single-user-coalesced",
            "--set",
            "ab.baseline=single-user-coalesced",
            &file.display().to_string(),
        ])
        .ok();
}

#[test]
fn several_logs_give_a_corpus_and_the_format_can_be_forced() {
    let scratch = Scratch::new();
    let out = scratch.path().join("runs.jsonl");
    let run = scratch.ptc([
        "import",
        &kernel("checkout-5xx-9").display().to_string(),
        &kernel("fast-checkout-5xx-10").display().to_string(),
        "--from",
        "ptc-runner-kernel",
        "--max-turns",
        "30",
        "-o",
        &out.display().to_string(),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "");
    let text = std::fs::read_to_string(&out).unwrap();
    let lines: Vec<Json> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["max_turns"], 30, "--max-turns is the budget");
    assert!(!lines[0]["lacks"]
        .as_array()
        .unwrap()
        .contains(&"max_turns".into()));
    assert_eq!(
        run.stderr.lines().count(),
        2,
        "one line per run: {}",
        run.stderr
    );
    scratch.ptc(["validate", &out.display().to_string()]).ok();
}

#[test]
fn hostile_logs_are_refused_naming_the_file_and_the_place() {
    let scratch = Scratch::new();
    let real = std::fs::read_to_string(kernel("fast-checkout-5xx-10")).unwrap();
    let lines: Vec<&str> = real.lines().collect();
    // Truncated in the middle of a record.
    let cut = scratch.write("cut.inspection.jsonl", &real[..real.len() - 40]);
    let err = scratch
        .ptc(["import", &cut.display().to_string()])
        .bad_input();
    assert!(
        err.contains(&format!("cannot import {}:{}", cut.display(), lines.len())),
        "{err}"
    );
    // Another schema version.
    let newer = scratch.write(
        "newer.inspection.jsonl",
        lines[0].replacen("\"schema_version\":2", "\"schema_version\":7", 1)
            + "\n"
            + &lines[1..].join("\n"),
    );
    let err = scratch
        .ptc(["import", &newer.display().to_string()])
        .bad_input();
    assert!(
        err.contains("`schema_version` 7 is an inspection schema this ptc does not read"),
        "{err}"
    );
    // No call to the model at all.
    let none = scratch.write("none.inspection.jsonl", format!("{}\n", lines[0]));
    let err = scratch
        .ptc(["import", &none.display().to_string()])
        .bad_input();
    assert!(err.contains("no call to the model"), "{err}");
    // Mixed formats in one file: a ptc_runner trace event after inspection records.
    let mixed = scratch.write(
        "mixed.inspection.jsonl",
        format!(
            "{}\n{{\"event\": \"run.start\", \"trace_id\": \"t\"}}\n",
            lines[0]
        ),
    );
    let err = scratch
        .ptc(["import", &mixed.display().to_string()])
        .bad_input();
    assert!(err.contains(&format!("{}:2", mixed.display())), "{err}");
    // Something that is no log ptc knows.
    let other = scratch.write("other.jsonl", "{\"hello\": 1}\n");
    let err = scratch
        .ptc(["import", &other.display().to_string()])
        .bad_input();
    assert!(err.contains("cannot tell the format of"), "{err}");
    // A line over the limit.
    let err = scratch
        .ptc([
            "import",
            &kernel("fast-checkout-5xx-10").display().to_string(),
            "--max-recording-bytes",
            "1000",
        ])
        .bad_input();
    assert!(err.contains("longer than the limit"), "{err}");
}

/// `as-sent`, the baseline of what the agent sent: the requests an imported run holds,
/// measured like any strategy; a recording without requests cannot give it.
#[test]
fn the_as_sent_baseline_measures_the_recorded_requests() {
    let scratch = Scratch::new();
    let run = scratch
        .ptc(["import", &kernel("checkout-5xx-9").display().to_string()])
        .ok();
    let recording: Json = serde_json::from_str(&run).unwrap();
    let file = scratch.write("kernel.json", &run);
    let json = scratch
        .ptc([
            "ab",
            "--format",
            "json",
            "--no-timing",
            "--strategies",
            "as-sent,single-user-coalesced",
            "--set",
            "ab.baseline=as-sent",
            &file.display().to_string(),
        ])
        .json();
    let text = json.to_string();
    assert!(text.contains("\"as-sent\""), "{text}");
    // The recorded requests hold every message the agent sent, so the tool definitions, the
    // system prompt and the first task are in the first prompt at least.
    let turns = recording["turns"].as_array().unwrap().len();
    assert!(text.contains(&format!("\"prompts\":{turns}")), "{text}");
    // Without requests, as-sent fails on the recording and says why.
    let example = crate::support::example("tool-actions.json");
    let err = scratch
        .ptc([
            "ab",
            "--strategies",
            "as-sent",
            "--set",
            "ab.baseline=as-sent",
            &example.display().to_string(),
        ])
        .bad_input();
    assert!(
        err.contains("as-sent failed") && err.contains("no request is recorded for turn 1"),
        "{err}"
    );
}

fn mini_swe_agent() -> PathBuf {
    repo().join(
        "tests/fixtures/realruns/mini-swe-agent/deepseek_reasoner_dev_pvlib__pvlib-python-1707.traj.json",
    )
}

/// A mini-swe-agent trajectory (one JSON object, its format named at its end) is detected and
/// imported: a turn per response, the shell commands as the program, DeepSeek's cache hits as
/// the cache reads, and no cost (the log's is litellm's computation, not a bill).
#[test]
fn a_mini_swe_agent_trajectory_imports_with_its_requests_and_its_token_counts() {
    let scratch = Scratch::new();
    let path = mini_swe_agent();
    let run = scratch.ptc(["import", &path.display().to_string()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("(mini-swe-agent): 16 turn(s)"),
        "{}",
        run.stderr
    );
    let recording: Json = serde_json::from_str(&run.stdout).unwrap();
    let source: Json = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let responses: Vec<&Json> = source["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "assistant")
        .collect();
    let turns = recording["turns"].as_array().unwrap();
    assert_eq!(turns.len(), responses.len());
    for (turn, response) in turns.iter().zip(&responses) {
        let usage = &response["extra"]["response"]["usage"];
        assert_eq!(
            turn["usage"]["cache_read"],
            usage["prompt_cache_hit_tokens"]
        );
        assert_eq!(turn["usage"]["input"], usage["prompt_cache_miss_tokens"]);
        assert_eq!(turn["usage"]["output"], usage["completion_tokens"]);
        assert!(
            turn["usage"].get("cost_usd").is_none(),
            "litellm's cost is not a bill"
        );
        assert_eq!(turn["started_at"], response["extra"]["timestamp"]);
    }
    // The first turn's request is the system prompt and the task, as sent; the reasoning the
    // model gave is part of its raw response.
    let first = &turns[0]["request"]["messages"];
    assert_eq!(first.as_array().unwrap().len(), 2);
    assert_eq!(first[0]["role"], "system");
    assert_eq!(recording["system_prompt"], first[0]["content"]);
    assert!(turns[0]["raw_response"]
        .as_str()
        .unwrap()
        .starts_with(responses[0]["reasoning_content"].as_str().unwrap()));
    assert_eq!(recording["max_turns"], 250, "the agent's step limit");
    let file = scratch.write("msa.json", &run.stdout);
    scratch.ptc(["validate", &file.display().to_string()]).ok();
    // An older format is refused, saying which one is read.
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("\"mini-swe-agent-1.1\"", "\"mini-swe-agent-1\"");
    let old = scratch.write("old.traj.json", text);
    let err = scratch
        .ptc(["import", &old.display().to_string()])
        .bad_input();
    assert!(
        err.contains("`trajectory_format` \"mini-swe-agent-1\" is not one this ptc reads"),
        "{err}"
    );
}

/// An ATIF trajectory is detected and imported: a turn per agent step, its tool calls with the
/// results that answer them, the tokens and cost each step states, and what ATIF does not keep
/// said, never invented.
#[test]
fn an_atif_trajectory_imports_with_its_tool_calls_and_its_metrics() {
    let scratch = Scratch::new();
    let path = repo().join("tests/fixtures/realruns/atif/harbor-golden-openhands-hello-world.json");
    let run = scratch.ptc(["import", &path.display().to_string()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("(atif): 2 turn(s), 2 tool call(s), 2 call(s) with billed usage; the log lacks: memory_values, results, requests, errors, max_turns, timestamps"),
        "{}",
        run.stderr
    );
    let recording: Json = serde_json::from_str(&run.stdout).unwrap();
    assert!(recording["system_prompt"]
        .as_str()
        .unwrap()
        .starts_with("You are OpenHands agent"));
    assert!(recording["mission"]
        .as_str()
        .unwrap()
        .starts_with("Create a file called hello.txt"));
    let turns = recording["turns"].as_array().unwrap();
    assert_eq!(turns[0]["tool_calls"][0]["name"], "str_replace_editor");
    assert_eq!(
        turns[0]["prints"].as_array().unwrap().len(),
        1,
        "the result that answers it"
    );
    assert_eq!(turns[0]["usage"]["input"], 100);
    assert_eq!(turns[0]["usage"]["cost_usd"], 0.00075);
    assert_eq!(turns[1]["tool_calls"][0]["name"], "finish");
    assert!(turns.iter().all(|t| t.get("request").is_none()));
    let file = scratch.write("atif.json", &run.stdout);
    scratch.ptc(["validate", &file.display().to_string()]).ok();
    // A version ptc does not read is refused, naming those it reads.
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("\"ATIF-v1.5\"", "\"ATIF-v1.9\"");
    let newer = scratch.write("newer.json", text);
    let err = scratch
        .ptc(["import", "--from", "atif", &newer.display().to_string()])
        .bad_input();
    assert!(
        err.contains("\"ATIF-v1.9\" is not an ATIF version this ptc reads"),
        "{err}"
    );
}

/// The peak resident memory, in KiB, of `command` run to its end, read from the kernel's
/// account of that one child (`wait4`), with its exit code.
#[cfg(target_os = "linux")]
fn peak_rss_kib(command: &mut std::process::Command) -> (i64, i32) {
    let child = command
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: an all-zero rusage is valid, and the child is ours and not waited for yet.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(waited, pid, "wait4: {}", std::io::Error::last_os_error());
    // Reaped by wait4: `child` must not be waited for again.
    std::mem::forget(child);
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        -1
    };
    (usage.ru_maxrss, code)
}

/// A ptc_runner trace is read one event at a time: a log of 10 MB of nested runs (events the
/// import skips) takes no more memory to import than a small one, where holding its events
/// would take several times the file's size.
#[cfg(target_os = "linux")]
#[test]
fn a_ptc_runner_trace_is_streamed_not_held() {
    use std::io::Write;
    let scratch = Scratch::new();
    let fixture =
        std::fs::read_to_string(repo().join("tests/cli/traces/ptc-runner.jsonl")).unwrap();
    let lines: Vec<&str> = fixture.lines().collect();
    let (before, after) = lines.split_at(2);
    let write = |name: &str, nested: usize| {
        let path = scratch.path().join(name);
        let mut out = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        for line in before {
            writeln!(out, "{line}").unwrap();
        }
        // Many small values: a held event takes far more memory than its text.
        let step: String = (0..400)
            .map(|i| format!("{{\"n\":{i},\"ok\":true}}"))
            .collect::<Vec<_>>()
            .join(",");
        for i in 0..nested {
            for event in ["run.start", "run.stop"] {
                writeln!(
                    out,
                    "{{\"event\":\"{event}\",\"trace_id\":\"t1\",\"span_id\":\"n{i}\",\
                     \"parent_span_id\":\"s1\",\"metadata\":{{\"step\":{{\"turns\":[{step}]}}}}}}"
                )
                .unwrap();
            }
        }
        for line in after {
            writeln!(out, "{line}").unwrap();
        }
        out.flush().unwrap();
        path
    };
    let small = write("small.jsonl", 1);
    let large = write("large.jsonl", 1_000);
    assert!(std::fs::metadata(&large).unwrap().len() > 10_000_000);
    let peak = |trace: &PathBuf| {
        let out = trace.with_extension("json");
        let (kib, code) = peak_rss_kib(
            crate::support::ptc_command(scratch.path())
                .args(["import", "ptc-runner"])
                .arg(trace)
                .arg("-o")
                .arg(&out),
        );
        assert_eq!(code, 0, "ptc import {}", trace.display());
        kib
    };
    let (small, large) = (peak(&small), peak(&large));
    // Holding the events would add over 200 MB; one event at a time adds next to nothing.
    assert!(
        large < small + 30_000,
        "importing 10 MB of nested runs peaked at {large} KiB, a small trace at {small} KiB"
    );
}
