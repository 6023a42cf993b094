//! Corpora: where recordings come from. A path is a recording file (`.json`), a JSONL file (one
//! recording per line), or a directory (every `.json` and `.jsonl` directly in it, sorted by
//! name); with no path, the bundled examples. A JSONL file is scanned once for its line
//! boundaries and each recording read when it is needed, so memory stays bounded by the largest
//! recording, not the corpus. No recording (file or line) larger than
//! [`max_recording_bytes`](crate::recording::max_recording_bytes) is read: it is an error
//! found before more than that is read.

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::recording::corpus_imports::{Ahead, AHEAD};
pub use crate::recording::corpus_imports::{Imports, RunFile};
use crate::recording::corpus_lines::JsonlLines;
use crate::recording::{
    read_limited, ReadError, Recording, RecordingDefaults, RecordingError,
    DEFAULT_MAX_RECORDING_BYTES,
};

/// One recording's place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// A `.json` file holding one recording.
    File(PathBuf),
    /// Line `line` (1-based) of a JSONL file, `len` bytes from byte `offset`. The lines of a
    /// file share its path.
    Line {
        path: Arc<Path>,
        line: usize,
        offset: u64,
        len: usize,
    },
    /// A bundled example.
    Embedded {
        name: &'static str,
        json: &'static str,
    },
    /// A run of an agent's log, imported when the log was listed: its recording's JSON, or
    /// why the log could not be imported.
    Log {
        /// The run's name: the log, and which of its runs it is.
        name: Arc<str>,
        run: Result<Arc<str>, Arc<str>>,
    },
    /// A run of an agent's log imported by an earlier listing of the same command, its JSON
    /// `len` bytes from byte `offset` of the file that keeps it ([`Imports`]).
    Spooled {
        name: Arc<str>,
        file: Arc<RunFile>,
        offset: u64,
        len: usize,
    },
}

impl Source {
    /// How errors and reports name it: the file, `file:line` for a JSONL line.
    pub fn label(&self) -> PathBuf {
        match self {
            Source::File(path) => path.clone(),
            Source::Line { path, line, .. } => PathBuf::from(format!("{}:{line}", path.display())),
            // The examples by their file name, the real runs by their path.
            Source::Embedded { name, .. } if name.contains('/') => PathBuf::from(name),
            Source::Embedded { name, .. } => PathBuf::from(format!("examples/recordings/{name}")),
            Source::Log { name, .. } | Source::Spooled { name, .. } => PathBuf::from(&**name),
        }
    }

    /// The file and the line its JSON starts on.
    fn place(&self) -> (PathBuf, usize) {
        match self {
            Source::File(path) => (path.clone(), 1),
            Source::Line { path, line, .. } => (path.to_path_buf(), *line),
            Source::Embedded { .. } | Source::Log { .. } | Source::Spooled { .. } => {
                (self.label(), 1)
            }
        }
    }

    /// The recording's JSON, if it is no larger than `limit` bytes.
    pub fn bytes(&self, limit: u64) -> Result<Vec<u8>, ReadError> {
        let io = |path: &Path, source| {
            ReadError::Recording(RecordingError::Io {
                path: path.to_owned(),
                source,
            })
        };
        match self {
            Source::File(path) => Ok(read_limited(path, limit)?),
            Source::Line {
                path, offset, len, ..
            } => {
                if *len as u64 > limit {
                    return Err(ReadError::Recording(RecordingError::TooLarge {
                        path: self.label(),
                        limit,
                    }));
                }
                let mut file = std::fs::File::open(path).map_err(|e| io(path, e))?;
                file.seek(SeekFrom::Start(*offset))
                    .map_err(|e| io(path, e))?;
                let mut bytes = vec![0; *len];
                file.read_exact(&mut bytes).map_err(|e| io(path, e))?;
                Ok(bytes)
            }
            Source::Embedded { json, .. } => Ok(json.as_bytes().to_vec()),
            Source::Log { run, .. } => match run {
                Ok(json) => Ok(json.as_bytes().to_vec()),
                Err(error) => Err(ReadError::Log(error.to_string())),
            },
            Source::Spooled {
                file, offset, len, ..
            } => {
                if *len as u64 > limit {
                    return Err(ReadError::Recording(RecordingError::TooLarge {
                        path: self.label(),
                        limit,
                    }));
                }
                file.read(*offset, *len)
                    .map_err(|e| io(&std::env::temp_dir(), e))
            }
        }
    }

    /// About how many bytes its JSON takes (0 when that cannot be told), without reading it.
    pub fn size(&self) -> u64 {
        match self {
            Source::File(path) => std::fs::metadata(path).map_or(0, |m| m.len()),
            Source::Line { len, .. } | Source::Spooled { len, .. } => *len as u64,
            Source::Embedded { json, .. } => json.len() as u64,
            Source::Log { run, .. } => run.as_ref().map_or(0, |json| json.len() as u64),
        }
    }

    /// Checks the recording whose text ([`Source::bytes`]) is `bytes`, but reads not the
    /// values of its `data` and `memory` (each is nil, its text checked as JSON): for what it
    /// says besides them (its requests, its usage, what it lacks), in a fraction of the time.
    /// Use [`Source::load`] for anything else.
    pub fn parse_without_values(
        &self,
        bytes: &[u8],
        defaults: &RecordingDefaults,
    ) -> Result<Recording, ReadError> {
        crate::recording::value_json::skipping(|| self.parse(bytes, defaults))
    }

    /// Reads and checks the recording.
    pub fn load(&self, defaults: &RecordingDefaults) -> Result<Recording, ReadError> {
        self.parse(&self.bytes(defaults.max_recording_bytes)?, defaults)
    }

    /// Checks the recording whose text is `bytes`, read at its place.
    fn parse(&self, bytes: &[u8], defaults: &RecordingDefaults) -> Result<Recording, ReadError> {
        let (path, line) = self.place();
        Ok(Recording::parse_at(bytes, &path, line, defaults)?)
    }
}

/// The recordings `paths` name, in order; the bundled examples when there are none. Holds
/// every one: for a corpus of any size, go through a [`Listing`] instead.
pub fn sources(paths: &[PathBuf], defaults: &RecordingDefaults) -> Result<Vec<Source>, ReadError> {
    Listing::new(paths).reading_logs(defaults).collect()
}

/// The recordings `paths` name, in order, one at a time; the bundled examples when there are
/// none. What it holds does not grow with the corpus: a JSONL file is scanned as its lines are
/// asked for, and of a directory only the names of its files are held (they are sorted), not
/// the recordings in them. An unreadable path or a JSONL line over the size limit is an error
/// in its place; the listing ends after it.
///
/// [`Listing::reading_logs`] reads agents' logs too: a file that is the log of a format
/// `ptc import` reads is imported as it is listed, and each of its runs is a recording (a log
/// that cannot be imported is one recording that cannot be read, named with why).
pub struct Listing {
    /// What is still to be listed, in order: paths given, or files of a directory given.
    pending: std::collections::VecDeque<Pending>,
    /// The JSONL file being scanned.
    lines: Option<JsonlLines>,
    /// The runs of the log imported last, still to be listed.
    runs: std::collections::VecDeque<Source>,
    /// What logs are imported with; `None`: logs are not read.
    defaults: Option<RecordingDefaults>,
    /// What the runs of each log are named after, where its file name is not enough to tell
    /// it from the corpus' other files (`import::unique_names`).
    shown: std::collections::HashMap<PathBuf, String>,
    /// The runs of logs imported by an earlier listing, taken from there; or, when kept, the
    /// runs this listing imports.
    imports: Option<Arc<Imports>>,
    keeping: Option<Imports>,
    /// The logs listed next, imported already ([`Ahead`]).
    ahead: Ahead,
    /// The longest line of a JSONL file listed, in bytes.
    limit: u64,
    failed: bool,
}

enum Pending {
    /// A path as given: a file, a directory or `FILE.jsonl:LINE`.
    Given(PathBuf),
    /// A file found in a directory.
    Found(PathBuf),
    Embedded(&'static str, &'static str),
}

impl Listing {
    /// The bundled real runs (`examples/realruns`), compiled in.
    pub fn real_runs() -> Listing {
        Listing {
            pending: crate::examples::REAL_RUNS
                .iter()
                .map(|(name, json)| Pending::Embedded(name, json))
                .collect(),
            lines: None,
            runs: Default::default(),
            defaults: None,
            shown: Default::default(),
            imports: None,
            keeping: None,
            ahead: Ahead::default(),
            limit: DEFAULT_MAX_RECORDING_BYTES,
            failed: false,
        }
    }

    /// The listing reading agents' logs too, imported with `defaults` (whose
    /// `max_recording_bytes` bounds a line of a JSONL file too).
    pub fn reading_logs(mut self, defaults: &RecordingDefaults) -> Listing {
        self.limit = defaults.max_recording_bytes;
        self.defaults = Some(defaults.clone());
        // The files of the paths given, by name only: what tells logs of one name apart.
        let files: Vec<PathBuf> = self
            .pending
            .iter()
            .flat_map(|p| match p {
                Pending::Given(path) if path.is_dir() => dir_files(path).unwrap_or_default(),
                Pending::Given(path) | Pending::Found(path) => vec![path.clone()],
                Pending::Embedded(..) => Vec::new(),
            })
            .collect();
        self.shown = crate::recording::import::unique_names(&files);
        self
    }

    /// The listing keeping the runs of the logs it imports, for [`Listing::into_imports`].
    pub fn keeping_imports(mut self) -> Listing {
        self.keeping = Some(Imports::default());
        self
    }

    /// The runs of the logs this listing imported, when it kept them.
    pub fn into_imports(self) -> Imports {
        self.keeping.unwrap_or_default()
    }

    /// The listing taking the runs of the logs `imports` kept from there, not importing them
    /// again.
    pub fn reusing_imports(mut self, imports: Option<&Arc<Imports>>) -> Listing {
        self.imports = imports.cloned();
        self
    }

    pub fn new(paths: &[PathBuf]) -> Listing {
        let pending = if paths.is_empty() {
            crate::examples::EXAMPLES
                .iter()
                .map(|(name, json)| Pending::Embedded(name, json))
                .collect()
        } else {
            paths.iter().cloned().map(Pending::Given).collect()
        };
        Listing {
            pending,
            lines: None,
            runs: Default::default(),
            defaults: None,
            shown: Default::default(),
            imports: None,
            keeping: None,
            ahead: Ahead::default(),
            limit: DEFAULT_MAX_RECORDING_BYTES,
            failed: false,
        }
    }

    fn advance(&mut self) -> Result<Option<Source>, ReadError> {
        loop {
            if let Some(run) = self.runs.pop_front() {
                return Ok(Some(run));
            }
            if let Some(lines) = &mut self.lines {
                match lines.next_line()? {
                    Some(source) => return Ok(Some(source)),
                    None => self.lines = None,
                }
            }
            let Some(next) = self.pending.pop_front() else {
                return Ok(None);
            };
            let path = match next {
                Pending::Embedded(name, json) => return Ok(Some(Source::Embedded { name, json })),
                // A file of a directory that holds no run (a companion of a log) is passed
                // over; [`passed_over`] says why.
                Pending::Found(path)
                    if self.defaults.is_some() && crate::recording::logs::passed_over(&path) =>
                {
                    continue
                }
                Pending::Found(path) => path,
                Pending::Given(path) => {
                    if let Some((file, line)) = jsonl_line(&path) {
                        return JsonlLines::line_of(&file, line, self.limit).map(Some);
                    }
                    if path.is_dir() {
                        for file in dir_files(&path)?.into_iter().rev() {
                            self.pending.push_front(Pending::Found(file));
                        }
                        continue;
                    }
                    path
                }
            };
            if let Some(defaults) = &self.defaults {
                if let Some(runs) = self.imports.as_ref().and_then(|i| i.runs(&path)) {
                    self.runs.extend(runs.iter().cloned());
                    continue;
                }
                let (pending, imports, shown) = (&self.pending, &self.imports, &self.shown);
                // The logs listed next, imported with this one.
                let next = || {
                    pending
                        .iter()
                        .map_while(|p| match p {
                            Pending::Found(p) => Some(p),
                            _ => None,
                        })
                        .filter(|p| !crate::recording::logs::passed_over(p))
                        .filter(|p| imports.as_ref().is_none_or(|i| i.runs(p).is_none()))
                        .take(AHEAD)
                        .cloned()
                        .collect()
                };
                let import = |path: &Path| {
                    let shown = shown.get(path).map(String::as_str);
                    crate::recording::logs::runs(path, defaults, shown)
                };
                if let Some(runs) = self.ahead.runs(&path, next, import) {
                    let runs = match &mut self.keeping {
                        Some(imports) => imports.keep(&path, runs),
                        None => runs,
                    };
                    self.runs.extend(runs);
                    continue;
                }
            }
            if is_ext(&path, "jsonl") {
                self.lines = Some(JsonlLines::open(&path, self.limit)?);
            } else {
                return Ok(Some(Source::File(path)));
            }
        }
    }
}

impl Iterator for Listing {
    type Item = Result<Source, ReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let next = self.advance();
        self.failed = next.is_err();
        next.transpose()
    }
}

/// Every `.json` and `.jsonl` file under `dir` ([`files_under`]).
fn dir_files(dir: &Path) -> Result<Vec<PathBuf>, ReadError> {
    files_under(dir, &["json", "jsonl"])
}

pub use super::folders::{files_in, files_under};

/// Checks that every path given exists (for `FILE.jsonl:LINE`, the file): a corpus that is not
/// there is an error of its own, not one recording that cannot be read.
pub fn check_given(paths: &[PathBuf]) -> Result<(), ReadError> {
    for path in paths {
        if jsonl_line(path).is_some() {
            continue;
        }
        if let Err(source) = std::fs::metadata(path) {
            return Err(ReadError::Input {
                path: path.clone(),
                source,
            });
        }
    }
    Ok(())
}

/// The one recording `path` names (a file, `FILE.jsonl:LINE`, a log of one run, or a corpus of
/// one).
pub fn source(path: &Path, defaults: &RecordingDefaults) -> Result<Source, ReadError> {
    if let Some(found) = crate::recording::bundled::named(path) {
        return Ok(found);
    }
    let mut listing = Listing::new(&[path.to_owned()]).reading_logs(defaults);
    let first = listing
        .next()
        .transpose()?
        .ok_or_else(|| ReadError::NoRecording {
            what: path.display().to_string(),
        })?;
    let more = listing.count();
    if more > 0 {
        return Err(ReadError::TooManyRecordings {
            path: path.to_owned(),
            count: more + 1,
        });
    }
    Ok(first)
}

pub(super) fn is_ext(path: &Path, ext: &str) -> bool {
    path.extension().is_some_and(|e| e == ext)
}

/// `FILE.jsonl:LINE`, when `path` is written so and the file exists.
fn jsonl_line(path: &Path) -> Option<(PathBuf, usize)> {
    let text = path.to_str()?;
    let (file, line) = text.rsplit_once(':')?;
    let file = PathBuf::from(file);
    let line: usize = line.parse().ok()?;
    (is_ext(&file, "jsonl") && file.is_file() && !path.exists()).then_some((file, line))
}

/// Every non-blank line of a JSONL file, found in one streaming pass that holds no line.
#[cfg(test)]
fn jsonl_lines(path: &Path) -> Result<Vec<Source>, ReadError> {
    jsonl_lines_within(path, DEFAULT_MAX_RECORDING_BYTES)
}

/// [`jsonl_lines`], refusing a line longer than `limit` bytes once that much of it is read.
#[cfg(test)]
fn jsonl_lines_within(path: &Path, limit: u64) -> Result<Vec<Source>, ReadError> {
    let mut lines = JsonlLines::open(path, limit)?;
    let mut sources = Vec::new();
    while let Some(source) = lines.next_line()? {
        sources.push(source);
    }
    Ok(sources)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jsonl_lines_skip_blanks_and_keep_their_numbers() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.jsonl");
        std::fs::write(
            &path,
            "{\"mission\": \"a\"}\n\n  \n{\"mission\": \"b\"}\r\n",
        )
        .unwrap();
        let lines = jsonl_lines(&path).unwrap();
        assert_eq!(lines.len(), 2);
        assert!(matches!(&lines[1], Source::Line { line: 4, .. }));
        assert_eq!(
            lines[1].bytes(DEFAULT_MAX_RECORDING_BYTES).unwrap(),
            b"{\"mission\": \"b\"}"
        );
        let defaults = RecordingDefaults {
            max_turns: 5,
            system_prompt: String::new(),
            max_recording_bytes: crate::recording::DEFAULT_MAX_RECORDING_BYTES,
        };
        let one = source(&PathBuf::from(format!("{}:4", path.display())), &defaults).unwrap();
        assert_eq!(one, lines[1]);
        assert!(
            source(&path, &defaults).is_err(),
            "two recordings are not one"
        );
        // The last line may lack its newline.
        std::fs::write(&path, " {}\n\n{\"a\": 1}  ").unwrap();
        assert_eq!(
            jsonl_lines(&path).unwrap(),
            vec![
                Source::Line {
                    path: Arc::from(path.as_path()),
                    line: 1,
                    offset: 0,
                    len: 3
                },
                Source::Line {
                    path: Arc::from(path.as_path()),
                    line: 3,
                    offset: 5,
                    len: 8
                }
            ]
        );
    }

    #[test]
    fn a_jsonl_line_over_the_limit_is_refused_once_the_limit_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.jsonl");
        std::fs::write(&path, "{}\n{\"mission\": \"long\"}\n").unwrap();
        assert_eq!(jsonl_lines_within(&path, 19).unwrap().len(), 2);
        let err = jsonl_lines_within(&path, 18).unwrap_err().to_string();
        assert_eq!(
            err,
            format!(
                "recording {}:2 is larger than the limit of 18 bytes; raise it with --max-recording-bytes",
                path.display()
            )
        );
        // An endless line.
        #[cfg(unix)]
        assert!(matches!(
            jsonl_lines_within(Path::new("/dev/zero"), 1 << 20),
            Err(ReadError::Recording(RecordingError::TooLarge { .. }))
        ));
    }
}
