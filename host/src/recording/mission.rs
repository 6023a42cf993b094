//! The mission expander: `{{name}}` placeholders in a mission are replaced by the value of
//! `data/name` (DECISIONS 20): a string as is, anything else in Clojure syntax.

use std::ops::Range;

use ptc_plugin_api::Value;
use ptc_strategy_kit::to_clojure_full;

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

fn missing_message(name: &str, data: &[(String, Value)]) -> String {
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

/// The mission with its placeholders expanded, or an error naming the first placeholder with
/// no data.
pub fn expand(mission: &str, data: &[(String, Value)]) -> Result<String, String> {
    let mut out = String::with_capacity(mission.len());
    let mut copied = 0;
    for (range, name) in placeholders(mission) {
        out.push_str(&mission[copied..range.start]);
        match data.iter().find(|(n, _)| n == name) {
            Some((_, Value::String(s))) => out.push_str(s),
            Some((_, value)) => out.push_str(&to_clojure_full(value)),
            None => return Err(missing_message(name, data)),
        }
        copied = range.end;
    }
    out.push_str(&mission[copied..]);
    Ok(out)
}

/// One message per placeholder of `mission` that has no data (every one, in order).
pub fn missing(mission: &str, data: &[(String, Value)]) -> Vec<String> {
    placeholders(mission)
        .into_iter()
        .filter(|(_, name)| !data.iter().any(|(n, _)| n == name))
        .map(|(_, name)| missing_message(name, data))
        .collect()
}
