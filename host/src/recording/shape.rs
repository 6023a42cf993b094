//! The shape of a recording, checked in full for `ptc validate`: the JSON text is walked against
//! the JSON Schema derived from the types that read it (`ptc schema`), and every problem is
//! found, not only the first: a value of the wrong type, an unknown field (with the closest
//! known name), a missing or repeated one, a number out of range, and, inside values, what the
//! value encoding refuses (an unknown tag, a duplicate key, nesting past the limit). Each problem
//! comes with its byte offset and JSON path.
//!
//! The walk also records where every field and element of the recording's structure is, so the
//! rules can be placed too, and writes a repaired copy of the text (unknown and ill-typed
//! fields left out, a required one given a neutral value) from which the rules are checked
//! in the same run.

use std::collections::HashSet;
use std::sync::OnceLock;

use rustc_hash::FxHashMap;
use serde_json::{Map, Value as Json};
use serde_path_to_error::Segment;

use crate::recording::place::{strip_place, Kind, Lines, Text};

/// A problem of shape: where it is (a byte offset), the JSON path, and the cause.
#[derive(Debug)]
pub(super) struct Found {
    pub at: usize,
    pub json_path: String,
    pub message: String,
}

/// What the walk found.
pub(super) struct Shape {
    /// Every problem, in document order.
    pub problems: Vec<Found>,
    /// JSON path -> where that field (its key) or element starts.
    pub places: FxHashMap<String, usize>,
    /// The recording with its problems taken out, as JSON text.
    pub repaired: String,
}

impl Shape {
    /// Where `json_path` is, or its closest enclosing field or element that is in the text.
    pub fn place_of(&self, json_path: &str) -> usize {
        let mut path = json_path;
        loop {
            if let Some(&at) = self.places.get(path) {
                return at;
            }
            match path.rfind(['.', '[']) {
                Some(0) | None => return self.places.get(".").copied().unwrap_or(0),
                Some(i) => path = &path[..i],
            }
        }
    }

    /// Whether `json_path` lies in a part of the recording that has a problem of shape (so a
    /// rule broken there would only repeat it).
    pub fn covers(&self, json_path: &str) -> bool {
        self.problems.iter().any(|p| {
            p.json_path == "."
                || json_path
                    .strip_prefix(p.json_path.as_str())
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '[']))
        })
    }
}

/// The name of the schema of values, whose checks are the value encoding's own.
const VALUE: &str = "Value";

fn schema() -> &'static Json {
    static SCHEMA: OnceLock<Json> = OnceLock::new();
    SCHEMA.get_or_init(crate::recording::schema)
}

/// Walks `bytes`, a valid JSON text, against the recording schema.
pub(super) fn check(bytes: &[u8]) -> Shape {
    let schema = schema();
    let empty = Map::new();
    let mut walk = Walk {
        text: Text { bytes },
        defs: schema
            .get("$defs")
            .and_then(Json::as_object)
            .unwrap_or(&empty),
        problems: Vec::new(),
        places: FxHashMap::default(),
    };
    let root = walk.text.skip_ws(0);
    walk.places.insert(".".into(), root);
    let repaired = walk
        .node(schema, root, ".", 0)
        .unwrap_or_else(|| "{\"mission\": \"\"}".into());
    walk.problems.sort_by_key(|p| p.at);
    Shape {
        problems: walk.problems,
        places: walk.places,
        repaired,
    }
}

struct Walk<'a> {
    text: Text<'a>,
    defs: &'a Map<String, Json>,
    problems: Vec<Found>,
    places: FxHashMap<String, usize>,
}

fn child(path: &str, key: &str) -> String {
    let key = key.escape_debug();
    if path == "." {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

fn element(path: &str, i: usize) -> String {
    if path == "." {
        format!("[{i}]")
    } else {
        format!("{path}[{i}]")
    }
}

fn ref_name(schema: &Json) -> Option<&str> {
    schema
        .get("$ref")
        .and_then(Json::as_str)
        .map(|r| r.trim_start_matches("#/$defs/"))
}

fn types(schema: &Json) -> Vec<&str> {
    match schema.get("type") {
        Some(Json::String(t)) => vec![t.as_str()],
        Some(Json::Array(ts)) => ts.iter().filter_map(Json::as_str).collect(),
        _ => Vec::new(),
    }
}

fn admits_type(t: &str, kind: Kind) -> bool {
    matches!(
        (t, kind),
        ("null", Kind::Null)
            | ("boolean", Kind::Boolean)
            | ("string", Kind::String)
            | ("integer", Kind::Integer)
            | ("number", Kind::Integer | Kind::Float)
            | ("array", Kind::Array)
            | ("object", Kind::Object)
    )
}

/// `a string`, `an integer`, ... for a JSON Schema type.
fn article(t: &str) -> &'static str {
    match t {
        "null" => "null",
        "boolean" => "a boolean",
        "string" => "a string",
        "integer" => "an integer",
        "number" => "a number",
        "array" => "an array",
        "object" => "an object",
        _ => "a value",
    }
}

const U32_RANGE: &str = "an integer from 0 to 4294967295";

impl<'a> Walk<'a> {
    fn problem(&mut self, at: usize, json_path: &str, message: String) {
        self.problems.push(Found {
            at,
            json_path: json_path.to_owned(),
            message,
        });
    }

    fn resolve(&self, schema: &'a Json) -> &'a Json {
        match ref_name(schema).and_then(|name| self.defs.get(name)) {
            Some(def) => self.resolve(def),
            None => schema,
        }
    }

    fn admits(&self, schema: &'a Json, kind: Kind) -> bool {
        if ref_name(schema) == Some(VALUE) {
            return true;
        }
        let schema = self.resolve(schema);
        if let Some(branches) = schema.get("anyOf").and_then(Json::as_array) {
            return branches.iter().any(|b| self.admits(b, kind));
        }
        let types = types(schema);
        types.is_empty() || types.iter().any(|t| admits_type(t, kind))
    }

    /// What `schema` expects, in words: `a string or null`.
    fn expected(&self, schema: &'a Json) -> String {
        let schema = self.resolve(schema);
        if let Some(branches) = schema.get("anyOf").and_then(Json::as_array) {
            let words: Vec<String> = branches.iter().map(|b| self.expected(b)).collect();
            return words.join(" or ");
        }
        let words: Vec<&str> = types(schema)
            .into_iter()
            .map(|t| match (t, schema.get("format").and_then(Json::as_str)) {
                ("integer", Some("uint32")) => U32_RANGE,
                _ => article(t),
            })
            .collect();
        if words.is_empty() {
            "a value".into()
        } else {
            words.join(" or ")
        }
    }

    /// What the value at `at` is, in words, as serde says it: ``integer `5` ``.
    fn found(&self, at: usize, kind: Kind) -> String {
        let text = String::from_utf8_lossy(self.text.slice(at));
        match kind {
            Kind::Null => "null".into(),
            Kind::Boolean => format!("boolean `{text}`"),
            Kind::Integer => format!("integer `{text}`"),
            Kind::Float => format!("floating point `{text}`"),
            Kind::String => {
                let s: String = serde_json::from_str(&text).unwrap_or_else(|_| text.to_string());
                let shown: String = s.chars().take(60).collect();
                if shown.len() < s.len() {
                    format!("string {shown:?}...")
                } else {
                    format!("string {s:?}")
                }
            }
            Kind::Array => "an array".into(),
            Kind::Object => "an object".into(),
        }
    }

    /// Checks the value at `at` against `schema`; the repaired value's text, or nothing when
    /// the value is unusable (its problem is recorded). `depth` is the nesting a value there
    /// starts at.
    fn node(&mut self, schema: &'a Json, at: usize, path: &str, depth: usize) -> Option<String> {
        if ref_name(schema) == Some(VALUE) {
            return Some(self.value(at, path, depth));
        }
        let schema = self.resolve(schema);
        let kind = self.text.kind(at);
        if let Some(branches) = schema.get("anyOf").and_then(Json::as_array) {
            return match branches.iter().find(|b| self.admits(b, kind)) {
                Some(branch) => self.node(branch, at, path, depth),
                None => {
                    let message = format!(
                        "invalid type: {}, expected {}",
                        self.found(at, kind),
                        self.expected(schema)
                    );
                    self.problem(at, path, message);
                    None
                }
            };
        }
        if !self.admits(schema, kind) {
            let message = format!(
                "invalid type: {}, expected {}",
                self.found(at, kind),
                self.expected(schema)
            );
            self.problem(at, path, message);
            return None;
        }
        let slice = self.text.slice(at);
        match kind {
            Kind::Object => self.object(schema, at, path),
            Kind::Array => {
                let items = schema.get("items").unwrap_or(&Json::Bool(true));
                let mut out = Vec::new();
                for (i, at) in self.text.elements(at).into_iter().enumerate() {
                    let path = element(path, i);
                    self.places.insert(path.clone(), at);
                    out.push(
                        self.node(items, at, &path, depth)
                            .unwrap_or_else(|| self.neutral(items)),
                    );
                }
                Some(format!("[{}]", out.join(",")))
            }
            Kind::Integer if schema.get("format").and_then(Json::as_str) == Some("uint32") => {
                let fits = std::str::from_utf8(slice)
                    .ok()
                    .and_then(|s| s.parse::<u32>().ok())
                    .is_some();
                if !fits {
                    let message = format!(
                        "invalid value: {}, expected {U32_RANGE}",
                        self.found(at, kind)
                    );
                    self.problem(at, path, message);
                    return None;
                }
                Some(String::from_utf8_lossy(slice).into_owned())
            }
            Kind::String => match serde_json::from_slice::<String>(slice) {
                Ok(s) => Some(serde_json::to_string(&s).expect("a string serializes")),
                Err(err) => {
                    self.problem(at, path, strip_place(&err));
                    None
                }
            },
            Kind::Integer | Kind::Float => match serde_json::from_slice::<Json>(slice) {
                Ok(_) => Some(String::from_utf8_lossy(slice).into_owned()),
                Err(err) => {
                    self.problem(at, path, strip_place(&err));
                    None
                }
            },
            Kind::Null | Kind::Boolean => Some(String::from_utf8_lossy(slice).into_owned()),
        }
    }

    fn object(&mut self, schema: &'a Json, at: usize, path: &str) -> Option<String> {
        let properties = schema.get("properties").and_then(Json::as_object);
        let additional = schema.get("additionalProperties");
        let is_map = matches!(additional, Some(Json::Object(_)));
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Json::as_array)
            .map(|r| r.iter().filter_map(Json::as_str).collect())
            .unwrap_or_default();
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        for member in self.text.members(at) {
            let key = match member.key {
                Ok(key) => key,
                Err(message) => {
                    self.problem(member.key_at, path, message);
                    continue;
                }
            };
            let path = child(path, &key);
            self.places.entry(path.clone()).or_insert(member.key_at);
            if !seen.insert(key.clone()) {
                let message = if is_map {
                    format!("`{key}` is defined twice")
                } else {
                    format!("duplicate field `{key}`")
                };
                self.problem(member.key_at, &path, message);
                continue;
            }
            let (field, depth) = match (properties.and_then(|p| p.get(&key)), additional) {
                (Some(field), _) => (field, 0),
                (None, Some(Json::Bool(false))) => {
                    let known: Vec<&str> = properties
                        .map(|p| p.keys().map(String::as_str).collect())
                        .unwrap_or_default();
                    let hint = match crate::suggest::closest(&key, known.iter().copied()) {
                        Some(name) => format!("; did you mean `{name}`?"),
                        None => format!(
                            ", expected one of {}",
                            known
                                .iter()
                                .map(|k| format!("`{k}`"))
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    };
                    let message = format!("unknown field `{key}`{hint}");
                    self.problem(member.key_at, &path, message);
                    continue;
                }
                (None, Some(field)) => (field, 1),
                (None, None) => (&Json::Bool(true), 1),
            };
            let repaired = self.node(field, member.value_at, &path, depth);
            let key_text = serde_json::to_string(&key).expect("a string serializes");
            match repaired {
                Some(value) => out.push(format!("{key_text}:{value}")),
                // A required field is given a neutral value; an optional one is left out, so
                // that its default applies.
                None if required.contains(&key.as_str()) => {
                    out.push(format!("{key_text}:{}", self.neutral(field)))
                }
                None => {}
            }
        }
        for name in required {
            if !seen.contains(name) {
                self.problem(at, path, format!("missing field `{name}`"));
                let field = properties.and_then(|p| p.get(name)).unwrap_or(&Json::Null);
                let value = self.neutral(field);
                out.push(format!(
                    "{}:{value}",
                    serde_json::to_string(name).expect("JSON")
                ));
            }
        }
        Some(format!("{{{}}}", out.join(",")))
    }

    /// A value of `schema` that breaks no rule by itself: null where allowed, else an empty
    /// string, `true`, the minimum, an empty array, an object of neutral required fields.
    fn neutral(&self, schema: &'a Json) -> String {
        if ref_name(schema) == Some(VALUE) {
            return "null".into();
        }
        let schema = self.resolve(schema);
        if let Some(first) = schema
            .get("anyOf")
            .and_then(Json::as_array)
            .and_then(|b| b.first())
        {
            return self.neutral(first);
        }
        let types = types(schema);
        if types.contains(&"null") {
            return "null".into();
        }
        match types.first().copied() {
            Some("string") => "\"\"".into(),
            Some("boolean") => "true".into(),
            Some("integer" | "number") => schema
                .get("minimum")
                .map(Json::to_string)
                .unwrap_or_else(|| "0".into()),
            Some("array") => "[]".into(),
            Some("object") => {
                let properties = schema.get("properties").and_then(Json::as_object);
                let fields: Vec<String> = schema
                    .get("required")
                    .and_then(Json::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(Json::as_str)
                    .map(|name| {
                        let field = properties.and_then(|p| p.get(name)).unwrap_or(&Json::Null);
                        format!(
                            "{}:{}",
                            serde_json::to_string(name).expect("JSON"),
                            self.neutral(field)
                        )
                    })
                    .collect();
                format!("{{{}}}", fields.join(","))
            }
            _ => "null".into(),
        }
    }

    /// A PTC-Lisp value, read as a recording reads it; its text, or null when it cannot be read
    /// (the problem is recorded with the path and place inside the value).
    fn value(&mut self, at: usize, path: &str, depth: usize) -> String {
        let slice = self.text.slice(at);
        let Err(err) = crate::recording::value_json::check(slice, depth) else {
            return String::from_utf8_lossy(slice).into_owned();
        };
        // The place is where the innermost value on the error's path starts, found in the
        // text; serde's own place (after what it read) when the path cannot be followed.
        let mut inner = path.to_owned();
        let mut place = Some(at);
        for segment in err.path().iter() {
            let (next, found) = match segment {
                Segment::Seq { index } => (
                    element(&inner, *index),
                    place.and_then(|p| self.text.elements(p).get(*index).copied()),
                ),
                Segment::Map { key } => (
                    child(&inner, key),
                    place.and_then(|p| {
                        self.text
                            .members(p)
                            .into_iter()
                            .find(|m| m.key.as_deref() == Ok(key.as_str()))
                            .map(|m| m.value_at)
                    }),
                ),
                Segment::Enum { variant } => (child(&inner, variant), None),
                Segment::Unknown => (child(&inner, "?"), None),
            };
            inner = next;
            place = found;
        }
        let err = err.into_inner();
        let place = place.unwrap_or_else(|| {
            let in_value = Lines::new(slice)
                .offset(err.line(), err.column())
                .min(slice.len().saturating_sub(1));
            at + in_value
        });
        self.problem(place, &inner, strip_place(&err));
        "null".into()
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::recording::{Recording, RecordingDefaults, Severity};

    fn defaults() -> RecordingDefaults {
        RecordingDefaults {
            max_turns: 5,
            system_prompt: "SYSTEM".into(),
        }
    }

    /// `ptc validate` and the reader agree: a recording has an error for validate exactly when
    /// it cannot be read, the reader's error is among validate's (same path), and every problem
    /// is placed.
    #[test]
    fn validate_finds_every_error_the_reader_stops_at() {
        let deep_value = format!(
            r#"{{"mission": "m", "data": {{"x": {}{}}}}}"#,
            "[".repeat(100_000),
            "]".repeat(100_000)
        );
        let deep_root = "[".repeat(100_000) + &"]".repeat(100_000);
        let inputs = [
            r#"{"mission": "m"}"#,
            "\u{feff}{\"mission\": \"m\"}",
            "",
            "{\"mission\": \"m\"",
            "[1]",
            r#"{"turns": []}"#,
            r#"{"mission": "m", "mission": "n"}"#,
            r#"{"mission": "m", "max_turns": null}"#,
            r#"{"mission": "m", "max_turns": -1}"#,
            r#"{"mission": "m", "max_turns": 4294967296}"#,
            r#"{"mission": "m", "max_turns": 2.0}"#,
            r#"{"mission": "m", "max_turns": 0}"#,
            r#"{"mission": "m", "tools": null}"#,
            r#"{"mission": "m", "tools": [{"name": "t", "extra": 1}]}"#,
            r#"{"mission": "m", "data": {"a": 1, "a": 2}}"#,
            r#"{"mission": "m", "data": {"a": {"$fn": {"params": [1]}}}}"#,
            r#"{"mission": "m", "data": {"a": 18446744073709551615}}"#,
            r#"{"mission": "m", "turns": [{"number": 1, "success": true, "started_at": 1e999}]}"#,
            r#"{"mission": "m", "turns": [{"number": 1, "success": true, "error": 5}]}"#,
            r#"{"mission": "m", "turns": [{"number": 1, "success": false, "error": {"reason": "r"}}]}"#,
            r#"{"mission": "m", "turns": [{"number": 1, "success": true, "raw_response": null}]}"#,
            r#"{"mission": "\ud800"}"#,
            &deep_value,
            &deep_root,
        ];
        for input in inputs {
            let read = Recording::parse(input.as_bytes(), Path::new("r.json"), &defaults());
            let problems = Recording::check(input.as_bytes(), Path::new("r.json"), 1, &defaults());
            let errors: Vec<_> = problems
                .iter()
                .filter(|p| p.severity == Severity::Error)
                .collect();
            let shown = &input[..input.len().min(80)];
            assert!(
                problems
                    .iter()
                    .all(|p| p.line.is_some() && p.column.is_some()),
                "{shown}: {problems:?}"
            );
            match read {
                Ok(_) => assert!(errors.is_empty(), "{shown}: {errors:?}"),
                Err(err) => {
                    assert!(!errors.is_empty(), "{shown}: read fails with {err}");
                    let text = err.to_string();
                    // The same path or cause, or for a syntax error the same place; a
                    // recording that is not an object is refused as a whole.
                    assert!(
                        errors
                            .iter()
                            .any(|p| p.json_path == "." && !input.starts_with('{')
                                || text.ends_with(&p.message)
                                || text.contains(&format!("at `{}`", p.json_path))
                                || text.contains(&format!(
                                    ":{}:{}: at `?`",
                                    p.line.unwrap(),
                                    p.column.unwrap()
                                ))),
                        "{shown}: {text} vs {errors:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_rule_is_not_repeated_where_the_shape_is_wrong() {
        let json = r#"{"mission": "m", "turns": [{"number": "one", "success": true}, 7,
            {"number": 3, "success": true}]}"#;
        let problems = Recording::check(json.as_bytes(), Path::new("r.json"), 1, &defaults());
        let shown: Vec<String> = problems
            .iter()
            .map(|p| {
                format!(
                    "{}:{} {}: {}",
                    p.line.unwrap(),
                    p.column.unwrap(),
                    p.json_path,
                    p.message
                )
            })
            .collect();
        assert_eq!(
            shown,
            [
                "1:39 turns[0].number: invalid type: string \"one\", expected an integer from 0 to 4294967295",
                "1:64 turns[1]: invalid type: integer `7`, expected an object",
            ],
        );
        // The first line of a JSONL recording is the file's.
        let problems = Recording::check(json.as_bytes(), Path::new("c.jsonl"), 7, &defaults());
        assert_eq!(problems[0].line, Some(7));
    }
}
