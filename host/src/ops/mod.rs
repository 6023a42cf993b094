//! The operations of ptc, each a function of one options struct that returns a result a
//! program can use without the command line: compare strategies on a corpus ([`compare`]),
//! merge the parts of a split comparison ([`merge`]), set the simulation beside the bill
//! ([`bill`]), make recordings from agents' logs ([`import`]), render a run's prompt or
//! request body ([`render`], also each request of `ptc serve`) and explain it ([`explain`]). A command (`commands/`) turns its arguments into the options and the result into
//! output; a program embeds ptc by calling these with a [`Host`](crate::Host).
//!
//! The layer sits above everything an operation combines (`ab`, `recording`, `render`) and
//! below `serve` and the commands; no operation knows of a command.

mod bill;
mod compare;
mod import;
mod merge;
mod progress;
mod read_ahead;
mod render;
mod results;

use std::path::PathBuf;

use crate::recording::corpus::Listing;
use crate::recording::RecordingDefaults;

pub use bill::{bill, BillRequest};
pub use compare::{compare, CompareOptions, Format};
pub use import::{import, Import, ImportOptions};
pub use merge::{merge, MergeOptions};
pub use render::{
    explain, recording_named, render, render_recording, Explanation, RenderOptions, Rendered,
    RequestBody,
};

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
