//! Stretches of calls that read nothing inside a run that reads elsewhere: a router that sends
//! some calls to an upstream that does not cache gives them (whole runs that read nothing are
//! the same thing at the scale of a run). They say where calls were served, not how often a
//! cache misses: they are kept out of the miss rate and reported apart.
//!
//! A stretch is a maximal run of consecutive calls (in turn order) that read nothing, as
//! billed, holding at least [`STRETCH_CALLS`] calls the best case has reading. Whole misses
//! happen alone too (an entry evicted, a call served by another replica), but at the rate
//! the billed runs show (about 1 reading call in 14 reads nothing) three in a row by chance is
//! about 1 in 2,700 (0.07³), where two in a row would be 1 in 200, which a corpus of a few
//! hundred calls meets.

use crate::ab::bill::RunBill;

/// The fewest calls the best case has reading that a stretch holds.
pub const STRETCH_CALLS: usize = 3;

/// Marks the calls of `run` (in turn order) that are in a stretch as apart.
pub(super) fn mark(run: &mut RunBill) {
    if !run.any_read() {
        return;
    }
    let mut start = 0;
    while start < run.calls.len() {
        if run.calls[start].billed_read > 0 {
            start += 1;
            continue;
        }
        let end = run.calls[start..]
            .iter()
            .position(|c| c.billed_read > 0)
            .map_or(run.calls.len(), |n| start + n);
        let reading = run.calls[start..end]
            .iter()
            .filter(|c| c.simulated_read > 0)
            .count();
        if reading >= STRETCH_CALLS {
            for call in &mut run.calls[start..end] {
                call.apart = true;
            }
        }
        start = end;
    }
}

impl RunBill {
    /// Its stretches that read nothing, each as (first turn, last turn, calls).
    pub fn stretches(&self) -> Vec<(usize, usize, usize)> {
        let mut found: Vec<(usize, usize, usize)> = Vec::new();
        let mut previous_apart = false;
        for call in &self.calls {
            match found.last_mut() {
                Some(last) if call.apart && previous_apart => {
                    last.1 = call.turn;
                    last.2 += 1;
                }
                _ if call.apart => found.push((call.turn, call.turn, 1)),
                _ => {}
            }
            previous_apart = call.apart;
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ab::bill::Call;

    /// A run whose calls read, as billed, `billed[i]`, where the best case reads `best[i]`.
    fn run(billed: &[u64], best: &[u64]) -> RunBill {
        RunBill {
            recording: "r.json".into(),
            profile: 0,
            provider: None,
            model: None,
            calls: billed
                .iter()
                .zip(best)
                .enumerate()
                .map(|(i, (&billed_read, &simulated_read))| Call {
                    turn: i + 1,
                    at: None,
                    counted: 1000,
                    billed_prompt: 1000,
                    billed_read,
                    billed_written: 0,
                    output: 10,
                    billed_cost: None,
                    priced_bill: 0.0,
                    simulated_read,
                    simulated_written: 0,
                    best_cost: 0.0,
                    miss_cost: 0.0,
                    apart: false,
                })
                .collect(),
            skipped: 0,
            held_out_rate: None,
            rebuilt: None,
        }
    }

    #[test]
    fn three_calls_in_a_row_that_read_nothing_where_the_run_reads_elsewhere_are_apart() {
        // Calls 1-4 read nothing (the first has nothing to read in the best case either),
        // then the run reads: calls 1-4 are a stretch of 3 the best case reads.
        let mut r = run(&[0, 0, 0, 0, 900, 950], &[0, 800, 900, 950, 950, 990]);
        mark(&mut r);
        assert_eq!(r.stretches(), [(1, 4, 4)]);
        // Two in a row are chance misses, kept in the rate; so are single ones.
        let mut r = run(
            &[0, 500, 0, 0, 900, 0, 990],
            &[0, 500, 800, 900, 950, 990, 990],
        );
        mark(&mut r);
        assert!(r.stretches().is_empty());
        // A stretch at the end; a run that reads nothing anywhere is not split in stretches.
        let mut r = run(&[0, 700, 800, 0, 0, 0], &[0, 700, 800, 900, 950, 990]);
        mark(&mut r);
        assert_eq!(r.stretches(), [(4, 6, 3)]);
        let mut r = run(&[0, 0, 0, 0], &[0, 700, 800, 900]);
        mark(&mut r);
        assert!(r.stretches().is_empty() && r.calls.iter().all(|c| !c.apart));
        // Two stretches in one run.
        let mut r = run(
            &[0, 0, 0, 0, 500, 0, 0, 0, 600],
            &[0, 10, 10, 10, 500, 10, 10, 10, 600],
        );
        mark(&mut r);
        assert_eq!(r.stretches(), [(1, 4, 4), (6, 8, 3)]);
    }
}
