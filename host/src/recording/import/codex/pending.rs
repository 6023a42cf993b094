//! The turn a Codex rollout is gathering: the response items the model wrote for one call
//! (its messages, reasoning summaries and tool calls), walked as the rollout's lines go by.

use serde_json::{json, Value as Json};

use super::super::content_text;
use crate::tokens::redaction::marker;

/// The turn being gathered: the response items of one call, and when its request was sent.
#[derive(Default)]
pub(super) struct Pending {
    pub(super) raw: Vec<String>,
    pub(super) program: Vec<String>,
    /// Each call: its name, its arguments, its `call_id`.
    pub(super) calls: Vec<(String, Json, Option<String>)>,
    pub(super) started_at: Option<f64>,
    pub(super) first_item_at: Option<f64>,
}

impl Pending {
    pub(super) fn is_empty(&self) -> bool {
        self.raw.is_empty() && self.calls.is_empty()
    }

    /// Takes in one response item the model wrote; inputs (user and developer messages, tool
    /// outputs) are not the turn's.
    pub(super) fn take(&mut self, item: &Json, at: Option<f64>) {
        let kind = item["type"].as_str().unwrap_or("");
        let before = (self.raw.len(), self.calls.len());
        match kind {
            "message" if item["role"] == "assistant" => {
                self.raw.push(content_text(&item["content"]));
            }
            "reasoning" => {
                let summary = content_text(&item["summary"]);
                let content = content_text(&item["content"]);
                self.raw
                    .extend([summary, content].into_iter().filter(|t| !t.is_empty()));
            }
            _ if kind.ends_with("_call") => {
                let name = item["name"].as_str().unwrap_or(kind);
                // A redacted name is no name a prompt can show: its marker, bracketless.
                let name = if marker(name).is_some() {
                    name.trim_matches(|c| c == '[' || c == ']')
                        .replace(' ', "_")
                } else {
                    name.to_owned()
                };
                let (args, written) = match (&item["arguments"], &item["input"], &item["action"]) {
                    (Json::String(text), _, _) => match serde_json::from_str::<Json>(text) {
                        Ok(object @ Json::Object(_)) => (object, text.clone()),
                        _ => (json!({ "arguments": text }), text.clone()),
                    },
                    (_, Json::String(text), _) => (json!({ "input": text }), text.clone()),
                    (_, _, action @ Json::Object(_)) => (action.clone(), action.to_string()),
                    _ => (json!({}), String::new()),
                };
                self.program
                    .push(format!("{name} {written}").trim_end().to_owned());
                let id = item["call_id"].as_str().or(item["id"].as_str());
                self.calls.push((name, args, id.map(str::to_owned)));
            }
            _ => {}
        }
        if (self.raw.len(), self.calls.len()) != before && self.first_item_at.is_none() {
            self.first_item_at = at;
        }
    }
}
