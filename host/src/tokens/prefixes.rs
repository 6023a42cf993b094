//! Long texts counted lately, with the tokens before each of their line cuts, so that a long
//! text that starts as one of them did is counted from the last cut they share.
//!
//! A strategy that writes the history into one message (or one block) sends it again each turn
//! with the turn added at its end, or with a line near its end changed: each of those texts
//! would be cut into lines and each line looked up again, and the cost of a run would grow with
//! the square of its turns. A text cut after a line break followed by a character that is not
//! whitespace ([`super::lines`]) is cut at the same places, with the same counts before them,
//! wherever another text starts with the same bytes up to the character after the cut: only
//! the lines after the last such cut are looked up. The count is the same as counting every
//! line (tested). A long text sent again (the same message in the next prompt, or in another
//! strategy's) is found by a hash of its length and ends and compared, not hashed whole.

use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::{lines, Counter};
use crate::hash::quick_hash;
use crate::message::Text;

/// Texts shorter than this are counted line by line: their lines are few.
pub(super) const LONG: usize = 2048;

/// How many long texts are kept: the messages or blocks of a prompt that change from one
/// prompt to the next are few.
const KEPT: usize = 8;

/// Bytes of a text's start compared to choose the kept text it most likely continues.
const PROBE: usize = 256;

/// A long text counted: its tokens, and the end of each line but the last with the tokens
/// before it.
struct Counted {
    /// The text: a message's own, shared, when it was counted as one.
    text: Text,
    tokens: usize,
    cuts: Vec<(u32, u32)>,
}

/// The long texts of a run counted so far, and the latest of them.
#[derive(Default)]
pub(super) struct Prefixes {
    /// Every long text counted in the run, by a hash of its length and ends ([`quick_hash`]):
    /// the same text sent again, by this strategy or another, is compared, not counted.
    seen: FxHashMap<u64, Vec<Arc<Counted>>>,
    /// The latest, which a new text may continue.
    kept: Vec<Arc<Counted>>,
    /// The kept text replaced next when a new one continues none.
    next: usize,
}

impl Prefixes {
    /// The kept text `text` most likely shares the longest start with: the one whose first
    /// [`PROBE`] bytes agree longest with `text`'s, the latest kept of equals.
    fn closest(&self, text: &str) -> Option<usize> {
        let probe = &text.as_bytes()[..text.len().min(PROBE)];
        let mut best: Option<(usize, usize)> = None;
        for (i, counted) in self.kept.iter().enumerate() {
            let shared = (counted.text.as_bytes().iter().zip(probe))
                .take_while(|(a, b)| a == b)
                .count();
            if shared > 0 && best.is_none_or(|(_, most)| shared >= most) {
                best = Some((i, shared));
            }
        }
        best.map(|(i, _)| i)
    }

    /// The long text equal to `text` counted in the run, if any.
    fn find(&self, text: &str) -> Option<&Arc<Counted>> {
        self.seen
            .get(&quick_hash(text))?
            .iter()
            .find(|c| *c.text == *text)
    }

    /// Keeps `counted` in the place of the kept text `closest`, or of the oldest.
    fn keep(&mut self, counted: Arc<Counted>, closest: Option<usize>) {
        match closest {
            Some(i) => self.kept[i] = counted,
            None if self.kept.len() < KEPT => self.kept.push(counted),
            None => {
                self.kept[self.next] = counted;
                self.next = (self.next + 1) % KEPT;
            }
        }
    }
}

impl Counter {
    /// Tokens of the long `text`: those of the same text counted before in the run, else
    /// counted from the last line cut it shares with a long text counted lately.
    pub(super) fn count_long(&mut self, text: &str) -> usize {
        self.count_long_kept(text, None)
    }

    /// [`Counter::count_long`] of a message's text, which is kept as it is rather than copied.
    pub(super) fn count_long_shared(&mut self, text: &Text) -> usize {
        self.count_long_kept(text, Some(text))
    }

    fn count_long_kept(&mut self, text: &str, shared: Option<&Text>) -> usize {
        let closest = self.prefixes.closest(text);
        if let Some(counted) = self.prefixes.find(text).cloned() {
            let tokens = counted.tokens;
            if closest.is_none_or(|i| !Arc::ptr_eq(&self.prefixes.kept[i], &counted)) {
                self.prefixes.keep(counted, closest);
            }
            return tokens;
        }
        let (mut cuts, mut total, mut from) = (Vec::new(), 0, 0);
        if let Some(i) = closest {
            let counted = &self.prefixes.kept[i];
            let shared = common_prefix(counted.text.as_str(), text).len();
            // A cut whose next byte the two texts share is a cut of both.
            let reused = counted
                .cuts
                .partition_point(|&(end, _)| (end as usize) < shared);
            cuts.extend_from_slice(&counted.cuts[..reused]);
            if let Some(&(end, before)) = cuts.last() {
                (total, from) = (before as usize, end as usize);
            }
        }
        let mut end = from;
        let mut rest = lines(&text[from..]).peekable();
        while let Some(line) = rest.next() {
            total += self.line(line);
            end += line.len();
            // Kept in 32 bits (half the room of 64): past them, the cuts stop, and a text
            // that continues this one counts its lines from the last cut kept.
            if let (true, Ok(end), Ok(total)) = (
                rest.peek().is_some(),
                u32::try_from(end),
                u32::try_from(total),
            ) {
                cuts.push((end, total));
            }
        }
        let counted = Arc::new(Counted {
            text: shared.map_or_else(|| Arc::new(text.to_owned()), Arc::clone),
            tokens: total,
            cuts,
        });
        self.prefixes
            .seen
            .entry(quick_hash(text))
            .or_default()
            .push(Arc::clone(&counted));
        // A text that continues a kept one takes its place; another the place of the oldest.
        self.prefixes.keep(counted, closest);
        total
    }

    /// Tokens of the lines of `text` that end within its first `limit` bytes, when `text` is a
    /// long text counted in the run, by its cuts; `None` when it is not. What follows the last
    /// whole line is left to the caller: its start and the tokens before it.
    pub(super) fn whole_lines_before(&self, text: &str, limit: usize) -> Option<(usize, usize)> {
        let counted = self.prefixes.find(text)?;
        let whole = counted
            .cuts
            .partition_point(|&(end, _)| end as usize <= limit);
        Some(match whole {
            0 => (0, 0),
            n => (
                counted.cuts[n - 1].0 as usize,
                counted.cuts[n - 1].1 as usize,
            ),
        })
    }
}

/// The longest common prefix of two strings, on a character boundary.
pub(crate) fn common_prefix<'a>(a: &'a str, b: &str) -> &'a str {
    const MAX_BLOCK: usize = 1 << 16;
    let (x, y) = (a.as_bytes(), b.as_bytes());
    let n = x.len().min(y.len());
    // Compared a block at a time first: the texts compared share long starts (a prompt and
    // the one before it), so a block that is equal is followed by one twice its size, and a
    // block that differs is tried again at half its size, down to 64 bytes.
    let mut end = 0;
    let mut block = 64;
    while block >= 64 {
        if end + block <= n && x[end..end + block] == y[end..end + block] {
            end += block;
            block = (block * 2).min(MAX_BLOCK);
        } else {
            block /= 2;
        }
    }
    end += x[end..n]
        .iter()
        .zip(&y[end..n])
        .take_while(|(p, q)| p == q)
        .count();
    // Equal bytes up to a character boundary of one are equal characters up to it in both.
    while !a.is_char_boundary(end) {
        end -= 1;
    }
    &a[..end]
}

#[cfg(test)]
mod tests {
    use ptc_plugin_api::Role;

    use super::common_prefix;
    use crate::message::RenderedMessage;
    use crate::tokens::{Counter, Tokenizer, MESSAGE_OVERHEAD};

    proptest::proptest! {
        /// Long texts that keep, change or cut the end of the one before (and texts that start
        /// alike, interleaved), as messages and alone, count what the tokenizer counts, whole
        /// and before every limit.
        #[test]
        fn a_long_text_counted_from_a_kept_one_counts_as_the_tokenizer_does(
            steps in proptest::collection::vec(
                (
                    0usize..3000,
                    proptest::collection::vec(
                        proptest::sample::select(vec![
                            "line\n", "\n", " ", "  indented\n", "(def x 1)", "é", "\n\n",
                            "word ", "12345", "\t", "🦀\n", ")\n;",
                        ]),
                        0..400,
                    ),
                    0usize..4000,
                ),
                1..10,
            ),
        ) {
            let tokenizer = Tokenizer::O200kBase;
            let mut counter = Counter::new(tokenizer);
            // Its 256th byte is inside a character: the texts are compared by their bytes.
            let base = format!("{}\n{}", "€".repeat(100), "The system prompt, long enough to be kept.\n".repeat(60));
            let mut text = base.clone();
            for (keep, pieces, limit) in steps {
                let mut cut = (base.len() + keep).min(text.len());
                while !text.is_char_boundary(cut) {
                    cut -= 1;
                }
                text.truncate(cut);
                text.extend(pieces.iter().copied());
                // Counted as a message's text first (kept as the message's own), then alone.
                let message = RenderedMessage::plain(Role::User, text.clone());
                proptest::prop_assert_eq!(
                    counter.message(&message),
                    MESSAGE_OVERHEAD + tokenizer.count("user") + tokenizer.count(&text)
                );
                proptest::prop_assert_eq!(counter.text(&text), tokenizer.count(&text));
                let mut limit = limit.min(text.len());
                while !text.is_char_boundary(limit) {
                    limit -= 1;
                }
                let mut fresh = Counter::new(tokenizer);
                proptest::prop_assert!(counter.whole_lines_before(&text, limit).is_some());
                proptest::prop_assert_eq!(
                    counter.count_before(&text, limit),
                    fresh.count_before_by_lines(&text, limit)
                );
                // Long texts that start otherwise, kept in between.
                for other in [format!("Another start\n{base}"), format!("{base}other\n")] {
                    proptest::prop_assert_eq!(counter.text(&other), tokenizer.count(&other));
                }
            }
        }
    }

    proptest::proptest! {
        /// The blocks compared at once find where a comparison byte by byte does, for texts
        /// that share starts of every length, with a multi-byte character where they differ.
        #[test]
        fn the_common_prefix_is_that_of_a_comparison_byte_by_byte(
            shared in 0usize..300_000,
            a_tail in "[aé]{0,3}",
            b_tail in "[bé]{0,3}",
        ) {
            let start: String = (0..shared).map(|i| char::from(b'a' + (i % 23) as u8)).collect();
            let (a, b) = (format!("{start}{a_tail}"), format!("{start}{b_tail}"));
            let bytes = a.bytes().zip(b.bytes()).take_while(|(p, q)| p == q).count();
            let mut expected = bytes;
            while !a.is_char_boundary(expected) {
                expected -= 1;
            }
            proptest::prop_assert_eq!(common_prefix(&a, &b).len(), expected);
        }
    }
}
