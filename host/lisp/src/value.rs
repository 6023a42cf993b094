//! Values of PTC-Lisp, their equality and their order (the order ptc_runner sorts map keys by).

use std::cmp::Ordering;
use std::fmt;
use std::rc::Rc;

use crate::eval::Lambda;

/// A PTC-Lisp value. Maps keep their entries sorted by key (the order in which ptc_runner
/// prints them); sets keep their elements sorted and distinct.
#[derive(Clone)]
pub enum Value {
    Nil,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(Rc<str>),
    Keyword(Rc<str>),
    /// A quoted symbol, as read; evaluation resolves symbols, so this only appears as data.
    Symbol(Rc<str>),
    Vector(Rc<Vec<Value>>),
    /// A list as read (a call form); evaluation turns it into a call.
    List(Rc<Vec<Value>>),
    Map(Rc<Vec<(Value, Value)>>),
    Set(Rc<Vec<Value>>),
    Fn(Rc<Lambda>),
    Builtin(&'static str),
    /// What `def` and `defn` return, displayed `#'name`.
    Var(Rc<str>),
    /// A compiled regular expression (`#"..."`, `re-pattern`).
    Regex(Rc<crate::pattern::Pattern>),
}

/// An evaluation error: a kind (as ptc_runner's error codes, e.g. `type_error`) and a message.
#[derive(Clone, Debug, PartialEq)]
pub struct LispError {
    pub kind: String,
    pub message: String,
}

impl LispError {
    pub fn new(kind: &str, message: impl Into<String>) -> Self {
        LispError {
            kind: kind.to_string(),
            message: message.into(),
        }
    }
}

impl fmt::Display for LispError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind, self.message)
    }
}

impl Value {
    pub fn str(s: &str) -> Value {
        Value::Str(Rc::from(s))
    }
    pub fn kw(s: &str) -> Value {
        Value::Keyword(Rc::from(s))
    }
    pub fn vector(items: Vec<Value>) -> Value {
        Value::Vector(Rc::new(items))
    }
    /// A map from entries in any order; a later entry for the same key wins.
    pub fn map(entries: Vec<(Value, Value)>) -> Value {
        let mut out: Vec<(Value, Value)> = Vec::with_capacity(entries.len());
        for (k, v) in entries {
            match out.binary_search_by(|(e, _)| e.cmp(&k)) {
                Ok(i) => out[i].1 = v,
                Err(i) => out.insert(i, (k, v)),
            }
        }
        Value::Map(Rc::new(out))
    }
    pub fn set(items: Vec<Value>) -> Value {
        let mut items = items;
        items.sort();
        items.dedup();
        Value::Set(Rc::new(items))
    }
    pub fn truthy(&self) -> bool {
        !matches!(self, Value::Nil | Value::Bool(false))
    }
    /// The type name ptc_runner's messages use.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Nil => "nil",
            Value::Bool(_) => "boolean",
            Value::Int(_) => "integer",
            Value::Float(_) => "float",
            Value::Str(_) => "string",
            Value::Keyword(_) => "keyword",
            Value::Symbol(_) => "symbol",
            // ptc_runner's messages name a vector by its Elixir type.
            Value::Vector(_) | Value::List(_) => "list",
            Value::Map(_) => "map",
            Value::Set(_) => "set",
            Value::Fn(_) | Value::Builtin(_) => "function",
            Value::Var(_) => "var",
            Value::Regex(_) => "regex",
        }
    }
    /// The value under `key` as ptc_runner's flexible access finds it: the key itself, then
    /// a keyword's name as a string (or a string as a keyword), then the name with `-` read
    /// as `_` as a string.
    pub fn map_get_flex(&self, key: &Value) -> Option<&Value> {
        if let Some(v) = self.map_get(key) {
            return Some(v);
        }
        let (name, keyword_first) = match key {
            Value::Keyword(n) => (n, false),
            Value::Str(s) => (s, true),
            _ => return None,
        };
        let both = |n: &str, keyword_first: bool| {
            let (kw, s) = (Value::kw(n), Value::str(n));
            let (a, b) = if keyword_first { (kw, s) } else { (s, kw) };
            self.map_get(&a).or_else(|| self.map_get(&b))
        };
        both(name, keyword_first).or_else(|| {
            let normalized = name.replace('-', "_");
            (normalized != **name)
                .then(|| self.map_get(&Value::str(&normalized)))
                .flatten()
        })
    }

    pub fn map_get(&self, key: &Value) -> Option<&Value> {
        match self {
            Value::Map(m) => m
                .binary_search_by(|(k, _)| k.cmp(key))
                .ok()
                .filter(|&i| m[i].0 == *key)
                .map(|i| &m[i].1),
            _ => None,
        }
    }

    /// A value from JSON, as a capability result reaches a program: objects are maps with
    /// string keys.
    pub fn from_json(j: &serde_json::Value) -> Value {
        use serde_json::Value as J;
        match j {
            J::Null => Value::Nil,
            J::Bool(b) => Value::Bool(*b),
            J::Number(n) => match n.as_i64() {
                Some(i) => Value::Int(i),
                None => Value::Float(n.as_f64().unwrap_or(f64::NAN)),
            },
            J::String(s) => Value::str(s),
            J::Array(a) => Value::vector(a.iter().map(Value::from_json).collect()),
            J::Object(o) => Value::map(
                o.iter()
                    .map(|(k, v)| (Value::str(k), Value::from_json(v)))
                    .collect(),
            ),
        }
    }

    /// The JSON a value is sent to a capability as; keywords become their names.
    pub fn to_json(&self) -> Result<serde_json::Value, LispError> {
        use serde_json::Value as J;
        Ok(match self {
            Value::Nil => J::Null,
            Value::Bool(b) => J::Bool(*b),
            Value::Int(i) => J::from(*i),
            Value::Float(f) => {
                serde_json::Number::from_f64(*f)
                    .map(J::Number)
                    .ok_or_else(|| {
                        LispError::new("type_error", "a non-finite number cannot be sent to a tool")
                    })?
            }
            Value::Str(s) | Value::Keyword(s) | Value::Symbol(s) => J::String(s.to_string()),
            Value::Vector(v) | Value::List(v) | Value::Set(v) => {
                J::Array(v.iter().map(Value::to_json).collect::<Result<_, _>>()?)
            }
            Value::Map(m) => {
                let mut o = serde_json::Map::new();
                for (k, v) in m.iter() {
                    let key = match k {
                        Value::Str(s) | Value::Keyword(s) => s.to_string(),
                        other => crate::print::pr_str(other),
                    };
                    o.insert(key, v.to_json()?);
                }
                J::Object(o)
            }
            other => {
                return Err(LispError::new(
                    "type_error",
                    format!("a {} cannot be sent to a tool", other.type_name()),
                ))
            }
        })
    }

    /// The rank of a value's type in Erlang's term order (number < atom < function < map <
    /// list < binary), which is how ptc_runner sorts map keys.
    fn rank(&self) -> u8 {
        match self {
            Value::Int(_) | Value::Float(_) => 0,
            Value::Nil | Value::Bool(_) | Value::Keyword(_) => 1,
            Value::Fn(_) | Value::Builtin(_) => 2,
            Value::Var(_) | Value::Symbol(_) | Value::Regex(_) => 3,
            Value::Map(_) | Value::Set(_) => 4,
            Value::Vector(_) | Value::List(_) => 5,
            Value::Str(_) => 6,
        }
    }
    fn atom_name(&self) -> &str {
        match self {
            Value::Nil => "nil",
            Value::Bool(true) => "true",
            Value::Bool(false) => "false",
            Value::Keyword(k) => k,
            _ => "",
        }
    }
}

impl PartialEq for Value {
    fn eq(&self, other: &Value) -> bool {
        match (self, other) {
            // Clojure's `=`: 1 and 1.0 differ.
            (Value::Int(a), Value::Int(b)) => a == b,
            (Value::Float(a), Value::Float(b)) => a == b,
            (Value::Int(_), Value::Float(_)) | (Value::Float(_), Value::Int(_)) => false,
            (Value::Fn(a), Value::Fn(b)) => Rc::ptr_eq(a, b),
            _ => self.cmp(other) == Ordering::Equal,
        }
    }
}
impl Eq for Value {}

impl PartialOrd for Value {
    fn partial_cmp(&self, other: &Value) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Value {
    fn cmp(&self, other: &Value) -> Ordering {
        let (ra, rb) = (self.rank(), other.rank());
        if ra != rb {
            return ra.cmp(&rb);
        }
        match (self, other) {
            (Value::Int(a), Value::Int(b)) => a.cmp(b),
            (Value::Int(a), Value::Float(b)) => (*a as f64).total_cmp(b),
            (Value::Float(a), Value::Int(b)) => a.total_cmp(&(*b as f64)),
            (Value::Float(a), Value::Float(b)) => a.total_cmp(b),
            (Value::Str(a), Value::Str(b)) => a.as_bytes().cmp(b.as_bytes()),
            (Value::Vector(a) | Value::List(a), Value::Vector(b) | Value::List(b)) => a.cmp(b),
            (Value::Map(a), Value::Map(b)) => a.len().cmp(&b.len()).then_with(|| a.cmp(b)),
            (Value::Set(a), Value::Set(b)) => a.len().cmp(&b.len()).then_with(|| a.cmp(b)),
            (Value::Map(_), Value::Set(_)) => Ordering::Less,
            (Value::Set(_), Value::Map(_)) => Ordering::Greater,
            (Value::Var(a) | Value::Symbol(a), Value::Var(b) | Value::Symbol(b)) => a.cmp(b),
            (Value::Regex(a), Value::Regex(b)) => a.source.cmp(&b.source),
            (Value::Regex(_), _) => Ordering::Greater,
            (_, Value::Regex(_)) => Ordering::Less,
            (Value::Builtin(a), Value::Builtin(b)) => a.cmp(b),
            (Value::Fn(a), Value::Fn(b)) => (Rc::as_ptr(a) as usize).cmp(&(Rc::as_ptr(b) as usize)),
            (Value::Fn(_), Value::Builtin(_)) => Ordering::Less,
            (Value::Builtin(_), Value::Fn(_)) => Ordering::Greater,
            _ => self.atom_name().cmp(other.atom_name()),
        }
    }
}

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&crate::print::pr_str(self))
    }
}
