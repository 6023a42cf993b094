//! What a log's format is taken for, and how its responses are counted, when the log is not
//! quite as its agent usually writes it: a byte-order mark, another format's name in a message,
//! a pipe, Claude Code lines without their ids.

use std::path::{Path, PathBuf};

use serde_json::Value as Json;

use crate::support::{repo, Scratch};

fn fixture(path: &str) -> PathBuf {
    repo().join("tests/fixtures/realruns").join(path)
}

fn s(path: &Path) -> String {
    path.display().to_string()
}

#[test]
fn a_byte_order_mark_before_a_single_json_log_does_not_defeat_detection() {
    let scratch = Scratch::new();
    for (dir, log) in [
        ("mini-swe-agent", "derived-text-format-1.traj.json"),
        ("atif", "harbor-golden-openhands-hello-world.json"),
        ("openhands", "atif-rfc-example-openhands_trajectory.json"),
    ] {
        let bytes = std::fs::read(fixture(&format!("{dir}/{log}"))).unwrap();
        let plain = scratch.write(&format!("plain/{log}"), &bytes);
        let marked = scratch.write(
            &format!("marked/{log}"),
            [&b"\xef\xbb\xbf"[..], &bytes].concat(),
        );
        let expected = scratch.ptc(["import", &s(&plain)]).ok();
        let run = scratch.ptc(["import", &s(&marked)]);
        assert_eq!(run.code, 0, "{log}: {}", run.stderr);
        assert_eq!(run.stdout, expected, "{log}");
    }
}

#[test]
fn a_claude_code_session_that_mentions_atif_in_a_message_is_still_claude_code() {
    let scratch = Scratch::new();
    let text = std::fs::read_to_string(fixture("claude-code/session-5c0375b4.jsonl")).unwrap();
    let (first, rest) = text.split_once('\n').unwrap();
    let mut first: Json = serde_json::from_str(first).unwrap();
    let content = first["message"]["content"].as_str().unwrap().to_owned();
    first["message"]["content"] = Json::from(format!(
        "{content} (the logs are \"ATIF-v1.5\" trajectories)"
    ));
    let log = scratch.write("session.jsonl", format!("{first}\n{rest}"));
    let run = scratch.ptc(["import", "-q", &s(&log)]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let forced = scratch
        .ptc(["import", "-q", "--from", "claude-code", &s(&log)])
        .ok();
    assert_eq!(run.stdout, forced);
}

/// The sum of every number under a `usage` key of the recordings `jsonl` holds, and how many
/// `usage` objects there are.
fn usage_totals(jsonl: &str) -> (u64, usize) {
    fn walk(value: &Json, inside: bool, totals: &mut (u64, usize)) {
        match value {
            Json::Object(map) => {
                for (key, value) in map {
                    if key == "usage" && value.is_object() {
                        totals.1 += 1;
                    }
                    walk(value, inside || key == "usage", totals);
                }
            }
            Json::Array(items) => items.iter().for_each(|v| walk(v, inside, totals)),
            Json::Number(n) if inside => totals.0 += n.as_u64().unwrap_or(0),
            _ => {}
        }
    }
    let mut totals = (0, 0);
    for line in jsonl.lines().filter(|l| !l.trim().is_empty()) {
        walk(&serde_json::from_str(line).unwrap(), false, &mut totals);
    }
    totals
}

#[test]
fn claude_code_lines_without_ids_that_repeat_a_usage_count_as_one_response() {
    let scratch = Scratch::new();
    let text = std::fs::read_to_string(fixture("claude-code/session-5c0375b4.jsonl")).unwrap();
    let mut stripped = String::new();
    for line in text.lines() {
        let mut record: Json = serde_json::from_str(line).unwrap();
        if let Some(map) = record.as_object_mut() {
            map.remove("requestId");
        }
        if let Some(message) = record["message"].as_object_mut() {
            message.remove("id");
        }
        stripped.push_str(&format!("{record}\n"));
    }
    let original = scratch.write("with-ids/session.jsonl", &text);
    let without = scratch.write("without-ids/session.jsonl", stripped);
    let out = scratch.path().join("with.jsonl");
    scratch
        .ptc(["import", "-q", &s(&original), "-o", &s(&out)])
        .ok();
    let expected = usage_totals(&std::fs::read_to_string(&out).unwrap());
    let out = scratch.path().join("without.jsonl");
    scratch
        .ptc(["import", "-q", &s(&without), "-o", &s(&out)])
        .ok();
    let got = usage_totals(&std::fs::read_to_string(&out).unwrap());
    assert!(expected.1 > 0, "the session holds billed responses");
    assert_eq!(got, expected, "(tokens, responses) without ids and with");
}

#[test]
fn a_log_piped_without_its_format_is_refused_not_imported_in_part() {
    let scratch = Scratch::new();
    let log = std::fs::read(fixture("claude-code/session-5c0375b4.jsonl")).unwrap();
    let mut child = crate::support::ptc_command(scratch.path())
        .args(["import", "/dev/stdin"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        let _ = stdin.write_all(&log);
    });
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(output.stdout.is_empty(), "nothing imported");
    assert!(stderr.contains("--from"), "{stderr}");
}
