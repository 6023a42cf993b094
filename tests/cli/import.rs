//! `ptc import FILE...`: the format of each log detected, real runs of ptc_runner's Kernel agent
//! imported with every request as sent and what the provider billed, nothing invented, and
//! hostile logs refused with the file and the place.

use std::path::PathBuf;

use serde_json::Value as Json;

#[cfg(target_os = "linux")]
use crate::support::peak_rss_kib;
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
            && run
                .stderr
                .contains("10 call(s) with billed usage; the log lacks: memory_values, max_turns"),
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
    // The second sends the first's message again (`repeats`), then the two it adds.
    assert_eq!(turns[1]["request"]["repeats"], 1);
    let added = &turns[1]["request"]["messages"];
    assert_eq!(added.as_array().unwrap().len(), 2);
    assert_eq!(added[0]["role"], "assistant");
    assert_eq!(added[0]["tool_calls"][0]["name"], "run_ptc_lisp");
    let program: Json =
        serde_json::from_str(added[0]["tool_calls"][0]["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(program["program"], turns[0]["program"]);
    assert_eq!(added[1]["role"], "tool");
    // Nothing invented: no memory; a value only where an observation holds it whole; the
    // last turn, which no feedback follows, lacks its outcome, value and prints.
    for turn in turns {
        assert_eq!(turn["memory"], Json::Null);
        let lacks = turn["lacks"].as_array().cloned().unwrap_or_default();
        if turn["result"] != Json::Null {
            assert!(!lacks.contains(&Json::from("results")), "{turn}");
        }
    }
    assert_eq!(
        turns.last().unwrap()["lacks"],
        serde_json::json!(["errors", "results", "prints"])
    );
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
        lines[0].replacen("\"schema_version\":2", "\"schema_version\":8", 1)
            + "\n"
            + &lines[1..].join("\n"),
    );
    let err = scratch
        .ptc(["import", &newer.display().to_string()])
        .bad_input();
    assert!(
        err.contains(
            "`schema_version` 8 is an inspection schema this ptc does not read (it reads 2 and 7)"
        ),
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
    // Each request after the first sends the previous one's messages again, then the
    // response and its observation: it is written as the two messages it adds, and the
    // recording is no larger than the log.
    for (k, turn) in turns.iter().enumerate().skip(1) {
        assert_eq!(turn["request"]["repeats"], 2 * k, "turn {}", k + 1);
        assert_eq!(turn["request"]["messages"].as_array().unwrap().len(), 2);
    }
    assert!(run.stdout.len() < std::fs::metadata(&path).unwrap().len() as usize);
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
    // A format ptc does not know is refused, saying which ones are read.
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("\"mini-swe-agent-1.1\"", "\"mini-swe-agent-2\"");
    let newer = scratch.write("newer.traj.json", text);
    let err = scratch
        .ptc(["import", &newer.display().to_string()])
        .bad_input();
    assert!(
        err.contains("`trajectory_format` \"mini-swe-agent-2\" is not one this ptc reads (it reads mini-swe-agent-1.1"),
        "{err}"
    );
}

/// `--skip-unreadable` leaves out the logs that cannot be imported, naming each with its reason,
/// and writes the others; without it the first such log stops the import and nothing is
/// written; with nothing readable it is an error.
#[test]
fn skip_unreadable_writes_the_logs_that_import_and_names_the_others() {
    let scratch = Scratch::new();
    let good = mini_swe_agent().display().to_string();
    let truncated = scratch.write("cut.traj.json", "{\"messages\": [");
    let cut = truncated.display().to_string();
    let out = scratch.path().join("runs.json");
    let import = |logs: &[&str], flags: &[&str]| {
        let mut args = vec!["import", "--from", "mini-swe-agent", "-o"];
        let out = out.to_str().unwrap();
        args.push(out);
        args.extend(logs.iter().chain(flags));
        scratch.ptc(args)
    };
    // Without the flag: an error naming the truncated log, nothing written.
    let err = import(&[&good, &cut], &[]).bad_input();
    assert!(err.contains("cut.traj.json"), "{err}");
    assert!(!out.exists());
    // With it: the good run is written (one run: one pretty recording), the other named.
    let run = import(&[&good, &cut], &["--skip-unreadable"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("warning: skipped: cannot import")
            && run.stderr.contains("cut.traj.json"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("skipped 1 of 2 log(s)"),
        "{}",
        run.stderr
    );
    let written: Json = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(written["turns"].as_array().unwrap().len(), 16);
    // Nothing readable: an error, and the file is left as it was.
    let err = import(&[&cut], &["--skip-unreadable", "--force"]).bad_input();
    assert!(
        err.contains("none of the 1 log(s) could be imported"),
        "{err}"
    );
    assert_eq!(
        serde_json::from_str::<Json>(&std::fs::read_to_string(&out).unwrap()).unwrap(),
        written
    );
}

/// A log's task is text as the agent was given it: braces of a template language in it (an
/// issue about dbt or Django templates) are kept as written, not read as placeholders.
#[test]
fn an_imported_task_keeps_its_braces_as_written() {
    let scratch = Scratch::with_plugins(&["ptc-strategy-full-history", crate::support::SUC]);
    let mut source: Json =
        serde_json::from_str(&std::fs::read_to_string(mini_swe_agent()).unwrap()).unwrap();
    let task = &mut source["messages"][1]["content"];
    let text = format!(
        "Fix {{{{ref2('schema', 'left')}}}} and {{{{ form }}}}.\n{}",
        task.as_str().unwrap()
    );
    *task = Json::String(text);
    let log = scratch.write("braces.traj.json", source.to_string());
    let run = scratch.ptc(["import", &log.display().to_string()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let recording: Json = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(recording["literal_mission"], true);
    let file = scratch.write("braces.json", &run.stdout);
    let file = file.display().to_string();
    scratch.ptc(["validate", &file]).ok();
    let prompt = scratch
        .ptc([
            "render",
            &file,
            "--turns",
            "0",
            "--strategy",
            "full-history",
        ])
        .ok();
    assert!(
        prompt.contains("Fix {{ref2('schema', 'left')}} and {{ form }}."),
        "{prompt}"
    );
    // Written by hand without the flag, the same mission names placeholders with no data.
    let mut hand = recording.clone();
    hand.as_object_mut().unwrap().remove("literal_mission");
    let hand = scratch.write("hand.json", hand.to_string());
    let run = scratch.ptc(["validate", &hand.display().to_string()]);
    assert_eq!(run.code, 2);
    assert!(
        run.stdout
            .contains("at `mission`: placeholder {{form}} has no data/form"),
        "{}",
        run.stdout
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
        run.stderr.contains("(atif): 2 turn(s), 2 tool call(s), 2 call(s) with billed usage; requests rebuilt from the conversation, with an inferred prefix of 77 tokens (system prompt and tool schemas); the log lacks: errors, max_turns, timestamps"),
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
    // ATIF keeps no requests: each is rebuilt from the steps before it.
    assert!(turns.iter().all(|t| t["request"]["rebuilt"] == true));
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

fn realrun(path: &str) -> PathBuf {
    repo().join("tests/fixtures/realruns").join(path)
}

/// The recordings of a JSONL output, one per line.
fn lines(text: &str) -> Vec<Json> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The sum of one usage field over every turn of some recordings.
fn usage_sum(recordings: &[Json], field: &str) -> u64 {
    recordings
        .iter()
        .flat_map(|r| r["turns"].as_array().unwrap())
        .map(|t| t["usage"][field].as_u64().unwrap_or(0))
        .sum()
}

/// A Claude Code session is detected and gives a recording per thread: the main conversation
/// and each side chain, though their lines are interleaved; a turn per API response (its lines
/// joined by `requestId`), its usage counted once, from its last line.
#[test]
fn a_claude_code_session_imports_a_run_per_thread() {
    let scratch = Scratch::new();
    let path = realrun("claude-code/session-5c0375b4.jsonl");
    let run = scratch.ptc(["import", &path.display().to_string()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    // The requests are rebuilt, each thread's prefix inferred from its first call's bill.
    let lacks = " tokens (system prompt and tool schemas); the log lacks: max_turns";
    for line in [
        "(claude-code, thread from line 1): 10 turn(s), 13 tool call(s), 10 call(s) with billed usage; requests rebuilt from the conversation, with an inferred prefix of 17799",
        "(claude-code, side chain from line 16): 3 turn(s), 2 tool call(s), 3 call(s) with billed usage; requests rebuilt from the conversation, with an inferred prefix of 12698",
        "(claude-code, side chain from line 26): 7 turn(s), 6 tool call(s), 7 call(s) with billed usage; requests rebuilt from the conversation, with an inferred prefix of 12691",
    ] {
        assert!(
            run.stderr.contains(&format!("{line}{lacks}")),
            "{line}\n{}",
            run.stderr
        );
    }
    let recordings = lines(&run.stdout);
    assert_eq!(recordings.len(), 3);
    // Computed from the session itself, keeping the last line of each requestId:
    //   python3 -c 'import json; u = {}
    //   for l in open(F): l = json.loads(l); l.get("type") == "assistant" and u.__setitem__(l["requestId"], l["message"]["usage"])
    //   print(len(u), *(sum(x[k] for x in u.values()) for k in ("input_tokens", "cache_read_input_tokens",
    //         "cache_creation_input_tokens", "output_tokens")))'
    //   -> 20 129 324259 47747 3629 (every write is ephemeral_5m; the first lines' output sum is 2498)
    let turns: usize = recordings
        .iter()
        .map(|r| r["turns"].as_array().unwrap().len())
        .sum();
    assert_eq!(turns, 20);
    assert_eq!(usage_sum(&recordings, "input"), 129);
    assert_eq!(usage_sum(&recordings, "cache_read"), 324_259);
    assert_eq!(usage_sum(&recordings, "cache_write_5m"), 47_747);
    assert_eq!(usage_sum(&recordings, "cache_write_1h"), 0);
    assert_eq!(usage_sum(&recordings, "output"), 3_629);
    let main = &recordings[0];
    let first = &main["turns"][0];
    assert_eq!(first["usage"]["provider"], "anthropic");
    assert_eq!(first["usage"]["model"], "claude-sonnet-4-20250514");
    assert!(
        first["usage"].get("cost_usd").is_none(),
        "the log states no cost"
    );
    // The requests are not logged: the first is rebuilt from the thread's two user messages.
    assert_eq!(first["request"]["rebuilt"], true);
    assert_eq!(first["request"]["messages"].as_array().unwrap().len(), 2);
    assert_eq!(first["request"]["inferred_prefix_tokens"], 17_799);
    assert!(main.get("system_prompt").is_none());
    // The response's text blocks are its raw response, its tool_use blocks its tool calls,
    // answered by the tool_result lines after it.
    assert!(first["raw_response"]
        .as_str()
        .unwrap()
        .starts_with("I'll help you update the CLAUDE.md file"));
    assert_eq!(first["tool_calls"][0]["name"], "TodoWrite");
    assert!(first["tool_calls"][0]["result"]
        .as_str()
        .unwrap()
        .starts_with("Todos have been modified successfully"));
    // A tool_result with is_error fails its turn, with its text as the error.
    let third = &main["turns"][2];
    assert_eq!(third["success"], false);
    assert!(third["error"]["message"]
        .as_str()
        .unwrap()
        .contains("InputValidationError"));
    assert!(recordings[1]["mission"]
        .as_str()
        .unwrap()
        .starts_with("Examine the package.json file(s)"));
    let out = scratch.path().join("cc.jsonl");
    scratch
        .ptc([
            "import",
            "--from",
            "claude-code",
            &path.display().to_string(),
            "-o",
            &out.display().to_string(),
        ])
        .ok();
    scratch.ptc(["validate", &out.display().to_string()]).ok();
}

#[test]
fn hostile_claude_code_sessions_are_refused_naming_the_file_and_the_line() {
    let scratch = Scratch::new();
    let real = std::fs::read_to_string(realrun("claude-code/session-5c0375b4.jsonl")).unwrap();
    let count = real.lines().count();
    let out = scratch.path().join("out.jsonl");
    let refused = |file: &PathBuf, from: &[&str]| {
        let mut args = vec!["import".to_owned()];
        args.extend(from.iter().map(|a| a.to_string()));
        args.extend([
            file.display().to_string(),
            "-o".into(),
            out.display().to_string(),
        ]);
        let err = scratch.ptc(&args).bad_input();
        assert!(!out.exists(), "nothing is written");
        err
    };
    // Truncated in the middle of its last line.
    let cut = scratch.write("cut.jsonl", &real[..real.len() - 40]);
    let err = refused(&cut, &[]);
    assert!(
        err.contains(&format!("cannot import {}:{count}", cut.display())),
        "{err}"
    );
    // Mixed formats: an inspection record among the session's lines.
    let mixed = scratch.write(
        "mixed.jsonl",
        format!(
            "{}\n{{\"record_type\": \"capability-input\"}}\n",
            real.lines().next().unwrap()
        ),
    );
    let err = refused(&mixed, &[]);
    assert!(
        err.contains(&format!("{}:2", mixed.display()))
            && err.contains("not a line of a Claude Code session"),
        "{err}"
    );
    // A split of the cache writes by TTL that does not add up is not guessed at.
    let split = scratch.write(
        "split.jsonl",
        real.replace(
            "\"ephemeral_5m_input_tokens\":18764",
            "\"ephemeral_5m_input_tokens\":18000",
        ),
    );
    let err = refused(&split, &[]);
    assert!(
        err.contains(&format!("{}:4", split.display()))
            && err.contains("splits 18000 cache-write tokens by TTL, but `cache_creation_input_tokens` is 18764"),
        "{err}"
    );
    // Lines Claude Code writes itself (model `<synthetic>`) are no turns, and a line of a type
    // newer versions add is passed over.
    let synthetic = r#"{"parentUuid":"e9bd5ce8-0000-0000-0000-000000000000","isSidechain":false,"type":"assistant","uuid":"5e5e5e5e-0000-0000-0000-000000000000","timestamp":"2025-09-07T09:55:00.000Z","message":{"id":"x","model":"<synthetic>","role":"assistant","type":"message","content":[{"type":"text","text":"API Error"}],"usage":{"input_tokens":0,"output_tokens":0}}}"#;
    let newer = r#"{"type":"queue-operation","operation":"enqueue","sessionId":"s"}"#;
    let more = scratch.write("more.jsonl", format!("{real}{synthetic}\n{newer}\n"));
    let run = scratch.ptc(["import", &more.display().to_string()]).ok();
    assert_eq!(run.lines().count(), 3);
    let turns: usize = lines(&run)
        .iter()
        .map(|r| r["turns"].as_array().unwrap().len())
        .sum();
    assert_eq!(turns, 20);
    // Only the user's lines: no response of the model.
    let asked = scratch.write("asked.jsonl", format!("{}\n", real.lines().next().unwrap()));
    let err = refused(&asked, &[]);
    assert!(err.contains("no response of the model"), "{err}");
    // Empty: no format to tell, and with --from, nothing to import.
    let empty = scratch.write("empty.jsonl", "");
    let err = refused(&empty, &[]);
    assert!(err.contains("cannot tell the format of"), "{err}");
    let err = refused(&empty, &["--from", "claude-code"]);
    assert!(err.contains("no response of the model"), "{err}");
}

/// An OpenHands event trajectory is detected and gives one run: a turn per response of the
/// model (its actions joined by `model_response.id`), the observations as results, litellm's
/// usage counted once per response.
#[test]
fn an_openhands_trajectory_imports_with_its_observations_and_its_usage() {
    let scratch = Scratch::new();
    let path = realrun("openhands/replay-wrong_initial_state.json");
    let run = scratch.ptc(["import", &path.display().to_string()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("(openhands): 4 turn(s), 4 tool call(s), 4 call(s) with billed usage; requests rebuilt from the conversation, with an inferred prefix of 3463 tokens (system prompt and tool schemas); the log lacks: max_turns"),
        "{}",
        run.stderr
    );
    let recording: Json = serde_json::from_str(&run.stdout).unwrap();
    // Computed from the trajectory, one usage per model_response.id (litellm's prompt_tokens
    // hold the cache reads and writes):
    //   python3 -c 'import json; u = {e["tool_call_metadata"]["model_response"]["id"]: e["tool_call_metadata"]["model_response"]["usage"]
    //     for e in json.load(open(F)) if "tool_call_metadata" in e}.values()
    //   print(len(u), sum(x["prompt_tokens"] - x["cache_read_input_tokens"] - x["cache_creation_input_tokens"] for x in u),
    //     sum(x["cache_read_input_tokens"] for x in u), sum(x["cache_creation_input_tokens"] for x in u), sum(x["completion_tokens"] for x in u))'
    //   -> 4 22 10879 3927 358
    let both = [recording.clone()];
    assert_eq!(usage_sum(&both, "input"), 22);
    assert_eq!(usage_sum(&both, "cache_read"), 10_879);
    assert_eq!(usage_sum(&both, "cache_write_5m"), 3_927);
    assert_eq!(usage_sum(&both, "output"), 358);
    let turns = recording["turns"].as_array().unwrap();
    assert_eq!(
        recording["mission"],
        "Please rename game_2048.py to 2048.py"
    );
    assert_eq!(
        turns[1]["program"],
        "mv /workspace/game_2048.py /workspace/2048.py"
    );
    assert_eq!(turns[1]["tool_calls"][0]["name"], "execute_bash");
    assert_eq!(
        turns[1]["tool_calls"][0]["args"]["command"],
        "mv /workspace/game_2048.py /workspace/2048.py"
    );
    assert!(turns[0]["prints"][0]
        .as_str()
        .unwrap()
        .contains("/workspace/game_2048.py"));
    assert!(turns.iter().all(|t| t["usage"].get("cost_usd").is_none()));
    assert!(turns.iter().all(|t| t["success"] == true));
    let file = scratch.write("oh.json", &run.stdout);
    scratch.ptc(["validate", &file.display().to_string()]).ok();
    // OpenHands' verdict on an observation fails its turn.
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("\"success\": true", "\"success\": false");
    let failed = scratch.write("failed.json", text);
    let run = scratch.ptc(["import", &failed.display().to_string()]).ok();
    let recording: Json = serde_json::from_str(&run).unwrap();
    assert_eq!(recording["turns"][1]["success"], false);
    assert_eq!(
        recording["turns"][1]["error"]["reason"],
        "observation_error"
    );
    // A newer trajectory: the system prompt and its tools from the `system` action.
    let path = realrun("openhands/atif-rfc-example-openhands_trajectory.json");
    let run = scratch.ptc(["import", &path.display().to_string()]);
    assert!(
        run.stderr.contains("(openhands): 2 turn(s), 2 tool call(s), 2 call(s) with billed usage; requests rebuilt from the conversation, with an inferred prefix of 5840 tokens (system prompt and tool schemas); the log lacks: max_turns"),
        "{}",
        run.stderr
    );
    let recording: Json = serde_json::from_str(&run.stdout).unwrap();
    assert!(recording["system_prompt"]
        .as_str()
        .unwrap()
        .starts_with("You are OpenHands agent"));
    assert!(recording["tools"]
        .as_array()
        .unwrap()
        .iter()
        .any(|t| t["name"] == "execute_bash"));
    //   (the same computation) -> 2 6227 5632 0 1086
    let both = [recording];
    assert_eq!(usage_sum(&both, "input"), 6_227);
    assert_eq!(usage_sum(&both, "cache_read"), 5_632);
    assert_eq!(usage_sum(&both, "output"), 1_086);
    // Without the responses' usage, the differences of the cumulative llm_metrics give the
    // same counts.
    let mut events: Json = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    for event in events.as_array_mut().unwrap() {
        if let Some(response) = event.pointer_mut("/tool_call_metadata/model_response") {
            response.as_object_mut().unwrap().remove("usage");
        }
    }
    let cumulative = scratch.write("cumulative.json", events.to_string());
    let run = scratch
        .ptc(["import", &cumulative.display().to_string()])
        .ok();
    let both = [serde_json::from_str(&run).unwrap()];
    assert_eq!(usage_sum(&both, "input"), 6_227);
    assert_eq!(usage_sum(&both, "cache_read"), 5_632);
    assert_eq!(usage_sum(&both, "output"), 1_086);
}

/// An evaluation's `output.jsonl` gives a run per line, its budget from `max_iterations`;
/// an older `history` of [action, observation] pairs reads the same.
#[test]
fn an_openhands_output_jsonl_gives_a_run_per_line() {
    let scratch = Scratch::new();
    let path = realrun("openhands/derived-output.jsonl");
    let run = scratch.ptc(["import", &path.display().to_string()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("(openhands, derived__rename-1, line 1): 4 turn(s), 4 tool call(s), 4 call(s) with billed usage; requests rebuilt from the conversation, with an inferred prefix of 3463 tokens (system prompt and tool schemas); the log lacks: nothing")
            && run.stderr.contains("(openhands, derived__2048-1, line 2): 2 turn(s), 2 tool call(s), 2 call(s) with billed usage;"),
        "{}",
        run.stderr
    );
    let recordings = lines(&run.stdout);
    assert_eq!(recordings.len(), 2);
    assert_eq!(recordings[0]["max_turns"], 30);
    assert_eq!(recordings[1]["max_turns"], 50);
    assert_eq!(recordings[0]["turns"][0]["usage"]["provider"], "anthropic");
    assert!(recordings[1]["turns"][0]["prints"][0]
        .as_str()
        .unwrap()
        .contains("game_2048.py"));
    let file = scratch.write("runs.jsonl", &run.stdout);
    scratch.ptc(["validate", &file.display().to_string()]).ok();
}

#[test]
fn hostile_openhands_logs_are_refused_naming_the_file_and_the_place() {
    let scratch = Scratch::new();
    let real =
        std::fs::read_to_string(realrun("openhands/replay-wrong_initial_state.json")).unwrap();
    let cut = scratch.write("cut.json", &real[..real.len() / 2]);
    let err = scratch
        .ptc(["import", "--from", "openhands", &cut.display().to_string()])
        .bad_input();
    assert!(
        err.contains(&format!("cannot import {}:", cut.display())),
        "{err}"
    );
    let shape = scratch.write("shape.json", "{\"events\": []}");
    let err = scratch
        .ptc([
            "import",
            "--from",
            "openhands",
            &shape.display().to_string(),
        ])
        .bad_input();
    assert!(
        err.contains("an object without a `history` list is not an OpenHands run"),
        "{err}"
    );
    let event = scratch.write("event.json", "[{\"id\": 0}, 3]");
    let err = scratch
        .ptc([
            "import",
            "--from",
            "openhands",
            &event.display().to_string(),
        ])
        .bad_input();
    assert!(err.contains("event 1 of the run is a number"), "{err}");
    let empty = scratch.write("empty.json", "[]");
    let err = scratch
        .ptc([
            "import",
            "--from",
            "openhands",
            &empty.display().to_string(),
        ])
        .bad_input();
    assert!(
        err.contains("no mission") || err.contains("no response"),
        "{err}"
    );
    // Mixed formats: a Claude Code line after an evaluation's output line.
    let first = std::fs::read_to_string(realrun("openhands/derived-output.jsonl")).unwrap();
    let session = std::fs::read_to_string(realrun("claude-code/session-5c0375b4.jsonl")).unwrap();
    let mixed = scratch.write(
        "mixed.jsonl",
        format!(
            "{}\n{}\n",
            first.lines().next().unwrap(),
            session.lines().next().unwrap()
        ),
    );
    let err = scratch
        .ptc(["import", &mixed.display().to_string()])
        .bad_input();
    assert!(
        err.contains(&format!("{}:2", mixed.display())) && err.contains("not an OpenHands run"),
        "{err}"
    );
}

/// mini-swe-agent's text formats: format 1 (one ```bash block, the output in a `user` message
/// with its <returncode>) and format 1.1 with a text-based model (`extra.actions`). The
/// fixtures are derived from the documented shape (no real one is at hand).
#[test]
fn mini_swe_agent_text_formats_import_with_their_commands_and_return_codes() {
    let scratch = Scratch::new();
    let path = realrun("mini-swe-agent/derived-text-format-1.traj.json");
    let run = scratch.ptc(["import", &path.display().to_string()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("(mini-swe-agent): 4 turn(s), 3 tool call(s), 4 call(s) with billed usage; the log lacks: max_turns"),
        "{}",
        run.stderr
    );
    let recording: Json = serde_json::from_str(&run.stdout).unwrap();
    let turns = recording["turns"].as_array().unwrap();
    assert_eq!(turns[0]["program"], "ls");
    assert_eq!(turns[0]["success"], true);
    // Two blocks are a format error, said by the message after it.
    assert_eq!(turns[1]["error"]["reason"], "format_error");
    assert!(turns[1]["program"].is_null());
    // A return code other than 0 fails the turn.
    assert_eq!(turns[2]["error"]["reason"], "exit_status");
    assert_eq!(turns[2]["program"], "python -m pytest -q");
    // The command that failed is a tool call still, with its output and its exit status.
    let failed = &turns[2]["tool_calls"][0];
    assert_eq!(failed["args"]["command"], "python -m pytest -q");
    assert_eq!(failed["result"]["exit_status"], 1, "{failed}");
    assert_eq!(failed["result"]["output"], turns[2]["error"]["message"]);
    assert_eq!(turns[2]["prints"][0], failed["result"]["output"]);
    // Computed from the fixture: sum(prompt_tokens - cached_tokens), sum(cached_tokens),
    // sum(completion_tokens) over the assistant messages' extra.response.usage
    //   -> 1021+116+274+125 = 1536, 0+1024+1024+1280 = 3328, 58+71+40+77 = 246
    let one = [recording.clone()];
    assert_eq!(usage_sum(&one, "input"), 1_536);
    assert_eq!(usage_sum(&one, "cache_read"), 3_328);
    assert_eq!(usage_sum(&one, "output"), 246);
    let fourth = &turns[3]["request"];
    let sent = fourth["repeats"].as_u64().unwrap_or(0) as usize
        + fourth["messages"].as_array().unwrap().len();
    assert_eq!(sent, 8);
    let file = scratch.write("msa1.json", &run.stdout);
    scratch.ptc(["validate", &file.display().to_string()]).ok();
    // Format 1 saved as the bare list of messages: read when --from says so.
    let source: Json = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let bare = scratch.write("bare.json", source["messages"].to_string());
    let run = scratch
        .ptc([
            "import",
            "--from",
            "mini-swe-agent",
            &bare.display().to_string(),
        ])
        .ok();
    let again: Json = serde_json::from_str(&run).unwrap();
    // The same turns; only the model, which the bare list does not name, is missing.
    for (a, b) in again["turns"].as_array().unwrap().iter().zip(turns) {
        for field in ["program", "success", "prints", "tool_calls", "raw_response"] {
            assert_eq!(a[field], b[field]);
        }
        assert_eq!(a["usage"]["input"], b["usage"]["input"]);
        assert!(a["usage"].get("model").is_none());
    }
    // Saved as `*.traj.json`, as mini-swe-agent names its trajectories, the bare list is told
    // by itself: no --from needed; under any other name it stays a format ptc cannot tell.
    let named = scratch.write("old.traj.json", source["messages"].to_string());
    let run = scratch.ptc(["import", &named.display().to_string()]).ok();
    let by_itself: Json = serde_json::from_str(&run).unwrap();
    assert_eq!(by_itself["turns"], again["turns"]);
    let unnamed = scratch.ptc(["import", &bare.display().to_string()]);
    assert_eq!(unnamed.code, 2, "{}", unnamed.stderr);
    assert!(
        unnamed.stderr.contains("cannot tell the format"),
        "{}",
        unnamed.stderr
    );
    // Format 1.1 with text actions.
    let path = realrun("mini-swe-agent/derived-text-actions-1.1.traj.json");
    let run = scratch.ptc(["import", &path.display().to_string()]);
    assert!(
        run.stderr.contains("(mini-swe-agent): 2 turn(s), 2 tool call(s), 2 call(s) with billed usage; the log lacks: nothing"),
        "{}",
        run.stderr
    );
    let recording: Json = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(recording["turns"][0]["program"], "ls");
    assert_eq!(
        recording["turns"][1]["tool_calls"][0]["result"]["exit_status"],
        1
    );
    assert_eq!(recording["turns"][1]["success"], false);
    assert_eq!(recording["max_turns"], 2);
    // A trajectory without a response, or empty, is refused.
    let none = scratch.write(
        "none.traj.json",
        "{\"trajectory_format\": \"mini-swe-agent-1\", \"messages\": [{\"role\": \"user\", \"content\": \"x\"}]}",
    );
    let err = scratch
        .ptc(["import", &none.display().to_string()])
        .bad_input();
    assert!(
        err.contains("no response of the model (looked for an `assistant` message)"),
        "{err}"
    );
    let empty = scratch.write("empty.traj.json", "");
    let err = scratch
        .ptc([
            "import",
            "--from",
            "mini-swe-agent",
            &empty.display().to_string(),
        ])
        .bad_input();
    assert!(
        err.contains(&format!("cannot import {}:1", empty.display())),
        "{err}"
    );
    // A truncated trajectory is refused with its line.
    let text = std::fs::read_to_string(&path).unwrap();
    let cut = scratch.write("cut.traj.json", &text[..text.len() / 2]);
    let err = scratch
        .ptc([
            "import",
            "--from",
            "mini-swe-agent",
            &cut.display().to_string(),
        ])
        .bad_input();
    assert!(
        err.contains(&format!("cannot import {}:", cut.display())),
        "{err}"
    );
}

/// Schema 7 of the inspection artifact (its payloads exact: no `evaluation_id` on a capability
/// call, `mission_name` on a mission's records) imports to the recording schema 2 gives. The
/// schema 7 fixture is derived from the schema 2 one as the format's contract describes.
#[test]
fn a_kernel_run_of_schema_7_imports_as_its_schema_2_twin() {
    let scratch = Scratch::new();
    let derived =
        realrun("ptc_runner-kernel/derived-schema-7-fast-checkout-5xx-10.inspection.jsonl");
    let seven = scratch.ptc(["import", &derived.display().to_string()]).ok();
    let two = scratch
        .ptc([
            "import",
            &kernel("fast-checkout-5xx-10").display().to_string(),
        ])
        .ok();
    // The same but for their names, each its log's.
    let (mut seven, mut two): (Json, Json) = (
        serde_json::from_str(&seven).unwrap(),
        serde_json::from_str(&two).unwrap(),
    );
    assert_eq!(
        seven["name"],
        "derived-schema-7-fast-checkout-5xx-10.inspection.jsonl"
    );
    seven["name"] = Json::Null;
    two["name"] = Json::Null;
    assert_eq!(seven, two);
    let recording = seven;
    assert_eq!(
        recording["turns"][0]["tool_calls"]
            .as_array()
            .unwrap()
            .len(),
        13,
        "the calls after the program's source, not the prelude's before the model call"
    );
    // One file, one schema.
    let text = std::fs::read_to_string(&derived).unwrap();
    let mixed: Vec<String> = text
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if i == 4 {
                l.replacen("\"schema_version\":7", "\"schema_version\":2", 1)
            } else {
                l.to_owned()
            }
        })
        .collect();
    let mixed = scratch.write("mixed.inspection.jsonl", mixed.join("\n"));
    let err = scratch
        .ptc(["import", &mixed.display().to_string()])
        .bad_input();
    assert!(
        err.contains(&format!("{}:5", mixed.display()))
            && err.contains("`schema_version` 2 differs from the 7 of line 1"),
        "{err}"
    );
}

/// A Gemini CLI session: each response a turn with the tokens Gemini reported (its `input`
/// includes the cached ones), the request rebuilt from the conversation with a prefix
/// inferred from the bill; a session without a response, or a count that is not one, is
/// refused naming the file.
#[test]
fn a_gemini_cli_session_imports_with_its_tokens_and_a_rebuilt_request() {
    let scratch = Scratch::new();
    let log = realrun("gemini-cli/atif-rfc-example-gemini-cli.json");
    let run = scratch.ptc(["import", &log.display().to_string()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("(gemini-cli): 1 turn(s)"),
        "{}",
        run.stderr
    );
    let recording: Json = serde_json::from_str(&run.stdout).unwrap();
    let session: Json = serde_json::from_str(&std::fs::read_to_string(&log).unwrap()).unwrap();
    assert_eq!(recording["mission"], session["messages"][0]["content"]);
    let turn = &recording["turns"][0];
    let tokens = &session["messages"][1]["tokens"];
    let billed = tokens["input"].as_u64().unwrap();
    assert_eq!(
        turn["usage"]["input"].as_u64().unwrap() + turn["usage"]["cache_read"].as_u64().unwrap(),
        billed
    );
    assert_eq!(turn["usage"]["provider"], "gemini");
    assert_eq!(turn["usage"]["model"], "gemini-2.0-flash");
    assert!(
        turn["usage"].get("cost_usd").is_none(),
        "the log states no cost"
    );
    assert_eq!(turn["request"]["rebuilt"], true);
    let prefix = turn["request"]["inferred_prefix_tokens"].as_u64().unwrap();
    assert!(prefix > 0 && prefix < billed, "{prefix}");
    assert_eq!(recording["lacks"], serde_json::json!(["max_turns"]));
    // Hostile sessions.
    let no_answer = scratch.write(
        "s1.json",
        r#"{"sessionId": "x", "projectHash": "y", "messages": [{"type": "user", "content": "hi"}]}"#,
    );
    let bad_count = scratch.write(
        "s2.json",
        r#"{"sessionId": "x", "projectHash": "y", "messages": [{"type": "user", "content": "hi"},
            {"type": "gemini", "content": "ok", "tokens": {"input": 10, "cached": 20}}]}"#,
    );
    for (file, why) in [(no_answer, "no response"), (bad_count, "cached")] {
        let run = scratch.ptc(["import", &file.display().to_string()]);
        assert_eq!(run.code, 2, "{}", run.stderr);
        assert!(
            run.stderr.contains(&file.display().to_string()) && run.stderr.contains(why),
            "{}",
            run.stderr
        );
        assert!(run.stdout.is_empty());
    }
}

/// A mini-swe-agent trajectory whose messages are text parts (as a client marking cache
/// breakpoints writes them): its task, commands, outputs and return codes are read from them.
#[test]
fn a_mini_swe_agent_trajectory_of_text_parts_imports_its_task_and_outputs() {
    let scratch = Scratch::new();
    let log = realrun("mini-swe-agent/atif-rfc-example-mini-swe-agent.json");
    let run = scratch.ptc(["import", &log.display().to_string()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let recording: Json = serde_json::from_str(&run.stdout).unwrap();
    assert!(
        recording["mission"]
            .as_str()
            .unwrap()
            .starts_with("Please solve this issue: Create a file called hello.txt"),
        "{}",
        recording["mission"]
    );
    let turns = recording["turns"].as_array().unwrap();
    assert_eq!(turns.len(), 3);
    assert_eq!(turns[1]["program"], "cat hello.txt");
    assert_eq!(
        turns[1]["prints"][0],
        "<returncode>0</returncode>\n<output>\nHello, world!\n</output>"
    );
    assert!(turns.iter().all(|t| t["success"] == true));
    assert!(recording["system_prompt"]
        .as_str()
        .unwrap()
        .starts_with("You are a helpful assistant"));
}
