//! Finding needles in prompt texts: as a whole word, as a whole word of plain text, or
//! anywhere; prompt after prompt of one run, reusing what the previous search found.

pub(super) use memchr::memmem::Finder;

use super::CallFact;
use crate::tokens::common_prefix;

/// How a needle must occur to show its fact.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Match {
    /// As a whole word ([`find_word`]).
    Word,
    /// Anywhere.
    Anywhere,
    /// As a whole word of plain text ([`find_text_word`]).
    Text,
}

/// Where the needles of one run's prompts were found, prompt after prompt. The prompts of a
/// run mostly repeat the start of the one before: an occurrence found in the previous text
/// that lies, with the character after it, in the start both texts share is still one, and a
/// needle the previous text did not hold can only occur where the new text differs, so only
/// that part (and a needle's length before it) is searched. The result is the same as a
/// search of the whole text.
#[derive(Default)]
pub struct Search<'f> {
    previous: String,
    /// Bytes the previous text and the current one share at their start.
    common: usize,
    /// Per needle searched in the previous text: where it first occurred, if it did.
    before: rustc_hash::FxHashMap<(Match, &'f [u8]), Option<usize>>,
    /// The same for the current text.
    now: rustc_hash::FxHashMap<(Match, &'f [u8]), Option<usize>>,
}

/// Bytes of the widest character: what a whole-word check reads after an occurrence.
const CHAR_MAX: usize = 4;

impl<'f> Search<'f> {
    /// The text of the latest prompt searched.
    pub fn text(&self) -> &str {
        &self.previous
    }

    pub(super) fn start(&mut self, text: &str) {
        self.common = common_prefix(&self.previous, text).len();
    }

    pub(super) fn finish(&mut self, text: String) {
        std::mem::swap(&mut self.before, &mut self.now);
        self.now.clear();
        self.previous = text;
    }

    /// Whether `needle` occurs in `text` as `how` asks.
    pub(super) fn find(&mut self, text: &str, needle: &'f Finder<'static>, how: Match) -> bool {
        let key = (how, needle.needle());
        if let Some(&found) = self.now.get(&key) {
            return found.is_some();
        }
        let len = needle.needle().len();
        let from = match self.before.get(&key) {
            // Still there: the occurrence and the character after it are in the shared start.
            Some(&Some(at)) if at + len + CHAR_MAX <= self.common => {
                self.now.insert(key, Some(at));
                return true;
            }
            // Not in the previous text: any occurrence reaches past the shared start.
            Some(&None) => floor_char_boundary(text, self.common.saturating_sub(len + CHAR_MAX)),
            _ => 0,
        };
        let found = match how {
            Match::Word => find_word(text, needle, from),
            Match::Text => find_text_word(text, needle, from),
            Match::Anywhere => needle.find(&text.as_bytes()[from..]).map(|i| from + i),
        };
        self.now.insert(key, found);
        found.is_some()
    }
}

/// The largest character boundary of `text` at or before `i`.
fn floor_char_boundary(text: &str, mut i: usize) -> usize {
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

pub(super) fn is_symbol_char(c: char) -> bool {
    c.is_alphanumeric() || "-_?!*<>=/.+'".contains(c)
}

#[cfg(test)]
pub(super) fn contains_word(text: &str, word: &Finder<'_>) -> bool {
    find_word(text, word, 0).is_some()
}

/// Where `word` first occurs in `text` from byte `from` on as a whole word: no symbol
/// character touches it on either side.
pub(super) fn find_word(text: &str, word: &Finder<'_>, from: usize) -> Option<usize> {
    find_bounded(text, word, from, is_symbol_char)
}

/// Where `word` first occurs in `text` from byte `from` on as a whole word of plain text: no
/// letter, digit or `_` touches it on either side (`query.py` is one in `models/query.py`).
pub(super) fn find_text_word(text: &str, word: &Finder<'_>, from: usize) -> Option<usize> {
    find_bounded(text, word, from, |c| c.is_alphanumeric() || c == '_')
}

/// Where `word` first occurs in `text` from byte `from` on with no character that `touches`
/// on either side.
fn find_bounded(
    text: &str,
    word: &Finder<'_>,
    from: usize,
    touches: impl Fn(char) -> bool,
) -> Option<usize> {
    let len = word.needle().len();
    word.find_iter(&text.as_bytes()[from..])
        .map(|i| from + i)
        .find(|&i| {
            let before = text[..i].chars().next_back();
            let after = text[i + len..].chars().next();
            !before.is_some_and(&touches) && !after.is_some_and(&touches)
        })
}

/// Where the names of calls occur in one text, each name found once, with the window of 400
/// characters that follows each occurrence.
#[derive(Default)]
pub(super) struct Places<'f> {
    found: rustc_hash::FxHashMap<&'f [u8], Vec<(usize, usize)>>,
}

impl<'f> Places<'f> {
    /// [`call_visible`], with the places of the call's name and their windows found once per
    /// text: calls repeat their names, and every call of a run is checked in every prompt.
    pub(super) fn call_visible(&mut self, text: &str, call: &'f CallFact) -> bool {
        let windows = self.found.entry(call.name.needle()).or_insert_with(|| {
            call.name
                .find_iter(text.as_bytes())
                .map(|i| (i, window_end(text, i)))
                .collect()
        });
        windows.iter().any(|&(start, end)| {
            let window = &text.as_bytes()[start..end];
            call.needles.iter().all(|n| n.find(window).is_some())
        })
    }
}

/// Where the window of 400 characters from byte `i` of `text` ends.
pub(super) fn window_end(text: &str, i: usize) -> usize {
    let bytes = text.as_bytes();
    let mut end = i;
    // Characters still to pass: the next `left` bytes hold at most that many, so they are
    // counted a block at a time (a byte that does not continue a character starts one).
    let mut left = 400;
    while left > 0 {
        let block = &bytes[end..bytes.len().min(end + left)];
        if block.is_empty() {
            return bytes.len();
        }
        left -= if block.is_ascii() {
            block.len()
        } else {
            block.iter().filter(|&&b| (b as i8) >= -0x40).count()
        };
        end += block.len();
    }
    // The last block may end inside its last character: the window ends after it.
    while bytes.get(end).is_some_and(|&b| (b as i8) < -0x40) {
        end += 1;
    }
    end
}

/// Whether the call's name occurs followed, within 400 characters, by each of its values.
#[cfg(test)]
pub(super) fn call_visible(text: &str, call: &CallFact) -> bool {
    Places::default().call_visible(text, call)
}
