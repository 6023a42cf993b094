//! Binding values to names: parameters and destructuring patterns.

use std::rc::Rc;

use super::{err, Env, Interp, Lambda, R};
use crate::builtins;
use crate::value::Value;

impl Interp {
    pub(super) fn bind_params(&mut self, l: &Rc<Lambda>, args: Vec<Value>) -> R<Env> {
        let mut env = l.env.clone();
        if let Some(name) = &l.name {
            env = env.bind(name.clone(), Value::Fn(l.clone()));
        }
        let n = l.params.len();
        if args.len() < n || (l.rest.is_none() && args.len() > n) {
            let name = l.name.as_deref().unwrap_or("fn");
            return err(
                "arity_error",
                format!("{name} expects {n} arguments, got {}", args.len()),
            );
        }
        let mut args = args;
        let rest = args.split_off(n);
        for (p, a) in l.params.iter().zip(args) {
            env = self.destructure(p, a, env)?;
        }
        if let Some(r) = &l.rest {
            let rest = if rest.is_empty() {
                Value::Nil
            } else {
                Value::vector(rest)
            };
            env = self.destructure(r, rest, env)?;
        }
        Ok(env)
    }

    pub(super) fn destructure(&mut self, pattern: &Value, v: Value, env: Env) -> R<Env> {
        match pattern {
            Value::Symbol(s) if &**s == "_" => Ok(env),
            Value::Symbol(s) => Ok(env.bind(s.clone(), v)),
            Value::Vector(pats) => {
                let items = builtins::seq_items(&v)?;
                let mut env = env;
                let mut i = 0;
                while i < pats.len() {
                    if matches!(&pats[i], Value::Symbol(s) if &**s == "&") {
                        let rest: Vec<Value> = items.iter().skip(i).cloned().collect();
                        let rest = if rest.is_empty() {
                            Value::Nil
                        } else {
                            Value::vector(rest)
                        };
                        return match pats.get(i + 1) {
                            Some(p) => self.destructure(p, rest, env),
                            None => err("syntax_error", "& must be followed by a binding"),
                        };
                    }
                    let item = items.get(i).cloned().unwrap_or(Value::Nil);
                    env = self.destructure(&pats[i], item, env)?;
                    i += 1;
                }
                Ok(env)
            }
            Value::List(l) if matches!(l.first(), Some(Value::Symbol(s)) if &**s == "__map_literal") =>
            {
                let Some(Value::Vector(kvs)) = l.get(1) else {
                    return err("syntax_error", "bad map pattern");
                };
                let mut env = env;
                for pair in kvs.chunks(2) {
                    match (&pair[0], &pair[1]) {
                        (Value::Keyword(k), Value::Vector(names))
                            if &**k == "keys" || &**k == "strs" =>
                        {
                            for n in names.iter() {
                                let Value::Symbol(s) = n else {
                                    return err("syntax_error", "bad :keys");
                                };
                                let key = if &**k == "keys" {
                                    Value::kw(s)
                                } else {
                                    Value::str(s)
                                };
                                env = env.bind(s.clone(), builtins::get(&v, &key, Value::Nil));
                            }
                        }
                        (Value::Keyword(k), Value::Symbol(s)) if &**k == "as" => {
                            env = env.bind(s.clone(), v.clone())
                        }
                        (p, key) => {
                            let key = self.eval(key, &Env::default())?;
                            env = self.destructure(p, builtins::get(&v, &key, Value::Nil), env)?;
                        }
                    }
                }
                Ok(env)
            }
            _ => err("syntax_error", "unsupported binding form"),
        }
    }
}
