//! Configuration: the repository's `ptc.toml` is compiled in as the default; a `ptc.toml` in the
//! working directory (or `--config FILE`) is layered over it, then each `--set KEY=VALUE`.
//!
//! Every setting remembers where it came from, so an unknown key or a bad value names the key
//! and the file (with the line and column) or the `--set` flag that set it. The fixed sections
//! are serde structs ([`schema`]) and the compiled-in `ptc.toml` is the only source of their
//! defaults; the options of `[strategies.<name>]` are checked against those the strategy
//! declares, once it is loaded ([`Config::strategy_options`]). The layering ([`layer`]) is built
//! on serde, toml and serde_path_to_error rather than on a layered-configuration library such
//! as figment, because those keep the file a value came from but not its line and column, and
//! their messages would replace ours, which name the key, its origin and what was expected.

mod error;
mod layer;
mod options;
mod pricing;
mod schema;
#[cfg(test)]
mod tests;

use std::fmt;
use std::path::{Path, PathBuf};

use crate::plugins::directories::{user_directory, DirectoryKind, PluginDirectory};
pub use error::ConfigError;
use layer::{Layer, Layered};
use schema::Schema;

/// The default configuration, compiled in. It is also the commented reference.
pub const DEFAULT_CONFIG: &str = include_str!("../../../ptc.toml");

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

/// The layered configuration.
#[derive(Clone, Debug)]
pub struct Config {
    layers: Layered,
    /// The merged layers, read.
    typed: Schema,
    /// `--set KEY=VALUE` flags whose bare key is resolved once the strategy is known.
    bare: Vec<(String, toml::Value, Origin)>,
    /// Strategy options set by [`Config::set_option`]: (`strategies.<name>.<option>`,
    /// `<option>`), so that an error names the option as the user wrote it.
    said_options: Vec<(String, String)>,
}

/// The name of the layer of the built-in defaults.
const BUILT_IN: &str = "the built-in defaults";

impl Config {
    /// The built-in defaults alone.
    pub fn defaults() -> Config {
        let origin = Origin {
            name: BUILT_IN.into(),
            dir: PathBuf::from("."),
        };
        let mut layers = Layered::default();
        let typed = Layer::parse(DEFAULT_CONFIG, origin)
            .and_then(|layer| layers.apply(layer))
            .expect("the built-in ptc.toml is valid");
        Config {
            layers,
            typed,
            bare: Vec::new(),
            said_options: Vec::new(),
        }
    }

    /// Defaults, then `config_file` (or `./ptc.toml` when it exists), then `sets`.
    ///
    /// A configuration file chooses the plugin directories and can allow insecure plugins, so
    /// one that another user could have written is refused like a plugin (see
    /// [`Config::load_allowing_insecure`]).
    pub fn load(config_file: Option<&Path>, sets: &[String]) -> Result<Config, ConfigError> {
        Config::load_allowing_insecure(config_file, sets, false)
    }

    /// [`Config::load`]; with `allow_insecure` (`--allow-insecure-plugins`) a configuration
    /// file that another user could have written is read too, and so are such plugins
    /// (`[plugins] allow_insecure` is set last, over every layer).
    pub fn load_allowing_insecure(
        config_file: Option<&Path>,
        sets: &[String],
        allow_insecure: bool,
    ) -> Result<Config, ConfigError> {
        let mut config = Config::defaults();
        let file = match config_file {
            Some(path) => Some(path.to_owned()),
            None => Some(PathBuf::from(CONFIG_FILE_NAME)).filter(|p| p.is_file()),
        };
        if let Some(path) = file {
            if !allow_insecure {
                if let Some(reason) = insecure_file(&path) {
                    return Err(ConfigError::Insecure { path, reason });
                }
            }
            config.layer_file(&path)?;
        }
        for arg in sets {
            config.layer_set(arg)?;
        }
        if allow_insecure {
            config.layer_set("plugins.allow_insecure=true")?;
        }
        // A profile may be completed by any layer, so it is checked once all are applied.
        config.pricing_profiles()?;
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
        self.apply(Layer::parse(text, origin)?)
    }

    fn apply(&mut self, layer: Layer) -> Result<(), ConfigError> {
        self.typed = self.layers.apply(layer)?;
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
        let compression_key = self
            .layers
            .table(&["compression"])
            .is_some_and(|table| table.contains_key(key));
        if key.contains('.') {
            self.apply(Layer::single(key, value, origin))
        } else if compression_key && !self.is_shared_limit(key) {
            self.apply(Layer::single(&format!("compression.{key}"), value, origin))
        } else {
            self.bare.push((key.to_owned(), value, origin));
            Ok(())
        }
    }

    /// Sets option `option` of strategy `strategy` to `raw` (TOML, else a string), as the user
    /// wrote it in `said`: a variant (`rolling-window@window=2`) or a request's `"options"`.
    /// An error about the value names `option` and `said`, not a configuration key.
    pub fn set_option(
        &mut self,
        strategy: &str,
        option: &str,
        raw: &str,
        said: &str,
    ) -> Result<(), ConfigError> {
        let value = toml::from_str::<toml::Table>(&format!("v = {raw}"))
            .ok()
            .and_then(|mut t| t.remove("v"))
            .unwrap_or_else(|| toml::Value::String(raw.to_owned()));
        self.set_option_value(strategy, option, value, said)
    }

    /// [`Config::set_option`] with the value given typed, not as text.
    pub fn set_option_value(
        &mut self,
        strategy: &str,
        option: &str,
        value: toml::Value,
        said: &str,
    ) -> Result<(), ConfigError> {
        let key = format!("strategies.{strategy}.{option}");
        let origin = Origin {
            name: said.to_owned(),
            dir: PathBuf::from("."),
        };
        self.said_options.push((key.clone(), option.to_owned()));
        self.apply(Layer::single(&key, value, origin))
    }

    /// `key` as the user wrote it: the option name for an option set by
    /// [`Config::set_option`], else the key itself.
    fn key_as_said(&self, key: &str) -> String {
        self.said_options
            .iter()
            .rev()
            .find(|(full, _)| full == key)
            .map_or_else(|| key.to_owned(), |(_, option)| option.clone())
    }

    /// The strategy `[compression] strategy` names.
    pub fn strategy(&self) -> &str {
        &self.typed.compression.strategy
    }

    /// `[compression] enabled`.
    pub fn compression_enabled(&self) -> bool {
        self.typed.compression.enabled
    }

    /// `[compression] max_turns`: used when a recording has none.
    pub fn max_turns(&self) -> u32 {
        u32::try_from(self.typed.compression.max_turns.0).expect("max_turns is read as a u32")
    }

    /// The directories searched for strategy plugins, in order.
    pub fn plugin_directories(&self) -> Vec<PathBuf> {
        self.plugin_directory_list()
            .into_iter()
            .map(|dir| dir.path)
            .collect()
    }

    /// The directories searched for strategy plugins, in order, each with why it is searched:
    /// `[plugins] directories`, then the executable's directory (`next_to_executable`), then
    /// the user plugin directory (`user_directory`).
    pub fn plugin_directory_list(&self) -> Vec<PluginDirectory> {
        let plugins = &self.typed.plugins;
        let origin = self
            .layers
            .source("plugins.directories")
            .map(|source| source.origin.to_string())
            .unwrap_or_default();
        let mut dirs: Vec<PluginDirectory> = plugins
            .directories
            .iter()
            .map(|dir| PluginDirectory {
                path: self.path("plugins.directories", dir),
                kind: DirectoryKind::Configured {
                    origin: origin.clone(),
                },
            })
            .collect();
        if plugins.next_to_executable {
            if let Some(dir) = std::env::current_exe()
                .ok()
                .and_then(|exe| exe.parent().map(Path::to_owned))
            {
                dirs.push(PluginDirectory {
                    path: dir,
                    kind: DirectoryKind::NextToExecutable,
                });
            }
        }
        if plugins.user_directory {
            if let Some(dir) = user_directory() {
                dirs.push(PluginDirectory {
                    path: dir,
                    kind: DirectoryKind::User,
                });
            }
        }
        dirs
    }

    /// `[plugins] allow_insecure`: load plugins that another user could have written.
    pub fn allow_insecure_plugins(&self) -> bool {
        self.typed.plugins.allow_insecure
    }

    /// `[compression] compress_above_tokens`: send the full history while the prompt stays at or
    /// under this many tokens. `None` when off (0).
    pub fn compress_above_tokens(&self) -> Option<usize> {
        let tokens = self.typed.compression.compress_above_tokens.0;
        usize::try_from(tokens).ok().filter(|&n| n > 0)
    }

    /// `[ab] strategies`: the strategies `ptc ab` compares (empty: every loaded strategy).
    pub fn ab_strategies(&self) -> Vec<String> {
        self.typed.ab.strategies.clone()
    }

    /// `[ab] baseline`: what costs are compared against.
    pub fn ab_baseline(&self) -> &str {
        &self.typed.ab.baseline
    }

    /// Whether `[ab] baseline` was set by a `--set` flag (a choice for this run alone).
    pub fn ab_baseline_set_by_flag(&self) -> bool {
        self.layers
            .source("ab.baseline")
            .is_some_and(|s| s.origin.name.starts_with("--set "))
    }

    /// `[ab] pricing`: the pricing profile of the cost column.
    pub fn ab_pricing(&self) -> &str {
        &self.typed.ab.pricing
    }

    /// `[ab] tokenizer`.
    pub fn ab_tokenizer(&self) -> &str {
        &self.typed.ab.tokenizer
    }

    /// `[ab] require`: what the verdict requires of a strategy, as written.
    pub fn ab_require(&self) -> &[String] {
        &self.typed.ab.require
    }

    /// The directory whose files replace default templates.
    pub fn templates_directory(&self) -> PathBuf {
        self.path("templates.directory", &self.typed.templates.directory)
    }

    /// Where [`Config::templates_directory`] comes from: the place that set it, or the default.
    pub fn templates_directory_origin(&self) -> String {
        match self.layers.source("templates.directory") {
            Some(source) if source.origin.name != BUILT_IN => {
                format!("templates.directory set in {source}")
            }
            _ => "the default templates.directory, from the working directory".to_owned(),
        }
    }

    fn is_shared_limit(&self, key: &str) -> bool {
        self.typed.compression.shared_limit(key).is_some()
    }

    /// Where `key` was set, with its line and column in a file.
    fn place(&self, key: &str) -> String {
        self.layers
            .source(key)
            .map(ToString::to_string)
            .unwrap_or_default()
    }

    /// `path`, set at `key`, relative to the directory of the file that set it.
    fn path(&self, key: &str, path: &str) -> PathBuf {
        match self.layers.source(key) {
            Some(source) => source.origin.dir.join(path),
            None => PathBuf::from(path),
        }
    }
}

/// 1-based line and column of byte `offset` in `text` (for many offsets of one text, keep its
/// [`Lines`]).
pub(crate) fn line_column(text: &str, offset: usize) -> (usize, usize) {
    Lines::new(text).line_column(offset)
}

/// Where the lines of a text start, to tell the line and column of many offsets in it (every
/// key of a configuration file) without reading the text from its start for each.
pub(crate) struct Lines<'a> {
    text: &'a str,
    /// Byte offset of each line's start: 0, then one past each line break.
    starts: Vec<usize>,
}

impl<'a> Lines<'a> {
    pub fn new(text: &'a str) -> Lines<'a> {
        let breaks = memchr::memchr_iter(b'\n', text.as_bytes()).map(|at| at + 1);
        Lines {
            text,
            starts: std::iter::once(0).chain(breaks).collect(),
        }
    }

    /// [`line_column`] of byte `offset`.
    pub fn line_column(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        // The lines that start at or before `offset`: the last of them holds it.
        let line = self.starts.partition_point(|&start| start <= offset);
        let start = self.starts[line - 1];
        (line, self.text[start..offset].chars().count() + 1)
    }
}

/// Why another user could have written configuration file `path` (the file, or the directory
/// holding it, which lets its writers replace the file), by the rules plugins follow.
fn insecure_file(path: &Path) -> Option<String> {
    if let Some(reason) = crate::plugins::trust::insecure(path) {
        return Some(reason);
    }
    let dir = match path.parent().filter(|p| !p.as_os_str().is_empty()) {
        Some(dir) => dir.to_owned(),
        None => PathBuf::from("."),
    };
    crate::plugins::trust::insecure(&dir)
        .map(|reason| format!("its directory {}: {reason}", dir.display()))
}
