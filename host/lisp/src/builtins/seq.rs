//! The core functions that take a function: they call back into the interpreter.

use super::{compare_values, seq_items};
use crate::eval::{Interp, Lambda, Native, R};
use crate::value::Value;

pub(super) fn higher_order(it: &mut Interp, name: &str, a: &[Value]) -> R<Value> {
    Ok(match (name, a) {
        ("map" | "mapv", [f, colls @ ..]) if !colls.is_empty() => {
            let lists = colls.iter().map(seq_items).collect::<R<Vec<_>>>()?;
            let n = lists.iter().map(Vec::len).min().unwrap_or(0);
            it.alloc(n)?;
            let mut out = Vec::with_capacity(n);
            for i in 0..n {
                out.push(it.apply(f, lists.iter().map(|l| l[i].clone()).collect())?);
            }
            Value::vector(out)
        }
        ("filter" | "filterv" | "remove", [f, c]) => {
            let keep_truthy = name != "remove";
            let mut out = Vec::new();
            for x in seq_items(c)? {
                if it.apply(f, vec![x.clone()])?.truthy() == keep_truthy {
                    out.push(x);
                }
            }
            Value::vector(out)
        }
        ("keep", [f, c]) => {
            let mut out = Vec::new();
            for x in seq_items(c)? {
                let v = it.apply(f, vec![x])?;
                if !matches!(v, Value::Nil) {
                    out.push(v);
                }
            }
            Value::vector(out)
        }
        ("mapcat", [f, c]) => {
            let mut out = Vec::new();
            for x in seq_items(c)? {
                let items = seq_items(&it.apply(f, vec![x])?)?;
                it.alloc(items.len())?;
                out.extend(items);
            }
            Value::vector(out)
        }
        ("sort-by", [f, c]) | ("sort-by", [f, _, c]) => {
            let mut keyed = Vec::new();
            for x in seq_items(c)? {
                keyed.push((it.apply(f, vec![x.clone()])?, x));
            }
            it.tick(keyed.len() as u64)?;
            let cmp = if a.len() == 3 {
                Some(a[1].clone())
            } else {
                None
            };
            // A stable insertion sort, so that a comparator the program gives can fail cleanly.
            let mut sorted: Vec<(Value, Value)> = Vec::with_capacity(keyed.len());
            for item in keyed {
                let mut pos = sorted.len();
                while pos > 0 {
                    it.tick(1)?;
                    let before = match &cmp {
                        None => compare_values(&item.0, &sorted[pos - 1].0)? < 0,
                        Some(c) => {
                            let r = it.apply(c, vec![item.0.clone(), sorted[pos - 1].0.clone()])?;
                            match r {
                                Value::Int(n) => n < 0,
                                Value::Float(n) => n < 0.0,
                                other => other.truthy(),
                            }
                        }
                    };
                    if !before {
                        break;
                    }
                    pos -= 1;
                }
                sorted.insert(pos, item);
            }
            Value::vector(sorted.into_iter().map(|(_, x)| x).collect())
        }
        ("sort", [c]) => {
            let mut items = seq_items(c)?;
            items.sort();
            Value::vector(items)
        }
        ("some", [f, c]) => {
            let mut out = Value::Nil;
            for x in seq_items(c)? {
                let v = it.apply(f, vec![x])?;
                if v.truthy() {
                    out = v;
                    break;
                }
            }
            out
        }
        ("every?", [f, c]) => {
            let mut out = true;
            for x in seq_items(c)? {
                if !it.apply(f, vec![x])?.truthy() {
                    out = false;
                    break;
                }
            }
            Value::Bool(out)
        }
        ("reverse", [c]) => Value::vector(seq_items(c)?.into_iter().rev().collect()),
        ("frequencies", [c]) => {
            let mut e: Vec<(Value, Value)> = Vec::new();
            for x in seq_items(c)? {
                match e.iter_mut().find(|(k, _)| *k == x) {
                    Some((_, Value::Int(n))) => *n += 1,
                    _ => e.push((x, Value::Int(1))),
                }
            }
            Value::map(e)
        }
        ("group-by", [f, c]) => {
            let mut e: Vec<(Value, Vec<Value>)> = Vec::new();
            for x in seq_items(c)? {
                let k = it.apply(f, vec![x.clone()])?;
                match e.iter_mut().find(|(g, _)| *g == k) {
                    Some((_, items)) => items.push(x),
                    None => e.push((k, vec![x])),
                }
            }
            Value::map(e.into_iter().map(|(k, v)| (k, Value::vector(v))).collect())
        }
        ("reduce", [f, c]) | ("reduce", [f, _, c]) => {
            let mut items = seq_items(c)?.into_iter();
            let mut acc = match a.len() {
                3 => a[1].clone(),
                _ => match items.next() {
                    Some(x) => x,
                    None => return it.apply(f, vec![]),
                },
            };
            for x in items {
                acc = it.apply(f, vec![acc, x])?;
            }
            acc
        }
        ("interpose", [sep, c]) => {
            let mut out = Vec::new();
            for (i, x) in seq_items(c)?.into_iter().enumerate() {
                if i > 0 {
                    out.push(sep.clone());
                }
                out.push(x);
            }
            Value::vector(out)
        }
        ("partial", [f, fixed @ ..]) => Lambda::native(Native::Partial(f.clone(), fixed.to_vec())),
        ("fnil", [f @ (Value::Fn(_) | Value::Builtin(_)), default]) => {
            Lambda::native(Native::Fnil(f.clone(), default.clone()))
        }
        _ => return super::strings::strings(it, name, a),
    })
}
