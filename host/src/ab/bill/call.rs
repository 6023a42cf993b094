//! One billed call: what the bill says of it, and what the simulation says.

use super::READ_TOLERANCE;
use crate::recording::Usage;

/// One billed call: what was billed, and what the simulation says.
#[derive(Clone, Debug, PartialEq)]
pub struct Call {
    /// The turn the request was sent for, from 1.
    pub turn: usize,
    /// When it was sent (seconds), if the recording says.
    pub at: Option<f64>,
    /// ptc's count of the request as sent.
    pub counted: u64,
    /// The prompt tokens billed: uncached input, cache reads and cache writes.
    pub billed_prompt: u64,
    pub billed_read: u64,
    pub billed_written: u64,
    pub output: u64,
    /// The cost the source states for the call.
    pub billed_cost: Option<f64>,
    /// The billed tokens priced by the profile (what the bill would be at its prices).
    pub priced_bill: f64,
    /// The best case's cache reads and writes, in billed tokens.
    pub simulated_read: u64,
    pub simulated_written: u64,
    /// The best case's cost, output included.
    pub best_cost: f64,
    /// The cost when the cache misses: what the best case reads is paid as input (or
    /// written again, under explicit caching).
    pub miss_cost: f64,
    /// In a stretch that read nothing inside a run that reads elsewhere (`stretch`).
    pub apart: bool,
}

/// A call as billed, before it is simulated.
pub(super) fn billed(usage: &Usage, turn: usize, at: Option<f64>, counted: usize) -> Call {
    let written = usage.cache_write_5m + usage.cache_write_1h;
    Call {
        turn,
        at,
        counted: counted as u64,
        billed_prompt: usage.input + usage.cache_read + written,
        billed_read: usage.cache_read,
        billed_written: written,
        output: usage.output,
        billed_cost: usage.cost_usd,
        priced_bill: 0.0,
        simulated_read: 0,
        simulated_written: 0,
        best_cost: 0.0,
        miss_cost: 0.0,
        apart: false,
    }
}

impl Call {
    /// The expected cost when the share `miss_rate` of what the best case reads is missed.
    pub fn expected_cost(&self, miss_rate: f64) -> f64 {
        if self.simulated_read == 0 {
            self.best_cost
        } else {
            (1.0 - miss_rate) * self.best_cost + miss_rate * self.miss_cost
        }
    }

    /// Whether the simulated read is within [`READ_TOLERANCE`] of the billed one.
    pub fn read_close(&self) -> bool {
        self.simulated_read.abs_diff(self.billed_read) <= READ_TOLERANCE
    }
}
