//! The values a PTC-Lisp program works with, as they cross the plugin boundary.
//!
//! Maps and sets keep their entries in a canonical order (nil, booleans, numbers, keywords,
//! strings, then everything else by printed text; `ptc_strategy_kit::canonical_cmp` defines it).
//! The host sorts them when it reads a recording, so a strategy that shows the first three
//! entries of a million-entry map reads three entries, never sorts a million.

use abi_stable::std_types::{ROption, RString, RVec, Tuple2};
use abi_stable::StableAbi;

/// A PTC-Lisp value.
#[repr(u8)]
#[derive(StableAbi, Clone, Debug, PartialEq)]
pub enum Value {
    Nil,
    Boolean(bool),
    Integer(i64),
    Float(f64),
    String(RString),
    /// A keyword, stored without its leading `:`.
    Keyword(RString),
    List(RVec<Value>),
    /// Elements in canonical order, no duplicates.
    Set(RVec<Value>),
    /// Entries in canonical key order, no duplicate keys.
    Map(RVec<Tuple2<Value, Value>>),
    Function(Function),
}

/// A closure defined by the program (`defn`, `fn`).
#[repr(C)]
#[derive(StableAbi, Clone, Debug, PartialEq)]
pub struct Function {
    /// Parameter names; a variadic function lists `&` before the rest parameter.
    pub params: RVec<RString>,
    pub doc: ROption<RString>,
    /// The return type, when the runtime saw the function called.
    pub return_type: ROption<RString>,
}

impl Value {
    /// A keyword value (`name` without the leading `:`).
    pub fn keyword(name: &str) -> Value {
        Value::Keyword(name.into())
    }

    /// A string value.
    pub fn string(text: &str) -> Value {
        Value::String(text.into())
    }

    /// Whether this value is a function.
    pub fn is_function(&self) -> bool {
        matches!(self, Value::Function(_))
    }
}
