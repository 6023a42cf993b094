//! The core functions.

mod names;
mod numbers;
mod seq;
mod strings;

pub use names::lookup;
use numbers::{arith, compare, compare_values, int, num};

use crate::eval::{err, Interp, R};
use crate::print::{pr_str, print_arg, str_of};
use crate::value::Value;

/// `(get m k default)` without errors: nil for what has no such key.
pub fn get(m: &Value, k: &Value, default: Value) -> Value {
    match (m, k) {
        (Value::Map(_), _) => m.map_get_flex(k).cloned().unwrap_or(default),
        (Value::Vector(v), Value::Int(i)) => usize::try_from(*i)
            .ok()
            .and_then(|i| v.get(i))
            .cloned()
            .unwrap_or(default),
        (Value::Set(s), _) => {
            if s.binary_search(k).is_ok() {
                k.clone()
            } else {
                default
            }
        }
        _ => default,
    }
}

/// The items of anything sequential; maps give `[key value]` pairs, strings their characters.
pub fn seq_items(v: &Value) -> R<Vec<Value>> {
    Ok(match v {
        Value::Nil => vec![],
        Value::Vector(i) | Value::List(i) | Value::Set(i) => i.to_vec(),
        Value::Map(m) => m
            .iter()
            .map(|(k, v)| Value::vector(vec![k.clone(), v.clone()]))
            .collect(),
        Value::Str(s) => s.chars().map(|c| Value::str(&c.to_string())).collect(),
        other => {
            return err(
                "type_error",
                format!("expected a collection, got {}", other.type_name()),
            )
        }
    })
}

fn arity<T>(name: &str) -> R<T> {
    err("arity_error", format!("{name}: wrong number of arguments"))
}

fn seq_or_nil(items: Vec<Value>) -> Value {
    if items.is_empty() {
        Value::Nil
    } else {
        Value::vector(items)
    }
}

fn char_slice(s: &str, start: i64, end: Option<i64>) -> R<Value> {
    let chars: Vec<char> = s.chars().collect();
    // ptc_runner clamps a start or an end past the string to its length.
    let end = end.unwrap_or(chars.len() as i64).min(chars.len() as i64);
    let start = start.min(end.max(0));
    if start < 0 || end < start {
        return err(
            "index_out_of_bounds",
            format!(
                "subs: range {start}..{end} out of bounds for length {}",
                chars.len()
            ),
        );
    }
    Ok(Value::str(
        &chars[start as usize..end as usize]
            .iter()
            .collect::<String>(),
    ))
}

pub fn call(it: &mut Interp, name: &str, args: Vec<Value>) -> R<Value> {
    let a = args.as_slice();
    Ok(match (name, a) {
        ("get", [m, k]) | ("get", [m, k, _]) => {
            let d = a.get(2).cloned().unwrap_or(Value::Nil);
            match m {
                Value::Nil | Value::Map(_) | Value::Vector(_) | Value::Set(_) => get(m, k, d),
                other => {
                    return err(
                        "type_error",
                        format!("get: arg 1 expected associative, got {}", other.type_name()),
                    )
                }
            }
        }
        ("get-in", [m, path]) | ("get-in", [m, path, _]) => {
            let mut cur = m.clone();
            for k in seq_items(path)? {
                cur = get(&cur, &k, Value::Nil);
            }
            if matches!(cur, Value::Nil) {
                a.get(2).cloned().unwrap_or(Value::Nil)
            } else {
                cur
            }
        }
        ("println", _) => {
            let line = a.iter().map(print_arg).collect::<Vec<_>>().join(" ");
            it.alloc(line.len())?;
            let line = crate::print::cap_print(line);
            it.prints.push(line);
            Value::Nil
        }
        ("str", _) => {
            let s: String = a.iter().map(str_of).collect();
            it.alloc(s.len())?;
            Value::str(&s)
        }
        ("pr-str", _) => Value::str(&a.iter().map(pr_str).collect::<Vec<_>>().join(" ")),
        ("=", [_, ..]) => Value::Bool(a.windows(2).all(|w| w[0] == w[1])),
        ("not=", [_, ..]) => Value::Bool(!a.windows(2).all(|w| w[0] == w[1])),
        ("first", [c]) => seq_items(c)?.into_iter().next().unwrap_or(Value::Nil),
        ("second", [c]) => seq_items(c)?.into_iter().nth(1).unwrap_or(Value::Nil),
        ("last", [c]) => seq_items(c)?.pop().unwrap_or(Value::Nil),
        ("rest", [c]) => Value::vector(seq_items(c)?.into_iter().skip(1).collect()),
        ("next", [c]) => seq_or_nil(seq_items(c)?.into_iter().skip(1).collect()),
        ("count", [c]) => Value::Int(match c {
            Value::Str(s) => s.chars().count(),
            Value::Map(m) => m.len(),
            Value::Nil | Value::Vector(_) | Value::List(_) | Value::Set(_) => seq_items(c)?.len(),
            other => {
                return err(
                    "type_error",
                    format!("count: expected collection, got {}", other.type_name()),
                )
            }
        } as i64),
        ("keys" | "vals", [m]) => match m {
            // ptc_runner answers `[]` for an empty map, not nil.
            Value::Map(e) => Value::vector(
                e.iter()
                    .map(|(k, v)| if name == "keys" { k.clone() } else { v.clone() })
                    .collect(),
            ),
            Value::Nil => Value::Nil,
            other => {
                return err(
                    "type_error",
                    format!("{name}: expected map, got {}", other.type_name()),
                )
            }
        },
        ("empty?", [c]) => Value::Bool(match c {
            Value::Str(s) => s.is_empty(),
            Value::Map(m) => m.is_empty(),
            _ => seq_items(c)?.is_empty(),
        }),
        ("not-empty", [c]) => {
            if call(it, "empty?", vec![c.clone()])?.truthy() {
                Value::Nil
            } else {
                c.clone()
            }
        }
        ("concat", _) => {
            let mut out = Vec::new();
            for c in a {
                let items = seq_items(c)?;
                it.alloc(items.len())?;
                out.extend(items);
            }
            Value::vector(out)
        }
        ("distinct", [c]) => {
            let mut out: Vec<Value> = Vec::new();
            for x in seq_items(c)? {
                if !out.contains(&x) {
                    out.push(x);
                }
            }
            Value::vector(out)
        }
        ("subs", [Value::Str(s), start]) => char_slice(s, int(start, "subs")?, None)?,
        ("subs", [Value::Str(s), start, end]) => {
            char_slice(s, int(start, "subs")?, Some(int(end, "subs")?))?
        }
        ("subs", [_, ..]) if a.len() <= 3 => {
            let types: Vec<&str> = a
                .iter()
                .map(|v| {
                    if matches!(v, Value::Int(_) | Value::Float(_)) {
                        "number"
                    } else {
                        v.type_name()
                    }
                })
                .collect();
            return err(
                "type_error",
                format!("subs: invalid argument types: {}", types.join(", ")),
            );
        }
        ("type", [x]) => match x {
            Value::Nil => Value::Nil,
            Value::Bool(_) => Value::kw("boolean"),
            Value::Int(_) | Value::Float(_) => Value::kw("number"),
            Value::Str(_) => Value::kw("string"),
            Value::Vector(_) | Value::List(_) => Value::kw("vector"),
            Value::Map(_) => Value::kw("map"),
            Value::Set(_) => Value::kw("set"),
            Value::Keyword(_) => Value::kw("keyword"),
            Value::Fn(_) | Value::Builtin(_) => Value::kw("function"),
            Value::Symbol(_) | Value::Var(_) => Value::kw("unknown"),
            Value::Regex(_) => Value::kw("regex"),
        },
        ("take-last", [n, c]) => {
            let items = seq_items(c)?;
            let n = usize::try_from(int(n, name)?).unwrap_or(0);
            // As ptc_runner's: none asked, []; some asked of nothing, nil.
            match n.min(items.len()) {
                0 if n > 0 => Value::Nil,
                k => Value::vector(items[items.len() - k..].to_vec()),
            }
        }
        ("compare", [x, y]) => Value::Int(compare_values(x, y)? as i64),
        ("zipmap", [ks, vs]) => {
            Value::map(seq_items(ks)?.into_iter().zip(seq_items(vs)?).collect())
        }
        ("assoc", [m, kvs @ ..]) if kvs.len() % 2 == 0 && !kvs.is_empty() => match m {
            Value::Map(_) | Value::Nil => {
                let mut e = match m {
                    Value::Map(e) => e.to_vec(),
                    _ => vec![],
                };
                e.extend(kvs.chunks(2).map(|p| (p[0].clone(), p[1].clone())));
                it.alloc(e.len())?;
                Value::map(e)
            }
            Value::Vector(v) => {
                let mut v = v.to_vec();
                for p in kvs.chunks(2) {
                    let i = int(&p[0], "assoc")?;
                    match usize::try_from(i) {
                        Ok(i) if i < v.len() => v[i] = p[1].clone(),
                        Ok(i) if i == v.len() => v.push(p[1].clone()),
                        _ => return err("index_out_of_bounds", "assoc: index out of bounds"),
                    }
                }
                Value::vector(v)
            }
            other => {
                return err(
                    "type_error",
                    format!("assoc: expected map, got {}", other.type_name()),
                )
            }
        },
        ("dissoc", [m, ks @ ..]) => match m {
            Value::Map(e) => {
                Value::map(e.iter().filter(|(k, _)| !ks.contains(k)).cloned().collect())
            }
            other => other.clone(),
        },
        ("merge", _) => {
            let mut e = Vec::new();
            for m in a {
                if let Value::Map(m) = m {
                    e.extend(m.iter().cloned());
                }
            }
            it.alloc(e.len())?;
            Value::map(e)
        }
        ("update", [m, k, f, extra @ ..]) => {
            // The key itself, not ptc_runner's flexible access.
            let mut fa = vec![m.map_get(k).cloned().unwrap_or(Value::Nil)];
            fa.extend(extra.iter().cloned());
            let v = it.apply(f, fa)?;
            call(it, "assoc", vec![m.clone(), k.clone(), v])?
        }
        ("seq", [c]) => match c {
            Value::Str(s) if s.is_empty() => Value::Nil,
            _ => seq_or_nil(seq_items(c)?),
        },
        ("range", _) => {
            let (start, end, step) = match a {
                [e] => (0, int(e, "range")?, 1),
                [s, e] => (int(s, "range")?, int(e, "range")?, 1),
                [s, e, st] => (int(s, "range")?, int(e, "range")?, int(st, "range")?),
                _ => return arity("range"),
            };
            if step == 0 {
                return err("argument_error", "range: step must not be zero");
            }
            let n = if (step > 0 && end > start) || (step < 0 && end < start) {
                ((end as i128 - start as i128).abs() + step.abs() as i128 - 1) / step.abs() as i128
            } else {
                0
            };
            it.alloc(usize::try_from(n).unwrap_or(usize::MAX))?;
            Value::vector(
                (0..n as i64)
                    .map(|i| Value::Int(start + i * step))
                    .collect(),
            )
        }
        ("min" | "max", [_, ..]) => {
            // Numbers compare by value; anything else by term order, as ptc_runner's min/max.
            let mut best = a[0].clone();
            for x in &a[1..] {
                let less = match (num(x, name), num(&best, name)) {
                    (Ok(c), Ok(b)) => (c < b, c > b),
                    _ => (x < &best, x > &best),
                };
                if (name == "min" && less.0) || (name == "max" && less.1) {
                    best = x.clone();
                }
            }
            best
        }
        ("apply", [f, mid @ .., last]) => {
            let mut all = mid.to_vec();
            all.extend(seq_items(last)?);
            it.apply(f, all)?
        }
        ("contains?", [m, k]) => Value::Bool(match m {
            Value::Map(_) => m.map_get_flex(k).is_some(),
            Value::Set(s) => s.binary_search(k).is_ok(),
            Value::Vector(v) => matches!(k, Value::Int(i) if *i >= 0 && (*i as usize) < v.len()),
            _ => false,
        }),
        ("select-keys", [m, ks]) => Value::map(
            seq_items(ks)?
                .into_iter()
                .filter_map(|k| m.map_get_flex(&k).map(|v| (k.clone(), v.clone())))
                .collect(),
        ),
        ("nth", [c, i]) | ("nth", [c, i, _]) => {
            let items = seq_items(c)?;
            let i = int(i, "nth")?;
            match usize::try_from(i).ok().and_then(|i| items.get(i)) {
                Some(v) => v.clone(),
                None if a.len() == 3 => a[2].clone(),
                None => {
                    return err(
                        "index_out_of_bounds",
                        format!("nth: index {i} out of bounds for length {}", items.len()),
                    )
                }
            }
        }
        ("drop" | "take", [n, c]) => {
            // A negative count counts from the end, as ptc_runner's Enum.take/drop do.
            let n = int(n, name)?;
            let items = seq_items(c)?;
            let len = items.len();
            let k = usize::try_from(n.unsigned_abs())
                .unwrap_or(usize::MAX)
                .min(len);
            let range = match (name, n < 0) {
                ("take", false) => 0..k,
                ("take", true) => len - k..len,
                (_, false) => k..len,
                (_, true) => 0..len - k,
            };
            Value::vector(items[range].to_vec())
        }
        ("vec", [c]) => Value::vector(seq_items(c)?),
        ("set", [c]) => Value::set(seq_items(c)?),
        ("list" | "vector", _) => Value::vector(a.to_vec()),
        ("hash-map", _) if a.len() % 2 == 0 => {
            Value::map(a.chunks(2).map(|p| (p[0].clone(), p[1].clone())).collect())
        }
        ("nil?", [x]) => Value::Bool(matches!(x, Value::Nil)),
        ("some?", [x]) => Value::Bool(!matches!(x, Value::Nil)),
        ("not", [x]) => Value::Bool(!x.truthy()),
        ("true?", [x]) => Value::Bool(matches!(x, Value::Bool(true))),
        ("false?", [x]) => Value::Bool(matches!(x, Value::Bool(false))),
        ("string?", [x]) => Value::Bool(matches!(x, Value::Str(_))),
        ("map?", [x]) => Value::Bool(matches!(x, Value::Map(_))),
        ("vector?", [x]) => Value::Bool(matches!(x, Value::Vector(_))),
        ("number?", [x]) => Value::Bool(matches!(x, Value::Int(_) | Value::Float(_))),
        ("keyword?", [x]) => Value::Bool(matches!(x, Value::Keyword(_))),
        ("pos?" | "neg?" | "zero?", [x]) => {
            let n = num(x, name)?;
            Value::Bool(match name {
                "pos?" => n > 0.0,
                "neg?" => n < 0.0,
                _ => n == 0.0,
            })
        }
        ("even?" | "odd?", [x]) => Value::Bool(numbers::parity(x) == Some(name == "even?")),
        ("keyword", [Value::Str(s) | Value::Keyword(s)]) => Value::Keyword(s.clone()),
        ("name", [Value::Str(s) | Value::Keyword(s) | Value::Symbol(s)]) => Value::Str(s.clone()),
        ("+" | "-" | "*" | "/", _) => arith(name, a)?,
        ("<" | ">" | "<=" | ">=", [_, ..]) => compare(name, a)?,
        ("inc", [x]) => arith("+", &[x.clone(), Value::Int(1)])?,
        ("dec", [x]) => arith("-", &[x.clone(), Value::Int(1)])?,
        ("abs", [x]) => match x {
            Value::Int(i) => Value::Int(i.checked_abs().ok_or_else(|| {
                crate::eval::Ctrl::from(crate::LispError::new("arithmetic_error", "abs: overflow"))
            })?),
            other => Value::Float(num(other, "abs")?.abs()),
        },
        ("mod" | "quot" | "rem" | "double", _) => numbers::integral(name, a)?,
        ("conj", [c, xs @ ..]) => match c {
            Value::Set(s) => Value::set(s.iter().chain(xs).cloned().collect()),
            Value::Map(m) => {
                let mut e = m.to_vec();
                for x in xs {
                    let kv = seq_items(x)?;
                    if kv.len() != 2 {
                        return err("type_error", "conj: a map takes [key value] pairs");
                    }
                    e.push((kv[0].clone(), kv[1].clone()));
                }
                Value::map(e)
            }
            _ => {
                let mut v = seq_items(c)?;
                v.extend(xs.iter().cloned());
                it.alloc(v.len())?;
                Value::vector(v)
            }
        },
        ("into", [to, from]) => {
            let mut args = vec![to.clone()];
            args.extend(seq_items(from)?);
            if args.len() == 1 {
                to.clone()
            } else {
                call(it, "conj", args)?
            }
        }
        ("identity", [x]) => x.clone(),
        ("doc", _) => it.doc(a)?,
        _ => return seq::higher_order(it, name, a),
    })
}
