//! What each provider's request body carries of a prompt's messages, defined once: the token
//! counts ([`crate::tokens`]) count it, and the request bodies (`render::request`) send it.
//!
//! - **OpenAI's Chat Completions** ([`openai_messages`]): each message as one string, its text;
//!   a message whose text is empty or only whitespace is left out.
//! - **Anthropic's Messages API** ([`anthropic_blocks`]): each block of a message as a text
//!   block of its own. Anthropic rejects a text block that is empty or only whitespace, so such
//!   a block is left out and its breakpoint moves to the block sent before it (which ends the
//!   same prefix); a message left with no block is left out; the trailing whitespace of a final
//!   assistant message (a prefill the reply continues, which Anthropic rejects with trailing
//!   whitespace) is trimmed. The body puts the system messages' blocks in its top-level
//!   `system` array, in order; ptc's prompts lead with them, so the blocks are counted in the
//!   order of the messages.

use ptc_plugin_api::Role;

use super::RenderedMessage;

/// Whether a request body leaves out a block (Anthropic) or a message (OpenAI) of this text:
/// it is whitespace only (what `trim` takes away), read up to its first other character.
pub fn blank(text: &str) -> bool {
    text.chars().all(char::is_whitespace)
}

/// The messages of `messages` an OpenAI Chat Completions body sends, each whole.
pub fn openai_messages(messages: &[RenderedMessage]) -> impl Iterator<Item = &RenderedMessage> {
    openai_indexed(messages).map(|(_, m)| m)
}

/// [`openai_messages`], each with its index in `messages`.
pub fn openai_indexed(
    messages: &[RenderedMessage],
) -> impl Iterator<Item = (usize, &RenderedMessage)> {
    messages
        .iter()
        .enumerate()
        .filter(|(_, m)| !blank(&m.content))
}

/// One text block of an Anthropic Messages API body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SentBlock<'a> {
    /// The message it is a block of: its index among the prompt's messages.
    pub message: usize,
    /// Its index among that message's blocks.
    pub block: usize,
    pub role: Role,
    /// Its text as sent (a final assistant message's last block without its trailing
    /// whitespace).
    pub text: &'a str,
    /// Whether it carries a breakpoint: its own, or a left-out block's after it.
    pub breakpoint: bool,
    /// Whether it opens its message in the body.
    pub first: bool,
}

/// The blocks of `messages` as an Anthropic Messages API body sends them, in order.
pub fn anthropic_blocks(messages: &[RenderedMessage]) -> AnthropicBlocks<'_> {
    anthropic_blocks_from(messages, 0)
}

/// [`anthropic_blocks`] from message `from` on: those of the body's blocks its messages from
/// `from` on send, as they are in the whole body.
pub fn anthropic_blocks_from(messages: &[RenderedMessage], from: usize) -> AnthropicBlocks<'_> {
    AnthropicBlocks {
        messages,
        prefill: prefill(messages),
        message: from,
        block: 0,
        opened: None,
    }
}

/// The iterator of [`anthropic_blocks`].
pub struct AnthropicBlocks<'a> {
    messages: &'a [RenderedMessage],
    /// The (message, block) whose trailing whitespace the body trims.
    prefill: Option<(usize, usize)>,
    /// The next (message, block) to look at.
    message: usize,
    block: usize,
    /// The last message a block was sent of.
    opened: Option<usize>,
}

impl<'a> AnthropicBlocks<'a> {
    /// The text and breakpoint of block `b` of message `m`.
    fn at(&self, m: usize, b: usize) -> (&'a str, bool) {
        let message = &self.messages[m];
        let span = message.blocks[b];
        (
            &message.content[span.start..span.end],
            span.cache_breakpoint,
        )
    }

    /// The position after (`m`, `b`).
    fn after(&self, m: usize, b: usize) -> (usize, usize) {
        if b + 1 < self.messages[m].blocks.len() {
            (m, b + 1)
        } else {
            (m + 1, 0)
        }
    }

    /// Whether a block left out between (`m`, `b`) and the next block sent has a breakpoint.
    fn breakpoint_left_out_after(&self, m: usize, b: usize) -> bool {
        let (mut m, mut b) = self.after(m, b);
        while m < self.messages.len() {
            if b < self.messages[m].blocks.len() {
                let (text, breakpoint) = self.at(m, b);
                if !blank(text) {
                    return false;
                }
                if breakpoint {
                    return true;
                }
            }
            (m, b) = self.after(m, b);
        }
        false
    }
}

impl<'a> Iterator for AnthropicBlocks<'a> {
    type Item = SentBlock<'a>;

    fn next(&mut self) -> Option<SentBlock<'a>> {
        while self.message < self.messages.len() {
            let (m, b) = (self.message, self.block);
            if b >= self.messages[m].blocks.len() {
                (self.message, self.block) = (m + 1, 0);
                continue;
            }
            (self.message, self.block) = self.after(m, b);
            let (text, own) = self.at(m, b);
            if blank(text) {
                continue;
            }
            let text = if self.prefill == Some((m, b)) {
                text.trim_end()
            } else {
                text
            };
            let first = self.opened != Some(m);
            self.opened = Some(m);
            return Some(SentBlock {
                message: m,
                block: b,
                role: self.messages[m].role,
                text,
                breakpoint: own || self.breakpoint_left_out_after(m, b),
                first,
            });
        }
        None
    }
}

/// The block whose trailing whitespace the body trims: the last block sent of the last message
/// sent that is not a system message, when that message is the assistant's (a prefill).
fn prefill(messages: &[RenderedMessage]) -> Option<(usize, usize)> {
    let (m, message) = messages
        .iter()
        .enumerate()
        .rev()
        .filter(|(_, m)| m.role != Role::System)
        .find(|(_, m)| m.block_texts().any(|(text, _)| !blank(text)))?;
    if message.role != Role::Assistant {
        return None;
    }
    let b = message
        .blocks
        .iter()
        .rposition(|span| !blank(&message.content[span.start..span.end]))
        .expect("the message has a block that is not blank");
    Some((m, b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::message_of_blocks as message;

    fn sent(messages: &[RenderedMessage]) -> Vec<(usize, &str, bool, bool)> {
        anthropic_blocks(messages)
            .map(|b| (b.message, b.text, b.breakpoint, b.first))
            .collect()
    }

    #[test]
    fn a_blank_text_is_whitespace_only() {
        for (text, is_blank) in [
            ("", true),
            (" \n\t", true),
            ("\u{3000}\u{a0}", true),
            (" a", false),
            ("a ", false),
            ("\n.\n", false),
        ] {
            assert_eq!(blank(text), is_blank, "{text:?}");
            assert_eq!(blank(text), text.trim().is_empty(), "{text:?}");
        }
    }

    #[test]
    fn blank_blocks_and_messages_are_left_out_and_their_breakpoints_move_back() {
        let messages = [
            message(Role::System, &[(" ", true), ("system", false)]),
            message(Role::User, &[("a", false), ("  \n", true)]),
            message(Role::User, &[("\n", true)]),
            message(Role::Assistant, &[("b", false), ("c", false)]),
            message(Role::User, &[("d ", false), ("", false)]),
        ];
        assert_eq!(
            sent(&messages),
            [
                (0, "system", false, true),
                (1, "a", true, true),
                (3, "b", false, true),
                (3, "c", false, false),
                (4, "d ", false, true),
            ]
        );
        let openai: Vec<&str> = openai_messages(&messages)
            .map(|m| m.content.as_str())
            .collect();
        assert_eq!(openai, [" \n\nsystem", "a\n\n  \n", "b\n\nc", "d \n\n"]);
    }

    #[test]
    fn only_a_final_assistant_message_loses_its_trailing_whitespace() {
        let prefill = [
            message(Role::User, &[("q ", false)]),
            message(Role::Assistant, &[("so \n", true), (" ", false)]),
            message(Role::System, &[("late", false)]),
        ];
        assert_eq!(
            sent(&prefill),
            [
                (0, "q ", false, true),
                (1, "so", true, true),
                (2, "late", false, true)
            ]
        );
        let answered = [
            message(Role::Assistant, &[("so \n", false)]),
            message(Role::User, &[("q ", false)]),
        ];
        assert_eq!(
            sent(&answered),
            [(0, "so \n", false, true), (1, "q ", false, true)]
        );
        assert!(sent(&[message(Role::User, &[(" ", true)])]).is_empty());
    }
}
