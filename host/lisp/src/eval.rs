//! The evaluator: special forms, closures, namespaces, and the budget every turn runs on.

use std::collections::BTreeMap;
use std::rc::Rc;

use crate::builtins;
use crate::value::{LispError, Value};
pub use lambda::Lambda;
pub(crate) use lambda::Native;

/// Deepest evaluation nesting a program may reach before it is refused.
const MAX_DEPTH: usize = 180;

/// The limits one evaluation runs within: steps evaluated, and elements allocated (collection
/// items and string characters built by the program).
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    pub fuel: u64,
    pub elements: u64,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            fuel: 2_000_000,
            elements: 5_000_000,
        }
    }
}

/// What answers a program's capability calls (`(tool/name args)`).
pub trait Capabilities {
    fn call(&mut self, name: &str, args: serde_json::Value) -> Result<Value, LispError>;
}

/// How an evaluation ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    Value(Value),
    Return(Value),
    Fail(Value),
    Error(LispError),
}

/// What one program did: its outcome and the lines it printed.
#[derive(Clone, Debug)]
pub struct TurnResult {
    pub outcome: Outcome,
    pub prints: Vec<String>,
}

/// Control leaving an evaluation early.
pub(crate) enum Ctrl {
    Err(LispError),
    Return(Value),
    Fail(Value),
    /// `recur`'s new bindings, on their way to the enclosing `loop` or function.
    Recur(Vec<Value>),
}

impl From<LispError> for Ctrl {
    fn from(e: LispError) -> Ctrl {
        Ctrl::Err(e)
    }
}

pub(crate) type R<T> = Result<T, Ctrl>;

pub(crate) fn err<T>(kind: &str, msg: impl Into<String>) -> R<T> {
    Err(Ctrl::Err(LispError::new(kind, msg)))
}

/// Local bindings: a persistent linked list.
#[derive(Clone, Default)]
pub struct Env(Option<Rc<(Rc<str>, Value, Env)>>);

impl Env {
    fn bind(&self, name: Rc<str>, v: Value) -> Env {
        Env(Some(Rc::new((name, v, self.clone()))))
    }
    fn lookup(&self, name: &str) -> Option<&Value> {
        let mut cur = &self.0;
        while let Some(node) = cur {
            if &*node.0 == name {
                return Some(&node.1);
            }
            cur = &node.2 .0;
        }
        None
    }
}

/// An interpreter: namespaces and their definitions, kept across programs (a run's memory).
pub struct Interp {
    namespaces: BTreeMap<String, BTreeMap<String, Value>>,
    ns: Rc<str>,
    fuel: u64,
    elements: u64,
    depth: usize,
    /// The values of the last three successful programs, newest first (`*1`, `*2`, `*3`).
    history: Vec<Value>,
    pub(crate) prints: Vec<String>,
    pub(crate) caps: Option<Box<dyn Capabilities>>,
    /// Set while a prelude loads: its definitions are documented (`doc`).
    loading_prelude: bool,
    docs: BTreeMap<String, doc::DocEntry>,
}

impl Default for Interp {
    fn default() -> Self {
        Interp::new()
    }
}

fn sym_name(v: &Value) -> Option<&Rc<str>> {
    match v {
        Value::Symbol(s) => Some(s),
        _ => None,
    }
}

impl Interp {
    pub fn new() -> Interp {
        Interp {
            namespaces: BTreeMap::new(),
            ns: Rc::from("user"),
            fuel: 0,
            elements: 0,
            depth: 0,
            history: Vec::new(),
            prints: Vec::new(),
            caps: None,
            loading_prelude: false,
            docs: BTreeMap::new(),
        }
    }

    /// Evaluates a program (every top-level form, in order) in namespace `user`, or in the
    /// namespace its `ns` form names, within `budget`, answering capability calls with `caps`.
    pub fn run(&mut self, source: &str, budget: Budget, caps: Box<dyn Capabilities>) -> TurnResult {
        self.fuel = budget.fuel;
        self.elements = budget.elements;
        self.depth = 0;
        self.prints.clear();
        self.caps = Some(caps);
        self.ns = Rc::from("user");
        let outcome = match crate::reader::read_program(source) {
            Err(e) => Outcome::Error(e),
            Ok(forms) => {
                let mut last = Value::Nil;
                let mut outcome = None;
                for form in &forms {
                    match self.eval(form, &Env::default()) {
                        Ok(v) => last = v,
                        Err(Ctrl::Err(e)) => {
                            outcome = Some(Outcome::Error(e));
                            break;
                        }
                        Err(Ctrl::Return(v)) => {
                            outcome = Some(Outcome::Return(v));
                            break;
                        }
                        Err(Ctrl::Fail(v)) => {
                            outcome = Some(Outcome::Fail(v));
                            break;
                        }
                        Err(Ctrl::Recur(_)) => {
                            let e = LispError::new("syntax_error", "recur outside loop or fn");
                            outcome = Some(Outcome::Error(e));
                            break;
                        }
                    }
                }
                outcome.unwrap_or(Outcome::Value(last))
            }
        };
        self.caps = None;
        if let Outcome::Value(v) = &outcome {
            self.history.insert(0, v.clone());
            self.history.truncate(3);
        }
        TurnResult {
            outcome,
            prints: std::mem::take(&mut self.prints),
        }
    }

    /// Evaluates a prelude as `run` does, leaving `*1`, `*2`, `*3` as they were: a prelude's
    /// value is no program's, so the first program of a run sees `*1` as nil.
    pub fn run_prelude(
        &mut self,
        source: &str,
        budget: Budget,
        caps: Box<dyn Capabilities>,
    ) -> TurnResult {
        let history = self.history.clone();
        self.loading_prelude = true;
        let result = self.run(source, budget, caps);
        self.loading_prelude = false;
        self.history = history;
        result
    }

    /// The definitions of namespace `user` (a run's memory), by name.
    pub fn memory(&self) -> BTreeMap<String, Value> {
        self.namespaces.get("user").cloned().unwrap_or_default()
    }

    /// Puts back the definitions of namespace `user` as `memory` holds them.
    pub fn restore_memory(&mut self, memory: BTreeMap<String, Value>) {
        self.namespaces.insert("user".to_string(), memory);
    }

    pub(crate) fn tick(&mut self, n: u64) -> R<()> {
        if self.fuel < n {
            return err("step_limit", "the program exceeded its step budget");
        }
        self.fuel -= n;
        Ok(())
    }

    pub(crate) fn alloc(&mut self, n: usize) -> R<()> {
        if self.elements < n as u64 {
            return err("memory_limit", "the program exceeded its memory budget");
        }
        self.elements -= n as u64;
        Ok(())
    }

    fn resolve(&self, name: &str, env: &Env) -> R<Value> {
        if let Some(v) = env.lookup(name) {
            return Ok(v.clone());
        }
        if let Some(n) = ["*1", "*2", "*3"].iter().position(|h| *h == name) {
            return Ok(self.history.get(n).cloned().unwrap_or(Value::Nil));
        }
        if let Some((ns, local)) = name
            .split_once('/')
            .filter(|(ns, l)| !ns.is_empty() && !l.is_empty())
        {
            if let Some(v) = self.namespaces.get(ns).and_then(|d| d.get(local)) {
                return Ok(v.clone());
            }
            if let Some(b) = builtins::lookup(name) {
                return Ok(Value::Builtin(b));
            }
            return err("unbound_var", format!("{name} is not defined"));
        }
        if let Some(v) = self.namespaces.get(&*self.ns).and_then(|d| d.get(name)) {
            return Ok(v.clone());
        }
        if let Some(b) = builtins::lookup(name) {
            return Ok(Value::Builtin(b));
        }
        err("unbound_var", format!("{name} is not defined"))
    }

    pub(crate) fn eval(&mut self, form: &Value, env: &Env) -> R<Value> {
        self.tick(1)?;
        match form {
            Value::Symbol(s) => self.resolve(s, env),
            Value::List(items) if items.is_empty() => Ok(Value::vector(vec![])),
            Value::List(items) => {
                self.depth += 1;
                if self.depth > MAX_DEPTH {
                    self.depth -= 1;
                    return err("recursion_limit", "the program nested calls too deeply");
                }
                let r = self.eval_list(items, env);
                self.depth -= 1;
                r
            }
            Value::Vector(items) => {
                self.alloc(items.len())?;
                let v = items
                    .iter()
                    .map(|i| self.eval(i, env))
                    .collect::<R<Vec<_>>>()?;
                Ok(Value::vector(v))
            }
            other => Ok(other.clone()),
        }
    }

    fn eval_body(&mut self, body: &[Value], env: &Env) -> R<Value> {
        let mut last = Value::Nil;
        for f in body {
            last = self.eval(f, env)?;
        }
        Ok(last)
    }

    fn define(&mut self, name: &str, v: Value) -> Value {
        self.namespaces
            .entry(self.ns.to_string())
            .or_default()
            .insert(name.to_string(), v);
        Value::Var(Rc::from(name))
    }

    fn eval_list(&mut self, items: &[Value], env: &Env) -> R<Value> {
        let head = &items[0];
        let args = &items[1..];
        if let Some(name) = sym_name(head) {
            if env.lookup(name).is_none() {
                if let Some(v) = self.special(name, args, env)? {
                    return Ok(v);
                }
                if let Some(cap) = name.strip_prefix("tool/") {
                    let vals = args
                        .iter()
                        .map(|a| self.eval(a, env))
                        .collect::<R<Vec<_>>>()?;
                    return self.capability(cap, vals);
                }
            }
        }
        let f = self.eval(head, env)?;
        let vals = args
            .iter()
            .map(|a| self.eval(a, env))
            .collect::<R<Vec<_>>>()?;
        self.apply(&f, vals)
    }

    fn capability(&mut self, name: &str, args: Vec<Value>) -> R<Value> {
        let arg = match args.as_slice() {
            [] => serde_json::Value::Object(Default::default()),
            [one] => one.to_json()?,
            _ => return err("arity_error", format!("tool/{name} takes one argument map")),
        };
        let mut caps = self
            .caps
            .take()
            .ok_or_else(|| Ctrl::Err(LispError::new("capability_error", "no capabilities")))?;
        let r = caps.call(name, arg);
        self.caps = Some(caps);
        Ok(r?)
    }

    pub(crate) fn apply(&mut self, f: &Value, args: Vec<Value>) -> R<Value> {
        self.tick(1)?;
        match f {
            Value::Builtin(name) => builtins::call(self, name, args),
            Value::Fn(l) if l.native.is_some() => self.apply_native(&l.clone(), args),
            Value::Fn(l) => {
                let l = l.clone();
                let saved = std::mem::replace(&mut self.ns, l.ns.clone());
                self.depth += 1;
                let mut args = args;
                let r = loop {
                    if self.depth > MAX_DEPTH {
                        break err("recursion_limit", "the program nested calls too deeply");
                    }
                    let env = match self.bind_params(&l, args) {
                        Ok(env) => env,
                        Err(e) => break Err(e),
                    };
                    match self.eval_body(&l.body, &env) {
                        Err(Ctrl::Recur(vals)) => args = vals,
                        other => break other,
                    }
                };
                self.depth -= 1;
                self.ns = saved;
                r
            }
            Value::Keyword(_) | Value::Str(_) => match args.as_slice() {
                [m] => Ok(builtins::get(m, f, Value::Nil)),
                [m, d] => Ok(builtins::get(m, f, d.clone())),
                _ => err("arity_error", "a keyword takes one or two arguments"),
            },
            Value::Map(_) => match args.as_slice() {
                [k] => Ok(builtins::get(f, k, Value::Nil)),
                [k, d] => Ok(builtins::get(f, k, d.clone())),
                _ => err("arity_error", "a map takes one or two arguments"),
            },
            Value::Set(s) => match args.as_slice() {
                [k] => Ok(if s.binary_search(k).is_ok() {
                    k.clone()
                } else {
                    Value::Nil
                }),
                _ => err("arity_error", "a set takes one argument"),
            },
            other => err(
                "type_error",
                format!("{} is not a function", other.type_name()),
            ),
        }
    }
}

mod bind;
mod doc;
mod lambda;
mod special;
