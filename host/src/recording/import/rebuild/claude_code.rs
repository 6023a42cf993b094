//! The conversation of a Claude Code thread, as Claude Code sends it to the Messages API: the
//! messages each rebuilt request is made of.

use std::collections::HashMap;

use serde_json::Value as Json;

use crate::recording::format::{RequestMessageJson, RequestToolCallJson};
use crate::recording::import::claude_code::{is_response, response_keys, text, Line};

/// The conversation a thread holds, as Claude Code sends it to the Messages API: each user
/// message (a tool result as a `tool` message answering its call), each response as one
/// assistant message (its text blocks, then its tool calls); and per response, in order, how
/// many of those messages were sent before it. A `thinking` block is left out: the API drops
/// the thinking of earlier turns from what the model reads.
pub(in crate::recording::import) fn conversation(
    thread: &[Line],
) -> (Vec<RequestMessageJson>, Vec<usize>) {
    let mut messages: Vec<RequestMessageJson> = Vec::new();
    let mut sent_before = Vec::new();
    let mut at: HashMap<String, usize> = HashMap::new();
    let plain = |role: &str, content: String| RequestMessageJson {
        role: role.to_owned(),
        content,
        tool_calls: Vec::new(),
        tool_call_id: None,
        reasoning: None,
    };
    let keys = response_keys(thread);
    for (line, record) in thread {
        let content = &record["message"]["content"];
        if is_response(record) {
            let key = keys[line].clone();
            let index = *at.entry(key).or_insert_with(|| {
                sent_before.push(messages.len());
                messages.push(plain("assistant", String::new()));
                messages.len() - 1
            });
            let message = &mut messages[index];
            for block in content.as_array().into_iter().flatten() {
                match block["type"].as_str() {
                    Some("text") => {
                        if !message.content.is_empty() {
                            message.content.push('\n');
                        }
                        message
                            .content
                            .push_str(block["text"].as_str().unwrap_or(""));
                    }
                    Some("tool_use") => message.tool_calls.push(RequestToolCallJson {
                        id: block["id"].as_str().map(str::to_owned),
                        name: block["name"].as_str().unwrap_or("").to_owned(),
                        arguments: block["input"].to_string(),
                    }),
                    _ => {}
                }
            }
        } else if record["type"] == "user" && !content.is_null() {
            let blocks = content.as_array().map(Vec::as_slice).unwrap_or_default();
            let results: Vec<&Json> = blocks
                .iter()
                .filter(|b| b["type"] == "tool_result")
                .collect();
            for result in &results {
                messages.push(RequestMessageJson {
                    tool_call_id: result["tool_use_id"].as_str().map(str::to_owned),
                    ..plain("tool", text(&result["content"]))
                });
            }
            if results.is_empty() {
                messages.push(plain("user", text(content)));
            }
        }
    }
    (messages, sent_before)
}
