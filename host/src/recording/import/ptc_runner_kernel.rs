//! `ptc import --from ptc-runner-kernel`: a recording from the inspection artifact of
//! ptc_runner's Kernel agent (`*.inspection.jsonl`, schema 2 or 7; one schema per file), which
//! holds every request to the model exactly as sent and what the provider billed for it.
//!
//! One JSON record per line: `{schema_version, run_id, sequence, timestamp, record_type,
//! correlation, payload}`. A call to the model is a `capability-input` record whose
//! `payload.name` is `llm-request` (`arguments{system, messages[], tools[]}`: the whole request)
//! and the `capability-output` of the same `correlation.capability_id` (`result.value{content,
//! tool_calls[], tokens}`). Each call is one turn:
//!
//! - the program is the `program` argument of the response's one `run_ptc_lisp` tool call;
//! - the raw response is the response's text;
//! - the tool calls are the other capabilities of the evaluation that ran the program (the
//!   first `evaluation-source` after the response names it): in schema 2 those whose
//!   `payload.evaluation_id` is it, in schema 7 (which leaves that field out) those recorded
//!   after that source, the Kernel's own `kernel-*` routes aside; with their arguments and
//!   results;
//! - whether the program succeeded, and what it printed, come from the feedback the agent sent
//!   back: the `tool` message of the next request (`The correlated PTC-Lisp program succeeded.
//!   …` and the `println:` lines of its output). The last turn has no next request: its outcome
//!   is not recorded, and it is imported as not failed with no prints (and the recording says
//!   it lacks prints);
//! - `request` is the request as sent; `usage` is `tokens{input, output, cache_read,
//!   cache_creation, total_cost}` in ptc's convention: the source's `input` **includes** the
//!   cache reads and writes (OpenRouter's `prompt_tokens`), so `usage.input` is `input −
//!   cache_read − cache_creation`; a write's TTL is not recorded and counts as 5 minutes;
//!   `total_cost` is the billed cost, kept only when present;
//! - `started_at` is the request record's timestamp.
//!
//! An artifact is the log of one run: a record of another `run_id` (two artifacts put in one
//! file), or a capability id that two inputs or two outputs share (which would give one call
//! the result and bill of another), is refused naming its line. A token count that is not a
//! whole number from 0, a cost that is not one, or cache reads and writes above the input that
//! includes them, are refused naming the line and the field (see `counts`).
//!
//! The artifact keeps no memory values and no program results: the recording says it lacks
//! them, and its turn budget when the run did not record one (`max_turns` is then the number
//! of turns taken, unless `--max-turns` gives it).

use std::collections::HashMap;
use std::io::{BufRead, Read};
use std::path::Path;

use serde_json::{json, Value as Json};

use super::counts::{cost, count, less, CountError};
use super::{
    bad, reads_back, request_message, seconds, turn_budget, ImportError, Imported, Losses, Supplied,
};
use crate::recording::format::{Lack, RequestJson, RequestToolCallJson};
use crate::recording::{ReadError, RecordingDefaults};

/// The inspection schema versions read.
pub(super) const KERNEL_VERSIONS: &str = "2 and 7";

/// The tool the Kernel agent runs its programs through.
const RUN_TOOL: &str = "run_ptc_lisp";

/// How the agent's feedback says a program succeeded.
const SUCCEEDED: &str = "The correlated PTC-Lisp program succeeded.";

/// Whether `first_line`, the first record of a JSONL file, is a Kernel inspection record.
pub(super) fn detect(first: &Json) -> bool {
    first.get("record_type").is_some() && first.get("correlation").is_some()
}

/// One record of the artifact: its line, and the fields the import reads.
struct Record {
    line: usize,
    timestamp: Option<String>,
    kind: String,
    correlation: Json,
    payload: Json,
}

/// Reads the inspection artifact at `path` and builds the recording of its run.
pub fn ptc_runner_kernel(
    path: &Path,
    defaults: &RecordingDefaults,
    supplied: &Supplied,
) -> Result<Imported, ReadError> {
    let (records, version) = read_records(path)?;
    // Capability id -> its output record. An id given twice would give one call the other's
    // result and bill: refused.
    let mut outputs: HashMap<&str, &Record> = HashMap::new();
    let mut inputs: HashMap<&str, usize> = HashMap::new();
    for r in &records {
        let seen = match r.kind.as_str() {
            "capability-output" => &mut outputs,
            "capability-input" => {
                if let Some(id) = r.correlation["capability_id"].as_str() {
                    if let Some(first_line) = inputs.insert(id, r.line) {
                        return Err(repeated(path, r, id, first_line));
                    }
                }
                continue;
            }
            _ => continue,
        };
        if let Some(id) = r.correlation["capability_id"].as_str() {
            if let Some(first) = seen.insert(id, r) {
                return Err(repeated(path, r, id, first.line));
            }
        }
    }
    // Where each call to the model is among the records: the records after one call and
    // before the next are what its response set off.
    let at: Vec<usize> = (0..records.len())
        .filter(|&i| {
            records[i].kind == "capability-input" && records[i].payload["name"] == "llm-request"
        })
        .collect();
    let calls: Vec<&Record> = at.iter().map(|&i| &records[i]).collect();
    let Some(first_call) = calls.first() else {
        return Err(bad(path, None, ImportError::NoModelCall));
    };
    let first_args = &first_call.payload["arguments"];
    let mission = match &supplied.mission {
        Some(mission) => mission.clone(),
        None => first_args["messages"]
            .as_array()
            .and_then(|m| m.iter().find(|m| m["role"] == "user"))
            .and_then(|m| m["content"].as_str())
            .map(str::to_owned)
            .ok_or_else(|| {
                bad(
                    path,
                    Some(first_call.line),
                    ImportError::NoMission {
                        looked_for: "the first user message of the first llm-request".into(),
                    },
                )
            })?,
    };
    let mut lacks = vec![Lack::MemoryValues, Lack::Results];
    let mut tools: Vec<String> = Vec::new();
    let mut turns = Vec::new();
    for (i, call) in calls.iter().enumerate() {
        let number = i + 1;
        let id = call.correlation["capability_id"].as_str().unwrap_or("");
        let output_record = outputs.get(id).copied();
        let output = output_record.map_or(&Json::Null, |r| &r.payload);
        let value = &output["result"]["value"];
        let ok = output["result"]["status"] == "ok";
        let content = value["content"].as_str().unwrap_or("").to_owned();
        let runs: Vec<&Json> = value["tool_calls"]
            .as_array()
            .map(|calls| calls.iter().filter(|c| c["name"] == RUN_TOOL).collect())
            .unwrap_or_default();
        let program = match runs.as_slice() {
            [one] => one["args"]["program"].as_str().map(str::to_owned),
            _ => None,
        };
        // The evaluation that ran this turn's program: the first evaluation-source after the
        // response, before the next call.
        let after = &records[at[i] + 1..at.get(i + 1).copied().unwrap_or(records.len())];
        let source_at = after.iter().position(|r| r.kind == "evaluation-source");
        let evaluation = source_at.and_then(|at| {
            after[at].correlation["evaluation_id"]
                .as_str()
                .map(str::to_owned)
        });
        // Schema 2 names the evaluation of each capability call; schema 7 does not, and the
        // calls the program made are those after its source, the Kernel's own routes aside.
        let tool_calls: Vec<Json> = after
            .iter()
            .enumerate()
            .filter(|(_, r)| r.kind == "capability-input")
            .filter(|(j, r)| match r.payload.get("evaluation_id") {
                Some(id) => evaluation.is_some() && id.as_str() == evaluation.as_deref(),
                None => {
                    source_at.is_some_and(|at| *j > at)
                        && r.payload["name"]
                            .as_str()
                            .is_some_and(|n| n != "llm-request" && !n.starts_with("kernel-"))
                }
            })
            .map(|(_, r)| r)
            .map(|r| {
                let name = r.payload["name"].as_str().unwrap_or("").to_owned();
                if !tools.contains(&name) {
                    tools.push(name.clone());
                }
                let result = r.correlation["capability_id"]
                    .as_str()
                    .and_then(|id| outputs.get(id))
                    .map(|o| o.payload["result"]["value"].clone())
                    .unwrap_or(Json::Null);
                json!({"name": name, "args": as_string_map(&r.payload["arguments"]), "result": result})
            })
            .collect();
        // The outcome, from the feedback the next request carries.
        let feedback = calls.get(i + 1).and_then(|next| {
            next.payload["arguments"]["messages"]
                .as_array()
                .and_then(|m| m.last())
                .filter(|m| m["role"] == "tool")
                .and_then(|m| m["content"].as_str())
        });
        let (success, prints, error) = match (ok, program.as_ref(), feedback) {
            (false, _, _) => (
                false,
                Vec::new(),
                Some(
                    json!({"reason": "provider_error", "message": output["result"]["reason"].as_str().unwrap_or("the model call failed")}),
                ),
            ),
            (true, None, _) => (
                false,
                Vec::new(),
                Some(
                    json!({"reason": "protocol_error", "message": format!("the response made {} {RUN_TOOL} call(s), not one", runs.len())}),
                ),
            ),
            (true, Some(_), Some(text)) if text.starts_with(SUCCEEDED) => {
                (true, printed(text), None)
            }
            (true, Some(_), Some(text)) => (
                false,
                Vec::new(),
                Some(json!({"reason": "eval_error", "message": text})),
            ),
            (true, Some(_), None) => {
                if !lacks.contains(&Lack::Prints) {
                    lacks.push(Lack::Prints);
                }
                (true, Vec::new(), None)
            }
        };
        let mut turn = json!({
            "number": number,
            "raw_response": content,
            "program": program,
            "success": success,
            "prints": prints,
            "tool_calls": tool_calls,
            "request": request(&call.payload["arguments"]),
        });
        if let Some(error) = error {
            turn["error"] = error;
        }
        if let Some(at) = call.timestamp.as_deref().and_then(seconds) {
            turn["started_at"] = json!(at);
        }
        let usage = usage(&value["tokens"])
            .map_err(|e| bad(path, output_record.map(|r| r.line), e.into()))?;
        match usage {
            Some(usage) => turn["usage"] = usage,
            None => {
                if !lacks.contains(&Lack::Usage) {
                    lacks.push(Lack::Usage);
                }
            }
        }
        turns.push(turn);
    }
    let count = turns.len();
    let max_turns = turn_budget(supplied.max_turns, count, &mut lacks);
    tools.sort();
    let mut recording = json!({
        "mission": mission,
        "literal_mission": true,
        "max_turns": max_turns,
        "tools": tools.iter().map(|name| json!({"name": name})).collect::<Vec<_>>(),
        "turns": turns,
        "lacks": lacks,
    });
    if let Some(system) = first_args["system"].as_str() {
        recording["system_prompt"] = json!(system);
    }
    reads_back(path, &mut recording, defaults)?;
    Ok(Imported {
        json: recording,
        turns: count,
        losses: Losses::default(),
        version,
        default_max_turns: supplied.max_turns.is_none(),
        part: None,
    })
}

/// Every record of the artifact, with its line; a line that is not a record of schema 2 is
/// an error naming it.
fn read_records(path: &Path) -> Result<(Vec<Record>, u64), ReadError> {
    let file = std::fs::File::open(path).map_err(|source| ReadError::Input {
        path: path.to_owned(),
        source,
    })?;
    let limit = crate::recording::max_recording_bytes();
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

/// The request as sent, in the recording's shape.
fn request(arguments: &Json) -> Json {
    // A tool call as the Kernel agent sends it: `{id, name, args}`.
    let messages = arguments["messages"]
        .as_array()
        .map(|messages| {
            messages
                .iter()
                .map(|m| {
                    request_message(m, |c| RequestToolCallJson {
                        id: c["id"].as_str().map(str::to_owned),
                        name: c["name"].as_str().unwrap_or("").to_owned(),
                        arguments: c["args"].to_string(),
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    serde_json::to_value(RequestJson {
        repeats: 0,
        model: None,
        system: arguments["system"].as_str().map(str::to_owned),
        messages,
        tools: arguments.get("tools").map(Json::to_string),
        rebuilt: false,
        inferred_prefix_tokens: None,
    })
    .expect("a request serializes")
}

/// `tokens{input, output, cache_read, cache_creation, total_cost}` in ptc's convention; none
/// when the call has no input count; an error naming the field when one is not a count (or
/// the cost not a cost), or the reads and writes are more than the input that includes them.
fn usage(tokens: &Json) -> Result<Option<Json>, CountError> {
    const AT: &str = "payload.result.value.tokens";
    let field = |name: &str| (&tokens[name], format!("{AT}.{name}"));
    let number = |name: &str| {
        let (value, name) = field(name);
        count(value, &name)
    };
    let Some(input) = number("input")? else {
        return Ok(None);
    };
    let read = number("cache_read")?.unwrap_or(0);
    let written = number("cache_creation")?.unwrap_or(0);
    let output = number("output")?.unwrap_or(0);
    let (read_field, written_field) = (format!("{AT}.cache_read"), format!("{AT}.cache_creation"));
    let uncached = less(
        (input, &format!("{AT}.input")),
        &[(read, &read_field), (written, &written_field)],
    )?;
    let mut usage = json!({
        "input": uncached,
        "cache_read": read,
        "cache_write_5m": written,
        "output": output,
        "provider": "openrouter",
    });
    let (value, name) = field("total_cost");
    if let Some(cost) = cost(value, &name)? {
        usage["cost_usd"] = json!(cost);
    }
    Ok(Some(usage))
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

/// What a successful program printed, from the agent's feedback: the lines after `println:`
/// in its output.
fn printed(feedback: &str) -> Vec<String> {
    let Some(start) = feedback.find("\nprintln:\n") else {
        return Vec::new();
    };
    let rest = &feedback[start + "\nprintln:\n".len()..];
    let end = rest.find("</untrusted_ptc_output>").unwrap_or(rest.len());
    rest[..end].lines().map(str::to_owned).collect()
}

/// A tool's arguments as the recording's map of string keys (kept as the source wrote them).
fn as_string_map(arguments: &Json) -> Json {
    match arguments {
        Json::Object(_) => arguments.clone(),
        Json::Null => json!({}),
        other => json!({ "value": other }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_times_read_as_unix_seconds() {
        assert_eq!(seconds("1970-01-01T00:00:00Z"), Some(0.0));
        assert_eq!(seconds("2026-08-03T09:09:32.5Z"), Some(1_785_748_172.5));
        assert_eq!(seconds("2000-03-01T00:00:00Z"), Some(951_868_800.0));
        assert_eq!(seconds("2026-08-03T09:09:32"), None, "no zone: not read");
    }

    #[test]
    fn usage_takes_the_cache_out_of_the_input_it_includes() {
        let billed = usage(&json!({"input": 3095, "cache_read": 1408, "cache_creation": 0, "output": 120, "total_cost": 0.000881})).unwrap().unwrap();
        assert_eq!(billed["input"], 1687);
        assert_eq!(billed["cache_read"], 1408);
        assert_eq!(billed["cost_usd"], 0.000881);
        assert!(
            usage(&json!({"input": 10, "cache_read": 11})).is_err(),
            "a read above the input is refused, not invented into a negative"
        );
        assert!(usage(&json!({})).unwrap().is_none(), "no counts: unknown");
        let unpriced = usage(&json!({"input": 10})).unwrap().unwrap();
        assert!(unpriced.get("cost_usd").is_none(), "no cost is computed");
    }

    #[test]
    fn prints_come_from_the_feedback_of_a_success() {
        let feedback = "The correlated PTC-Lisp program succeeded. Treat ...\n<untrusted_ptc_output source=\"evaluation\">user=> 3\nprintln:\na\nb c</untrusted_ptc_output>\nDefinitions created ...";
        assert_eq!(printed(feedback), ["a", "b c"]);
        assert!(printed("The correlated PTC-Lisp program succeeded. user=> 1").is_empty());
    }
}
