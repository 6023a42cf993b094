//! The mission expander: `{{name}}` placeholders in a mission are replaced by the value of
//! `data/name`: a string as is, anything else in Clojure syntax. A private value
//! (its name starts with `_`) is never expanded: its placeholder is an error.
//! Filling placeholders in may not take a mission over [`MAX_EXPANDED_BYTES`]: a placeholder
//! repeated over a large value would otherwise multiply a small file into gigabytes.

use std::ops::Range;

use ptc_plugin_api::abi_stable::std_types::RArc;
use ptc_plugin_api::Value;
use ptc_strategy_kit::{is_private_name, to_clojure_full};

/// The longest mission its placeholders may expand to: 1 MiB (a longer mission as written is
/// kept, but may not grow).
pub const MAX_EXPANDED_BYTES: usize = 1 << 20;

/// The `{{name}}` placeholders of a mission, in order: where each is, and the name inside.
fn placeholders(mission: &str) -> Vec<(Range<usize>, &str)> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(open) = mission[from..].find("{{").map(|i| from + i) {
        let Some(close) = mission[open + 2..].find("}}").map(|i| open + 2 + i) else {
            break;
        };
        found.push((open..close + 2, mission[open + 2..close].trim()));
        from = close + 2;
    }
    found
}

fn missing_message(name: &str, data: &[(String, RArc<Value>)]) -> String {
    let names: Vec<&str> = data.iter().map(|(n, _)| n.as_str()).collect();
    format!(
        "placeholder {{{{{name}}}}} has no data/{name} (the recording's data has: {})",
        if names.is_empty() {
            "nothing".to_string()
        } else {
            names.join(", ")
        }
    )
}

fn private_message(name: &str) -> String {
    format!(
        "placeholder {{{{{name}}}}} names a private value: data/{name} starts with `_`, and private values are never shown"
    )
}

/// The value a placeholder expands to, or why it cannot expand.
fn lookup<'a>(name: &str, data: &'a [(String, RArc<Value>)]) -> Result<&'a Value, String> {
    if is_private_name(name) {
        return Err(private_message(name));
    }
    data.iter()
        .find(|(n, _)| n == name)
        .map(|(_, value)| &**value)
        .ok_or_else(|| missing_message(name, data))
}

/// The mission with its placeholders expanded, or an error naming the first placeholder with
/// no data or naming a private value, or the one that takes it over [`MAX_EXPANDED_BYTES`].
pub fn expand(mission: &str, data: &[(String, RArc<Value>)]) -> Result<String, String> {
    let limit = MAX_EXPANDED_BYTES.max(mission.len());
    let mut out = String::with_capacity(mission.len().min(limit));
    let mut copied = 0;
    for (range, name) in placeholders(mission) {
        out.push_str(&mission[copied..range.start]);
        let printed;
        let value = match lookup(name, data)? {
            Value::String(s) => s.as_str(),
            value => {
                printed = to_clojure_full(value);
                &printed
            }
        };
        if out.len() + value.len() > limit {
            return Err(too_large(limit, Some(name)));
        }
        out.push_str(value);
        copied = range.end;
    }
    if out.len() + (mission.len() - copied) > limit {
        return Err(too_large(limit, None));
    }
    out.push_str(&mission[copied..]);
    Ok(out)
}

/// The error of a mission that expands to more than `limit` bytes, naming the placeholder that
/// takes it past the limit when there is one.
fn too_large(limit: usize, placeholder: Option<&str>) -> String {
    let mut message = format!(
        "with its placeholders filled in the mission is over {} MiB ({limit} bytes)",
        MAX_EXPANDED_BYTES >> 20
    );
    if let Some(name) = placeholder {
        message.push_str(&format!(
            "; placeholder {{{{{name}}}}} takes it past the limit"
        ));
    }
    message
}

/// Every problem of `mission` over `data`: one message per placeholder that cannot expand (no
/// data, or a private value), else the expansion's error, if any.
pub fn problems(mission: &str, data: &[(String, RArc<Value>)]) -> Vec<String> {
    let missing = missing(mission, data);
    if !missing.is_empty() {
        return missing;
    }
    expand(mission, data).err().into_iter().collect()
}

/// One message per placeholder of `mission` that cannot expand: it has no data or names a
/// private value (every one, in order).
fn missing(mission: &str, data: &[(String, RArc<Value>)]) -> Vec<String> {
    placeholders(mission)
        .into_iter()
        .filter_map(|(_, name)| lookup(name, data).err())
        .collect()
}
