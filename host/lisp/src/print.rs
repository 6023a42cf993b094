//! Printing values as ptc_runner prints them (`pr-str`, `str`, `println`).

use crate::value::Value;

/// A value as `pr-str` prints it: strings quoted, map keys in sorted order, floats compact.
pub fn pr_str(v: &Value) -> String {
    let mut out = String::new();
    write_pr(v, &mut out);
    out
}

/// A value as `str` prints it: strings as they are, nil as nothing, everything else as `pr-str`.
pub fn str_of(v: &Value) -> String {
    match v {
        Value::Str(s) => s.to_string(),
        Value::Nil => String::new(),
        other => pr_str(other),
    }
}

/// A value as one argument of `println`: strings as they are, a non-empty list of
/// one-character strings joined (ptc_runner reads it as the characters of a string), everything
/// else as `pr-str`.
pub fn print_arg(v: &Value) -> String {
    match v {
        Value::Str(s) => s.to_string(),
        Value::Vector(items) | Value::List(items)
            if !items.is_empty()
                && items
                    .iter()
                    .all(|i| matches!(i, Value::Str(s) if s.chars().count() == 1)) =>
        {
            items.iter().map(str_of).collect()
        }
        other => pr_str(other),
    }
}

pub fn format_float(f: f64) -> String {
    if f.is_nan() {
        return "##NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 {
            "##Inf".into()
        } else {
            "##-Inf".into()
        };
    }
    // Erlang's float_to_binary(F, [compact, {decimals, 10}]).
    let s = format!("{f:.10}");
    let trimmed = s.trim_end_matches('0');
    if trimmed.ends_with('.') {
        format!("{trimmed}0")
    } else {
        trimmed.to_string()
    }
}

fn write_string(s: &str, out: &mut String) {
    out.push('"');
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{b}' => out.push_str("\\v"),
            '\u{c}' => out.push_str("\\f"),
            '\u{1b}' => out.push_str("\\e"),
            '#' if chars.peek() == Some(&'{') => out.push_str("\\#"),
            c => out.push(c),
        }
    }
    out.push('"');
}

fn write_seq<'a>(items: impl Iterator<Item = &'a Value>, out: &mut String) {
    for (i, item) in items.enumerate() {
        if i > 0 {
            out.push(' ');
        }
        write_pr(item, out);
    }
}

fn write_pr(v: &Value, out: &mut String) {
    match v {
        Value::Nil => out.push_str("nil"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) => out.push_str(&i.to_string()),
        Value::Float(f) => out.push_str(&format_float(*f)),
        Value::Str(s) => write_string(s, out),
        Value::Keyword(k) => {
            out.push(':');
            out.push_str(k);
        }
        Value::Symbol(s) => {
            out.push('\'');
            out.push_str(s);
        }
        Value::Vector(items) | Value::List(items) => {
            out.push('[');
            write_seq(items.iter(), out);
            out.push(']');
        }
        Value::Set(items) => {
            // A set prints in the BEAM's map key order: every integer before every float.
            out.push_str("#{");
            let ints = items.iter().filter(|v| !matches!(v, Value::Float(_)));
            let floats = items.iter().filter(|v| matches!(v, Value::Float(_)));
            let (numbers, rest): (Vec<&Value>, Vec<&Value>) =
                ints.partition(|v| matches!(v, Value::Int(_)));
            write_seq(numbers.into_iter().chain(floats).chain(rest), out);
            out.push('}');
        }
        Value::Map(entries) => {
            out.push('{');
            for (i, (k, v)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                // A boolean key is an atom in ptc_runner, and prints as a keyword.
                if let Value::Bool(_) = k {
                    out.push(':');
                }
                write_pr(k, out);
                out.push(' ');
                write_pr(v, out);
            }
            out.push('}');
        }
        Value::Fn(l) => {
            out.push_str("#fn[");
            out.push_str(&l.params_display());
            out.push(']');
        }
        Value::Builtin(_) => out.push_str("#<builtin>"),
        Value::Regex(p) => {
            out.push_str("#\"");
            out.push_str(&p.source);
            out.push('"');
        }
        Value::Var(name) => {
            out.push_str("#'");
            out.push_str(name);
        }
    }
}

/// Longest printed line, in characters, before ptc_runner cuts it.
const PRINT_LIMIT: usize = 2000;

/// A printed line as ptc_runner keeps it: past [`PRINT_LIMIT`] characters, cut and marked.
pub(crate) fn cap_print(line: String) -> String {
    let total = line.chars().count();
    if total <= PRINT_LIMIT {
        return line;
    }
    let kept: String = line.chars().take(PRINT_LIMIT).collect();
    format!("{kept}... ({PRINT_LIMIT}/{total} chars)")
}
