//! Counting a prompt's cache blocks as OpenAI's chat body sends it
//! ([`Counting::OpenAiChat`](super::Counting::OpenAiChat)): one string per message, a
//! message's overhead and role counted with its first block.

use std::hash::{Hash, Hasher};
use std::sync::Arc;

use super::recent::{self, After, Format, Known};
use super::{lines, Counter, MESSAGE_OVERHEAD};
use crate::cache::{CacheBlock, CacheRequest};
use crate::message::{wire, RenderedMessage};

/// Where the cache blocks of one message text end.
pub(super) struct BlockEnds {
    /// The tokens of the whole text.
    tokens: usize,
    /// The blocks, as byte ranges of the text.
    spans: Vec<(usize, usize)>,
    /// Per block: the tokens of the text up to where it ends.
    ends: Vec<usize>,
    /// Per block: a hash of its text.
    hashes: Vec<u64>,
}

impl Counter {
    /// The blocks of `messages` as a prompt cache sees them in OpenAI's chat format: each with
    /// the tokens of the request up to its end (a message's overhead and role count with its first block, the
    /// blank line between two blocks with the first of them, the reply priming after the last)
    /// and a key of the prefix it ends (its own and every earlier block's text, role and
    /// message). The blocks of the messages a request counted lately started with are that
    /// request's ([`recent`](super::recent)): a message's blocks follow from the ones before.
    pub fn blocks(&mut self, messages: &[RenderedMessage]) -> Vec<CacheBlock> {
        const CHAT: usize = Format::Chat as usize;
        let mut known = self.recent.take(messages);
        let from = recent::counted(&known, Format::Chat);
        let (mut blocks, start) = self.recent.resume(&known, Format::Chat, from);
        let (mut before, mut key, mut sent) = (start.tokens, start.key, start.messages);
        for (at, message) in messages.iter().enumerate().skip(from) {
            // A blank message is not sent.
            if !wire::blank(&message.content) {
                let head = MESSAGE_OVERHEAD + self.text(message.role.as_str());
                sent.hash(&mut key);
                message.role.as_str().hash(&mut key);
                let ends = self.block_ends(&mut known[at]);
                for ((span, end), hash) in message.blocks.iter().zip(&ends.ends).zip(&ends.hashes) {
                    key.write_u64(*hash);
                    blocks.push(CacheBlock {
                        end: before + head + end,
                        prefix: key.finish(),
                        strategy_breakpoint: span.cache_breakpoint,
                        system: message.role == ptc_plugin_api::Role::System,
                        assistant: message.role == ptc_plugin_api::Role::Assistant,
                    });
                }
                before += head + ends.tokens;
                sent += 1;
            }
            known[at].after[CHAT] = Some(After::at(&blocks, before, &key, sent));
        }
        self.recent.blocks(Format::Chat).clone_from(&blocks);
        self.recent.put(known);
        blocks
    }

    /// Where the blocks of a message of a request end, counted once while the requests after
    /// it repeat it, and once per distinct text and layout in a run.
    fn block_ends<'k>(&mut self, known: &'k mut Known) -> &'k BlockEnds {
        if known.ends.is_none() {
            #[cfg(test)]
            {
                self.counted_anew += 1;
            }
            let hash = known.text_hash();
            let message = &known.message;
            let counted = self
                .block_ends
                .get(hash, &message.content, |counted| {
                    message.laid_out_as(&counted.spans)
                })
                .cloned();
            let ends = match counted {
                Some(ends) => ends,
                None => {
                    let spans = message.blocks.iter().map(|b| (b.start, b.end)).collect();
                    let ends = Arc::new(self.block_ends_of(&message.content, spans, hash));
                    self.block_ends
                        .insert(hash, message.content.clone(), ends.clone());
                    ends
                }
            };
            known.ends = Some(ends);
        }
        known.ends.as_ref().expect("counted above")
    }

    /// Where the blocks `spans` of `content` end, counted in one pass over its lines: the
    /// tokens of its whole lines before each block's limit (the start of the next block, or
    /// the end), then of the pieces of the line the limit cuts.
    /// `hash` is the whole text's ([`text_hash`](super::by_text::text_hash)): a block that is
    /// the whole text takes it.
    fn block_ends_of(&mut self, content: &str, spans: Vec<(usize, usize)>, hash: u64) -> BlockEnds {
        let tokens = self.text(content);
        let mut lines = lines(content).peekable();
        let (mut whole, mut offset) = (0usize, 0usize);
        let mut ends = Vec::with_capacity(spans.len());
        let mut hashes = Vec::with_capacity(spans.len());
        for (b, &(start, end)) in spans.iter().enumerate() {
            hashes.push(match (start, end) == (0, content.len()) {
                true => hash,
                false => super::by_text::text_hash(&content[start..end]),
            });
            // The last block ends with the text: its tokens, counted as the text's are (from
            // where a long text counted lately differs), not line by line again.
            let Some(next) = spans.get(b + 1) else {
                ends.push(tokens);
                break;
            };
            let limit = next.0;
            while let Some(line) = lines.next_if(|line| offset + line.len() <= limit) {
                whole += self.line(line);
                offset += line.len();
            }
            let cut = match lines.peek() {
                Some(line) if offset < limit => self.count_pieces_before(line, limit - offset),
                _ => 0,
            };
            ends.push(whole + cut);
        }
        BlockEnds {
            tokens,
            spans,
            ends,
            hashes,
        }
    }

    /// [`Counter::blocks`] as a [`CacheRequest`] of `tokens` sharing `shared` with the previous one
    /// (OpenAI's chat format; [`Counter::request_as`] counts either format).
    pub fn request(
        &mut self,
        messages: &[RenderedMessage],
        tokens: usize,
        shared: usize,
        at: Option<f64>,
    ) -> CacheRequest {
        CacheRequest {
            blocks: self.blocks(messages),
            tokens,
            shared,
            at,
        }
    }
}
