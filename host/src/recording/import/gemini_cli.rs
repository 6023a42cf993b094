//! `ptc import --from gemini-cli`: a recording from a Gemini CLI session, the file Gemini CLI
//! writes for each chat (`~/.gemini/tmp/<project hash>/chats/session-*.json`).
//!
//! One JSON object: `{sessionId, projectHash, startTime, lastUpdated, messages[]}`. Each message
//! is `{id, timestamp, type, content}`; `type` is `user` (what the user typed), `gemini` (a
//! response of the model) or a message of the CLI's own (`info`, `error`, `warning`), passed
//! over. The session is one run; its mission is the first `user` message.
//!
//! Each `gemini` message is one call to the model, so one turn:
//!
//! - its raw response is the descriptions of its `thoughts`, then its `content`;
//! - its tool calls are its `toolCalls`, each `{name, args, result, status}`: the result's
//!   text (a `functionResponse`'s `response.output`, else its `response` as JSON; text parts as
//!   they are) is the call's result and one printed entry; the turn failed when a call's
//!   `status` is `error` (its result is the error); its program is the calls, one per line;
//! - `usage` is `tokens`: Gemini's `input` includes the tokens read from the context cache
//!   (`cached`), so ptc's `input` is what is left and `cache_read` is `cached`; the thinking
//!   tokens (`thoughts`) are billed as output and added to `output`; the log states no cost;
//!   the provider is `gemini`, the model the message's `model`;
//! - `started_at` is the message's `timestamp` (when the CLI logged the response).
//!
//! The log keeps neither the system prompt, nor the tool definitions, nor the requests as
//! sent: each call's request is rebuilt from the messages before it (`rebuild`), after a
//! prefix inferred from the first call's bill; the recording lacks `max_turns`, and what
//! `rebuild` cannot infer.

use std::path::Path;

use serde_json::{json, Value as Json};

use super::counts::count;
use super::rebuild::rebuild_requests;
use super::{
    bad, content_text, read_json, seconds, transcript_recording, turn_budget, ImportError,
    Imported, Supplied,
};
use crate::recording::format::{Lack, RequestMessageJson, RequestToolCallJson};
use crate::recording::{ReadError, RecordingDefaults};

/// Whether a file whose first few KiB are `prefix` is a Gemini CLI session: one JSON object
/// that opens with its `sessionId` and names its `projectHash`.
pub(super) fn detect(prefix: &str) -> bool {
    let text = prefix.trim_start();
    let head: String = text
        .chars()
        .take(200)
        .filter(|c| !c.is_whitespace())
        .collect();
    head.starts_with("{\"sessionId\":") && text.contains("\"projectHash\"")
}

/// The text of a part list (a string, text parts, or a function response's output).
fn parts_text(parts: &Json) -> String {
    match parts {
        Json::String(text) => text.clone(),
        Json::Array(items) => items.iter().map(parts_text).collect::<Vec<_>>().join("\n"),
        Json::Object(part) => match (part.get("text"), part.get("functionResponse")) {
            (Some(Json::String(text)), _) => text.clone(),
            (_, Some(response)) => match &response["response"]["output"] {
                Json::String(output) => output.clone(),
                _ => response["response"].to_string(),
            },
            _ => parts.to_string(),
        },
        Json::Null => String::new(),
        other => other.to_string(),
    }
}

/// A response's `tokens` in ptc's convention; none without `input`; an error naming the field
/// when a count is not one, or the cached tokens are more than the input.
fn usage(tokens: &Json, at: &str, model: Option<&str>) -> Result<Option<Json>, ImportError> {
    let number = |name: &str| count(&tokens[name], &format!("{at}.{name}"));
    let Some(input) = number("input")? else {
        return Ok(None);
    };
    let cached = number("cached")?.unwrap_or(0);
    let output = number("output")?.unwrap_or(0);
    let thoughts = number("thoughts")?.unwrap_or(0);
    let uncached = input
        .checked_sub(cached)
        .ok_or_else(|| ImportError::CachedMoreThanPrompt {
            at: at.to_owned(),
            cached,
            input,
        })?;
    let mut out = json!({
        "input": uncached,
        "cache_read": cached,
        "output": output.saturating_add(thoughts),
        "provider": "gemini",
    });
    if let Some(model) = model {
        out["model"] = json!(model);
    }
    Ok(Some(out))
}

/// Reads the session at `path` and builds the recording of its run.
pub fn gemini_cli(
    path: &Path,
    defaults: &RecordingDefaults,
    supplied: &Supplied,
) -> Result<Imported, ReadError> {
    let session = read_json(path, defaults.max_recording_bytes)?;
    let Some(messages) = session["messages"].as_array() else {
        return Err(bad(path, None, ImportError::NoMessages));
    };
    let mission = match &supplied.mission {
        Some(mission) => Some(mission.clone()),
        None => messages
            .iter()
            .find(|m| m["type"] == "user")
            .map(|m| parts_text(&m["content"])),
    };
    let mission = mission.ok_or_else(|| {
        bad(
            path,
            None,
            ImportError::NoMission {
                looked_for: "a `user` message".into(),
            },
        )
    })?;
    let mut lacks = Vec::new();
    let mut tools: Vec<String> = Vec::new();
    let mut turns = Vec::new();
    // The conversation, as the requests sent it, and per call how much of it was sent.
    let mut conversation: Vec<RequestMessageJson> = Vec::new();
    let mut sent_before = Vec::new();
    let plain = |role: &str, content: String| RequestMessageJson {
        role: role.to_owned(),
        content,
        tool_calls: Vec::new(),
        tool_call_id: None,
        reasoning: None,
    };
    let mut model = None;
    for (at, message) in messages.iter().enumerate() {
        if message["type"] == "user" {
            conversation.push(plain("user", parts_text(&message["content"])));
            continue;
        }
        if message["type"] != "gemini" {
            continue;
        }
        sent_before.push(conversation.len());
        let mut raw: Vec<String> = message["thoughts"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| t["description"].as_str().map(str::to_owned))
            .collect();
        let text = content_text(&message["content"]);
        if !text.is_empty() {
            raw.push(text.clone());
        }
        let mut answer = plain("assistant", text);
        let (mut program, mut prints, mut tool_calls) = (Vec::new(), Vec::new(), Vec::new());
        let mut results = Vec::new();
        let mut error: Option<String> = None;
        for call in message["toolCalls"].as_array().into_iter().flatten() {
            let name = call["name"].as_str().unwrap_or("").to_owned();
            if !name.is_empty() && !tools.contains(&name) {
                tools.push(name.clone());
            }
            let args = match &call["args"] {
                Json::Object(_) => call["args"].clone(),
                Json::Null => json!({}),
                other => json!({ "value": other }),
            };
            program.push(format!("{name} {args}"));
            let result = (!call["result"].is_null()).then(|| parts_text(&call["result"]));
            if let Some(text) = &result {
                prints.push(text.clone());
                if call["status"] == "error" && error.is_none() {
                    error = Some(text.clone());
                }
            }
            let id = call["id"].as_str().map(str::to_owned);
            answer.tool_calls.push(RequestToolCallJson {
                id: id.clone(),
                name: name.clone(),
                arguments: args.to_string(),
            });
            results.push(RequestMessageJson {
                tool_call_id: id,
                ..plain("tool", result.clone().unwrap_or_default())
            });
            tool_calls.push(json!({"name": name, "args": args, "result": result}));
        }
        conversation.push(answer);
        conversation.extend(results);
        let mut turn = json!({
            "number": turns.len() + 1,
            "raw_response": raw.join("\n\n"),
            "program": if program.is_empty() { Json::Null } else { json!(program.join("\n")) },
            "success": error.is_none(),
            "prints": prints,
            "tool_calls": tool_calls,
        });
        if let Some(message) = error {
            turn["error"] = json!({"reason": "tool_error", "message": message});
        }
        if let Some(time) = message["timestamp"].as_str().and_then(seconds) {
            turn["started_at"] = json!(time);
        }
        let called = message["model"].as_str();
        model = model.or(called.map(str::to_owned));
        match usage(
            &message["tokens"],
            &format!("messages[{at}].tokens"),
            called,
        ) {
            Ok(Some(usage)) => turn["usage"] = usage,
            Ok(None) if !lacks.contains(&Lack::Usage) => lacks.push(Lack::Usage),
            Ok(None) => {}
            Err(error) => return Err(bad(path, None, error)),
        }
        turns.push(turn);
    }
    if turns.is_empty() {
        return Err(bad(
            path,
            None,
            ImportError::NoResponse {
                looked_for: "a `gemini` message",
            },
        ));
    }
    lacks.extend([Lack::Requests, Lack::SystemPrompt]);
    rebuild_requests(
        &mut turns,
        &conversation,
        &sent_before,
        model.as_deref(),
        &mut lacks,
    );
    let max_turns = turn_budget(supplied.max_turns, turns.len(), &mut lacks);
    transcript_recording(mission, max_turns, &tools, turns, lacks, None, 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cached_tokens_are_part_of_the_input_and_thoughts_are_output() {
        let tokens = json!({"input": 5915, "output": 24, "cached": 4000, "thoughts": 6, "tool": 0, "total": 5945});
        let u = usage(&tokens, "t", Some("gemini-2.5-pro"))
            .unwrap()
            .unwrap();
        assert_eq!(
            (&u["input"], &u["cache_read"], &u["output"], &u["provider"]),
            (&json!(1915), &json!(4000), &json!(30), &json!("gemini"))
        );
        assert!(u.get("cost_usd").is_none(), "the log states no cost");
        assert!(usage(&json!({"input": 10, "cached": 11}), "t", None).is_err());
        assert!(usage(&json!({"input": -1}), "t", None).is_err());
        assert!(usage(&json!({}), "t", None).unwrap().is_none());
    }

    #[test]
    fn a_function_response_reads_as_its_output() {
        let result = json!([{"functionResponse": {"id": "c1", "name": "read_file",
            "response": {"output": "Hello"}}}]);
        assert_eq!(parts_text(&result), "Hello");
        assert_eq!(parts_text(&json!([{"text": "a"}, {"text": "b"}])), "a\nb");
        assert!(detect(
            "{\n  \"sessionId\": \"x\",\n  \"projectHash\": \"y\""
        ));
        assert!(!detect("{\"messages\": [], \"sessionId\": \"x\"}"));
    }
}
