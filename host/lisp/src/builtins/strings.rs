//! The string functions (`clojure.string/...`, `join`, `.contains`).

use std::rc::Rc;

use super::{arity, seq_items};
use crate::eval::{err, Interp, R};
use crate::print::str_of;
use crate::value::Value;

fn string_arg<'a>(v: &'a Value, name: &str) -> R<&'a str> {
    match v {
        Value::Str(s) => Ok(s),
        other => err(
            "type_error",
            format!("{name}: expected string, got {}", other.type_name()),
        ),
    }
}

pub(super) fn strings(it: &mut Interp, name: &str, a: &[Value]) -> R<Value> {
    let short = name.trim_start_matches("clojure.string/");
    Ok(match (short, a) {
        ("join", [Value::Nil]) | ("join", [_, Value::Nil]) => {
            return err("type_error", "join: invalid argument types: nil")
        }
        ("join", [c]) | ("join", [_, c]) => {
            let sep = if a.len() == 2 {
                str_of(&a[0])
            } else {
                String::new()
            };
            let s = seq_items(c)?
                .iter()
                .map(str_of)
                .collect::<Vec<_>>()
                .join(&sep);
            it.alloc(s.len())?;
            Value::str(&s)
        }
        ("split", [s, Value::Regex(p)]) => {
            let s = string_arg(s, name)?;
            it.tick(s.len() as u64 / 16 + 1)?;
            it.alloc(s.len())?;
            Value::vector(p.split(s))
        }
        ("split", [s, sep]) => {
            let s = string_arg(s, name)?;
            // ptc_runner splits on one character (or a pattern), keeping trailing empty
            // parts, and refuses a longer plain string; the empty string splits into characters.
            let sep = string_arg(sep, name)?;
            if sep.chars().count() > 1 {
                return err(
                    "type_error",
                    format!("split: delimiter must be a regex pattern, got plain string {sep:?}"),
                );
            }
            it.alloc(s.len())?;
            if sep.is_empty() {
                return Ok(Value::vector(
                    s.chars()
                        .map(|c| Value::str(c.encode_utf8(&mut [0; 4])))
                        .collect(),
                ));
            }
            Value::vector(s.split(sep).map(Value::str).collect())
        }
        ("includes?" | ".contains", [s, sub]) => {
            Value::Bool(string_arg(s, name)?.contains(string_arg(sub, name)?))
        }
        ("starts-with?", [s, p]) => {
            Value::Bool(string_arg(s, name)?.starts_with(string_arg(p, name)?))
        }
        ("ends-with?", [s, p]) => Value::Bool(string_arg(s, name)?.ends_with(string_arg(p, name)?)),
        ("lower-case", [s]) => Value::str(&string_arg(s, name)?.to_lowercase()),
        ("upper-case", [s]) => Value::str(&string_arg(s, name)?.to_uppercase()),
        ("trim", [s]) => Value::str(string_arg(s, name)?.trim()),
        ("blank?", [s]) => {
            Value::Bool(matches!(s, Value::Nil) || string_arg(s, name)?.trim().is_empty())
        }
        ("replace", [s, Value::Regex(p), to]) => {
            let s = string_arg(s, name)?;
            it.tick(s.len() as u64 / 16 + 1)?;
            let out = p.replace(s, string_arg(to, name)?);
            it.alloc(out.len())?;
            Value::Str(Rc::from(out))
        }
        ("replace", [s, from, to]) => {
            let out = string_arg(s, name)?.replace(string_arg(from, name)?, string_arg(to, name)?);
            it.alloc(out.len())?;
            Value::Str(Rc::from(out))
        }
        _ => return regexes(it, name, a),
    })
}

/// `re-pattern`, `re-find`, `re-matches`, `re-seq`, `re-split`, `regex?`.
fn regexes(it: &mut Interp, name: &str, a: &[Value]) -> R<Value> {
    let (p, s) = match (name, a) {
        ("regex?", [x]) => return Ok(Value::Bool(matches!(x, Value::Regex(_)))),
        ("re-pattern", [s]) => {
            let p = crate::pattern::Pattern::new(string_arg(s, name)?, "argument_error")?;
            return Ok(Value::Regex(Rc::new(p)));
        }
        ("re-find" | "re-matches" | "re-seq" | "re-split", [Value::Regex(p), s]) => {
            (p, string_arg(s, name)?)
        }
        ("re-find" | "re-matches" | "re-seq" | "re-split", [p, _]) => {
            return err(
                "type_error",
                format!("{name}: expected a regex, got {}", p.type_name()),
            )
        }
        _ => return arity(name),
    };
    it.tick(s.len() as u64 / 16 + 1)?;
    it.alloc(s.len())?;
    Ok(match name {
        "re-find" => p.find(s),
        "re-matches" => p.matches(s),
        "re-seq" => Value::vector(p.seq(s)),
        _ => Value::vector(p.split(s)),
    })
}
