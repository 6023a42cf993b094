//! `ptc import` of Codex CLI rollouts: each session detected and imported as one run, a turn
//! per call to the model with the tokens OpenAI reported (repeated counts not counted twice),
//! redacted texts kept as their markers, each call's request rebuilt from the conversation
//! (across a compaction), and hostile rollouts refused with the file, the line and the field.

use std::path::PathBuf;

use serde_json::Value as Json;

use crate::support::{repo, Scratch};

fn rollout(name: &str) -> PathBuf {
    repo()
        .join("tests/fixtures/realruns/codex")
        .join(format!("rollout-2026-02-23T{name}.jsonl"))
}

/// The sum of one usage field over every turn of a recording.
fn sum(recording: &Json, field: &str) -> u64 {
    recording["turns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["usage"][field].as_u64().unwrap_or(0))
        .sum()
}

/// Every session gives one run: a turn per call, its billed tokens those of the session's
/// `token_count` events. Computed from the rollouts themselves, counting a `token_count` as a
/// call when its `total_token_usage` differs from the one before (Codex repeats the count when
/// only the rate limits change), and checking each total is the one before plus the call's:
///   python3 -c 'import json, sys; prev = None; calls = []
///   for l in open(sys.argv[1]):
///       r = json.loads(l); p = r["payload"]
///       if r["type"] == "event_msg" and p["type"] == "token_count" and p["info"]:
///           t = p["info"]["total_token_usage"]
///           if t != prev: calls.append(p["info"]["last_token_usage"]); prev = t
///   print(len(calls), *(sum(c[k] for c in calls) for k in
///         ("input_tokens", "cached_input_tokens", "output_tokens")))' ROLLOUT
/// The uncached input is input_tokens less cached_input_tokens.
#[test]
fn a_codex_session_imports_a_turn_per_call_with_its_billed_tokens() {
    let scratch = Scratch::new();
    // (rollout, calls, tool calls, uncached input, cached input, output)
    let sessions = [
        (
            "12-40-23-019c8a4c",
            81,
            105,
            7_204_025 - 6_836_352,
            6_836_352,
            36_075,
        ),
        (
            "12-54-34-019c8a59",
            286,
            372,
            33_810_485 - 31_621_504,
            31_621_504,
            133_999,
        ),
        ("13-19-38-019c8a70", 1, 1, 34_469 - 3_456, 3_456, 431),
        ("20-34-25-019c8bfe", 6, 5, 298_373 - 238_848, 238_848, 1_123),
    ];
    for (name, calls, tool_calls, input, cached, output) in sessions {
        let path = rollout(name);
        let run = scratch.ptc(["import", &path.display().to_string()]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert!(
            run.stderr.contains(&format!(
                "(codex): {calls} turn(s), {tool_calls} tool call(s), {calls} call(s) with billed usage; requests rebuilt from the conversation, with an inferred prefix of "
            )),
            "{name}: {}",
            run.stderr
        );
        let recording: Json = serde_json::from_str(&run.stdout).unwrap();
        assert_eq!(
            recording["turns"].as_array().unwrap().len(),
            calls,
            "{name}"
        );
        assert_eq!(sum(&recording, "input"), input, "{name}");
        assert_eq!(sum(&recording, "cache_read"), cached, "{name}");
        assert_eq!(sum(&recording, "cache_write_5m"), 0, "{name}");
        assert_eq!(sum(&recording, "output"), output, "{name}");
        let first = &recording["turns"][0];
        assert_eq!(first["usage"]["provider"], "openai", "{name}");
        assert_eq!(first["usage"]["model"], "gpt-5.3-codex", "{name}");
        assert!(
            first["usage"].get("cost_usd").is_none(),
            "no cost is stated"
        );
        // No request is logged: each is rebuilt, after the same inferred prefix.
        let prefix = first["request"]["inferred_prefix_tokens"].as_u64().unwrap();
        for turn in recording["turns"].as_array().unwrap() {
            assert_eq!(turn["request"]["rebuilt"], true, "{name}");
            assert_eq!(turn["request"]["inferred_prefix_tokens"], prefix, "{name}");
        }
        assert!(first["started_at"].as_f64().is_some(), "{name}");
    }
}

/// The texts of the published rollouts are redaction markers: kept as written, never filled
/// in; redacted instructions are no system prompt and redacted outputs no results, and the
/// recording says so. The rebuilt requests hold the markers as written; the prefix inferred
/// from the bill stands for the instructions and tool schemas, so neither is lacked.
#[test]
fn redacted_texts_stay_markers_and_the_recording_lacks_what_they_hid() {
    let scratch = Scratch::new();
    let path = rollout("20-34-25-019c8bfe");
    let run = scratch.ptc(["import", &path.display().to_string()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let recording: Json = serde_json::from_str(&run.stdout).unwrap();
    let lacks: Vec<&str> = recording["lacks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    for lack in ["requests", "system_prompt"] {
        assert!(!lacks.contains(&lack), "{lack}: {lacks:?}");
    }
    for lack in ["tool_results", "prints", "errors", "max_turns"] {
        assert!(lacks.contains(&lack), "{lack}: {lacks:?}");
    }
    assert!(recording.get("system_prompt").is_none());
    assert_eq!(
        recording["mission"],
        "[REDACTED_MESSAGE len=98 sha=c002ff99]"
    );
    let first = &recording["turns"][0];
    assert_eq!(
        first["raw_response"],
        "[REDACTED_TEXT len=32 sha=beedaecc]\n\n[REDACTED_TEXT len=156 sha=2a40230f]"
    );
    let call = &first["tool_calls"][0];
    assert_eq!(call["name"], "mcp__cloud-associates__search_workflows");
    assert_eq!(
        call["args"]["arguments"],
        "[REDACTED_ARGUMENTS len=46 sha=4cb9a2fc]"
    );
    assert_eq!(call["result"], "[REDACTED_OUTPUT len=4215 sha=9a9d94de]");
    let second = &recording["turns"][1]["request"];
    let output = &second["messages"][1];
    assert_eq!(output["role"], "tool");
    assert_eq!(output["content"], "[REDACTED_OUTPUT len=4215 sha=9a9d94de]");
    assert_eq!(
        second["messages"][0]["tool_calls"][0]["arguments"],
        "[REDACTED_ARGUMENTS len=46 sha=4cb9a2fc]"
    );
    // The request of the first call was sent at its `turn_context`, before the response.
    assert_eq!(first["started_at"].as_f64().unwrap(), 1_771_875_273.389);
    assert!(
        run.stderr.contains("are redaction markers"),
        "{}",
        run.stderr
    );
}

/// A compaction replaces the conversation: its own call is not one the log counts (its
/// `token_count` repeats the total, with a zero per-call usage), and the calls after it are
/// turns of the same run.
#[test]
fn a_compacted_session_counts_each_call_once_across_the_compaction() {
    let scratch = Scratch::new();
    let path = rollout("12-54-34-019c8a59");
    let text = std::fs::read_to_string(&path).unwrap();
    let compacted = text
        .lines()
        .position(|l| l.contains("\"type\":\"compacted\""))
        .unwrap();
    // Cut right after the compaction: the calls before it, and none for the compaction.
    let before: String = text
        .lines()
        .take(compacted + 1)
        .map(|l| format!("{l}\n"))
        .collect();
    let cut = scratch.write("before.jsonl", &before);
    let whole: Json =
        serde_json::from_str(&scratch.ptc(["import", &path.display().to_string()]).ok()).unwrap();
    let head: Json =
        serde_json::from_str(&scratch.ptc(["import", &cut.display().to_string()]).ok()).unwrap();
    let turns = |r: &Json| r["turns"].as_array().unwrap().len();
    // From the rollout: 184 distinct counts before the compaction record, 286 in all.
    assert_eq!((turns(&head), turns(&whole)), (184, 286));
    let after = &whole["turns"][184];
    assert_eq!(after["usage"]["input"], 48_297 - 22_912);
    assert_eq!(after["usage"]["cache_read"], 22_912);
    // The compaction's repeated count (zero tokens) is no turn.
    assert!(whole["turns"]
        .as_array()
        .unwrap()
        .iter()
        .all(|t| t["usage"]["input"].as_u64().unwrap()
            + t["usage"]["cache_read"].as_u64().unwrap()
            > 0));
    // The first request after it repeats nothing: it sends the replacement history.
    let request = &after["request"];
    assert!(request.get("repeats").is_none(), "{request}");
    let messages = request["messages"].as_array().unwrap();
    assert_eq!(messages[0]["role"], "user");
    assert_eq!(
        messages[0]["content"],
        "[REDACTED_TEXT len=32 sha=821fd802]"
    );
    assert!(whole["turns"][185]["request"]["repeats"].as_u64().unwrap() >= messages.len() as u64);
}

/// A rollout imports to a recording that `validate` accepts, and `bill` compares each call's
/// billed usage with the simulation of its rebuilt request, saying it is rebuilt.
#[test]
fn an_imported_rollout_validates_and_bill_compares_its_rebuilt_requests() {
    let scratch = Scratch::new();
    let out = scratch.path().join("codex.json");
    scratch
        .ptc([
            "import",
            &rollout("20-34-25-019c8bfe").display().to_string(),
            "-o",
            &out.display().to_string(),
        ])
        .ok();
    scratch.ptc(["validate", &out.display().to_string()]).ok();
    let bill = scratch.ptc(["bill", &out.display().to_string()]).ok();
    assert!(
        bill.contains("note: the as-sent baseline is rebuilt")
            && bill.contains("rollout-2026-02-23T20-34-25-019c8bfe.jsonl: inferred prefix of "),
        "{bill}"
    );
}

/// Hostile rollouts: one error naming the file, the line and the field; exit 2; nothing
/// written.
#[test]
fn hostile_codex_rollouts_are_refused_naming_the_file_the_line_and_the_field() {
    let scratch = Scratch::new();
    let real = std::fs::read_to_string(rollout("20-34-25-019c8bfe")).unwrap();
    let out = scratch.path().join("out.json");
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
    let count = real.lines().count();
    let cut = scratch.write("cut.jsonl", &real[..real.len() - 40]);
    let err = refused(&cut, &[]);
    assert!(
        err.contains(&format!("cannot import {}:{count}", cut.display())),
        "{err}"
    );
    // The first call's count: line 18 of the rollout.
    let first = "\"last_token_usage\":{\"input_tokens\":42772,\"cached_input_tokens\":3456";
    assert_eq!(real.lines().nth(17).map(|l| l.contains(first)), Some(true));
    for (bad, field) in [
        ("\"cached_input_tokens\":-3456", "`payload.info.last_token_usage.cached_input_tokens` is -3456, not a count of tokens"),
        ("\"cached_input_tokens\":\"3456\"", "`payload.info.last_token_usage.cached_input_tokens` is \"3456\", not a count of tokens"),
        ("\"cached_input_tokens\":34.5", "`payload.info.last_token_usage.cached_input_tokens` is 34.5, not a count of tokens"),
        ("\"cached_input_tokens\":99999", "the cached tokens (99999, `cached_input_tokens` and `cache_write_input_tokens`) are more than `input_tokens` (42772)"),
    ] {
        let changed = real.replacen(
            first,
            &format!("\"last_token_usage\":{{\"input_tokens\":42772,{bad}"),
            1,
        );
        let file = scratch.write("bad.jsonl", changed);
        let err = refused(&file, &[]);
        assert!(err.contains(&format!("{}:18: {field}", file.display())), "{err}");
    }
    let negative = real.replacen(
        first,
        "\"last_token_usage\":{\"input_tokens\":-1,\"cached_input_tokens\":3456",
        1,
    );
    let file = scratch.write("negative.jsonl", negative);
    let err = refused(&file, &[]);
    assert!(
        err.contains("`payload.info.last_token_usage.input_tokens` is -1"),
        "{err}"
    );
    // A line that is not a rollout line.
    let mixed = scratch.write(
        "mixed.jsonl",
        format!("{}\n[1, 2]\n", real.lines().next().unwrap()),
    );
    let err = refused(&mixed, &[]);
    assert!(
        err.contains(&format!("{}:2", mixed.display()))
            && err.contains("not a line of a Codex rollout"),
        "{err}"
    );
    // Only the session's opening: nothing the model did.
    let opening: String = real.lines().take(10).map(|l| format!("{l}\n")).collect();
    let file = scratch.write("opening.jsonl", opening);
    let err = refused(&file, &[]);
    assert!(err.contains("no response of the model"), "{err}");
}

/// Detection: a rollout is told from its first line, and the other formats' logs are not
/// taken for rollouts (their own tests import them detected).
#[test]
fn a_rollout_is_detected_and_other_logs_are_not_taken_for_one() {
    let scratch = Scratch::new();
    // A rollout whose opening texts mention another format's marks is still a rollout.
    let real = std::fs::read_to_string(rollout("13-19-38-019c8a70")).unwrap();
    let confusing = real.replacen(
        "[REDACTED_TEXT len=13131",
        "ATIF-v1.5 trajectory_format mini-swe-agent [REDACTED_TEXT len=13131",
        1,
    );
    let file = scratch.write("confusing.jsonl", confusing);
    let run = scratch.ptc(["import", &file.display().to_string()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.contains("(codex): 1 turn(s)"), "{}", run.stderr);
    for other in [
        "claude-code/session-5c0375b4.jsonl",
        "openhands/derived-output.jsonl",
        "ptc_runner-kernel/checkout-5xx-9.inspection.jsonl",
    ] {
        let path = repo().join("tests/fixtures/realruns").join(other);
        let run = scratch.ptc(["import", &path.display().to_string()]);
        assert_eq!(run.code, 0, "{other}: {}", run.stderr);
        assert!(!run.stderr.contains("(codex"), "{other}: {}", run.stderr);
    }
}

/// A rollout as Codex writes it unredacted (made for this test in the shape of the real ones):
/// the base instructions are the system prompt, an output's exit code fails its turn, a
/// `local_shell_call` is a tool call with its action, and a response cut short (items after
/// the last count) is a turn without usage.
#[test]
fn an_unredacted_rollout_keeps_its_instructions_and_reads_exit_codes() {
    let scratch = Scratch::new();
    let count = |input: u64, cached: u64, output: u64, total: u64| {
        format!(
            r#"{{"timestamp":"2026-02-23T10:00:0{total}.000Z","type":"event_msg","payload":{{"type":"token_count","info":{{"total_token_usage":{{"input_tokens":{total}00,"cached_input_tokens":0,"output_tokens":{total},"reasoning_output_tokens":0,"total_tokens":0}},"last_token_usage":{{"input_tokens":{input},"cached_input_tokens":{cached},"output_tokens":{output},"reasoning_output_tokens":1,"total_tokens":0}},"model_context_window":258400}},"rate_limits":null}}}}"#
        )
    };
    let lines = [
        r#"{"timestamp":"2026-02-23T10:00:00.000Z","type":"session_meta","payload":{"id":"s","cli_version":"0.104.0","model_provider":"openai","base_instructions":{"text":"You are Codex."}}}"#.to_owned(),
        r#"{"timestamp":"2026-02-23T10:00:00.100Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>cwd</environment_context>"}]}}"#.to_owned(),
        r#"{"timestamp":"2026-02-23T10:00:00.200Z","type":"event_msg","payload":{"type":"user_message","message":"Fix the build.","images":[]}}"#.to_owned(),
        r#"{"timestamp":"2026-02-23T10:00:00.500Z","type":"turn_context","payload":{"cwd":"/w","model":"gpt-5.3-codex"}}"#.to_owned(),
        r#"{"timestamp":"2026-02-23T10:00:01.000Z","type":"response_item","payload":{"type":"reasoning","summary":[{"type":"summary_text","text":"Run make."}],"content":null,"encrypted_content":"gAAA"}}"#.to_owned(),
        r#"{"timestamp":"2026-02-23T10:00:01.100Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"make\"}","call_id":"c1"}}"#.to_owned(),
        count(1000, 0, 20, 1),
        r#"{"timestamp":"2026-02-23T10:00:01.300Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"Chunk ID: 1\nProcess exited with code 2\nOutput:\nmake: *** no rule"}}"#.to_owned(),
        count(1000, 0, 20, 1),
        r#"{"timestamp":"2026-02-23T10:00:02.000Z","type":"turn_context","payload":{"cwd":"/w","model":"gpt-5.3-codex"}}"#.to_owned(),
        r#"{"timestamp":"2026-02-23T10:00:02.500Z","type":"response_item","payload":{"type":"local_shell_call","call_id":"c2","status":"completed","action":{"type":"exec","command":["ls"]}}}"#.to_owned(),
        count(1100, 1024, 10, 2),
        r#"{"timestamp":"2026-02-23T10:00:03.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c2","output":"{\"output\":\"Makefile\\n\",\"metadata\":{\"exit_code\":0,\"duration_seconds\":0.1}}"}}"#.to_owned(),
        r#"{"timestamp":"2026-02-23T10:00:04.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"The Makefile has"}]}}"#.to_owned(),
    ];
    let file = scratch.write("rollout.jsonl", lines.join("\n") + "\n");
    let run = scratch.ptc(["import", &file.display().to_string()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("(codex): 3 turn(s), 2 tool call(s), 2 call(s) with billed usage; requests rebuilt from the conversation, with an inferred prefix of "),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("the log lacks: usage, max_turns\n"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("redaction markers"), "{}", run.stderr);
    let recording: Json = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(recording["system_prompt"], "You are Codex.");
    assert_eq!(recording["mission"], "Fix the build.");
    let turns = recording["turns"].as_array().unwrap();
    // The failed command: its exit code fails the turn, its output is the error.
    assert_eq!(turns[0]["raw_response"], "Run make.");
    assert_eq!(turns[0]["program"], r#"exec_command {"cmd":"make"}"#);
    assert_eq!(turns[0]["tool_calls"][0]["args"]["cmd"], "make");
    assert_eq!(turns[0]["success"], false);
    assert!(turns[0]["error"]["message"]
        .as_str()
        .unwrap()
        .contains("Process exited with code 2"));
    assert_eq!(turns[0]["started_at"].as_f64().unwrap(), 1_771_840_800.5);
    assert_eq!(turns[0]["usage"]["input"], 1000);
    // The shell call's JSON output states its exit code 0.
    assert_eq!(turns[1]["success"], true);
    assert_eq!(turns[1]["tool_calls"][0]["name"], "local_shell_call");
    assert_eq!(turns[1]["tool_calls"][0]["args"]["command"][0], "ls");
    assert_eq!(
        (
            &turns[1]["usage"]["input"],
            &turns[1]["usage"]["cache_read"]
        ),
        (&Json::from(76), &Json::from(1024))
    );
    // Cut short: the model's last message has no count.
    assert_eq!(turns[2]["raw_response"], "The Makefile has");
    assert!(turns[2].get("usage").is_none());
    // Each request is the conversation before its response, in OpenAI's chat messages: the
    // reasoning is left out, a call is the assistant's, its output a `tool` message.
    let first = &turns[0]["request"];
    assert_eq!(first["messages"].as_array().unwrap().len(), 1);
    assert_eq!(first["messages"][0]["role"], "user");
    let prefix = first["inferred_prefix_tokens"].as_u64().unwrap();
    assert!(prefix > 980 && prefix < 1000, "{prefix}");
    let second = &turns[1]["request"];
    assert_eq!(second["repeats"], 1);
    assert_eq!(second["messages"][0]["role"], "assistant");
    let call = &second["messages"][0]["tool_calls"][0];
    assert_eq!(
        (&call["name"], &call["arguments"], &call["id"]),
        (
            &Json::from("exec_command"),
            &Json::from(r#"{"cmd":"make"}"#),
            &Json::from("c1")
        )
    );
    assert_eq!(second["messages"][1]["tool_call_id"], "c1");
    assert_eq!(turns[2]["request"]["repeats"], 3);
    assert_eq!(turns[2]["request"]["messages"][1]["role"], "tool");
}
