//! The host: configuration, the strategies found in the plugin directories, and the host's own
//! templates, put together so that rendering a prompt takes a few lines.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use ptc_plugin_api::abi_stable::std_types::Tuple2;
use ptc_plugin_api::{OptionSpec, SHOW_PRIVATE};

use crate::config::Config;
use crate::plugins::{LoadedStrategy, PluginError, PluginSet};
use crate::recording::{Recording, RecordingDefaults};
use crate::render::templates::{Origin, Templates};
use crate::render::trigger::{Prompter, Rendering, AS_SENT};
use crate::render::Renderer;
use crate::tokens::Tokenizer;
use crate::Error;

pub use crate::render::UNCOMPRESSED_STRATEGY;

/// What [`Host::on_plugins_loaded`] calls.
type OnLoad = dyn Fn(&Host) + Send + Sync;

/// A configured host. Its plugins are loaded when first needed: a command that renders
/// nothing runs no plugin code.
///
/// ```no_run
/// use ptc::{Config, Host};
///
/// let host = Host::new(Config::load(None, &[])?);
/// let recording = host.load_recording("examples/recordings/tool-actions.json".as_ref())?;
/// let renderer = host.renderer(None)?;
/// let prompt = renderer.render(&recording, recording.turns.len())?;
/// for message in &prompt.messages {
///     println!("{}: {}", message.role.as_str(), message.content);
/// }
/// # Ok::<(), ptc::Error>(())
/// ```
pub struct Host {
    config: Config,
    plugins: OnceLock<PluginSet>,
    /// Called once, right after the plugins are loaded.
    on_load: Option<Box<OnLoad>>,
    loaded_reported: AtomicBool,
    /// Whether strategies render private values too (`--show-private`, a debugging view).
    show_private: bool,
    /// The largest recording read, in bytes ([`RecordingDefaults::max_recording_bytes`]).
    max_recording_bytes: u64,
}

/// The tokenizer called `name`, or an error naming the ones there are.
pub fn tokenizer_named(name: &str) -> Result<Tokenizer, Error> {
    Tokenizer::from_name(name)
        .ok_or_else(|| Error::unknown_name("tokenizer", name, &["o200k_base", "cl100k_base"]))
}

impl Host {
    /// A host that loads every plugin in the configured directories the first time one is
    /// needed. Files that fail to load are in [`Host::plugin_warnings`].
    pub fn new(config: Config) -> Host {
        Host {
            config,
            plugins: OnceLock::new(),
            on_load: None,
            loaded_reported: AtomicBool::new(false),
            show_private: false,
            max_recording_bytes: crate::recording::DEFAULT_MAX_RECORDING_BYTES,
        }
    }

    /// A host with the given strategies instead of discovered plugins (tests, benchmarks,
    /// programs that link strategy crates directly).
    pub fn with_strategies(config: Config, strategies: Vec<LoadedStrategy>) -> Host {
        let mut plugins = PluginSet::default();
        for strategy in strategies {
            let file = strategy.file.clone();
            plugins.add(strategy, &file);
        }
        let host = Host::new(config);
        let _ = host.plugins.set(plugins);
        host
    }

    /// Has every strategy render private values (names and keys starting with `_`) instead of
    /// hiding them: a debugging view of the recording, never the prompt an agent is sent. It
    /// is a command-line switch only, never a configuration key.
    pub fn showing_private(mut self, show: bool) -> Host {
        self.show_private = show;
        self
    }

    /// Reads no recording (a file, a line of a JSONL file, a log) larger than `limit` bytes
    /// (`--max-recording-bytes`); by default [`crate::recording::DEFAULT_MAX_RECORDING_BYTES`].
    pub fn with_max_recording_bytes(mut self, limit: u64) -> Host {
        self.max_recording_bytes = limit;
        self
    }

    /// Calls `report` once, when the plugins have been loaded (before anything uses them):
    /// the command line prints the warnings about plugin files there.
    pub fn on_plugins_loaded(mut self, report: impl Fn(&Host) + Send + Sync + 'static) -> Host {
        self.on_load = Some(Box::new(report));
        self
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The one recording `path` names (a file, `FILE.jsonl:LINE`, an agent's log of one run,
    /// or a corpus of one), read with the configuration's defaults.
    pub fn recording(&self, path: &Path) -> Result<Recording, Error> {
        let defaults = self.recording_defaults()?;
        Ok(crate::recording::corpus::source(path, &defaults)?.load(&defaults)?)
    }

    /// The tokenizer called `name`, else the one of `[ab] tokenizer`; an error names the ones
    /// there are.
    pub fn tokenizer(&self, name: Option<&str>) -> Result<Tokenizer, Error> {
        tokenizer_named(name.unwrap_or(self.config.ab_tokenizer()))
    }

    /// The strategies of the plugin directories, loaded on the first call.
    pub fn plugins(&self) -> &PluginSet {
        let plugins = self.plugins.get_or_init(|| {
            PluginSet::discover(
                &self.config.plugin_directories(),
                self.config.allow_insecure_plugins(),
            )
        });
        if let Some(report) = &self.on_load {
            if !self.loaded_reported.swap(true, Ordering::SeqCst) {
                report(self);
            }
        }
        plugins
    }

    /// Plugin files that did not load, and why.
    pub fn plugin_warnings(&self) -> &[Arc<PluginError>] {
        &self.plugins().warnings
    }

    /// `[strategies.<name>]` tables that name no loaded strategy, with the file setting them.
    pub fn unused_strategy_tables(&self) -> Vec<(String, String)> {
        self.config
            .configured_strategies()
            .into_iter()
            .filter(|(name, _)| self.plugins().get(name).is_none())
            .collect()
    }

    /// The name of the strategy a command uses when none is given: `[compression] strategy`,
    /// or `full-history` when compression is disabled.
    pub fn default_strategy(&self) -> &str {
        if self.config.compression_enabled() {
            self.config.strategy()
        } else {
            UNCOMPRESSED_STRATEGY
        }
    }

    /// The strategy a command uses: `name` if given, else `[compression] strategy`, or
    /// `full-history` when compression is disabled.
    pub fn strategy(&self, name: Option<&str>) -> Result<&LoadedStrategy, Error> {
        let name = name.unwrap_or_else(|| self.default_strategy());
        self.plugins().get(name).ok_or_else(|| {
            let warnings = self.plugin_warnings();
            if let Some(warning) = warnings.iter().find(|w| w.may_hold(name)) {
                return Error::StrategyNotLoaded {
                    name: name.to_owned(),
                    source: Arc::clone(warning),
                };
            }
            let loaded: Vec<&str> = self
                .plugins()
                .strategies()
                .iter()
                .map(|s| s.name.as_str())
                .collect();
            Error::UnknownStrategy {
                name: name.to_owned(),
                // The recorded requests are named as a strategy is, wherever one is.
                suggestion: crate::suggest::did_you_mean(
                    name,
                    loaded
                        .iter()
                        .copied()
                        .chain([crate::render::trigger::AS_SENT]),
                ),
                loaded: if loaded.is_empty() {
                    "none".into()
                } else {
                    loaded.join(", ")
                },
                dirs: self
                    .config
                    .plugin_directories()
                    .iter()
                    .map(|d| d.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
                skipped: match warnings.len() {
                    0 => String::new(),
                    n => format!(
                        "; {n} plugin file(s) or directories were not loaded (see the warnings)"
                    ),
                },
            }
        })
    }

    /// A renderer for the strategy [`Host::strategy`] picks, with its options resolved from the
    /// configuration and its templates loaded.
    pub fn renderer(&self, name: Option<&str>) -> Result<Renderer<'_>, Error> {
        self.renderer_with(name, &self.config)
    }

    /// [`Host::renderer`] with another configuration (a variant's options), the same plugins.
    pub fn renderer_with(
        &self,
        name: Option<&str>,
        config: &Config,
    ) -> Result<Renderer<'_>, Error> {
        let strategy = self.strategy(name)?;
        let mut config = config.clone();
        config.resolve_bare_keys(&strategy.name, &strategy.options)?;
        let mut options = config.strategy_options(&strategy.name, &strategy.options)?;
        if self.show_private {
            options.entries.push(Tuple2(
                SHOW_PRIVATE.into(),
                ptc_plugin_api::OptionValue::Boolean(true),
            ));
        }
        let dir = config.templates_directory();
        let templates = Templates::load_checked(
            &strategy.name,
            &strategy.templates,
            strategy_overrides(&dir, &strategy.name),
            |file| insecure_template(&dir, file, config.allow_insecure_plugins()),
        )?;
        let names = strategy.templates.iter().map(|(name, _)| name.as_str());
        log_templates(&config, &dir, &strategy.name, &templates, names);
        Ok(Renderer::new(strategy, options, templates))
    }

    /// The prompter `name` selects: the recorded requests for `as-sent`, else
    /// [`Host::prompter`]'s, so that every command takes the same names.
    pub fn prompter_or_as_sent(&self, name: Option<&str>) -> Result<Prompter<'_>, Error> {
        match name {
            Some(AS_SENT) => Ok(Prompter::AsSent),
            name => Ok(self.prompter(name)?.into()),
        }
    }

    /// A prompter for the selected strategy: with `[compression] compress_above_tokens` set, it
    /// sends the full history while that prompt stays under the threshold.
    pub fn prompter(&self, name: Option<&str>) -> Result<Rendering<'_>, Error> {
        self.prompter_with(name, &self.config, self.config.compress_above_tokens())
    }

    /// [`Host::prompter`] with another configuration and threshold.
    pub fn prompter_with(
        &self,
        name: Option<&str>,
        config: &Config,
        threshold: Option<usize>,
    ) -> Result<Rendering<'_>, Error> {
        let strategy = self.renderer_with(name, config)?;
        let threshold = match threshold {
            Some(limit) => Some((
                self.renderer_with(Some(UNCOMPRESSED_STRATEGY), config)?,
                limit,
            )),
            None => None,
        };
        Ok(Rendering {
            strategy,
            threshold,
        })
    }

    /// The options `strategy` declares.
    pub fn option_specs(&self, strategy: &str) -> Option<&[OptionSpec]> {
        self.plugins().get(strategy).map(|s| s.options.as_slice())
    }

    /// The host's own templates: `system_prompt`, `text_output`, `trace_turns`,
    /// `compression_box`, `usage` and `report.html`.
    pub fn host_templates(&self) -> Result<Templates, Error> {
        let defaults: Vec<(String, String)> = crate::render::templates::host_defaults()
            .iter()
            .map(|(name, text)| ((*name).to_owned(), (*text).to_owned()))
            .collect();
        let dir = self.config.templates_directory();
        let allow = self.config.allow_insecure_plugins();
        let templates = Templates::load_checked(
            "ptc",
            &defaults,
            |name| vec![dir.join(format!("{name}.tera"))],
            |file| insecure_template(&dir, file, allow),
        )?;
        let names = defaults.iter().map(|(name, _)| name.as_str());
        log_templates(&self.config, &dir, "ptc", &templates, names);
        Ok(templates)
    }

    /// What recordings take from the configuration: `max_turns`, and the default system prompt
    /// rendered from its template.
    pub fn recording_defaults(&self) -> Result<RecordingDefaults, Error> {
        let system_prompt = self
            .host_templates()?
            .render("system_prompt", &serde_json::json!({}))?;
        Ok(RecordingDefaults {
            max_turns: self.config.max_turns(),
            system_prompt: system_prompt.trim_end_matches('\n').to_owned(),
            max_recording_bytes: self.max_recording_bytes,
        })
    }

    /// Reads and checks a recording.
    pub fn load_recording(&self, path: &Path) -> Result<Recording, Error> {
        Ok(Recording::load(path, &self.recording_defaults()?)?)
    }
}

/// Why another user could have written template `file`, found under the templates directory
/// `dir`: the file itself, or a directory from the one holding it up to `dir` (whoever can
/// write one can put another file in its place), by the rule plugins follow; `None` with
/// `allow_insecure` (`--allow-insecure-plugins`).
fn insecure_template(dir: &Path, file: &Path, allow_insecure: bool) -> Option<String> {
    if allow_insecure {
        return None;
    }
    if let Some(reason) = crate::plugins::trust::insecure(file) {
        return Some(reason);
    }
    for holder in file.ancestors().skip(1) {
        if holder.as_os_str().is_empty() {
            break;
        }
        if let Some(reason) = crate::plugins::trust::insecure(holder) {
            return Some(format!("its directory {}: {reason}", holder.display()));
        }
        if holder == dir {
            break;
        }
    }
    None
}

/// The directory of the sections the coalescing strategies share, under the templates
/// directory: `coalesce/turns_left.tera` changes the turns-left line of every strategy that shows
/// it.
pub const SHARED_TEMPLATES_DIR: &str = "coalesce";

/// Where the override of a strategy's template `name` is looked up, first found wins:
/// `<dir>/<strategy>/<name>.tera`, then, for the sections of the strategy kit,
/// `<dir>/coalesce/<name>.tera`.
pub fn strategy_overrides<'a>(
    dir: &'a Path,
    strategy: &'a str,
) -> impl Fn(&str) -> Vec<PathBuf> + 'a {
    move |name| {
        let file = format!("{name}.tera");
        let mut candidates = vec![dir.join(strategy).join(&file)];
        if is_shared_section(name) {
            candidates.push(dir.join(SHARED_TEMPLATES_DIR).join(&file));
        }
        candidates
    }
}

/// Whether `name` is one of the sections the strategy kit provides (the coalesced view's and
/// the transcript's observation).
pub fn is_shared_section(name: &str) -> bool {
    ptc_strategy_kit::coalesce::TEMPLATES
        .iter()
        .chain(ptc_strategy_kit::transcript::TEMPLATES)
        .any(|(shared, _)| *shared == name)
}

/// Says on `-v` which of `owner`'s templates are in force and where each comes from: a file of
/// the templates directory `dir` (and where that directory is set), or the built-in one. A
/// template edited in a directory ptc does not read is not silently ignored.
fn log_templates<'a>(
    config: &Config,
    dir: &Path,
    owner: &str,
    templates: &Templates,
    names: impl Iterator<Item = &'a str>,
) {
    if !tracing::enabled!(tracing::Level::DEBUG) {
        return;
    }
    let (files, built_in): (Vec<&str>, Vec<&str>) =
        names.partition(|name| matches!(templates.origin(name), Origin::File(_)));
    let from = format!(
        "{} ({})",
        dir.display(),
        config.templates_directory_origin()
    );
    match files.is_empty() {
        true => tracing::debug!(
            "templates of {owner}: the built-in ones ({}); none in {from}",
            built_in.join(", ")
        ),
        false => tracing::debug!(
            "templates of {owner}: {} from {from}; built in: {}",
            files.join(", "),
            match built_in.is_empty() {
                true => "none".to_owned(),
                false => built_in.join(", "),
            }
        ),
    }
}
