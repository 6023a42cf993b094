//! The typed configuration: one serde struct per fixed section of `ptc.toml` (`[compression]`,
//! `[plugins]`, `[templates]`, `[ab]`, `[pricing.<name>]`), each refusing unknown keys, and the
//! types that check values (non-negative integers, `max_turns` of at least 1); a
//! `[pricing.<name>]` table is `pricing`'s [`Profile`], which checks its prices. The structs hold no defaults: the compiled-in `ptc.toml` sets every field, and a
//! test checks that it does. A `[pricing.<name>]` profile may be completed by a later layer, so
//! its keys are checked to be all set once every layer is applied. `[strategies.<name>]` tables
//! are only checked to be tables here: their keys are the options a plugin declares, checked
//! once the strategy is known. The merged TOML is read through a small deserializer whose errors
//! say what went wrong in parts (unknown key, missing key, expected and found), so that the
//! layering can name the key and its origin.

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{self, IgnoredAny, IntoDeserializer, Unexpected, Visitor};
use serde::Deserialize;
use serde_path_to_error::Segment;

use crate::pricing::Profile;

/// The whole configuration, strategy options aside.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a table of sections")]
pub(super) struct Schema {
    pub compression: Compression,
    pub plugins: Plugins,
    pub templates: Templates,
    pub ab: Ab,
    pub pricing: BTreeMap<String, Profile>,
    /// `[strategies.<name>]`: option name -> any value. No table is an empty map.
    #[serde(default)]
    pub strategies: BTreeMap<String, BTreeMap<String, IgnoredAny>>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a [compression] table")]
pub(super) struct Compression {
    pub strategy: String,
    pub enabled: bool,
    pub max_turns: Turns,
    pub compress_above_tokens: NonNegative,
    pub println_limit: NonNegative,
    pub tool_call_limit: NonNegative,
    pub sample_limit: NonNegative,
    pub sample_printable_limit: NonNegative,
    pub tool_args_limit: NonNegative,
    pub tool_args_printable_limit: NonNegative,
    pub println_char_limit: NonNegative,
}

impl Compression {
    /// The limits that every strategy declaring an option of the same name shares.
    pub fn shared_limits(&self) -> [(&'static str, i64); 7] {
        [
            ("println_limit", self.println_limit.0),
            ("tool_call_limit", self.tool_call_limit.0),
            ("sample_limit", self.sample_limit.0),
            ("sample_printable_limit", self.sample_printable_limit.0),
            ("tool_args_limit", self.tool_args_limit.0),
            (
                "tool_args_printable_limit",
                self.tool_args_printable_limit.0,
            ),
            ("println_char_limit", self.println_char_limit.0),
        ]
    }

    /// The shared limit `name`, if there is one of that name.
    pub fn shared_limit(&self, name: &str) -> Option<i64> {
        self.shared_limits()
            .into_iter()
            .find(|(limit, _)| *limit == name)
            .map(|(_, value)| value)
    }
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a [plugins] table")]
pub(super) struct Plugins {
    pub directories: Vec<String>,
    pub next_to_executable: bool,
    pub user_directory: bool,
    pub allow_insecure: bool,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a [templates] table")]
pub(super) struct Templates {
    pub directory: String,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, expecting = "an [ab] table")]
pub(super) struct Ab {
    pub strategies: Vec<String>,
    pub baseline: String,
    pub pricing: String,
    pub tokenizer: String,
    pub require: Vec<String>,
}

/// An integer from `MIN` to `MAX`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Int<const MIN: i64, const MAX: i64>(pub i64);

/// A count or a limit.
pub(super) type NonNegative = Int<0, { i64::MAX }>;

/// A number of turns: at least one, and it fits in a `u32`.
pub(super) type Turns = Int<1, { u32::MAX as i64 }>;

impl<'de, const MIN: i64, const MAX: i64> Deserialize<'de> for Int<MIN, MAX> {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct IntVisitor<const MIN: i64, const MAX: i64>;
        impl<const MIN: i64, const MAX: i64> Visitor<'_> for IntVisitor<MIN, MAX> {
            type Value = Int<MIN, MAX>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match (MIN, MAX) {
                    (0, i64::MAX) => f.write_str("a non-negative integer"),
                    (_, i64::MAX) => write!(f, "an integer of at least {MIN}"),
                    _ => write!(f, "an integer from {MIN} to {MAX}"),
                }
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
                if (MIN..=MAX).contains(&v) {
                    Ok(Int(v))
                } else {
                    Err(E::invalid_value(Unexpected::Signed(v), &self))
                }
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
                match i64::try_from(v) {
                    Ok(v) => self.visit_i64(v),
                    Err(_) => Err(E::invalid_value(Unexpected::Unsigned(v), &self)),
                }
            }
        }
        deserializer.deserialize_i64(IntVisitor)
    }
}

/// What is wrong with the merged configuration, at `key` (dotted: `compression.println_limit`).
#[derive(Debug)]
pub(super) struct Invalid {
    pub key: String,
    pub problem: Problem,
}

#[derive(Debug)]
pub(super) enum Problem {
    /// `key` is not one of `known`, the keys of its table.
    Unknown {
        known: &'static [&'static str],
    },
    /// `key`, whose last part is `field`, is required and absent.
    Missing {
        field: &'static str,
    },
    Bad {
        expected: String,
        found: String,
    },
    Other(String),
}

impl Schema {
    /// Reads the merged configuration.
    pub fn read(table: &toml::Table) -> Result<Schema, Invalid> {
        let value = TomlValue(toml::Value::Table(table.clone()));
        serde_path_to_error::deserialize(value).map_err(|err| {
            // The keys down to the value in error; an array element counts as its array.
            let mut key = err
                .path()
                .iter()
                .map_while(|segment| match segment {
                    Segment::Map { key } => Some(key.as_str()),
                    _ => None,
                })
                .collect::<Vec<_>>()
                .join(".");
            let problem = err.into_inner();
            if let Problem::Missing { field } = problem {
                key = if key.is_empty() {
                    field.to_owned()
                } else {
                    format!("{key}.{field}")
                };
            }
            Invalid { key, problem }
        })
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::Unknown { .. } => f.write_str("unknown key"),
            Problem::Missing { .. } => f.write_str("missing key"),
            Problem::Bad { expected, found } => write!(f, "expected {expected}, found {found}"),
            Problem::Other(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for Problem {}

impl de::Error for Problem {
    fn custom<T: fmt::Display>(message: T) -> Self {
        Problem::Other(message.to_string())
    }

    fn invalid_type(unexpected: Unexpected<'_>, expected: &dyn de::Expected) -> Self {
        Problem::Bad {
            expected: in_toml_words(expected.to_string()),
            found: found(unexpected),
        }
    }

    fn invalid_value(unexpected: Unexpected<'_>, expected: &dyn de::Expected) -> Self {
        Self::invalid_type(unexpected, expected)
    }

    fn invalid_length(len: usize, expected: &dyn de::Expected) -> Self {
        Problem::Bad {
            expected: in_toml_words(expected.to_string()),
            found: format!("{len} elements"),
        }
    }

    fn unknown_field(_field: &str, known: &'static [&'static str]) -> Self {
        Problem::Unknown { known }
    }

    fn missing_field(field: &'static str) -> Self {
        Problem::Missing { field }
    }
}

/// serde's names of what it expected, in TOML's words.
fn in_toml_words(expected: String) -> String {
    match expected.as_str() {
        "a sequence" => "an array".into(),
        "a map" => "a table".into(),
        "a boolean" => "true or false".into(),
        _ => expected,
    }
}

fn found(unexpected: Unexpected<'_>) -> String {
    match unexpected {
        Unexpected::Str(s) => format!("the string {s:?}"),
        Unexpected::Signed(i) => format!("the integer {i}"),
        Unexpected::Unsigned(u) => format!("the integer {u}"),
        Unexpected::Float(f) => format!("the float {f}"),
        Unexpected::Bool(b) => b.to_string(),
        Unexpected::Seq => "an array".into(),
        Unexpected::Map => "a table".into(),
        other => other.to_string(),
    }
}

/// A TOML value read with [`Problem`] errors.
struct TomlValue(toml::Value);

impl<'de> IntoDeserializer<'de, Problem> for TomlValue {
    type Deserializer = Self;
    fn into_deserializer(self) -> Self {
        self
    }
}

impl<'de> de::Deserializer<'de> for TomlValue {
    type Error = Problem;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Problem> {
        match self.0 {
            toml::Value::String(s) => visitor.visit_string(s),
            toml::Value::Integer(i) => visitor.visit_i64(i),
            toml::Value::Float(f) => visitor.visit_f64(f),
            toml::Value::Boolean(b) => visitor.visit_bool(b),
            toml::Value::Datetime(d) => Err(de::Error::invalid_type(
                Unexpected::Other(&format!("the date {d}")),
                &visitor,
            )),
            toml::Value::Array(items) => {
                let mut seq = de::value::SeqDeserializer::new(items.into_iter().map(TomlValue));
                let value = visitor.visit_seq(&mut seq)?;
                seq.end()?;
                Ok(value)
            }
            toml::Value::Table(table) => {
                let entries = table.into_iter().map(|(k, v)| (k, TomlValue(v)));
                let mut map = de::value::MapDeserializer::new(entries);
                let value = visitor.visit_map(&mut map)?;
                map.end()?;
                Ok(value)
            }
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Problem> {
        visitor.visit_unit()
    }

    /// A value that is there is `Some`: TOML has no null.
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Problem> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Problem> {
        visitor.visit_newtype_struct(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        unit unit_struct seq tuple tuple_struct map struct enum identifier
    }
}
