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
//!   results, each named as programs call it: the one prelude function that calls the
//!   capability (`incident.evidence/list-sources` for `evidence.list_sources`, `names`), with
//!   its signature, else the capability's name;
//! - whether the program succeeded, its value and what it printed come from the feedback the
//!   agent sent back: the `tool` message of the next request (`The correlated PTC-Lisp program
//!   succeeded. …<untrusted_ptc_output …>user=> VALUE\nprintln:\n…`, `feedback`). The value
//!   is read back from its printed form where the observation holds it whole; one the agent's
//!   observation limit cut is kept apart as `partial_result`, and the turn lacks `results`;
//!   prints cut, the turn lacks `prints`. The last turn has no next request: it is imported
//!   as not failed, with no value and no prints, and lacks `errors`, `results` and `prints`;
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
//! The artifact keeps no memory values: the recording says it lacks them, the values or prints
//! when no turn has them, and its turn budget when the run did not record one (`max_turns` is
//! then the number of turns taken, unless `--max-turns` gives it). ptc_runner's `kernel_eval`
//! traces (JSONL of schema 2 too, `trace_kind` `kernel_eval`) keep hashes, not programs or
//! messages: refused as what they are.

use std::path::Path;

use serde_json::{json, Value as Json};

use super::counts::{cost, count, less, CountError};
use super::{bad, request_message, seconds, turn_budget, ImportError, Imported, Losses, Supplied};
use crate::recording::format::{Lack, RequestJson, RequestToolCallJson};
use crate::recording::{ReadError, RecordingDefaults};
use feedback::{observed, Observed, SUCCEEDED};
use records::{read_records, Record};

mod feedback;
mod names;
mod printed;
mod records;
mod replay;

/// The inspection schema versions read.
pub(super) const KERNEL_VERSIONS: &str = "2 and 7";

/// The tool the Kernel agent runs its programs through.
const RUN_TOOL: &str = "run_ptc_lisp";

/// Whether `first_line`, the first record of a JSONL file, is a Kernel inspection record.
pub(super) fn detect(first: &Json) -> bool {
    first.get("record_type").is_some() && first.get("correlation").is_some()
}

/// Reads the inspection artifact at `path` and builds the recording of its run.
pub fn ptc_runner_kernel(
    path: &Path,
    defaults: &RecordingDefaults,
    supplied: &Supplied,
) -> Result<Imported, ReadError> {
    let (records, version) = read_records(path, defaults.max_recording_bytes)?;
    let outputs = records::outputs(path, &records)?;
    // The names programs call the capabilities by, from the preludes the run loaded.
    let wrappers = names::wrappers(
        records
            .iter()
            .filter(|r| r.kind == "prelude-source")
            .filter_map(|r| r.payload["source"].as_str()),
    );
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
    let mut lacks = vec![Lack::MemoryValues];
    // Each tool by the name programs call it, with its signature where its prelude gives one.
    let mut tools: Vec<(String, Option<String>)> = Vec::new();
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
                let capability = r.payload["name"].as_str().unwrap_or("");
                let wrapper = wrappers.get(capability);
                let name = wrapper.map_or(capability, |w| w.name.as_str()).to_owned();
                if !tools.iter().any(|(n, _)| *n == name) {
                    tools.push((name.clone(), wrapper.and_then(|w| w.signature.clone())));
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
        // What the log does not hold of this turn alone.
        let mut missing = Vec::new();
        let mut seen = Observed::default();
        let error = match (ok, program.as_ref(), feedback) {
            (false, _, _) => Some(
                json!({"reason": "provider_error", "message": output["result"]["reason"].as_str().unwrap_or("the model call failed")}),
            ),
            (true, None, _) => Some(
                json!({"reason": "protocol_error", "message": format!("the response made {} {RUN_TOOL} call(s), not one", runs.len())}),
            ),
            (true, Some(_), Some(text)) if text.starts_with(SUCCEEDED) => {
                seen = observed(text);
                if seen.value.is_none() {
                    missing.push(Lack::Results);
                }
                if seen.prints_cut {
                    missing.push(Lack::Prints);
                }
                None
            }
            (true, Some(_), Some(text)) => Some(json!({"reason": "eval_error", "message": text})),
            // No next request: what the program did, the log does not say.
            (true, Some(_), None) => {
                missing.extend([Lack::Errors, Lack::Results, Lack::Prints]);
                None
            }
        };
        let mut turn = json!({
            "number": number,
            "raw_response": content,
            "program": program,
            "success": error.is_none(),
            "prints": seen.prints,
            "tool_calls": tool_calls,
            "request": request(&call.payload["arguments"]),
        });
        if let Some(value) = seen.value {
            turn["result"] = value;
        }
        if let Some(cut) = seen.cut_value {
            turn["partial_result"] = json!(cut);
        }
        if !missing.is_empty() {
            turn["lacks"] = json!(missing);
        }
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
    // What no turn holds, the run lacks; what some do, the others say they lack.
    for kind in [Lack::Results, Lack::Prints] {
        if turns.iter().all(|t| lacks_of(t).contains(&kind)) {
            lacks.push(kind);
        }
    }
    let max_turns = turn_budget(supplied.max_turns, count, &mut lacks);
    tools.sort();
    let mut recording = json!({
        "mission": mission,
        "literal_mission": true,
        "max_turns": max_turns,
        "tools": tools.iter().map(|(name, signature)| match signature {
            Some(signature) => json!({"name": name, "signature": signature}),
            None => json!({"name": name}),
        }).collect::<Vec<_>>(),
        "turns": turns,
        "lacks": lacks,
    });
    if let Some(system) = first_args["system"].as_str() {
        recording["system_prompt"] = json!(system);
    }
    if supplied.replay {
        replay::record_memory(path, version, &mut recording);
    }
    Ok(Imported {
        json: recording,
        text: String::new(),
        turns: count,
        losses: Losses::default(),
        version,
        default_max_turns: supplied.max_turns.is_none(),
        part: None,
    })
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

/// What a turn of the recording made says it lacks.
fn lacks_of(turn: &Json) -> Vec<Lack> {
    serde_json::from_value(turn["lacks"].clone()).unwrap_or_default()
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
}
