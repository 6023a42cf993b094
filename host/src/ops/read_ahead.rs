//! What a corpus's runs say before they are measured ([`read_ahead`]): the profiles they were
//! billed by, and whether each holds the requests its agent sent. Both decide how the corpus is
//! measured, so they are read first. A corpus whose first recordings name no bill, one of them
//! at least without its requests, is not read to its end: the others are presumed to name no
//! bill either, and the measuring checks each as it reads it ([`Unread::names_no_bill`]); the
//! first that does sends the comparison back to a whole read-ahead, so that what it prints is
//! the same.

use crate::host::Host;
use crate::ops::Corpus;
use crate::pricing::{Pricing, ProfileInfo};
use crate::recording::corpus::{Imports, Source};
use crate::recording::{Recording, RecordingDefaults};
use crate::Error;

/// How many recordings are read and not yet looked at, at most, to find the profiles a corpus
/// was billed by.
const READ_AHEAD: usize = 64;

/// What a corpus's runs say before they are measured, read once for both.
pub(super) struct ReadAhead {
    /// The profiles the runs were billed by (see [`read_ahead`]).
    pub profiles: Option<String>,
    /// Whether every run holds the request its agent sent before each turn, and the size of
    /// what they sent first.
    pub every_run_sent: bool,
    /// The runs of the agents' logs imported to read them, so that they are not imported
    /// again.
    pub imports: Imports,
    /// Set when the read-ahead stopped before the corpus's end, the recordings not read
    /// presumed to name no bill: the measuring checks them.
    pub unread: Option<Unread>,
}

/// The recordings a read-ahead did not read, presumed to name no bill ([`ReadAhead::unread`]).
pub(super) struct Unread {
    pricing: Vec<Pricing>,
    info: Vec<ProfileInfo>,
    max_recording_bytes: u64,
}

impl Unread {
    /// Whether a recording, as the measuring loaded it (or its source, when it could not be
    /// loaded), bears out the presumption: a whole read-ahead would have found no profile in
    /// it, and no run whose provider it infers. One that cannot be loaded is read again for
    /// its text alone: without a request in it, it names no bill.
    pub fn names_no_bill(&self, loaded: Result<&Recording, &Source>) -> bool {
        match loaded {
            Ok(recording) => {
                !crate::ab::bill::is_billed(recording)
                    || crate::ab::bill::billed_by_turn(recording, &self.pricing, &self.info)
                        .is_none()
            }
            Err(source) => source
                .bytes(self.max_recording_bytes)
                .map_or(true, |bytes| holds_no_request(&bytes)),
        }
    }
}

/// Reads every recording of `corpus`, over every core as they are listed, for what the runs
/// say before they are measured: whether each holds the requests its agent sent, and (with
/// `find_profiles`) the profile they were billed by, when no profile is asked for: that of
/// the provider and model their usage names, when they name one; those profiles, when they
/// name several (each run is then priced by its own: [`PlanOptions::by_run`](crate::ab::PlanOptions::by_run)); `None` (the
/// configuration's `[ab] pricing`) when no run carries a bill. A note on stderr names the
/// profiles.
///
/// With `may_presume`, it stops after [`READ_AHEAD`] recordings when none of them names a bill
/// and one at least does not hold its requests (the answer to the second question then), and
/// sets [`ReadAhead::unread`]; it has printed nothing then.
pub(super) fn read_ahead(
    host: &Host,
    corpus: &Corpus,
    defaults: &RecordingDefaults,
    find_profiles: bool,
    may_presume: bool,
) -> Result<ReadAhead, Error> {
    use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
    let config = host.config();
    let (pricing, info) = (config.pricing_profiles()?, config.pricing_info());
    let mut named: Vec<String> = Vec::new();
    let (mut inferred_runs, mut inferred_count) = (Vec::new(), 0);
    let (every_run_sent, mut read) = (AtomicBool::new(true), 0usize);
    let (mut looked, mut presumed) = (0usize, false);
    let mut listing = corpus.listing(defaults).keeping_imports();
    // A run whose calls were billed under several profiles names each of them.
    type Found = (bool, Option<Vec<String>>, Option<(String, String)>);
    let look = |source: &Source| -> Option<Found> {
        let bytes = source.bytes(defaults.max_recording_bytes).ok()?;
        // Once a run that does not hold its requests was read, a recording that holds no
        // request names no bill, whether or not it can be read: its text is enough.
        if !every_run_sent.load(Relaxed) && holds_no_request(&bytes) {
            return None;
        }
        // Neither question needs the values of the run's memory: left unread.
        let recording = source.parse_without_values(&bytes, defaults).ok()?;
        let sent = holds_what_was_sent(&recording);
        if !find_profiles {
            return Some((sent, None, None));
        }
        let turns = crate::ab::bill::billed_by_turn(&recording, &pricing, &info);
        let inferred = crate::ab::bill::model_without_provider(&recording)
            .filter(|_| turns.is_some())
            .map(|model| (recording.label().display().to_string(), model.to_owned()));
        Some((sent, turns, inferred))
    };
    let window = crate::parallel::Window {
        count: READ_AHEAD,
        weight: u64::MAX,
    };
    crate::parallel::in_order(
        listing.by_ref().flatten().map(Ok::<_, Error>),
        window,
        |_| 1,
        look,
        |_, found| {
            looked += 1;
            if let Some((sent, billed, inferred)) = found {
                if !sent {
                    every_run_sent.store(false, Relaxed);
                }
                read += 1;
                if let Some(run) = inferred {
                    inferred_count += 1;
                    if inferred_runs.len() < 3 {
                        inferred_runs.push(run);
                    }
                }
                for name in billed.into_iter().flatten() {
                    if !named.contains(&name) {
                        named.push(name);
                    }
                }
            }
            let settled = !every_run_sent.load(Relaxed);
            // With the pricing given, a run without requests settles the only question left:
            // the logs not read yet are imported when they are measured.
            if settled && !find_profiles {
                return Ok(crate::parallel::Next::Stop);
            }
            // Nothing found in the first recordings: the others are presumed alike.
            let found = !named.is_empty() || inferred_count > 0;
            if settled && may_presume && looked >= READ_AHEAD && !found {
                presumed = true;
                return Ok(crate::parallel::Next::Stop);
            }
            Ok(crate::parallel::Next::Continue)
        },
    )?;
    let every_run_sent = every_run_sent.into_inner();
    let imports = listing.into_imports();
    if inferred_count > 0 {
        crate::output::note(format_args!(
            "{}",
            crate::ab::bill::inferred_provider_note(&inferred_runs, inferred_count)
        ));
    }
    let profiles = match &named[..] {
        _ if !find_profiles => None,
        [] => None,
        [one] => {
            crate::output::note(format_args!(
                "note: priced by {one}, the profile of the provider and model the runs' usage names (--pricing chooses others)"
            ));
            Some(one.clone())
        }
        several => {
            crate::output::note(format_args!(
                "note: the runs were billed under several profiles ({}): each run is priced by its own, a verdict per profile on its runs (--pricing prices every run by each profile it names)",
                several.join(", ")
            ));
            Some(several.join(","))
        }
    };
    Ok(ReadAhead {
        profiles,
        every_run_sent: every_run_sent && read > 0,
        imports,
        unread: presumed.then_some(Unread {
            pricing,
            info,
            max_recording_bytes: defaults.max_recording_bytes,
        }),
    })
}

/// Whether the recording whose text is `bytes` holds no request, told from its text alone: no
/// `"request"` in it (a key, or a string of that text; a string's quotes inside another are
/// escaped). `false` when it may hold one.
fn holds_no_request(bytes: &[u8]) -> bool {
    memchr::memmem::find(bytes, b"\"request\"").is_none()
}

/// Whether `recording` holds the request its agent sent before every turn (recorded, or
/// rebuilt from its log with the size of what it sent first).
fn holds_what_was_sent(recording: &Recording) -> bool {
    !recording.requests.is_empty()
        && recording.requests.iter().all(Option::is_some)
        && !recording
            .lacks
            .contains(&crate::recording::Lack::PromptPrefix)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    fn host() -> Host {
        Host::with_strategies(Config::defaults(), Vec::new())
    }

    /// The text of a bundled recording: an example, or a real run.
    fn bundled(name: &str) -> &'static str {
        let examples = crate::examples::EXAMPLES.iter();
        let mut all = examples.chain(crate::examples::REAL_RUNS.iter());
        all.find(|(file, _)| file.ends_with(name)).unwrap().1
    }

    /// A directory of `plain` runs that hold no request, with the run billed on DeepSeek
    /// after the first `billed_after` of them when asked.
    fn corpus(plain: usize, billed_after: Option<usize>) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for i in 0..plain {
            let path = dir.path().join(format!("a-{i:03}.json"));
            std::fs::write(path, bundled("data-exploration.json")).unwrap();
        }
        if let Some(after) = billed_after {
            let path = dir.path().join(format!("a-{after:03}-billed.json"));
            std::fs::write(path, bundled("mini-swe-agent-pvlib-1707.json")).unwrap();
        }
        dir
    }

    fn read(dir: &tempfile::TempDir, may_presume: bool) -> ReadAhead {
        let host = host();
        let defaults = host.recording_defaults().unwrap();
        let corpus = Corpus::Paths(vec![dir.path().to_owned()]);
        read_ahead(&host, &corpus, &defaults, true, may_presume).unwrap()
    }

    #[test]
    fn a_corpus_whose_first_runs_name_no_bill_is_read_no_further() {
        let many = corpus(READ_AHEAD + 6, None);
        let presumed = read(&many, true);
        assert!(presumed.unread.is_some());
        assert_eq!((presumed.profiles, presumed.every_run_sent), (None, false));
        // Without leave to presume, it is read whole, to the same answer.
        let whole = read(&many, false);
        assert!(whole.unread.is_none());
        assert_eq!((whole.profiles, whole.every_run_sent), (None, false));
        // A corpus read to its end before as many were read presumes nothing.
        assert!(read(&corpus(READ_AHEAD - 1, None), true).unread.is_none());
        // A bill among the first runs is found, and nothing is presumed.
        let billed = read(&corpus(READ_AHEAD + 6, Some(3)), true);
        assert!(billed.unread.is_none());
        assert_eq!(billed.profiles.as_deref(), Some("deepseek"));
    }

    #[test]
    fn a_run_that_names_a_bill_refutes_the_presumption() {
        let dir = corpus(READ_AHEAD + 6, None);
        let unread = read(&dir, true).unread.unwrap();
        let defaults = host().recording_defaults().unwrap();
        let load = |name: &'static str| {
            let json = bundled(name);
            Source::Embedded { name, json }.load(&defaults).unwrap()
        };
        assert!(unread.names_no_bill(Ok(&load("data-exploration.json"))));
        assert!(!unread.names_no_bill(Ok(&load("mini-swe-agent-pvlib-1707.json"))));
        // One that cannot be loaded is told by its text: a request in it may be billed.
        let unreadable = |json: &str| {
            let path = dir.path().join("unreadable.json");
            std::fs::write(&path, json).unwrap();
            unread.names_no_bill(Err(&Source::File(path)))
        };
        assert!(unreadable("{\"turns\": [}"));
        assert!(!unreadable("{\"turns\": [{\"request\": }"));
    }
}
