//! The conversation of an OpenHands run's events, as OpenHands sends it: the messages each
//! rebuilt request is made of.

use std::collections::HashMap;

use serde_json::Value as Json;

use crate::recording::format::{RequestMessageJson, RequestToolCallJson};

/// The conversation the events hold, as OpenHands sends it: the user's messages, each response
/// as one assistant message (its text, else its actions' thoughts, then its tool calls), each
/// observation of a tool call as a `tool` message answering it; and per response (keyed as
/// `response_of` keys them), in order, how many of those messages were sent before it. The
/// system action is not a message: its text and tools are what the inferred prefix stands for.
pub(in crate::recording::import) fn conversation(
    events: &[Json],
    response_of: &HashMap<String, usize>,
) -> (Vec<RequestMessageJson>, Vec<usize>) {
    let mut messages: Vec<RequestMessageJson> = Vec::new();
    let mut sent_before = vec![0; response_of.len()];
    let mut at: HashMap<usize, usize> = HashMap::new();
    let plain = |role: &str, content: &str| RequestMessageJson {
        role: role.to_owned(),
        content: content.to_owned(),
        tool_calls: Vec::new(),
        tool_call_id: None,
        reasoning: None,
    };
    for (i, event) in events.iter().enumerate() {
        let metadata = &event["tool_call_metadata"];
        if event.get("observation").is_some() {
            let call = metadata["tool_call_id"].as_str();
            if call.is_some() {
                messages.push(RequestMessageJson {
                    tool_call_id: call.map(str::to_owned),
                    ..plain("tool", event["content"].as_str().unwrap_or(""))
                });
            }
            continue;
        }
        if event["source"] == "user" && event["action"] == "message" {
            let text = event["args"]["content"]
                .as_str()
                .or(event["message"].as_str());
            messages.push(plain("user", text.unwrap_or("")));
            continue;
        }
        let key = metadata["model_response"]["id"]
            .as_str()
            .map_or_else(|| format!("event {i}"), str::to_owned);
        let Some(&response) = response_of.get(&key) else {
            continue;
        };
        let index = *at.entry(response).or_insert_with(|| {
            sent_before[response] = messages.len();
            let sent = &metadata["model_response"]["choices"][0]["message"]["content"];
            messages.push(plain("assistant", sent.as_str().unwrap_or("")));
            messages.len() - 1
        });
        let message = &mut messages[index];
        let args = &event["args"];
        if metadata["model_response"].is_null() {
            for text in [&args["thought"], &args["content"]] {
                if let Some(text) = text.as_str().filter(|t| !t.is_empty()) {
                    if !message.content.is_empty() {
                        message.content.push('\n');
                    }
                    message.content.push_str(text);
                }
            }
        }
        if let Some(name) = metadata["function_name"].as_str() {
            let sent = metadata["model_response"]["choices"][0]["message"]["tool_calls"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|c| c["id"] == metadata["tool_call_id"])
                .and_then(|c| c["function"]["arguments"].as_str());
            message.tool_calls.push(RequestToolCallJson {
                id: metadata["tool_call_id"].as_str().map(str::to_owned),
                name: name.to_owned(),
                arguments: sent.map_or_else(|| args.to_string(), str::to_owned),
            });
        }
    }
    (messages, sent_before)
}
