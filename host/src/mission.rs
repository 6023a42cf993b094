//! The mission expander: `{{name}}` placeholders in a mission are replaced by the value of
//! `data/name` (DECISIONS 20): a string as is, anything else in Clojure syntax.

use ptc_plugin_api::{to_clojure_full, Value};

/// The mission with its placeholders expanded, or an error naming the first placeholder with
/// no data.
pub fn expand(mission: &str, data: &[(String, Value)]) -> Result<String, String> {
    let mut out = String::with_capacity(mission.len());
    let mut rest = mission;
    while let Some(start) = rest.find("{{") {
        let Some(len) = rest[start + 2..].find("}}") else {
            break;
        };
        let name = rest[start + 2..start + 2 + len].trim();
        out.push_str(&rest[..start]);
        match data.iter().find(|(n, _)| n == name) {
            Some((_, Value::String(s))) => out.push_str(s),
            Some((_, value)) => out.push_str(&to_clojure_full(value)),
            None => {
                return Err(format!(
                    "placeholder {{{{{name}}}}} has no data/{name} (the recording's data has: {})",
                    if data.is_empty() {
                        "nothing".to_string()
                    } else {
                        data.iter()
                            .map(|(n, _)| n.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    }
                ))
            }
        }
        rest = &rest[start + 2 + len + 2..];
    }
    out.push_str(rest);
    Ok(out)
}

/// One message per placeholder of `mission` that has no data (every one, in order).
pub fn missing(mission: &str, data: &[(String, Value)]) -> Vec<String> {
    let mut problems = Vec::new();
    let mut rest = mission;
    while let Some(start) = rest.find("{{") {
        let Some(len) = rest[start + 2..].find("}}") else {
            break;
        };
        let name = rest[start + 2..start + 2 + len].trim();
        if !data.iter().any(|(n, _)| n == name) {
            problems.push(format!("placeholder {{{{{name}}}}} has no data/{name}"));
        }
        rest = &rest[start + 2 + len + 2..];
    }
    problems
}
