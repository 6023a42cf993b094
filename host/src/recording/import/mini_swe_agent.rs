//! `ptc import --from mini-swe-agent`: a recording from a mini-swe-agent trajectory
//! (`*.traj.json`, `trajectory_format` `mini-swe-agent-1.1`: tool calling, one `bash` tool).
//!
//! The file is one JSON object: `{trajectory_format, instance_id, info{config{agent{step_limit},
//! model{model_name}}}, messages[]}`. `messages[0]` is the system prompt, the first `user`
//! message the task. Each `assistant` message is one call to the model, so one turn:
//!
//! - the program is the shell commands of its `bash` tool calls, one per line; the raw response
//!   is its text, after its `reasoning_content` when the model gave one;
//! - the tool calls are those calls, each with its `command` and, as its result, the `tool`
//!   message answering it; each result is one printed entry;
//! - the turn failed when a command's `returncode` is not 0 (its output is the error), or when
//!   the response made no tool call (the `user` message after it says why);
//! - `request` is every message before it, as sent; `usage` is `extra.response.usage` in ptc's
//!   convention: DeepSeek's `prompt_cache_hit_tokens` are the cache reads and its
//!   `prompt_cache_miss_tokens` the rest (other providers: `prompt_tokens_details.cached_tokens`
//!   of `prompt_tokens`); no cost is kept, because `extra.cost` is litellm's computation at list
//!   price, not a bill;
//! - `started_at` is `extra.timestamp`, when the response arrived (the log's only time of a
//!   call).
//!
//! A trajectory keeps no PTC-Lisp memory and no program value: the recording says it lacks them.

use std::path::Path;

use serde_json::{json, Value as Json};

use super::{
    bad, read_json, reads_back, request_message, turn_budget, ImportError, Imported, Losses,
    Supplied,
};
use crate::recording::format::{Lack, RequestJson, RequestToolCallJson};
use crate::recording::{ReadError, RecordingDefaults};

/// The trajectory format read.
pub(super) const TRAJECTORY_FORMAT: &str = "mini-swe-agent-1.1";

/// Whether a file whose first and last few KiB are `prefix` and `suffix` is a mini-swe-agent
/// trajectory: one JSON object naming its `trajectory_format` (written first or last).
pub(super) fn detect(prefix: &str, suffix: &str) -> bool {
    let names =
        |text: &str| text.contains("\"trajectory_format\"") && text.contains("\"mini-swe-agent");
    prefix.trim_start().starts_with('{') && (names(prefix) || names(suffix))
}

/// Reads the trajectory at `path` and builds the recording of its run.
pub fn mini_swe_agent(
    path: &Path,
    defaults: &RecordingDefaults,
    supplied: &Supplied,
) -> Result<Imported, ReadError> {
    let trajectory = read_json(path)?;
    let format = &trajectory["trajectory_format"];
    if format != TRAJECTORY_FORMAT {
        return Err(bad(
            path,
            None,
            ImportError::TrajectoryFormat {
                found: format.clone(),
            },
        ));
    }
    let Some(messages) = trajectory["messages"].as_array() else {
        return Err(bad(path, None, ImportError::NoMessages));
    };
    let model = trajectory["info"]["config"]["model"]["model_name"]
        .as_str()
        .map(str::to_owned);
    let provider = model
        .as_deref()
        .and_then(|m| m.split_once('/'))
        .map(|(provider, _)| provider.to_owned());
    let mission = match &supplied.mission {
        Some(mission) => mission.clone(),
        None => messages
            .iter()
            .find(|m| m["role"] == "user")
            .and_then(|m| m["content"].as_str())
            .map(str::to_owned)
            .ok_or_else(|| {
                bad(
                    path,
                    None,
                    ImportError::NoMission {
                        looked_for: "the first user message".into(),
                    },
                )
            })?,
    };
    let mut lacks = vec![Lack::MemoryValues, Lack::Results];
    let mut turns = Vec::new();
    for (at, message) in messages.iter().enumerate() {
        if message["role"] != "assistant" {
            continue;
        }
        let number = turns.len() + 1;
        let calls = message["tool_calls"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let mut commands = Vec::new();
        let mut tool_calls = Vec::new();
        let mut prints = Vec::new();
        let mut failed: Option<String> = None;
        for call in &calls {
            let id = call["id"].as_str();
            let arguments: Json = call["function"]["arguments"]
                .as_str()
                .and_then(|a| serde_json::from_str(a).ok())
                .unwrap_or(Json::Null);
            let command = arguments["command"].as_str().unwrap_or("").to_owned();
            let answer = messages[at + 1..]
                .iter()
                .take_while(|m| m["role"] == "tool")
                .find(|m| m["tool_call_id"].as_str() == id);
            let output = answer
                .and_then(|m| m["content"].as_str())
                .unwrap_or("")
                .to_owned();
            let code = answer.and_then(|m| m["extra"]["returncode"].as_i64());
            if code.is_some_and(|c| c != 0) && failed.is_none() {
                failed = Some(output.clone());
            }
            commands.push(command.clone());
            prints.push(output.clone());
            tool_calls.push(json!({
                "name": call["function"]["name"].as_str().unwrap_or("bash"),
                "args": {"command": command},
                "result": output,
            }));
        }
        let mut raw = String::new();
        if let Some(reasoning) = message["reasoning_content"].as_str() {
            raw.push_str(reasoning);
            raw.push_str("\n\n");
        }
        raw.push_str(message["content"].as_str().unwrap_or(""));
        let error = if calls.is_empty() {
            let why = messages
                .get(at + 1)
                .filter(|m| m["role"] == "user")
                .and_then(|m| m["content"].as_str())
                .unwrap_or("the response made no tool call");
            Some(json!({"reason": "format_error", "message": why}))
        } else {
            failed.map(|output| json!({"reason": "exit_status", "message": output}))
        };
        let mut turn = json!({
            "number": number,
            "raw_response": raw,
            "program": if commands.is_empty() { Json::Null } else { json!(commands.join("\n")) },
            "success": error.is_none(),
            "prints": if error.is_none() { json!(prints) } else { json!([]) },
            "tool_calls": if error.is_none() { json!(tool_calls) } else { json!([]) },
            "request": request(&messages[..at], model.clone()),
        });
        if let Some(error) = error {
            turn["error"] = error;
        }
        if let Some(at) = message["extra"]["timestamp"].as_f64().filter(|t| *t >= 0.0) {
            turn["started_at"] = json!(at);
        }
        match usage(
            &message["extra"]["response"]["usage"],
            provider.as_deref(),
            model.as_deref(),
        ) {
            Some(usage) => turn["usage"] = usage,
            None => {
                if !lacks.contains(&Lack::Usage) {
                    lacks.push(Lack::Usage);
                }
            }
        }
        turns.push(turn);
    }
    if turns.is_empty() {
        return Err(bad(path, None, ImportError::NoModelCall));
    }
    let count = turns.len();
    let step_limit = trajectory["info"]["config"]["agent"]["step_limit"]
        .as_u64()
        .filter(|&n| n > 0)
        .and_then(|n| u32::try_from(n).ok());
    let max_turns = turn_budget(supplied.max_turns.or(step_limit), count, &mut lacks);
    let mut recording = json!({
        "mission": mission,
        "max_turns": max_turns,
        "tools": [{"name": "bash", "description": "Run a shell command"}],
        "turns": turns,
        "lacks": lacks,
    });
    if let Some(system) = messages
        .first()
        .filter(|m| m["role"] == "system")
        .and_then(|m| m["content"].as_str())
    {
        recording["system_prompt"] = json!(system);
    }
    reads_back(path, &recording, defaults)?;
    Ok(Imported {
        json: recording,
        turns: count,
        losses: Losses::default(),
        version: 1,
        default_max_turns: false,
    })
}

/// The messages sent before a response, as sent.
fn request(before: &[Json], model: Option<String>) -> Json {
    // A tool call as litellm gives it: `{id, function{name, arguments}}`, the arguments as text.
    let messages = before
        .iter()
        .map(|m| {
            request_message(m, |c| RequestToolCallJson {
                id: c["id"].as_str().map(str::to_owned),
                name: c["function"]["name"].as_str().unwrap_or("").to_owned(),
                arguments: c["function"]["arguments"].as_str().unwrap_or("").to_owned(),
            })
        })
        .collect();
    serde_json::to_value(RequestJson {
        model,
        system: None,
        messages,
        tools: None,
    })
    .expect("a request serializes")
}

/// litellm's usage of one response in ptc's convention; none without token counts.
fn usage(usage: &Json, provider: Option<&str>, model: Option<&str>) -> Option<Json> {
    let prompt = usage["prompt_tokens"].as_u64()?;
    let (read, uncached) = match (
        usage["prompt_cache_hit_tokens"].as_u64(),
        usage["prompt_cache_miss_tokens"].as_u64(),
    ) {
        // DeepSeek: hit + miss = prompt.
        (Some(hit), Some(miss)) if hit.checked_add(miss) == Some(prompt) => (hit, miss),
        _ => {
            let cached = usage["prompt_tokens_details"]["cached_tokens"]
                .as_u64()
                .unwrap_or(0);
            (cached, prompt.checked_sub(cached)?)
        }
    };
    let mut out = json!({
        "input": uncached,
        "cache_read": read,
        "output": usage["completion_tokens"].as_u64().unwrap_or(0),
    });
    if let Some(provider) = provider {
        out["provider"] = json!(provider);
    }
    if let Some(model) = model {
        out["model"] = json!(model);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deepseek_hits_are_the_cache_reads_and_no_cost_is_kept() {
        let u = usage(
            &json!({"prompt_tokens": 1995, "completion_tokens": 93, "prompt_cache_hit_tokens": 320, "prompt_cache_miss_tokens": 1675, "prompt_tokens_details": {"cached_tokens": 320}}),
            Some("deepseek"),
            None,
        )
        .unwrap();
        assert_eq!(
            (u["input"].as_u64(), u["cache_read"].as_u64()),
            (Some(1675), Some(320))
        );
        assert!(u.get("cost_usd").is_none());
        let other = usage(
            &json!({"prompt_tokens": 100, "prompt_tokens_details": {"cached_tokens": 64}}),
            None,
            None,
        )
        .unwrap();
        assert_eq!(
            (other["input"].as_u64(), other["cache_read"].as_u64()),
            (Some(36), Some(64))
        );
        assert!(usage(
            &json!({"prompt_tokens": 10, "prompt_tokens_details": {"cached_tokens": 11}}),
            None,
            None
        )
        .is_none());
    }
}
