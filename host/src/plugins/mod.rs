//! Discovery and loading of strategy plugins: every file with the platform's dylib suffix
//! directly inside a plugin directory is a candidate. A candidate that cannot be loaded is a
//! warning naming the file and the cause; the others load and work.
//!
//! Each file is loaded with `lib_header_from_path(..).init_root_module()` rather than
//! `RootModule::load_from_file`, which caches one module per process and would hand back the
//! first plugin for every later file. Libraries are never unloaded.

pub mod directories;
pub mod elf;
mod error;
mod file;
mod found;
mod manage_error;
pub mod running;
pub mod trust;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ptc_plugin_api::abi_stable::library::lib_header_from_path;
use ptc_plugin_api::abi_stable::std_types::{RSlice, RVec};
use ptc_plugin_api::{
    ModelCall, OptionSpec, Options, Output, RenderError, Run, StrategyModRef, Turn, ABI_VERSION,
};

pub use error::{Built, Difference, LoadError, PluginError};
use file::PluginFile;
pub use found::{DirectoryState, FileOutcome, FoundFile, SearchedDirectory};
pub use manage_error::PluginsError;

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
    /// The kinds of recorded data its prompts are made from (every kind when the plugin, built
    /// against an older contract, does not say).
    pub renders_from: Vec<String>,
    module: StrategyModRef,
    /// What names it if it ends the process from inside a call.
    label: running::Label,
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
        let label = running::Label::new(&name, &file);
        let options = running::during(&label, || (module.options())())
            .into_result()
            .map_err(LoadError::Options)?
            .into_vec();
        let templates = running::during(&label, || (module.templates())())
            .into_result()
            .map_err(LoadError::Templates)?
            .into_iter()
            .map(|t| (t.0.as_str().to_owned(), t.1.as_str().to_owned()))
            .collect();
        let renders_from = match module.renders_from() {
            Some(renders_from) => running::during(&label, || renders_from())
                .iter()
                .map(|k| k.as_str().to_owned())
                .collect(),
            None => ptc_plugin_api::RECORDED_DATA
                .iter()
                .map(|k| (*k).to_owned())
                .collect(),
        };
        Ok(LoadedStrategy {
            name,
            renders_from,
            version: module.version().as_str().to_owned(),
            description: module.description().as_str().to_owned(),
            file,
            options,
            templates,
            module,
            label,
        })
    }

    /// Loads the strategy plugin at `path` (without the trust check of
    /// [`PluginSet::discover`]).
    pub fn load(path: &Path) -> Result<LoadedStrategy, PluginError> {
        LoadedStrategy::load_open(PluginFile::open(path)?)
    }

    /// [`LoadedStrategy::load`], with a handle on the very file that was checked and loaded,
    /// to copy it from without opening its path again.
    pub fn load_keeping(path: &Path) -> Result<(LoadedStrategy, std::fs::File), PluginError> {
        let plugin = PluginFile::open(path)?;
        let kept = plugin.file.try_clone().map_err(|e| PluginError::Load {
            path: path.to_owned(),
            source: LoadError::Read(e),
        })?;
        Ok((LoadedStrategy::load_open(plugin)?, kept))
    }

    /// Loads the plugin file `plugin` opened: the very file that was opened (and checked),
    /// whatever its path names by now.
    fn load_open(plugin: PluginFile) -> Result<LoadedStrategy, PluginError> {
        let path = plugin.shown.clone();
        let fail = |source: LoadError| PluginError::Load {
            path: path.clone(),
            source,
        };
        if cfg!(all(unix, not(target_os = "macos"))) {
            elf::check(&plugin.file, plugin.len).map_err(|e| fail(e.into()))?;
        }
        let (shown, real) = (plugin.shown.clone(), plugin.real.clone());
        let loaded = plugin.hand_over();
        let named = Named {
            loaded: &loaded,
            shown: &shown,
        };
        let header =
            lib_header_from_path(&loaded).map_err(|e| fail(LoadError::library(e, None, named)))?;
        let built = Built::of(&loaded, header);
        if let Some(abi) = built.abi.filter(|&abi| abi != ABI_VERSION) {
            return Err(fail(LoadError::Incompatible {
                built,
                difference: Difference::AbiVersion(abi),
                source: None,
            }));
        }
        let module = header
            .init_root_module::<StrategyModRef>()
            .map_err(|e| fail(LoadError::library(e, Some(&built), named)))?;
        LoadedStrategy::from_module(module, real).map_err(fail)
    }

    /// Renders the prompt for turn `turns.len() + 1`.
    pub fn render<'r>(
        &self,
        run: &'r Run,
        turns: &'r [Turn],
        options: &Options,
    ) -> Result<Output<'r>, RenderError> {
        running::during(&self.label, || {
            (self.module.render())(run, RSlice::from_slice(turns), options)
        })
        .into_result()
    }

    /// The model calls the strategy makes before sending the prompt for turn
    /// `turns.len() + 1`, besides it: none for a plugin built before the contract had them.
    pub fn model_calls<'r>(
        &self,
        run: &'r Run,
        turns: &'r [Turn],
        options: &Options,
    ) -> Result<Vec<ModelCall<'r>>, RenderError> {
        match self.module.model_calls() {
            Some(calls) => running::during(&self.label, || {
                calls(run, RSlice::from_slice(turns), options)
            })
            .into_result()
            .map(RVec::into_vec),
            None => Ok(Vec::new()),
        }
    }
}

/// The path the loader was given and the path the user knows the plugin by.
#[derive(Clone, Copy)]
struct Named<'a> {
    loaded: &'a Path,
    shown: &'a Path,
}

/// The strategies found in the plugin directories.
#[derive(Default)]
pub struct PluginSet {
    strategies: Vec<LoadedStrategy>,
    /// Files that did not load, in discovery order (shared: the error of a command that needs
    /// a strategy that did not load carries the warning about its file).
    pub warnings: Vec<Arc<PluginError>>,
    /// Every directory searched, in order, with what it held.
    pub directories: Vec<SearchedDirectory>,
}

impl PluginSet {
    /// Loads every candidate in `dirs`, in order (files sorted by name within a directory).
    /// A directory that does not exist is skipped. The first plugin of a name wins: one of a
    /// later directory is hidden by it (as a command on `PATH` is), and a second one in the
    /// same directory is a warning.
    ///
    /// Unless `allow_insecure`, a directory or file that another user could write is refused
    /// (see the `trust` module).
    pub fn discover(dirs: &[PathBuf], allow_insecure: bool) -> PluginSet {
        let mut set = PluginSet::default();
        let mut seen_files = HashSet::new();
        let mut seen_dirs = HashSet::new();
        for dir in dirs {
            let searched = set.search(dir, allow_insecure, &mut seen_dirs, &mut seen_files);
            set.directories.push(searched);
        }
        set
    }

    /// Loads the candidates of one directory.
    fn search(
        &mut self,
        dir: &Path,
        allow_insecure: bool,
        seen_dirs: &mut HashSet<PathBuf>,
        seen_files: &mut HashSet<PathBuf>,
    ) -> SearchedDirectory {
        let mut searched = SearchedDirectory {
            path: dir.to_owned(),
            state: DirectoryState::Searched,
            files: Vec::new(),
        };
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                tracing::debug!("plugin directory {} does not exist", dir.display());
                searched.state = DirectoryState::Missing;
                return searched;
            }
            Err(source) => {
                searched.state = DirectoryState::Skipped(self.warn(PluginError::Directory {
                    dir: dir.to_owned(),
                    source,
                }));
                return searched;
            }
        };
        if !seen_dirs.insert(dir.canonicalize().unwrap_or_else(|_| dir.to_owned())) {
            searched.state = DirectoryState::Repeated;
            return searched;
        }
        if !allow_insecure {
            if let Some(reason) = insecure_directory(dir) {
                searched.state =
                    DirectoryState::Skipped(self.warn(PluginError::InsecureDirectory {
                        dir: dir.to_owned(),
                        reason,
                    }));
                return searched;
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
            let outcome = self.load_file(&path, allow_insecure);
            searched.files.push(FoundFile { path, outcome });
        }
        searched
    }

    /// Loads the plugin file `path` of the directory being searched.
    fn load_file(&mut self, path: &Path, allow_insecure: bool) -> FileOutcome {
        if is_hidden(path) {
            return FileOutcome::Skipped(self.warn(PluginError::Hidden {
                path: path.to_owned(),
            }));
        }
        let plugin = match PluginFile::open(path) {
            Ok(plugin) => plugin,
            Err(err) => return FileOutcome::Skipped(self.warn(err)),
        };
        if !allow_insecure {
            if let Some(reason) = plugin.insecure() {
                return FileOutcome::Skipped(self.warn(PluginError::Insecure {
                    path: path.to_owned(),
                    reason,
                }));
            }
        }
        tracing::debug!("loading plugin {}", path.display());
        let strategy = match LoadedStrategy::load_open(plugin) {
            Ok(strategy) => strategy,
            Err(err) => return FileOutcome::Skipped(self.warn(err)),
        };
        let (name, version) = (strategy.name.clone(), strategy.version.clone());
        let Some(first) = self.get(&name) else {
            self.strategies.push(strategy);
            return FileOutcome::Loaded {
                strategy: name,
                version,
            };
        };
        let first_file = first.file.clone();
        // The directory being searched is not on the list yet: a strategy of an earlier one
        // hides this file; one of the same directory makes it a duplicate.
        let in_earlier_directory = self
            .directories
            .iter()
            .any(|d| d.files.iter().any(|f| f.strategy() == Some(name.as_str())));
        if in_earlier_directory {
            tracing::debug!(
                "plugin {} is hidden by {}, which provides strategy `{name}` too",
                path.display(),
                first_file.display()
            );
            return FileOutcome::Hidden {
                strategy: name,
                version,
                by: first_file,
            };
        }
        FileOutcome::Skipped(self.warn(PluginError::Duplicate {
            path: path.to_owned(),
            name,
            first: first_file,
        }))
    }

    /// Adds a strategy unless one of the same name is loaded already.
    pub fn add(&mut self, strategy: LoadedStrategy, path: &Path) {
        match self.get(&strategy.name) {
            Some(first) => {
                let warning = PluginError::Duplicate {
                    path: path.to_owned(),
                    name: strategy.name,
                    first: first.file.clone(),
                };
                self.warn(warning);
            }
            None => self.strategies.push(strategy),
        }
    }

    fn warn(&mut self, warning: PluginError) -> Arc<PluginError> {
        let warning = Arc::new(warning);
        self.warnings.push(warning.clone());
        warning
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

/// Why another user could change what plugin directory `dir` holds: the directory itself,
/// then the directories on its real path.
pub fn insecure_directory(dir: &Path) -> Option<String> {
    trust::insecure(dir).or_else(|| {
        #[cfg(unix)]
        {
            let real = dir.canonicalize().ok()?;
            trust::insecure_directories(&real)
        }
        #[cfg(not(unix))]
        None
    })
}

/// Whether `path`'s name starts with `.`, which hides it from `ls`.
pub fn is_hidden(path: &Path) -> bool {
    path.file_name()
        .is_some_and(|n| n.as_encoded_bytes().first() == Some(&b'.'))
}

fn is_candidate(path: &Path) -> bool {
    let suffix = std::env::consts::DLL_SUFFIX;
    path.is_file()
        && path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.ends_with(suffix) && n.len() > suffix.len())
}

#[cfg(all(test, target_os = "linux"))]
mod tests;
