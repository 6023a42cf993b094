//! `ptc import` keeps what the logs hold: mini-swe-agent's failed commands as tool calls with
//! their output and exit status, the reasoning DeepSeek was sent back as part of each request,
//! the Kernel's tool calls under the names its programs call them by and its program values
//! from whole `user=>` observations; `lacks` names what is missing, nothing more.

use std::path::PathBuf;

use serde_json::Value as Json;

use crate::support::{repo, Scratch};

fn realrun(path: &str) -> PathBuf {
    repo().join("tests/fixtures/realruns").join(path)
}

fn reasoner() -> PathBuf {
    realrun("mini-swe-agent/deepseek_reasoner_dev_pvlib__pvlib-python-1707.traj.json")
}

/// The messages of a turn's request that it adds to the previous one.
fn added(turn: &Json) -> &Vec<Json> {
    turn["request"]["messages"].as_array().unwrap()
}

/// The reasoning a DeepSeek reasoner gave is sent back with its message (litellm sends the
/// messages as the trajectory holds them, and the bill counts it): each request holds it.
#[test]
fn deepseek_reasoning_is_part_of_what_was_sent() {
    let scratch = Scratch::new();
    let path = reasoner();
    let run = scratch.ptc(["import", &path.display().to_string()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("the log lacks: nothing"),
        "{}",
        run.stderr
    );
    let recording: Json = serde_json::from_str(&run.stdout).unwrap();
    let source: Json = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let reasonings: Vec<&str> = source["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "assistant")
        .filter_map(|m| m["reasoning_content"].as_str())
        .collect();
    assert!(reasonings.len() > 2);
    let sent: Vec<&str> = recording["turns"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(added)
        .filter(|m| m["role"] == "assistant")
        .filter_map(|m| m["reasoning"].as_str())
        .collect();
    // Every response but the last is sent back with its reasoning.
    assert_eq!(sent, reasonings[..reasonings.len() - 1]);

    // Another provider: the log cannot tell whether it got the reasoning back. The requests
    // leave it out, and the recording says so.
    let other = std::fs::read_to_string(&path)
        .unwrap()
        .replace("\"deepseek/deepseek-reasoner\"", "\"openai/o4-mini\"");
    let file = scratch.write("other.traj.json", other);
    let run = scratch.ptc(["import", &file.display().to_string()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("the log lacks: sent_reasoning"),
        "{}",
        run.stderr
    );
    let recording: Json = serde_json::from_str(&run.stdout).unwrap();
    assert!(recording["turns"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(added)
        .all(|m| m.get("reasoning").is_none()));
    assert_eq!(recording["lacks"], serde_json::json!(["sent_reasoning"]));
}

/// A command that fails (a return code not 0, or the agent's exception, -1) is a tool call
/// still: its result is its output and its exit status, and the turn fails with that output.
#[test]
fn failed_commands_are_tool_calls_with_their_output_and_exit_status() {
    let scratch = Scratch::new();
    let path = reasoner();
    let recording: Json =
        serde_json::from_str(&scratch.ptc(["import", &path.display().to_string()]).ok()).unwrap();
    let source: Json = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let failing: Vec<(i64, &str)> = source["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .filter_map(|m| {
            let code = m["extra"]["returncode"].as_i64()?;
            (code != 0).then(|| (code, m["content"].as_str().unwrap()))
        })
        .collect();
    assert_eq!(failing.len(), 4, "1 exit status 1, 3 exceptions (-1)");
    let turns = recording["turns"].as_array().unwrap();
    let kept: Vec<(i64, &str)> = turns
        .iter()
        .flat_map(|t| t["tool_calls"].as_array().unwrap())
        .filter_map(|c| {
            Some((
                c["result"]["exit_status"].as_i64()?,
                c["result"]["output"].as_str()?,
            ))
        })
        .collect();
    assert_eq!(kept, failing);
    // Every response's command is a tool call, failed or not.
    assert_eq!(
        turns
            .iter()
            .map(|t| t["tool_calls"].as_array().unwrap().len())
            .sum::<usize>(),
        turns.len()
    );
    for turn in turns.iter().filter(|t| t["success"] == false) {
        let call = &turn["tool_calls"][0];
        assert_eq!(turn["error"]["reason"], "exit_status");
        assert_eq!(turn["error"]["message"], call["result"]["output"]);
        assert_eq!(turn["prints"][0], call["result"]["output"]);
    }
    let file = scratch.write("r.json", recording.to_string());
    scratch.ptc(["validate", &file.display().to_string()]).ok();
}

/// Hostile reasoning and return codes: a reasoning that is not text is no reasoning, a return
/// code that is not a number leaves the command not failed; nothing crashes.
#[test]
fn hostile_reasoning_and_return_codes_import_without_inventing() {
    let scratch = Scratch::new();
    let mut source: Json =
        serde_json::from_str(&std::fs::read_to_string(reasoner()).unwrap()).unwrap();
    for m in source["messages"].as_array_mut().unwrap() {
        if m["role"] == "assistant" {
            m["reasoning_content"] = serde_json::json!({"not": "text"});
        }
        if m["role"] == "tool" {
            m["extra"]["returncode"] = serde_json::json!("one");
            m["content"] = serde_json::json!("<returncode>x</returncode>");
        }
    }
    let file = scratch.write("hostile.traj.json", source.to_string());
    let run = scratch.ptc(["import", &file.display().to_string()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let recording: Json = serde_json::from_str(&run.stdout).unwrap();
    for turn in recording["turns"].as_array().unwrap() {
        assert!(added(turn).iter().all(|m| m.get("reasoning").is_none()));
        assert!(turn["tool_calls"][0]["result"].is_string());
    }
}
