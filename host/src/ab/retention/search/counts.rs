//! How many of a list of needles a prompt shows, by where they were found together.

use super::{Firsts, Match, Needles, Search, NOWHERE};
use crate::ab::retention::Share;

/// The first entries of a list of needle numbers that grows from prompt to prompt (a run's
/// printed lines, turn after turn), counted per needle: how many prompts show is then one pass
/// over the run's needles, however long the list.
#[derive(Default)]
pub(in crate::ab::retention) struct Growing {
    /// The address of the list counted: another list is counted anew.
    list: usize,
    /// Per needle found together: how many of the entries counted are its.
    per_needle: Vec<u32>,
    /// How many entries are counted.
    counted: usize,
    /// Of those, how many have a number among the needles found together.
    numbered: usize,
    /// The places of those that have none, in order.
    alone: Vec<usize>,
}

impl<'f> Search<'f> {
    /// Where each of `needles` first occurs in the text being searched, by its number
    /// ([`Needles::id`]), when they were found there together.
    pub(super) fn found_with(&self, needles: &Needles) -> Option<&[Firsts]> {
        let together = self.needles.is_some_and(|n| std::ptr::eq(n, needles));
        together.then_some(&self.firsts[..])
    }

    /// Counts in `share` the needles numbered `ids` ([`Needles::id`]) that the text being
    /// searched shows as `how` asks, by where they were found together; returns the places in
    /// `ids` of those to be searched on their own (with no number, or not found together), in
    /// order.
    pub(in crate::ab::retention) fn count_numbered(
        &self,
        share: &mut Share,
        ids: impl ExactSizeIterator<Item = u32>,
        how: Match,
        needles: &Needles,
    ) -> Vec<usize> {
        let Some(firsts) = self.found_with(needles) else {
            return (0..ids.len()).collect();
        };
        let (mut alone, mut shown, mut all) = (Vec::new(), 0, 0);
        for (i, id) in ids.enumerate() {
            // A number past every needle's is none.
            match firsts.get(id as usize) {
                Some(first) => {
                    all += 1;
                    shown += usize::from(first[how as usize] != NOWHERE);
                }
                None => alone.push(i),
            }
        }
        share.total += all;
        share.visible += shown;
        alone
    }

    /// [`Search::count_numbered`] of the first `len` entries of `ids`: of a list whose first
    /// entries were counted for the prompt before (the same list, by its address, of the same
    /// needles), only the entries added since are read, then each needle once.
    pub(in crate::ab::retention) fn count_growing(
        &mut self,
        share: &mut Share,
        ids: &[u32],
        len: usize,
        how: Match,
        needles: &Needles,
    ) -> Vec<usize> {
        let together = self.needles.is_some_and(|n| std::ptr::eq(n, needles));
        let (firsts, growing) = match together {
            true => (&self.firsts[..], &mut self.growing),
            false => return (0..len).collect(),
        };
        let list = ids.as_ptr().addr();
        if growing.list != list || growing.per_needle.len() != firsts.len() || len < growing.counted
        {
            *growing = Growing {
                list,
                per_needle: vec![0; firsts.len()],
                ..Growing::default()
            };
        }
        for (i, &id) in ids[growing.counted..len].iter().enumerate() {
            // A number past every needle's is none.
            match growing.per_needle.get_mut(id as usize) {
                Some(count) => {
                    *count += 1;
                    growing.numbered += 1;
                }
                None => growing.alone.push(growing.counted + i),
            }
        }
        growing.counted = len;
        let how = how as usize;
        let shown: u64 = (firsts.iter().zip(&growing.per_needle))
            .map(|(first, &count)| u64::from(count) * u64::from(first[how] != NOWHERE))
            .sum();
        share.total += growing.numbered;
        // At most `numbered`, a `usize`.
        share.visible += shown as usize;
        growing.alone.clone()
    }
}
