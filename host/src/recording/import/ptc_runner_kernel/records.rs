//! The records of a Kernel inspection artifact, read line by line, and each capability
//! call's input paired with its output by `correlation.capability_id`.

use std::collections::HashMap;
use std::io::{BufRead, Read};
use std::path::Path;

use serde_json::{json, Value as Json};

use super::super::{bad, ImportError};
use crate::recording::ReadError;

/// One record of the artifact: its line, and the fields the import reads.
pub struct Record {
    pub line: usize,
    pub timestamp: Option<String>,
    pub kind: String,
    pub correlation: Json,
    pub payload: Json,
}

/// Every record of the artifact, with its line; a line that is not a record of schema 2 is
/// an error naming it.
/// No line may pass `limit` bytes.
pub fn read_records(path: &Path, limit: u64) -> Result<(Vec<Record>, u64), ReadError> {
    let file = std::fs::File::open(path).map_err(|source| ReadError::Input {
        path: path.to_owned(),
        source,
    })?;
    let mut reader = std::io::BufReader::new(file);
    let mut records = Vec::new();
    let mut bytes = Vec::new();
    // The schema of the first record, and its line: every record has it.
    let mut first_version: Option<(Json, usize)> = None;
    // The run of the first record, and its line: an artifact is of one run.
    let mut first_run: Option<(Json, usize)> = None;
    for line in 1.. {
        bytes.clear();
        let read = (&mut reader)
            .take(limit.saturating_add(1))
            .read_until(b'\n', &mut bytes)
            .map_err(|source| ReadError::Input {
                path: path.to_owned(),
                source,
            })?;
        if read == 0 {
            break;
        }
        if bytes.len() as u64 > limit && bytes.last() != Some(&b'\n') {
            return Err(bad(path, Some(line), ImportError::TooLarge(limit)));
        }
        let text = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
        if text.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let record: Json = serde_json::from_slice(text)
            .map_err(|e| bad(path, Some(line), ImportError::Json(e)))?;
        // ptc_runner's `kernel_eval` traces are JSONL of schema 2 too, with no records.
        if record["trace_kind"] == "kernel_eval" {
            return Err(bad(path, Some(line), ImportError::KernelEvalTrace));
        }
        let version = &record["schema_version"];
        match &first_version {
            None if version == &json!(2) || version == &json!(7) => {
                first_version = Some((version.clone(), line));
            }
            None => {
                return Err(bad(
                    path,
                    Some(line),
                    ImportError::KernelVersion {
                        found: version.clone(),
                    },
                ))
            }
            Some((first, first_line)) if first != version => {
                return Err(bad(
                    path,
                    Some(line),
                    ImportError::MixedVersions {
                        found: version.clone(),
                        first: first.clone(),
                        first_line: *first_line,
                    },
                ))
            }
            Some(_) => {}
        }
        match &first_run {
            None => first_run = Some((record["run_id"].clone(), line)),
            Some((first, first_line)) if first != &record["run_id"] => {
                return Err(bad(
                    path,
                    Some(line),
                    ImportError::MixedRuns {
                        found: record["run_id"].clone(),
                        first: first.clone(),
                        first_line: *first_line,
                    },
                ))
            }
            Some(_) => {}
        }
        let Some(kind) = record["record_type"].as_str() else {
            return Err(bad(path, Some(line), ImportError::NotARecord));
        };
        records.push(Record {
            line,
            timestamp: record["timestamp"].as_str().map(str::to_owned),
            kind: kind.to_owned(),
            correlation: record["correlation"].clone(),
            payload: record["payload"].clone(),
        });
    }
    let version = first_version.and_then(|(v, _)| v.as_u64()).unwrap_or(2);
    Ok((records, version))
}

/// Capability id -> its output record. An id that two inputs, or two outputs, share would
/// give one call the other's result and bill: refused naming the line.
pub fn outputs<'r>(
    path: &Path,
    records: &'r [Record],
) -> Result<HashMap<&'r str, &'r Record>, ReadError> {
    let mut outputs: HashMap<&str, &Record> = HashMap::new();
    let mut inputs: HashMap<&str, usize> = HashMap::new();
    for r in records {
        let Some(id) = r.correlation["capability_id"].as_str() else {
            continue;
        };
        match r.kind.as_str() {
            "capability-output" => {
                if let Some(first) = outputs.insert(id, r) {
                    return Err(repeated(path, r, id, first.line));
                }
            }
            "capability-input" => {
                if let Some(first_line) = inputs.insert(id, r.line) {
                    return Err(repeated(path, r, id, first_line));
                }
            }
            _ => {}
        }
    }
    Ok(outputs)
}

/// The error of a record whose capability id an earlier record of its kind has.
fn repeated(path: &Path, record: &Record, id: &str, first_line: usize) -> ReadError {
    bad(
        path,
        Some(record.line),
        ImportError::RepeatedId {
            kind: record.kind.clone(),
            id: id.to_owned(),
            first_line,
        },
    )
}
