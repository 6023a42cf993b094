//! The walk of a recording's JSON text against the schema: every problem found, every place
//! recorded, the repaired copy written.

use std::collections::HashSet;

use rustc_hash::FxHashMap;
use serde_json::{Map, Value as Json};
use serde_path_to_error::Segment;

use super::{admits_type, article, ref_name, types, Found, U32_RANGE, VALUE};
use crate::recording::place::{strip_place, Kind, Lines, Text};

pub(super) struct Walk<'a> {
    pub(super) text: Text<'a>,
    pub(super) defs: &'a Map<String, Json>,
    pub(super) problems: Vec<Found>,
    pub(super) places: FxHashMap<String, usize>,
}

pub(super) fn child(path: &str, key: &str) -> String {
    let key = key.escape_debug();
    if path == "." {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

pub(super) fn element(path: &str, i: usize) -> String {
    if path == "." {
        format!("[{i}]")
    } else {
        format!("{path}[{i}]")
    }
}

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
    pub(super) fn node(
        &mut self,
        schema: &'a Json,
        at: usize,
        path: &str,
        depth: usize,
    ) -> Option<String> {
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
            Kind::Integer
                if crate::recording::value_json::is_too_large_integer(
                    &String::from_utf8_lossy(slice),
                ) =>
            {
                let message = crate::recording::value_json::too_large_message(
                    &String::from_utf8_lossy(slice),
                );
                self.problem(at, path, message);
                None
            }
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
