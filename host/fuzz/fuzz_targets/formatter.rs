//! The Clojure formatter on arbitrary values with arbitrary limits. It must never panic, and:
//! - no collection shows more than `limit` elements and no string more than `printable_limit`
//!   characters (checked through a bound on the output's length, computed independently);
//! - when the limits cut nothing, the output is the uncut output;
//! - no output holds a line break.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ptc_plugin_api::{Function, Value};
use ptc_strategy_kit::{is_line_break, is_private_key, to_clojure, to_clojure_full, Limits};

/// Reads values from the fuzzer's bytes: one tag byte, then what the tag needs.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn byte(&mut self) -> u8 {
        let (first, rest) = self.0.split_first().unwrap_or((&0, &[]));
        self.0 = rest;
        *first
    }

    fn word(&mut self) -> [u8; 8] {
        std::array::from_fn(|_| self.byte())
    }

    fn text(&mut self) -> String {
        let len = usize::from(self.byte() % 24);
        let take = len.min(self.0.len());
        let (text, rest) = self.0.split_at(take);
        self.0 = rest;
        String::from_utf8_lossy(text).into_owned()
    }

    fn value(&mut self, depth: usize) -> Value {
        let tag = self.byte();
        let leaf = depth >= 6 || self.0.is_empty();
        match tag % 11 {
            0 => Value::Nil,
            1 => Value::Boolean(tag & 0x80 != 0),
            2 => Value::Integer(i64::from_le_bytes(self.word())),
            3 => Value::Float(f64::from_bits(u64::from_le_bytes(self.word()))),
            4 => Value::string(&self.text()),
            5 => Value::keyword(&self.text()),
            6 if !leaf => Value::List(self.elements(depth).into()),
            7 if !leaf => ptc_strategy_kit::set_from(self.elements(depth)).unwrap_or_else(|e| e),
            8 if !leaf => {
                let len = usize::from(self.byte() % 12);
                let entries = (0..len)
                    .map(|_| (self.value(depth + 1), self.value(depth + 1)))
                    .collect();
                ptc_strategy_kit::map_from(entries).unwrap_or_else(|e| e)
            }
            9 => Value::Function(Function {
                params: (0..self.byte() % 4).map(|_| self.text().into()).collect(),
                doc: None.into(),
                return_type: None.into(),
            }),
            _ => Value::string(&"\u{1}\"\\\n".repeat(usize::from(tag % 7))),
        }
    }

    fn elements(&mut self, depth: usize) -> Vec<Value> {
        let len = usize::from(self.byte() % 12);
        (0..len).map(|_| self.value(depth + 1)).collect()
    }
}

/// The most characters `value` may print as under `limits`: every string cut to
/// `printable_limit` characters of at most 6 characters each (`\u0001`), every collection to
/// `limit` elements plus its `... (N items, showing first L)` marker.
fn bound(value: &Value, limits: Limits) -> usize {
    const MARKER: usize =
        " ...} (18446744073709551615 items, showing first 18446744073709551615)".len();
    match value {
        Value::Nil | Value::Boolean(_) => 5,
        Value::Integer(_) => 20,
        Value::Float(_) => 32,
        Value::String(s) => 2 + 3 + 6 * s.chars().count().min(limits.printable_limit),
        // `:name`, or `(keyword "name")` escaped and cut like a string.
        Value::Keyword(k) => 12 + 3 + 6 * k.chars().count().min(limits.printable_limit),
        Value::Function(f) => {
            5 + f
                .params
                .iter()
                .map(|p| p.chars().count() + 1)
                .sum::<usize>()
        }
        Value::List(items) | Value::Set(items) => {
            2 + MARKER
                + items
                    .iter()
                    .take(limits.limit)
                    .map(|item| bound(item, limits) + 1)
                    .sum::<usize>()
        }
        Value::Map(entries) => {
            2 + MARKER
                + entries
                    .iter()
                    .filter(|entry| !is_private_key(&entry.0))
                    .take(limits.limit)
                    .map(|entry| bound(&entry.0, limits) + bound(&entry.1, limits) + 2)
                    .sum::<usize>()
        }
    }
}

/// The largest collection and the longest string or keyword in `value`; private map entries
/// are never shown, so they do not count.
fn extent(value: &Value) -> (usize, usize) {
    match value {
        Value::String(s) | Value::Keyword(s) => (0, s.chars().count()),
        Value::List(items) | Value::Set(items) => items
            .iter()
            .map(extent)
            .fold((items.len(), 0), |a, b| (a.0.max(b.0), a.1.max(b.1))),
        Value::Map(entries) => {
            let shown = || entries.iter().filter(|entry| !is_private_key(&entry.0));
            shown()
                .flat_map(|entry| [extent(&entry.0), extent(&entry.1)])
                .fold((shown().count(), 0), |a, b| (a.0.max(b.0), a.1.max(b.1)))
        }
        _ => (0, 0),
    }
}

fuzz_target!(|data: &[u8]| {
    let mut bytes = Bytes(data);
    let limits = Limits::new(
        usize::from(bytes.byte() % 16),
        usize::from(bytes.byte() % 100),
    );
    let value = bytes.value(0);

    let shown = to_clojure(&value, limits);
    let full = to_clojure_full(&value);
    assert!(
        shown.chars().count() <= bound(&value, limits),
        "{shown:?} is longer than {limits:?} allow"
    );
    assert!(!full.contains(is_line_break), "{full:?} holds a line break");
    let (largest, longest) = extent(&value);
    if largest <= limits.limit && longest <= limits.printable_limit {
        assert_eq!(
            shown, full,
            "limits {limits:?} cut nothing, yet the output differs"
        );
    } else {
        assert_ne!(
            shown, full,
            "limits {limits:?} cut something, yet the output is whole"
        );
    }
});
