//! Layering with origins: each layer (the compiled-in defaults, a file, one `--set` flag) is
//! merged into one TOML table, tables key by key and any other value as a whole, and every
//! value set, and every table, remembers the layer that set it and, for a file, its line and
//! column. After each layer the merged table is read into the typed [`Schema`]; a problem is
//! reported against the origin of the key at fault, and a layer with a problem changes nothing.

use std::collections::BTreeMap;
use std::fmt;

use toml::de::{DeTable, DeValue};

use super::schema::{Invalid, Problem, Schema};
use super::{line_column, ConfigError, Lines, Origin};

/// Where a value was set: its origin and, in a file, the 1-based line and column of its key.
#[derive(Clone, Debug)]
pub(super) struct Source {
    pub origin: Origin,
    pub at: Option<(usize, usize)>,
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.at {
            Some((line, column)) => write!(f, "{}:{line}:{column}", self.origin),
            None => write!(f, "{}", self.origin),
        }
    }
}

/// One layer to merge.
pub(super) struct Layer {
    table: toml::Table,
    origin: Origin,
    /// Dotted key (tables too) -> where it is in the file.
    positions: BTreeMap<String, (usize, usize)>,
}

impl Layer {
    /// A TOML document.
    pub fn parse(text: &str, origin: Origin) -> Result<Layer, ConfigError> {
        let syntax = |err: toml::de::Error| {
            let (line, column) = err
                .span()
                .map(|span| line_column(text, span.start))
                .unwrap_or((1, 1));
            ConfigError::Syntax {
                origin: origin.name.clone(),
                line,
                column,
                message: err.message().to_owned(),
            }
        };
        let document = DeTable::parse(text).map_err(syntax)?;
        let table: toml::Table = toml::from_str(text).map_err(syntax)?;
        let mut positions = BTreeMap::new();
        key_positions(&Lines::new(text), document.get_ref(), "", &mut positions);
        Ok(Layer {
            table,
            origin,
            positions,
        })
    }

    /// One value at a dotted key.
    pub fn single(key: &str, value: toml::Value, origin: Origin) -> Layer {
        let value = key.rsplit('.').fold(value, |value, part| {
            toml::Value::Table(toml::Table::from_iter([(part.to_owned(), value)]))
        });
        let toml::Value::Table(table) = value else {
            unreachable!("a key has at least one part")
        };
        Layer {
            table,
            origin,
            positions: BTreeMap::new(),
        }
    }
}

fn key_positions(
    text: &Lines<'_>,
    table: &DeTable<'_>,
    prefix: &str,
    out: &mut BTreeMap<String, (usize, usize)>,
) {
    for (key, value) in table.iter() {
        let full = join(prefix, key.get_ref());
        out.insert(full.clone(), text.line_column(key.span().start));
        if let DeValue::Table(inner) = value.get_ref() {
            key_positions(text, inner, &full, out);
        }
    }
}

fn join(prefix: &str, key: &str) -> String {
    if prefix.is_empty() {
        key.to_owned()
    } else {
        format!("{prefix}.{key}")
    }
}

/// The merged layers.
#[derive(Clone, Debug, Default)]
pub(super) struct Layered {
    table: toml::Table,
    /// Dotted key of each value that is not a table -> where it was set.
    sources: BTreeMap<String, Source>,
    /// Dotted key of each table -> where it was defined: the layer that first set it.
    tables: BTreeMap<String, Source>,
}

impl Layered {
    /// Merges `layer` and reads the result; on an error nothing is merged.
    pub fn apply(&mut self, layer: Layer) -> Result<Schema, ConfigError> {
        let mut next = self.clone();
        let Layer {
            table,
            origin,
            positions,
        } = layer;
        let at = |key: &str| Source {
            origin: origin.clone(),
            at: positions.get(key).copied(),
        };
        let mut places = Places {
            sources: &mut next.sources,
            tables: &mut next.tables,
            at: &at,
        };
        merge(&mut next.table, table, "", &mut places);
        let schema = Schema::read(&next.table).map_err(|invalid| next.error(invalid, &at))?;
        *self = next;
        Ok(schema)
    }

    /// The table at `path`, when there is one.
    pub fn table(&self, path: &[&str]) -> Option<&toml::Table> {
        path.iter()
            .try_fold(&self.table, |table, part| table.get(*part)?.as_table())
    }

    /// Where `key` was set; for a table, where its first key was.
    pub fn source(&self, key: &str) -> Option<&Source> {
        self.sources.get(key).or_else(|| {
            let below = format!("{key}.");
            self.sources
                .range(below.clone()..)
                .next()
                .filter(|(k, _)| k.starts_with(&below))
                .map(|(_, source)| source)
        })
    }

    /// Where the table at `key` was defined: its header in a file, or the `--set` flag that
    /// first set a key in it.
    pub fn defined(&self, key: &str) -> Option<&Source> {
        self.tables.get(key).or_else(|| self.source(key))
    }

    /// The error for a problem found after merging the layer that `at` locates keys in. Only
    /// that layer can be at fault: the earlier ones were read without a problem.
    fn error(&self, invalid: Invalid, at: &dyn Fn(&str) -> Source) -> ConfigError {
        let Invalid { key, problem } = invalid;
        let section = key.rsplit_once('.').map_or("", |(section, _)| section);
        let section = section.to_owned();
        let place = |key: &str| {
            let own = at(key);
            match (own.at, self.source(key)) {
                (None, Some(source)) => source.to_string(),
                _ => own.to_string(),
            }
        };
        match problem {
            Problem::Unknown { known } => {
                let own = key.rsplit('.').next().unwrap_or(&key);
                let suggestion =
                    crate::suggest::did_you_mean(own, known.iter().map(|k| k.as_ref()));
                ConfigError::UnknownKey {
                    origin: place(&key),
                    hint: if section.is_empty() {
                        format!(" (the sections are {}){suggestion}", known.join(", "))
                    } else {
                        format!(
                            " (the [{section}] keys are {}){suggestion}",
                            known.join(", ")
                        )
                    },
                    key,
                }
            }
            Problem::Missing { .. } => ConfigError::BadValue {
                origin: place(&section),
                expected: format!("a value (every key of [{section}] is required)"),
                found: "nothing".into(),
                key,
            },
            Problem::Bad { expected, found } => ConfigError::BadValue {
                origin: place(&key),
                expected,
                found,
                key,
            },
            Problem::Other(message) => ConfigError::Invalid {
                origin: place(&key),
                message,
                key,
            },
        }
    }
}

/// Where the values and tables of the layer being merged are recorded.
struct Places<'a> {
    sources: &'a mut BTreeMap<String, Source>,
    tables: &'a mut BTreeMap<String, Source>,
    /// Locates a key in the layer.
    at: &'a dyn Fn(&str) -> Source,
}

/// Removes `key` and every dotted key below it (`key.…`) from `map`. Those sort together,
/// from `key.` up to `key/` (`/` follows `.`): they are found by range, not by reading every key.
pub(super) fn remove_at_and_below<V>(map: &mut BTreeMap<String, V>, key: &str) {
    use std::ops::Bound;
    map.remove(key);
    let (below, after) = (format!("{key}."), format!("{key}/"));
    let range = (
        Bound::Included(below.as_str()),
        Bound::Excluded(after.as_str()),
    );
    let doomed: Vec<String> = map.range::<str, _>(range).map(|(k, _)| k.clone()).collect();
    for k in doomed {
        map.remove(&k);
    }
}

/// Merges `layer` into `table`: tables key by key, other values as a whole.
fn merge(table: &mut toml::Table, layer: toml::Table, prefix: &str, places: &mut Places<'_>) {
    for (name, value) in layer {
        let key = join(prefix, &name);
        match (table.get_mut(&name), value) {
            (Some(toml::Value::Table(old)), toml::Value::Table(new)) => {
                merge(old, new, &key, places)
            }
            (_, value) => {
                // What was set at `key` or below it is replaced.
                remove_at_and_below(places.sources, &key);
                remove_at_and_below(places.tables, &key);
                let value = match value {
                    toml::Value::Table(new) => {
                        places.tables.insert(key.clone(), (places.at)(&key));
                        let mut fresh = toml::Table::new();
                        merge(&mut fresh, new, &key, places);
                        toml::Value::Table(fresh)
                    }
                    value => {
                        places.sources.insert(key.clone(), (places.at)(&key));
                        value
                    }
                };
                table.insert(name, value);
            }
        }
    }
}
