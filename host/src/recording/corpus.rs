//! Corpora: where recordings come from. A path is a recording file (`.json`), a JSONL file (one
//! recording per line), or a directory (every `.json` and `.jsonl` directly in it, sorted by
//! name); with no path, the bundled examples. A JSONL file is scanned once for its line
//! boundaries and each recording read when it is needed, so memory stays bounded by the largest
//! recording, not the corpus. No recording (file or line) larger than
//! [`max_recording_bytes`](crate::recording::max_recording_bytes) is read: it is an error
//! found before more than that is read.

use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::recording::{
    max_recording_bytes, read_limited, Recording, RecordingDefaults, RecordingError,
};
use crate::Error;

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
}

impl Source {
    /// How errors and reports name it: the file, `file:line` for a JSONL line.
    pub fn label(&self) -> PathBuf {
        match self {
            Source::File(path) => path.clone(),
            Source::Line { path, line, .. } => PathBuf::from(format!("{}:{line}", path.display())),
            Source::Embedded { name, .. } => PathBuf::from(format!("examples/recordings/{name}")),
        }
    }

    /// The file and the line its JSON starts on.
    fn place(&self) -> (PathBuf, usize) {
        match self {
            Source::File(path) => (path.clone(), 1),
            Source::Line { path, line, .. } => (path.to_path_buf(), *line),
            Source::Embedded { .. } => (self.label(), 1),
        }
    }

    /// The recording's JSON.
    pub fn bytes(&self) -> Result<Vec<u8>, Error> {
        let io = |path: &Path, source| {
            Error::Recording(RecordingError::Io {
                path: path.to_owned(),
                source,
            })
        };
        match self {
            Source::File(path) => Ok(read_limited(path, max_recording_bytes())?),
            Source::Line {
                path, offset, len, ..
            } => {
                let limit = max_recording_bytes();
                if *len as u64 > limit {
                    return Err(Error::Recording(RecordingError::TooLarge {
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
        }
    }

    /// Reads and checks the recording.
    pub fn load(&self, defaults: &RecordingDefaults) -> Result<Recording, Error> {
        let bytes = self.bytes()?;
        let (path, line) = self.place();
        Ok(Recording::parse_at(&bytes, &path, line, defaults)?)
    }
}

/// The recordings `paths` name, in order; the bundled examples when there are none.
pub fn sources(paths: &[PathBuf]) -> Result<Vec<Source>, Error> {
    if paths.is_empty() {
        return Ok(crate::examples::EXAMPLES
            .iter()
            .map(|(name, json)| Source::Embedded { name, json })
            .collect());
    }
    let mut sources = Vec::new();
    for path in paths {
        if let Some((file, line)) = jsonl_line(path) {
            let found = jsonl_lines(&file)?
                .into_iter()
                .find(|s| matches!(s, Source::Line { line: l, .. } if *l == line));
            sources.push(found.ok_or_else(|| Error::NoRecording {
                what: format!("line {line} of {}", file.display()),
            })?);
        } else if path.is_dir() {
            let entries = std::fs::read_dir(path).map_err(|source| Error::Input {
                path: path.clone(),
                source,
            })?;
            let mut files: Vec<PathBuf> = entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.is_file() && (is_ext(p, "json") || is_ext(p, "jsonl")))
                .collect();
            files.sort();
            for file in files {
                sources.extend(file_sources(&file)?);
            }
        } else {
            sources.extend(file_sources(path)?);
        }
    }
    Ok(sources)
}

/// The one recording `path` names (a file, `FILE.jsonl:LINE`, or a corpus of one).
pub fn single(path: &Path) -> Result<Source, Error> {
    let mut all = sources(&[path.to_owned()])?;
    match all.len() {
        1 => Ok(all.remove(0)),
        0 => Err(Error::NoRecording {
            what: path.display().to_string(),
        }),
        n => Err(Error::TooManyRecordings {
            path: path.to_owned(),
            count: n,
        }),
    }
}

fn is_ext(path: &Path, ext: &str) -> bool {
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

fn file_sources(path: &Path) -> Result<Vec<Source>, Error> {
    if is_ext(path, "jsonl") {
        jsonl_lines(path)
    } else {
        Ok(vec![Source::File(path.to_owned())])
    }
}

/// Every non-blank line of a JSONL file, found in one streaming pass that holds no line.
fn jsonl_lines(path: &Path) -> Result<Vec<Source>, Error> {
    jsonl_lines_within(path, max_recording_bytes())
}

/// [`jsonl_lines`], refusing a line longer than `limit` bytes once that much of it is read.
fn jsonl_lines_within(path: &Path, limit: u64) -> Result<Vec<Source>, Error> {
    let io = |source| Error::Input {
        path: path.to_owned(),
        source,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let mut reader = BufReader::with_capacity(1 << 20, file);
    let shared: Arc<Path> = Arc::from(path);
    let mut sources = Vec::new();
    let mut line = 1usize;
    // Where the current line starts, where reading is, and where the line's last
    // non-whitespace byte ends, if it has one.
    let (mut start, mut at, mut content_end) = (0u64, 0u64, None::<u64>);
    loop {
        let buffer = reader.fill_buf().map_err(io)?;
        let (chunk, ends_line) = match memchr::memchr(b'\n', buffer) {
            Some(i) => (&buffer[..i], true),
            None => (buffer, false),
        };
        let at_end = buffer.is_empty();
        if let Some(last) = chunk.iter().rposition(|b| !b.is_ascii_whitespace()) {
            content_end = Some(at + last as u64 + 1);
        }
        let consumed = chunk.len() + usize::from(ends_line);
        at += chunk.len() as u64;
        if at - start > limit {
            return Err(Error::Recording(RecordingError::TooLarge {
                path: PathBuf::from(format!("{}:{line}", path.display())),
                limit,
            }));
        }
        reader.consume(consumed);
        if ends_line || at_end {
            if let Some(end) = content_end.take() {
                sources.push(Source::Line {
                    path: Arc::clone(&shared),
                    line,
                    offset: start,
                    len: usize::try_from(end - start).expect("a line within the limit"),
                });
            }
            if at_end {
                break;
            }
            at += 1;
            start = at;
            line += 1;
        }
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
        assert_eq!(lines[1].bytes().unwrap(), b"{\"mission\": \"b\"}");
        let one = single(&PathBuf::from(format!("{}:4", path.display()))).unwrap();
        assert_eq!(one, lines[1]);
        assert!(single(&path).is_err(), "two recordings are not one");
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
            Err(Error::Recording(RecordingError::TooLarge { .. }))
        ));
    }
}
