//! What a run's messages show of its needles with no line break, kept per piece of text.
//!
//! A message is searched piece by piece: the pieces are its text cut at every blank line (a
//! strategy joins its sections with one). A needle with no line break occurs within one line,
//! so within one piece, and whether an occurrence stands as a whole word reads only the
//! characters around it, a line break at a piece's edge as the text's edge: what a piece shows
//! depends on its text alone. Each piece's is kept, by any strategy's prompt of the run, and
//! read back when a later prompt holds the same text (the head of every prompt, every section
//! a single message repeats, every message a window shifts).

use aho_corasick::{AhoCorasick, Input};

use super::{bounded, Match};
use crate::hash::quick_hash;

/// The automaton of a run's needles with no line break, the number of the needle of each of
/// its patterns, and how many needles there are.
pub(super) type Automaton<'a> = (&'a AhoCorasick, &'a [u32], usize);

/// Per piece of text searched whole with a run's needles with no line break, by any strategy:
/// each (needle, [`Match`]) it shows, as `needle * 3 + match`, with where it first does.
/// Looked up by a hash of the text's length and ends, then compared whole.
#[derive(Default)]
pub(super) struct Messages {
    by_hash: rustc_hash::FxHashMap<u64, Vec<(Box<str>, Box<[(u32, u32)]>)>>,
    /// Per (needle, match): whether the piece being searched showed it already. All false
    /// between searches: a search sets back only the entries it set, not the whole list.
    seen: Vec<bool>,
}

impl Messages {
    /// Calls `each` with every (needle, match) `message` shows from byte `from` on and where
    /// it does, in the order of the pieces: in the piece `from` falls in, every occurrence
    /// from there (searched); in each piece after it, the first (kept).
    pub(super) fn shown(
        &mut self,
        automaton: Automaton<'_>,
        message: &str,
        from: usize,
        mut each: impl FnMut(usize, usize),
    ) {
        let (lines, ids, _) = automaton;
        for (start, piece) in pieces(message) {
            let end = start + piece.len();
            if piece.is_empty() || end <= from {
                continue;
            }
            if start < from {
                let input = Input::new(message.as_bytes()).range(from..end);
                for found in lines.find_overlapping_iter(input) {
                    let (at, end) = (found.start(), found.end());
                    let id = ids[found.pattern().as_usize()] as usize;
                    for how in [Match::Word, Match::Anywhere, Match::Text] {
                        if bounded(message, at, end, how) {
                            each(id * 3 + how as usize, at);
                        }
                    }
                }
            } else {
                self.piece_shown(automaton, piece, |key, at| each(key, start + at));
            }
        }
    }

    /// Calls `each` with what `piece` shows of the needles, searched when no piece had its
    /// text.
    fn piece_shown(
        &mut self,
        (lines, ids, count): Automaton<'_>,
        piece: &str,
        mut each: impl FnMut(usize, usize),
    ) {
        let bucket = self.by_hash.entry(quick_hash(piece)).or_default();
        let at = match bucket.iter().position(|(text, _)| **text == *piece) {
            Some(at) => at,
            None => {
                if self.seen.len() < count * 3 {
                    self.seen.resize(count * 3, false);
                }
                let mut shown = Vec::new();
                for found in lines.find_overlapping_iter(piece.as_bytes()) {
                    let (at, end) = (found.start(), found.end());
                    let id = ids[found.pattern().as_usize()] as usize;
                    for how in [Match::Word, Match::Anywhere, Match::Text] {
                        let key = id * 3 + how as usize;
                        if !self.seen[key] && bounded(piece, at, end, how) {
                            self.seen[key] = true;
                            // A piece is at most a recording's size: 256 MiB by default.
                            let at = u32::try_from(at).unwrap_or(u32::MAX);
                            shown.push((key as u32, at));
                        }
                    }
                }
                for &(key, _) in &shown {
                    self.seen[key as usize] = false;
                }
                bucket.push((piece.into(), shown.into()));
                bucket.len() - 1
            }
        };
        for &(key, at) in bucket[at].1.iter() {
            each(key as usize, at as usize);
        }
    }
}

/// The pieces of `text` cut at every blank line, each with where it starts: the text between
/// two line breaks that follow each other, the line breaks left out.
fn pieces(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut start = 0;
    memchr::memmem::find_iter(text.as_bytes(), b"\n\n")
        .map(Some)
        .chain([None])
        .map(move |cut| {
            let end = cut.unwrap_or(text.len());
            let piece = (start, &text[start..end]);
            start = end + 2;
            piece
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_are_the_text_between_blank_lines() {
        fn cut(text: &str) -> Vec<(usize, &str)> {
            pieces(text).collect()
        }
        assert_eq!(cut("a\nb\n\nc"), [(0, "a\nb"), (5, "c")]);
        assert_eq!(cut(""), [(0, "")]);
        assert_eq!(cut("\n\n\nx\n\n"), [(0, ""), (2, "\nx"), (6, "")]);
        assert_eq!(cut("\n\n\n\n"), [(0, ""), (2, ""), (4, "")]);
    }
}
