//! Finding needles in prompt texts: as a whole word, as a whole word of plain text, or
//! anywhere; prompt after prompt of one run, reusing what the previous search found.

use lines::Lines;
pub(super) use memchr::memmem::Finder;
use messages::Messages;
pub(super) use places::Places;
use places::Shown;
#[cfg(test)]
pub(super) use places::{call_visible, window_end};

mod counts;
mod lines;
mod messages;
mod places;
mod text;

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
/// the part of the text searched, however many there are. In that part, a line of a message
/// that an earlier prompt of the run already held, wherever it was and whichever strategy made
/// it, is not searched again: what it showed is kept with its text ([`Messages`]). A window
/// that slides over the turns repeats its messages, shifted, where the shared start ends
/// early; a single message repeats its sections after the one that changed, and the lines of
/// a section that grows; strategies show many of the same messages.
#[derive(Default)]
pub struct Search<'f> {
    /// The text searched last, once its search is finished ([`Search::finish`]).
    previous: String,
    /// Bytes the previous text and the current one share at their start.
    common: usize,
    /// Per needle searched in the previous text: where it first occurred, if it did.
    before: rustc_hash::FxHashMap<(Match, &'f [u8]), Option<usize>>,
    /// The same for the current text.
    now: rustc_hash::FxHashMap<(Match, &'f [u8]), Option<usize>>,
    /// The run's needles, when they were found together in the text being searched (or searched
    /// last); `None` after a text searched needle by needle.
    needles: Option<&'f Needles>,
    /// Per needle of `needles`, per [`Match`]: where it first occurs in that text
    /// ([`NOWHERE`]: it does not). The next text's are written over them: those that lie in
    /// the start both share are kept, the others found again ([`Search::start_with`]).
    firsts: Vec<Firsts>,
    /// The entries of a list of needles that grows from prompt to prompt, counted
    /// ([`Search::count_growing`]).
    growing: counts::Growing,
    /// Per call of the run (by its place among the facts'), whether the previous text showed
    /// it ([`Search::call_visible`]).
    calls_before: Vec<Shown>,
    /// The same for the current text.
    calls: Vec<Shown>,
    /// Per call name looked for in the whole previous text: where it occurs there, each
    /// occurrence with where its window ends once that was asked ([`places`]).
    names_before: rustc_hash::FxHashMap<&'f [u8], Vec<places::Occurrence>>,
    /// The same for the current text.
    names: rustc_hash::FxHashMap<&'f [u8], Vec<places::Occurrence>>,
}

/// Bytes of the widest character: what a whole-word check reads after an occurrence.
const CHAR_MAX: usize = 4;

/// Where a needle first occurs in a text, per [`Match`]: a byte offset, or [`NOWHERE`]. Four
/// bytes each, so that the places of every needle of a run, kept from one prompt to the next,
/// are checked in one short pass; a text of 4 GiB or more is searched needle by needle.
type Firsts = [u32; 3];

/// A needle that does not occur.
const NOWHERE: u32 = u32::MAX;

/// `first` as an offset, `None` for [`NOWHERE`].
fn place(first: u32) -> Option<usize> {
    (first != NOWHERE).then_some(first as usize)
}

/// The distinct needles of a run, found together: those with no line break by one automaton,
/// message by message; those with one (which may cross from one message into the next) by
/// another, in the text.
#[derive(Default)]
pub(super) struct Needles {
    /// The needles with no line break, with their numbers.
    lines: Option<Lines>,
    /// The needles that hold a line break, with their numbers.
    crossing: Option<Lines>,
    /// Each needle's number, by the address of the needle's bytes in the finder that holds
    /// them: the finders are the run's facts', alive while these are, so an address names one
    /// finder (a needle is found every prompt: its bytes are not hashed).
    ids: rustc_hash::FxHashMap<usize, usize>,
    /// How many needles there are.
    count: usize,
    /// Bytes of the longest needle.
    longest: usize,
    /// What each message searched whole shows of the needles with no line break, for every
    /// prompt of the run, whichever strategy made it.
    messages: std::cell::RefCell<Messages>,
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
        let (mut lines, mut crossing) = (Vec::new(), Vec::new());
        for (id, pattern) in patterns.iter().enumerate() {
            let Ok(id) = u32::try_from(id) else {
                return Needles::default();
            };
            if memchr::memchr(b'\n', pattern).is_some() {
                crossing.push((*pattern, id));
            } else {
                lines.push((*pattern, id));
            }
        }
        // The automata of the needles: none for no needles, an error for a set no automaton
        // can hold, which is then searched needle by needle.
        let (Ok(lines), Ok(crossing)) = (Lines::new(&lines), Lines::new(&crossing)) else {
            return Needles::default();
        };
        Needles {
            lines,
            crossing,
            ids,
            count: patterns.len(),
            longest: patterns.iter().map(|p| p.len()).max().unwrap_or(0),
            messages: Default::default(),
        }
    }
}

impl Needles {
    /// The number of `needle` among these, when it is one of them (by the address of its
    /// bytes: [`Needles::new`]).
    pub(super) fn id(&self, needle: &Finder<'static>) -> Option<usize> {
        self.ids.get(&(needle.needle().as_ptr() as usize)).copied()
    }
}

impl<'f> Search<'f> {
    /// The text of the latest prompt searched.
    pub fn text(&self) -> &str {
        &self.previous
    }

    /// Starts the search of `text`, each needle on its own.
    #[cfg(test)]
    pub(super) fn start(&mut self, text: &str) {
        self.common = common_prefix(&self.previous, text).len();
        // What was found together in another text does not hold for this one, nor for the
        // text after it.
        self.needles = None;
    }

    /// [`Search::start`], finding every one of `needles` in `text` at once: where each first
    /// occurs as each [`Match`] asks; `text` is `messages` joined by line breaks. An
    /// occurrence found in the previous text that ends, with the character after it, before
    /// the shared start less the longest needle is still the first; the rest of the text is
    /// searched, a message whose text was searched whole before not again.
    pub(super) fn start_with(&mut self, text: &str, messages: &[&str], needles: &'f Needles) {
        let common = common_prefix(&self.previous, text).len();
        self.start_together(text, messages, needles, common);
    }

    /// [`Search::start_with`] of a text that shares its first `common` bytes with the
    /// previous one (as [`Search::next_text`] gives them), not compared again.
    pub(super) fn start_together(
        &mut self,
        text: &str,
        messages: &[&str],
        needles: &'f Needles,
        common: usize,
    ) {
        debug_assert_eq!(
            messages.iter().map(|m| m.len() + 1).sum::<usize>(),
            text.len() + 1,
            "the messages joined by line breaks are the text"
        );
        let same = self.needles.is_some_and(|n| std::ptr::eq(n, needles))
            && self.firsts.len() == needles.count;
        self.common = common;
        // What was found together in another text does not hold for this one, nor for the
        // text after it.
        self.needles = None;
        // Places past 4 GiB are not kept: such a text is searched needle by needle.
        if needles.ids.is_empty() || u32::try_from(text.len()).is_err() {
            return;
        }
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
        if same {
            // Under 4 GiB, as the text is. [`NOWHERE`] is past it: not kept either.
            let from = from as u32;
            for first in self.firsts.as_flattened_mut() {
                *first = if *first < from { *first } else { NOWHERE };
            }
        } else {
            self.firsts.clear();
            self.firsts.resize(needles.count, [NOWHERE; 3]);
        }
        if let Some(lines) = &needles.lines {
            // A needle with no line break occurs within one message, and within one piece of
            // it ([`Messages`]): those that end by `from` were found before; the piece `from`
            // falls in is searched from there; each piece after it is looked up.
            let automaton = (lines, needles.count);
            let mut kept = needles.messages.borrow_mut();
            let mut start = 0;
            for message in messages {
                let end = start + message.len();
                if end > from && !message.is_empty() {
                    let from = from.saturating_sub(start);
                    kept.shown(automaton, message, from, |key, at| {
                        let first = &mut self.firsts[key / 3][key % 3];
                        if *first == NOWHERE {
                            // Within the text: under 4 GiB.
                            *first = (start + at) as u32;
                        }
                    });
                }
                start = end + 1;
            }
        }
        if let Some(crossing) = &needles.crossing {
            crossing.occurrences(text.as_bytes(), from..text.len(), |id, at, end| {
                first(&mut self.firsts[id], text, at, end)
            });
        }
    }

    /// Whether the text searched last ([`Search::text`]) showed `needle` as `how` asks, when
    /// it was found there with every needle at once.
    pub(super) fn found_last(&self, needle: &Finder<'static>, how: Match) -> Option<bool> {
        self.found_together(needle, how)
    }

    /// Whether `needle` occurs as `how` asks in the text being searched (or searched last),
    /// when it is one of the needles found there together.
    fn found_together(&self, needle: &Finder<'static>, how: Match) -> Option<bool> {
        let id = self.needles?.id(needle)?;
        Some(self.firsts.get(id)?[how as usize] != NOWHERE)
    }

    pub(super) fn finish(&mut self, text: String) {
        std::mem::swap(&mut self.before, &mut self.now);
        self.now.clear();
        std::mem::swap(&mut self.calls_before, &mut self.calls);
        self.calls.clear();
        std::mem::swap(&mut self.names_before, &mut self.names);
        self.names.clear();
        self.previous = text;
    }

    /// Whether `needle` occurs in `text` as `how` asks.
    pub(super) fn find(&mut self, text: &str, needle: &'f Finder<'static>, how: Match) -> bool {
        if let Some(found) = self.found_together(needle, how) {
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

/// Records the occurrence at bytes `at..end` of `text` (under 4 GiB) in `firsts` (a
/// needle's, per [`Match`]) for each match it is and the needle has no earlier one of.
fn first(firsts: &mut Firsts, text: &str, at: usize, end: usize) {
    for how in [Match::Word, Match::Anywhere, Match::Text] {
        let first = &mut firsts[how as usize];
        if *first == NOWHERE && bounded(text, at, end, how) {
            *first = at as u32;
        }
    }
}

/// The largest character boundary of `text` at or before `i`.
fn floor_char_boundary(text: &str, mut i: usize) -> usize {
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// A character of a PTC-Lisp symbol: a letter, a digit or one of `-_?!*<>=/.+'` (matched
/// as characters, not looked for in a string: this runs for every character around every
/// occurrence of every needle).
#[inline]
pub(super) fn is_symbol_char(c: char) -> bool {
    c.is_alphanumeric()
        || matches!(
            c,
            '-' | '_' | '?' | '!' | '*' | '<' | '>' | '=' | '/' | '.' | '+' | '\''
        )
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

/// Whether bytes `at..end` of `text` stand as a whole word of text: no letter, digit or `_`
/// on either side (the rule of [`find_text_word`]).
pub(super) fn is_text_word(text: &str, at: usize, end: usize) -> bool {
    bounded(text, at, end, Match::Text)
}

/// Whether the occurrence at bytes `at..end` of `text` shows its needle as `how` asks.
/// Called for every occurrence the automaton finds, from the modules beside this one: inlined
/// there whatever code unit the compiler puts each in.
#[inline]
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
    let needle = word.needle();
    let len = needle.len();
    // Every occurrence, those that overlap the one before included: in `xa/b/a/b/a/b`, the
    // word `a/b/a/b` stands at byte 5, over the end of the occurrence at byte 1 that `x`
    // touches. Only a needle that starts with its own end occurs so; the others are found
    // in one pass.
    let mut overlaps = None;
    let mut at = from;
    loop {
        let mut next = None;
        // Only an empty needle occurs inside a character.
        let found = word.find_iter(&text.as_bytes()[at..]).map(|i| at + i);
        for i in found.filter(|&i| text.is_char_boundary(i)) {
            let before = text[..i].chars().next_back();
            let after = text[i + len..].chars().next();
            if !before.is_some_and(&touches) && !after.is_some_and(&touches) {
                return Some(i);
            }
            if *overlaps.get_or_insert_with(|| (1..len).any(|p| needle[p..] == needle[..len - p])) {
                next = Some(i + 1);
                break;
            }
        }
        at = next?;
    }
}
