//! What a run's messages show of its needles with no line break, kept per piece of text.
//!
//! A message is searched piece by piece: the pieces are its lines. A needle with no line break
//! occurs within one line, and whether an occurrence stands as a whole word reads only the
//! characters around it, a line break at a piece's edge as the text's edge: what a piece shows
//! depends on its text alone. Each piece's is kept, by any strategy's prompt of the run, and
//! read back when a later prompt holds the same text (the head of every prompt, every section
//! a single message repeats, every message a window shifts, every line a list that grows by a
//! line each turn already had). A message of several lines searched whole is kept whole too,
//! and a message met again (a window's messages, shifted; a history's turns in another
//! strategy's prompt) is read back at once rather than line by line.
//!
//! Between the two, a message's blocks (the lines between two blank lines: a section, mostly)
//! are kept as a message is: a message that changes in its middle (a single message whose
//! history grows) reads back its sections that did not change at once, and looks up the lines
//! of the others. That took 4.1% of the instructions off every strategy on 20 mini-swe-agent
//! logs, and nothing off generated runs (whose messages are short).
//!
//! Pieces of several lines, cut where the text says (about one line in eight ending one), were
//! tried in place of lines: they cost more than they saved on generated and on mini-swe-agent
//! runs, a block that holds one new line being searched whole (a block is now looked up first,
//! then its lines).

use super::{bounded, Lines, Match};
use crate::hash::quick_hash;

/// Bytes of text kept per run, at most: the lines of a run's prompts are bounded by its
/// recording, but a strategy may write new ones every prompt. A piece past the bound is
/// searched each time it is met.
const KEPT_BYTES: usize = 4 << 20;

/// The automaton of a run's needles with no line break, and how many needles there are.
pub(super) type Automaton<'a> = (&'a Lines, usize);

/// A text kept: where its bytes are in [`Messages::texts`] (a chunk, and where in it), where
/// what it shows is in [`Messages::places`], and the text kept before it with the same hash
/// ([`NONE`]: none).
struct Kept {
    chunk: usize,
    text: std::ops::Range<usize>,
    shown: std::ops::Range<usize>,
    before: usize,
}

/// No kept text.
const NONE: usize = usize::MAX;

/// Bytes of a chunk of [`Messages::texts`].
const CHUNK: usize = 64 << 10;

/// Per piece of text searched whole with a run's needles with no line break, by any strategy:
/// each (needle, [`Match`]) it shows, as `needle * 3 + match`, with where it first does.
/// Looked up by a hash of the text's length and ends, then compared whole. The texts and what
/// they show are kept one after the other, in two lists for the whole run: a new piece (most
/// lines of a new message) costs no allocation of its own.
#[derive(Default)]
pub(super) struct Messages {
    /// By hash: the text kept last with that hash.
    by_hash: rustc_hash::FxHashMap<u64, usize>,
    kept_texts: Vec<Kept>,
    /// The texts kept, one after the other, in chunks of [`CHUNK`] bytes that never move (a
    /// longer text has one of its own): kept texts are not copied again as more are kept.
    texts: Vec<String>,
    /// What each text kept shows, (needle * 3 + match, where it first does), one after the
    /// other.
    places: Vec<(u32, u32)>,
    /// Bytes of the texts kept, at most [`KEPT_BYTES`].
    kept: usize,
    #[cfg(test)]
    test_bound: Option<usize>,
    /// Per (needle, match): whether the piece being searched showed it already. All false
    /// between searches: a search sets back only the entries it set, not the whole list.
    seen: Vec<bool>,
    /// Whole messages of more than one piece, kept besides their pieces.
    whole: Level,
    /// Blocks of more than one piece, kept besides their pieces and the whole messages.
    blocks: Level,
}

/// Texts of several pieces kept whole (messages, or blocks), apart from the pieces.
#[derive(Default)]
struct Level {
    /// Bytes of the texts kept, at most [`KEPT_BYTES`].
    kept: usize,
    /// As [`Messages::seen`], for the text being searched.
    seen: Vec<bool>,
    /// What the text being searched shows, in order: reused from text to text.
    shown: Vec<(usize, usize)>,
}

/// Which [`Level`] a text of several pieces is kept at.
#[derive(Clone, Copy)]
enum Whole {
    Message,
    Block,
}

impl Messages {
    /// Calls `each` with every (needle, match) `message` shows from byte `from` on and where
    /// it does, in the order of the text: in the piece `from` falls in, every occurrence from
    /// there (searched); in each piece after it, the first (kept); of a message shown whole
    /// (`from` 0), the first in it. The first call for each is where it first occurs from
    /// `from` on.
    pub(super) fn shown(
        &mut self,
        automaton: Automaton<'_>,
        message: &str,
        from: usize,
        each: impl FnMut(usize, usize),
    ) {
        if from == 0 {
            self.whole_shown(automaton, message, each);
            return;
        }
        self.pieces_shown(automaton, message, from, each);
    }

    /// What the whole of `message` shows, looked up as a piece is: a message of several pieces
    /// met again (a window's messages, shifted; a history's earlier turns in another
    /// strategy's prompt) is read back at once rather than piece by piece.
    fn whole_shown(
        &mut self,
        automaton: Automaton<'_>,
        message: &str,
        each: impl FnMut(usize, usize),
    ) {
        if memchr::memchr(b'\n', message.as_bytes()).is_none() {
            self.piece_shown(automaton, message, each);
            return;
        }
        self.several_shown(automaton, Whole::Message, message, each, |kept, found| {
            kept.pieces_shown(automaton, message, 0, found)
        });
    }

    /// What `message` shows from byte `from` on, block by block: a block of several pieces
    /// wholly after `from` is looked up whole, the others piece by piece.
    fn pieces_shown(
        &mut self,
        automaton: Automaton<'_>,
        message: &str,
        from: usize,
        mut each: impl FnMut(usize, usize),
    ) {
        let (lines, _) = automaton;
        for (at, block) in blocks(message) {
            if block.is_empty() || at + block.len() <= from {
                continue;
            }
            // A message of one block is looked up whole already, when it is shown whole.
            let several =
                block.len() < message.len() && memchr::memchr(b'\n', block.as_bytes()).is_some();
            if at >= from && several {
                let each = |key, found| each(key, at + found);
                self.several_shown(automaton, Whole::Block, block, each, |kept, found| {
                    for (start, piece) in pieces(block) {
                        if !piece.is_empty() {
                            kept.piece_shown(automaton, piece, |key, at| found(key, start + at));
                        }
                    }
                });
                continue;
            }
            for (start, piece) in pieces(block) {
                let (start, end) = (at + start, at + start + piece.len());
                if piece.is_empty() || end <= from {
                    continue;
                }
                if start < from {
                    occurrences(lines, message, from..end, &mut each);
                } else {
                    self.piece_shown(automaton, piece, |key, found| each(key, start + found));
                }
            }
        }
    }

    /// Calls `each` with what `text` (a message or a block of several pieces) shows, each
    /// (needle, match) where it first does: read back when a text had it, else as `search`
    /// finds it (every occurrence, in order, or the first of each piece), and kept at `level`
    /// within the bound.
    fn several_shown(
        &mut self,
        (_, count): Automaton<'_>,
        level: Whole,
        text: &str,
        mut each: impl FnMut(usize, usize),
        search: impl FnOnce(&mut Messages, &mut dyn FnMut(usize, usize)),
    ) {
        let hash = quick_hash(text);
        if self.read_back(hash, text, &mut each) {
            return;
        }
        fn at(kept: &mut Messages, level: Whole) -> &mut Level {
            match level {
                Whole::Message => &mut kept.whole,
                Whole::Block => &mut kept.blocks,
            }
        }
        let mut seen = std::mem::take(&mut at(self, level).seen);
        let mut shown = std::mem::take(&mut at(self, level).shown);
        if seen.len() < count * 3 {
            seen.resize(count * 3, false);
        }
        search(self, &mut |key, found| {
            if !seen[key] {
                seen[key] = true;
                shown.push((key, found));
            }
        });
        for &(key, found) in &shown {
            seen[key] = false;
            each(key, found);
        }
        let bound = self.bound();
        let kept = at(self, level);
        if kept.kept + text.len() <= bound {
            kept.kept += text.len();
            // Kept only within the bound: every place in it fits.
            let places = shown.iter().map(|&(key, found)| (key as u32, found as u32));
            self.keep(hash, text, places);
        }
        shown.clear();
        let kept = at(self, level);
        (kept.seen, kept.shown) = (seen, shown);
    }

    /// Calls `each` with what `piece` shows of the needles, searched when no piece had its
    /// text.
    fn piece_shown(
        &mut self,
        (lines, count): Automaton<'_>,
        piece: &str,
        mut each: impl FnMut(usize, usize),
    ) {
        let hash = quick_hash(piece);
        if !self.read_back(hash, piece, &mut each) {
            self.piece_searched((lines, count), hash, piece, each);
        }
    }

    /// Calls `each` with what the text `text`, of hash `hash`, shows, when it is kept; whether
    /// it is.
    fn read_back(&self, hash: u64, text: &str, each: &mut impl FnMut(usize, usize)) -> bool {
        let mut at = self.by_hash.get(&hash).copied().unwrap_or(NONE);
        while let Some(kept) = self.kept_texts.get(at) {
            if self.texts[kept.chunk][kept.text.clone()] == *text {
                for &(key, at) in &self.places[kept.shown.clone()] {
                    each(key as usize, at as usize);
                }
                return true;
            }
            at = kept.before;
        }
        false
    }

    /// Keeps `text`, of hash `hash`, with what it shows.
    fn keep(&mut self, hash: u64, text: &str, shown: impl IntoIterator<Item = (u32, u32)>) {
        let start = self.places.len();
        self.places.extend(shown);
        self.keep_placed(hash, text, start);
    }

    /// Keeps `text`, of hash `hash`, which shows what [`Messages::places`] holds from `start`.
    fn keep_placed(&mut self, hash: u64, text: &str, start: usize) {
        if self
            .texts
            .last()
            .is_none_or(|last| last.capacity() - last.len() < text.len())
        {
            self.texts
                .push(String::with_capacity(CHUNK.max(text.len())));
        }
        let chunk = self.texts.len() - 1;
        let texts = &mut self.texts[chunk];
        let from = texts.len();
        texts.push_str(text);
        let text = from..texts.len();
        let at = self.kept_texts.len();
        let before = self.by_hash.insert(hash, at).unwrap_or(NONE);
        self.kept_texts.push(Kept {
            chunk,
            text,
            shown: start..self.places.len(),
            before,
        });
    }

    /// Searches `piece`, of hash `hash`, kept by no piece: calls `each` with what it shows, and
    /// keeps that within the bound.
    fn piece_searched(
        &mut self,
        (lines, count): Automaton<'_>,
        hash: u64,
        piece: &str,
        mut each: impl FnMut(usize, usize),
    ) {
        if self.seen.len() < count * 3 {
            self.seen.resize(count * 3, false);
        }
        // What it shows is written where it is kept, and taken back if it is not.
        let start = self.places.len();
        let (seen, shown) = (&mut self.seen, &mut self.places);
        occurrences(lines, piece, 0..piece.len(), |key, at| {
            if !seen[key] {
                seen[key] = true;
                // A piece is at most a recording's size: 256 MiB by default.
                let at = u32::try_from(at).unwrap_or(u32::MAX);
                shown.push((key as u32, at));
            }
        });
        for &(key, at) in &self.places[start..] {
            self.seen[key as usize] = false;
            each(key as usize, at as usize);
        }
        if self.kept + piece.len() <= self.bound() {
            self.kept += piece.len();
            self.keep_placed(hash, piece, start);
        } else {
            self.places.truncate(start);
        }
    }

    /// [`KEPT_BYTES`], or less in a test.
    fn bound(&self) -> usize {
        #[cfg(test)]
        if let Some(bound) = self.test_bound {
            return bound;
        }
        KEPT_BYTES
    }
}

/// Calls `each` with every occurrence in bytes `range` of `text` of a needle with no line
/// break, once per [`Match`] it stands as: `needle * 3 + match` and where it starts.
fn occurrences(
    lines: &Lines,
    text: &str,
    range: std::ops::Range<usize>,
    mut each: impl FnMut(usize, usize),
) {
    lines.occurrences(text.as_bytes(), range, |id, at, end| {
        for how in [Match::Word, Match::Anywhere, Match::Text] {
            if bounded(text, at, end, how) {
                each(id * 3 + how as usize, at);
            }
        }
    });
}

/// The blocks of `text`, each with where it starts: what lies between two line breaks in a
/// row (a blank line), those two left out.
fn blocks(text: &str) -> impl Iterator<Item = (usize, &str)> {
    /// Two line breaks, found once for every text.
    static BLANK: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"\n\n"));
    let mut start = 0;
    BLANK
        .find_iter(text.as_bytes())
        .map(Some)
        .chain([None])
        .map(move |cut| {
            // Cuts do not overlap: of three line breaks in a row, the third begins a block.
            let end = cut.unwrap_or(text.len());
            let block = (start, &text[start..end]);
            start = end + 2;
            block
        })
}

/// The pieces of `text`, each with where it starts: its lines, the line breaks left out.
fn pieces(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut start = 0;
    memchr::memchr_iter(b'\n', text.as_bytes())
        .map(Some)
        .chain([None])
        .map(move |cut| {
            let end = cut.unwrap_or(text.len());
            let piece = (start, &text[start..end]);
            start = end + 1;
            piece
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn past_its_bound_a_piece_is_searched_again_and_shows_the_same() {
        let patterns: [(&[u8], u32); 3] = [(b"ab", 0), (b"b", 1), (b"cd", 2)];
        let lines = Lines::new(&patterns).unwrap().unwrap();
        let messages = ["ab cd\n\nb", "x\n\nab cd\n\nzz b", "ab cd\n\nb"];
        let shown = |bound: Option<usize>| {
            let mut kept = Messages {
                test_bound: bound,
                ..Messages::default()
            };
            let mut all = Vec::new();
            for message in messages {
                for from in [0, 3] {
                    let mut one = Vec::new();
                    kept.shown((&lines, 3), message, from, |key, at| one.push((key, at)));
                    one.sort();
                    all.push(one);
                }
            }
            (all, kept.kept)
        };
        let (unbounded, kept) = shown(None);
        let (bounded, none_kept) = shown(Some(0));
        assert_eq!(bounded, unbounded);
        assert_eq!(
            (kept, none_kept),
            ("ab cd".len() + "b".len() + "x".len() + "zz b".len(), 0)
        );
        // Needle * 3 + (word, anywhere, plain word): `ab` and `cd` as words at 0 and 3; `b`
        // inside `ab` (anywhere: its first), then as a word at 7.
        assert_eq!(
            unbounded[0],
            [
                (0, 0),
                (1, 0),
                (2, 0),
                (3, 7),
                (4, 1),
                (5, 7),
                (6, 3),
                (7, 3),
                (8, 3)
            ]
        );
        // From byte 3: the first piece from there (`cd`), the second whole.
        assert_eq!(
            unbounded[1],
            [(3, 7), (4, 7), (5, 7), (6, 3), (7, 3), (8, 3)]
        );
    }

    #[test]
    fn blocks_are_cut_at_blank_lines() {
        fn cut(text: &str) -> Vec<(usize, &str)> {
            blocks(text).collect()
        }
        assert_eq!(cut("a\nb\n\nc"), [(0, "a\nb"), (5, "c")]);
        assert_eq!(cut(""), [(0, "")]);
        assert_eq!(cut("\n\n\nx\n\n"), [(0, ""), (2, "\nx"), (6, "")]);
        assert_eq!(cut("a\n\n\n\nb"), [(0, "a"), (3, ""), (5, "b")]);
    }

    #[test]
    fn pieces_are_the_lines() {
        fn cut(text: &str) -> Vec<(usize, &str)> {
            pieces(text).collect()
        }
        assert_eq!(cut("a\nb\n\nc"), [(0, "a"), (2, "b"), (4, ""), (5, "c")]);
        assert_eq!(cut(""), [(0, "")]);
        assert_eq!(cut("\nx\n"), [(0, ""), (1, "x"), (3, "")]);
        assert_eq!(cut("é\r\n"), [(0, "é\r"), (4, "")]);
    }

    proptest::proptest! {
        /// What a message shows from any byte on, through kept messages, blocks and lines
        /// (searched before in other messages, or not), is where each (needle, match) first
        /// occurs from there in a search of the message alone.
        #[test]
        fn what_messages_show_is_what_a_search_of_each_finds(
            messages in proptest::collection::vec(
                proptest::collection::vec(
                    proptest::sample::select(vec![
                        "ab", "cd", " ", "\n", "\n\n", "b", "é", "abcd", "x\nab", "line\n",
                    ]),
                    0..80,
                ),
                1..10,
            ),
            froms in proptest::collection::vec(0usize..120, 10),
            bound in proptest::option::of(0usize..64),
        ) {
            let patterns: [(&[u8], u32); 4] = [(b"ab", 0), (b"b", 1), (b"cd", 2), (b"\xc3\xa9", 3)];
            let lines = Lines::new(&patterns).unwrap().unwrap();
            let mut kept = Messages { test_bound: bound, ..Messages::default() };
            for (message, from) in messages.iter().zip(&froms) {
                let message: String = message.concat();
                let mut from = (*from).min(message.len());
                while !message.is_char_boundary(from) {
                    from -= 1;
                }
                let mut shown = std::collections::BTreeMap::new();
                kept.shown((&lines, 4), &message, from, |key, at| {
                    shown.entry(key).or_insert(at);
                });
                let mut whole = std::collections::BTreeMap::new();
                occurrences(&lines, &message, from..message.len(), |key, at| {
                    whole.entry(key).or_insert(at);
                });
                proptest::prop_assert_eq!(shown, whole, "{:?} from {}", message, from);
            }
        }
    }
}
