//! `ptc import --from codex`: a recording from a Codex CLI session, the rollout file Codex
//! writes for each session (`~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`).
//!
//! One JSON object per line: `{timestamp, type, payload}`. The types read are `session_meta`
//! (the first line: the session's `model_provider`, `cli_version` and its base instructions,
//! `base_instructions.text`, or `instructions` in older versions), `turn_context` (written
//! before each request to the model: its `model`), `response_item` (the conversation, in the
//! OpenAI Responses format: messages, reasoning, tool calls and their outputs), `event_msg`
//! (events: the user's `user_message`, the `token_count` of each call) and `compacted` (a
//! compaction that replaced the conversation with a summary). Other types, and events of other
//! kinds, are passed over: newer versions add some. The session is one run; its mission is
//! the user's first `user_message` (else the first `user` message that is a response item).
//!
//! Each call to the model is one turn. Codex writes a `token_count` event when a response
//! completes: `info.last_token_usage` is that call's usage and `info.total_token_usage` the
//! session's so far. It writes the same count again when only the rate limits changed (after
//! each tool output, after a compaction, whose own call it does not count), so a `token_count`
//! whose `total_token_usage` is the one before is no new call. A turn holds the response
//! items written since the previous call:
//!
//! - its raw response is the text of its `reasoning` summaries and `assistant` messages, in
//!   order (encrypted reasoning is not text: left out);
//! - its tool calls are its `function_call`, `custom_tool_call`, `local_shell_call`,
//!   `web_search_call` (any item whose type ends in `_call`), by name (else type), with their
//!   arguments (a function's JSON arguments as their object; anything else under `arguments`,
//!   `input` or `action`), each with the output of the `*_call_output` item answering its
//!   `call_id` as its result and printed entry; its program is the calls, one per line: the
//!   name and the arguments as written;
//! - the turn failed when an output states a failure: an exit code other than 0 (a
//!   `metadata.exit_code` in a JSON output, a line `Exit code: N` or `Process exited with code
//!   N`), or `success: false`;
//! - `usage`: OpenAI's `input_tokens` includes the cached ones (`cached_input_tokens`) and, in
//!   versions that report them, the cache writes (`cache_write_input_tokens`, counted as 5
//!   minutes: no TTL is given), so ptc's `input` is what is left; `output_tokens` includes the
//!   reasoning tokens (`total_tokens` is input plus output); the log states no cost; the
//!   provider is the session's `model_provider` (else `openai`), the model that of the last
//!   `turn_context` before the call;
//! - `started_at` is the time of the `turn_context` written before the request, else of the
//!   call's first item.
//!
//! A count that is not a whole number from 0, or cached tokens more than the input, is refused
//! naming the line and the field. Response items after the last `token_count` (a response cut
//! short) are a turn without usage.
//!
//! The log keeps the conversation but not the requests as sent (the tool definitions are not
//! logged), nor PTC-Lisp memory and values, nor the turn budget: each call's request is
//! rebuilt from the response items before it (`rebuild::codex`; a `compacted` record replaces
//! the history the next requests start from), after a prefix inferred from the first call's
//! billed `input_tokens` (which include the cached ones); the recording lacks `max_turns`, and
//! `requests` only when that prefix cannot be inferred. Some logs are published redacted: each text replaced by a marker of its
//! length, `[REDACTED_TEXT len=N sha=…]` (a text of N characters). A marker is kept as written,
//! never filled in (a redacted tool name, which must be a name, loses its brackets and spaces:
//! `REDACTED_NAME_len=N_sha=…`): redacted base instructions are no system prompt (`system_prompt` is
//! lacked), and redacted tool outputs are no results (`tool_results`, `prints` and `errors`
//! are lacked). ptc counts a marker as a text of its stated length would count
//! ([`crate::tokens::redaction`]), an estimate the summary line names. [`redacted`] counts the
//! markers of a recording made, for that line.

use std::collections::HashMap;
use std::path::Path;

use serde_json::{json, Value as Json};

use super::rebuild::{codex::Conversation, rebuild_ranges};
use super::Supplied;
use super::{
    bad, content_text, read_lines, seconds, transcript_recording, turn_budget, ImportError,
    Imported,
};
use crate::recording::format::Lack;
use crate::recording::{ReadError, RecordingDefaults};
use crate::tokens::redaction::marker;
use pending::Pending;

mod pending;

/// The line types of a rollout.
const TYPES: [&str; 5] = [
    "session_meta",
    "response_item",
    "turn_context",
    "event_msg",
    "compacted",
];

/// Whether the first few KiB of a file are a rollout's: its first line opens with its
/// `timestamp` and a rollout `type` (Codex writes them first; the line itself, with the base
/// instructions, is often longer than the prefix).
pub(super) fn detect_prefix(prefix: &str) -> bool {
    let text = prefix.trim_start_matches('\u{feff}').trim_start();
    let head: String = text.chars().take(200).collect();
    let compact: String = head.chars().filter(|c| !c.is_whitespace()).collect();
    compact.starts_with("{\"timestamp\":")
        && TYPES
            .iter()
            .any(|t| compact.contains(&format!("\"type\":\"{t}\",\"payload\":")))
}

/// Whether `first`, the first line of a JSONL file, is a rollout line.
pub(super) fn detect(first: &Json) -> bool {
    first["type"].as_str().is_some_and(|t| TYPES.contains(&t))
        && first["payload"].is_object()
        && first.get("timestamp").is_some()
}

/// The redaction markers among the texts of a recording made from a rollout: how many, and
/// the characters they stand for.
pub fn redacted(recording: &Json) -> (usize, u64) {
    fn walk(value: &Json, found: &mut (usize, u64)) {
        match value {
            Json::String(text) => {
                if let Some(len) = marker(text) {
                    found.0 += 1;
                    found.1 = found.1.saturating_add(len);
                }
            }
            Json::Array(items) => items.iter().for_each(|v| walk(v, found)),
            Json::Object(map) => map.values().for_each(|v| walk(v, found)),
            _ => {}
        }
    }
    let mut found = (0, 0);
    walk(recording, &mut found);
    found
}

/// An output's text: a string as it is, content items' texts, anything else its JSON.
pub(in crate::recording::import) fn output_text(output: &Json) -> String {
    match output {
        Json::String(text) => text.clone(),
        Json::Array(_) => content_text(output),
        Json::Object(map) => match map.get("content") {
            Some(content) if !content.is_null() => output_text(content),
            _ => output.to_string(),
        },
        other => other.to_string(),
    }
}

/// Whether a tool output states a failure (`Some(true)`), a success (`Some(false)`), or
/// neither.
fn failed(output: &Json, text: &str) -> Option<bool> {
    if let Some(success) = output["success"].as_bool() {
        return Some(!success);
    }
    if let Ok(parsed) = serde_json::from_str::<Json>(text) {
        if let Some(code) = parsed["metadata"]["exit_code"].as_i64() {
            return Some(code != 0);
        }
    }
    text.lines().find_map(|line| {
        let code = line
            .strip_prefix("Exit code: ")
            .or_else(|| line.strip_prefix("Process exited with code "))?;
        code.trim().parse::<i64>().ok().map(|code| code != 0)
    })
}

/// One field of a token usage: a whole number from 0, none when absent; anything else is
/// refused naming it.
fn count(usage: &Json, at: &str, field: &str) -> Result<Option<u64>, ImportError> {
    match &usage[field] {
        Json::Null => Ok(None),
        value => value
            .as_u64()
            .map(Some)
            .ok_or_else(|| ImportError::TokenCount {
                field: format!("{at}.{field}"),
                found: value.clone(),
            }),
    }
}

/// A call's `last_token_usage` in ptc's convention.
fn usage(info: &Json, provider: &str, model: Option<&str>) -> Result<Json, ImportError> {
    let at = "payload.info.last_token_usage";
    let last = &info["last_token_usage"];
    if !last.is_object() {
        return Err(ImportError::TokenCount {
            field: at.to_owned(),
            found: last.clone(),
        });
    }
    let input = count(last, at, "input_tokens")?.ok_or_else(|| ImportError::TokenCount {
        field: format!("{at}.input_tokens"),
        found: Json::Null,
    })?;
    let read = count(last, at, "cached_input_tokens")?.unwrap_or(0);
    let written = count(last, at, "cache_write_input_tokens")?.unwrap_or(0);
    let output = count(last, at, "output_tokens")?.unwrap_or(0);
    let uncached = read
        .checked_add(written)
        .and_then(|cached| input.checked_sub(cached))
        .ok_or(ImportError::CachedMoreThanInput {
            cached: read.saturating_add(written),
            input,
        })?;
    let mut out = json!({
        "input": uncached,
        "cache_read": read,
        "cache_write_5m": written,
        "output": output,
        "provider": provider,
    });
    if let Some(model) = model {
        out["model"] = json!(model);
    }
    Ok(out)
}

/// What the rollout says of the session, read as its lines go by.
struct Session {
    provider: String,
    model: Option<String>,
    system: Option<String>,
    mission: Option<String>,
    /// The mission from a `user` response item, when no `user_message` event gives one.
    first_user_item: Option<String>,
}

/// Reads the rollout at `path` and builds the recording of its session.
pub fn codex(
    path: &Path,
    defaults: &RecordingDefaults,
    supplied: &Supplied,
) -> Result<Imported, ReadError> {
    let mut session = Session {
        provider: "openai".to_owned(),
        model: None,
        system: None,
        mission: None,
        first_user_item: None,
    };
    let mut lacks = vec![Lack::Requests];
    let mut turns: Vec<(Pending, Option<Json>)> = Vec::new();
    let mut pending = Pending::default();
    // call_id -> the output answering it.
    let mut outputs: HashMap<String, Json> = HashMap::new();
    let mut last_total: Option<Json> = None;
    let mut last_context_at: Option<f64> = None;
    let mut conversation = Conversation::default();
    // Per call, the messages of `conversation` its request sent.
    let mut sent = Vec::new();
    for (line, record) in read_lines(path, defaults.max_recording_bytes)? {
        let Some(kind) = record["type"].as_str() else {
            return Err(bad(
                path,
                Some(line),
                ImportError::NotARolloutLine {
                    found: record["type"].clone(),
                },
            ));
        };
        let payload = &record["payload"];
        let at = record["timestamp"].as_str().and_then(seconds);
        match kind {
            "session_meta" => {
                if let Some(provider) = payload["model_provider"].as_str() {
                    session.provider = provider.to_owned();
                }
                if let Some(model) = payload["model"].as_str() {
                    session.model = Some(model.to_owned());
                }
                session.system = payload["base_instructions"]["text"]
                    .as_str()
                    .or(payload["instructions"].as_str())
                    .map(str::to_owned);
            }
            "turn_context" => {
                if let Some(model) = payload["model"].as_str() {
                    session.model = Some(model.to_owned());
                }
                last_context_at = at;
            }
            "response_item" => {
                conversation.item(payload);
                let item_kind = payload["type"].as_str().unwrap_or("");
                if item_kind.ends_with("_call_output") {
                    if let Some(id) = payload["call_id"].as_str() {
                        outputs.insert(id.to_owned(), payload["output"].clone());
                    }
                } else if item_kind == "message" && payload["role"] == "user" {
                    session
                        .first_user_item
                        .get_or_insert_with(|| content_text(&payload["content"]));
                } else {
                    if pending.is_empty() && pending.started_at.is_none() {
                        pending.started_at = last_context_at.take();
                    }
                    pending.take(payload, at);
                }
            }
            "event_msg" if payload["type"] == "user_message" => {
                if let Some(message) = payload["message"].as_str() {
                    session.mission.get_or_insert_with(|| message.to_owned());
                }
            }
            "event_msg" if payload["type"] == "token_count" && !payload["info"].is_null() => {
                let info = &payload["info"];
                // The same count again (new rate limits, a compaction): no new call.
                let total = info.get("total_token_usage").unwrap_or(info).clone();
                if last_total.as_ref() == Some(&total) {
                    continue;
                }
                last_total = Some(total);
                let usage = usage(info, &session.provider, session.model.as_deref())
                    .map_err(|e| bad(path, Some(line), e))?;
                if pending.started_at.is_none() {
                    pending.started_at = last_context_at.take();
                }
                turns.push((std::mem::take(&mut pending), Some(usage)));
                sent.push(conversation.call());
                last_context_at = None;
            }
            "compacted" => conversation.compacted(payload),
            _ => {}
        }
    }
    if !pending.is_empty() {
        lacks.push(Lack::Usage);
        turns.push((pending, None));
        sent.push(conversation.call());
    }
    if turns.is_empty() {
        return Err(bad(
            path,
            None,
            ImportError::NoResponse {
                looked_for:
                    "a `token_count` event with the usage of a call, or an item the model wrote",
            },
        ));
    }
    let mission = match (&supplied.mission, session.mission, session.first_user_item) {
        (Some(mission), _, _) => mission.clone(),
        (None, Some(mission), _) | (None, None, Some(mission)) => mission,
        (None, None, None) => {
            return Err(bad(
                path,
                None,
                ImportError::NoMission {
                    looked_for: "a `user_message` event or a `user` message".into(),
                },
            ))
        }
    };
    let mut tools: Vec<String> = Vec::new();
    let (mut stated, mut outputs_seen, mut outputs_redacted) = (false, 0usize, false);
    let mut records = Vec::new();
    for (number, (turn, usage)) in turns.into_iter().enumerate() {
        let mut prints = Vec::new();
        let mut tool_calls = Vec::new();
        let mut error: Option<String> = None;
        for (name, args, id) in turn.calls {
            if !tools.contains(&name) {
                tools.push(name.clone());
            }
            let output = id.as_deref().and_then(|id| outputs.get(id));
            let result = output.map(|output| {
                let text = output_text(output);
                outputs_seen += 1;
                outputs_redacted |= marker(&text).is_some();
                match failed(output, &text) {
                    Some(true) => {
                        stated = true;
                        error.get_or_insert_with(|| format!("{name} failed: {text}"));
                    }
                    Some(false) => stated = true,
                    None => {}
                }
                prints.push(text.clone());
                text
            });
            tool_calls.push(json!({"name": name, "args": args, "result": result}));
        }
        let mut record = json!({
            "number": number + 1,
            "raw_response": turn.raw.join("\n\n"),
            "program": if turn.program.is_empty() { Json::Null } else { json!(turn.program.join("\n")) },
            "success": error.is_none(),
            "prints": prints,
            "tool_calls": tool_calls,
        });
        if let Some(message) = error {
            record["error"] = json!({"reason": "tool_error", "message": message});
        }
        if let Some(at) = turn.started_at.or(turn.first_item_at) {
            record["started_at"] = json!(at);
        }
        if let Some(usage) = usage {
            record["usage"] = usage;
        }
        records.push(record);
    }
    if outputs_redacted {
        lacks.extend([Lack::ToolResults, Lack::Prints]);
    }
    if outputs_seen > 0 && !stated {
        lacks.push(Lack::Errors);
    }
    let model = records[0]["usage"]["model"].as_str().map(str::to_owned);
    let model = model.or(session.model);
    rebuild_ranges(
        &mut records,
        &conversation.messages,
        &sent,
        model.as_deref(),
        &mut lacks,
    );
    let system = session.system.filter(|text| marker(text).is_none());
    let max_turns = turn_budget(supplied.max_turns, records.len(), &mut lacks);
    transcript_recording(
        mission,
        max_turns,
        &tools,
        records,
        lacks,
        system.as_deref(),
        1,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cached_input_is_part_of_the_input_and_writes_count_as_five_minutes() {
        let info = json!({"last_token_usage": {"input_tokens": 100, "cached_input_tokens": 60,
            "cache_write_input_tokens": 30, "output_tokens": 7, "reasoning_output_tokens": 5}});
        let u = usage(&info, "openai", Some("gpt-5.3-codex")).unwrap();
        assert_eq!(
            (
                &u["input"],
                &u["cache_read"],
                &u["cache_write_5m"],
                &u["output"]
            ),
            (&json!(10), &json!(60), &json!(30), &json!(7))
        );
        assert!(u.get("cost_usd").is_none(), "the log states no cost");
        let more = json!({"last_token_usage": {"input_tokens": 10, "cached_input_tokens": 60}});
        assert!(matches!(
            usage(&more, "openai", None),
            Err(ImportError::CachedMoreThanInput {
                cached: 60,
                input: 10
            })
        ));
    }

    #[test]
    fn an_exit_status_is_read_where_the_output_states_one() {
        let text = json!("Exit code: 2\nWall time: 0.1 seconds\nOutput:\nno such file");
        assert_eq!(failed(&text, text.as_str().unwrap()), Some(true));
        let text = "Chunk ID: 1\nProcess exited with code 0\nOutput:\nok";
        assert_eq!(failed(&json!(text), text), Some(false));
        let text = r#"{"output":"x","metadata":{"exit_code":1,"duration_seconds":0.1}}"#;
        assert_eq!(failed(&json!(text), text), Some(true));
        assert_eq!(failed(&json!({"success": false}), ""), Some(true));
        assert_eq!(failed(&json!("[REDACTED_OUTPUT len=9 sha=0]"), "x"), None);
    }
}
