//! An automaton of a run's needles (printed lines, errors' first lines, names, literals), built
//! once per run: one for those with no line break, one for the others. Each needle goes into
//! it only as far as it must to be told from the others: its shortest start that no other
//! needle shares, and at least [`KEPT`] bytes. Where the automaton finds that start, the rest
//! of the needle is compared with the text that follows. A run's printed lines share short
//! starts and differ early, and the automaton holds a fraction of their bytes: building it
//! cost more than searching with it.

use aho_corasick::{AhoCorasick, Input};

/// Bytes of a needle that go into the automaton at least: fewer would make the start of many
/// lines of the text look like a needle, each then compared.
const KEPT: usize = 16;

pub(in crate::ab::retention) struct Lines {
    automaton: AhoCorasick,
    /// Per pattern of `automaton`: its needle's number, and where the rest of the needle (what
    /// the pattern leaves out) lies in `rests`.
    needles: Vec<(u32, u32, u32)>,
    /// The rests of the needles, one after the other.
    rests: Vec<u8>,
}

impl Lines {
    /// The automaton of `needles` (each with its number), none when there are none; an error
    /// when no automaton can hold them. The needles are distinct.
    pub(super) fn new(needles: &[(&[u8], u32)]) -> Result<Option<Lines>, TooMany> {
        if needles.is_empty() {
            return Ok(None);
        }
        let mut sorted: Vec<usize> = (0..needles.len()).collect();
        sorted.sort_unstable_by_key(|&i| needles[i].0);
        // Per needle: the bytes it shares at its start with the needles next to it in order,
        // the most with any other needle.
        let mut shared = vec![0; needles.len()];
        for pair in sorted.windows(2) {
            let (a, b) = (needles[pair[0]].0, needles[pair[1]].0);
            let common = a.iter().zip(b).take_while(|(x, y)| x == y).count();
            shared[pair[0]] = shared[pair[0]].max(common);
            shared[pair[1]] = shared[pair[1]].max(common);
        }
        let mut patterns = Vec::with_capacity(needles.len());
        let mut kept = Vec::with_capacity(needles.len());
        let mut rests = Vec::new();
        for (&(needle, id), shared) in needles.iter().zip(shared) {
            let cut = needle.len().min(KEPT.max(shared + 1));
            patterns.push(&needle[..cut]);
            let start = rests.len();
            rests.extend_from_slice(&needle[cut..]);
            let (Ok(start), Ok(end)) = (u32::try_from(start), u32::try_from(rests.len())) else {
                return Err(TooMany);
            };
            kept.push((id, start, end));
        }
        let automaton = AhoCorasick::builder()
            .kind(Some(aho_corasick::AhoCorasickKind::ContiguousNFA))
            .build(patterns)
            .map_err(|_| TooMany)?;
        Ok(Some(Lines {
            automaton,
            needles: kept,
            rests,
        }))
    }

    /// Calls `each` with every occurrence of a needle in bytes `range` of `text`: its number,
    /// where it starts and where it ends. Those of one needle come in the order of the text.
    pub(super) fn occurrences(
        &self,
        text: &[u8],
        range: std::ops::Range<usize>,
        mut each: impl FnMut(usize, usize, usize),
    ) {
        let end_of_range = range.end;
        let input = Input::new(text).range(range);
        for found in self.automaton.find_overlapping_iter(input) {
            let (id, start, end) = self.needles[found.pattern().as_usize()];
            let rest = &self.rests[start as usize..end as usize];
            let end = found.end() + rest.len();
            if end <= end_of_range && text[found.end()..end] == *rest {
                each(id as usize, found.start(), end);
            }
        }
    }
}

/// Needles that no automaton can hold: they are searched one by one.
#[derive(Debug)]
pub(in crate::ab::retention) struct TooMany;

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// Every (needle, start, end) of `needles` in `range` of `text`, needle by needle.
    fn one_by_one(
        needles: &[&[u8]],
        text: &[u8],
        range: std::ops::Range<usize>,
    ) -> Vec<[usize; 3]> {
        let mut all = Vec::new();
        for (id, needle) in needles.iter().enumerate() {
            for at in range.clone() {
                if at + needle.len() <= range.end && text[at..].starts_with(needle) {
                    all.push([id, at, at + needle.len()]);
                }
            }
        }
        all.sort();
        all
    }

    fn through_lines(
        needles: &[&[u8]],
        text: &[u8],
        range: std::ops::Range<usize>,
    ) -> Vec<[usize; 3]> {
        let numbered: Vec<(&[u8], u32)> = needles.iter().zip(0..).map(|(n, i)| (*n, i)).collect();
        let lines = Lines::new(&numbered).unwrap().unwrap();
        let mut all = Vec::new();
        let mut last_start = vec![None; needles.len()];
        lines.occurrences(text, range, |id, at, end| {
            // One needle's occurrences come in the order of the text.
            assert!(
                last_start[id] < Some(at),
                "needle {id} at {at} after {:?}",
                last_start[id]
            );
            last_start[id] = Some(at);
            all.push([id, at, end]);
        });
        all.sort();
        all
    }

    #[test]
    fn a_needle_past_what_the_automaton_holds_is_compared_whole() {
        let needles: [&[u8]; 5] = [
            b"File \"/testbed/django/db/models/query.py\"",
            b"File \"/testbed/django/db/models/base.py\"",
            b"File \"/testbed/django/db/models/base.py\", line 4",
            b"short",
            b"File \"/testbed/django/core/handlers.py\"",
        ];
        let text = b"File \"/testbed/django/db/models/base.py\", line 4\nFile \"/testbed/django/db/models/query.pz\"\nshort File \"/testbed/django/core/handlers.py\"";
        let found = through_lines(&needles, text, 0..text.len());
        assert_eq!(found, one_by_one(&needles, text, 0..text.len()));
        assert_eq!(found, [[1, 0, 40], [2, 0, 48], [3, 91, 96], [4, 97, 136]]);
        // A needle whose end lies past the range is not one in it.
        assert_eq!(through_lines(&needles, text, 0..47), [[1, 0, 40]]);
    }

    proptest! {
        /// Three letters make needles that share long starts, and are starts of each other;
        /// the text is made of needles, whole and cut short, between a few letters.
        #[test]
        fn occurrences_are_those_of_each_needle_searched_alone(
            needles in proptest::collection::btree_set("[ab]{1,24}|c[abc]{0,3}", 1..12),
            parts in proptest::collection::vec((0..12usize, 0..25usize, "[abc]{0,3}"), 0..12),
            from in 0..300usize,
            to in 0..300usize,
        ) {
            let needles: Vec<&[u8]> = needles.iter().map(|n| n.as_bytes()).collect();
            let mut text = Vec::new();
            for (i, cut, between) in &parts {
                let needle = needles[i % needles.len()];
                text.extend_from_slice(&needle[..needle.len().min(*cut)]);
                text.extend_from_slice(between.as_bytes());
            }
            let (from, to) = (from.min(text.len()), to.min(text.len()));
            let range = from.min(to)..to.max(from);
            prop_assert_eq!(
                through_lines(&needles, &text, range.clone()),
                one_by_one(&needles, &text, range)
            );
        }
    }
}
