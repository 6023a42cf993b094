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

/// `mod`, `quot` and `rem` of two numbers, and `double` of a number, as ptc_runner's: on
/// integers, integers; with a float, `mod` floored and `rem` truncated as floats, `quot` the
/// truncated quotient as an integer; with an infinite or NaN operand, NaN.
pub(super) fn integral(name: &str, args: &[Value]) -> R<Value> {
    let (x, y) = match args {
        [x] if name == "double" => return Ok(Value::Float(num(x, name)?)),
        [x, y] if name != "double" => (x, y),
        _ => return arity(name),
    };
    if let (Value::Int(x), Value::Int(y)) = (x, y) {
        let (x, y) = (*x, *y);
        if y == 0 {
            return err("arithmetic_error", format!("{name}: division by zero"));
        }
        // `rem` keeps the sign of the dividend; `mod` is floored, with the divisor's sign.
        let r = x.wrapping_rem(y);
        return Ok(Value::Int(match name {
            "mod" if r != 0 && (r < 0) != (y < 0) => r + y,
            "mod" | "rem" => r,
            _ => x.checked_div(y).ok_or_else(|| {
                crate::eval::Ctrl::from(crate::LispError::new("arithmetic_error", "quot: overflow"))
            })?,
        }));
    }
    let (x, y) = (num(x, name)?, num(y, name)?);
    if !x.is_finite() || !y.is_finite() {
        return Ok(Value::Float(f64::NAN));
    }
    if y == 0.0 {
        return err("arithmetic_error", format!("{name}: division by zero"));
    }
    Ok(match name {
        "mod" => Value::Float(x - y * (x / y).floor()),
        "rem" => Value::Float(x % y),
        _ => {
            let q = (x / y).trunc();
            if q.abs() >= 9.2e18 {
                return err("arithmetic_error", "quot: overflow");
            }
            Value::Int(q as i64)
        }
    })
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
