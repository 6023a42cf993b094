//! Functions made by a program: closures (`fn`, `defn`, `#(...)`) and the functions `partial`
//! and `fnil` return.

use std::rc::Rc;

use super::{err, Env, Interp, R};
use crate::value::Value;

/// A closure: its parameters, body, captured locals and the namespace it was defined in; or a
/// function wrapping another (`native`).
pub struct Lambda {
    pub(crate) params: Vec<Value>,
    pub(crate) rest: Option<Value>,
    pub(crate) body: Vec<Value>,
    pub(crate) env: Env,
    pub(crate) ns: Rc<str>,
    pub(crate) name: Option<Rc<str>>,
    pub(crate) native: Option<Native>,
}

/// A function made of another, as ptc_runner's `partial` and `fnil` make them.
pub(crate) enum Native {
    /// `(partial f a b)`: calls `f` with `a b` before its own arguments.
    Partial(Value, Vec<Value>),
    /// `(fnil f x)`: calls `f` with its first argument replaced by `x` when it is nil.
    Fnil(Value, Value),
}

impl Lambda {
    pub(crate) fn native(native: Native) -> Value {
        Value::Fn(Rc::new(Lambda {
            params: vec![],
            rest: None,
            body: vec![],
            env: Env::default(),
            ns: Rc::from("user"),
            name: None,
            native: Some(native),
        }))
    }

    /// The parameter names, `&` before a rest parameter; `None` when one is a destructuring
    /// pattern rather than a name, or for a function made by `partial` or `fnil`.
    pub fn param_names(&self) -> Option<Vec<String>> {
        if self.native.is_some() {
            return None;
        }
        let name = |v: &Value| match v {
            Value::Symbol(s) => Some(s.to_string()),
            _ => None,
        };
        let mut names = self.params.iter().map(name).collect::<Option<Vec<_>>>()?;
        if let Some(r) = &self.rest {
            names.push("&".into());
            names.push(name(r)?);
        }
        Some(names)
    }

    /// The parameters as `#fn[...]` shows them (`...` for a function made by `partial` or
    /// `fnil`, as ptc_runner prints it).
    pub fn params_display(&self) -> String {
        if self.native.is_some() {
            return "...".into();
        }
        let mut names: Vec<String> = self.params.iter().map(crate::print::pr_str).collect();
        if let Some(r) = &self.rest {
            names.push("&".into());
            names.push(crate::print::pr_str(r));
        }
        names.join(" ").replace('\'', "")
    }
}

impl Interp {
    pub(super) fn apply_native(&mut self, l: &Lambda, mut args: Vec<Value>) -> R<Value> {
        match l.native.as_ref() {
            Some(Native::Partial(f, fixed)) => {
                self.alloc(fixed.len())?;
                let mut all = fixed.clone();
                all.append(&mut args);
                self.apply(f, all)
            }
            Some(Native::Fnil(f, default)) => {
                if matches!(args.first(), Some(Value::Nil)) {
                    args[0] = default.clone();
                }
                self.apply(f, args)
            }
            None => err("type_error", "not a function made of another"),
        }
    }

    pub(super) fn make_fn(
        &mut self,
        name: Option<Rc<str>>,
        params: &Value,
        body: &[Value],
        env: &Env,
    ) -> R<Value> {
        let Value::Vector(ps) = params else {
            return err("syntax_error", "fn needs a parameter vector");
        };
        let mut params = Vec::new();
        let mut rest = None;
        let mut it = ps.iter();
        while let Some(p) = it.next() {
            if matches!(p, Value::Symbol(s) if &**s == "&") {
                rest = it.next().cloned();
                break;
            }
            params.push(p.clone());
        }
        Ok(Value::Fn(Rc::new(Lambda {
            params,
            rest,
            body: body.to_vec(),
            env: env.clone(),
            ns: self.ns.clone(),
            name,
            native: None,
        })))
    }
}
