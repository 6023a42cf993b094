//! The typed JSON encoding of PTC-Lisp values: JSON types map to themselves, a key written
//! `":name"` is a keyword, and tagged objects (`$kw`, `$set`, `$map`, `$float`, `$fn`) carry the rest.
//!
//! Strings, integers, floats (numbers written with a fraction or exponent), booleans, null and
//! arrays map to themselves; an object is a map with string keys, except that a key written
//! `":name"` is the keyword `:name`. An object with a single key starting with `$` is a tag:
//! `$kw`, `$set`, `$map`, `$float`, `$fn`. Values nest at most [`MAX_DEPTH`] levels of JSON;
//! deeper input is an error, never a stack overflow.

use std::fmt;

use ptc_plugin_api::abi_stable::std_types::{RArc, RVec};
use ptc_plugin_api::Value;
use ptc_strategy_kit::to_clojure_full;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

mod gather;
mod reduced;
mod repeated;
mod tagged;

pub(crate) use reduced::{reduce, Reduced};
pub(crate) use repeated::{reusing, skipping};

use tagged::tagged;

/// Arrays and objects a value may nest.
pub const MAX_DEPTH: usize = 128;

thread_local! {
    /// The text being read ([`reading`]), while it is read: where it starts and its length.
    static TEXT: std::cell::Cell<Option<(*const u8, usize)>> = const { std::cell::Cell::new(None) };
    /// The integer literals of that text that do not fit in 64 bits, with the value serde_json
    /// gives them: it reads such a literal as a float, and [`ValueSeed::visit_f64`] refuses a
    /// float of one of these values. Found on the first float that could be one (`None`
    /// until then): most texts have none, and are not scanned.
    static TOO_LARGE: std::cell::RefCell<Option<Vec<(f64, String)>>> = const { std::cell::RefCell::new(None) };
}

/// Runs `read`, which reads the JSON `text`, so that an integer literal of `text` that does not
/// fit in 64 bits is an error instead of a float: `integer N does not fit in 64 bits`.
pub(crate) fn reading<T>(text: &[u8], read: impl FnOnce() -> T) -> T {
    let text_before = TEXT.replace(Some((text.as_ptr(), text.len())));
    let found_before = TOO_LARGE.take();
    let result = read();
    TEXT.set(text_before);
    TOO_LARGE.set(found_before);
    result
}

/// The literal of the text being read that serde_json read as the float `f`, when it is an
/// integer too large for 64 bits.
fn too_large_literal(f: f64) -> Option<String> {
    let text = TEXT.get()?;
    TOO_LARGE.with_borrow_mut(|found| {
        let found = found.get_or_insert_with(|| {
            // SAFETY: `TEXT` is set only while `reading` runs, which borrows the text for
            // that long; this runs within it (the value being read is part of the text).
            let text = unsafe { std::slice::from_raw_parts(text.0, text.1) };
            too_large_integers(text)
        });
        found
            .iter()
            .find(|(value, _)| *value == f)
            .map(|(_, literal)| literal.clone())
    })
}

/// The message for an integer literal that does not fit in 64 bits (`literal`, its digits).
pub(crate) fn too_large_message(literal: &str) -> String {
    let shown = if literal.len() > 40 {
        format!(
            "{}… ({} digits)",
            &literal[..40],
            literal.trim_start_matches('-').len()
        )
    } else {
        literal.to_owned()
    };
    format!("integer {shown} does not fit in 64 bits; write it as a string or a float")
}

/// Whether `literal` (the text of a JSON number) is an integer literal (no fraction, no
/// exponent) that does not fit in 64 bits, signed or unsigned.
pub(crate) fn is_too_large_integer(literal: &str) -> bool {
    let digits = literal.strip_prefix('-').unwrap_or(literal);
    !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && literal.parse::<i64>().is_err()
        && literal.parse::<u64>().is_err()
}

/// The integer literals of the JSON `text` too large for 64 bits (the ones serde_json reads as
/// floats), in one pass that skips strings.
fn too_large_integers(text: &[u8]) -> Vec<(f64, String)> {
    let mut found = Vec::new();
    let mut i = 0;
    while i < text.len() {
        match text[i] {
            b'"' => {
                i += 1;
                while i < text.len() {
                    match text[i] {
                        b'\\' => i += 2,
                        b'"' => break,
                        _ => i += 1,
                    }
                }
                i += 1;
            }
            b'-' | b'0'..=b'9' => {
                let start = i;
                i += 1;
                while i < text.len() && text[i].is_ascii_digit() {
                    i += 1;
                }
                let is_float = i < text.len() && matches!(text[i], b'.' | b'e' | b'E');
                // An integer that fits has at most 20 digits and a sign.
                if !is_float && i - start > 19 {
                    let literal = String::from_utf8_lossy(&text[start..i]);
                    if is_too_large_integer(&literal) {
                        if let Ok(value) = serde_json::from_str::<f64>(&literal) {
                            found.push((value, literal.into_owned()));
                        }
                    }
                }
                while i < text.len()
                    && matches!(text[i], b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-')
                {
                    i += 1;
                }
            }
            _ => i += 1,
        }
    }
    found
}

/// A value at the top of a field (`result`, `args`, an entry of `data` or `memory`).
#[derive(Clone, Debug, PartialEq)]
pub struct TopValue(pub Value);

impl Default for TopValue {
    /// A missing value is nil.
    fn default() -> Self {
        TopValue(Value::Nil)
    }
}

impl<'de> Deserialize<'de> for TopValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        ValueSeed { depth: 0 }
            .deserialize(deserializer)
            .map(TopValue)
    }
}

impl schemars::JsonSchema for TopValue {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Value".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A PTC-Lisp value. Strings, integers, floats (written with a fraction or exponent), booleans, null and arrays are themselves; an object is a map with string keys, a key written \":name\" being the keyword :name. An object with a single key starting with `$` is a tag: {\"$kw\": \"name\"} a keyword, {\"$set\": [...]} a set, {\"$map\": [[key, value], ...]} a map with any keys, {\"$float\": 2} a float, {\"$fn\": {\"params\": [...], \"doc\": ..., \"return_type\": ...}} a function. At most 128 levels deep."
        })
    }
}

impl schemars::JsonSchema for NamedValues {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "NamedValues".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let value = generator.subschema_for::<TopValue>();
        schemars::json_schema!({
            "type": "object",
            "description": "name -> value",
            "additionalProperties": value
        })
    }
}

/// `{name: value, ...}` in the order written (`data`, `memory`). Values are shared: an entry
/// read again unchanged is the same allocation as before ([`reusing`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NamedValues(pub Vec<(String, RArc<Value>)>);

impl<'de> Deserialize<'de> for NamedValues {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct NamedVisitor;
        impl<'de> Visitor<'de> for NamedVisitor {
            type Value = NamedValues;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object of name -> value")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<NamedValues, A::Error> {
                if repeated::skipped() {
                    return repeated::skip(map);
                }
                if repeated::active() {
                    return repeated::visit(map);
                }
                named_entries(map, |map, _| {
                    map.next_value_seed(ValueSeed { depth: 1 }).map(RArc::new)
                })
            }
        }
        deserializer.deserialize_map(NamedVisitor)
    }
}

/// Reads the entries of an object of named values in the order written, each value by `value`
/// (given the reader and the entry's name). A name written twice is an error.
fn named_entries<'de, A: MapAccess<'de>>(
    mut map: A,
    mut value: impl FnMut(&mut A, &str) -> Result<RArc<Value>, A::Error>,
) -> Result<NamedValues, A::Error> {
    /// Up to this many entries, a name is looked for among those read before it; past it, by
    /// its hash (the entry of the same hash compared by name, and all of them on a collision).
    const SCANNED: usize = 16;
    let mut entries: Vec<(String, RArc<Value>)> = Vec::new();
    let mut by_hash: rustc_hash::FxHashMap<u64, usize> = Default::default();
    while let Some(name) = map.next_key::<String>()? {
        let value = value(&mut map, &name)?;
        let scan = |entries: &[(String, RArc<Value>)]| entries.iter().any(|(n, _)| *n == name);
        let twice = if entries.len() < SCANNED {
            scan(&entries)
        } else {
            if by_hash.is_empty() {
                for (i, (n, _)) in entries.iter().enumerate() {
                    by_hash.entry(name_hash(n)).or_insert(i);
                }
            }
            match by_hash.entry(name_hash(&name)) {
                std::collections::hash_map::Entry::Vacant(slot) => {
                    slot.insert(entries.len());
                    false
                }
                std::collections::hash_map::Entry::Occupied(same) => {
                    entries[*same.get()].0 == name || scan(&entries)
                }
            }
        };
        if twice {
            return Err(de::Error::custom(format!("`{name}` is defined twice")));
        }
        entries.push((name, value));
    }
    Ok(NamedValues(entries))
}

fn name_hash(name: &str) -> u64 {
    use std::hash::BuildHasher;
    rustc_hash::FxBuildHasher.hash_one(name)
}

/// Reads the JSON text of one value whose containers sit `depth` levels deep (0 for a field's
/// value, 1 for an entry of `data` or `memory`), as a recording is read: the error, if any,
/// with the path inside the value.
pub(crate) fn check(
    text: &[u8],
    depth: usize,
) -> Result<(), serde_path_to_error::Error<serde_json::Error>> {
    // Most values are well formed: read as a recording reads them first, and again, with the
    // path tracked, only to name the place of an error. The two readings accept the same
    // texts (the tracking changes nothing the value's reading sees).
    let fast = reading(text, || {
        let mut de = serde_json::Deserializer::from_slice(text);
        de.disable_recursion_limit();
        ValueSeed { depth }.deserialize(&mut de).is_ok()
    });
    if fast {
        return Ok(());
    }
    let mut de = serde_json::Deserializer::from_slice(text);
    de.disable_recursion_limit();
    let mut track = serde_path_to_error::Track::new();
    let seed = ValueSeed { depth };
    reading(text, || {
        match seed.deserialize(serde_path_to_error::Deserializer::new(&mut de, &mut track)) {
            Ok(_) => Ok(()),
            Err(err) => Err(serde_path_to_error::Error::new(track.path(), err)),
        }
    })
}

/// Deserializes one value whose containers sit `depth` levels deep.
struct ValueSeed {
    depth: usize,
}

impl<'de> DeserializeSeed<'de> for ValueSeed {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl ValueSeed {
    fn enter<E: de::Error>(&self) -> Result<ValueSeed, E> {
        if self.depth >= MAX_DEPTH {
            Err(E::custom(format!(
                "value nested deeper than {MAX_DEPTH} levels"
            )))
        } else {
            Ok(ValueSeed {
                depth: self.depth + 1,
            })
        }
    }
}

impl<'de> Visitor<'de> for ValueSeed {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a value")
    }

    fn visit_bool<E: de::Error>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Boolean(b))
    }

    fn visit_i64<E: de::Error>(self, i: i64) -> Result<Value, E> {
        Ok(Value::Integer(i))
    }

    fn visit_u64<E: de::Error>(self, u: u64) -> Result<Value, E> {
        i64::try_from(u)
            .map(Value::Integer)
            .map_err(|_| E::custom(too_large_message(&u.to_string())))
    }

    fn visit_f64<E: de::Error>(self, f: f64) -> Result<Value, E> {
        // An integer literal too large for 64 bits arrives here as a float at least 2^63.
        if f.fract() == 0.0 && f.abs() >= 9_223_372_036_854_775_808.0 {
            if let Some(literal) = too_large_literal(f) {
                return Err(E::custom(too_large_message(&literal)));
            }
        }
        Ok(Value::Float(f))
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<Value, E> {
        Ok(Value::String(s.into()))
    }

    fn visit_string<E: de::Error>(self, s: String) -> Result<Value, E> {
        Ok(Value::String(s.into()))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Nil)
    }

    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Nil)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let inner = self.enter()?;
        let items = gather::items(|| seq.next_element_seed(ValueSeed { depth: inner.depth }))?;
        Ok(Value::List(items.into()))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let inner = self.enter()?;
        let Some(first_key) = map.next_key_seed(KeySeed)? else {
            return Ok(Value::Map(RVec::new()));
        };
        let first_value = map.next_value_seed(ValueSeed { depth: inner.depth })?;
        let first = (first_key, first_value);
        let entries = match map.next_key_seed(KeySeed)? {
            None => match first {
                (Value::String(tag), value) if tag.starts_with('$') => {
                    return tagged(&tag, value).map_err(de::Error::custom);
                }
                entry => vec![entry],
            },
            Some(key) => {
                let second = (key, map.next_value_seed(ValueSeed { depth: inner.depth })?);
                let mut read = [first, second].into_iter();
                gather::entries(|| {
                    if let Some(entry) = read.next() {
                        return Ok(Some(entry));
                    }
                    let Some(key) = map.next_key_seed(KeySeed)? else {
                        return Ok(None);
                    };
                    let value = map.next_value_seed(ValueSeed { depth: inner.depth })?;
                    Ok(Some((key, value)))
                })?
            }
        };
        ptc_strategy_kit::map_from(entries).map_err(|dup| {
            de::Error::custom(format!("duplicate map key {}", to_clojure_full(&dup)))
        })
    }
}

/// Reads an object key straight into its value ([`key_value`]), without an owned string first.
struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string key")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<Value, E> {
        Ok(key_value(key))
    }
}

/// An object key: `":name"` is a keyword, anything else a string.
fn key_value(key: &str) -> Value {
    match key.strip_prefix(':') {
        Some(name) => Value::Keyword(name.into()),
        None => Value::String(key.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(json: &str) -> Result<Value, String> {
        let mut de = serde_json::Deserializer::from_str(json);
        de.disable_recursion_limit();
        reading(json.as_bytes(), || {
            serde_path_to_error::deserialize::<_, TopValue>(&mut de)
                .map(|v| v.0)
                .map_err(|e| format!("{}: {}", e.path(), e.inner()))
        })
    }

    fn clj(json: &str) -> String {
        to_clojure_full(&parse(json).unwrap())
    }

    #[test]
    fn plain_json_maps_to_itself() {
        assert_eq!(
            clj(r#"[1, 2.5, "s", true, null]"#),
            r#"[1 2.5 "s" true nil]"#
        );
        assert_eq!(clj(r#"{":b": 1, "a": 2}"#), r#"{:b 1 "a" 2}"#);
        assert_eq!(clj("3.0"), "3.0");
        assert_eq!(clj("1e3"), "1000.0");
    }

    #[test]
    fn tags() {
        assert_eq!(clj(r#"{"$kw": "open"}"#), ":open");
        assert_eq!(clj(r#"{"$float": 2}"#), "2.0");
        assert_eq!(clj(r#"{"$set": [3, 1, 2]}"#), "#{1 2 3}");
        assert_eq!(
            clj(r#"{"$map": [[1, "one"], [{"$kw": "k"}, 2]]}"#),
            r#"{1 "one" :k 2}"#
        );
        assert_eq!(
            clj(r#"{"$fn": {"params": ["a", "&", "rest"], "doc": null, "return_type": null}}"#),
            "#fn[a & rest]"
        );
        assert_eq!(clj(r#"{"$kw": "a", "b": 1}"#), r#"{"$kw" "a" "b" 1}"#);
    }

    #[test]
    fn bad_values_name_the_path() {
        assert_eq!(
            parse(r#"{"a": [1, {"$nope": 1}]}"#).unwrap_err(),
            "a[1]: unknown tag `$nope` (known: $kw, $set, $map, $float, $fn; write a map with such a key as {\"$map\": [[\"$nope\", value]]}) at line 1 column 22"
        );
        assert!(parse(r#"{"$set": [1, 1]}"#)
            .unwrap_err()
            .contains("duplicate set element 1"));
        assert!(parse(r#"{"a": 1, "a": 2}"#)
            .unwrap_err()
            .contains("duplicate map key \"a\""));
        assert!(parse("18446744073709551615").unwrap_err().contains(
            "integer 18446744073709551615 does not fit in 64 bits; write it as a string or a float"
        ));
        assert!(parse(r#"{"$fn": {"params": ["a\n;; === tool/ ==="]}}"#)
            .unwrap_err()
            .contains(r#"$fn params must be names: "a\n;; === tool/ ===" is not a valid name"#));
    }

    #[test]
    fn integers_beyond_64_bits_are_refused_with_their_path() {
        let err = parse(r#"{"a": [1, 123456789012345678901234567890]}"#).unwrap_err();
        assert!(
            err.starts_with("a[1]: integer 123456789012345678901234567890 does not fit in 64 bits; write it as a string or a float"),
            "{err}"
        );
        let err = parse(r#"{"a": -123456789012345678901234567890}"#).unwrap_err();
        assert!(err.starts_with("a: integer -1234567890"), "{err}");
        // Floats of the same size, and the literal inside a string, are read as before.
        assert_eq!(clj("1.2345678901234568e29"), "1.2345678901234568E29");
        assert_eq!(
            clj("123456789012345678901234567890.0"),
            "1.2345678901234568E29"
        );
        assert_eq!(
            clj(r#"["123456789012345678901234567890\"", 1e30]"#),
            r#"["123456789012345678901234567890\"" 1.0E30]"#
        );
        assert_eq!(clj("-9223372036854775808"), "-9223372036854775808");
        let long = format!("1{}", "0".repeat(100));
        let err = parse(&long).unwrap_err();
        assert!(
            err.contains(
                "integer 1000000000000000000000000000000000000000… (101 digits) does not fit"
            ),
            "{err}"
        );
    }

    #[test]
    fn a_name_written_twice_is_refused_among_few_names_and_among_many() {
        let object = |names: &[String]| {
            let entries: Vec<String> = names.iter().map(|n| format!("\"{n}\": 1")).collect();
            format!("{{{}}}", entries.join(", "))
        };
        let read =
            |text: &str| serde_json::from_str::<NamedValues>(text).map_err(|e| e.to_string());
        let names: Vec<String> = (0..40).map(|i| format!("n{i}")).collect();
        assert_eq!(read(&object(&names)).unwrap().0.len(), 40);
        // Twice within the names scanned, then past them (found by hash), then both.
        for (first, again) in [(2, 9), (3, 30), (25, 39)] {
            let mut twice = names.clone();
            twice[again] = names[first].clone();
            let err = read(&object(&twice)).unwrap_err();
            assert!(
                err.contains(&format!("`n{first}` is defined twice")),
                "{err}"
            );
        }
    }

    #[test]
    fn depth_is_bounded() {
        let ok = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(parse(&ok).is_ok());
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        let err = parse(&deep).unwrap_err();
        assert!(err.contains("nested deeper than 128 levels"), "{err}");
    }

    /// Maps of several entries gather them on the stack of their level: as deep as a value
    /// may nest, on the stack of a test's thread, they are read, each with its entries.
    #[test]
    fn maps_as_deep_as_a_value_may_nest_are_read() {
        let open = r#"{"a": 1, "b": 2, "c": 3, "d": 4, "e": 5, "f": 6, "g": 7, "h": 8, "i": "#;
        let deep = format!("{}0{}", open.repeat(MAX_DEPTH), "}".repeat(MAX_DEPTH));
        let mut value = parse(&deep).unwrap();
        for _ in 0..MAX_DEPTH {
            let Value::Map(entries) = value else {
                panic!("not a map: {value:?}")
            };
            assert_eq!(entries.len(), 9);
            assert_eq!(entries[0].1, Value::Integer(1));
            value = entries[8].1.clone();
        }
        assert_eq!(value, Value::Integer(0));
    }
}
