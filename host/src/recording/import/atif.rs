//! `ptc import --from atif`: a recording from an ATIF trajectory (Agent Trajectory Interchange
//! Format, Harbor's RFC 0001, `schema_version` `ATIF-v1.0` to `ATIF-v1.7`), which many agents
//! export (Harbor, Terminal-Bench, OpenHands, Claude Code, Gemini CLI).
//!
//! The file is one JSON object: `{schema_version, agent{name, model_name?, tool_definitions?},
//! steps[]}`. A `system` step before the first `user` step is the system prompt, the first
//! `user` step's message the mission. Each `agent` step is one turn:
//!
//! - its raw response is its `message` (text, or the text of its parts, v1.6+) after its
//!   `reasoning_content`; its program is its tool calls, one per line, as `function_name` and
//!   the arguments' JSON (ATIF carries no program of its own);
//! - its tool calls are `tool_calls[]` with the `observation.results[]` that answer them (by
//!   `source_call_id`, else in order); each result's content is a printed entry;
//! - `usage` is `metrics`: `prompt_tokens` includes `cached_tokens` (the RFC says so since v1.2),
//!   so `usage.input` is their difference; a cache write, which the core schema lacks, is read
//!   from `metrics.extra.cache_creation_input_tokens` (Harbor's claude-code converter, whose
//!   `prompt_tokens` leaves it out); `cost_usd` is kept as the trajectory states it. A step
//!   repeating the metrics of the agent step before it (a converter that splits one response
//!   into several steps) gets none, so that a call is counted once;
//! - `started_at` is the step's `timestamp`.
//!
//! Each turn's request is rebuilt from the steps before it (`rebuild`): the user steps, the
//! agent steps with their tool calls, and their results as `tool` messages; the system step
//! and the tool definitions are part of the prefix inferred from the first step's bill.
//!
//! ATIF keeps neither the requests sent, nor PTC-Lisp memory and values, nor whether a tool call
//! failed (errors are text in the results), nor the turn budget: the recording says it lacks
//! them, and every turn is recorded as not failed.

use std::path::Path;

use serde_json::{json, Value as Json};

use super::counts::{cost, count, less, CountError};
use super::rebuild::rebuild_requests;
use super::{
    bad, content_text, read_json, seconds, transcript_recording, turn_budget, ImportError,
    Imported, Supplied,
};
use crate::recording::format::{Lack, RequestMessageJson, RequestToolCallJson};
use crate::recording::{ReadError, RecordingDefaults};

/// The versions read: `ATIF-v1.0` .. `ATIF-v1.7`.
pub(super) const ATIF_VERSIONS: &str = "ATIF-v1.0 to ATIF-v1.7";

/// Whether the first few KiB of a file (`prefix`) are an ATIF trajectory's: one JSON object
/// with a top-level `schema_version` naming an ATIF version. The version string anywhere else
/// (a Claude Code session whose messages talk about ATIF) is not enough.
pub(super) fn detect(prefix: &str) -> bool {
    prefix.trim_start().starts_with('{')
        && top_level_string(prefix, "schema_version").is_some_and(|v| v.starts_with("ATIF-v1."))
}

/// The string value of `key` among the top-level keys of the JSON object `prefix` opens,
/// scanning only as far as the prefix goes (the object may go on past it); none when the key
/// is not there, or its value is not a string.
fn top_level_string(prefix: &str, key: &str) -> Option<String> {
    let mut chars = prefix.trim_start().chars().peekable();
    let (mut depth, mut expect_key, mut wanted) = (0usize, false, false);
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                // A string: read it whole, escapes kept as written (keys compared are plain).
                let mut text = String::new();
                while let Some(c) = chars.next() {
                    match c {
                        '\\' => {
                            text.push(c);
                            text.push(chars.next()?);
                        }
                        '"' => break,
                        _ => text.push(c),
                    }
                }
                if depth == 1 && wanted {
                    return Some(text);
                }
                if depth == 1 && expect_key {
                    expect_key = false;
                    wanted = text == key;
                }
            }
            '{' | '[' => {
                depth += 1;
                expect_key = c == '{' && depth == 1;
                if depth > 1 && wanted {
                    return None;
                }
            }
            '}' | ']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return None;
                }
            }
            ',' if depth == 1 => {
                expect_key = true;
                if wanted {
                    return None;
                }
            }
            c if depth == 1 && wanted && !c.is_whitespace() && c != ':' => return None,
            _ => {}
        }
    }
    None
}

/// Reads the trajectory at `path` and builds the recording of its run.
pub fn atif(
    path: &Path,
    defaults: &RecordingDefaults,
    supplied: &Supplied,
) -> Result<Imported, ReadError> {
    let trajectory = read_json(path, defaults.max_recording_bytes)?;
    let version = &trajectory["schema_version"];
    let minor = version
        .as_str()
        .and_then(|v| v.strip_prefix("ATIF-v1."))
        .and_then(|m| m.parse::<u32>().ok());
    if minor.is_none_or(|m| m > 7) {
        return Err(bad(
            path,
            None,
            ImportError::AtifVersion {
                found: version.clone(),
            },
        ));
    }
    let Some(steps) = trajectory["steps"].as_array() else {
        return Err(bad(path, None, ImportError::NoSteps));
    };
    let first_user = steps.iter().position(|s| s["source"] == "user");
    let mission = match (&supplied.mission, first_user) {
        (Some(mission), _) => mission.clone(),
        (None, Some(i)) => content_text(&steps[i]["message"]),
        (None, None) => {
            return Err(bad(
                path,
                None,
                ImportError::NoMission {
                    looked_for: "the message of the first `user` step".into(),
                },
            ))
        }
    };
    let system = steps
        .iter()
        .take(first_user.unwrap_or(0))
        .find(|s| s["source"] == "system")
        .map(|s| content_text(&s["message"]));
    let mut tools: Vec<String> = trajectory["agent"]["tool_definitions"]
        .as_array()
        .map(|defs| {
            defs.iter()
                .filter_map(|d| d["function"]["name"].as_str().or(d["name"].as_str()))
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    // A tool-calling agent has no `user/` namespace and no program value: an empty memory and
    // a nil result are what happened, not something the log lost.
    let mut lacks = vec![Lack::Requests, Lack::Errors];
    let mut turns = Vec::new();
    let mut previous_metrics: Option<&Json> = None;
    // The conversation the steps hold (the system step is what the inferred prefix stands
    // for), and per agent step how many of its messages were sent before it.
    let mut messages: Vec<RequestMessageJson> = Vec::new();
    let mut sent_before = Vec::new();
    for (index, step) in steps.iter().enumerate() {
        if step["source"] == "user" {
            messages.push(message("user", content_text(&step["message"]), None));
        }
        if step["source"] != "agent" {
            previous_metrics = None;
            continue;
        }
        sent_before.push(messages.len());
        let mut sent = message("assistant", content_text(&step["message"]), None);
        let results = step["observation"]["results"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let mut program = Vec::new();
        let mut tool_calls = Vec::new();
        let mut prints = Vec::new();
        for (i, call) in step["tool_calls"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
        {
            let name = call["function_name"].as_str().unwrap_or("").to_owned();
            if !name.is_empty() && !tools.contains(&name) {
                tools.push(name.clone());
            }
            let arguments = match &call["arguments"] {
                Json::Object(_) => call["arguments"].clone(),
                Json::Null => json!({}),
                other => json!({ "value": other }),
            };
            program.push(format!("{name} {arguments}"));
            sent.tool_calls.push(RequestToolCallJson {
                id: call["tool_call_id"].as_str().map(str::to_owned),
                name: name.clone(),
                arguments: arguments.to_string(),
            });
            let id = call["tool_call_id"].as_str();
            let result = results
                .iter()
                .find(|r| id.is_some() && r["source_call_id"].as_str() == id)
                .or_else(|| results.get(i).filter(|r| r["source_call_id"].is_null()));
            let content = result
                .map(|r| content_text(&r["content"]))
                .unwrap_or_default();
            if result.is_some() {
                prints.push(content.clone());
            }
            tool_calls.push(json!({"name": name, "args": arguments, "result": content}));
        }
        messages.push(sent);
        for result in &results {
            let answers = result["source_call_id"].as_str().map(str::to_owned);
            messages.push(message("tool", content_text(&result["content"]), answers));
        }
        let mut raw = String::new();
        if let Some(reasoning) = step["reasoning_content"].as_str() {
            raw.push_str(reasoning);
            raw.push_str("\n\n");
        }
        raw.push_str(&content_text(&step["message"]));
        let mut turn = json!({
            "number": turns.len() + 1,
            "raw_response": raw,
            "program": if program.is_empty() { Json::Null } else { json!(program.join("\n")) },
            "success": true,
            "prints": prints,
            "tool_calls": tool_calls,
        });
        if let Some(at) = step["timestamp"].as_str().and_then(seconds) {
            turn["started_at"] = json!(at);
        }
        let metrics = step.get("metrics").filter(|m| m.is_object());
        let repeated = metrics.is_some() && metrics == previous_metrics;
        let counted = match metrics.filter(|_| !repeated) {
            Some(m) => usage(m, step, &format!("steps[{index}].metrics"))
                .map_err(|e| bad(path, None, e.into()))?,
            None => None,
        };
        match counted {
            Some(usage) => turn["usage"] = usage,
            None if repeated => {}
            None => {
                if !lacks.contains(&Lack::Usage) {
                    lacks.push(Lack::Usage);
                }
            }
        }
        previous_metrics = metrics;
        turns.push(turn);
    }
    if turns.is_empty() {
        return Err(bad(path, None, ImportError::NoAgentStep));
    }
    let model = trajectory["agent"]["model_name"].as_str();
    rebuild_requests(&mut turns, &messages, &sent_before, model, &mut lacks);
    let count = turns.len();
    let max_turns = turn_budget(supplied.max_turns, count, &mut lacks);
    transcript_recording(
        mission,
        max_turns,
        &tools,
        turns,
        lacks,
        system.as_deref(),
        u64::from(minor.unwrap_or(0)),
    )
}

/// A message of the rebuilt conversation.
fn message(role: &str, content: String, tool_call_id: Option<String>) -> RequestMessageJson {
    RequestMessageJson {
        role: role.to_owned(),
        content,
        tool_calls: Vec::new(),
        tool_call_id,
        reasoning: None,
    }
}

/// A step's `metrics` (at `at` in the trajectory) in ptc's convention; none without
/// `prompt_tokens`; an error naming the field when a count or the cost is not one, or the
/// cached tokens are more than the prompt that includes them.
fn usage(metrics: &Json, step: &Json, at: &str) -> Result<Option<Json>, CountError> {
    let field = |name: &str| format!("{at}.{name}");
    let Some(prompt) = count(&metrics["prompt_tokens"], &field("prompt_tokens"))? else {
        return Ok(None);
    };
    let cached = count(&metrics["cached_tokens"], &field("cached_tokens"))?.unwrap_or(0);
    let written = count(
        &metrics["extra"]["cache_creation_input_tokens"],
        &field("extra.cache_creation_input_tokens"),
    )?;
    let output = count(&metrics["completion_tokens"], &field("completion_tokens"))?;
    let uncached = less(
        (prompt, &field("prompt_tokens")),
        &[(cached, &field("cached_tokens"))],
    )?;
    let mut usage = json!({
        "input": uncached,
        "cache_read": cached,
        "cache_write_5m": written.unwrap_or(0),
        "output": output.unwrap_or(0),
    });
    if let Some(cost) = cost(&metrics["cost_usd"], &field("cost_usd"))? {
        usage["cost_usd"] = json!(cost);
    }
    if let Some(model) = step["model_name"].as_str() {
        usage["model"] = json!(model);
    }
    Ok(Some(usage))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cached_tokens_are_part_of_the_prompt_and_a_write_is_apart() {
        let u = usage(
            &json!({"prompt_tokens": 1000, "cached_tokens": 800, "completion_tokens": 5, "cost_usd": 0.01, "extra": {"cache_creation_input_tokens": 40}}),
            &json!({}),
            "m",
        )
        .unwrap()
        .unwrap();
        assert_eq!(u["input"], 200);
        assert_eq!(u["cache_read"], 800);
        assert_eq!(u["cache_write_5m"], 40);
        assert_eq!(u["cost_usd"], 0.01);
        assert!(usage(
            &json!({"prompt_tokens": 10, "cached_tokens": 11}),
            &json!({}),
            "m"
        )
        .is_err());
    }

    #[test]
    fn a_message_of_parts_reads_as_its_text() {
        assert_eq!(
            content_text(
                &json!([{"type": "text", "text": "a"}, {"type": "image"}, {"type": "text", "text": "b"}])
            ),
            "a\nb"
        );
        assert_eq!(content_text(&json!("s")), "s");
    }
}
