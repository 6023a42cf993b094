//! The tagged objects of the typed JSON encoding: `{"$kw": ...}`, `$set`, `$map`, `$float`,
//! `$fn`, each checked for the value it takes.

use ptc_plugin_api::abi_stable::std_types::{ROption, RString, RVec, Tuple2};
use ptc_plugin_api::{Function, Value};
use ptc_strategy_kit::to_clojure_full;

/// The value of a tagged object `{"$tag": value}`.
pub(super) fn tagged(tag: &str, value: Value) -> Result<Value, String> {
    match (tag, value) {
        ("$kw", Value::String(name)) => Ok(Value::Keyword(name)),
        ("$kw", other) => Err(format!("$kw takes a string, found {}", kind(&other))),
        ("$float", Value::Float(f)) => Ok(Value::Float(f)),
        ("$float", Value::Integer(i)) => Ok(Value::Float(i as f64)),
        ("$float", other) => Err(format!("$float takes a number, found {}", kind(&other))),
        ("$set", Value::List(items)) => ptc_strategy_kit::set_from(items.into_vec())
            .map_err(|dup| format!("duplicate set element {}", to_clojure_full(&dup))),
        ("$set", other) => Err(format!("$set takes an array, found {}", kind(&other))),
        ("$map", Value::List(pairs)) => {
            let mut entries = Vec::with_capacity(pairs.len());
            for (i, pair) in pairs.into_iter().enumerate() {
                match pair {
                    Value::List(kv) if kv.len() == 2 => {
                        let mut kv = kv.into_iter();
                        let (k, v) = (kv.next().expect("key"), kv.next().expect("value"));
                        entries.push((k, v));
                    }
                    other => {
                        return Err(format!(
                            "$map takes [key, value] pairs; entry {i} is {}",
                            kind(&other)
                        ))
                    }
                }
            }
            ptc_strategy_kit::map_from(entries)
                .map_err(|dup| format!("duplicate map key {}", to_clojure_full(&dup)))
        }
        ("$map", other) => Err(format!("$map takes an array of pairs, found {}", kind(&other))),
        ("$fn", Value::Map(entries)) => function(entries),
        ("$fn", other) => Err(format!(
            "$fn takes {{\"params\", \"doc\", \"return_type\"}}, found {}",
            kind(&other)
        )),
        (tag, _) => Err(format!(
            "unknown tag `{tag}` (known: $kw, $set, $map, $float, $fn; write a map with such a key as {{\"$map\": [[\"{tag}\", value]]}})"
        )),
    }
}

fn function(entries: RVec<Tuple2<Value, Value>>) -> Result<Value, String> {
    let mut f = Function {
        params: RVec::new(),
        doc: ROption::RNone,
        return_type: ROption::RNone,
    };
    for Tuple2(key, value) in entries {
        let Value::String(key) = key else {
            return Err(format!(
                "$fn has an unexpected key {}",
                to_clojure_full(&key)
            ));
        };
        match (key.as_str(), value) {
            ("params", Value::List(params)) => {
                f.params = params
                    .into_iter()
                    .map(|p| match p {
                        Value::String(s) if crate::recording::names::valid_name(&s) => Ok(s),
                        Value::String(s) => Err(format!(
                            "$fn params must be names: {:?} is not a valid name",
                            s.as_str()
                        )),
                        other => Err(format!(
                            "$fn params must be strings, found {}",
                            kind(&other)
                        )),
                    })
                    .collect::<Result<RVec<RString>, String>>()?;
            }
            ("doc", Value::String(s)) => f.doc = ROption::RSome(s),
            ("return_type", Value::String(s)) => f.return_type = ROption::RSome(s),
            ("doc" | "return_type", Value::Nil) => {}
            ("params" | "doc" | "return_type", other) => {
                return Err(format!("$fn `{key}` has the wrong type: {}", kind(&other)))
            }
            (other, _) => {
                return Err(format!(
                    "$fn has an unknown key `{other}` (expected params, doc, return_type)"
                ))
            }
        }
    }
    Ok(Value::Function(f))
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Nil => "null",
        Value::Boolean(_) => "a boolean",
        Value::Integer(_) | Value::Float(_) => "a number",
        Value::String(_) => "a string",
        Value::Keyword(_) => "a keyword",
        Value::List(_) => "an array",
        Value::Set(_) => "a set",
        Value::Map(_) => "an object",
        Value::Function(_) => "a function",
    }
}
