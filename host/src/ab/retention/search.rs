//! Finding needles in prompt texts: as a whole word, as a whole word of plain text, or
//! anywhere; prompt after prompt of one run, reusing what the previous search found.

pub(super) use memchr::memmem::Finder;

use super::CallFact;
use crate::tokens::common_prefix;

/// How a needle must occur to show its fact.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
#[repr(usize)]
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
///
/// With the run's [`Needles`] ([`Search::start_with`]), every needle is found in one pass over
/// the part of the text searched, however many there are.
#[derive(Default)]
pub struct Search<'f> {
    previous: String,
    /// Bytes the previous text and the current one share at their start.
    common: usize,
    /// Per needle searched in the previous text: where it first occurred, if it did.
    before: rustc_hash::FxHashMap<(Match, &'f [u8]), Option<usize>>,
    /// The same for the current text.
    now: rustc_hash::FxHashMap<(Match, &'f [u8]), Option<usize>>,
    /// The run's needles, when they are found together.
    needles: Option<&'f Needles>,
    /// Per needle of `needles`, per [`Match`]: where it first occurs in the previous text.
    firsts_before: Vec<[Option<usize>; 3]>,
    /// The same for the current text.
    firsts: Vec<[Option<usize>; 3]>,
}

/// Bytes of the widest character: what a whole-word check reads after an occurrence.
const CHAR_MAX: usize = 4;

/// The distinct needles of a run, found together by one automaton.
#[derive(Default)]
pub(super) struct Needles {
    automaton: Option<aho_corasick::AhoCorasick>,
    /// Each needle's number in the automaton, by the address of the needle's bytes in the
    /// finder that holds them: the finders are the run's facts', alive while these are, so
    /// an address names one finder (a needle is found every prompt: its bytes are not hashed).
    ids: rustc_hash::FxHashMap<usize, usize>,
    /// How many needles the automaton holds.
    count: usize,
    /// Bytes of the longest needle.
    longest: usize,
}

impl Needles {
    /// The needles of `all`, each once; the empty one is searched on its own. Every finder
    /// [`Search::find`] is later asked for must be one of `all`, or not be alive with them.
    pub(super) fn new<'a>(all: impl IntoIterator<Item = &'a Finder<'static>>) -> Needles {
        let mut by_text: rustc_hash::FxHashMap<&[u8], usize> = Default::default();
        let mut ids = rustc_hash::FxHashMap::default();
        let mut patterns: Vec<&[u8]> = Vec::new();
        for needle in all {
            let bytes = needle.needle();
            if bytes.is_empty() {
                continue;
            }
            let id = *by_text.entry(bytes).or_insert_with(|| {
                patterns.push(bytes);
                patterns.len() - 1
            });
            ids.insert(bytes.as_ptr() as usize, id);
        }
        let (count, longest) = (
            patterns.len(),
            patterns.iter().map(|p| p.len()).max().unwrap_or(0),
        );
        // A needle set the automaton cannot hold is searched needle by needle.
        let automaton = aho_corasick::AhoCorasick::new(&patterns).ok();
        if automaton.is_none() {
            ids.clear();
        }
        Needles {
            automaton,
            ids,
            count,
            longest,
        }
    }
}

impl<'f> Search<'f> {
    /// The text of the latest prompt searched.
    pub fn text(&self) -> &str {
        &self.previous
    }

    /// Starts the search of `text`, each needle on its own.
    pub(super) fn start(&mut self, text: &str) {
        self.common = common_prefix(&self.previous, text).len();
        // What was found together in another text does not hold for this one.
        self.needles = None;
        self.firsts.clear();
    }

    /// [`Search::start`], finding every one of `needles` in `text` at once: where each first
    /// occurs as each [`Match`] asks. An occurrence found in the previous text that ends, with
    /// the character after it, before the shared start less the longest needle is still the
    /// first; the rest of the text is searched.
    pub(super) fn start_with(&mut self, text: &str, needles: &'f Needles) {
        let same = self.needles.is_some_and(|n| std::ptr::eq(n, needles))
            && self.firsts_before.len() == needles.count;
        self.start(text);
        let Some(automaton) = &needles.automaton else {
            return;
        };
        let from = if !same {
            0
        } else {
            floor_char_boundary(
                text,
                self.common
                    .saturating_sub(needles.longest + CHAR_MAX)
                    .min(text.len()),
            )
        };
        self.needles = Some(needles);
        self.firsts.clear();
        self.firsts.resize(needles.count, [None; 3]);
        if same {
            for (now, before) in self.firsts.iter_mut().zip(&self.firsts_before) {
                for (now, before) in now.iter_mut().zip(before) {
                    *now = before.filter(|&at| at < from);
                }
            }
        }
        let input = aho_corasick::Input::new(text.as_bytes()).range(from..);
        for found in automaton.find_overlapping_iter(input) {
            let (at, end) = (found.start(), found.end());
            let firsts = &mut self.firsts[found.pattern().as_usize()];
            for how in [Match::Word, Match::Anywhere, Match::Text] {
                let first = &mut firsts[how as usize];
                if first.is_none() && bounded(text, at, end, how) {
                    *first = Some(at);
                }
            }
        }
    }

    /// Whether the text searched last ([`Search::text`]) showed `needle` as `how` asks, when
    /// it was found there with every needle at once.
    pub(super) fn found_last(&self, needle: &Finder<'static>, how: Match) -> Option<bool> {
        self.found_together(&self.firsts_before, needle, how)
    }

    /// Whether `needle` occurs as `how` asks, by `firsts` (those of a text searched with every
    /// needle at once), when it is one of the needles found together.
    fn found_together(
        &self,
        firsts: &[[Option<usize>; 3]],
        needle: &Finder<'static>,
        how: Match,
    ) -> Option<bool> {
        let id = *self
            .needles?
            .ids
            .get(&(needle.needle().as_ptr() as usize))?;
        Some(firsts.get(id)?[how as usize].is_some())
    }

    pub(super) fn finish(&mut self, text: String) {
        std::mem::swap(&mut self.before, &mut self.now);
        self.now.clear();
        std::mem::swap(&mut self.firsts_before, &mut self.firsts);
        self.previous = text;
    }

    /// Whether `needle` occurs in `text` as `how` asks.
    pub(super) fn find(&mut self, text: &str, needle: &'f Finder<'static>, how: Match) -> bool {
        if let Some(found) = self.found_together(&self.firsts, needle, how) {
            return found;
        }
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

/// Whether the occurrence at bytes `at..end` of `text` shows its needle as `how` asks.
fn bounded(text: &str, at: usize, end: usize, how: Match) -> bool {
    let touches: fn(char) -> bool = match how {
        Match::Anywhere => return true,
        Match::Word => is_symbol_char,
        Match::Text => |c| c.is_alphanumeric() || c == '_',
    };
    let before = text[..at].chars().next_back();
    let after = text[end..].chars().next();
    !before.is_some_and(touches) && !after.is_some_and(touches)
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
        // Only an empty needle occurs inside a character.
        .filter(|&i| text.is_char_boundary(i))
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
