//! Discovery and loading of strategy plugins: every file with the platform's dylib suffix
//! directly inside a plugin directory is a candidate. A candidate that cannot be loaded is a
//! warning naming the file and the cause; the others load and work.
//!
//! Each file is loaded with `lib_header_from_path(..).init_root_module()` rather than
//! `RootModule::load_from_file`, which caches one module per process and would hand back the
//! first plugin for every later file. Libraries are never unloaded.

pub mod elf;
mod error;
pub mod trust;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ptc_plugin_api::abi_stable::library::lib_header_from_path;
use ptc_plugin_api::abi_stable::std_types::RSlice;
use ptc_plugin_api::{
    OptionSpec, Options, Output, RenderError, Run, StrategyModRef, Turn, ABI_VERSION,
};

pub use error::{Built, Difference, LoadError, PluginError};

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

impl LoadedStrategy {
    /// Wraps a root module, reading its name, options and templates once.
    pub fn from_module(module: StrategyModRef, file: PathBuf) -> Result<LoadedStrategy, LoadError> {
        let abi_version = module.abi_version();
        if abi_version != ABI_VERSION {
            return Err(LoadError::AbiVersion(abi_version));
        }
        let name = module.name().as_str().to_owned();
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        {
            return Err(LoadError::NotKebabCase(name));
        }
        let options = (module.options())()
            .into_result()
            .map_err(LoadError::Options)?
            .into_vec();
        let templates = (module.templates())()
            .into_result()
            .map_err(LoadError::Templates)?
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
        let fail = |source: LoadError| PluginError::Load {
            path: path.to_owned(),
            source,
        };
        let bytes = std::fs::read(path).map_err(|e| fail(LoadError::Read(e)))?;
        if cfg!(all(unix, not(target_os = "macos"))) {
            elf::check(&bytes).map_err(|e| fail(e.into()))?;
        }
        drop(bytes);
        let header = lib_header_from_path(path).map_err(|e| fail(LoadError::library(e, None)))?;
        let built = Built::of(path, header);
        if let Some(abi) = built.abi.filter(|&abi| abi != ABI_VERSION) {
            return Err(fail(LoadError::Incompatible {
                built,
                difference: Difference::AbiVersion(abi),
                source: None,
            }));
        }
        let module = header
            .init_root_module::<StrategyModRef>()
            .map_err(|e| fail(LoadError::library(e, Some(&built))))?;
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

/// The strategies found in the plugin directories.
#[derive(Default)]
pub struct PluginSet {
    strategies: Vec<LoadedStrategy>,
    /// Files that did not load, in discovery order (shared: the error of a command that needs
    /// a strategy that did not load carries the warning about its file).
    pub warnings: Vec<Arc<PluginError>>,
}

impl PluginSet {
    /// Loads every candidate in `dirs`, in order (files sorted by name within a directory).
    /// A directory that does not exist is skipped; the first plugin of a name wins.
    ///
    /// Unless `allow_insecure`, a directory or file that another user could write is refused
    /// (see the `trust` module).
    pub fn discover(dirs: &[PathBuf], allow_insecure: bool) -> PluginSet {
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
                    set.warn(PluginError::Directory {
                        dir: dir.clone(),
                        source,
                    });
                    continue;
                }
            };
            if !allow_insecure {
                if let Some(reason) = trust::insecure(dir) {
                    set.warn(PluginError::InsecureDirectory {
                        dir: dir.clone(),
                        reason,
                    });
                    continue;
                }
            }
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
                if !allow_insecure {
                    if let Some(reason) = trust::insecure(&path) {
                        set.warn(PluginError::Insecure { path, reason });
                        continue;
                    }
                }
                tracing::debug!("loading plugin {}", path.display());
                match LoadedStrategy::load(&path) {
                    Ok(strategy) => set.add(strategy, &path),
                    Err(err) => set.warn(err),
                }
            }
        }
        set
    }

    /// Adds a strategy unless one of the same name is loaded already.
    pub fn add(&mut self, strategy: LoadedStrategy, path: &Path) {
        match self.get(&strategy.name) {
            Some(first) => self.warn(PluginError::Duplicate {
                path: path.to_owned(),
                name: strategy.name,
                first: first.file.clone(),
            }),
            None => self.strategies.push(strategy),
        }
    }

    fn warn(&mut self, warning: PluginError) {
        self.warnings.push(Arc::new(warning));
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
