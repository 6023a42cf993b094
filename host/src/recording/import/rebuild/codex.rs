//! The conversation of a Codex CLI rollout, as Codex sends it to the Responses API, written
//! as OpenAI chat messages: the messages each rebuilt request is made of.

use std::ops::Range;

use serde_json::Value as Json;

use crate::recording::format::{RequestMessageJson, RequestToolCallJson};
use crate::recording::import::codex::output_text;
use crate::recording::import::content_text;

/// The conversation read so far from a rollout's response items, and what each call sent.
///
/// The user's and developer's messages are sent as written; what the model wrote in one
/// response (its `assistant` messages, then its calls) is one assistant message; a call's
/// output is a `tool` message answering its `call_id`. Reasoning is left out: Codex sends it
/// back encrypted, which is no text to count. A `compacted` record replaces the history before
/// it: with its `replacement_history`, else with its summary message, so a request after it
/// repeats nothing of the one before.
#[derive(Default)]
pub(in crate::recording::import) struct Conversation {
    /// Every message read, in order; the history sent is `messages[start..]`.
    pub messages: Vec<RequestMessageJson>,
    start: usize,
    /// The assistant message the model's items are joined to, until an input comes between.
    open: Option<usize>,
    /// What the call being read sent: the history when its first item came.
    sent: Option<Range<usize>>,
}

impl Conversation {
    /// Takes in one response item.
    pub fn item(&mut self, item: &Json) {
        let kind = item["type"].as_str().unwrap_or("");
        let written = kind == "reasoning"
            || kind.ends_with("_call")
            || (kind == "message" && item["role"] == "assistant");
        if written && self.sent.is_none() {
            self.sent = Some(self.start..self.messages.len());
        }
        match kind {
            "message" if item["role"] == "assistant" => {
                let text = content_text(&item["content"]);
                let message = self.assistant();
                if !message.content.is_empty() {
                    message.content.push('\n');
                }
                message.content.push_str(&text);
            }
            "message" => {
                self.open = None;
                let role = item["role"].as_str().unwrap_or("user");
                self.messages
                    .push(plain(role, content_text(&item["content"])));
            }
            _ if kind.ends_with("_call_output") => {
                self.open = None;
                self.messages.push(RequestMessageJson {
                    tool_call_id: item["call_id"].as_str().map(str::to_owned),
                    ..plain("tool", output_text(&item["output"]))
                });
            }
            _ if kind.ends_with("_call") => {
                let arguments = match (&item["arguments"], &item["input"], &item["action"]) {
                    (Json::String(text), _, _) | (_, Json::String(text), _) => text.clone(),
                    (_, _, action @ Json::Object(_)) => action.to_string(),
                    _ => String::new(),
                };
                let call = RequestToolCallJson {
                    id: item["call_id"]
                        .as_str()
                        .or(item["id"].as_str())
                        .map(str::to_owned),
                    name: item["name"].as_str().unwrap_or(kind).to_owned(),
                    arguments,
                };
                self.assistant().tool_calls.push(call);
            }
            _ => {}
        }
    }

    /// Takes in a `compacted` record's payload: the history from now on.
    pub fn compacted(&mut self, payload: &Json) {
        let sent = self.sent.take();
        self.open = None;
        self.start = self.messages.len();
        match payload["replacement_history"].as_array() {
            Some(items) => items.iter().for_each(|item| self.item(item)),
            None => {
                let summary = payload["message"].as_str().unwrap_or("");
                self.messages.push(plain("user", summary.to_owned()));
            }
        }
        // The replaced history is an input, not a response of the call being read.
        self.open = None;
        self.sent = sent;
    }

    /// The messages the call just read sent (the history when it first wrote, else now), and
    /// the next call's begin.
    pub fn call(&mut self) -> Range<usize> {
        self.open = None;
        self.sent.take().unwrap_or(self.start..self.messages.len())
    }

    fn assistant(&mut self) -> &mut RequestMessageJson {
        let index = *self.open.get_or_insert_with(|| {
            self.messages.push(plain("assistant", String::new()));
            self.messages.len() - 1
        });
        &mut self.messages[index]
    }
}

fn plain(role: &str, content: String) -> RequestMessageJson {
    RequestMessageJson {
        role: role.to_owned(),
        content,
        tool_calls: Vec::new(),
        tool_call_id: None,
        reasoning: None,
    }
}
