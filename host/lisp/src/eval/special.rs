//! Special forms.

use std::rc::Rc;

use super::{err, sym_name, Ctrl, Env, Interp, R};
use crate::builtins;
use crate::value::Value;

impl Interp {
    /// Evaluates `name` as a special form, or returns `None` when it is none.
    pub(super) fn special(&mut self, name: &str, args: &[Value], env: &Env) -> R<Option<Value>> {
        let v = match name {
            "quote" => args.first().cloned().unwrap_or(Value::Nil),
            "__map_literal" => {
                let Some(Value::Vector(kvs)) = args.first() else {
                    return err("syntax_error", "bad map");
                };
                self.alloc(kvs.len())?;
                let mut entries = Vec::with_capacity(kvs.len() / 2);
                for pair in kvs.chunks(2) {
                    let k = self.eval(&pair[0], env)?;
                    if entries.iter().any(|(e, _)| *e == k) {
                        let key = crate::print::pr_str(&k);
                        return err(
                            "duplicate_key",
                            format!("duplicate key {key} in map literal"),
                        );
                    }
                    entries.push((k, self.eval(&pair[1], env)?));
                }
                Value::map(entries)
            }
            "__set_literal" => {
                let Some(Value::Vector(items)) = args.first() else {
                    return err("syntax_error", "bad set");
                };
                self.alloc(items.len())?;
                Value::set(
                    items
                        .iter()
                        .map(|i| self.eval(i, env))
                        .collect::<R<Vec<_>>>()?,
                )
            }
            "do" => self.eval_body(args, env)?,
            "if" | "if-not" => {
                let (Some(c), Some(then)) = (args.first(), args.get(1)) else {
                    return err(
                        "syntax_error",
                        format!("{name} needs a condition and a branch"),
                    );
                };
                let t = self.eval(c, env)?.truthy() ^ (name == "if-not");
                match (t, args.get(2)) {
                    (true, _) => self.eval(then, env)?,
                    (false, Some(e)) => self.eval(e, env)?,
                    (false, None) => Value::Nil,
                }
            }
            "when" | "when-not" => {
                let Some(c) = args.first() else {
                    return err("syntax_error", "when needs a condition");
                };
                if self.eval(c, env)?.truthy() ^ (name == "when-not") {
                    self.eval_body(&args[1..], env)?
                } else {
                    Value::Nil
                }
            }
            "cond" => {
                let mut out = Value::Nil;
                for pair in args.chunks(2) {
                    let test = &pair[0];
                    let hit = matches!(test, Value::Keyword(_)) || self.eval(test, env)?.truthy();
                    if hit {
                        out = match pair.get(1) {
                            Some(e) => self.eval(e, env)?,
                            None => {
                                return err("syntax_error", "cond needs an even number of forms")
                            }
                        };
                        break;
                    }
                }
                out
            }
            "and" => {
                let mut last = Value::Bool(true);
                for a in args {
                    last = self.eval(a, env)?;
                    if !last.truthy() {
                        break;
                    }
                }
                last
            }
            "or" => {
                let mut last = Value::Nil;
                for a in args {
                    last = self.eval(a, env)?;
                    if last.truthy() {
                        break;
                    }
                }
                last
            }
            "let" => {
                let Some(Value::Vector(bs)) = args.first() else {
                    return err("syntax_error", "let needs a binding vector");
                };
                if bs.len() % 2 != 0 {
                    return err("syntax_error", "let needs an even number of binding forms");
                }
                let mut e = env.clone();
                for pair in bs.chunks(2) {
                    let v = self.eval(&pair[1], &e)?;
                    e = self.destructure(&pair[0], v, e)?;
                }
                self.eval_body(&args[1..], &e)?
            }
            "fn" => {
                let (fname, rest) = match args.first() {
                    Some(Value::Symbol(s)) => (Some(s.clone()), &args[1..]),
                    _ => (None, args),
                };
                let Some(params) = rest.first() else {
                    return err("syntax_error", "fn needs parameters");
                };
                self.make_fn(fname, params, &rest[1..], env)?
            }
            "def" => {
                let Some(n) = args.first().and_then(sym_name).cloned() else {
                    return err("syntax_error", "def needs a name");
                };
                let v = match args.get(1) {
                    Some(e) => self.eval(e, env)?,
                    None => Value::Nil,
                };
                self.record_doc(&n, true, None, None, None, &args[1..]);
                self.define(&n, v)
            }
            "defn" | "defn-" => {
                let Some(n) = args.first().and_then(sym_name).cloned() else {
                    return err("syntax_error", format!("{name} needs a name"));
                };
                // An optional docstring and attribute map, kept for `doc`.
                let mut rest = &args[1..];
                let (mut doc, mut attrs) = (None, None);
                loop {
                    match rest.first() {
                        Some(d @ Value::Str(_)) => doc = Some(d),
                        Some(a @ Value::List(l)) if matches!(l.first(), Some(Value::Symbol(s)) if &**s == "__map_literal") => {
                            attrs = Some(a)
                        }
                        _ => break,
                    }
                    rest = &rest[1..];
                }
                let Some(params) = rest.first() else {
                    return err("syntax_error", "defn needs parameters");
                };
                self.record_doc(&n, name == "defn", doc, attrs, Some(params), &rest[1..]);
                let f = self.make_fn(Some(n.clone()), params, &rest[1..], env)?;
                self.define(&n, f)
            }
            "ns" => {
                let Some(n) = args.first().and_then(sym_name).cloned() else {
                    return err("syntax_error", "ns needs a name");
                };
                self.namespaces.entry(n.to_string()).or_default();
                self.ns = n;
                Value::Nil
            }
            "loop" => {
                let Some(Value::Vector(bs)) = args.first() else {
                    return err("syntax_error", "loop needs a binding vector");
                };
                if bs.len() % 2 != 0 {
                    return err("syntax_error", "loop needs an even number of binding forms");
                }
                let mut vals = Vec::new();
                let mut e = env.clone();
                for pair in bs.chunks(2) {
                    let v = self.eval(&pair[1], &e)?;
                    e = self.destructure(&pair[0], v.clone(), e)?;
                    vals.push(v);
                }
                loop {
                    match self.eval_body(&args[1..], &e) {
                        Err(Ctrl::Recur(new)) => {
                            if new.len() != vals.len() {
                                return err(
                                    "arity_error",
                                    "recur must give a value per loop binding",
                                );
                            }
                            self.tick(1)?;
                            e = env.clone();
                            for (pair, v) in bs.chunks(2).zip(new) {
                                e = self.destructure(&pair[0], v, e)?;
                            }
                        }
                        other => break other?,
                    }
                }
            }
            "recur" => {
                let vals = args
                    .iter()
                    .map(|a| self.eval(a, env))
                    .collect::<R<Vec<_>>>()?;
                return Err(Ctrl::Recur(vals));
            }
            "doseq" => {
                let Some(Value::Vector(bs)) = args.first() else {
                    return err("syntax_error", "doseq needs bindings");
                };
                self.doseq(bs, 0, &args[1..], env)?;
                Value::Nil
            }
            "->" | "->>" => {
                let Some(first) = args.first() else {
                    return err("syntax_error", "-> needs a form");
                };
                let mut acc = first.clone();
                for step in &args[1..] {
                    let mut items = match step {
                        Value::List(l) => l.to_vec(),
                        other => vec![other.clone()],
                    };
                    if name == "->" {
                        items.insert(1, acc);
                    } else {
                        items.push(acc);
                    }
                    acc = Value::List(Rc::new(items));
                }
                self.eval(&acc, env)?
            }
            "return" | "fail" => {
                let v = match args.first() {
                    Some(e) => self.eval(e, env)?,
                    None => Value::Nil,
                };
                return Err(if name == "return" {
                    Ctrl::Return(v)
                } else {
                    Ctrl::Fail(v)
                });
            }
            _ => return Ok(None),
        };
        Ok(Some(v))
    }

    fn doseq(&mut self, bs: &[Value], i: usize, body: &[Value], env: &Env) -> R<()> {
        if i >= bs.len() {
            self.eval_body(body, env)?;
            return Ok(());
        }
        let coll = self.eval(&bs[i + 1], env)?;
        for item in builtins::seq_items(&coll)? {
            let e = self.destructure(&bs[i], item, env.clone())?;
            self.doseq(bs, i + 2, body, &e)?;
        }
        Ok(())
    }
}
