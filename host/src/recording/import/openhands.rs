//! `ptc import --from openhands`: recordings from OpenHands runs, in either of the shapes it
//! writes: an event trajectory (a JSON list of events, as saved or replayed) or an evaluation's
//! `output.jsonl` (one run per line: `{instance_id, instruction, metadata{max_iterations,
//! llm_config{model}}, history[events]}`; an older `history` of `[action, observation]` pairs
//! is read too).
//!
//! An event is an action (`{id, timestamp, source, action, args, tool_call_metadata?}`) or an
//! observation (`{id, source, observation, cause, content, extras}`, `cause` naming the action
//! it answers). The agent's `system` action is the system prompt (`args.content`, and its tool
//! definitions in `args.tools`); the user's first `message` action is the mission. Every other
//! agent action comes from a response of the model; the actions of one response share
//! `tool_call_metadata.model_response.id`, so they are one turn (an action without it is a
//! turn of its own):
//!
//! - its raw response is the response's text (`model_response.choices[0].message.content`),
//!   else the `thought` (and a `message` action's `content`) of its actions;
//! - its tool calls are its actions but a `message`, named by the function called (else the
//!   action), with the arguments the model gave (else the action's `args`), and as result the
//!   content of the observations they caused; each observation is one printed entry; its
//!   program is the command of each call, one per line (`run`: the shell command,
//!   `run_ipython`: the code, `browse_interactive`: the browser actions, any other: the
//!   function's name and arguments);
//! - the turn failed when an observation is an `error` or says `success: false` (OpenHands' own
//!   verdict: a command that has not exited, exit code -1, is not a success), or, in a log
//!   without `success`, reports a command's `exit_code` above 0;
//! - `usage` is `model_response.usage`, litellm's: its `prompt_tokens` counts every input token,
//!   the cache reads (`cache_read_input_tokens`, else `prompt_tokens_details.cached_tokens`) and
//!   writes (`cache_creation_input_tokens`, counted as 5 minutes: litellm gives no TTL) included,
//!   so `usage.input` is what is left; without it, the difference of the cumulative
//!   `llm_metrics.accumulated_token_usage` (same convention: `prompt_tokens`,
//!   `cache_read_tokens`, `cache_write_tokens`) from the one before; no cost is kept (OpenHands'
//!   costs are litellm's computation at list price); the provider is the prefix of
//!   `metadata.llm_config.model` when the run has one;
//! - `started_at` is the timestamp of the response's first action (OpenHands writes it without
//!   a time zone: it is read as UTC, which keeps the time between calls).
//!
//! The log keeps no request as sent, no PTC-Lisp memory or values and, for an event
//! trajectory, no turn budget: the recording says it lacks them.

use std::collections::HashMap;
use std::path::Path;

use serde_json::{json, Value as Json};

use super::rebuild::{openhands::conversation, rebuild_requests};
use super::{
    bad, first_line_is_json, kind, litellm_usage, read_json, read_lines, seconds,
    transcript_recording, turn_budget, ImportError, Imported, Supplied,
};
use crate::recording::format::Lack;
use crate::recording::{ReadError, RecordingDefaults};

/// Agent actions that no response of the model made.
const NOT_RESPONSES: [&str; 6] = [
    "system",
    "recall",
    "change_agent_state",
    "condensation",
    "condensation_request",
    "null",
];

/// Whether the first few KiB of a file (`prefix`) are an OpenHands run's: a list of events (as
/// OpenHands writes them, each opening with its `id`, `timestamp` and `source`; with sorted keys,
/// with its `action` or `observation`), or an evaluation's output line (its `instance_id` first,
/// then its `test_result` or `instruction`).
pub(super) fn detect(prefix: &str) -> bool {
    let text = prefix.trim_start();
    let has = |key: &str| text.contains(&format!("\"{key}\""));
    (text.starts_with('[')
        && ((has("id") && has("timestamp") && has("source"))
            || has("action")
            || has("observation")))
        || (text.starts_with('{')
            && has("instance_id")
            && (has("instruction") || has("test_result") || has("history"))
            && !has("messages")
            && !has("trajectory_format"))
}

/// Reads the OpenHands log at `path` and builds the recording of each run it holds.
pub fn openhands(
    path: &Path,
    defaults: &RecordingDefaults,
    supplied: &Supplied,
) -> Result<Vec<Imported>, ReadError> {
    // A file whose first line is JSON on its own is JSONL (output.jsonl); else one JSON value.
    let runs: Vec<(Option<usize>, Json)> = if first_line_is_json(path) {
        read_lines(path, defaults.max_recording_bytes)?
            .into_iter()
            .map(|(line, run)| (Some(line), run))
            .collect()
    } else {
        vec![(None, read_json(path, defaults.max_recording_bytes)?)]
    };
    let several = runs.len() > 1;
    let mut imported = Vec::new();
    for (line, run) in &runs {
        let (events, metadata) = match run {
            Json::Array(events) => (events.clone(), &Json::Null),
            Json::Object(_) if run["history"].is_array() => {
                // An older history is a list of [action, observation] pairs.
                let mut events = Vec::new();
                for event in run["history"].as_array().into_iter().flatten() {
                    match event {
                        Json::Array(pair) => events.extend(pair.iter().cloned()),
                        other => events.push(other.clone()),
                    }
                }
                (events, &run["metadata"])
            }
            other => {
                return Err(bad(
                    path,
                    *line,
                    ImportError::NotARun {
                        found: if other.is_object() {
                            "an object without a `history` list"
                        } else {
                            kind(other)
                        },
                    },
                ))
            }
        };
        if let Some((index, event)) = events.iter().enumerate().find(|(_, e)| !e.is_object()) {
            return Err(bad(
                path,
                *line,
                ImportError::NotAnEvent {
                    index,
                    found: kind(event),
                },
            ));
        }
        let mut recording = run_recording(path, *line, &events, metadata, supplied)?;
        if several || run.get("instance_id").is_some() {
            let name = run["instance_id"].as_str().unwrap_or("run");
            recording.part = Some(match line {
                Some(line) => format!("{name}, line {line}"),
                None => name.to_owned(),
            });
        }
        imported.push(recording);
    }
    if imported.is_empty() {
        return Err(bad(
            path,
            None,
            ImportError::NoResponse {
                looked_for: "a run",
            },
        ));
    }
    Ok(imported)
}

/// The recording of one run, from its events.
fn run_recording(
    path: &Path,
    line: Option<usize>,
    events: &[Json],
    metadata: &Json,
    supplied: &Supplied,
) -> Result<Imported, ReadError> {
    let system = events.iter().find(|e| e["action"] == "system");
    let mission = match &supplied.mission {
        Some(mission) => mission.clone(),
        None => events
            .iter()
            .find(|e| e["source"] == "user" && e["action"] == "message")
            .and_then(|e| e["args"]["content"].as_str().or(e["message"].as_str()))
            .map(str::to_owned)
            .ok_or_else(|| {
                bad(
                    path,
                    line,
                    ImportError::NoMission {
                        looked_for: "the user's first `message` action".into(),
                    },
                )
            })?,
    };
    let mut tools: Vec<String> = system
        .and_then(|s| s["args"]["tools"].as_array())
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| t["function"]["name"].as_str().or(t["name"].as_str()))
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    let provider = metadata["llm_config"]["model"]
        .as_str()
        .and_then(|m| m.split_once('/'))
        .map(|(provider, _)| provider.to_owned());
    // Action id -> the observations it caused.
    let mut caused: HashMap<String, Vec<&Json>> = HashMap::new();
    for event in events.iter().filter(|e| e.get("observation").is_some()) {
        if !event["cause"].is_null() {
            caused
                .entry(event["cause"].to_string())
                .or_default()
                .push(event);
        }
    }
    // The responses, in order, each its actions; and the cumulative metrics before each.
    let mut responses: Vec<(Vec<&Json>, Option<&Json>, usize)> = Vec::new();
    let mut response_of: HashMap<String, usize> = HashMap::new();
    let mut accumulated: Option<&Json> = None;
    for (i, event) in events.iter().enumerate() {
        let is_response = event["source"] == "agent"
            && event["action"]
                .as_str()
                .is_some_and(|a| !NOT_RESPONSES.contains(&a));
        if is_response {
            let key = event["tool_call_metadata"]["model_response"]["id"]
                .as_str()
                .map_or_else(|| format!("event {i}"), str::to_owned);
            let at = *response_of.entry(key).or_insert_with(|| {
                responses.push((Vec::new(), accumulated, i));
                responses.len() - 1
            });
            responses[at].0.push(event);
        }
        if event["llm_metrics"]["accumulated_token_usage"].is_object() {
            accumulated = Some(&event["llm_metrics"]["accumulated_token_usage"]);
        }
    }
    if responses.is_empty() {
        return Err(bad(
            path,
            line,
            ImportError::NoResponse {
                looked_for: "an agent action",
            },
        ));
    }
    // A tool-calling agent has no `user/` namespace and no program value: an empty memory and
    // a nil result are what happened, not something the log lost.
    let mut lacks = vec![Lack::Requests];
    let mut turns = Vec::new();
    for (actions, before, index) in &responses {
        let first = actions[0];
        let response = &first["tool_call_metadata"]["model_response"];
        let mut turn = response_turn(actions, &caused, &mut tools);
        turn["number"] = json!(turns.len() + 1);
        if let Some(at) = first["timestamp"].as_str().and_then(time) {
            turn["started_at"] = json!(at);
        }
        let at = format!("events[{index}].tool_call_metadata.model_response.usage");
        let counted = match litellm_usage(&response["usage"], &at) {
            Ok(Some(usage)) => Some(usage),
            Ok(None) => actions
                .iter()
                .find_map(|a| a["llm_metrics"]["accumulated_token_usage"].as_object())
                .and_then(|after| metrics_usage(&Json::Object(after.clone()), *before)),
            Err(err) => return Err(bad(path, line, err.into())),
        };
        match counted {
            Some(mut usage) => {
                if let Some(provider) = &provider {
                    usage["provider"] = json!(provider);
                }
                if let Some(model) = response["model"].as_str() {
                    usage["model"] = json!(model);
                }
                turn["usage"] = usage;
            }
            None => {
                if !lacks.contains(&Lack::Usage) {
                    lacks.push(Lack::Usage);
                }
            }
        }
        turns.push(turn);
    }
    let (messages, sent_before) = conversation(events, &response_of);
    let model = metadata["llm_config"]["model"].as_str();
    rebuild_requests(&mut turns, &messages, &sent_before, model, &mut lacks);
    let count = turns.len();
    let budget = metadata["max_iterations"]
        .as_u64()
        .filter(|&n| n > 0)
        .and_then(|n| u32::try_from(n).ok());
    let max_turns = turn_budget(supplied.max_turns.or(budget), count, &mut lacks);
    transcript_recording(
        mission,
        max_turns,
        &tools,
        turns,
        lacks,
        system.and_then(|s| s["args"]["content"].as_str()),
        1,
    )
}

/// The turn of one response, from its actions and the observations they caused (`caused`:
/// action id -> observations), without its number, time and usage; the tools it called are
/// added to `tools`.
fn response_turn(
    actions: &[&Json],
    caused: &HashMap<String, Vec<&Json>>,
    tools: &mut Vec<String>,
) -> Json {
    let message = &actions[0]["tool_call_metadata"]["model_response"]["choices"][0]["message"];
    let mut raw = message["content"]
        .as_str()
        .filter(|t| !t.is_empty())
        .map(str::to_owned);
    let mut thoughts = Vec::new();
    let mut program = Vec::new();
    let mut tool_calls = Vec::new();
    let mut prints = Vec::new();
    let mut error: Option<String> = None;
    for action in actions {
        let args = &action["args"];
        for text in [&args["thought"], &args["final_thought"]] {
            thoughts.extend(text.as_str().filter(|t| !t.is_empty()).map(str::to_owned));
        }
        let kind = action["action"].as_str().unwrap_or("");
        // A message is the model's text; every other action is a call of a tool, named by
        // the function the model called (an agent without function calling: by the action).
        if kind == "message" {
            thoughts.extend(args["content"].as_str().map(str::to_owned));
            continue;
        }
        let metadata = &action["tool_call_metadata"];
        let name = metadata["function_name"].as_str().unwrap_or(kind);
        if !tools.iter().any(|t| t == name) {
            tools.push(name.to_owned());
        }
        let sent = message["tool_calls"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|c| c["id"] == metadata["tool_call_id"])
            .and_then(|c| c["function"]["arguments"].as_str())
            .and_then(|a| serde_json::from_str::<Json>(a).ok())
            .filter(Json::is_object);
        let arguments = sent.unwrap_or_else(|| args.clone());
        program.push(match (kind, &args["command"], &args["code"]) {
            ("run", Json::String(command), _) => command.clone(),
            ("run_ipython", _, Json::String(code)) => code.clone(),
            ("browse_interactive", _, _) if args["browser_actions"].is_string() => {
                args["browser_actions"].as_str().unwrap_or("").to_owned()
            }
            _ => format!("{name} {arguments}"),
        });
        let observations = caused
            .get(&action["id"].to_string())
            .map_or(&[][..], Vec::as_slice);
        let mut result = Vec::new();
        for observation in observations {
            let content = observation["content"].as_str().unwrap_or("").to_owned();
            let code = observation["extras"]["metadata"]["exit_code"].as_i64();
            // OpenHands' own verdict when it gives one; else the command's exit code.
            let failed = observation["observation"] == "error"
                || match observation["success"].as_bool() {
                    Some(success) => !success,
                    None => code.is_some_and(|c| c > 0),
                };
            if failed && error.is_none() {
                error = Some(content.clone());
            }
            prints.push(content.clone());
            result.push(content);
        }
        tool_calls.push(json!({
            "name": name,
            "args": arguments,
            "result": if observations.is_empty() { Json::Null } else { json!(result.join("\n")) },
        }));
    }
    if raw.is_none() && !thoughts.is_empty() {
        raw = Some(thoughts.join("\n\n"));
    }
    let mut turn = json!({
        "raw_response": raw.unwrap_or_default(),
        "program": if program.is_empty() { Json::Null } else { json!(program.join("\n")) },
        "success": error.is_none(),
        "prints": prints,
        "tool_calls": tool_calls,
    });
    if let Some(message) = error {
        turn["error"] = json!({"reason": "observation_error", "message": message});
    }
    turn
}

/// Seconds of an OpenHands timestamp: ISO 8601, UTC when it names no time zone.
fn time(text: &str) -> Option<f64> {
    if text.ends_with('Z') {
        seconds(text)
    } else {
        seconds(&format!("{text}Z"))
    }
}

/// One response's usage from the cumulative `accumulated_token_usage` after it and the one
/// before it (none before: all of it); none when a count went down.
fn metrics_usage(after: &Json, before: Option<&Json>) -> Option<Json> {
    // Counts that are not whole numbers from 0 leave the difference unknown.
    let field = |name: &str| -> Option<u64> {
        let read = |metrics: &Json| match &metrics[name] {
            Json::Null => Some(0),
            other => other.as_u64(),
        };
        read(after)?.checked_sub(before.map_or(Some(0), read)?)
    };
    after["prompt_tokens"].as_u64()?;
    let (prompt, read, written) = (
        field("prompt_tokens")?,
        field("cache_read_tokens")?,
        field("cache_write_tokens")?,
    );
    Some(json!({
        "input": prompt.checked_sub(read)?.checked_sub(written)?,
        "cache_read": read,
        "cache_write_5m": written,
        "output": field("completion_tokens")?,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn litellm_prompt_tokens_hold_the_cache_reads_and_writes() {
        let u = litellm_usage(&json!({"prompt_tokens": 4646, "completion_tokens": 177, "prompt_tokens_details": {"cached_tokens": 3482}, "cache_creation_input_tokens": 1158, "cache_read_input_tokens": 3482}), "u").unwrap().unwrap();
        assert_eq!(
            (
                &u["input"],
                &u["cache_read"],
                &u["cache_write_5m"],
                &u["output"]
            ),
            (&json!(6), &json!(3482), &json!(1158), &json!(177))
        );
        // OpenAI: the cached tokens are part of the prompt, and nothing is written.
        let u = litellm_usage(
            &json!({"prompt_tokens": 5996, "prompt_tokens_details": {"cached_tokens": 5632}}),
            "u",
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            (&u["input"], &u["cache_write_5m"]),
            (&json!(364), &json!(0))
        );
        assert!(
            litellm_usage(
                &json!({"prompt_tokens": 10, "cache_read_input_tokens": 11}),
                "u"
            )
            .is_err(),
            "reads above the prompt they are part of are refused"
        );
    }

    #[test]
    fn cumulative_metrics_give_the_difference() {
        let before = json!({"prompt_tokens": 5863, "completion_tokens": 1042, "cache_read_tokens": 0, "cache_write_tokens": 0});
        let after = json!({"prompt_tokens": 11859, "completion_tokens": 1086, "cache_read_tokens": 5632, "cache_write_tokens": 0});
        let u = metrics_usage(&after, Some(&before)).unwrap();
        assert_eq!(
            (&u["input"], &u["cache_read"], &u["output"]),
            (&json!(364), &json!(5632), &json!(44))
        );
        assert!(metrics_usage(&before, Some(&after)).is_none());
    }

    #[test]
    fn a_time_without_a_zone_reads_as_utc() {
        assert_eq!(time("1970-01-01T00:01:00.5"), Some(60.5));
    }
}
