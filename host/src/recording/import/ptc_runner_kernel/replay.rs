//! `ptc import --replay`: the memory of a Kernel run's turns, recomputed by replaying its
//! PTC-Lisp programs (the `ptc-lisp` crate) and recorded only when every turn an agent sent
//! replays exactly. A run with any turn that does not keeps its recorded data, no memory, and
//! still lacks `memory_values`: nothing is invented in place of what did not verify.
//!
//! A turn whose replay was checked against the observation the agent was sent (whole, or as
//! far as the run cut it) also gets the program's value and every line it printed, which a
//! cut observation did not hold: the turn no longer lacks them.

use std::path::Path;

use ptc_lisp::replay::{load_inspection, replay, Checked, ReplayedTurn};
use ptc_lisp::{Budget, Outcome, Value};
use serde_json::{json, Map, Value as Json};

use crate::recording::format::Lack;
use crate::recording::names::valid_name;

/// Deepest value the recording format reads.
const MAX_DEPTH: usize = 128;

/// Sets `memory` on each turn of `recording` that ran a program, and drops the recording's
/// `memory_values` lack, when the replay of the log at `path` verifies every turn.
pub(super) fn record_memory(path: &Path, version: u64, recording: &mut Json) {
    if version != 2 {
        return;
    }
    let Ok(text) = std::fs::read_to_string(path) else {
        return;
    };
    let Ok(run) = load_inspection(&text) else {
        return;
    };
    let replayed = replay(&run, Budget::default());
    if replayed.iter().any(|t| t.mismatch.is_some()) {
        return;
    }
    let Some(turns) = recording["turns"].as_array_mut() else {
        return;
    };
    // The recording's turns that ran a program, in order, are the agent's programs.
    let mut memories = Vec::new();
    let mut next = 0;
    for (i, turn) in turns.iter().enumerate() {
        let Some(program) = turn["program"].as_str() else {
            continue;
        };
        match (run.turns.get(next), replayed.get(next)) {
            (Some(recorded), Some(r)) if recorded.source == program => {
                let mut memory = Map::new();
                for (name, value) in &r.memory {
                    let Some(v) = encode(value, 1).filter(|_| valid_name(name)) else {
                        return;
                    };
                    memory.insert(name.clone(), v);
                }
                memories.push((i, memory, r));
                next += 1;
            }
            _ => return,
        }
    }
    if next != replayed.len() {
        return;
    }
    for (i, memory, replayed) in memories {
        turns[i]["memory"] = Json::Object(memory);
        complete(&mut turns[i], replayed);
    }
    // What no turn lacks any more, the run does not lack.
    let held = |kind: Lack| {
        turns.iter().any(|t| {
            t["lacks"]
                .as_array()
                .is_none_or(|l| l.iter().all(|l| l.as_str() != Some(kind.as_str())))
        })
    };
    let (results, prints) = (held(Lack::Results), held(Lack::Prints));
    if let Some(lacks) = recording["lacks"].as_array_mut() {
        lacks.retain(|l| {
            let l = l.as_str();
            l != Some(Lack::MemoryValues.as_str())
                && !(results && l == Some(Lack::Results.as_str()))
                && !(prints && l == Some(Lack::Prints.as_str()))
        });
    }
}

/// The value and the printed lines of a successful turn whose replay reproduced the
/// observation the agent was sent (whole, or as far as the run cut it), in place of what the
/// observation held of them: the turn no longer lacks them.
fn complete(turn: &mut Json, replayed: &ReplayedTurn) {
    if !matches!(
        replayed.checked,
        Checked::Observation | Checked::CutObservation
    ) || turn["success"] != json!(true)
    {
        return;
    }
    let Outcome::Value(value) = &replayed.outcome else {
        return;
    };
    let Some(value) = encode(value, 1) else {
        return;
    };
    turn["result"] = value;
    turn["prints"] = json!(replayed.prints);
    if let Some(object) = turn.as_object_mut() {
        object.remove("partial_result");
    }
    if let Some(lacks) = turn.get_mut("lacks").and_then(Json::as_array_mut) {
        lacks.retain(|l| {
            l.as_str() != Some(Lack::Results.as_str()) && l.as_str() != Some(Lack::Prints.as_str())
        });
        if lacks.is_empty() {
            if let Some(object) = turn.as_object_mut() {
                object.remove("lacks");
            }
        }
    }
}

/// A value in the recording format's JSON encoding, or `None` for one it cannot hold as it is
/// (a non-finite float, a var, a quoted symbol, too deep).
fn encode(v: &Value, depth: usize) -> Option<Json> {
    if depth > MAX_DEPTH {
        return None;
    }
    Some(match v {
        Value::Nil => Json::Null,
        Value::Bool(b) => json!(b),
        Value::Int(i) => json!(i),
        Value::Float(f) if f.is_finite() && f.fract() != 0.0 => json!(f),
        Value::Float(f) if f.is_finite() => json!({ "$float": f }),
        Value::Str(s) => json!(s.as_ref()),
        Value::Keyword(k) => json!({ "$kw": k.as_ref() }),
        Value::Vector(items) | Value::List(items) => Json::Array(
            items
                .iter()
                .map(|i| encode(i, depth + 1))
                .collect::<Option<_>>()?,
        ),
        Value::Set(items) => {
            json!({ "$set": items.iter().map(|i| encode(i, depth + 1)).collect::<Option<Vec<_>>>()? })
        }
        Value::Map(entries) => {
            // Keys as the object form reads them back: a string not taken for a keyword
            // (`:`) or a tag (`$`), or a keyword written `:name`; any other map as `$map`.
            let plain = entries.iter().all(|(k, _)| match k {
                Value::Str(s) => !s.starts_with(':') && !s.starts_with('$'),
                Value::Keyword(_) => true,
                _ => false,
            });
            if plain {
                let mut o = Map::new();
                for (k, val) in entries.iter() {
                    let key = match k {
                        Value::Keyword(k) => format!(":{k}"),
                        other => ptc_lisp::str_of(other),
                    };
                    o.insert(key, encode(val, depth + 1)?);
                }
                Json::Object(o)
            } else {
                let pairs = entries
                    .iter()
                    .map(|(k, val)| Some(json!([encode(k, depth + 1)?, encode(val, depth + 1)?])))
                    .collect::<Option<Vec<_>>>()?;
                json!({ "$map": pairs })
            }
        }
        Value::Fn(l) => {
            json!({"$fn": {"params": l.param_names(), "doc": null, "return_type": null}})
        }
        Value::Float(_)
        | Value::Builtin(_)
        | Value::Var(_)
        | Value::Symbol(_)
        | Value::Regex(_) => return None,
    })
}
