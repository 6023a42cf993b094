//! Strategy options: the `[strategies.<name>]` tables and the bare `--set` keys, read as the
//! options a strategy declares once it is loaded. Their keys are not part of the fixed schema:
//! each plugin declares its own, with a default whose kind (integer, float, boolean, string)
//! the value set must have. An option not set in `[strategies.<name>]` takes the `[compression]`
//! key of the same name, if there is one (the shared limits are those keys), else its default.

use ptc_plugin_api::{OptionSpec, OptionValue, Options};

use super::layer::Layer;
use super::{Config, ConfigError};

impl Config {
    /// Resolves the bare `--set` keys against the selected strategy's options: a bare key is
    /// that strategy's option of that name, else the `[compression]` key of that name.
    pub fn resolve_bare_keys(
        &mut self,
        strategy: &str,
        specs: &[OptionSpec],
    ) -> Result<(), ConfigError> {
        for (key, value, origin) in std::mem::take(&mut self.bare) {
            let full = if specs.iter().any(|s| s.name.as_str() == key) {
                format!("strategies.{strategy}.{key}")
            } else if self.is_shared_limit(&key) {
                format!("compression.{key}")
            } else {
                let shared = self.typed.compression.shared_limits();
                let known = specs
                    .iter()
                    .map(|s| s.name.as_str())
                    .chain(shared.iter().map(|(name, _)| *name));
                return Err(ConfigError::UnknownKey {
                    hint: format!(
                        ": neither an option of strategy `{strategy}` ({}) nor a [compression] key{}",
                        option_names(specs),
                        crate::suggest::did_you_mean(&key, known)
                    ),
                    key,
                    origin: origin.name,
                });
            };
            self.apply(Layer::single(&full, value, origin))?;
        }
        Ok(())
    }

    /// The options strategy `name` renders with: for each option it declares, the value of
    /// `[strategies.<name>]`, else the `[compression]` key of the same name, else its default.
    /// Keys of `[strategies.<name>]` that the strategy does not declare are errors.
    pub fn strategy_options(
        &self,
        name: &str,
        specs: &[OptionSpec],
    ) -> Result<Options, ConfigError> {
        let own = self.layers.table(&["strategies", name]);
        for key in own.into_iter().flat_map(|table| table.keys()) {
            if !specs.iter().any(|s| s.name.as_str() == key) {
                let suggestion =
                    crate::suggest::did_you_mean(key, specs.iter().map(|s| s.name.as_str()));
                let key = format!("strategies.{name}.{key}");
                return Err(ConfigError::UnknownKey {
                    origin: self.place(&key),
                    hint: format!(
                        ": strategy `{name}` has the options {}{suggestion}",
                        option_names(specs)
                    ),
                    key: self.key_as_said(&key),
                });
            }
        }
        let mut resolved = Vec::with_capacity(specs.len());
        for spec in specs {
            let option = spec.name.as_str();
            let set = match own.and_then(|table| table.get(option)) {
                Some(value) => Some((format!("strategies.{name}.{option}"), value)),
                None => self
                    .layers
                    .table(&["compression"])
                    .and_then(|table| table.get(option))
                    .map(|value| (format!("compression.{option}"), value)),
            };
            let value = match set {
                Some((key, value)) => option_value(
                    &self.key_as_said(&key),
                    value,
                    &self.place(&key),
                    &spec.default,
                )?,
                None => spec.default.clone(),
            };
            resolved.push((spec.name.to_string(), value));
        }
        Ok(Options::from_pairs(resolved))
    }

    /// The names of every `[strategies.<name>]` table set, with the origin of its first key.
    pub fn configured_strategies(&self) -> Vec<(String, String)> {
        self.typed
            .strategies
            .keys()
            .filter_map(|name| {
                let source = self.layers.source(&format!("strategies.{name}"))?;
                Some((name.clone(), source.origin.name.clone()))
            })
            .collect()
    }
}

fn option_names(specs: &[OptionSpec]) -> String {
    if specs.is_empty() {
        return "none".into();
    }
    specs
        .iter()
        .map(|s| s.name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// A value set at `key` as an option value of the kind its default has.
fn option_value(
    key: &str,
    value: &toml::Value,
    origin: &str,
    default: &OptionValue,
) -> Result<OptionValue, ConfigError> {
    let option = match (default, value) {
        (OptionValue::Boolean(_), toml::Value::Boolean(b)) => Some(OptionValue::Boolean(*b)),
        (OptionValue::Integer(_), toml::Value::Integer(i)) => Some(OptionValue::Integer(*i)),
        (OptionValue::Float(_), toml::Value::Float(f)) => Some(OptionValue::Float(*f)),
        (OptionValue::Float(_), toml::Value::Integer(i)) => Some(OptionValue::Float(*i as f64)),
        (OptionValue::String(_), toml::Value::String(s)) => {
            Some(OptionValue::String(s.as_str().into()))
        }
        _ => None,
    };
    option.ok_or_else(|| ConfigError::BadValue {
        key: key.into(),
        origin: origin.into(),
        expected: format!("{} (like the default {default})", article(default.kind())),
        found: describe(value),
    })
}

fn article(kind: &str) -> String {
    match kind {
        "integer" => "an integer".into(),
        other => format!("a {other}"),
    }
}

fn describe(value: &toml::Value) -> String {
    match value {
        toml::Value::String(s) => format!("the string {s:?}"),
        toml::Value::Integer(i) => format!("the integer {i}"),
        toml::Value::Float(f) => format!("the float {f}"),
        toml::Value::Boolean(b) => format!("{b}"),
        toml::Value::Datetime(d) => format!("the date {d}"),
        toml::Value::Array(_) => "an array".into(),
        toml::Value::Table(_) => "a table".into(),
    }
}
