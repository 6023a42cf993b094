//! How [`run_listed`](super::run_listed) goes over its corpus, besides what it compares: what
//! it does with each prompt's measures, what it hands on, what it checks.

use std::sync::atomic::{AtomicBool, Ordering};

use crate::ab::{bill, RunDetail};
use crate::recording::corpus::Source;
use crate::recording::Recording;
use crate::Error;

/// What [`run_listed`](super::run_listed) does with every prompt's measures besides adding them up.
pub enum Rows<'a> {
    /// Nothing: only the sums are kept.
    Sums,
    /// Keeps them in [`Ab::runs`](super::Ab::runs).
    Keep,
    /// Hands each to the function, in recording order, with the position of its recording in
    /// the corpus; nothing is kept.
    Each(&'a mut dyn FnMut(usize, RunDetail) -> Result<(), Error>),
}

/// How a run goes over its corpus, besides what it compares ([`AbPlan`](super::AbPlan)).
pub struct RunOptions<'a> {
    /// What is done with every prompt's measures besides adding them up.
    pub rows: Rows<'a>,
    /// The first recording that cannot be read, in order, is the error (else it is left out
    /// and listed in [`Ab::bad_recordings`](super::Ab::bad_recordings)).
    pub strict: bool,
    /// Called once per recording done.
    pub progress: &'a (dyn Fn() + Sync),
    /// Hands each recording that carries its bill to this function once it is measured, in
    /// corpus order, with its billed calls counted on the thread that measured it
    /// ([`bill::Counted`]), so that `ptc bill`'s comparison comes from the same read (the
    /// others are named in [`Ab::billed`](super::Ab::billed)). Nothing is kept.
    pub billed: Option<&'a mut dyn FnMut(bill::ToBill)>,
    /// What was presumed of the recordings before the run began, checked on each: the first
    /// that refutes it ends the run early, and its results are not to be used.
    pub presumed: Option<&'a Presumed<'a>>,
}

/// What was presumed of a corpus's recordings before they were measured ([`RunOptions`]).
pub struct Presumed<'a> {
    /// Whether a recording as loaded (or its source, when it cannot be loaded) bears it out.
    holds: &'a (dyn Fn(Result<&Recording, &Source>) -> bool + Sync),
    /// Set by the first recording that does not.
    refuted: AtomicBool,
}

impl<'a> Presumed<'a> {
    /// What `holds` of each recording, not refuted yet.
    pub fn new(holds: &'a (dyn Fn(Result<&Recording, &Source>) -> bool + Sync)) -> Self {
        Presumed {
            holds,
            refuted: AtomicBool::new(false),
        }
    }

    /// Whether a recording as loaded (or its source) bears it out; when it does not, it is
    /// refuted from then on.
    pub fn check(&self, loaded: Result<&Recording, &Source>) -> bool {
        let holds = (self.holds)(loaded);
        if !holds {
            self.refuted.store(true, Ordering::Relaxed);
        }
        holds
    }

    /// Whether a recording checked so far did not bear it out.
    pub fn is_refuted(&self) -> bool {
        self.refuted.load(Ordering::Relaxed)
    }
}

impl Default for RunOptions<'_> {
    /// The sums only, an unreadable recording left out, no progress, nothing kept.
    fn default() -> Self {
        RunOptions {
            rows: Rows::Sums,
            strict: false,
            progress: &|| {},
            billed: None,
            presumed: None,
        }
    }
}
