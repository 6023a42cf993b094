//! A recorded request as the messages of a prompt: what `as-sent` sends, and what an importer
//! counts when it infers the prefix a log does not hold. One conversion, so that the count an
//! import infers from is the count `ptc ab` and `ptc bill` make.

use ptc_plugin_api::Role;

use crate::message::{BlockSpan, RenderedMessage};
use crate::recording::format::{RequestJson, RequestMessageJson};
use crate::recording::Request;

impl RequestJson {
    /// The request as messages (see [`Request::prompt_messages`]), as an importer holds it.
    pub fn prompt_messages(&self) -> Vec<RenderedMessage> {
        prompt_messages(
            self.tools.as_deref(),
            self.system.as_deref(),
            self.messages.iter(),
        )
    }
}

impl Request {
    /// The request as messages: the tool definitions and the system prompt as the system
    /// message's blocks, then each message as sent, a tool call as its name and arguments after
    /// the text. A `tool` message is sent as the user's. A recording does not say where the
    /// agent asked for caching, so the breakpoints are where a client that caches the
    /// conversation puts them: on the last block of the system prompt and on the last block of
    /// the request. The inferred prefix of a rebuilt request is not text: it is not here
    /// (`Prompt::prefix_tokens` carries it).
    pub fn prompt_messages(&self) -> Vec<RenderedMessage> {
        prompt_messages(
            self.tools.as_deref(),
            self.system.as_deref(),
            self.messages(),
        )
    }
}

/// The messages of a request of `tools`, `system` and `sent`.
fn prompt_messages<'a>(
    tools: Option<&str>,
    system: Option<&str>,
    sent: impl Iterator<Item = &'a RequestMessageJson>,
) -> Vec<RenderedMessage> {
    {
        let mut messages = Vec::new();
        let system_blocks: Vec<&str> = tools
            .into_iter()
            .chain(system)
            .filter(|b| !b.is_empty())
            .collect();
        if !system_blocks.is_empty() {
            messages.push(of_blocks(Role::System, &system_blocks));
        }
        for message in sent {
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
                None => message.content.clone(),
            };
            for call in &message.tool_calls {
                if !content.is_empty() {
                    content.push('\n');
                }
                content.push_str(&call.name);
                content.push(' ');
                content.push_str(&call.arguments);
            }
            messages.push(RenderedMessage::plain(role, content));
        }
        let system = messages.iter().rposition(|m| m.role == Role::System);
        let last = messages.iter().rposition(|m| !m.blocks.is_empty());
        for i in system.into_iter().chain(last) {
            if let Some(block) = messages[i].blocks.last_mut() {
                block.cache_breakpoint = true;
            }
        }
        messages
    }
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
        content,
        blocks: spans,
    }
}
