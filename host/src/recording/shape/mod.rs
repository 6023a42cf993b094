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

use std::sync::OnceLock;

use rustc_hash::{FxHashMap, FxHashSet};
use serde_json::{Map, Value as Json};

mod walk;

use crate::recording::place::{Kind, Text};
use walk::Walk;

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
    /// The JSON path of every problem.
    problem_paths: FxHashSet<String>,
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
    ///
    /// The path and each enclosing one are looked up in a set of the problems' paths: a
    /// recording with many problems of shape and many rules broken is checked in linear time.
    pub fn covers(&self, json_path: &str) -> bool {
        if self.problem_paths.contains(".") {
            return true;
        }
        let mut path = json_path;
        loop {
            if self.problem_paths.contains(path) {
                return true;
            }
            match path.rfind(['.', '[']) {
                Some(0) | None => return false,
                Some(i) => path = &path[..i],
            }
        }
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
        problem_paths: walk.problems.iter().map(|p| p.json_path.clone()).collect(),
        problems: walk.problems,
        places: walk.places,
        repaired,
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

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::recording::{Recording, RecordingDefaults, Severity};

    fn defaults() -> RecordingDefaults {
        RecordingDefaults {
            max_turns: 5,
            system_prompt: "SYSTEM".into(),
            max_recording_bytes: crate::recording::DEFAULT_MAX_RECORDING_BYTES,
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

    /// A recording the reader takes and that breaks no rule is not walked: the walk would have
    /// found nothing either. Checked on recordings with and without problems of every kind,
    /// and on the bundled runs.
    #[test]
    fn a_recording_read_whole_is_checked_as_the_walk_checks_it() {
        let mut inputs: Vec<String> = [
            r#"{"mission": "m"}"#,
            r#"{"mission": "m", "max_turns": 2, "turns": [{"number": 1, "success": true}]}"#,
            r#"{"mission": "m", "max_turns": 1, "turns": [{"number": 1, "success": true},
                {"number": 2, "success": true}]}"#,
            r#"{"mission": "m {x}", "data": {"y": 1}}"#,
            r#"{"mission": "m", "tools": [{"name": "no good"}]}"#,
            r#"{"mission": "m", "turns": [{"number": 2, "success": false, "error": "e"}]}"#,
            r#"{"mission": "m", "max_turns": 0}"#,
            r#"{"mission": "m", "data": {"a": {"$set": [1, 1]}}}"#,
            r#"{"mission": "m", "tools": [{"name": "t", "extra": 1}]}"#,
        ]
        .map(String::from)
        .into();
        let examples = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/recordings");
        for entry in std::fs::read_dir(examples).expect("the bundled recordings") {
            let path = entry.expect("an entry").path();
            if path.extension().is_some_and(|e| e == "json") {
                inputs.push(std::fs::read_to_string(&path).expect("a recording"));
            }
        }
        assert!(inputs.len() > 12, "the bundled recordings are read");
        for input in &inputs {
            let (path, bytes) = (Path::new("r.json"), input.as_bytes());
            assert_eq!(
                Recording::check(bytes, path, 3, &defaults()),
                Recording::check_walked(bytes, path, 3, &defaults()),
                "{}",
                &input[..input.len().min(80)]
            );
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
