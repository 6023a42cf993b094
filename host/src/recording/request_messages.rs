//! A recorded request as the messages of a prompt: what `as-sent` sends, and what an importer
//! counts when it infers the prefix a log does not hold. One conversion, so that the count an
//! import infers from is the count `ptc ab` and `ptc bill` make.

use ptc_plugin_api::Role;

use crate::message::{BlockSpan, RenderedMessage};
use crate::recording::format::{RequestJson, RequestMessageJson, RequestToolCallJson};
use crate::recording::Request;

impl RequestJson {
    /// The request as messages (see [`Request::prompt_messages`]), as an importer holds it.
    pub fn prompt_messages(&self) -> Vec<RenderedMessage> {
        prompt_messages(
            self.tools.as_deref(),
            self.system.as_deref(),
            ToolBlocks::of(self.model.as_deref()),
            self.messages.iter(),
            None,
        )
    }
}

impl Request {
    /// The request as messages: the tool definitions and the system prompt as the system
    /// message's blocks, then each message as sent, a tool call after the text ([`ToolBlocks`]
    /// says how). A `tool` message is sent as the user's. A recording does not say where the
    /// agent asked for caching, so the breakpoints are where a client that caches the
    /// conversation puts them: on the last block of the system prompt and on the last block of
    /// the request. The inferred prefix of a rebuilt request is not text: it is not here
    /// (`Prompt::prefix_tokens` carries it).
    pub fn prompt_messages(&self) -> Vec<RenderedMessage> {
        prompt_messages(
            self.tools.as_deref(),
            self.system.as_deref(),
            ToolBlocks::of(self.model.as_deref()),
            self.messages(),
            None,
        )
    }

    /// [`Request::prompt_messages`] of a run's request after the one `sent` made: a message
    /// it sends again in the same place (the same message of the recording, sent to a model of
    /// the same shape) is the same text, shared rather than made again, and so is a system
    /// message of the same blocks; what counts it and searches it next knows it by its address.
    pub fn prompt_messages_after<'r>(
        &'r self,
        sent: &mut SentMessages<'r>,
    ) -> Vec<RenderedMessage> {
        prompt_messages(
            self.tools.as_deref(),
            self.system.as_deref(),
            ToolBlocks::of(self.model.as_deref()),
            self.messages(),
            Some(sent),
        )
    }
}

/// What a run's last request was made into ([`Request::prompt_messages_after`]), before its
/// breakpoints: each message with the recording's message it was made from.
#[derive(Default)]
pub struct SentMessages<'r> {
    shape: Option<ToolBlocks>,
    /// The system message's blocks, and the message.
    system: Option<(Vec<&'r str>, RenderedMessage)>,
    messages: Vec<(&'r RequestMessageJson, RenderedMessage)>,
}

/// How a request's tool calls and tool results are counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ToolBlocks {
    /// A call as its name and arguments; a result as its text.
    Text,
    /// As Anthropic's Messages API body sends them, for a Claude model: a call as its
    /// `tool_use` block (`{"type":"tool_use","id":…,"name":…,"input":…}`), a result as its
    /// `tool_result` block (`{"type":"tool_result","tool_use_id":…,"content":…}`, its text
    /// unescaped), as the log holds them. What a Claude request is billed for these blocks is not
    /// published; their JSON counts closer to it than their bare text (the manual's page on
    /// recordings gives the figures).
    Anthropic,
}

impl ToolBlocks {
    /// The shape of the requests to `model`.
    fn of(model: Option<&str>) -> ToolBlocks {
        match model {
            Some(model) if model.contains("claude") => ToolBlocks::Anthropic,
            _ => ToolBlocks::Text,
        }
    }

    /// A tool call's text.
    fn call(self, call: &RequestToolCallJson) -> String {
        match self {
            ToolBlocks::Text => format!("{} {}", call.name, call.arguments),
            ToolBlocks::Anthropic => {
                let id = serde_json::to_string(call.id.as_deref().unwrap_or_default());
                let name = serde_json::to_string(&call.name);
                let input = if call.arguments.trim().is_empty() {
                    "{}"
                } else {
                    call.arguments.as_str()
                };
                format!(
                    r#"{{"type":"tool_use","id":{},"name":{},"input":{input}}}"#,
                    id.unwrap_or_default(),
                    name.unwrap_or_default()
                )
            }
        }
    }

    /// A tool result's text, answering `id`.
    fn result(self, id: Option<&str>, content: &str) -> String {
        match self {
            ToolBlocks::Text => content.to_owned(),
            // The result's text stays as it was sent to the model, unescaped: what a prompt
            // shows of it (and the literals it holds) is the text, whatever wraps it.
            ToolBlocks::Anthropic => format!(
                r#"{{"type":"tool_result","tool_use_id":{},"content":{content}}}"#,
                serde_json::to_string(id.unwrap_or_default()).unwrap_or_default(),
            ),
        }
    }
}

/// The messages of a request of `tools`, `system` and `sent`, tool blocks shaped as `shape`;
/// those the request before made the same taken from `before`, which is then this request's.
fn prompt_messages<'a>(
    tools: Option<&'a str>,
    system: Option<&'a str>,
    shape: ToolBlocks,
    sent: impl Iterator<Item = &'a RequestMessageJson>,
    mut before: Option<&mut SentMessages<'a>>,
) -> Vec<RenderedMessage> {
    let mut messages = Vec::new();
    let system_blocks: Vec<&str> = tools
        .into_iter()
        .chain(system)
        .filter(|b| !b.is_empty())
        .collect();
    if !system_blocks.is_empty() {
        let made = before
            .as_deref_mut()
            .and_then(|b| b.system.take())
            .filter(|(blocks, _)| *blocks == system_blocks)
            .map(|(_, message)| message);
        let message = made.unwrap_or_else(|| of_blocks(Role::System, &system_blocks));
        if let Some(before) = before.as_deref_mut() {
            before.system = Some((system_blocks, message.clone()));
        }
        messages.push(message);
    }
    let (made, mut now) = match before.as_deref_mut() {
        Some(before) if before.shape == Some(shape) => {
            (std::mem::take(&mut before.messages), Vec::new())
        }
        _ => (Vec::new(), Vec::new()),
    };
    for (i, message) in sent.enumerate() {
        let rendered = match made.get(i) {
            Some((from, made)) if std::ptr::eq(*from, message) => made.clone(),
            _ => of_message(message, shape),
        };
        if before.is_some() {
            now.push((message, rendered.clone()));
        }
        messages.push(rendered);
    }
    if let Some(before) = before {
        before.shape = Some(shape);
        before.messages = now;
    }
    let system = messages.iter().rposition(|m| m.role == Role::System);
    let last = messages.iter().rposition(|m| !m.blocks.is_empty());
    for i in system.into_iter().chain(last) {
        messages[i].mark_last_block();
    }
    messages
}

/// A message as sent, tool blocks shaped as `shape`.
fn of_message(message: &RequestMessageJson, shape: ToolBlocks) -> RenderedMessage {
    let role = match message.role.as_str() {
        "system" => Role::System,
        "assistant" => Role::Assistant,
        _ => Role::User,
    };
    // Reasoning sent back with an assistant message comes before its text.
    let mut content = match &message.reasoning {
        Some(reasoning) if !message.content.is_empty() => {
            format!("{reasoning}\n\n{}", message.content)
        }
        Some(reasoning) => reasoning.clone(),
        None if message.role == "tool" => {
            shape.result(message.tool_call_id.as_deref(), &message.content)
        }
        None => message.content.clone(),
    };
    for call in &message.tool_calls {
        if !content.is_empty() {
            content.push('\n');
        }
        content.push_str(&shape.call(call));
    }
    RenderedMessage::plain(role, content)
}

/// A message of `blocks`, one blank line between two.
fn of_blocks(role: Role, blocks: &[&str]) -> RenderedMessage {
    let mut content = String::new();
    let mut spans = Vec::with_capacity(blocks.len());
    for block in blocks {
        if !content.is_empty() {
            content.push_str("\n\n");
        }
        let start = content.len();
        content.push_str(block);
        spans.push(BlockSpan {
            start,
            end: content.len(),
            cache_breakpoint: false,
        });
    }
    RenderedMessage {
        role,
        content: content.into(),
        blocks: spans.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(model: &str) -> RequestJson {
        serde_json::from_value(serde_json::json!({
            "model": model,
            "messages": [
                {"role": "user", "content": "List the files."},
                {"role": "assistant", "content": "Looking.", "tool_calls": [
                    {"id": "toolu_1", "name": "Bash", "arguments": "{\"command\":\"ls\"}"}]},
                {"role": "tool", "tool_call_id": "toolu_1", "content": "a.txt\n\"b\".txt"}
            ]
        }))
        .unwrap()
    }

    #[test]
    fn a_claude_request_counts_its_tool_blocks_as_the_body_sends_them() {
        let messages = request("claude-sonnet-4-20250514").prompt_messages();
        let texts: Vec<&str> = messages.iter().map(|m| m.content.as_str()).collect();
        assert_eq!(
            texts,
            [
                "List the files.",
                "Looking.\n{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"Bash\",\"input\":{\"command\":\"ls\"}}",
                "{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_1\",\"content\":a.txt\n\"b\".txt}",
            ]
        );
    }

    #[test]
    fn another_model_s_request_counts_a_call_as_its_name_and_arguments() {
        let messages = request("gpt-5.3-codex").prompt_messages();
        let texts: Vec<&str> = messages.iter().map(|m| m.content.as_str()).collect();
        assert_eq!(
            texts,
            [
                "List the files.",
                "Looking.\nBash {\"command\":\"ls\"}",
                "a.txt\n\"b\".txt",
            ]
        );
    }
}
