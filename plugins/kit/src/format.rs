//! Values in Clojure syntax, cut to limits (`Format.to_clojure` of the specification), type
//! labels (TYP-*) and docstring sanitising (DEF-007). Every strategy uses these, so a sample
//! reads the same whichever strategy shows it.

use std::fmt::Write;

use ptc_plugin_api::{Function, Value};

/// How much of a value [`to_clojure`] prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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

/// Prints `value` in Clojure syntax, cut to `limits` (DECISIONS 14-17).
///
/// A cut collection prints its first `limit` elements, then `...`, then
/// ` (N items, showing first M)` after the closing bracket; a cut string keeps its first
/// `printable_limit` characters and ends with `...` inside the quotes.
///
/// ```
/// use ptc_plugin_api::Value;
/// use ptc_strategy_kit::{to_clojure, Limits};
/// let list = Value::List((1..=5).map(Value::Integer).collect());
/// assert_eq!(to_clojure(&list, Limits::new(3, 80)), "[1 2 3 ...] (5 items, showing first 3)");
/// ```
pub fn to_clojure(value: &Value, limits: Limits) -> String {
    let mut out = String::new();
    write_value(&mut out, value, limits);
    out
}

/// Prints `value` in Clojure syntax without any cut.
pub fn to_clojure_full(value: &Value) -> String {
    to_clojure(value, Limits::NONE)
}

/// Appends `value` in Clojure syntax, cut to `limits`, to `out`.
pub fn write_value(out: &mut String, value: &Value, limits: Limits) {
    match value {
        Value::Nil => out.push_str("nil"),
        Value::Boolean(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Integer(i) => {
            let _ = write!(out, "{i}");
        }
        Value::Float(f) => write_float(out, *f),
        Value::String(s) => write_string(out, s, limits.printable_limit),
        Value::Keyword(k) => {
            out.push(':');
            out.push_str(k);
        }
        Value::List(items) => write_seq(out, "[", "]", items, limits),
        Value::Set(items) => write_seq(out, "#{", "}", items, limits),
        Value::Map(entries) => {
            out.push('{');
            for (i, entry) in entries.iter().take(limits.limit).enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                write_value(out, &entry.0, limits);
                out.push(' ');
                write_value(out, &entry.1, limits);
            }
            close_collection(out, "}", entries.len(), limits.limit);
        }
        Value::Function(f) => write_function(out, f),
    }
}

fn write_seq(out: &mut String, open: &str, close: &str, items: &[Value], limits: Limits) {
    out.push_str(open);
    for (i, item) in items.iter().take(limits.limit).enumerate() {
        if i > 0 {
            out.push(' ');
        }
        write_value(out, item, limits);
    }
    close_collection(out, close, items.len(), limits.limit);
}

fn close_collection(out: &mut String, close: &str, len: usize, limit: usize) {
    if len > limit {
        if limit > 0 {
            out.push(' ');
        }
        out.push_str("...");
        out.push_str(close);
        let _ = write!(out, " ({len} items, showing first {limit})");
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
        out.push_str(p);
    }
    out.push(']');
}

fn write_string(out: &mut String, s: &str, printable_limit: usize) {
    out.push('"');
    let mut cut = false;
    for (count, c) in s.chars().enumerate() {
        if count == printable_limit {
            cut = true;
            break;
        }
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => {
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

/// Floats as Clojure prints them (Java's `Double.toString`, shortest digits): `1.0`, `3.14`,
/// `1000.0`, `1.0E7`, `1.0E-5`, `##Inf`, `##-Inf`, `##NaN`.
pub fn write_float(out: &mut String, f: f64) {
    if f.is_nan() {
        out.push_str("##NaN");
    } else if f.is_infinite() {
        out.push_str(if f > 0.0 { "##Inf" } else { "##-Inf" });
    } else if f == 0.0 || (1e-3..1e7).contains(&f.abs()) {
        let start = out.len();
        let _ = write!(out, "{f}");
        if !out[start..].contains('.') {
            out.push_str(".0");
        }
    } else {
        let text = format!("{f:e}");
        let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
        out.push_str(mantissa);
        if !mantissa.contains('.') {
            out.push_str(".0");
        }
        out.push('E');
        out.push_str(exponent);
    }
}

/// The type label of a value (TYP-*, DECISIONS 18): `list[N]`, `map[N]`, `set[N]`, `string`,
/// `integer`, `float`, `boolean`, `keyword`, `nil`, `#fn[...]`.
pub fn type_label(value: &Value) -> String {
    match value {
        Value::Nil => "nil".into(),
        Value::Boolean(_) => "boolean".into(),
        Value::Integer(_) => "integer".into(),
        Value::Float(_) => "float".into(),
        Value::String(_) => "string".into(),
        Value::Keyword(_) => "keyword".into(),
        Value::List(items) => format!("list[{}]", items.len()),
        Value::Set(items) => format!("set[{}]", items.len()),
        Value::Map(entries) => format!("map[{}]", entries.len()),
        Value::Function(_) => "#fn[...]".into(),
    }
}

/// A docstring made safe for a `;` comment line (DEF-007, DECISIONS 12): every `;` removed,
/// every line break (`\r\n`, `\n`, `\r`) turned into one space.
pub fn sanitize_doc(doc: &str) -> String {
    let mut out = String::with_capacity(doc.len());
    let mut chars = doc.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ';' => {}
            '\r' => {
                if chars.peek() == Some(&'\n') {
                    chars.next();
                }
                out.push(' ');
            }
            '\n' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// `text` cut to `limit` characters with `...` appended when it was longer (println entries,
/// TRN-011).
pub fn cap_chars(text: &str, limit: usize) -> String {
    match text.char_indices().nth(limit) {
        Some((byte, _)) => {
            let mut out = String::with_capacity(byte + 3);
            out.push_str(&text[..byte]);
            out.push_str("...");
            out
        }
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use abi_stable::std_types::{RNone, RSome, RVec};

    fn full(v: &Value) -> String {
        to_clojure_full(v)
    }

    fn map(entries: Vec<(Value, Value)>) -> Value {
        crate::map_from(entries).unwrap()
    }

    #[test]
    fn scalars_print_in_clojure_syntax() {
        assert_eq!(full(&Value::Nil), "nil");
        assert_eq!(full(&Value::Boolean(true)), "true");
        assert_eq!(full(&Value::Boolean(false)), "false");
        assert_eq!(full(&Value::Integer(-42)), "-42");
        assert_eq!(full(&Value::keyword("open")), ":open");
        assert_eq!(full(&Value::string("hi")), "\"hi\"");
    }

    #[test]
    #[allow(clippy::approx_constant)] // 3.14 is the specification's example, not pi
    fn floats_print_like_java() {
        let cases = [
            (1.0, "1.0"),
            (3.14, "3.14"),
            (1000.0, "1000.0"),
            (1.0e7, "1.0E7"),
            (1.0e-5, "1.0E-5"),
            (1.2345e10, "1.2345E10"),
            (0.001, "0.001"),
            (9999999.0, "9999999.0"),
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (-2.5, "-2.5"),
            (f64::INFINITY, "##Inf"),
            (f64::NEG_INFINITY, "##-Inf"),
            (f64::NAN, "##NaN"),
        ];
        for (f, expected) in cases {
            assert_eq!(full(&Value::Float(f)), expected, "{f:?}");
        }
    }

    #[test]
    fn strings_escape_and_cut_by_characters() {
        assert_eq!(
            full(&Value::string("a\"b\\c\nd\te\rf\u{1}")),
            r#""a\"b\\c\nd\te\rf\u0001""#
        );
        let s = Value::string("Zürich café");
        assert_eq!(to_clojure(&s, Limits::new(3, 3)), "\"Zür...\"");
        assert_eq!(to_clojure(&s, Limits::new(3, 11)), "\"Zürich café\"");
        assert_eq!(to_clojure(&s, Limits::new(3, 10)), "\"Zürich caf...\"");
    }

    #[test]
    fn collections_cut_at_every_depth() {
        let inner = Value::List((1..=4).map(Value::Integer).collect());
        let outer = Value::List(RVec::from(vec![inner.clone(), Value::Integer(9)]));
        assert_eq!(
            to_clojure(&outer, Limits::new(3, 80)),
            "[[1 2 3 ...] (4 items, showing first 3) 9]"
        );
        let m = map(vec![
            (Value::keyword("d"), Value::Integer(4)),
            (Value::keyword("a"), Value::Integer(1)),
            (Value::keyword("c"), Value::Integer(3)),
            (Value::keyword("b"), Value::Integer(2)),
        ]);
        assert_eq!(
            to_clojure(&m, Limits::new(3, 80)),
            "{:a 1 :b 2 :c 3 ...} (4 items, showing first 3)"
        );
        let s = crate::set_from((1..=5).map(Value::Integer).collect()).unwrap();
        assert_eq!(
            to_clojure(&s, Limits::new(2, 80)),
            "#{1 2 ...} (5 items, showing first 2)"
        );
        assert_eq!(
            to_clojure(&s, Limits::new(0, 80)),
            "#{...} (5 items, showing first 0)"
        );
        assert_eq!(full(&Value::List(RVec::new())), "[]");
        assert_eq!(full(&map(vec![])), "{}");
    }

    #[test]
    fn map_keys_print_quoted_or_as_keywords() {
        let m = map(vec![
            (Value::string("s"), Value::Integer(2)),
            (Value::keyword("k"), Value::Integer(1)),
            (Value::Integer(3), Value::Nil),
        ]);
        assert_eq!(full(&m), "{3 nil :k 1 \"s\" 2}");
    }

    #[test]
    fn functions_print_their_params() {
        let f = Value::Function(Function {
            params: RVec::from(vec!["a".into(), "&".into(), "rest".into()]),
            doc: RNone,
            return_type: RSome("integer".into()),
        });
        assert_eq!(full(&f), "#fn[a & rest]");
        assert_eq!(type_label(&f), "#fn[...]");
    }

    #[test]
    fn type_labels_follow_the_vocabulary() {
        assert_eq!(type_label(&Value::List(RVec::new())), "list[0]");
        assert_eq!(
            type_label(&Value::List(vec![Value::Nil, Value::Nil].into())),
            "list[2]"
        );
        assert_eq!(type_label(&map(vec![])), "map[0]");
        assert_eq!(
            type_label(&crate::set_from(vec![Value::Integer(1)]).unwrap()),
            "set[1]"
        );
        assert_eq!(type_label(&Value::Float(1.0)), "float");
        assert_eq!(type_label(&Value::keyword("x")), "keyword");
        assert_eq!(type_label(&Value::Nil), "nil");
    }

    #[test]
    fn docstrings_lose_semicolons_and_line_breaks() {
        assert_eq!(sanitize_doc("Sum; then\nround;\r\nok"), "Sum then round ok");
    }

    #[test]
    fn cap_chars_counts_characters() {
        assert_eq!(cap_chars("héllo", 2), "hé...");
        assert_eq!(cap_chars("héllo", 5), "héllo");
    }
}
