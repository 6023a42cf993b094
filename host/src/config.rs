//! Configuration: the repository's `ptc.toml` is compiled in as the default; a `ptc.toml` in the
//! working directory (or `--config FILE`) is layered over it, then each `--set KEY=VALUE`.
//!
//! Every setting remembers where it came from, so an unknown key or a bad value names the key
//! and the file (or the `--set` flag) that set it.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use ptc_plugin_api::{OptionSpec, OptionValue, Options};
use ptc_strategy_kit::shared_limit_options;

use crate::ab::pricing::Pricing;

/// The default configuration, compiled in. It is also the commented reference.
pub const DEFAULT_CONFIG: &str = include_str!("../../ptc.toml");

/// The name of the configuration file looked up in the working directory.
pub const CONFIG_FILE_NAME: &str = "ptc.toml";

/// Where a setting came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    /// A file path, `the built-in defaults`, or `--set KEY=VALUE`.
    pub name: String,
    /// Relative paths set here are relative to this directory.
    pub dir: PathBuf,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)
    }
}

/// A configuration that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read configuration {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("invalid configuration {origin}:{line}:{column}: {message}")]
    Syntax {
        origin: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("unknown key `{key}` in {origin}{hint}")]
    UnknownKey {
        key: String,
        origin: String,
        hint: String,
    },
    #[error("bad value for `{key}` in {origin}: expected {expected}, found {found}")]
    BadValue {
        key: String,
        origin: String,
        expected: String,
        found: String,
    },
    #[error("bad flag `--set {arg}`: {reason}")]
    BadSet { arg: String, reason: String },
}

#[derive(Clone, Debug)]
struct Setting {
    value: toml::Value,
    origin: Origin,
}

/// The layered configuration.
#[derive(Clone, Debug)]
pub struct Config {
    /// Dotted key (`compression.println_limit`, `strategies.NAME.KEY`) -> setting.
    settings: BTreeMap<String, Setting>,
    /// `--set KEY=VALUE` flags whose bare key is resolved once the strategy is known.
    bare: Vec<(String, Setting)>,
}

/// The `[compression]` keys besides the shared limits.
const COMPRESSION_KEYS: &[&str] = &["strategy", "enabled", "max_turns", "compress_above_tokens"];

/// The keys of a `[pricing.<name>]` table.
const PRICING_KEYS: &[&str] = &[
    "input_per_mtok",
    "cache_read_per_mtok",
    "cache_write_per_mtok",
    "min_cacheable_tokens",
    "cache_step_tokens",
];

impl Config {
    /// The built-in defaults alone.
    pub fn defaults() -> Config {
        let mut config = Config {
            settings: BTreeMap::new(),
            bare: Vec::new(),
        };
        let origin = Origin {
            name: "the built-in defaults".into(),
            dir: PathBuf::from("."),
        };
        config
            .layer_text(DEFAULT_CONFIG, origin)
            .expect("the built-in ptc.toml is valid");
        config
    }

    /// Defaults, then `config_file` (or `./ptc.toml` when it exists), then `sets`.
    pub fn load(config_file: Option<&Path>, sets: &[String]) -> Result<Config, ConfigError> {
        let mut config = Config::defaults();
        let file = match config_file {
            Some(path) => Some(path.to_owned()),
            None => Some(PathBuf::from(CONFIG_FILE_NAME)).filter(|p| p.is_file()),
        };
        if let Some(path) = file {
            config.layer_file(&path)?;
        }
        for arg in sets {
            config.layer_set(arg)?;
        }
        Ok(config)
    }

    /// Layers a TOML file over the current settings.
    pub fn layer_file(&mut self, path: &Path) -> Result<(), ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Io {
            path: path.to_owned(),
            source,
        })?;
        let dir = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
            .to_owned();
        self.layer_text(
            &text,
            Origin {
                name: path.display().to_string(),
                dir,
            },
        )
    }

    fn layer_text(&mut self, text: &str, origin: Origin) -> Result<(), ConfigError> {
        let table: toml::Table = toml::from_str(text).map_err(|err| {
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
        })?;
        let mut flat = Vec::new();
        flatten(&table, "", &mut flat);
        for (key, value) in flat {
            self.set(key, value, origin.clone())?;
        }
        Ok(())
    }

    /// Applies one `--set KEY=VALUE` flag. The value is TOML (`5`, `true`, `["a"]`); anything
    /// that does not parse as TOML is a string.
    pub fn layer_set(&mut self, arg: &str) -> Result<(), ConfigError> {
        let bad = |reason: &str| ConfigError::BadSet {
            arg: arg.into(),
            reason: reason.into(),
        };
        let (key, raw) = arg
            .split_once('=')
            .ok_or_else(|| bad("expected KEY=VALUE"))?;
        let key = key.trim();
        if key.is_empty() {
            return Err(bad("the key is empty"));
        }
        let value = toml::from_str::<toml::Table>(&format!("v = {raw}"))
            .ok()
            .and_then(|mut t| t.remove("v"))
            .unwrap_or_else(|| toml::Value::String(raw.to_owned()));
        let origin = Origin {
            name: format!("--set {arg}"),
            dir: PathBuf::from("."),
        };
        if key.contains('.') {
            self.set(key.to_owned(), value, origin)
        } else if COMPRESSION_KEYS.contains(&key) {
            self.set(format!("compression.{key}"), value, origin)
        } else {
            self.bare.push((key.to_owned(), Setting { value, origin }));
            Ok(())
        }
    }

    /// Checks and records one setting.
    fn set(&mut self, key: String, value: toml::Value, origin: Origin) -> Result<(), ConfigError> {
        check(&key, &value, &origin)?;
        let value = match (key.as_str(), value) {
            ("plugins.directories", toml::Value::Array(dirs)) => toml::Value::Array(
                dirs.into_iter()
                    .map(|d| match d {
                        toml::Value::String(s) => {
                            toml::Value::String(origin.dir.join(s).display().to_string())
                        }
                        other => other,
                    })
                    .collect(),
            ),
            ("templates.directory", toml::Value::String(s)) => {
                toml::Value::String(origin.dir.join(s).display().to_string())
            }
            (_, value) => value,
        };
        self.settings.insert(key, Setting { value, origin });
        Ok(())
    }

    /// The strategy `[compression] strategy` names.
    pub fn strategy(&self) -> &str {
        self.str("compression.strategy")
            .unwrap_or("single-user-coalesced")
    }

    /// `[compression] enabled`.
    pub fn compression_enabled(&self) -> bool {
        matches!(
            self.settings.get("compression.enabled").map(|s| &s.value),
            Some(toml::Value::Boolean(true))
        )
    }

    /// `[compression] max_turns`: used when a recording has none.
    pub fn max_turns(&self) -> u32 {
        self.integer("compression.max_turns")
            .and_then(|i| u32::try_from(i).ok())
            .unwrap_or(5)
    }

    /// The directories searched for strategy plugins, in order.
    pub fn plugin_directories(&self) -> Vec<PathBuf> {
        let mut dirs: Vec<PathBuf> = match self.settings.get("plugins.directories") {
            Some(Setting {
                value: toml::Value::Array(dirs),
                ..
            }) => dirs
                .iter()
                .filter_map(|d| d.as_str().map(PathBuf::from))
                .collect(),
            _ => Vec::new(),
        };
        let next_to_exe = !matches!(
            self.settings
                .get("plugins.next_to_executable")
                .map(|s| &s.value),
            Some(toml::Value::Boolean(false))
        );
        if next_to_exe {
            if let Some(dir) = std::env::current_exe()
                .ok()
                .and_then(|exe| exe.parent().map(Path::to_owned))
            {
                dirs.push(dir);
            }
        }
        dirs
    }

    /// `[plugins] allow_insecure`: load plugins that another user could have written.
    pub fn allow_insecure_plugins(&self) -> bool {
        matches!(
            self.settings
                .get("plugins.allow_insecure")
                .map(|s| &s.value),
            Some(toml::Value::Boolean(true))
        )
    }

    /// `[compression] compress_above_tokens`: send the full history while the prompt stays at or
    /// under this many tokens. `None` when off (absent or 0).
    pub fn compress_above_tokens(&self) -> Option<usize> {
        self.integer("compression.compress_above_tokens")
            .filter(|&n| n > 0)
            .map(|n| n as usize)
    }

    /// `[ab] strategies`: the strategies `ptc ab` compares (empty: every loaded strategy).
    pub fn ab_strategies(&self) -> Vec<String> {
        match self.settings.get("ab.strategies").map(|s| &s.value) {
            Some(toml::Value::Array(items)) => items
                .iter()
                .filter_map(|i| i.as_str().map(str::to_owned))
                .collect(),
            _ => Vec::new(),
        }
    }

    /// `[ab] baseline`: what costs are compared against.
    pub fn ab_baseline(&self) -> &str {
        self.str("ab.baseline").unwrap_or("full-history")
    }

    /// `[ab] pricing`: the pricing profile of the cost column.
    pub fn ab_pricing(&self) -> &str {
        self.str("ab.pricing").unwrap_or("anthropic")
    }

    /// `[ab] tokenizer`.
    pub fn ab_tokenizer(&self) -> &str {
        self.str("ab.tokenizer").unwrap_or("o200k_base")
    }

    /// Every `[pricing.<name>]` profile, in name order; each must set every key.
    pub fn pricing_profiles(&self) -> Result<Vec<Pricing>, ConfigError> {
        let mut names: Vec<&str> = self
            .settings
            .keys()
            .filter_map(|k| k.strip_prefix("pricing."))
            .filter_map(|rest| rest.split('.').next())
            .collect();
        names.dedup();
        names
            .into_iter()
            .map(|name| {
                let number = |key: &str| -> Result<f64, ConfigError> {
                    let full = format!("pricing.{name}.{key}");
                    let setting =
                        self.settings
                            .get(&full)
                            .ok_or_else(|| ConfigError::BadValue {
                                key: full.clone(),
                                origin: self
                                    .settings
                                    .range(format!("pricing.{name}.")..)
                                    .next()
                                    .map(|(_, s)| s.origin.name.clone())
                                    .unwrap_or_default(),
                                expected: "a value (every [pricing.<name>] key is required)".into(),
                                found: "nothing".into(),
                            })?;
                    Ok(setting
                        .value
                        .as_float()
                        .or_else(|| setting.value.as_integer().map(|i| i as f64))
                        .unwrap_or(0.0))
                };
                Ok(Pricing {
                    name: name.to_owned(),
                    input_per_mtok: number("input_per_mtok")?,
                    cache_read_per_mtok: number("cache_read_per_mtok")?,
                    cache_write_per_mtok: number("cache_write_per_mtok")?,
                    min_cacheable_tokens: number("min_cacheable_tokens")? as usize,
                    cache_step_tokens: number("cache_step_tokens")? as usize,
                })
            })
            .collect()
    }

    /// The directory whose files replace default templates.
    pub fn templates_directory(&self) -> PathBuf {
        PathBuf::from(self.str("templates.directory").unwrap_or("templates"))
    }

    /// Resolves the bare `--set` keys against the selected strategy's options: a bare key is
    /// that strategy's option of that name, else the `[compression]` key of that name.
    pub fn resolve_bare_keys(
        &mut self,
        strategy: &str,
        specs: &[OptionSpec],
    ) -> Result<(), ConfigError> {
        for (key, setting) in std::mem::take(&mut self.bare) {
            let full = if specs.iter().any(|s| s.name.as_str() == key) {
                format!("strategies.{strategy}.{key}")
            } else if is_shared_limit(&key) {
                format!("compression.{key}")
            } else {
                return Err(ConfigError::UnknownKey {
                    key,
                    origin: setting.origin.name,
                    hint: format!(
                        ": neither an option of strategy `{strategy}` ({}) nor a [compression] key",
                        option_names(specs)
                    ),
                });
            };
            self.set(full, setting.value, setting.origin)?;
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
        let prefix = format!("strategies.{name}.");
        for (key, setting) in self.settings.range(prefix.clone()..) {
            let Some(option) = key.strip_prefix(&prefix) else {
                break;
            };
            if !specs.iter().any(|s| s.name.as_str() == option) {
                return Err(ConfigError::UnknownKey {
                    key: key.clone(),
                    origin: setting.origin.name.clone(),
                    hint: format!(
                        ": strategy `{name}` has the options {}",
                        option_names(specs)
                    ),
                });
            }
        }
        let mut resolved = Vec::with_capacity(specs.len());
        for spec in specs {
            let own = format!("{prefix}{}", spec.name);
            let shared = format!("compression.{}", spec.name);
            let value = match self
                .settings
                .get(&own)
                .or_else(|| self.settings.get(&shared))
            {
                Some(setting) => {
                    let key = if self.settings.contains_key(&own) {
                        &own
                    } else {
                        &shared
                    };
                    option_value(key, setting, &spec.default)?
                }
                None => spec.default.clone(),
            };
            resolved.push((spec.name.to_string(), value));
        }
        Ok(Options::from_pairs(resolved))
    }

    /// The names of every `[strategies.<name>]` table set.
    pub fn configured_strategies(&self) -> Vec<(String, String)> {
        let mut names: Vec<(String, String)> = Vec::new();
        for (key, setting) in &self.settings {
            if let Some(rest) = key.strip_prefix("strategies.") {
                let name = rest.split('.').next().unwrap_or(rest).to_owned();
                if names.last().map(|(n, _)| n) != Some(&name) {
                    names.push((name, setting.origin.name.clone()));
                }
            }
        }
        names
    }

    fn str(&self, key: &str) -> Option<&str> {
        self.settings.get(key).and_then(|s| s.value.as_str())
    }

    fn integer(&self, key: &str) -> Option<i64> {
        self.settings.get(key).and_then(|s| s.value.as_integer())
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

fn is_shared_limit(key: &str) -> bool {
    shared_limit_options()
        .iter()
        .any(|s| s.name.as_str() == key)
}

/// A setting as an option value of the kind its default has.
fn option_value(
    key: &str,
    setting: &Setting,
    default: &OptionValue,
) -> Result<OptionValue, ConfigError> {
    let value = match (default, &setting.value) {
        (OptionValue::Boolean(_), toml::Value::Boolean(b)) => Some(OptionValue::Boolean(*b)),
        (OptionValue::Integer(_), toml::Value::Integer(i)) => Some(OptionValue::Integer(*i)),
        (OptionValue::Float(_), toml::Value::Float(f)) => Some(OptionValue::Float(*f)),
        (OptionValue::Float(_), toml::Value::Integer(i)) => Some(OptionValue::Float(*i as f64)),
        (OptionValue::String(_), toml::Value::String(s)) => {
            Some(OptionValue::String(s.as_str().into()))
        }
        _ => None,
    };
    value.ok_or_else(|| ConfigError::BadValue {
        key: key.into(),
        origin: setting.origin.name.clone(),
        expected: format!("{} (like the default {default})", article(default.kind())),
        found: describe(&setting.value),
    })
}

fn article(kind: &str) -> String {
    match kind {
        "integer" => "an integer".into(),
        other => format!("a {other}"),
    }
}

/// Checks a setting's key and the type of its value.
fn check(key: &str, value: &toml::Value, origin: &Origin) -> Result<(), ConfigError> {
    let bad = |expected: &str| ConfigError::BadValue {
        key: key.into(),
        origin: origin.name.clone(),
        expected: expected.into(),
        found: describe(value),
    };
    let unknown = |hint: &str| ConfigError::UnknownKey {
        key: key.into(),
        origin: origin.name.clone(),
        hint: hint.into(),
    };
    let parts: Vec<&str> = key.splitn(3, '.').collect();
    let section = parts[0];
    // Only `strategies.<name>.<option>` has three parts.
    let name = match parts.len() {
        2 => Some(parts[1]),
        3 if section == "strategies" || section == "pricing" => Some(parts[1]),
        _ => None,
    };
    match (section, name) {
        ("compression", Some("strategy")) => value
            .as_str()
            .map(drop)
            .ok_or_else(|| bad("a strategy name")),
        ("compression", Some("enabled")) => value
            .as_bool()
            .map(drop)
            .ok_or_else(|| bad("true or false")),
        ("compression", Some("max_turns")) => match value.as_integer() {
            Some(i) if i >= 1 && i <= i64::from(u32::MAX) => Ok(()),
            _ => Err(bad("an integer of at least 1")),
        },
        ("compression", Some("compress_above_tokens")) => match value.as_integer() {
            Some(i) if i >= 0 => Ok(()),
            _ => Err(bad("a non-negative number of tokens (0 = off)")),
        },
        ("compression", Some(limit)) if is_shared_limit(limit) => match value.as_integer() {
            Some(i) if i >= 0 => Ok(()),
            _ => Err(bad("a non-negative integer")),
        },
        ("compression", _) => Err(unknown(&format!(
            " (the [compression] keys are {}, {})",
            COMPRESSION_KEYS.join(", "),
            shared_limit_options()
                .iter()
                .map(|s| s.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ))),
        ("plugins", Some("directories")) => match value {
            toml::Value::Array(items) if items.iter().all(toml::Value::is_str) => Ok(()),
            _ => Err(bad("an array of directory paths")),
        },
        ("plugins", Some("next_to_executable")) => value
            .as_bool()
            .map(drop)
            .ok_or_else(|| bad("true or false")),
        ("plugins", Some("allow_insecure")) => value
            .as_bool()
            .map(drop)
            .ok_or_else(|| bad("true or false")),
        ("plugins", _) => Err(unknown(
            " (the [plugins] keys are directories, next_to_executable, allow_insecure)",
        )),
        ("templates", Some("directory")) => value
            .as_str()
            .map(drop)
            .ok_or_else(|| bad("a directory path")),
        ("templates", _) => Err(unknown(" (the [templates] key is directory)")),
        ("ab", Some("strategies")) => match value {
            toml::Value::Array(items) if items.iter().all(toml::Value::is_str) => Ok(()),
            _ => Err(bad(
                "an array of strategy names (or name@option=value variants)",
            )),
        },
        ("ab", Some("baseline" | "pricing" | "tokenizer")) => {
            value.as_str().map(drop).ok_or_else(|| bad("a name"))
        }
        ("ab", _) => Err(unknown(
            " (the [ab] keys are strategies, baseline, pricing, tokenizer)",
        )),
        ("pricing", Some(_)) if parts.len() == 3 && PRICING_KEYS.contains(&parts[2]) => {
            let number = value
                .as_float()
                .or_else(|| value.as_integer().map(|i| i as f64));
            match number {
                Some(n) if n >= 0.0 => Ok(()),
                _ => Err(bad("a non-negative number")),
            }
        }
        ("pricing", _) => Err(unknown(&format!(
            " (a [pricing.<name>] table has the keys {})",
            PRICING_KEYS.join(", ")
        ))),
        ("strategies", Some(_)) if parts.len() == 3 => Ok(()),
        ("strategies", _) => Err(bad("a table of options: [strategies.<name>]")),
        _ => Err(unknown(
            " (the sections are [compression], [plugins], [templates], [strategies.<name>])",
        )),
    }
}

/// Flattens a table into dotted keys; `strategies.<name>` tables flatten one level further.
fn flatten(table: &toml::Table, prefix: &str, out: &mut Vec<(String, toml::Value)>) {
    for (key, value) in table {
        let full = if prefix.is_empty() {
            key.clone()
        } else {
            format!("{prefix}.{key}")
        };
        let depth = full.matches('.').count();
        let descend = match value {
            toml::Value::Table(_) => {
                depth == 0
                    || (depth == 1
                        && (full.starts_with("strategies.") || full.starts_with("pricing.")))
            }
            _ => false,
        };
        match value {
            toml::Value::Table(inner) if descend => flatten(inner, &full, out),
            _ => out.push((full, value.clone())),
        }
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

/// 1-based line and column of byte `offset` in `text`.
pub(crate) fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layered(text: &str) -> Result<Config, ConfigError> {
        let mut config = Config::defaults();
        config.layer_text(
            text,
            Origin {
                name: "user.toml".into(),
                dir: PathBuf::from("/cfg"),
            },
        )?;
        Ok(config)
    }

    #[test]
    fn built_in_defaults_match_the_shared_limits() {
        let config = Config::defaults();
        assert_eq!(config.strategy(), "single-user-coalesced");
        assert!(config.compression_enabled());
        assert_eq!(config.max_turns(), 5);
        for spec in shared_limit_options() {
            let key = format!("compression.{}", spec.name);
            let set = config.integer(&key).map(OptionValue::Integer);
            assert_eq!(set.as_ref(), Some(&spec.default), "{key} in ptc.toml");
        }
    }

    #[test]
    fn layers_override_and_name_their_origin() {
        let config = layered("[compression]\nprintln_limit = 5\n").unwrap();
        let specs = shared_limit_options();
        let options = config.strategy_options("s", &specs).unwrap();
        assert_eq!(options.count("println_limit").unwrap(), 5);
        assert_eq!(options.count("tool_call_limit").unwrap(), 20);
    }

    #[test]
    fn errors_name_key_and_file() {
        let err = layered("[compression]\nprintln_limt = 5\n")
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("unknown key `compression.println_limt` in user.toml"),
            "{err}"
        );
        let err = layered("[compression]\nprintln_limit = \"many\"\n")
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "bad value for `compression.println_limit` in user.toml: expected a non-negative integer, found the string \"many\""
        );
        let err = layered("[compression\n").unwrap_err().to_string();
        assert!(
            err.starts_with("invalid configuration user.toml:1:"),
            "{err}"
        );
    }

    #[test]
    fn set_flags_address_strategy_options_then_compression() {
        let specs = vec![OptionSpec::count("window", 2, "turns kept")];
        let mut config = Config::defaults();
        config.layer_set("window=4").unwrap();
        config.layer_set("println_limit=7").unwrap();
        config.layer_set("strategies.other.x=\"a b\"").unwrap();
        config.resolve_bare_keys("rw", &specs).unwrap();
        let mut all = specs.clone();
        all.extend(shared_limit_options());
        let options = config.strategy_options("rw", &all).unwrap();
        assert_eq!(options.count("window").unwrap(), 4);
        assert_eq!(options.count("println_limit").unwrap(), 7);

        let mut config = Config::defaults();
        config.layer_set("nope=1").unwrap();
        let err = config
            .resolve_bare_keys("rw", &specs)
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("unknown key `nope` in --set nope=1"),
            "{err}"
        );
        assert!(Config::defaults().layer_set("novalue").is_err());
    }

    #[test]
    fn strategy_tables_are_checked_against_the_options() {
        let config = layered("[strategies.s]\nwindow = \"x\"\n").unwrap();
        let specs = vec![OptionSpec::count("window", 2, "")];
        let err = config
            .strategy_options("s", &specs)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("expected an integer (like the default 2), found the string \"x\""),
            "{err}"
        );
        let config = layered("[strategies.s]\nwindw = 1\n").unwrap();
        let err = config
            .strategy_options("s", &specs)
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("unknown key `strategies.s.windw` in user.toml"),
            "{err}"
        );
    }

    #[test]
    fn relative_paths_are_relative_to_their_file() {
        let config =
            layered("[plugins]\ndirectories = [\"p\"]\nnext_to_executable = false\n").unwrap();
        assert_eq!(config.plugin_directories(), vec![PathBuf::from("/cfg/p")]);
    }
}
