//! Discovery and loading of strategy plugins: every file with the platform's dylib suffix
//! directly inside a plugin directory is a candidate. A candidate that cannot be loaded is a
//! warning naming the file and the cause; the others load and work.
//!
//! Each file is loaded with `lib_header_from_path(..).init_root_module()` rather than
//! `RootModule::load_from_file`, which caches one module per process and would hand back the
//! first plugin for every later file. Libraries are never unloaded.

pub mod elf;
pub mod trust;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use ptc_plugin_api::abi_stable::library::{
    lib_header_from_path, LibHeader, LibraryError, RawLibrary, RootModule,
};
use ptc_plugin_api::abi_stable::std_types::RSlice;
use ptc_plugin_api::{
    OptionSpec, Options, Output, RenderError, Run, StrategyModRef, Turn, ABI_VERSION,
    ABI_VERSION_SYMBOL,
};

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
    #[error("refusing plugin directory {dir}: {reason}; or pass --allow-insecure-plugins")]
    InsecureDirectory { dir: PathBuf, reason: String },
    #[error("refusing plugin {path}: {reason}; or pass --allow-insecure-plugins")]
    Insecure { path: PathBuf, reason: String },
}

impl PluginError {
    /// The plugin file (or directory) the error is about.
    pub fn path(&self) -> &Path {
        match self {
            PluginError::Directory { dir, .. } | PluginError::InsecureDirectory { dir, .. } => dir,
            PluginError::Load { path, .. }
            | PluginError::Duplicate { path, .. }
            | PluginError::Insecure { path, .. } => path,
        }
    }

    /// Whether this file, by its name, probably holds strategy `name`: `libNAME.so` or
    /// `libptc_strategy_NAME.so`, with `_` for `-`.
    pub fn may_hold(&self, name: &str) -> bool {
        if matches!(self, PluginError::Duplicate { .. }) {
            return false;
        }
        let Some(stem) = self.path().file_name().and_then(|n| n.to_str()) else {
            return false;
        };
        let stem = stem
            .strip_suffix(std::env::consts::DLL_SUFFIX)
            .unwrap_or(stem);
        let stem = stem
            .strip_prefix(std::env::consts::DLL_PREFIX)
            .unwrap_or(stem);
        let stem = stem.strip_prefix("ptc_strategy_").unwrap_or(stem);
        stem.replace('_', "-") == name
    }
}

/// The contract a plugin file says it was built for, read before its types are checked.
struct Built {
    /// The version of the ptc-plugin-api it was compiled against.
    api: String,
    /// Its `ABI_VERSION`, when it exports the symbol (plugins built before it existed do not).
    abi: Option<u32>,
}

impl Built {
    /// Reads what `header` and the file's `ABI_VERSION_SYMBOL` say.
    fn of(path: &Path, header: &LibHeader) -> Built {
        Built {
            api: header.version_strings().version.as_str().to_owned(),
            abi: abi_version_symbol(path),
        }
    }

    /// `built for ptc-plugin-api 0.1.0 (ABI version 2), this host has ptc-plugin-api 0.1.0
    /// (ABI version 1): WHAT; rebuild ...`: both versions, then what differs.
    fn mismatch(&self, what: &str) -> String {
        let abi = self
            .abi
            .map_or_else(|| "unknown".to_owned(), |v| v.to_string());
        format!(
            "built for ptc-plugin-api {} (ABI version {abi}), this host has ptc-plugin-api {} (ABI version {ABI_VERSION}): {what}; rebuild the plugin against this host's ptc-plugin-api",
            self.api,
            StrategyModRef::VERSION_STRINGS.version.as_str(),
        )
    }
}

/// The plugin's `ABI_VERSION`, from the plain symbol `export_strategy!` exports.
fn abi_version_symbol(path: &Path) -> Option<u32> {
    let library = RawLibrary::load_at(path).ok()?;
    let mut name = ABI_VERSION_SYMBOL.as_bytes().to_vec();
    name.push(0);
    // SAFETY: the symbol is a `u32` static (`export_strategy!` defines it), and the library stays
    // loaded: the loader already holds it, and libraries are never unloaded.
    unsafe {
        let symbol = library.get::<*const u32>(&name).ok()?;
        let pointer: *const u32 = *symbol;
        (!pointer.is_null()).then(|| pointer.read())
    }
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
        let header = lib_header_from_path(path).map_err(|e| fail(library_error(&e, None)))?;
        let built = Built::of(path, header);
        if let Some(abi) = built.abi.filter(|&abi| abi != ABI_VERSION) {
            return Err(fail(built.mismatch(&format!(
                "the plugin speaks ABI version {abi}, this host {ABI_VERSION}"
            ))));
        }
        let module = header
            .init_root_module::<StrategyModRef>()
            .map_err(|e| fail(library_error(&e, Some(&built))))?;
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
fn library_error(err: &LibraryError, built: Option<&Built>) -> String {
    match (err, built) {
        (LibraryError::GetSymbolError { .. }, _) => {
            "not a ptc strategy plugin (it exports no root module)".into()
        }
        (LibraryError::IncompatibleVersionNumber { .. }, Some(built)) => {
            built.mismatch("the plugin-api versions are incompatible")
        }
        (LibraryError::AbiInstability(_), Some(built)) => {
            let report = err.to_string();
            tracing::debug!("the whole layout report:\n{report}");
            let first = first_difference(&report);
            built.mismatch(&format!("their types differ; first difference: {first}"))
        }
        (other, _) => one_line(&other.to_string()),
    }
}

/// The first difference of an abi_stable layout report in one line: where (the field, in the
/// type holding it, and the field's type), what, and the expected and found values, e.g.
/// ``at `Stats.turns_compressed` (u32): mismatched type, expected u64, found u32``.
fn first_difference(report: &str) -> String {
    let lines: Vec<&str> = report.lines().map(str::trim).collect();
    let Some(at) = lines.iter().position(|l| l.starts_with("Error:")) else {
        return "unknown".into();
    };
    let what = lines[at].trim_start_matches("Error:").trim();
    // The path to the difference: `field_name:` / `type:` pairs after the last `N error(s)inside:`
    // (N > 0) before the error.
    let mut path: Vec<(&str, &str)> = Vec::new();
    if let Some(inside) = lines[..at]
        .iter()
        .rposition(|l| l.ends_with("error(s)inside:") && !l.starts_with("0 "))
    {
        let mut field = None;
        for line in &lines[inside + 1..at] {
            if line.starts_with("Layout of ") {
                break;
            }
            if let Some(name) = line.strip_prefix("field_name:") {
                field = Some(name);
            } else if let (Some(ty), Some(name)) = (line.strip_prefix("type:"), field.take()) {
                path.push((name, ty));
            }
        }
    }
    let values = |label: &str| -> Option<String> {
        let from = lines[at..].iter().position(|l| *l == label)? + at + 1;
        let value: Vec<&str> = lines[from..]
            .iter()
            .take_while(|l| !l.is_empty() && !l.ends_with(':'))
            .copied()
            .collect();
        (!value.is_empty()).then(|| value.join(" "))
    };
    let mut text = match path.as_slice() {
        [.., (_, holder), (field, ty)] => format!("at `{holder}.{field}` ({ty}): {what}"),
        [(field, ty)] => format!("at `{field}` ({ty}): {what}"),
        [] => what.to_owned(),
    };
    if let (Some(expected), Some(found)) = (values("Expected:"), values("Found:")) {
        text.push_str(&format!(", expected {expected}, found {found}"));
    }
    let mut text = one_line(&text);
    if text.len() > 300 {
        let cut = (0..=300)
            .rev()
            .find(|&i| text.is_char_boundary(i))
            .unwrap_or(0);
        text.truncate(cut);
        text.push_str("...");
    }
    text
}

/// `text` without NUL bytes, its lines joined with spaces.
fn one_line(text: &str) -> String {
    text.replace('\0', "")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
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
                    set.warnings.push(PluginError::Directory {
                        dir: dir.clone(),
                        source,
                    });
                    continue;
                }
            };
            if !allow_insecure {
                if let Some(reason) = trust::insecure(dir) {
                    set.warnings.push(PluginError::InsecureDirectory {
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
                        set.warnings.push(PluginError::Insecure { path, reason });
                        continue;
                    }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The shape of abi_stable's report: the path to the difference after `N error(s)inside:`,
    /// the layouts, then `Error:` with the expected and found values (trimmed here).
    const REPORT: &str = "
Compared <this>:
    --- Type Layout ---
    type:PrefixRef<'a, StrategyMod>
0 error(s)inside:
    <other>
    field_name:0
    type:StrategyMod
1 error(s)inside:
    <other>
    field_name:0
    type:StrategyMod
    field_name:render
    type:AFunctionPointer
    fn pointer(s):
        fn(,,,: &'a  Run , param_1: RSlice<'a>, param_2: &'a  Options )->RResult
    field_name:__returns
    type:RResult
    field_name:stats
    type:Stats
    field_name:turns_compressed
    type:u32
Layout of expected type:
    --- Type Layout ---
    type:u64
Layout of found type:
    --- Type Layout ---
    type:u32

Error:mismatched type
Expected:
    u64
Found:
    u32

";

    #[test]
    fn the_first_difference_names_field_holder_and_values() {
        assert_eq!(
            first_difference(REPORT),
            "at `Stats.turns_compressed` (u32): mismatched type, expected u64, found u32"
        );
        assert_eq!(first_difference("no error here"), "unknown");
        assert_eq!(
            first_difference("Error:too many variants\nExpected:\n  3\nFound:\n  4\n"),
            "too many variants, expected 3, found 4"
        );
    }

    #[test]
    fn a_skipped_file_is_matched_to_the_strategy_its_name_suggests() {
        let skipped = |file: &str| PluginError::Load {
            path: PathBuf::from("plugins").join(format!(
                "{}{file}{}",
                std::env::consts::DLL_PREFIX,
                std::env::consts::DLL_SUFFIX
            )),
            reason: "x".into(),
        };
        assert!(skipped("ptc_strategy_turn_count").may_hold("turn-count"));
        assert!(skipped("my_strategy").may_hold("my-strategy"));
        assert!(!skipped("my_strategy").may_hold("my"));
        let duplicate = PluginError::Duplicate {
            path: PathBuf::from("plugins/libturn_count.so"),
            name: "turn-count".into(),
            first: PathBuf::from("other"),
        };
        assert!(!duplicate.may_hold("turn-count"));
    }
}
