//! Whether a prompt shows a tool call: its name followed, within 400 characters, by each of
//! its values; prompt after prompt, from where the prompt differs from the one before.

use super::{floor_char_boundary, Match, Needles, Search, CHAR_MAX};
use crate::ab::retention::CallFact;

/// Whether a text shows a call: where the window of the first occurrence of its name that
/// shows it ends, if one does.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
pub(super) enum Shown {
    /// Not looked for.
    #[default]
    Unknown,
    No,
    /// Shown by the first occurrence whose window shows it, which ends at `end`.
    Yes {
        end: usize,
    },
    /// Shown by the last occurrence whose window shows it, which ends at `end`: an earlier
    /// one may show it too.
    Last {
        end: usize,
    },
}

impl<'f> Search<'f> {
    /// Whether `text` shows `call`, the `index`th call of the run ([`call_visible`]). The
    /// window of an occurrence of its name that ends in the start `text` shares with the
    /// previous text shows what it showed there: a call the previous text showed within that
    /// start still is; a call it did not show, or showed first past that start, only by the
    /// occurrences whose windows reach past it. Any other call is looked for in the whole text,
    /// from its last occurrence back: the boolean is the same whichever window shows it.
    ///
    /// `numbered` gives the numbers of the call's values among the needles found together in
    /// `text` ([`Needles::id`]), when they were: a window cannot show a value before the end
    /// of its first occurrence ([`Search::reach`]).
    pub(in crate::ab::retention) fn call_visible(
        &mut self,
        index: usize,
        text: &str,
        call: &'f CallFact,
        numbered: Option<(&[Option<usize>], &Needles)>,
        places: &mut Places<'f>,
    ) -> bool {
        let before = self.calls_before.get(index).copied().unwrap_or_default();
        let shown = match before {
            Shown::Yes { end } | Shown::Last { end } if end <= self.common => before,
            _ => self.look_for(text, call, before, numbered, places),
        };
        if self.calls.len() <= index {
            self.calls.resize(index + 1, Shown::Unknown);
        }
        self.calls[index] = shown;
        shown != Shown::No
    }

    /// [`Search::call_visible`] of a call that the start `text` shares with the previous text
    /// did not show as it did (`before`).
    fn look_for(
        &mut self,
        text: &str,
        call: &'f CallFact,
        before: Shown,
        numbered: Option<(&[Option<usize>], &Needles)>,
        places: &mut Places<'f>,
    ) -> Shown {
        let reach = match numbered {
            Some((ids, needles)) => self.reach(call, ids, needles),
            None => Some(0),
        };
        match before {
            // A value the text does not hold: no window shows it.
            _ if reach.is_none() => Shown::No,
            // A call not looked for in the previous text is most often a new one, which the
            // end of the text shows: its occurrences are tried from the last, unless where its
            // values first occur is known: then from the first whose window reaches there
            // (tried from the last, every later call's occurrence would be tried first).
            Shown::Unknown | Shown::Last { .. } => {
                let name = call.name.needle();
                if !self.names.contains_key(name) {
                    let all = self.occurrences(text, call);
                    self.names.insert(name, all);
                }
                let all = self.names.get_mut(name).expect("inserted above");
                match reach {
                    Some(reach) if reach > 0 => first_witness(text, call, all, reach),
                    _ => last_witness(text, call, all, 0),
                }
            }
            // The windows of the occurrences before `from` end in the shared start.
            Shown::Yes { .. } | Shown::No => {
                let from = floor_char_boundary(
                    text,
                    self.common.saturating_sub(WINDOW_BYTES).min(text.len()),
                );
                places.first_witness(text, call, from, reach.unwrap_or(0))
            }
        }
    }

    /// How far into the text a window must reach to show each of the call's values (numbered
    /// `ids` among `needles`): past the end of each one's first occurrence, when they were
    /// found together in the text ([`Search::start_with`]); `None` when the text does not hold
    /// one of them.
    fn reach(&self, call: &CallFact, ids: &[Option<usize>], needles: &Needles) -> Option<usize> {
        if !self.needles.is_some_and(|n| std::ptr::eq(n, needles)) {
            return Some(0);
        }
        let mut reach = 0;
        for (needle, id) in call.needles.iter().zip(ids) {
            if let Some(firsts) = id.and_then(|id| self.firsts.get(id)) {
                let first = super::place(firsts[Match::Anywhere as usize])?;
                reach = reach.max(first + needle.needle().len());
            }
        }
        Some(reach)
    }

    /// Where the call's name occurs in `text`, as a search of the whole text finds them (one
    /// after the other, each from the end of the one before). Those found in the previous text
    /// that end in the start both share are the same, with their windows when these end there
    /// too: the search goes on from where none of them can be.
    fn occurrences(&self, text: &str, call: &CallFact) -> Vec<Occurrence> {
        let name = call.name.needle();
        let Some(before) = self.names_before.get(name).filter(|_| !name.is_empty()) else {
            return call
                .name
                .find_iter(text.as_bytes())
                .map(|i| (i, None))
                .collect();
        };
        let common = self.common.min(text.len());
        let mut all: Vec<Occurrence> = before
            .iter()
            .take_while(|(at, _)| at + name.len() <= common)
            .map(|&(at, end)| (at, end.filter(|&end| end < common)))
            .collect();
        // The next occurrence starts after the last one kept, and ends past the shared start:
        // the previous text had none in between.
        let from = all
            .last()
            .map_or(0, |(at, _)| at + name.len())
            .max((common + 1).saturating_sub(name.len()))
            .min(text.len());
        all.extend(
            call.name
                .find_iter(&text.as_bytes()[from..])
                .map(|i| (from + i, None)),
        );
        all
    }
}

/// Where the names of calls occur in one text, each name found once from each place asked,
/// with the window of 400 characters that follows each occurrence: calls repeat their names,
/// and every call of a run is checked in every prompt.
#[derive(Default)]
pub(in crate::ab::retention) struct Places<'f> {
    found: rustc_hash::FxHashMap<(&'f [u8], usize), Vec<Occurrence>>,
}

/// Where a name occurs, and where the window of 400 characters from there ends (`None` until
/// it is asked).
pub(super) type Occurrence = (usize, Option<usize>);

/// More bytes than a window of 400 characters spans past its start (4 bytes a character).
const WINDOW_BYTES: usize = 401 * CHAR_MAX;

impl<'f> Places<'f> {
    /// The first occurrence of the call's name from byte `from` on whose window shows each of
    /// its values; those whose windows end before `reach` ([`Search::reach`]) cannot.
    fn first_witness(
        &mut self,
        text: &str,
        call: &'f CallFact,
        from: usize,
        reach: usize,
    ) -> Shown {
        first_witness(text, call, self.windows(text, call, from), reach)
    }

    /// The occurrences of the call's name from byte `from` on, each with where its window
    /// ends once asked.
    fn windows(&mut self, text: &str, call: &'f CallFact, from: usize) -> &mut [Occurrence] {
        self.found
            .entry((call.name.needle(), from))
            .or_insert_with(|| {
                call.name
                    .find_iter(&text.as_bytes()[from..])
                    .map(|i| (from + i, None))
                    .collect()
            })
    }
}

/// The first of `windows`, occurrences of the call's name in `text`, whose window shows each of
/// its values; those whose windows end before `reach` ([`Search::reach`]) cannot.
fn first_witness(text: &str, call: &CallFact, windows: &mut [Occurrence], reach: usize) -> Shown {
    let short = windows.partition_point(|&(at, _)| at + WINDOW_BYTES < reach);
    windows[short..]
        .iter_mut()
        .find_map(|window| witness(text, call, window, reach))
        .map_or(Shown::No, |end| Shown::Yes { end })
}

/// The last of `all`, the occurrences of the call's name in `text`, whose window shows each of
/// its values; those whose windows end before `reach` ([`Search::reach`]) cannot.
fn last_witness(text: &str, call: &CallFact, all: &mut [Occurrence], reach: usize) -> Shown {
    let short = all.partition_point(|&(at, _)| at + WINDOW_BYTES < reach);
    all[short..]
        .iter_mut()
        .rev()
        .find_map(|window| witness(text, call, window, reach))
        .map_or(Shown::No, |end| Shown::Last { end })
}

/// Where the window of an occurrence (its start, and its end once known) ends, when it shows
/// each of the call's values. A window that ends before `reach` ([`Search::reach`]) cannot, and
/// is not searched: its start alone rules out only the windows that end before it however wide
/// their characters, and of the windows tried on mini-swe-agent logs about three in four end
/// before it.
fn witness(text: &str, call: &CallFact, window: &mut Occurrence, reach: usize) -> Option<usize> {
    let start = window.0;
    let end = *window.1.get_or_insert_with(|| window_end(text, start));
    if end < reach {
        return None;
    }
    let shown = &text.as_bytes()[start..end];
    call.needles
        .iter()
        .all(|n| n.find(shown).is_some())
        .then_some(end)
}

/// Where the window of 400 characters from byte `i` of `text` ends.
pub(in crate::ab::retention) fn window_end(text: &str, i: usize) -> usize {
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
            char_starts(block)
        };
        end += block.len();
    }
    // The last block may end inside its last character: the window ends after it.
    while bytes.get(end).is_some_and(|&b| (b as i8) < -0x40) {
        end += 1;
    }
    end
}

/// How many bytes of `bytes` start a character (do not continue one, `10xxxxxx`): eight at
/// a time, a continuing byte being one whose top bit is set and the next one not.
fn char_starts(bytes: &[u8]) -> usize {
    const TOP: u64 = 0x8080_8080_8080_8080;
    let chunks = bytes.chunks_exact(8);
    let rest = chunks.remainder();
    let continuing: u32 = chunks
        .map(|chunk| {
            let w = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
            (w & !(w << 1) & TOP).count_ones()
        })
        .sum();
    bytes.len() - continuing as usize - rest.iter().filter(|&&b| (b as i8) < -0x40).count()
}

/// Whether the call's name occurs followed, within 400 characters, by each of its values.
#[cfg(test)]
pub(in crate::ab::retention) fn call_visible(text: &str, call: &CallFact) -> bool {
    Places::default().first_witness(text, call, 0, 0) != Shown::No
}

#[cfg(test)]
mod tests {
    use super::super::Search;
    use super::{window_end, CallFact};
    use crate::ab::retention::finder;

    proptest::proptest! {
        /// Where a name occurs, prompt after prompt, with what the previous prompt found in the
        /// start both share, is where a search of the whole text finds it, each window's end
        /// where it ends in this text: names that overlap themselves, occurrences and windows
        /// that end in the shared start, cross it or start after it.
        #[test]
        fn occurrences_kept_from_the_previous_prompt_are_those_of_a_whole_search(
            pieces in proptest::collection::vec(
                proptest::collection::vec(
                    proptest::sample::select(vec![
                        "abab", "ab", "a", "b", " 7", "é", "\n", "x".repeat(90).leak(),
                    ]),
                    0..40,
                ),
                1..8,
            ),
            keep in proptest::collection::vec(0usize..3000, 8),
        ) {
            let calls = [
                CallFact { name: finder("abab"), needles: vec![finder("7")] },
                CallFact { name: finder("b"), needles: vec![finder("é")] },
            ];
            let mut search = Search::default();
            let mut previous = String::new();
            for (p, added) in pieces.iter().enumerate() {
                let mut end = keep[p].min(previous.len());
                while !previous.is_char_boundary(end) {
                    end -= 1;
                }
                let text = format!("{}{}", &previous[..end], added.concat());
                search.start(&text);
                let mut places = super::Places::default();
                for (i, call) in calls.iter().enumerate() {
                    search.call_visible(i, &text, call, None, &mut places);
                    // Looked for in the whole text only when the previous text showed the
                    // call past the shared start (or was not looked in).
                    let Some(found) = search.names.get(call.name.needle()) else {
                        continue;
                    };
                    let whole: Vec<usize> = call.name.find_iter(text.as_bytes()).collect();
                    let starts: Vec<usize> = found.iter().map(|o| o.0).collect();
                    proptest::prop_assert_eq!(&starts, &whole, "{:?}", text);
                    for &(at, end) in found {
                        if let Some(end) = end {
                            proptest::prop_assert_eq!(end, window_end(&text, at));
                        }
                    }
                }
                search.finish(text.clone());
                previous = text;
            }
        }
    }

    proptest::proptest! {
        /// Eight bytes at a time count what a byte at a time counts, whatever the bytes.
        #[test]
        fn char_starts_counts_the_bytes_that_do_not_continue_a_character(
            bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..40),
        ) {
            let one_by_one = bytes.iter().filter(|&&b| (b as i8) >= -0x40).count();
            proptest::prop_assert_eq!(super::char_starts(&bytes), one_by_one);
        }
    }
}
