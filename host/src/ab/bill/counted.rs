//! A run's billed calls counted where the run was measured.
//!
//! `ptc ab` hands each run that carries its bill to the comparison with the bill once its
//! strategies are measured. Counting the run's requests as sent there, on the counter that
//! just counted them for the as-sent baseline (each line already known), costs a fraction of
//! counting them again on the comparison's own thread, where every line is new. The counts are
//! the same either way: a counter's memory saves work, it does not change a count.

use std::mem::size_of;

use super::{measure, one_profile, Pending};
use crate::cache::{CacheBlock, Caching};
use crate::pricing::{Pricing, ProfileInfo};
use crate::recording::Recording;
use crate::tokens::Counter;

/// The billed calls of a run, counted as the rule of the profile its bill names counts them.
pub struct Counted {
    /// The caching of that profile: its provider's request format, and whether the requests'
    /// blocks are kept. The comparison takes these counts only for a run it prices under a
    /// profile of the same caching, else counts the run itself.
    pub(super) caching: Caching,
    /// The calls, as the comparison counts them (their run is set when it takes them).
    pub(super) calls: Vec<Pending>,
    /// The billed turns not compared.
    pub(super) skipped: usize,
}

impl Counted {
    /// The billed calls of `recording` counted on `counter`, under the profile of `pricing`
    /// its bill names (as [`Bill::read`](super::Bill::read) chooses it); `None` for a run that
    /// names no single profile, or whose calls would take more than `bytes` (the size of what
    /// the run was read from: what is held for a run waiting for the comparison stays within
    /// the size of its recording).
    pub fn of(
        recording: &Recording,
        pricing: &[Pricing],
        info: &[ProfileInfo],
        bytes: u64,
        counter: &mut Counter,
    ) -> Option<Counted> {
        super::first_billed(recording)?;
        let (mut pricing, mut info) = (pricing.to_vec(), info.to_vec());
        let profile = one_profile(recording, &mut pricing, &mut info).ok()?;
        let bound = usize::try_from(bytes).unwrap_or(usize::MAX);
        let (mut calls, mut held, mut within) = (Vec::new(), 0usize, true);
        let skipped = measure(recording, 0, &pricing[profile], counter, &mut |call| {
            held = held.saturating_add(call.held());
            within &= held <= bound;
            if within {
                calls.push(call);
            }
        });
        within.then_some(Counted {
            caching: pricing[profile].caching,
            calls,
            skipped,
        })
    }
}

impl Pending {
    /// Bytes a call holds, about.
    fn held(&self) -> usize {
        size_of::<Pending>()
            + self.prefixes.len() * size_of::<(u64, usize)>()
            + self.request.blocks.len() * size_of::<CacheBlock>()
    }
}
