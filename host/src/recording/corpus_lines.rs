//! The lines of a JSONL corpus, found in one streaming pass that holds no line: each is a
//! [`Source::Line`] read when it is needed.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::recording::corpus::Source;
use crate::recording::{ReadError, RecordingError};

/// The non-blank lines of a JSONL file, scanned as they are asked for; a line longer than
/// `limit` bytes is refused once that much of it is read.
pub(super) struct JsonlLines {
    path: Arc<Path>,
    reader: BufReader<std::fs::File>,
    limit: u64,
    /// The number of the line being scanned.
    line: usize,
    /// Where the current line starts, where reading is, and where the line's last
    /// non-whitespace byte ends, if it has one.
    start: u64,
    at: u64,
    content_end: Option<u64>,
    done: bool,
}

impl JsonlLines {
    /// Line `line` of the JSONL file `file`, found without holding the others.
    pub(super) fn line_of(file: &Path, line: usize, limit: u64) -> Result<Source, ReadError> {
        let mut lines = JsonlLines::open(file, limit)?;
        while let Some(source) = lines.next_line()? {
            if matches!(source, Source::Line { line: l, .. } if l == line) {
                return Ok(source);
            }
        }
        Err(ReadError::NoRecording {
            what: format!("line {line} of {}", file.display()),
        })
    }

    pub(super) fn open(path: &Path, limit: u64) -> Result<JsonlLines, ReadError> {
        let file = std::fs::File::open(path).map_err(|source| ReadError::Input {
            path: path.to_owned(),
            source,
        })?;
        Ok(JsonlLines {
            path: Arc::from(path),
            reader: BufReader::with_capacity(1 << 20, file),
            limit,
            line: 1,
            start: 0,
            at: 0,
            content_end: None,
            done: false,
        })
    }

    pub(super) fn next_line(&mut self) -> Result<Option<Source>, ReadError> {
        let io = |path: &Path, source| ReadError::Input {
            path: path.to_owned(),
            source,
        };
        while !self.done {
            let buffer = self.reader.fill_buf().map_err(|e| io(&self.path, e))?;
            let (chunk, ends_line) = match memchr::memchr(b'\n', buffer) {
                Some(i) => (&buffer[..i], true),
                None => (buffer, false),
            };
            let at_end = buffer.is_empty();
            if let Some(last) = chunk.iter().rposition(|b| !b.is_ascii_whitespace()) {
                self.content_end = Some(self.at + last as u64 + 1);
            }
            let consumed = chunk.len() + usize::from(ends_line);
            self.at += chunk.len() as u64;
            if self.at - self.start > self.limit {
                self.done = true;
                return Err(ReadError::Recording(RecordingError::TooLarge {
                    path: PathBuf::from(format!("{}:{}", self.path.display(), self.line)),
                    limit: self.limit,
                }));
            }
            self.reader.consume(consumed);
            if ends_line || at_end {
                let found = self.content_end.take().map(|end| Source::Line {
                    path: Arc::clone(&self.path),
                    line: self.line,
                    offset: self.start,
                    len: usize::try_from(end - self.start).expect("a line within the limit"),
                });
                self.done = at_end;
                self.at += 1;
                self.start = self.at;
                self.line += 1;
                if found.is_some() {
                    return Ok(found);
                }
            }
        }
        Ok(None)
    }
}
