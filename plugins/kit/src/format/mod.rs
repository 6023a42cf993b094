//! Values in Clojure syntax, cut to limits, type labels and docstring sanitising. Every strategy
//! uses these, so a sample reads the same whichever strategy shows it.

use std::fmt::Write;

use abi_stable::std_types::Tuple2;
use ptc_plugin_api::{Function, Value};

mod float;
mod kept;
mod push;
mod text;

#[cfg(test)]
use float::write_cents;
pub use float::write_float;
pub(crate) use kept::{sample_of_run, Printing};
pub use push::push_text;
pub use text::{cap_chars, is_line_break, one_line, sanitize_doc};

/// How much of a value [`to_clojure`] prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Limits {
    /// Elements of lists and sets, entries of maps, at every depth.
    pub limit: usize,
    /// Characters (Unicode scalar values) of each string, at every depth.
    pub printable_limit: usize,
}

impl Limits {
    /// No cut at all.
    pub const NONE: Limits = Limits {
        limit: usize::MAX,
        printable_limit: usize::MAX,
    };

    pub const fn new(limit: usize, printable_limit: usize) -> Limits {
        Limits {
            limit,
            printable_limit,
        }
    }
}

/// Prints `value` in Clojure syntax, cut to `limits` (elements of each collection at every
/// depth, characters of each string), private map entries left out.
///
/// A cut collection prints its first `limit` elements, then `...`, then
/// ` (N items, showing first M)` after the closing bracket; a cut string keeps its first
/// `printable_limit` characters and ends with `...` inside the quotes. A map entry whose key is
/// private ([`is_private_key`]) is not printed and not counted. A keyword prints as `:name`
/// when its name is plain ([`is_plain_keyword`]) and no longer than `printable_limit`, else as
/// `(keyword "name")` with the string's escapes and cut, so that no value puts a line break
/// into the text.
///
/// ```
/// use ptc_plugin_api::Value;
/// use ptc_strategy_kit::{to_clojure, Limits};
/// let list = Value::List((1..=5).map(Value::Integer).collect());
/// assert_eq!(to_clojure(&list, Limits::new(3, 80)), "[1 2 3 ...] (5 items, showing first 3)");
/// ```
pub fn to_clojure(value: &Value, limits: Limits) -> String {
    to_clojure_shown(value, limits, ptc_plugin_api::showing_private())
}

/// [`to_clojure`], private map entries printed when `private` (as
/// [`ptc_plugin_api::showing_private`] says for the render).
fn to_clojure_shown(value: &Value, limits: Limits, private: bool) -> String {
    // Most samples and arguments are short: one allocation, rarely a second.
    let mut out = String::with_capacity(64);
    Writer { limits, private }.value(&mut out, value);
    out
}

/// Prints `value` in Clojure syntax without any cut (private map entries are still left out).
pub fn to_clojure_full(value: &Value) -> String {
    to_clojure(value, Limits::NONE)
}

/// Appends `value` in Clojure syntax, cut to `limits`, to `out`; private map entries are left
/// out (see [`to_clojure`]).
pub fn write_value(out: &mut String, value: &Value, limits: Limits) {
    Writer {
        limits,
        // Read once: it cannot change while a value is printed.
        private: ptc_plugin_api::showing_private(),
    }
    .value(out, value)
}

/// The whole of `value`, private entries included: the text the canonical order compares,
/// never shown.
pub(crate) fn exact_text(value: &Value) -> String {
    let mut out = String::new();
    Writer {
        limits: Limits::NONE,
        private: true,
    }
    .value(&mut out, value);
    out
}

/// A name that is private: it starts with `_`. A private `user/` or `data/`
/// entry shows no sample. Nothing is private while a strategy renders with private values
/// shown ([`ptc_plugin_api::showing_private`], a debugging view).
pub fn is_private_name(name: &str) -> bool {
    name.starts_with('_') && !ptc_plugin_api::showing_private()
}

/// A map key that is private: a keyword or a string whose name starts with `_`. Such an entry
/// is left out of every printed value.
pub fn is_private_key(key: &Value) -> bool {
    match key {
        Value::Keyword(name) | Value::String(name) => is_private_name(name),
        _ => false,
    }
}

/// The entries of a map whose keys are not private. A map's entries come in the canonical order
/// (the host's guarantee), where the private keys are the keywords, and the strings, from `_` up
/// to `` ` `` (the character after `_`): a large map counts them by binary search instead of
/// walking every key.
fn public_len(entries: &[Tuple2<Value, Value>]) -> usize {
    if ptc_plugin_api::showing_private() {
        return entries.len();
    }
    if entries.len() <= 64 {
        // Private values are hidden (read once above): a key's name says it all.
        return entries.iter().filter(|e| !has_private_name(&e.0)).count();
    }
    let within = |from: Value, to: Value| {
        let below = |probe: &Value| {
            entries
                .partition_point(|e| crate::canonical_cmp(&e.0, probe) == std::cmp::Ordering::Less)
        };
        below(&to).saturating_sub(below(&from))
    };
    let private = within(Value::keyword("_"), Value::keyword("`"))
        + within(Value::string("_"), Value::string("`"));
    entries.len().saturating_sub(private)
}

/// The bytes of a plain keyword name (see [`is_plain_keyword`]), as a table: every byte of
/// every keyword printed is looked up in it.
const PLAIN_KEYWORD_BYTES: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = c.is_ascii_alphanumeric()
            || matches!(
                c,
                b'*' | b'+' | b'!' | b'?' | b'<' | b'>' | b'=' | b'/' | b'.' | b'_' | b'-'
            );
        b += 1;
    }
    table
};

/// A keyword name that prints as `:name` (any other prints as `(keyword "...")`): not empty,
/// and only the characters `A-Z a-z 0-9 * + ! ? < > = / . _ -`.
pub fn is_plain_keyword(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| PLAIN_KEYWORD_BYTES[usize::from(b)])
}

struct Writer {
    limits: Limits,
    /// Print private map entries too (the exact text, or a render showing private values).
    private: bool,
}

/// [`is_private_key`] for a printer that already knows private values are hidden.
fn has_private_name(key: &Value) -> bool {
    match key {
        Value::Keyword(name) | Value::String(name) => name.starts_with('_'),
        _ => false,
    }
}

impl Writer {
    fn value(&self, out: &mut String, value: &Value) {
        let limits = self.limits;
        match value {
            Value::Nil => out.push_str("nil"),
            Value::Boolean(b) => out.push_str(if *b { "true" } else { "false" }),
            Value::Integer(i) => write_integer(out, *i),
            Value::Float(f) => write_float(out, *f),
            Value::String(s) => write_string(out, s, limits.printable_limit),
            // Plain names are ASCII: their length in bytes is their length in characters.
            Value::Keyword(k) if is_plain_keyword(k) && k.len() <= limits.printable_limit => {
                out.push(':');
                push_text(out, k);
            }
            Value::Keyword(k) => {
                out.push_str("(keyword ");
                write_string(out, k, limits.printable_limit);
                out.push(')');
            }
            Value::List(items) => self.seq(out, "[", "]", items),
            Value::Set(items) => self.seq(out, "#{", "}", items),
            Value::Map(entries) => {
                let shown =
                    |entry: &&Tuple2<Value, Value>| self.private || !has_private_name(&entry.0);
                out.push('{');
                let mut printed = 0;
                for entry in entries.iter().filter(shown).take(limits.limit) {
                    if printed > 0 {
                        out.push(' ');
                    }
                    printed += 1;
                    self.value(out, &entry.0);
                    out.push(' ');
                    self.value(out, &entry.1);
                }
                let len = if self.private {
                    entries.len()
                } else if printed < limits.limit {
                    // Every public entry was printed: none is left to count.
                    printed
                } else {
                    public_len(entries)
                };
                close_collection(out, "}", len, limits.limit);
            }
            Value::Function(f) => write_function(out, f),
        }
    }

    fn seq(&self, out: &mut String, open: &str, close: &str, items: &[Value]) {
        out.push_str(open);
        for (i, item) in items.iter().take(self.limits.limit).enumerate() {
            if i > 0 {
                out.push(' ');
            }
            self.value(out, item);
        }
        close_collection(out, close, items.len(), self.limits.limit);
    }
}

fn close_collection(out: &mut String, close: &str, len: usize, limit: usize) {
    if len > limit {
        if limit > 0 {
            out.push(' ');
        }
        out.push_str("...");
        out.push_str(close);
        // Pushed piece by piece: `write!` costs more than the rest of a short sample.
        out.push_str(" (");
        write_integer(out, len);
        out.push_str(" items, showing first ");
        write_integer(out, limit);
        out.push(')');
    } else {
        out.push_str(close);
    }
}

fn write_function(out: &mut String, f: &Function) {
    out.push_str("#fn[");
    for (i, p) in f.params.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(&one_line(p));
    }
    out.push(']');
}

/// Appends the integer `i` in decimal.
fn write_integer(out: &mut String, i: impl itoa::Integer) {
    push_text(out, itoa::Buffer::new().format(i));
}

/// A byte that [`write_string`] cannot copy as it is: a quote, a backslash, an ASCII control
/// character, or the first byte of a non-ASCII character (which may be a control character or
/// a line break).
fn needs_care(b: u8) -> bool {
    NEEDS_CARE[usize::from(b)]
}

/// [`needs_care`] as a table: every byte of every string printed is looked up in it.
const NEEDS_CARE: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = c < 0x20 || c == b'"' || c == b'\\' || c >= 0x7F;
        b += 1;
    }
    table
};

fn write_string(out: &mut String, s: &str, printable_limit: usize) {
    out.push('"');
    // Plain ASCII (the common case) is copied in one piece: its characters are its bytes.
    let scanned = &s.as_bytes()[..s.len().min(printable_limit)];
    let plain = scanned
        .iter()
        .position(|&b| needs_care(b))
        .unwrap_or(scanned.len());
    let (head, rest) = s.split_at(plain);
    push_text(out, head);
    let mut cut = false;
    for (count, c) in rest.chars().enumerate() {
        if head.len() + count == printable_limit {
            cut = true;
            break;
        }
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() || is_line_break(c) => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    if cut {
        out.push_str("...");
    }
    out.push('"');
}

/// The type label of a value, the same in every strategy: `list[N]`, `map[N]`, `set[N]`, `string`,
/// `integer`, `float`, `boolean`, `keyword`, `nil`, `#fn[...]`.
pub fn type_label(value: &Value) -> std::borrow::Cow<'static, str> {
    match value {
        Value::Nil => "nil".into(),
        Value::Boolean(_) => "boolean".into(),
        Value::Integer(_) => "integer".into(),
        Value::Float(_) => "float".into(),
        Value::String(_) => "string".into(),
        Value::Keyword(_) => "keyword".into(),
        Value::List(items) => sized_label("list[", items.len()).into(),
        Value::Set(items) => sized_label("set[", items.len()).into(),
        Value::Map(entries) => sized_label("map[", entries.len()).into(),
        Value::Function(_) => "#fn[...]".into(),
    }
}

/// `kind` followed by `len` and `]`.
fn sized_label(kind: &str, len: usize) -> String {
    let mut label = String::with_capacity(kind.len() + 8);
    label.push_str(kind);
    write_integer(&mut label, len);
    label.push(']');
    label
}

#[cfg(test)]
mod tests;
