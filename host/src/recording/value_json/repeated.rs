//! A recording repeats its memory: each turn writes the whole `user/` namespace again, most of
//! it as the turn before wrote it. While a recording is read ([`reusing`]), an entry of `data`
//! or `memory` whose JSON text is the same, byte for byte, as the previous object's entry of
//! that name is not read again: its value is that entry's, shared (the same allocation, which
//! strategies then compare at once). Values are the same as when each is read; the text is
//! still checked as JSON.
//!
//! Only the quick first reading of a recording reuses entries: an error in it sends the
//! recording to the second reading, which tracks the place of the error and reads every entry
//! itself ([`crate::recording::format`]), so errors read as before.

use std::cell::RefCell;

use ptc_plugin_api::abi_stable::std_types::RArc;
use ptc_plugin_api::Value;
use rustc_hash::FxHashMap;
use serde::de::{self, DeserializeSeed, MapAccess};
use serde_json::value::RawValue;

use super::reduced::Replaced;
use super::{named_entries, NamedValues, ValueSeed};

/// The entries of the last object read: name -> (JSON text, value).
type Entries = FxHashMap<String, (Box<str>, RArc<Value>)>;

thread_local! {
    /// Set while [`reusing`] runs: the entries of the previous object of `data` or `memory`.
    static PREVIOUS: RefCell<Option<Entries>> = const { RefCell::new(None) };
    /// Set while [`reusing`] runs on a reduced text: the values it writes `0`.
    static REPLACED: RefCell<Option<Replaced>> = const { RefCell::new(None) };
}

thread_local! {
    /// Set while [`skipping`] runs: entries are checked as JSON, not read.
    static SKIPPING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// The value of every entry [`skip`] reads: one nil, shared.
    static NIL: RArc<Value> = RArc::new(Value::Nil);
}

#[cfg(test)]
thread_local! {
    /// How many entries [`read`] read from their text.
    static READ: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Runs `read`, in which objects of named values reuse the previous object's entries whose
/// text is unchanged. When `read` reads a text [`super::reduce`]d, `replaced` is what it
/// replaced: an entry written `0` there is read as the text it replaced. What it keeps is
/// dropped when `read` returns.
pub(crate) fn reusing<T>(replaced: Option<Replaced>, read: impl FnOnce() -> T) -> T {
    let outer = PREVIOUS.replace(Some(Entries::default()));
    let outer_replaced = REPLACED.replace(replaced);
    let result = read();
    PREVIOUS.set(outer);
    REPLACED.set(outer_replaced);
    result
}

/// Runs `read`, in which the entries of `data` and `memory` keep their names but not their
/// values (each is nil; its text is still checked as JSON): for what a recording says besides
/// its values (its requests, its usage), read at a fraction of the cost.
pub(crate) fn skipping<T>(read: impl FnOnce() -> T) -> T {
    let outer = SKIPPING.replace(true);
    let result = read();
    SKIPPING.set(outer);
    result
}

/// Whether [`skipping`] is running on this thread.
pub(super) fn skipped() -> bool {
    SKIPPING.get()
}

/// Reads the names of an object of named values, skipping their values ([`skipping`]).
pub(super) fn skip<'de, A: MapAccess<'de>>(map: A) -> Result<NamedValues, A::Error> {
    named_entries(map, |map, _| {
        map.next_value::<de::IgnoredAny>()?;
        Ok(NIL.with(RArc::clone))
    })
}

/// Whether [`reusing`] is running on this thread.
pub(super) fn active() -> bool {
    PREVIOUS.with(|p| p.borrow().is_some())
}

/// Reads the entries of an object of named values, reusing the previous object's values whose
/// text is unchanged (the same allocation, shared). The reader must lend its text (serde_json
/// reading a slice): any error, that one included, is only a sign to read the recording the
/// other way.
pub(super) fn visit<'de, A: MapAccess<'de>>(map: A) -> Result<NamedValues, A::Error> {
    let mut previous = PREVIOUS.with(|p| p.borrow_mut().as_mut().map(std::mem::take));
    // About as many entries as the previous object: room for them at once.
    let room = previous.as_ref().map_or(0, |p| p.len());
    let mut kept = Entries::with_capacity_and_hasher(room, Default::default());
    let entries = REPLACED.with_borrow(|replaced| {
        named_entries(map, |map, name| {
            let raw: &'de RawValue = map.next_value()?;
            let written = raw.get();
            let text = replaced
                .as_ref()
                .and_then(|r| r.text_of(written))
                .unwrap_or(written);
            // The previous entry's name is kept again, not allocated again.
            let (key, before) = match previous.as_mut().and_then(|p| p.remove_entry(name)) {
                Some((key, entry)) => (key, Some(entry)),
                None => (name.to_owned(), None),
            };
            let (text, value) = match before {
                Some((before, value)) if *before == *text => (before, value),
                _ => (
                    Box::from(text),
                    RArc::new(read(text).map_err(de::Error::custom)?),
                ),
            };
            kept.insert(key, (text, value.clone()));
            Ok(value)
        })
    })?;
    PREVIOUS.with(|p| {
        if let Some(p) = p.borrow_mut().as_mut() {
            *p = kept;
        }
    });
    Ok(entries)
}

/// One entry's value read from its text, as an entry is read in place.
fn read(text: &str) -> Result<Value, serde_json::Error> {
    #[cfg(test)]
    READ.with(|n| n.set(n.get() + 1));
    let mut de = serde_json::Deserializer::from_str(text);
    de.disable_recursion_limit();
    let value = ValueSeed { depth: 1 }.deserialize(&mut de)?;
    de.end()?;
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `data` and `memory` objects of a recording-like text, read with and without reuse.
    fn both(text: &str) -> (Result<Vec<NamedValues>, String>, Vec<NamedValues>, usize) {
        let each = |text: &str| -> Result<Vec<NamedValues>, String> {
            serde_json::from_str::<Vec<NamedValues>>(text).map_err(|e| e.to_string())
        };
        let plain = each(text).unwrap();
        READ.with(|n| n.set(0));
        let reused = reusing(None, || each(text));
        (reused, plain, READ.with(|n| n.get()))
    }

    #[test]
    fn an_unchanged_entry_is_copied_and_a_changed_one_read_again() {
        let text = r#"[
            {"items": [{":id": 1, ":tags": {"$set": ["b", "a"]}}], "n": 1},
            {"items": [{":id": 1, ":tags": {"$set": ["b", "a"]}}], "n": 2, "f": {"$fn": {"params": ["x"]}}},
            {"n": 2, "items": [{":id": 1, ":tags": {"$set": ["b", "a"]}}], "f": {"$fn": {"params": ["x"]}}},
            {"items": [{":id": 1, ":tags": {"$set": ["a", "b"]}}], "n": 2.0, "m": 2}
        ]"#;
        let (reused, plain, read) = both(text);
        let reused = reused.unwrap();
        assert_eq!(reused, plain);
        // items, n; n, f; nothing (the same texts in another order); items, n, m.
        assert_eq!(read, 2 + 2 + 3);
        // An entry not read again is the entry before it, shared; one read again is not.
        let value = |object: usize, name: &str| {
            let entry = reused[object].0.iter().find(|(n, _)| n == name).unwrap();
            &*entry.1 as *const Value
        };
        assert_eq!(value(0, "items"), value(1, "items"));
        assert_eq!(value(1, "f"), value(2, "f"));
        assert_ne!(value(1, "n"), value(0, "n"));
        assert_ne!(value(2, "items"), value(3, "items"));
    }

    #[test]
    fn the_same_text_under_another_name_is_read_again() {
        let (reused, plain, read) = both(r#"[{"a": [1, 2]}, {"b": [1, 2]}, {"a": [1, 2]}]"#);
        assert_eq!(reused.unwrap(), plain);
        assert_eq!(read, 3);
    }

    #[test]
    fn errors_are_still_errors() {
        for text in [
            r#"[{"a": 1}, {"a": 1, "a": 2}]"#,
            r#"[{"a": 1}, {"a": 123456789012345678901234567890}]"#,
            r#"[{"a": {"$kw": 3}}]"#,
        ] {
            let reused = crate::recording::value_json::reading(text.as_bytes(), || {
                reusing(None, || serde_json::from_str::<Vec<NamedValues>>(text))
            });
            assert!(reused.is_err(), "{text}");
        }
    }

    #[test]
    fn skipped_values_keep_their_names_and_their_errors_of_json() {
        let text = r#"[{"a": [1, {"$kw": "x"}], "b": {"$set": [1]}}]"#;
        let read = skipping(|| serde_json::from_str::<Vec<NamedValues>>(text)).unwrap();
        let names: Vec<(&str, &Value)> =
            read[0].0.iter().map(|(n, v)| (n.as_str(), &**v)).collect();
        assert_eq!(names, [("a", &Value::Nil), ("b", &Value::Nil)]);
        assert!(!skipped());
        for bad in [r#"[{"a": 1, "a": 2}]"#, r#"[{"a": [1,]}]"#] {
            assert!(
                skipping(|| serde_json::from_str::<Vec<NamedValues>>(bad)).is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn nothing_is_reused_outside_a_reading() {
        let text = r#"[{"a": [1]}, {"a": [1]}]"#;
        reusing(None, || serde_json::from_str::<Vec<NamedValues>>(text)).unwrap();
        assert!(!active());
        READ.with(|n| n.set(0));
        serde_json::from_str::<Vec<NamedValues>>(text).unwrap();
        assert_eq!(READ.with(|n| n.get()), 0);
    }
}
