//! The operations of ptc, each a function of one options struct that returns a result a
//! program can use without the command line: compare strategies on a corpus ([`compare`]),
//! merge the parts of a split comparison ([`merge`]), set the simulation beside the bill
//! ([`bill`]). A command (`commands/`) turns its arguments into the options and the result into
//! output; a program embeds ptc by calling these with a [`Host`](crate::Host).
//!
//! The layer sits above everything an operation combines (`ab`, `recording`, `render`) and
//! below the commands; no operation knows of a command.

mod bill;
mod compare;
mod merge;
mod progress;
mod results;

use std::path::PathBuf;

use crate::recording::corpus::Listing;
use crate::recording::RecordingDefaults;

pub use bill::{bill, BillRequest};
pub use compare::{compare, CompareOptions, Format};
pub use merge::{merge, MergeOptions};

/// The recordings an operation reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Corpus {
    /// Recording files, JSONL corpora and directories of them; none: the bundled example
    /// recordings.
    Paths(Vec<PathBuf>),
    /// The bundled real runs (`examples/realruns`: imported logs of other people's agents).
    RealRuns,
}

impl Corpus {
    /// The recordings, listed from the start; agents' logs among the paths are imported as
    /// they are listed, with `defaults`.
    pub(crate) fn listing(&self, defaults: &RecordingDefaults) -> Listing {
        match self {
            Corpus::Paths(paths) => Listing::new(paths).reading_logs(defaults),
            Corpus::RealRuns => Listing::real_runs(),
        }
    }

    /// The paths given; none for the bundled recordings.
    pub fn paths(&self) -> &[PathBuf] {
        match self {
            Corpus::Paths(paths) => paths,
            Corpus::RealRuns => &[],
        }
    }
}
