//! Reading a part in bounded memory: the sums into values, the rows checked and dropped, then
//! read again one at a time when the merge needs them.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use serde::de::{DeserializeOwned, IgnoredAny};
use serde::{Deserialize, Deserializer};

use crate::ab::partial::{Part, RowPart, FORMAT};
use crate::Error;

/// The rows of a part as its first reading sees them: each one read, checked for its shape
/// and dropped, so that a part of any size is read in bounded memory. [`RowReader`] reads them
/// again, one at a time, when they are needed.
#[derive(Debug, Default)]
pub struct CheckedRows {
    /// How many there are.
    pub count: usize,
}

impl<'de> Deserialize<'de> for CheckedRows {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<CheckedRows, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = CheckedRows;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a list of rows")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<CheckedRows, A::Error> {
                let mut count = 0;
                while seq.next_element::<RowPart>()?.is_some() {
                    count += 1;
                }
                Ok(CheckedRows { count })
            }
        }
        deserializer.deserialize_seq(Visitor)
    }
}

/// Reads the part in `path`; its rows are checked (with `rows`) or only skipped, never kept.
/// A file that is not a part, a part of another layout, a truncated one and one with a value
/// out of place are errors naming the file and, for the last two, the place in the JSON.
pub fn read(path: &Path, rows: bool) -> Result<Part<CheckedRows>, Error> {
    let input = |source| Error::Input {
        path: path.to_owned(),
        source,
    };
    let mut reader = BufReader::with_capacity(1 << 16, std::fs::File::open(path).map_err(input)?);
    // The first bytes say what the file is: a part starts with its format.
    let start = reader.fill_buf().map_err(input)?;
    let start = String::from_utf8_lossy(&start[..start.len().min(256)]).into_owned();
    let layout = start
        .split("\"format\"")
        .nth(1)
        .and_then(|rest| rest.split('"').nth(1))
        .filter(|value| value.starts_with("ptc-ab-partial/"));
    match layout {
        None => {
            return Err(Error::NotPartial {
                path: path.to_owned(),
            })
        }
        Some(found) if found != FORMAT => {
            return Err(Error::PartialLayout {
                path: path.to_owned(),
                found: found.to_owned(),
                expected: FORMAT,
            })
        }
        Some(_) => {}
    }
    if rows {
        parse(path, reader)
    } else {
        let part: Part<IgnoredAny> = parse(path, reader)?;
        Ok(Part {
            format: part.format,
            shard: part.shard,
            corpus: part.corpus,
            sources: part.sources,
            fingerprint: part.fingerprint,
            recordings: part.recordings,
            timed_recordings: part.timed_recordings,
            lacking: part.lacking,
            rebuilt: part.rebuilt,
            by_run: part.by_run,
            summaries: part.summaries,
            judged: part.judged,
            turns: part.turns,
            cited_runs: part.cited_runs,
            dropped: part.dropped,
            bad_recordings: part.bad_recordings,
            runs: CheckedRows::default(),
        })
    }
}

/// The rows of a part read with [`read`], one at a time, in order: a part holds one row per
/// line of its `runs`, as [`write`] writes it.
pub struct RowReader {
    path: PathBuf,
    lines: std::io::Lines<BufReader<std::fs::File>>,
    /// Rows read so far.
    read: usize,
    /// Rows the part holds.
    count: usize,
}

impl RowReader {
    pub fn open(path: &Path, count: usize) -> Result<RowReader, Error> {
        let input = |source| Error::Input {
            path: path.to_owned(),
            source,
        };
        let file = std::fs::File::open(path).map_err(input)?;
        let mut lines = BufReader::with_capacity(1 << 16, file).lines();
        if count > 0 {
            loop {
                match lines.next() {
                    Some(line) => {
                        if line.map_err(input)? == "  \"runs\": [" {
                            break;
                        }
                    }
                    None => return Err(not_one_per_line(path, 0)),
                }
            }
        }
        Ok(RowReader {
            path: path.to_owned(),
            lines,
            read: 0,
            count,
        })
    }

    /// Rows read so far.
    pub fn read(&self) -> usize {
        self.read
    }

    /// The next row, or none after the last.
    pub fn next_row(&mut self) -> Result<Option<RowPart>, Error> {
        if self.read == self.count {
            return Ok(None);
        }
        let at = self.read;
        let line = match self.lines.next() {
            Some(line) => line.map_err(|source| Error::Input {
                path: self.path.clone(),
                source,
            })?,
            None => return Err(not_one_per_line(&self.path, at)),
        };
        let text = line.trim_start();
        let text = text.strip_suffix(',').unwrap_or(text);
        let row = serde_json::from_str(text).map_err(|_| not_one_per_line(&self.path, at))?;
        self.read += 1;
        Ok(Some(row))
    }
}

fn not_one_per_line(path: &Path, at: usize) -> Error {
    Error::PartialInconsistent {
        path: path.to_owned(),
        reason: format!(
            "runs[{at}] is not on a line of its own, as `ptc ab --format partial` writes it"
        ),
    }
}

fn parse<T: DeserializeOwned>(path: &Path, reader: impl Read) -> Result<T, Error> {
    let fail = |place: String, source| Error::Partial {
        path: path.to_owned(),
        place,
        source,
    };
    let mut json = serde_json::Deserializer::from_reader(reader);
    let value: T = serde_path_to_error::deserialize(&mut json).map_err(|e| {
        let place = e.path().to_string();
        let place = if place == "." {
            "the top level".into()
        } else {
            format!("`{place}`")
        };
        fail(place, e.into_inner())
    })?;
    json.end().map_err(|e| fail("the end".into(), e))?;
    Ok(value)
}
