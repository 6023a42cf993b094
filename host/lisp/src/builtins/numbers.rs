//! Numbers: arithmetic, comparison, and the natural order of `compare`.

use super::arity;
use crate::eval::{err, R};
use crate::value::Value;

pub(super) fn num(v: &Value, name: &str) -> R<f64> {
    match v {
        Value::Int(i) => Ok(*i as f64),
        Value::Float(f) => Ok(*f),
        other => err(
            "type_error",
            format!("{name}: expected number, got {}", other.type_name()),
        ),
    }
}

pub(super) fn int(v: &Value, name: &str) -> R<i64> {
    match v {
        Value::Int(i) => Ok(*i),
        other => err(
            "type_error",
            format!("{name}: expected integer, got {}", other.type_name()),
        ),
    }
}

/// Clojure-like natural comparison: nil first, natural order within compatible types, an
/// error for values that do not compare.
pub(super) fn compare_values(x: &Value, y: &Value) -> R<i32> {
    use std::cmp::Ordering::*;
    let o = match (x, y) {
        (Value::Nil, Value::Nil) => Equal,
        (Value::Nil, _) => Less,
        (_, Value::Nil) => Greater,
        (Value::Int(_) | Value::Float(_), Value::Int(_) | Value::Float(_))
        | (Value::Str(_), Value::Str(_))
        | (Value::Keyword(_), Value::Keyword(_))
        | (Value::Bool(_), Value::Bool(_))
        | (Value::Vector(_), Value::Vector(_)) => x.cmp(y),
        _ => {
            return err(
                "type_error",
                format!(
                    "compare: cannot compare {} and {}",
                    x.type_name(),
                    y.type_name()
                ),
            )
        }
    };
    Ok(o as i32)
}

pub(super) fn arith(name: &str, args: &[Value]) -> R<Value> {
    let ident = if matches!(name, "*" | "/") { 1 } else { 0 };
    let (mut acc, rest) = match (name, args) {
        ("-" | "/", [only]) => (Value::Int(ident), std::slice::from_ref(only)),
        (_, [first, rest @ ..]) => (first.clone(), rest),
        ("+" | "*", []) => return Ok(Value::Int(ident)),
        _ => return arity(name),
    };
    num(&acc, name)?;
    for b in rest {
        acc = match (&acc, b) {
            (Value::Int(x), Value::Int(y)) if name != "/" => {
                let r = match name {
                    "+" => x.checked_add(*y),
                    "-" => x.checked_sub(*y),
                    _ => x.checked_mul(*y),
                };
                match r {
                    Some(r) => Value::Int(r),
                    None => return err("arithmetic_error", format!("{name}: integer overflow")),
                }
            }
            // ptc_runner's `/` always yields a float, even when the division is exact.
            (Value::Int(_), Value::Int(0)) => {
                return err("arithmetic_error", "/: division by zero")
            }
            _ => {
                let (x, y) = (num(&acc, name)?, num(b, name)?);
                Value::Float(match name {
                    "+" => x + y,
                    "-" => x - y,
                    "*" => x * y,
                    _ => x / y,
                })
            }
        };
    }
    Ok(acc)
}

pub(super) fn compare(name: &str, args: &[Value]) -> R<Value> {
    for w in args.windows(2) {
        let (a, b) = (num(&w[0], name)?, num(&w[1], name)?);
        let ok = match name {
            "<" => a < b,
            ">" => a > b,
            "<=" => a <= b,
            _ => a >= b,
        };
        if !ok {
            return Ok(Value::Bool(false));
        }
    }
    Ok(Value::Bool(true))
}

/// `mod`, `quot` and `rem` of two integers, and `double` of a number.
pub(super) fn integral(name: &str, args: &[Value]) -> R<Value> {
    let (x, y) = match args {
        [x] if name == "double" => return Ok(Value::Float(num(x, name)?)),
        [x, y] if name != "double" => (int(x, name)?, int(y, name)?),
        _ => return arity(name),
    };
    if y == 0 {
        return err("arithmetic_error", format!("{name}: division by zero"));
    }
    Ok(Value::Int(match name {
        "mod" => x.rem_euclid(y),
        // `rem` keeps the sign of the dividend (Clojure's, and ptc_runner's).
        "rem" => x % y,
        _ => x / y,
    }))
}

/// Whether a number is even: `None` for what is not a whole number (ptc_runner's `even?` and
/// `odd?` both answer false there, a fractional float or a string alike).
pub(super) fn parity(v: &Value) -> Option<bool> {
    match v {
        Value::Int(i) => Some(i % 2 == 0),
        Value::Float(f) if f.is_finite() && *f == f.trunc() => Some(*f % 2.0 == 0.0),
        _ => None,
    }
}
