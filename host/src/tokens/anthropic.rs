//! Counting a prompt as Anthropic's Messages API body sends it ([`Counting::AnthropicBlocks`]):
//! the blocks [`wire::anthropic_blocks`] sends, each a text block of its own, so a request's
//! tokens are the tokens of those blocks' texts, with nothing between two blocks and no
//! per-message overhead.
//!
//! [`Counting::AnthropicBlocks`]: super::Counting::AnthropicBlocks

use std::hash::{Hash, Hasher};
use std::sync::Arc;

use ptc_plugin_api::Role;
use rustc_hash::FxHasher;

use super::recent::{self, After, Format, Known};
use super::{common_prefix, Counter};
use crate::cache::{CacheBlock, CacheRequest};
use crate::message::wire::{self, blank};
use crate::message::RenderedMessage;

/// The blocks of one message text as the body sends them, counted once per run.
pub(super) struct SentBlocks {
    /// The blocks, as byte ranges of the text.
    spans: Vec<(usize, usize)>,
    /// Per block: its tokens, 0 for a blank one (the body leaves it out).
    tokens: Vec<usize>,
    /// Per block: a hash of its text.
    hashes: Vec<u64>,
}

impl Counter {
    /// The blocks of a message of a request as the body sends them, counted once while the
    /// requests after it repeat it, and once per distinct text and layout in a run.
    fn sent_blocks<'k>(&mut self, known: &'k mut Known) -> &'k SentBlocks {
        if known.sent.is_none() {
            #[cfg(test)]
            {
                self.counted_anew += 1;
            }
            let hash = known.text_hash();
            let message = &known.message;
            let counted = self
                .sent
                .get(hash, &message.content, |counted| {
                    message.laid_out_as(&counted.spans)
                })
                .cloned();
            let blocks = match counted {
                Some(blocks) => blocks,
                None => {
                    let blocks = Arc::new(self.sent_blocks_of(message, hash));
                    self.sent
                        .insert(hash, message.content.clone(), blocks.clone());
                    blocks
                }
            };
            known.sent = Some(blocks);
        }
        known.sent.as_ref().expect("counted above")
    }

    /// Counts the blocks of `message`, each line once; `hash` is its whole text's
    /// ([`text_hash`](super::by_text::text_hash)), which a block of the whole text takes.
    fn sent_blocks_of(&mut self, message: &RenderedMessage, hash: u64) -> SentBlocks {
        let n = message.blocks.len();
        let mut blocks = SentBlocks {
            spans: Vec::with_capacity(n),
            tokens: Vec::with_capacity(n),
            hashes: Vec::with_capacity(n),
        };
        for span in message.blocks.iter() {
            let text = &message.content[span.start..span.end];
            let tokens = if blank(text) { 0 } else { self.count(text) };
            let whole = text.len() == message.content.len();
            blocks.spans.push((span.start, span.end));
            blocks.tokens.push(tokens);
            blocks.hashes.push(match whole {
                true => hash,
                false => super::by_text::text_hash(text),
            });
        }
        blocks
    }

    /// The request `messages` make after `previous`, as a prompt cache sees the body: its
    /// blocks ([`Counter::blocks_sent`]), its tokens (where its last block ends: the body has
    /// nothing else to count) and the tokens it shares with `previous` as an exact prefix
    /// (whole equal blocks, then the equal start of the first differing one).
    pub(super) fn request_sent(
        &mut self,
        previous: &[RenderedMessage],
        messages: &[RenderedMessage],
        at: Option<f64>,
    ) -> CacheRequest {
        let mut known = self.recent.take(messages);
        let blocks = self.blocks_sent(messages, &mut known);
        let tokens = blocks.last().map_or(0, |b| b.end);
        let shared = if previous.is_empty() {
            0
        } else {
            self.shared_sent(previous, messages, &known, &blocks)
        };
        self.recent.put(known);
        CacheRequest {
            blocks,
            tokens,
            shared: shared.min(tokens),
            at,
        }
    }

    /// Tokens of the longest prefix the body of `messages` (counted as `blocks`, their
    /// [`Known::after`] set) shares with the body of `previous`: the blocks equal in both, in
    /// messages of the same roles cut at the same blocks, then the equal start of the first
    /// block that differs. The blocks of the messages both start with, up to one that ends
    /// what they send ([`ends_what_is_sent_before`]), are equal without being compared.
    fn shared_sent(
        &mut self,
        previous: &[RenderedMessage],
        messages: &[RenderedMessage],
        known: &[Known],
        blocks: &[CacheBlock],
    ) -> usize {
        let same = previous
            .iter()
            .zip(messages)
            .take_while(|(a, b)| a == b)
            .count();
        let from = (0..same)
            .rev()
            .find(|&at| ends_what_is_sent_before(&messages[at]))
            .unwrap_or(0);
        let mut equal = match from.checked_sub(1) {
            Some(last) => known[last].after[SENT].as_ref().expect("set").blocks,
            None => 0,
        };
        let mut partial = 0;
        let old = wire::anthropic_blocks_from(previous, from);
        for (old, new) in old.zip(wire::anthropic_blocks_from(messages, from)) {
            if old.first != new.first || old.role != new.role {
                break;
            }
            // A block of a shared message is the same text: not compared byte by byte.
            let same = std::ptr::eq(old.text, new.text) || old.text == new.text;
            if !same {
                let common = common_prefix(old.text, new.text).len();
                if common > 0 {
                    partial = self.count_before(new.text, common);
                }
                break;
            }
            equal += 1;
        }
        equal.checked_sub(1).map_or(0, |last| blocks[last].end) + partial
    }

    /// The blocks of `messages` as a prompt cache sees the body: the blocks it sends, each with
    /// the tokens of the body's blocks up to its end and a key of the prefix it ends (its own
    /// and every earlier block's text, role and message; a breakpoint of a block left out is on
    /// the block before it). `known` are the messages as [`Recent::take`] gave them: the blocks
    /// of those a request counted lately started with, up to one that ends what they send
    /// ([`ends_what_is_sent_before`]), are that request's, and each message's
    /// [`Known::after`] is set.
    ///
    /// [`Recent::take`]: super::recent::Recent::take
    pub(super) fn blocks_sent(
        &mut self,
        messages: &[RenderedMessage],
        known: &mut [Known],
    ) -> Vec<CacheBlock> {
        // The messages counted with these before: up to the last that ends what is sent before
        // it; its own blocks may depend on the messages after it.
        let counted = recent::counted(known, Format::Sent);
        let from = (0..counted)
            .rev()
            .find(|&at| ends_what_is_sent_before(&messages[at]))
            .unwrap_or(0);
        let (mut blocks, start) = self.recent.resume(known, Format::Sent, from);
        let (mut before, mut key, mut sent_messages) = (start.tokens, start.key, start.messages);
        // The next message whose end is to be noted.
        let mut noted = from;
        for block in wire::anthropic_blocks_from(messages, from) {
            if noted < block.message {
                let end = After::at(&blocks, before, &key, sent_messages);
                note(known, &mut noted, block.message, &end);
            }
            let message = &messages[block.message];
            if block.first {
                sent_messages.hash(&mut key);
                sent_messages += 1;
                message.role.as_str().hash(&mut key);
            }
            let span = message.blocks[block.block];
            if block.text.len() == span.end - span.start {
                let counted = self.sent_blocks(&mut known[block.message]);
                key.write_u64(counted.hashes[block.block]);
                before += counted.tokens[block.block];
            } else {
                // A prefill, trimmed: its text is not the block's.
                let mut hash = FxHasher::default();
                block.text.hash(&mut hash);
                key.write_u64(hash.finish());
                before += self.count(block.text);
            }
            blocks.push(CacheBlock {
                end: before,
                prefix: key.finish(),
                strategy_breakpoint: block.breakpoint,
                system: block.role == Role::System,
                assistant: block.role == Role::Assistant,
            });
        }
        let end = After::at(&blocks, before, &key, sent_messages);
        note(known, &mut noted, messages.len(), &end);
        self.recent.blocks(Format::Sent).clone_from(&blocks);
        blocks
    }
}

const SENT: usize = Format::Sent as usize;

/// Notes `after` as where the blocks stand at the end of each message from `noted` to `upto`
/// (those that send no block after the last noted), and moves `noted` there.
fn note(known: &mut [Known], noted: &mut usize, upto: usize, after: &After) {
    for message in &mut known[*noted..upto] {
        message.after[SENT] = Some(after.clone());
    }
    *noted = upto;
}

/// Whether `message` ends what the body sends before it, in any request it is part of: it
/// sends a block (which ends the breakpoints of the blank blocks before it moving back) and is
/// not a system message (so that the body's last message that is not one, whose last block it
/// trims, is this one or one after it). The blocks before it are then the same in every request
/// that starts with the same messages.
fn ends_what_is_sent_before(message: &RenderedMessage) -> bool {
    message.role != Role::System && message.block_texts().any(|(text, _)| !blank(text))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::message_of_blocks as message;
    use crate::tokens::{Counting, Tokenizer, MESSAGE_OVERHEAD, REPLY_PRIMING};

    /// In `o200k_base`: "Hello, world!" is 4 tokens (`Hello` `,` ` world` `!`), "one two" 2,
    /// "three four five" 3, "system" and "user" 1 each, and the blank line between two blocks
    /// 1 (`\n\n`).
    #[test]
    fn each_format_counts_what_its_request_sends() {
        let o200k = Tokenizer::O200kBase;
        for (text, tokens) in [
            ("Hello, world!", 4),
            ("one two", 2),
            ("three four five", 3),
            ("system", 1),
            ("user", 1),
            ("one two\n\nthree four five", 6),
        ] {
            assert_eq!(o200k.count(text), tokens, "{text:?}");
        }
        let messages = [
            message(Role::System, &[("Hello, world!", false)]),
            message(Role::User, &[("one two", false), ("three four five", true)]),
        ];
        let mut counter = Counter::new(o200k);
        // OpenAI: 3 for the reply, then per message 3 + its role + its one string.
        assert_eq!(REPLY_PRIMING + MESSAGE_OVERHEAD * 2, 9);
        assert_eq!(
            counter.prompt_as(Counting::OpenAiChat, &messages),
            3 + (3 + 1 + 4) + (3 + 1 + 6)
        );
        // Anthropic: the three blocks' texts, nothing between them, no overhead.
        assert_eq!(
            counter.prompt_as(Counting::AnthropicBlocks, &messages),
            4 + 2 + 3
        );
        let request = counter.request_as(Counting::AnthropicBlocks, &[], &messages, Some(2.0));
        let ends: Vec<usize> = request.blocks.iter().map(|b| b.end).collect();
        assert_eq!(ends, [4, 4 + 2, 4 + 2 + 3]);
        assert_eq!(request.tokens, 9);
        assert_eq!(request.shared, 0);
        assert_eq!(request.at, Some(2.0));
        let marks: Vec<bool> = request
            .blocks
            .iter()
            .map(|b| b.strategy_breakpoint)
            .collect();
        assert_eq!(marks, [false, false, true]);
        let system: Vec<bool> = request.blocks.iter().map(|b| b.system).collect();
        assert_eq!(system, [true, false, false]);
    }

    /// As the body leaves them out: a blank block (its breakpoint on the block before it), a
    /// message of blank blocks only, and the trailing whitespace of a final assistant message.
    #[test]
    fn what_the_body_leaves_out_is_not_counted() {
        let o200k = Tokenizer::O200kBase;
        let mut counter = Counter::new(o200k);
        let messages = [
            message(Role::System, &[("Hello, world!", false)]),
            message(Role::User, &[("  \n", true)]),
            message(
                Role::User,
                &[
                    ("one two", false),
                    ("\n\n ", true),
                    ("three four five", false),
                ],
            ),
            message(
                Role::Assistant,
                &[("one two", false), ("three four five\n\n  ", false)],
            ),
        ];
        let request = counter.request_as(Counting::AnthropicBlocks, &[], &messages, None);
        let ends: Vec<usize> = request.blocks.iter().map(|b| b.end).collect();
        // Hello, world! | one two | three four five | one two | three four five (trimmed).
        assert_eq!(ends, [4, 6, 9, 11, 14]);
        assert_eq!(request.tokens, 14);
        let marks: Vec<bool> = request
            .blocks
            .iter()
            .map(|b| b.strategy_breakpoint)
            .collect();
        // The blank user message's breakpoint is on the system block, the blank block's on
        // "one two".
        assert_eq!(marks, [true, true, false, false, false]);
        assert_eq!(
            counter.prompt_as(Counting::AnthropicBlocks, &messages),
            request.tokens
        );
        // Not final, the assistant message is sent whole: its last block's trailing line
        // breaks count.
        let mut longer = messages.to_vec();
        longer.push(message(Role::User, &[("Hello, world!", false)]));
        let tail = o200k.count("three four five\n\n  ") - 3;
        assert!(tail > 0);
        assert_eq!(
            counter.prompt_as(Counting::AnthropicBlocks, &longer),
            14 + tail + 4
        );
    }

    /// The blocks' ends and the request's tokens are one count: the last block ends where
    /// the request ends, each block where the tokens of the body's blocks up to it end, and
    /// the shared prefix is that of the blocks.
    #[test]
    fn block_ends_and_the_total_agree() {
        let o200k = Tokenizer::O200kBase;
        let mut counter = Counter::new(o200k);
        let texts = [
            "(def x 1)\n;; one\n  two  ",
            "three four\nfive\n\n\nsix",
            "seven eight\nnine",
        ];
        let previous = [
            message(Role::System, &[(texts[0], true)]),
            message(Role::User, &[(texts[1], false), ("three four five", true)]),
        ];
        let messages = [
            message(Role::System, &[(texts[0], true)]),
            message(
                Role::User,
                &[
                    (texts[1], false),
                    ("three four six", false),
                    (texts[2], true),
                ],
            ),
        ];
        let request = counter.request_as(Counting::AnthropicBlocks, &previous, &messages, None);
        let mut end = 0;
        let mut expected = Vec::new();
        for text in [texts[0], texts[1], "three four six", texts[2]] {
            end += o200k.count(text);
            expected.push(end);
        }
        let ends: Vec<usize> = request.blocks.iter().map(|b| b.end).collect();
        assert_eq!(ends, expected);
        assert_eq!(request.tokens, *ends.last().unwrap());
        // Shared: the first two blocks, then "three four" of the third (`three` ` four`).
        assert_eq!(request.shared, ends[1] + 2);
        assert_eq!(
            counter.measure_as(Counting::AnthropicBlocks, &previous, &messages),
            (request.tokens, request.shared)
        );
        // Equal prompts share every token; equal prefixes have equal keys.
        let again = counter.request_as(Counting::AnthropicBlocks, &messages, &messages, None);
        assert_eq!(again.shared, again.tokens);
        assert_eq!(again.blocks, request.blocks);
        let before = counter.request_as(Counting::AnthropicBlocks, &[], &previous, None);
        let same: Vec<bool> = before
            .blocks
            .iter()
            .zip(&request.blocks)
            .map(|(a, b)| a.prefix == b.prefix)
            .collect();
        assert_eq!(same, [true, true, false]);
        // The same text in another role is another prefix.
        let mut assistant = messages.clone();
        assistant[1].role = Role::Assistant;
        let other = counter.request_as(Counting::AnthropicBlocks, &[], &assistant, None);
        assert_ne!(other.blocks[1].prefix, request.blocks[1].prefix);
        assert_eq!(other.blocks[0].prefix, request.blocks[0].prefix);
    }

    #[test]
    fn a_provider_counts_as_its_caching_rule_says() {
        use crate::cache::Caching;
        assert_eq!(Counting::of(Caching::Explicit), Counting::AnthropicBlocks);
        assert_eq!(Counting::of(Caching::Implicit), Counting::OpenAiChat);
    }
}
