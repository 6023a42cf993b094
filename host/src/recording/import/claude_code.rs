//! `ptc import --from claude-code`: recordings from a Claude Code session log
//! (`~/.claude/projects/<project>/<session>.jsonl`).
//!
//! One JSON object per line: `{type, uuid, parentUuid, isSidechain, timestamp, requestId?,
//! message}`. Lines of type `user` and `assistant` carry a message of Anthropic's Messages API;
//! other lines (`summary`, `system`, snapshots) carry none and are passed over. The lines form
//! threads through `parentUuid`: a line whose `parentUuid` is null, or names no line of the
//! file, starts a thread (the main conversation, each side chain of a subagent — their lines
//! are interleaved in the file — and the conversation after a compaction). Each thread is one
//! recording; its mission is its first user message that is not a tool result.
//!
//! Claude Code writes each content block of one response on a line of its own, every line
//! repeating the response's usage. The lines of one `requestId` (else `message.id`) are one
//! response, so one turn:
//!
//! - its raw response is the text of its `thinking` and `text` blocks, in order; its program is
//!   its `tool_use` blocks, one per line, as the tool's name and its input's JSON (Claude Code
//!   runs no program of its own);
//! - its tool calls are those blocks, each with the `tool_result` of a later `user` line of the
//!   thread that answers it (by `tool_use_id`); each result is one printed entry; the turn failed
//!   when a result says `is_error` (its text is the error);
//! - `usage` is the `message.usage` of the response's last line (`output_tokens` can grow from
//!   line to line): Anthropic's `input_tokens` already leaves out the cache reads
//!   (`cache_read_input_tokens`) and writes (`cache_creation_input_tokens`), so it is
//!   `usage.input` as it is; the writes are split by TTL as `cache_creation` gives them
//!   (`ephemeral_5m_input_tokens`, `ephemeral_1h_input_tokens`), and count as 5 minutes (the
//!   API's default) when it does not; the provider is `anthropic`, the model `message.model`;
//!   the log states no cost, and none is kept;
//! - `started_at` is the `timestamp` of the response's first line (when Claude Code logged it).
//!
//! A line whose model is `<synthetic>` is written by Claude Code itself (an API error, an
//! interruption), not by the model: it is no turn. The log keeps neither the system prompt,
//! nor the tool definitions, nor the requests as sent, nor PTC-Lisp memory and values, nor the
//! turn budget. Each turn's request is rebuilt from the thread's messages (`rebuild`), the
//! system prompt and tool definitions a prefix of inferred size; when that size cannot be
//! inferred, and for the rest, the recording says it lacks them.

use std::collections::HashMap;
use std::path::Path;

use serde_json::{json, Value as Json};

use super::counts::count;
use super::rebuild::{claude_code::conversation, rebuild_requests};
use super::{bad, read_lines, seconds, turn_budget, ImportError, Imported, Supplied};
use crate::recording::format::Lack;
use crate::recording::{ReadError, RecordingDefaults};

/// The line types of a session log.
const TYPES: [&str; 5] = [
    "user",
    "assistant",
    "summary",
    "system",
    "file-history-snapshot",
];

/// Whether `first`, the first line of a JSONL file, is a Claude Code session line.
pub(super) fn detect(first: &Json) -> bool {
    first["type"].as_str().is_some_and(|t| TYPES.contains(&t))
        && ["parentUuid", "sessionId", "leafUuid", "messageId"]
            .iter()
            .any(|key| first.get(*key).is_some())
}

/// One line of a thread: its number in the file and its JSON.
pub(super) type Line = (usize, Json);

/// Reads the session log at `path` and builds one recording per thread that has a response.
pub fn claude_code(
    path: &Path,
    defaults: &RecordingDefaults,
    supplied: &Supplied,
) -> Result<Vec<Imported>, ReadError> {
    let mut threads: Vec<Vec<Line>> = Vec::new();
    let mut thread_of: HashMap<String, usize> = HashMap::new();
    for (line, record) in read_lines(path, defaults.max_recording_bytes)? {
        // Every line names its type; newer versions add types, read as lines without a message.
        if !record["type"].is_string() {
            return Err(bad(
                path,
                Some(line),
                ImportError::NotASessionLine {
                    found: record["type"].clone(),
                },
            ));
        }
        let Some(uuid) = record["uuid"].as_str().map(str::to_owned) else {
            continue;
        };
        let parent = record["parentUuid"].as_str();
        let thread = match parent.and_then(|p| thread_of.get(p)) {
            Some(&thread) => thread,
            None => {
                threads.push(Vec::new());
                threads.len() - 1
            }
        };
        thread_of.insert(uuid, thread);
        threads[thread].push((line, record));
    }
    let mut imported = Vec::new();
    for thread in &threads {
        if let Some(run) = thread_recording(path, thread, supplied)? {
            imported.push(run);
        }
    }
    if imported.is_empty() {
        return Err(bad(
            path,
            None,
            ImportError::NoResponse {
                looked_for: "an `assistant` line whose model is not `<synthetic>`",
            },
        ));
    }
    Ok(imported)
}

/// Whether a line is a response of the model.
pub(super) fn is_response(record: &Json) -> bool {
    record["type"] == "assistant"
        && record["message"].is_object()
        && record["message"]["model"] != "<synthetic>"
}

/// The text of a `tool_result`'s content, or of a user message's: a string as it is, the text
/// of its text blocks, and any other block as its JSON.
pub(super) fn text(content: &Json) -> String {
    match content {
        Json::String(text) => text.clone(),
        Json::Array(blocks) => blocks
            .iter()
            .map(|b| match b["text"].as_str() {
                Some(text) if b["type"] == "text" => text.to_owned(),
                _ => b.to_string(),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Json::Null => String::new(),
        other => other.to_string(),
    }
}

/// The recording of one thread; none when the model never answered in it.
fn thread_recording(
    path: &Path,
    thread: &[Line],
    supplied: &Supplied,
) -> Result<Option<Imported>, ReadError> {
    // The responses, in order: each its lines.
    let mut responses: Vec<Vec<&Line>> = Vec::new();
    let mut response_of: HashMap<String, usize> = HashMap::new();
    // tool_use_id -> (text, is_error) of the result that answers it.
    let mut results: HashMap<&str, (String, bool)> = HashMap::new();
    let keys = response_keys(thread);
    for entry in thread {
        let (line, record) = entry;
        if is_response(record) {
            let key = keys[line].clone();
            let at = *response_of.entry(key).or_insert_with(|| {
                responses.push(Vec::new());
                responses.len() - 1
            });
            responses[at].push(entry);
        } else if record["type"] == "user" {
            for block in record["message"]["content"]
                .as_array()
                .into_iter()
                .flatten()
            {
                if block["type"] == "tool_result" {
                    if let Some(id) = block["tool_use_id"].as_str() {
                        let failed = block["is_error"] == true;
                        results.insert(id, (text(&block["content"]), failed));
                    }
                }
            }
        }
    }
    let Some(first) = responses.first().and_then(|r| r.first()) else {
        return Ok(None);
    };
    let start = thread[0].0;
    let mission = match &supplied.mission {
        Some(mission) => mission.clone(),
        None => thread
            .iter()
            .filter(|(_, r)| r["type"] == "user")
            .map(|(_, r)| &r["message"]["content"])
            .find(|c| {
                c.is_string()
                    || c.as_array()
                        .is_some_and(|b| b.iter().all(|b| b["type"] == "text"))
            })
            .map(text)
            .ok_or_else(|| {
                bad(
                    path,
                    Some(first.0),
                    ImportError::NoMission {
                        looked_for: format!(
                            "a user message that is not a tool result in the thread of line {start}"
                        ),
                    },
                )
            })?,
    };
    // A tool-calling agent has no `user/` namespace and no program value: an empty memory and
    // a nil result are what happened, not something the log lost.
    let mut lacks = vec![Lack::Requests, Lack::SystemPrompt];
    let mut tools: Vec<String> = Vec::new();
    let mut turns = Vec::new();
    for lines in &responses {
        let mut raw = Vec::new();
        let mut program = Vec::new();
        let mut tool_calls = Vec::new();
        let mut prints = Vec::new();
        let mut error: Option<String> = None;
        for (_, record) in lines {
            for block in record["message"]["content"]
                .as_array()
                .into_iter()
                .flatten()
            {
                match block["type"].as_str() {
                    Some("text") => raw.push(block["text"].as_str().unwrap_or("").to_owned()),
                    Some("thinking") => {
                        raw.push(block["thinking"].as_str().unwrap_or("").to_owned())
                    }
                    Some("tool_use") => {
                        let name = block["name"].as_str().unwrap_or("").to_owned();
                        if !name.is_empty() && !tools.contains(&name) {
                            tools.push(name.clone());
                        }
                        let input = match &block["input"] {
                            Json::Object(_) => block["input"].clone(),
                            Json::Null => json!({}),
                            other => json!({ "value": other }),
                        };
                        program.push(format!("{name} {input}"));
                        let answer = block["id"].as_str().and_then(|id| results.get(id));
                        if let Some((text, failed)) = answer {
                            prints.push(text.clone());
                            if *failed && error.is_none() {
                                error = Some(text.clone());
                            }
                        }
                        tool_calls.push(json!({
                            "name": name,
                            "args": input,
                            "result": answer.map_or(Json::Null, |(text, _)| json!(text)),
                        }));
                    }
                    _ => {}
                }
            }
        }
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
        let (_, first) = lines[0];
        if let Some(at) = first["timestamp"].as_str().and_then(seconds) {
            turn["started_at"] = json!(at);
        }
        let (last_line, last) = lines[lines.len() - 1];
        match usage(&last["message"]) {
            Ok(Some(usage)) => turn["usage"] = usage,
            Ok(None) => {
                if !lacks.contains(&Lack::Usage) {
                    lacks.push(Lack::Usage);
                }
            }
            Err(err) => return Err(bad(path, Some(*last_line), err)),
        }
        turns.push(turn);
    }
    let (messages, sent_before) = conversation(thread);
    let model = responses[0][0].1["message"]["model"].as_str();
    rebuild_requests(&mut turns, &messages, &sent_before, model, &mut lacks);
    let count = turns.len();
    let max_turns = turn_budget(supplied.max_turns, count, &mut lacks);
    if !turns.iter().any(|t| t.get("started_at").is_some()) {
        lacks.push(Lack::Timestamps);
    }
    let side_chain = thread[0].1["isSidechain"] == true;
    let recording = json!({
        "mission": mission,
        "literal_mission": true,
        "max_turns": max_turns,
        "tools": tools.iter().map(|name| json!({"name": name})).collect::<Vec<_>>(),
        "turns": turns,
        "lacks": lacks,
    });
    Ok(Some(Imported {
        json: recording,
        text: String::new(),
        turns: count,
        losses: Default::default(),
        version: 1,
        default_max_turns: false,
        part: Some(format!(
            "{} from line {start}",
            if side_chain { "side chain" } else { "thread" }
        )),
    }))
}

/// The response each response line of `thread` belongs to, by line number: its `requestId`,
/// else its message's `id`. A line with neither belongs to the response of the assistant line
/// before it when it repeats that line's prompt usage (every count but `output_tokens`, which
/// grows as the response streams) with no other line between but assistant ones: Claude Code
/// writes a response's content blocks as lines that each carry the response's usage, and
/// counting each as its own response would bill its prompt once per block. Else it is a
/// response of its own.
pub(super) fn response_keys(thread: &[Line]) -> HashMap<usize, String> {
    let prompt_usage = |usage: &Json| {
        let mut usage = usage.clone();
        if let Some(map) = usage.as_object_mut() {
            map.remove("output_tokens");
        }
        usage
    };
    let mut keys = HashMap::new();
    // The key and prompt usage of the assistant line just before, while no other line came
    // between.
    let mut previous: Option<(String, Json)> = None;
    for (line, record) in thread {
        if !is_response(record) {
            if record["type"] != "assistant" {
                previous = None;
            }
            continue;
        }
        let usage = prompt_usage(&record["message"]["usage"]);
        let key = match record["requestId"]
            .as_str()
            .or(record["message"]["id"].as_str())
        {
            Some(id) => id.to_owned(),
            None => match &previous {
                Some((key, before)) if usage.is_object() && *before == usage => key.clone(),
                _ => format!("line {line}"),
            },
        };
        previous = Some((key.clone(), usage));
        keys.insert(*line, key);
    }
    keys
}

/// A response's `usage` in ptc's convention; none without `input_tokens`, an error when a
/// count is not one (naming its field) or the split of the cache writes by TTL does not add
/// up to them.
fn usage(message: &Json) -> Result<Option<Json>, ImportError> {
    let usage = &message["usage"];
    let number = |value: &Json, name: &str| count(value, &format!("message.usage.{name}"));
    let Some(input) = number(&usage["input_tokens"], "input_tokens")? else {
        return Ok(None);
    };
    let written = number(
        &usage["cache_creation_input_tokens"],
        "cache_creation_input_tokens",
    )?
    .unwrap_or(0);
    let read = number(&usage["cache_read_input_tokens"], "cache_read_input_tokens")?;
    let output = number(&usage["output_tokens"], "output_tokens")?;
    let split = &usage["cache_creation"];
    let (five, hour) = match (
        number(
            &split["ephemeral_5m_input_tokens"],
            "cache_creation.ephemeral_5m_input_tokens",
        )?,
        number(
            &split["ephemeral_1h_input_tokens"],
            "cache_creation.ephemeral_1h_input_tokens",
        )?,
    ) {
        (None, None) => (written, 0),
        (five, hour) => (five.unwrap_or(0), hour.unwrap_or(0)),
    };
    if five.checked_add(hour) != Some(written) {
        return Err(ImportError::CacheSplit {
            split: five.saturating_add(hour),
            written,
        });
    }
    let mut out = json!({
        "input": input,
        "cache_read": read.unwrap_or(0),
        "cache_write_5m": five,
        "cache_write_1h": hour,
        "output": output.unwrap_or(0),
        "provider": "anthropic",
    });
    if let Some(model) = message["model"].as_str() {
        out["model"] = json!(model);
    }
    Ok(Some(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_tokens_are_uncached_and_writes_split_by_ttl() {
        let u = usage(&json!({"model": "claude-sonnet-4", "usage": {"input_tokens": 4, "cache_creation_input_tokens": 30, "cache_read_input_tokens": 100, "cache_creation": {"ephemeral_5m_input_tokens": 10, "ephemeral_1h_input_tokens": 20}, "output_tokens": 7}}))
            .unwrap()
            .unwrap();
        assert_eq!(
            (
                &u["input"],
                &u["cache_read"],
                &u["cache_write_5m"],
                &u["cache_write_1h"]
            ),
            (&json!(4), &json!(100), &json!(10), &json!(20))
        );
        assert!(u.get("cost_usd").is_none());
        // Without the split, a write lasts the API's default 5 minutes.
        let u = usage(&json!({"usage": {"input_tokens": 4, "cache_creation_input_tokens": 30}}))
            .unwrap()
            .unwrap();
        assert_eq!(
            (&u["cache_write_5m"], &u["cache_write_1h"]),
            (&json!(30), &json!(0))
        );
        // A split that does not add up is refused, not guessed.
        assert!(usage(&json!({"usage": {"input_tokens": 4, "cache_creation_input_tokens": 30, "cache_creation": {"ephemeral_5m_input_tokens": 10}}})).is_err());
        assert!(usage(&json!({"usage": {}})).unwrap().is_none());
    }

    #[test]
    fn a_tool_result_reads_as_its_text() {
        assert_eq!(
            text(&json!([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}])),
            "a\nb"
        );
        assert_eq!(text(&json!("s")), "s");
    }
}
