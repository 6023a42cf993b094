//! `ptc import ptc-runner`: a recording from a ptc_runner JSONL trace log.
//!
//! Two formats of the log are read, told apart by the `schema_version` of its events:
//!
//! - **v1** (no `schema_version`): events with `event`, `trace_id`, `timestamp`, usually
//!   `metadata` and `measurements`, optional `span_id` / `parent_span_id`. The root run is the
//!   `run.start` event without a parent span; its `metadata.agent` has the mission (`prompt`),
//!   the tools (a map keyed by name, or a list), `max_turns` and `signature`, and
//!   `metadata.context` the data. The `run.stop` event of the same span has `metadata.step`.
//! - **v2** (`schema_version: 2`, ptc_runner since March 2026): flat events with `seq`,
//!   `agent_name`, `agent_id`, `status`, token counts and the rest in `data`. Each agent is
//!   described once, by an `agent.config` event with its `agent_id` and `config` (`prompt`,
//!   `max_turns`, `signature`, `tool_names`, ...); the root `run.start` names its agent by
//!   `agent_id` and has the data in `data.context`; its `run.stop` has `data.step`.
//!
//! In both, the step has the turns (`number`, `raw_response`, `program`, `result`, `prints`,
//! `tool_calls`, `memory`, `success?`), the `prompt` and the `tools` (name, signature,
//! description). Events and fields we do not need are ignored; missing ones take their
//! defaults. A trace without a mission for the root run, or without a `max_turns` when it has
//! more turns than the configured default, is an error naming the field it looked for; the
//! caller may give both ([`Supplied`]), which replace the trace's own.
//!
//! The trace's encoding of values is lossy: keywords arrive as strings, tuples as lists, a set
//! as `{"map": {"<elem>": [], ...}}`, a closure as `["closure", params, body, env, history,
//! {"docstring": ..., "return_type": ...}]`, a list over 100 items as `"List(N items)"`, a
//! string over 8192 bytes cut to a preview ending in `[String truncated — N bytes total]`.
//! Closures become functions and sets sets again; map keys that read as symbols become
//! keywords (PTC-Lisp maps almost always use keyword keys); what cannot be recovered is kept as
//! the trace wrote it and counted in the summary.

use std::io::{BufRead, Read};
use std::path::Path;

use serde_json::{json, Map, Value as Json};

use super::{bad, ImportError, Imported, Losses, Supplied};
use crate::recording::ReadError;
use crate::recording::RecordingDefaults;

/// The trace formats read: `schema_version` absent (1) or 2.
pub(super) const VERSIONS: &str = "1 (no schema_version) and 2";

/// Reads a ptc_runner trace log (v1 or v2) and builds the root run's recording, with what
/// `supplied` gives in place of the trace's own; checks it as ptc reads recordings.
pub fn ptc_runner(
    path: &Path,
    defaults: &RecordingDefaults,
    supplied: &Supplied,
) -> Result<Imported, ReadError> {
    let file = std::fs::File::open(path).map_err(|source| ReadError::Input {
        path: path.to_owned(),
        source,
    })?;
    // Only what the root run needs is kept, whatever the size of the trace: the first root
    // `run.start` (one without a parent span), the root `run.stop` events (one per root run),
    // and a count of the other runs.
    let mut root_start: Option<(usize, Json)> = None;
    let mut root_stops: Vec<(usize, Json)> = Vec::new();
    let mut starts = 0usize;
    let is_root = |e: &Json| e.get("parent_span_id").is_none_or(Json::is_null);
    let span_of = |e: &Json| e.get("span_id").cloned().unwrap_or(Json::Null);
    // v2: agent_id -> the `config` of its `agent.config` event (the first one).
    let mut configs: Map<String, Json> = Map::new();
    // The format, from the first event, and its line.
    let mut version: Option<(Json, usize)> = None;
    let limit = defaults.max_recording_bytes;
    let mut reader = std::io::BufReader::new(file);
    let mut bytes = Vec::new();
    for i in 0.. {
        let input = |source| ReadError::Input {
            path: path.to_owned(),
            source,
        };
        bytes.clear();
        // No more than the limit and the newline is read into memory.
        let read = (&mut reader)
            .take(limit.saturating_add(1))
            .read_until(b'\n', &mut bytes)
            .map_err(input)?;
        if read == 0 {
            break;
        }
        if bytes.last() == Some(&b'\n') {
            bytes.pop();
            if bytes.last() == Some(&b'\r') {
                bytes.pop();
            }
        } else if bytes.len() as u64 > limit {
            return Err(bad(path, Some(i + 1), ImportError::TooLarge(limit)));
        }
        // A UTF-8 byte order mark, which some editors write, is not JSON: skipped.
        let text = if i == 0 {
            bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes)
        } else {
            &bytes
        };
        let line = std::str::from_utf8(text)
            .map_err(|e| input(std::io::Error::new(std::io::ErrorKind::InvalidData, e)))?;
        if line.trim().is_empty() {
            continue;
        }
        let event: Json =
            serde_json::from_str(line).map_err(|e| bad(path, Some(i + 1), ImportError::Json(e)))?;
        if event["trace_kind"] == "kernel_eval" {
            return Err(bad(path, Some(i + 1), ImportError::KernelEvalTrace));
        }
        let this = event.get("schema_version").cloned().unwrap_or(Json::Null);
        match &version {
            None => {
                if !(this.is_null() || this == json!(2)) {
                    return Err(bad(path, Some(i + 1), ImportError::Version { found: this }));
                }
                version = Some((this, i + 1));
            }
            Some((first, first_line)) if *first != this => {
                let error = ImportError::MixedVersions {
                    found: this,
                    first: first.clone(),
                    first_line: *first_line,
                };
                return Err(bad(path, Some(i + 1), error));
            }
            Some(_) => {}
        }
        match event.get("event").and_then(Json::as_str) {
            Some("run.start") => {
                starts += 1;
                if root_start.is_none() && is_root(&event) {
                    let span = span_of(&event);
                    root_stops.retain(|(_, stop)| span_of(stop) == span);
                    root_start = Some((i + 1, event));
                }
            }
            Some("run.stop") if is_root(&event) => match &root_start {
                Some((_, start)) if span_of(start) != span_of(&event) => {}
                _ => root_stops.push((i + 1, event)),
            },
            Some("agent.config") => {
                if let (Some(id), Some(config)) = (
                    event.get("agent_id").and_then(Json::as_str),
                    event.get("config"),
                ) {
                    if !configs.contains_key(id) {
                        configs.insert(id.to_owned(), config.clone());
                    }
                }
            }
            _ => {}
        }
    }
    let v2 = version.is_some_and(|(v, _)| !v.is_null());
    let (start_line, start) = root_start
        .as_ref()
        .ok_or_else(|| bad(path, None, ImportError::NoRootRun))?;
    let span = span_of(start);
    let stop_found = root_stops.iter().find(|(_, e)| span_of(e) == span);
    let stop = stop_found.map(|(_, e)| e);
    let mut losses = Losses {
        nested_runs_skipped: starts - 1,
        ..Losses::default()
    };
    // Where each format keeps the agent, the data and the step.
    let bag = if v2 { "data" } else { "metadata" };
    let field = |e: &Json, key: &str| e.get(bag).and_then(|m| m.get(key)).cloned();
    let agent_id = start.get("agent_id").and_then(Json::as_str);
    let agent = if v2 {
        agent_id.and_then(|id| configs.get(id)).cloned()
    } else {
        field(start, "agent")
    }
    .unwrap_or(Json::Null);
    let step = stop.and_then(|s| field(s, "step")).unwrap_or(Json::Null);
    // Where the agent's `key` was looked for, for an error saying it is missing.
    let agent_place = |key: &str| {
        match (v2, agent_id) {
        (false, _) => format!("`metadata.agent.{key}` of the root `run.start`"),
        (true, Some(id)) if configs.contains_key(id) => {
            format!("`config.{key}` of the `agent.config` event with agent_id {id:?}")
        }
        (true, Some(id)) => format!(
            "`config.{key}` of an `agent.config` event with agent_id {id:?}, which the trace does not have"
        ),
        (true, None) => format!(
            "`config.{key}` of an `agent.config` event, but the root `run.start` has no `agent_id`"
        ),
    }
    };
    let looked_for =
        |key: &str| format!("{}; `{bag}.step.{key}` of its `run.stop`", agent_place(key));
    let mission = match &supplied.mission {
        Some(mission) => mission.clone(),
        None => agent
            .get("prompt")
            .or_else(|| step.get("prompt"))
            .and_then(Json::as_str)
            .ok_or_else(|| {
                let looked_for = looked_for("prompt");
                bad(
                    path,
                    Some(*start_line),
                    ImportError::NoMission { looked_for },
                )
            })?
            .to_owned(),
    };
    let mut recording = json!({ "mission": mission });
    let max_turns = supplied
        .max_turns
        .map(u64::from)
        .or_else(|| agent.get("max_turns").and_then(Json::as_u64));
    if let Some(n) = max_turns {
        recording["max_turns"] = json!(n);
    }
    if let Some(sig) = agent.get("signature").and_then(Json::as_str) {
        recording["signature"] = json!(sig);
    }
    let names_only = agent
        .get("tool_names")
        .and_then(Json::as_array)
        .map(|names| {
            Json::Array(
                names
                    .iter()
                    .filter_map(Json::as_str)
                    .map(|name| json!({ "name": name }))
                    .collect(),
            )
        });
    recording["tools"] = Json::Array(tools(
        step.get("tools")
            .or_else(|| agent.get("tools"))
            .or(names_only.as_ref()),
    ));
    if let Some(Json::Object(context)) = field(start, "context") {
        recording["data"] = named(&context, &mut losses);
    }
    let turns: Vec<Json> = match step.get("turns") {
        None | Some(Json::Null) => Vec::new(),
        Some(Json::Array(turns)) => turns.iter().map(|t| turn(t, &mut losses)).collect(),
        Some(other) => {
            let error = ImportError::TurnsNotAList {
                place: format!("`{bag}.step.turns` of the root `run.stop`"),
                found: kind(other),
            };
            return Err(bad(path, stop_found.map(|(line, _)| *line), error));
        }
    };
    let count = turns.len();
    if max_turns.is_none() && count > defaults.max_turns as usize {
        let error = ImportError::NoMaxTurns {
            turns: count,
            default: defaults.max_turns,
            looked_for: agent_place("max_turns"),
        };
        return Err(bad(path, Some(*start_line), error));
    }
    recording["turns"] = Json::Array(turns);
    Ok(Imported {
        json: recording,
        text: String::new(),
        turns: count,
        losses,
        version: if v2 { 2 } else { 1 },
        default_max_turns: max_turns.is_none(),
        part: None,
    })
}

/// Tools as a list of `{name, signature, description}`, from a list or a map keyed by name.
fn tools(tools: Option<&Json>) -> Vec<Json> {
    let one = |name: &str, t: &Json| {
        json!({
            "name": name,
            "signature": t.get("signature").and_then(Json::as_str),
            "description": t.get("description").and_then(Json::as_str),
        })
    };
    match tools {
        Some(Json::Array(list)) => list
            .iter()
            .filter_map(|t| t.get("name").and_then(Json::as_str).map(|n| one(n, t)))
            .collect(),
        Some(Json::Object(map)) => map.iter().map(|(name, t)| one(name, t)).collect(),
        _ => Vec::new(),
    }
}

fn turn(t: &Json, losses: &mut Losses) -> Json {
    let success = t
        .get("success?")
        .or_else(|| t.get("success"))
        .and_then(Json::as_bool)
        .unwrap_or(true);
    let mut out = json!({
        "number": t.get("number").and_then(Json::as_u64).unwrap_or(0),
        "raw_response": t.get("raw_response").and_then(Json::as_str).unwrap_or(""),
        "program": t.get("program").and_then(Json::as_str),
        "success": success,
        "prints": t.get("prints").and_then(Json::as_array).map(|p| p.iter().map(|x| match x {
            Json::String(s) => json!(s),
            other => json!(other.to_string()),
        }).collect::<Vec<_>>()).unwrap_or_default(),
        "tool_calls": t.get("tool_calls").and_then(Json::as_array).map(|calls| calls.iter().map(|c| json!({
            "name": c.get("name").and_then(Json::as_str).unwrap_or("?"),
            "args": value(c.get("args").unwrap_or(&Json::Null), losses),
            "result": value(c.get("result").unwrap_or(&Json::Null), losses),
        })).collect::<Vec<_>>()).unwrap_or_default(),
    });
    if let Some(Json::Object(memory)) = t.get("memory") {
        out["memory"] = named(memory, losses);
    }
    let result = t.get("result").unwrap_or(&Json::Null);
    if success {
        out["result"] = value(result, losses);
    } else {
        out["error"] = json!({
            "reason": result.get("reason").and_then(Json::as_str).unwrap_or("error"),
            "message": result.get("message").and_then(Json::as_str),
        });
    }
    out
}

/// `{name: value}` of the data or a memory, names kept as they are.
fn named(map: &Map<String, Json>, losses: &mut Losses) -> Json {
    Json::Object(
        map.iter()
            .map(|(k, v)| (k.clone(), value(v, losses)))
            .collect(),
    )
}

/// A symbol-like key: what a PTC-Lisp keyword looks like once its colon is gone.
fn symbol_like(key: &str) -> bool {
    let mut chars = key.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && key
            .chars()
            .all(|c| c.is_alphanumeric() || "-_?!*".contains(c))
}

/// A trace value in the recording format.
fn value(v: &Json, losses: &mut Losses) -> Json {
    match v {
        Json::String(s) => {
            if s.contains("[String truncated") {
                losses.truncated_strings += 1;
            } else if s.starts_with("List(") && s.ends_with(" items)") {
                losses.summarized_lists += 1;
            }
            json!(s)
        }
        Json::Array(items) => {
            if items.first().and_then(Json::as_str) == Some("closure") && items.len() >= 2 {
                losses.functions += 1;
                return closure(items);
            }
            Json::Array(items.iter().map(|i| value(i, losses)).collect())
        }
        Json::Object(map) if map.keys().any(|k| k.starts_with('$') || k.starts_with(':')) => {
            // Such keys would read as a tag or a keyword: keep them strings through `$map`.
            json!({"$map": map.iter().map(|(k, v)| json!([k, value(v, losses)])).collect::<Vec<_>>()})
        }
        Json::Object(map) => {
            if map.len() == 1 {
                if let Some(Json::Object(elements)) = map.get("map") {
                    if elements
                        .values()
                        .all(|e| e.as_array().is_some_and(Vec::is_empty))
                    {
                        losses.sets += 1;
                        return json!({"$set": elements.keys().collect::<Vec<_>>()});
                    }
                }
            }
            let mut out = Map::new();
            for (k, val) in map {
                let key = if symbol_like(k) {
                    losses.keys_read_as_keywords += 1;
                    format!(":{k}")
                } else {
                    k.clone()
                };
                out.insert(key, value(val, losses));
            }
            Json::Object(out)
        }
        other => other.clone(),
    }
}

/// `["closure", params, body, env, history, {"docstring": ..., "return_type": ...}]`.
fn closure(items: &[Json]) -> Json {
    let mut params = Vec::new();
    let var = |p: &Json| -> Option<String> {
        match p {
            Json::Array(v) if v.first().and_then(Json::as_str) == Some("var") => {
                v.get(1).and_then(Json::as_str).map(str::to_owned)
            }
            Json::String(s) => Some(s.clone()),
            _ => None,
        }
    };
    match items.get(1) {
        Some(Json::Array(list)) if list.first().and_then(Json::as_str) == Some("variadic") => {
            if let Some(Json::Array(fixed)) = list.get(1) {
                params.extend(fixed.iter().filter_map(var));
            }
            if let Some(rest) = list.get(2).and_then(var) {
                params.push("&".into());
                params.push(rest);
            }
        }
        Some(Json::Array(list)) => params.extend(list.iter().filter_map(var)),
        _ => {}
    }
    let meta = items.last().filter(|m| m.is_object());
    let field = |k: &str| meta.and_then(|m| m.get(k)).and_then(Json::as_str);
    json!({"$fn": {"params": params, "doc": field("docstring"), "return_type": field("return_type")}})
}

/// What kind of JSON value `value` is, in an error message.
fn kind(value: &Json) -> &'static str {
    match value {
        Json::Null => "null",
        Json::Bool(_) => "a boolean",
        Json::Number(_) => "a number",
        Json::String(_) => "a string",
        Json::Array(_) => "a list",
        Json::Object(_) => "an object",
    }
}
