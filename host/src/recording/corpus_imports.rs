//! The runs of agents' logs imported once for a whole command. A listing that reads logs
//! imports each log as it is listed; a command that lists its corpus more than once (`ptc ab`
//! reads every run to find the profiles it was billed by, then measures them) keeps what the
//! first listing imported in [`Imports`], and the next listings take the runs from there
//! instead of importing the logs again. The runs' JSON goes to an unnamed temporary file
//! (removed by the system when the last source that reads it is dropped), so what is held in
//! memory is a place per run, not the runs.

use std::collections::{HashMap, VecDeque};
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rayon::prelude::*;

use crate::recording::corpus::Source;

/// The file that holds the imported runs' JSON, one after the other.
#[derive(Debug)]
pub struct RunFile(Mutex<File>);

impl RunFile {
    /// The `len` bytes from `offset`.
    pub(crate) fn read(&self, offset: u64, len: usize) -> std::io::Result<Vec<u8>> {
        let mut file = self.0.lock().unwrap_or_else(|e| e.into_inner());
        file.seek(SeekFrom::Start(offset))?;
        let mut bytes = vec![0; len];
        file.read_exact(&mut bytes)?;
        Ok(bytes)
    }
}

impl PartialEq for RunFile {
    /// The same file.
    fn eq(&self, other: &RunFile) -> bool {
        std::ptr::eq(self, other)
    }
}

impl Eq for RunFile {}

/// The runs of every log imported by a listing, by the log's path.
#[derive(Debug, Default)]
pub struct Imports {
    file: Option<Arc<RunFile>>,
    /// Where the next run is written.
    end: u64,
    logs: HashMap<PathBuf, Vec<Source>>,
}

impl Imports {
    /// The runs kept for the log at `path`.
    pub(crate) fn runs(&self, path: &Path) -> Option<&[Source]> {
        self.logs.get(path).map(Vec::as_slice)
    }

    /// Keeps the runs `runs` of the log at `path`, and returns them as kept: a run's JSON is
    /// written to the file and read back from there. When the file cannot be written the runs
    /// are returned as they are and the log is not kept (it is imported again when listed).
    pub(crate) fn keep(&mut self, path: &Path, runs: Vec<Source>) -> Vec<Source> {
        match self.spool(&runs) {
            Ok(kept) => {
                self.logs.insert(path.to_owned(), kept.clone());
                kept
            }
            Err(_) => runs,
        }
    }

    fn spool(&mut self, runs: &[Source]) -> std::io::Result<Vec<Source>> {
        let file = match &self.file {
            Some(file) => Arc::clone(file),
            None => {
                let file = Arc::new(RunFile(Mutex::new(tempfile::tempfile()?)));
                self.file.insert(file).clone()
            }
        };
        let mut kept = Vec::with_capacity(runs.len());
        let mut writer = file.0.lock().unwrap_or_else(|e| e.into_inner());
        writer.seek(SeekFrom::Start(self.end))?;
        for run in runs {
            kept.push(match run {
                Source::Log {
                    name,
                    run: Ok(json),
                } => {
                    writer.write_all(json.as_bytes())?;
                    let offset = self.end;
                    self.end += json.len() as u64;
                    Source::Spooled {
                        name: Arc::clone(name),
                        file: Arc::clone(&file),
                        offset,
                        len: json.len(),
                    }
                }
                other => other.clone(),
            });
        }
        Ok(kept)
    }
}

/// Logs imported before their turn in a listing, several at once over every core: importing
/// a log is most of what listing it costs, and a listing hands its runs out one at a time.
/// The runs come out in the listing's order, the same as imported one by one.
#[derive(Debug, Default)]
pub(crate) struct Ahead {
    /// The logs listed next, imported already, in order.
    imported: VecDeque<(PathBuf, Option<Vec<Source>>)>,
}

/// How many logs are imported at once, at most.
pub(crate) const AHEAD: usize = 16;

/// How many bytes of logs are imported at once, at most, past the first log: what is held
/// does not grow with the corpus.
const AHEAD_BYTES: u64 = 64 << 20;

impl Ahead {
    /// What `import` gives for the log at `path`, imported, when it was not already, with
    /// the logs of `next` (the paths listed after it, in order).
    pub(crate) fn runs(
        &mut self,
        path: &Path,
        next: impl FnOnce() -> Vec<PathBuf>,
        import: impl Fn(&Path) -> Option<Vec<Source>> + Sync,
    ) -> Option<Vec<Source>> {
        while let Some((listed, runs)) = self.imported.pop_front() {
            if listed == path {
                return runs;
            }
        }
        let mut bytes = 0;
        let paths: Vec<PathBuf> = std::iter::once(path.to_owned())
            .chain(next().into_iter().take_while(|p| {
                bytes += std::fs::metadata(p).map_or(0, |m| m.len());
                bytes <= AHEAD_BYTES
            }))
            .take(AHEAD)
            .collect();
        let mut imported: VecDeque<_> = paths
            .into_par_iter()
            .map(|p| {
                let runs = import(&p);
                (p, runs)
            })
            .collect::<Vec<_>>()
            .into();
        let first = imported.pop_front().and_then(|(_, runs)| runs);
        self.imported = imported;
        first
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recording::corpus::Listing;
    use crate::recording::RecordingDefaults;

    #[test]
    fn a_log_listed_again_is_not_imported_again() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("session.jsonl");
        std::fs::copy(
            concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../tests/fixtures/realruns/claude-code/session-5c0375b4.jsonl"
            ),
            &log,
        )
        .unwrap();
        let recording = dir.path().join("plain.json");
        std::fs::write(&recording, r#"{"mission": "m", "turns": []}"#).unwrap();
        let defaults = RecordingDefaults {
            max_turns: 5,
            system_prompt: String::new(),
            max_recording_bytes: crate::recording::DEFAULT_MAX_RECORDING_BYTES,
        };
        let paths = [dir.path().to_owned()];
        let imported: Vec<Source> = Listing::new(&paths)
            .reading_logs(&defaults)
            .map(Result::unwrap)
            .collect();
        let mut first = Listing::new(&paths)
            .reading_logs(&defaults)
            .keeping_imports();
        let kept: Vec<Source> = first.by_ref().map(Result::unwrap).collect();
        let imports = Arc::new(first.into_imports());
        assert_eq!(imports.logs.len(), 1, "the recording is no log");
        // The log is gone: a listing that imported it again would say it cannot be read.
        std::fs::write(&log, "{}").unwrap();
        let again: Vec<Source> = Listing::new(&paths)
            .reading_logs(&defaults)
            .reusing_imports(Some(&imports))
            .map(Result::unwrap)
            .collect();
        assert_eq!(again, kept);
        assert_eq!(again.len(), imported.len());
        let limit = defaults.max_recording_bytes;
        for ((a, b), c) in again.iter().zip(&kept).zip(&imported) {
            assert_eq!(a.label(), c.label());
            assert_eq!(a.bytes(limit).unwrap(), c.bytes(limit).unwrap());
            assert_eq!(b.bytes(limit).unwrap(), c.bytes(limit).unwrap());
        }
        assert!(matches!(again[0], Source::File(_)));
        assert!(again.iter().any(|s| matches!(s, Source::Spooled { .. })));
        // A run over the size limit is refused as a held one is.
        let spooled = again
            .iter()
            .find(|s| matches!(s, Source::Spooled { .. }))
            .unwrap();
        assert!(spooled.bytes(10).is_err());
    }

    /// A log's runs, named after its path: what an import gives, told apart by log.
    fn named(path: &Path) -> Option<Vec<Source>> {
        let name = path.display().to_string();
        (!name.ends_with("-plain")).then(|| {
            vec![Source::Log {
                name: Arc::from(name.as_str()),
                run: Ok(Arc::from(name.as_str())),
            }]
        })
    }

    #[test]
    fn logs_imported_ahead_come_out_in_order_as_each_imported_alone() {
        let paths: Vec<PathBuf> = (0..40)
            .map(|i| {
                PathBuf::from(if i % 7 == 3 {
                    format!("{i}-plain")
                } else {
                    format!("{i}")
                })
            })
            .collect();
        let imported = std::sync::atomic::AtomicUsize::new(0);
        let import = |path: &Path| {
            imported.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            named(path)
        };
        let mut ahead = Ahead::default();
        let mut calls = Vec::new();
        // Every fifth path is passed over by the listing: never asked for.
        for (i, path) in paths.iter().enumerate().filter(|(i, _)| i % 5 != 4) {
            let next = || paths[i + 1..].to_vec();
            assert_eq!(ahead.runs(path, next, import), named(path), "{path:?}");
            calls.push(imported.load(std::sync::atomic::Ordering::Relaxed));
        }
        // The first asked imports AHEAD at once, the next ones none until those are used.
        assert_eq!(calls[0], AHEAD);
        assert_eq!(calls.iter().filter(|&&n| n == AHEAD).count(), 13);
        assert_eq!(*calls.last().unwrap(), 40);
    }
}
