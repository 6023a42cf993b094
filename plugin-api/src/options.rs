//! Strategy options: each strategy declares the options it accepts with their defaults; the host
//! validates the user's settings against them and passes every declared option, resolved, to
//! `render`.

use abi_stable::std_types::{RString, RVec, Tuple2};
use abi_stable::StableAbi;

use crate::output::RenderError;

/// The value of an option. Its kind is fixed by the option's default.
#[repr(u8)]
#[derive(StableAbi, Clone, Debug, PartialEq)]
pub enum OptionValue {
    Boolean(bool),
    Integer(i64),
    Float(f64),
    String(RString),
}

impl OptionValue {
    /// `boolean`, `integer`, `float` or `string`.
    pub fn kind(&self) -> &'static str {
        match self {
            OptionValue::Boolean(_) => "boolean",
            OptionValue::Integer(_) => "integer",
            OptionValue::Float(_) => "float",
            OptionValue::String(_) => "string",
        }
    }
}

impl std::fmt::Display for OptionValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OptionValue::Boolean(b) => write!(f, "{b}"),
            OptionValue::Integer(i) => write!(f, "{i}"),
            OptionValue::Float(x) => write!(f, "{x:?}"),
            OptionValue::String(s) => write!(f, "{s:?}"),
        }
    }
}

/// An option a strategy accepts.
#[repr(C)]
#[derive(StableAbi, Clone, Debug, PartialEq)]
pub struct OptionSpec {
    pub name: RString,
    pub default: OptionValue,
    /// One line: what it does and which values make sense.
    pub doc: RString,
}

impl OptionSpec {
    pub fn new(name: &str, default: OptionValue, doc: &str) -> OptionSpec {
        OptionSpec {
            name: name.into(),
            default,
            doc: doc.into(),
        }
    }

    /// A non-negative integer option.
    pub fn count(name: &str, default: u32, doc: &str) -> OptionSpec {
        OptionSpec::new(name, OptionValue::Integer(default.into()), doc)
    }
}

/// The entry the host adds to [`Options`], set to `true`, when the user asks to see private
/// values (`ptc render --show-private`, a debugging view): not an option a strategy declares.
/// While a strategy renders with it, [`showing_private`](crate::showing_private) is true.
pub const SHOW_PRIVATE: &str = "ptc.show_private";

/// The resolved options a strategy renders with: every option it declared, each set by the
/// user or left at its default (and [`SHOW_PRIVATE`] when the user asked for it).
#[repr(C)]
#[derive(StableAbi, Clone, Debug, Default, PartialEq)]
pub struct Options {
    pub entries: RVec<Tuple2<RString, OptionValue>>,
}

impl Options {
    /// Options from `(name, value)` pairs.
    pub fn from_pairs<I: IntoIterator<Item = (String, OptionValue)>>(pairs: I) -> Options {
        Options {
            entries: pairs
                .into_iter()
                .map(|(k, v)| Tuple2(RString::from(k), v))
                .collect(),
        }
    }

    /// The defaults of `specs`.
    pub fn defaults(specs: &[OptionSpec]) -> Options {
        Options::from_pairs(
            specs
                .iter()
                .map(|s| (s.name.to_string(), s.default.clone())),
        )
    }

    /// Whether the host asked for private values to be shown ([`SHOW_PRIVATE`]).
    pub fn shows_private(&self) -> bool {
        matches!(self.get(SHOW_PRIVATE), Some(OptionValue::Boolean(true)))
    }

    pub fn get(&self, name: &str) -> Option<&OptionValue> {
        self.entries
            .iter()
            .find(|e| e.0.as_str() == name)
            .map(|e| &e.1)
    }

    /// A non-negative integer option as a count or limit.
    pub fn count(&self, name: &str) -> Result<usize, RenderError> {
        match self.get(name) {
            Some(OptionValue::Integer(i)) if *i >= 0 => {
                Ok(usize::try_from(*i).unwrap_or(usize::MAX))
            }
            Some(other) => Err(RenderError::option(
                name,
                &format!("expected a non-negative integer, found {other}"),
            )),
            None => Err(RenderError::option(name, "missing")),
        }
    }

    pub fn boolean(&self, name: &str) -> Result<bool, RenderError> {
        match self.get(name) {
            Some(OptionValue::Boolean(b)) => Ok(*b),
            Some(other) => Err(RenderError::option(
                name,
                &format!("expected a boolean, found {other}"),
            )),
            None => Err(RenderError::option(name, "missing")),
        }
    }

    /// A string option that must be one of `choices`.
    pub fn choice<'a>(&'a self, name: &str, choices: &[&str]) -> Result<&'a str, RenderError> {
        match self.get(name) {
            Some(OptionValue::String(s)) if choices.contains(&s.as_str()) => Ok(s.as_str()),
            Some(other) => Err(RenderError::option(
                name,
                &format!("expected one of {}, found {other}", choices.join(", ")),
            )),
            None => Err(RenderError::option(name, "missing")),
        }
    }
}
