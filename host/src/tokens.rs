//! Token counting: a rendered prompt counted as the request a provider is sent, with a real BPE
//! tokenizer (`o200k_base` by default, `cl100k_base` selectable). The count depends on the
//! provider, because the requests differ ([`Counting`]):
//!
//! - **OpenAI's chat format** ([`Counting::OpenAiChat`]), for the profiles with implicit caching
//!   (OpenAI, Gemini, DeepSeek, none): one string per message, its blocks joined by a blank
//!   line, a blank message left out ([`wire::openai_messages`]). After OpenAI's published accounting for chat models, every message costs
//!   [`MESSAGE_OVERHEAD`] tokens (its `<|start|>`, separator and `<|end|>`) plus its role and
//!   its content; every request costs [`REPLY_PRIMING`] more for the assistant's reply header.
//! - **Anthropic's content blocks** ([`Counting::AnthropicBlocks`]), for the profiles with
//!   explicit caching: each block's text as the Messages API body sends it
//!   ([`wire::anthropic_blocks`]: blank blocks, a message left with no block and a prefill's
//!   trailing whitespace left out), one text block each with nothing between two. Anthropic publishes no per-message or per-request
//!   overhead, so none is added. The ends of the blocks, which a prompt cache reads and writes
//!   up to, are counted the same way: the last one ends where the request ends.
//!
//! The tokenizer is not the providers' own: the counts compare strategies with each other, and
//! give the same prompt's tokens in each provider's request format. Both counts go through the
//! same [`Counter`], which counts each distinct line once, and a request from the one before:
//! the messages it repeats keep their counts, compared and not counted again.

use std::hash::Hash;
use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::cache::{CacheRequest, Caching};
use crate::message::{wire, RenderedMessage};

mod anthropic;
mod by_text;
mod openai;
mod per_thread;
mod prefixes;
mod pretokenize;
mod recent;
pub mod redaction;

use openai::BlockEnds;
mod tokenizer;

pub use per_thread::Counters;
pub(crate) use prefixes::common_prefix;
pub use tokenizer::Tokenizer;

/// How a provider's request is counted: what it sends for a prompt's messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Counting {
    /// One string per message (its blocks joined by a blank line), with OpenAI's overhead of
    /// [`MESSAGE_OVERHEAD`] a message and [`REPLY_PRIMING`] a request.
    OpenAiChat,
    /// Each non-blank block's text on its own, with no separator and no overhead.
    AnthropicBlocks,
}

impl Counting {
    /// The counting of a provider whose caching rule is `caching`: explicit caching is
    /// Anthropic's, whose requests are content blocks; the others take OpenAI's chat format
    /// (OpenAI's breakpoints cut a message into text parts that put together are its string).
    pub fn of(caching: Caching) -> Counting {
        match caching {
            Caching::Explicit => Counting::AnthropicBlocks,
            Caching::Implicit
            | Caching::PrefixUnits
            | Caching::OpenAiBreakpoints
            | Caching::GeminiExplicit => Counting::OpenAiChat,
        }
    }

    /// What is counted, in words: `OpenAI's chat messages` or `Anthropic's content blocks`.
    pub fn describe(self) -> &'static str {
        match self {
            Counting::OpenAiChat => "OpenAI's chat messages",
            Counting::AnthropicBlocks => "Anthropic's content blocks",
        }
    }

    /// `openai-chat` or `anthropic-blocks`, as the JSON outputs name it.
    pub fn as_str(self) -> &'static str {
        match self {
            Counting::OpenAiChat => "openai-chat",
            Counting::AnthropicBlocks => "anthropic-blocks",
        }
    }
}

/// Tokens every message costs besides its role and content, in OpenAI's chat format.
pub const MESSAGE_OVERHEAD: usize = 3;
/// Tokens every request costs for the reply header, in OpenAI's chat format.
pub const REPLY_PRIMING: usize = 3;

/// Counts messages, each distinct text once.
///
/// A BPE tokenizer splits text into pieces (words, runs of spaces, punctuation) and encodes each
/// piece on its own, so the count of a text is the sum of its pieces' counts. In the
/// pretokenization patterns of `o200k_base` and `cl100k_base` a piece that holds a line break
/// ends with it, unless more whitespace follows; so a text cut after every line break that is
/// followed by a non-whitespace character is cut between pieces, and its count is the sum of
/// its lines' counts. The prompts of one run repeat most of their lines: each distinct line is
/// counted once (and each distinct piece of a new line encoded once). The result is exactly the
/// tokenizer's count (tested).
pub struct Counter {
    tokenizer: Tokenizer,
    seen: FxHashMap<String, usize>,
    /// Per message text seen in this run: where its cache blocks end ([`Counter::blocks`]).
    block_ends: by_text::ByText<Arc<BlockEnds>>,
    /// Per message text seen in this run: its blocks as Anthropic's body sends them.
    sent: by_text::ByText<Arc<anthropic::SentBlocks>>,
    lines: FxHashMap<Box<str>, u32>,
    pieces: FxHashMap<Box<str>, u32>,
    /// The pieces of at most 15 bytes, by their bytes and length ([`Counter::piece`]).
    short_pieces: FxHashMap<u128, u32>,
    /// The messages of the last requests counted, with their counts ([`recent`]).
    recent: recent::Recent,
    /// Long texts counted lately, with the tokens before each line cut ([`prefixes`]).
    prefixes: prefixes::Prefixes,
    /// How many times a message's count was not carried from an earlier request.
    #[cfg(test)]
    counted_anew: usize,
}

/// Lines (and pieces) a [`Counter`] keeps from one run to the next, at most.
const KEPT_LINES: usize = 20_000;

/// `text` cut after every line break followed by a character that is not whitespace.
fn lines(text: &str) -> impl Iterator<Item = &str> {
    let bytes = text.as_bytes();
    let mut start = 0;
    let mut breaks = memchr::memchr_iter(b'\n', bytes);
    std::iter::from_fn(move || {
        for at in breaks.by_ref() {
            let next = at + 1;
            if bytes
                .get(next)
                .is_some_and(|&b| b < 0x80 && !b.is_ascii_whitespace())
            {
                let line = &text[start..next];
                start = next;
                return Some(line);
            }
        }
        (start < bytes.len()).then(|| {
            let line = &text[start..];
            start = bytes.len();
            line
        })
    })
}

impl Counter {
    pub fn new(tokenizer: Tokenizer) -> Counter {
        Counter {
            tokenizer,
            seen: FxHashMap::default(),
            block_ends: Default::default(),
            sent: Default::default(),
            lines: FxHashMap::default(),
            pieces: FxHashMap::default(),
            short_pieces: FxHashMap::default(),
            recent: recent::Recent::default(),
            prefixes: prefixes::Prefixes::default(),
            #[cfg(test)]
            counted_anew: 0,
        }
    }

    /// Makes the counter ready for the prompts of another run: the texts of the runs before are
    /// forgotten, their lines and pieces kept (they repeat from run to run) until there are
    /// too many of them.
    pub fn next_run(&mut self) {
        self.seen.clear();
        self.block_ends.clear();
        self.sent.clear();
        self.prefixes = prefixes::Prefixes::default();
        if self.lines.len() > KEPT_LINES {
            self.lines.clear();
        }
        if self.pieces.len() + self.short_pieces.len() > KEPT_LINES {
            self.pieces.clear();
            self.short_pieces.clear();
        }
    }

    /// Tokens of `text`, counted once per distinct text; a long one from where it differs
    /// from a long text counted lately ([`prefixes`]).
    pub fn text(&mut self, text: &str) -> usize {
        if text.len() >= prefixes::LONG {
            return self.count_long(text);
        }
        if let Some(&n) = self.seen.get(text) {
            return n;
        }
        let n = self.count(text);
        self.seen.insert(text.to_owned(), n);
        n
    }

    /// Tokens of `text`, line by line; a long one from where it differs from a long text
    /// counted lately ([`prefixes`]).
    fn count(&mut self, text: &str) -> usize {
        if text.len() >= prefixes::LONG {
            return self.count_long(text);
        }
        lines(text).map(|line| self.line(line)).sum()
    }

    /// Tokens of one line (as [`lines`] cuts them), counted once.
    fn line(&mut self, line: &str) -> usize {
        match self.lines.get(line) {
            Some(&n) => n as usize,
            None => {
                let n = self.count_pieces(line);
                self.lines.insert(line.into(), n as u32);
                n
            }
        }
    }

    /// Tokens of `text`, piece by piece.
    fn count_pieces(&mut self, text: &str) -> usize {
        self.count_pieces_before(text, text.len())
    }

    /// Tokens of one piece, encoded once. A piece of at most 15 bytes (most are) is known by
    /// its bytes and length in one number: neither hashed nor compared as a string.
    fn piece(&mut self, piece: &str) -> usize {
        let bytes = piece.as_bytes();
        let tokenizer = self.tokenizer;
        let count = || tokenizer.bpe().bpe.count(bytes) as u32;
        let n = if bytes.len() < 16 {
            let mut key = [0u8; 16];
            key[..bytes.len()].copy_from_slice(bytes);
            key[15] = bytes.len() as u8;
            *self
                .short_pieces
                .entry(u128::from_le_bytes(key))
                .or_insert_with(count)
        } else if let Some(&n) = self.pieces.get(piece) {
            n
        } else {
            let n = count();
            self.pieces.insert(piece.into(), n);
            n
        };
        n as usize
    }

    /// Tokens a request made of `messages` is billed, counted as `counting` says.
    pub fn prompt_as(&mut self, counting: Counting, messages: &[RenderedMessage]) -> usize {
        match counting {
            Counting::OpenAiChat => self.prompt(messages),
            Counting::AnthropicBlocks => self.request_sent(&[], messages, None).tokens,
        }
    }

    /// (tokens of `messages`, tokens shared as an exact prefix with `previous`), counted as
    /// `counting` says.
    pub fn measure_as(
        &mut self,
        counting: Counting,
        previous: &[RenderedMessage],
        messages: &[RenderedMessage],
    ) -> (usize, usize) {
        match counting {
            Counting::OpenAiChat => self.measure(previous, messages),
            Counting::AnthropicBlocks => {
                let request = self.request_sent(previous, messages, None);
                (request.tokens, request.shared)
            }
        }
    }

    /// The request `messages` make, after `previous`, counted as `counting` says: its tokens,
    /// the tokens it shares with `previous` and its blocks, whose ends are counted the same way
    /// (the last one ends where the request's tokens end, less OpenAI's reply priming).
    pub fn request_as(
        &mut self,
        counting: Counting,
        previous: &[RenderedMessage],
        messages: &[RenderedMessage],
        at: Option<f64>,
    ) -> CacheRequest {
        match counting {
            Counting::OpenAiChat => {
                let (tokens, shared) = self.measure(previous, messages);
                self.request(messages, tokens, shared, at)
            }
            Counting::AnthropicBlocks => self.request_sent(previous, messages, at),
        }
    }

    /// Tokens one message is billed in OpenAI's chat format: overhead, role, content.
    pub fn message(&mut self, message: &RenderedMessage) -> usize {
        let content = match message.content.len() >= prefixes::LONG {
            true => self.count_long_shared(&message.content),
            false => self.text(&message.content),
        };
        MESSAGE_OVERHEAD + self.text(message.role.as_str()) + content
    }

    /// Tokens a request made of `messages` is billed in OpenAI's chat format.
    pub fn prompt(&mut self, messages: &[RenderedMessage]) -> usize {
        let mut known = self.recent.take(messages);
        let mut total = REPLY_PRIMING;
        for (i, _) in wire::openai_indexed(messages) {
            total += self.chat_tokens(&mut known[i]);
        }
        self.recent.put(known);
        total
    }

    /// [`Counter::message`] of a message of a request, counted once while the requests after
    /// it repeat it.
    fn chat_tokens(&mut self, known: &mut recent::Known) -> usize {
        match known.chat {
            Some(n) => n,
            None => {
                #[cfg(test)]
                {
                    self.counted_anew += 1;
                }
                let n = self.message(&known.message);
                known.chat = Some(n);
                n
            }
        }
    }

    /// Tokens of the longest prefix `messages` shares with `previous`, as a provider's prompt
    /// cache sees it in OpenAI's chat format: whole equal messages, then the equal start of the
    /// first differing one.
    pub fn shared_prefix(
        &mut self,
        previous: &[RenderedMessage],
        messages: &[RenderedMessage],
    ) -> usize {
        self.measure(previous, messages).1
    }

    /// (tokens of `messages` as billed in OpenAI's chat format, tokens shared as an exact
    /// prefix with `previous`), with one tokenizer pass over each new text.
    pub fn measure(
        &mut self,
        previous: &[RenderedMessage],
        messages: &[RenderedMessage],
    ) -> (usize, usize) {
        let previous: Vec<&RenderedMessage> = wire::openai_messages(previous).collect();
        let mut known = self.recent.take(messages);
        let mut total = REPLY_PRIMING;
        let mut shared = 0;
        let mut sharing = !previous.is_empty();
        for (i, (at, message)) in wire::openai_indexed(messages).enumerate() {
            let tokens = self.chat_tokens(&mut known[at]);
            total += tokens;
            if !sharing {
                continue;
            }
            match previous.get(i).copied() {
                Some(before) if before.same_text(message) => shared += tokens,
                Some(before) if before.role == message.role => {
                    let common = common_prefix(&before.content, &message.content).len();
                    if common > 0 {
                        shared += MESSAGE_OVERHEAD
                            + self.text(message.role.as_str())
                            + self.count_before(&message.content, common);
                    }
                    sharing = false;
                }
                _ => sharing = false,
            }
        }
        self.recent.put(known);
        (total, shared)
    }

    /// Tokens of the pieces of `text` that end within its first `limit` bytes: the piece cut at
    /// `limit` is not shared.
    fn count_before(&mut self, text: &str, limit: usize) -> usize {
        // A long text counted lately has its whole lines counted up to its last cut by `limit`.
        let (offset, total) = self.whole_lines_before(text, limit).unwrap_or((0, 0));
        self.count_lines_before(text, limit, offset, total)
    }

    /// [`Counter::count_before`] line by line, kept texts left aside: what it must equal.
    #[cfg(test)]
    fn count_before_by_lines(&mut self, text: &str, limit: usize) -> usize {
        self.count_lines_before(text, limit, 0, 0)
    }

    /// `total` (the tokens of `text` before its line cut `offset`) and the tokens of the pieces
    /// of `text` from `offset` on that end within its first `limit` bytes.
    fn count_lines_before(
        &mut self,
        text: &str,
        limit: usize,
        mut offset: usize,
        mut total: usize,
    ) -> usize {
        for line in lines(&text[offset..]) {
            if offset + line.len() <= limit {
                total += self.line(line);
                offset += line.len();
                continue;
            }
            return total + self.count_pieces_before(line, limit - offset);
        }
        total
    }

    /// Tokens of the pieces of `text` that end within its first `limit` bytes; a redaction
    /// marker counts as the text it stands for would ([`redaction`]), and only when it ends
    /// within `limit`.
    fn count_pieces_before(&mut self, text: &str, limit: usize) -> usize {
        if !redaction::may_hold_one(text) {
            return self.count_bpe_pieces_before(text, limit);
        }
        let mut total = 0usize;
        let mut from = 0usize;
        for (start, end, len) in redaction::markers_in(text) {
            total += self.count_bpe_pieces_before(&text[from..start], limit.saturating_sub(from));
            if end > limit {
                return total;
            }
            total = total.saturating_add(redaction::tokens_of(len));
            from = end;
        }
        total + self.count_bpe_pieces_before(&text[from..], limit.saturating_sub(from))
    }

    /// Tokens of the BPE pieces of `text` that end within its first `limit` bytes. An ASCII
    /// text is cut into `o200k_base`'s pieces without the regex ([`pretokenize`]).
    fn count_bpe_pieces_before(&mut self, text: &str, limit: usize) -> usize {
        if self.tokenizer == Tokenizer::O200kBase && text.is_ascii() {
            return self.count_split_before(pretokenize::o200k_ascii(text), text, limit);
        }
        self.count_split_before(self.tokenizer.bpe().split(text), text, limit)
    }

    /// Tokens of the `pieces` of `text` that end within its first `limit` bytes.
    fn count_split_before<'t>(
        &mut self,
        pieces: impl Iterator<Item = &'t str>,
        text: &str,
        limit: usize,
    ) -> usize {
        let mut total = 0usize;
        let start = text.as_ptr() as usize;
        for piece in pieces {
            let end = piece.as_ptr() as usize - start + piece.len();
            if end > limit {
                break;
            }
            total += self.piece(piece);
        }
        total
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptc_plugin_api::Role;

    fn msg(role: Role, content: &str) -> RenderedMessage {
        RenderedMessage::plain(role, content)
    }

    #[test]
    fn counts_known_texts() {
        assert_eq!(Tokenizer::O200kBase.count("Hello, world!"), 4);
        assert_eq!(Tokenizer::Cl100kBase.count("Hello, world!"), 4);
        assert_eq!(Tokenizer::O200kBase.count(""), 0);
    }

    /// A piece is counted once, as the encoding counts it, whether it is kept by its bytes (up
    /// to 15) or as a string: one that ends in zero bytes is not the piece without them.
    #[test]
    fn pieces_short_and_long_count_as_the_tokenizer_does() {
        let mut counter = Counter::new(Tokenizer::O200kBase);
        let pieces = [
            "",
            "a",
            "ab",
            "ab\0",
            "ab\0\0",
            "\0",
            " the",
            "abcdefghijklmno",
            "abcdefghijklmnop",
            "Zürich",
            "0123456789012345678",
        ];
        for round in 0..2 {
            for piece in pieces {
                let expected = Tokenizer::O200kBase.bpe().bpe.count(piece.as_bytes());
                assert_eq!(counter.piece(piece), expected, "{piece:?}, round {round}");
            }
        }
        assert_eq!(
            counter.short_pieces.len() + counter.pieces.len(),
            pieces.len()
        );
        assert_eq!(counter.pieces.len(), 2);
    }

    #[test]
    fn line_by_line_counts_equal_the_tokenizer() {
        let texts = [
            "Hello, world!",
            ";; === user/ (your prelude) ===\norders                        ; = list[7]\n\nTurns left: 4",
            "  indented\n\n\nZürich   café)\n\n(tool/send {:to \"a@b.ch\"})",
            "a)\n;b\n  c\n\td\n\r\ne\n\n\n12345\n'quoted'\n\u{a0}nbsp\n你好\n```clojure\n(def x 1)\n```\n",
            "trailing spaces   \nnext\n   \n  \nend  ",
        ];
        for tokenizer in [Tokenizer::O200kBase, Tokenizer::Cl100kBase] {
            let mut counter = Counter::new(tokenizer);
            for text in texts {
                assert_eq!(counter.count(text), tokenizer.count(text), "{text:?}");
                assert_eq!(
                    counter.count(text),
                    tokenizer.count(text),
                    "cached: {text:?}"
                );
                let joined: String = lines(text).collect();
                assert_eq!(joined, text);
            }
        }
    }

    proptest::proptest! {
        /// A line ends after a line break followed by an ASCII character that is not
        /// whitespace, and nowhere else.
        #[test]
        fn lines_end_where_a_line_break_meets_a_non_blank(text in "[a \t\n\r\u{a0}é(]{0,40}") {
            let mut expected = Vec::new();
            let mut start = 0;
            for (i, _) in text.match_indices('\n') {
                let next = text.as_bytes().get(i + 1);
                if next.is_some_and(|&b| b < 0x80 && !b.is_ascii_whitespace()) {
                    expected.push(&text[start..i + 1]);
                    start = i + 1;
                }
            }
            if start < text.len() {
                expected.push(&text[start..]);
            }
            proptest::prop_assert_eq!(lines(&text).collect::<Vec<_>>(), expected);
        }
    }

    #[test]
    fn prompts_add_the_billing_overhead() {
        let mut counter = Counter::new(Tokenizer::O200kBase);
        let messages = [
            msg(Role::System, "Hello, world!"),
            msg(Role::User, "Hello, world!"),
        ];
        let role_tokens = counter.text("system") + counter.text("user");
        assert_eq!(
            counter.prompt(&messages),
            REPLY_PRIMING + 2 * MESSAGE_OVERHEAD + role_tokens + 8
        );
    }

    #[test]
    fn blocks_counted_in_one_pass_end_where_each_counted_alone_ends() {
        let mut counter = Counter::new(Tokenizer::O200kBase);
        let content = "(def x 1)\n;; one\n  two  \n\nthree four\nfive\n\n\nsix seven eight\nnine";
        // Every way to cut the text into three blocks, mid-line and mid-word included.
        for a in 1..content.len() - 1 {
            for b in (a + 1)..content.len() {
                if !content.is_char_boundary(a) || !content.is_char_boundary(b) {
                    continue;
                }
                let span = |start, end| crate::message::BlockSpan {
                    start,
                    end,
                    cache_breakpoint: false,
                };
                let message = RenderedMessage {
                    role: Role::User,
                    content: Arc::new(content.into()),
                    blocks: vec![span(0, a), span(a, b), span(b, content.len())].into(),
                };
                let head = MESSAGE_OVERHEAD + counter.text("user");
                let ends: Vec<usize> = counter.blocks(&[message]).iter().map(|b| b.end).collect();
                let alone: Vec<usize> = [a, b, content.len()]
                    .iter()
                    .map(|&limit| head + counter.count_before(content, limit))
                    .collect();
                assert_eq!(ends, alone, "blocks cut at {a} and {b}");
            }
        }
    }

    #[test]
    fn blocks_end_where_the_tokens_of_their_prefix_end() {
        let mut counter = Counter::new(Tokenizer::O200kBase);
        let user = RenderedMessage {
            role: Role::User,
            content: Arc::new("one two\n\nthree four five\n\nsix".into()),
            blocks: vec![
                crate::message::BlockSpan {
                    start: 0,
                    end: 7,
                    cache_breakpoint: false,
                },
                crate::message::BlockSpan {
                    start: 9,
                    end: 24,
                    cache_breakpoint: true,
                },
                crate::message::BlockSpan {
                    start: 26,
                    end: 29,
                    cache_breakpoint: false,
                },
            ]
            .into(),
        };
        let messages = [msg(Role::System, "S"), user.clone()];
        let blocks = counter.blocks(&messages);
        let system = counter.message(&messages[0]);
        let head = MESSAGE_OVERHEAD + counter.text("user");
        let ends: Vec<usize> = blocks.iter().map(|b| b.end).collect();
        assert_eq!(
            ends,
            [
                system,
                system + head + Tokenizer::O200kBase.count("one two\n\n"),
                system + head + Tokenizer::O200kBase.count("one two\n\nthree four five\n\n"),
                system + counter.message(&user),
            ]
        );
        assert_eq!(counter.prompt(&messages), ends[3] + REPLY_PRIMING);
        let marks: Vec<bool> = blocks.iter().map(|b| b.strategy_breakpoint).collect();
        assert_eq!(marks, [false, false, true, false]);
        let system_blocks: Vec<bool> = blocks.iter().map(|b| b.system).collect();
        assert_eq!(system_blocks, [true, false, false, false]);
        // Equal prefixes have equal keys; a change in a block changes its key and every later
        // one, not the earlier ones.
        assert_eq!(counter.blocks(&messages), blocks);
        let mut changed = user.clone();
        changed.content = Arc::new("one two\n\nthree four fivE\n\nsix".into());
        let other = counter.blocks(&[msg(Role::System, "S"), changed]);
        let same: Vec<bool> = blocks
            .iter()
            .zip(&other)
            .map(|(a, b)| a.prefix == b.prefix)
            .collect();
        assert_eq!(same, [true, true, false, false]);
        // The same text in another role is another prefix.
        let assistant = RenderedMessage {
            role: Role::Assistant,
            ..user
        };
        let other = counter.blocks(&[msg(Role::System, "S"), assistant]);
        assert_ne!(other[1].prefix, blocks[1].prefix);
    }

    /// A request that repeats the messages of the one before counts only the messages it adds,
    /// in each format, and counts the same as a counter that never saw the one before.
    #[test]
    fn a_request_that_repeats_the_one_before_counts_only_what_it_adds() {
        let mut counter = Counter::new(Tokenizer::O200kBase);
        let mut fresh = Counter::new(Tokenizer::O200kBase);
        let conversation: Vec<RenderedMessage> = (0..40)
            .map(|i| match i {
                0 => msg(Role::System, "You are an agent.\n\nBe brief."),
                i if i % 2 == 1 => msg(Role::User, &format!("(println {i})\n{i}")),
                i => msg(Role::Assistant, &format!("Turn {i}: (def x{i} {i})")),
            })
            .collect();
        let each =
            |counter: &mut Counter, previous: &[RenderedMessage], now: &[RenderedMessage]| {
                (
                    counter.measure(previous, now),
                    counter.blocks(now),
                    counter.request_as(Counting::AnthropicBlocks, previous, now, None),
                )
            };
        let mut previous: &[RenderedMessage] = &[];
        for len in [2, 3, 5, 21, 40] {
            let now = &conversation[..len];
            let before = counter.counted_anew;
            let counted = each(&mut counter, previous, now);
            assert_eq!(counted, each(&mut fresh, previous, now), "{len} messages");
            assert_eq!(
                counter.counted_anew - before,
                3 * (len - previous.len()),
                "each message added counted once in each format, the repeated ones not again"
            );
            previous = now;
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(128))]
        /// Requests counted one after another, each starting with some of the messages of the
        /// one before (messages replaced, blank blocks and messages, breakpoints on blank
        /// blocks, system messages last, a final assistant message trimmed, texts in other
        /// allocations), count in each format as a counter that never saw the ones before.
        #[test]
        fn requests_counted_after_others_count_as_counted_alone(
            pool in proptest::collection::vec(
                (0..3usize, proptest::collection::vec((0..6usize, proptest::bool::ANY), 0..4)),
                1..9,
            ),
            steps in proptest::collection::vec((0..10usize, 0..10usize, 0..10usize), 1..10),
        ) {
            const TEXTS: [&str; 6] = ["", " ", "\n", "one two", "three four five ", "six\n\nseven"];
            let make = |i: usize| {
                let (role, blocks) = &pool[i];
                let role = [Role::System, Role::User, Role::Assistant][*role];
                let blocks: Vec<(&str, bool)> = blocks.iter().map(|&(t, b)| (TEXTS[t], b)).collect();
                crate::message::message_of_blocks(role, &blocks)
            };
            let made: Vec<RenderedMessage> = (0..pool.len()).map(make).collect();
            let each = |counter: &mut Counter, previous: &[RenderedMessage], now: &[RenderedMessage]| {
                (
                    counter.measure(previous, now),
                    counter.blocks(now),
                    counter.request_as(Counting::AnthropicBlocks, previous, now, None),
                )
            };
            let mut counter = Counter::new(Tokenizer::O200kBase);
            let mut previous: Vec<RenderedMessage> = Vec::new();
            for (len, replace, with) in steps {
                let len = len % (pool.len() + 1);
                let mut now: Vec<RenderedMessage> = match with % 2 {
                    0 => made[..len].to_vec(),
                    _ => (0..len).map(make).collect(),
                };
                if replace < len {
                    now[replace] = made[with % pool.len()].clone();
                }
                let counted = each(&mut counter, &previous, &now);
                let alone = each(&mut Counter::new(Tokenizer::O200kBase), &previous, &now);
                proptest::prop_assert_eq!(counted, alone);
                previous = now;
            }
        }
    }

    #[test]
    fn shared_prefix_counts_equal_messages_and_the_common_start() {
        let mut counter = Counter::new(Tokenizer::O200kBase);
        let a = [
            msg(Role::System, "S"),
            msg(Role::User, "one two three four"),
        ];
        let b = [
            msg(Role::System, "S"),
            msg(Role::User, "one two three five"),
        ];
        let system = counter.message(&a[0]);
        let shared = counter.shared_prefix(&a, &b);
        assert!(shared > system && shared < counter.prompt(&b), "{shared}");
        assert_eq!(
            counter.shared_prefix(&a, &a),
            counter.message(&a[0]) + counter.message(&a[1])
        );
        assert_eq!(common_prefix("héllo", "hélp"), "hél");
        // Past the blocks compared at once, and a difference in a character's second byte.
        let long = "x".repeat(130);
        assert_eq!(
            common_prefix(&format!("{long}é"), &format!("{long}è")),
            long
        );
        assert_eq!(common_prefix(&long, &format!("{long}y")), long);
        assert_eq!(
            common_prefix(&format!("{long}ab"), &format!("{long}ac")),
            format!("{long}a")
        );
    }
}
