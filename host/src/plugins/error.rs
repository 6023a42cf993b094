//! Why a plugin did not load, in one line a user can act on: the file, the cause, and for a
//! plugin built for another contract both versions and what differs. The loader's own error
//! stays the source (abi_stable's layout reports run to hundreds of lines: `ptc -v` logs them).

use std::fmt;
use std::path::{Path, PathBuf};

use ptc_plugin_api::abi_stable::library::{LibHeader, LibraryError, RawLibrary, RootModule};
use ptc_plugin_api::{RenderError, StrategyModRef, ABI_VERSION, ABI_VERSION_SYMBOL};

use super::{elf, Named};

/// A plugin file that was not loaded, or a directory that could not be read.
#[derive(Debug, thiserror::Error)]
pub enum PluginError {
    #[error("cannot read plugin directory {dir}: {source}")]
    Directory {
        dir: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("skipping plugin {path}: {source}")]
    Load {
        path: PathBuf,
        #[source]
        source: LoadError,
    },
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
    /// A name starting with `.`, which `ls` does not show: a plugin nobody sees is not loaded.
    #[error("skipping plugin {path}: its name starts with `.`, which hides it from `ls`; rename it to load it")]
    Hidden { path: PathBuf },
}

impl PluginError {
    /// The plugin file (or directory) the error is about.
    pub fn path(&self) -> &Path {
        match self {
            PluginError::Directory { dir, .. } | PluginError::InsecureDirectory { dir, .. } => dir,
            PluginError::Load { path, .. }
            | PluginError::Duplicate { path, .. }
            | PluginError::Insecure { path, .. }
            | PluginError::Hidden { path } => path,
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

/// Why a plugin file did not load.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("cannot read it: {0}")]
    Read(#[source] std::io::Error),
    #[error("not a regular file")]
    NotAFile,
    #[error(transparent)]
    Elf(#[from] elf::ElfError),
    #[error("not a ptc strategy plugin (it exports no root module)")]
    NoRootModule(#[source] Box<LibraryError>),
    /// Another refusal of the loader, in one line: abi_stable's messages span lines and may
    /// carry NUL bytes.
    #[error("{message}")]
    Library {
        message: String,
        #[source]
        source: Box<LibraryError>,
    },
    /// Built for another contract: both versions, then what differs. The source, when there
    /// is one, is abi_stable's whole report.
    #[error("{built}: {difference}; rebuild the plugin against this host's ptc-plugin-api")]
    Incompatible {
        built: Built,
        difference: Difference,
        #[source]
        source: Option<Box<LibraryError>>,
    },
    /// The root module's `abi_version` is not this host's (for a plugin that does not export
    /// the version symbol, which is checked first).
    #[error("built for plugin ABI version {0}, this host speaks version {ABI_VERSION}; rebuild the plugin against this ptc-plugin-api")]
    AbiVersion(u32),
    #[error("the strategy name {0:?} is not kebab-case (lowercase letters, digits and `-`)")]
    NotKebabCase(String),
    #[error("its options could not be read: {0}")]
    Options(#[source] RenderError),
    #[error("its templates could not be read: {0}")]
    Templates(#[source] RenderError),
}

impl LoadError {
    /// The loader's error, and for a contract mismatch what differs; `built` is what the file
    /// says it was built for, when that could be read. Messages name the file as the user
    /// knows it, not as the loader was given it.
    pub(super) fn library(err: LibraryError, built: Option<&Built>, named: Named<'_>) -> LoadError {
        if let LibraryError::GetSymbolError { .. } = err {
            return LoadError::NoRootModule(Box::new(err));
        }
        let plain = |err: LibraryError| {
            let text = err.to_string();
            let text = match named.loaded.to_str() {
                Some(loaded) if !loaded.is_empty() => {
                    text.replace(loaded, &named.shown.display().to_string())
                }
                _ => text,
            };
            LoadError::Library {
                message: one_line(&text),
                source: Box::new(err),
            }
        };
        let Some(built) = built else {
            return plain(err);
        };
        let difference = match &err {
            LibraryError::IncompatibleVersionNumber { .. } => Difference::ApiVersion,
            LibraryError::AbiInstability(_) => {
                let report = err.to_string();
                tracing::debug!("the whole layout report:\n{report}");
                // The versions in the types' layouts, which the header's check lets through
                // (0.9.x for a 0.3.x host): the same cause as a header that differs.
                if report.contains("incompatible package versions") {
                    Difference::ApiVersion
                } else {
                    Difference::Layout(first_difference(&report))
                }
            }
            _ => return plain(err),
        };
        LoadError::Incompatible {
            built: built.clone(),
            difference,
            source: Some(Box::new(err)),
        }
    }
}

/// What differs between the contract a plugin was built for and this host's.
#[derive(Debug)]
pub enum Difference {
    /// The plugin's `ABI_VERSION`, which is not this host's.
    AbiVersion(u32),
    /// The plugin-api versions are not semver-compatible.
    ApiVersion,
    /// The first difference of the layouts of the types, in one line.
    Layout(String),
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Difference::AbiVersion(abi) => {
                write!(
                    f,
                    "the plugin speaks ABI version {abi}, this host {ABI_VERSION}"
                )
            }
            Difference::ApiVersion => {
                f.write_str("the plugin's ptc-plugin-api version cannot be loaded by this host's")
            }
            Difference::Layout(first) => {
                write!(f, "their types differ; first difference: {first}")
            }
        }
    }
}

/// The contract a plugin file says it was built for, read before its types are checked.
#[derive(Clone, Debug)]
pub struct Built {
    /// The version of the ptc-plugin-api it was compiled against.
    api: String,
    /// Its `ABI_VERSION`, when it exports the symbol (plugins built before it existed do not).
    pub(super) abi: Option<u32>,
}

impl Built {
    /// Reads what `header` and the file's `ABI_VERSION_SYMBOL` say.
    pub(super) fn of(path: &Path, header: &LibHeader) -> Built {
        Built {
            api: header.version_strings().version.as_str().to_owned(),
            abi: abi_version_symbol(path),
        }
    }
}

impl fmt::Display for Built {
    /// `built for ptc-plugin-api 0.1.0 (ABI version 2), this host has ptc-plugin-api 0.1.0
    /// (ABI version 1)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "built for ptc-plugin-api {} (ABI version ", self.api)?;
        match self.abi {
            Some(abi) => write!(f, "{abi}")?,
            None => f.write_str("unknown")?,
        }
        write!(
            f,
            "), this host has ptc-plugin-api {} (ABI version {ABI_VERSION})",
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

/// The first difference of an abi_stable layout report in one line: where (the field, in the
/// type holding it, and the field's type), what, and the expected and found values, e.g.
/// ``at `Stats.turns_compressed` (u32): mismatched type, this host has u64, the plugin u32``.
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
        // abi_stable's "expected" is this host's, "found" the plugin's: say so, as the rest of
        // the line names the plugin's versions first.
        text.push_str(&format!(", this host has {expected}, the plugin {found}"));
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
            "at `Stats.turns_compressed` (u32): mismatched type, this host has u64, the plugin u32"
        );
        assert_eq!(first_difference("no error here"), "unknown");
        assert_eq!(
            first_difference("Error:too many variants\nExpected:\n  3\nFound:\n  4\n"),
            "too many variants, this host has 3, the plugin 4"
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
            source: LoadError::NotKebabCase("x".into()),
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
