//! Discovery and loading of strategy plugins: every file with the platform's dylib suffix
//! directly inside a plugin directory is a candidate. A candidate that cannot be loaded is a
//! warning naming the file and the cause; the others load and work.
//!
//! Each file is loaded with `lib_header_from_path(..).init_root_module()` rather than
//! `RootModule::load_from_file`, which caches one module per process and would hand back the
//! first plugin for every later file. Libraries are never unloaded.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use ptc_plugin_api::abi_stable::library::{lib_header_from_path, LibraryError};
use ptc_plugin_api::abi_stable::std_types::RSlice;
use ptc_plugin_api::{
    OptionSpec, Options, Output, RenderError, Run, StrategyModRef, Turn, ABI_VERSION,
};

use crate::elf;

/// A strategy ready to render.
pub struct LoadedStrategy {
    pub name: String,
    pub version: String,
    pub description: String,
    /// The dylib it came from (absolute), or a label for a strategy linked in.
    pub file: PathBuf,
    pub options: Vec<OptionSpec>,
    /// Compiled-in templates: name -> tera source.
    pub templates: Vec<(String, String)>,
    module: StrategyModRef,
}

/// A plugin file that was not loaded, or a directory that could not be read.
#[derive(Debug, thiserror::Error)]
pub enum PluginError {
    #[error("cannot read plugin directory {dir}: {source}")]
    Directory {
        dir: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("skipping plugin {path}: {reason}")]
    Load { path: PathBuf, reason: String },
    #[error("skipping plugin {path}: strategy `{name}` is already loaded from {first}")]
    Duplicate {
        path: PathBuf,
        name: String,
        first: PathBuf,
    },
}

impl LoadedStrategy {
    /// Wraps a root module, reading its name, options and templates once.
    pub fn from_module(module: StrategyModRef, file: PathBuf) -> Result<LoadedStrategy, String> {
        let abi_version = module.abi_version();
        if abi_version != ABI_VERSION {
            return Err(format!(
                "built for plugin ABI version {abi_version}, this host speaks version {ABI_VERSION}; rebuild the plugin against this ptc-plugin-api"
            ));
        }
        let name = module.name().as_str().to_owned();
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        {
            return Err(format!(
                "the strategy name {name:?} is not kebab-case (lowercase letters, digits and `-`)"
            ));
        }
        let options = (module.options())()
            .into_result()
            .map_err(|e| format!("its options could not be read: {e}"))?
            .into_vec();
        let templates = (module.templates())()
            .into_result()
            .map_err(|e| format!("its templates could not be read: {e}"))?
            .into_iter()
            .map(|t| (t.0.as_str().to_owned(), t.1.as_str().to_owned()))
            .collect();
        Ok(LoadedStrategy {
            name,
            version: module.version().as_str().to_owned(),
            description: module.description().as_str().to_owned(),
            file,
            options,
            templates,
            module,
        })
    }

    /// Loads the strategy plugin at `path`.
    pub fn load(path: &Path) -> Result<LoadedStrategy, PluginError> {
        let fail = |reason: String| PluginError::Load {
            path: path.to_owned(),
            reason,
        };
        let bytes = std::fs::read(path).map_err(|e| fail(format!("cannot read it: {e}")))?;
        if cfg!(all(unix, not(target_os = "macos"))) {
            elf::check(&bytes).map_err(&fail)?;
        }
        drop(bytes);
        let header = lib_header_from_path(path).map_err(|e| fail(library_error(&e)))?;
        let module = header
            .init_root_module::<StrategyModRef>()
            .map_err(|e| fail(library_error(&e)))?;
        let file = path.canonicalize().unwrap_or_else(|_| path.to_owned());
        LoadedStrategy::from_module(module, file).map_err(fail)
    }

    /// Renders the prompt for turn `turns.len() + 1`.
    pub fn render(
        &self,
        run: &Run,
        turns: &[Turn],
        options: &Options,
    ) -> Result<Output, RenderError> {
        (self.module.render())(run, RSlice::from_slice(turns), options).into_result()
    }
}

/// A plugin-loading error in one line a user can act on: abi_stable's layout reports run to
/// hundreds of lines, and symbol errors carry NUL bytes.
fn library_error(err: &LibraryError) -> String {
    match err {
        LibraryError::IncompatibleVersionNumber {
            expected_version,
            actual_version,
            ..
        } => format!(
            "built for ptc-plugin-api {actual_version}, this host speaks {expected_version}; rebuild the plugin against this ptc-plugin-api"
        ),
        LibraryError::GetSymbolError { .. } => {
            "not a ptc strategy plugin (it exports no root module)".into()
        }
        LibraryError::AbiInstability(_) => {
            let text = err.to_string();
            let first = text
                .lines()
                .map(str::trim)
                .find(|l| l.starts_with("Error:"))
                .map(|l| l.trim_start_matches("Error:").trim().to_owned());
            format!(
                "its types do not match this host's ptc-plugin-api (first difference: {}); rebuild the plugin against this ptc-plugin-api",
                first.unwrap_or_else(|| "unknown".into())
            )
        }
        other => other.to_string().replace('\0', ""),
    }
}

/// The strategies found in the plugin directories.
#[derive(Default)]
pub struct PluginSet {
    strategies: Vec<LoadedStrategy>,
    /// Files that did not load, in discovery order.
    pub warnings: Vec<PluginError>,
}

impl PluginSet {
    /// Loads every candidate in `dirs`, in order (files sorted by name within a directory).
    /// A directory that does not exist is skipped; the first plugin of a name wins.
    pub fn discover(dirs: &[PathBuf]) -> PluginSet {
        let mut set = PluginSet::default();
        let mut seen_files = HashSet::new();
        for dir in dirs {
            let entries = match std::fs::read_dir(dir) {
                Ok(entries) => entries,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    tracing::debug!("plugin directory {} does not exist", dir.display());
                    continue;
                }
                Err(source) => {
                    set.warnings.push(PluginError::Directory {
                        dir: dir.clone(),
                        source,
                    });
                    continue;
                }
            };
            let mut files: Vec<PathBuf> = entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| is_candidate(p))
                .collect();
            files.sort();
            for path in files {
                let key = path.canonicalize().unwrap_or_else(|_| path.clone());
                if !seen_files.insert(key) {
                    continue;
                }
                tracing::debug!("loading plugin {}", path.display());
                match LoadedStrategy::load(&path) {
                    Ok(strategy) => set.add(strategy, &path),
                    Err(err) => set.warnings.push(err),
                }
            }
        }
        set
    }

    /// Adds a strategy unless one of the same name is loaded already.
    pub fn add(&mut self, strategy: LoadedStrategy, path: &Path) {
        match self.get(&strategy.name) {
            Some(first) => self.warnings.push(PluginError::Duplicate {
                path: path.to_owned(),
                name: strategy.name,
                first: first.file.clone(),
            }),
            None => self.strategies.push(strategy),
        }
    }

    pub fn get(&self, name: &str) -> Option<&LoadedStrategy> {
        self.strategies.iter().find(|s| s.name == name)
    }

    /// Loaded strategies sorted by name.
    pub fn strategies(&self) -> Vec<&LoadedStrategy> {
        let mut all: Vec<_> = self.strategies.iter().collect();
        all.sort_by(|a, b| a.name.cmp(&b.name));
        all
    }
}

fn is_candidate(path: &Path) -> bool {
    let suffix = std::env::consts::DLL_SUFFIX;
    path.is_file()
        && path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.ends_with(suffix) && n.len() > suffix.len())
}
