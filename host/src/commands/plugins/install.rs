//! `ptc plugins install PATH...`: strategy plugins checked and copied into the user plugin
//! directory. A PATH is a plugin file, or a directory with a Cargo.toml that is built with
//! `cargo build --release` first (cargo's JSON messages name the libraries it built). Every
//! file is loaded as commands load it before anything is written, so a file that is not a ptc
//! strategy plugin, or was built for another plugin-api, is refused and nothing is installed;
//! each file is written under a temporary name in the directory, then renamed over its
//! destination, so that the directory never holds half a plugin.

use std::path::{Path, PathBuf};

use super::{cause, user_plugin_directory, PluginsError};
use crate::config::Config;
use crate::plugins::directories::DirectoryKind;
use crate::plugins::{insecure_directory, FileOutcome, LoadedStrategy, PluginError, PluginSet};
use crate::Error;

/// A plugin file that loaded: where it comes from, the name it is installed under, and the
/// strategy it provides.
struct Checked {
    source: PathBuf,
    /// The file that was loaded, open: what is installed is what was checked.
    file: std::fs::File,
    file_name: String,
    strategy: String,
    version: String,
}

/// Installs the plugins `paths` stand for; returns one line per plugin installed. A crate
/// directory is built only with `yes`, or when the user agrees at a prompt on a terminal:
/// building runs the crate's build scripts and procedural macros as the user.
pub fn install(config: &Config, paths: &[PathBuf], yes: bool) -> Result<String, Error> {
    let dir = user_plugin_directory()?;
    let mut errors = Vec::new();
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() && path.join("Cargo.toml").is_file() {
            if let Err(err) = agree_to_build(path, yes) {
                errors.push(err);
                continue;
            }
        }
        match plugin_files(path) {
            Ok(found) => files.extend(found),
            Err(err) => errors.push(err),
        }
    }
    let checked = check(files, &mut errors);
    if let Some(err) = PluginsError::all(errors) {
        return Err(err.into());
    }

    create_directory(&dir)?;
    // One install at a time changes the directory: another one's files are seen below.
    let _lock = lock(&dir)?;
    // The files already there, to replace one that provides an installed strategy under
    // another name.
    let before = PluginSet::discover(std::slice::from_ref(&dir), config.allow_insecure_plugins());
    let written = write_checked(&checked, &dir)?;
    let mut text = String::new();
    for (plugin, temporary) in checked.iter().zip(written) {
        let destination = dir.join(&plugin.file_name);
        temporary
            .persist(&destination)
            .map_err(|err| Error::WriteFile {
                path: destination.clone(),
                source: err.error,
            })?;
        text.push_str(&format!(
            "installed {} {}: {}\n",
            plugin.strategy,
            plugin.version,
            destination.display()
        ));
        let others = before
            .directories
            .iter()
            .flat_map(|d| &d.files)
            .filter(|f| f.strategy() == Some(plugin.strategy.as_str()) && f.path != destination);
        for other in others {
            std::fs::remove_file(&other.path).map_err(|source| Error::WriteFile {
                path: other.path.clone(),
                source,
            })?;
            text.push_str(&format!(
                "removed {}, which provided {} too\n",
                other.path.display(),
                plugin.strategy
            ));
        }
    }
    warn_when_unused(config, &dir, &checked);
    Ok(text)
}

/// The plugin files `path` stands for: itself, or what building it produced.
fn plugin_files(path: &Path) -> Result<Vec<PathBuf>, PluginsError> {
    let not_a_plugin = |reason: String| PluginsError::NotAPlugin {
        path: path.to_owned(),
        reason,
    };
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(PluginsError::Missing {
                path: path.to_owned(),
            })
        }
        Err(e) => return Err(not_a_plugin(format!("cannot read it: {e}"))),
    };
    if meta.is_dir() {
        if !path.join("Cargo.toml").is_file() {
            return Err(not_a_plugin(
                "a directory without a Cargo.toml: give a plugin file, or the directory of a strategy crate".into(),
            ));
        }
        return super::build::build(path);
    }
    if !meta.is_file() {
        return Err(not_a_plugin("not a regular file".into()));
    }
    if crate::plugins::is_hidden(path) {
        return Err(not_a_plugin(
            "its name starts with `.`, which hides it from `ls` (ptc does not load such files); rename it".into(),
        ));
    }
    let suffix = std::env::consts::DLL_SUFFIX;
    let name = name_of(path);
    if !name.ends_with(suffix) || name.len() == suffix.len() {
        return Err(not_a_plugin(format!(
            "not a plugin file: ptc loads files whose name ends in {suffix} (a strategy crate's built cdylib)"
        )));
    }
    Ok(vec![path.to_owned()])
}

/// The last component of `path`, as text.
fn name_of(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Creates the user plugin directory (and its parents), writable by its owner only.
fn create_directory(dir: &Path) -> Result<(), Error> {
    if dir.is_dir() {
        return Ok(());
    }
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o755);
    }
    builder.create(dir).map_err(|source| Error::WriteFile {
        path: dir.to_owned(),
        source,
    })
}

/// A copy of the open file `source` under a temporary name in `dir`, readable by all and
/// writable by its owner only (ptc refuses a plugin that others could write). Dropped, it is
/// removed.
/// Each checked plugin written, from its open file, under a temporary name in `dir`.
fn write_checked(checked: &[Checked], dir: &Path) -> Result<Vec<tempfile::NamedTempFile>, Error> {
    checked
        .iter()
        .map(|plugin| write_temporary(&plugin.file, dir, &plugin.file_name))
        .collect()
}

/// Loads each plugin file as commands load it, keeping the file open: what is installed is
/// copied from that handle, never from the path again. The files that fail, or that clash with
/// one before them (the same strategy, the same file name), go to `errors`.
fn check(files: Vec<PathBuf>, errors: &mut Vec<PluginsError>) -> Vec<Checked> {
    let mut checked: Vec<Checked> = Vec::new();
    for source in files {
        let (strategy, file) = match LoadedStrategy::load_keeping(&source) {
            Ok(loaded) => loaded,
            Err(PluginError::Load { source: cause, .. }) => {
                errors.push(PluginsError::Load {
                    path: source,
                    source: cause,
                });
                continue;
            }
            Err(other) => {
                errors.push(PluginsError::Refused {
                    path: source,
                    source: other,
                });
                continue;
            }
        };
        let file_name = name_of(&source);
        if let Some(first) = checked.iter().find(|c| c.strategy == strategy.name) {
            errors.push(PluginsError::SameStrategy {
                first: first.source.clone(),
                second: source,
                strategy: strategy.name,
            });
        } else if let Some(first) = checked.iter().find(|c| c.file_name == file_name) {
            errors.push(PluginsError::SameFileName {
                first: first.source.clone(),
                second: source,
                name: file_name,
            });
        } else {
            checked.push(Checked {
                source,
                file,
                file_name,
                strategy: strategy.name,
                version: strategy.version,
            });
        }
    }
    checked
}

fn write_temporary(
    source: &std::fs::File,
    dir: &Path,
    file_name: &str,
) -> Result<tempfile::NamedTempFile, Error> {
    let fail = |path: &Path, source| Error::WriteFile {
        path: path.to_owned(),
        source,
    };
    let destination = dir.join(file_name);
    let mut temporary = tempfile::Builder::new()
        .prefix(&format!(".{file_name}."))
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(|e| fail(&destination, e))?;
    let mut from = source;
    std::io::Seek::rewind(&mut from).map_err(|e| fail(&destination, e))?;
    std::io::copy(&mut from, temporary.as_file_mut()).map_err(|e| fail(&destination, e))?;
    temporary
        .as_file()
        .sync_all()
        .map_err(|e| fail(&destination, e))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        temporary
            .as_file()
            .set_permissions(std::fs::Permissions::from_mode(0o755))
            .map_err(|e| fail(&destination, e))?;
    }
    Ok(temporary)
}

/// Says what building `dir` does, and asks: `yes` (`--yes`) agrees; on a terminal the user
/// answers; anywhere else it is refused.
fn agree_to_build(dir: &Path, yes: bool) -> Result<(), PluginsError> {
    use std::io::{IsTerminal, Write};
    let notice = format!(
        "installing {} builds it with `cargo build --release`, which runs the crate's build scripts and procedural macros as you",
        dir.display()
    );
    if yes {
        eprintln!("{notice}");
        return Ok(());
    }
    let refused = || PluginsError::NotAgreed {
        path: dir.to_owned(),
    };
    if !(std::io::stdin().is_terminal() && std::io::stderr().is_terminal()) {
        return Err(refused());
    }
    eprint!("{notice}. Build it? [y/N] ");
    let _ = std::io::stderr().flush();
    let mut answer = String::new();
    std::io::stdin()
        .read_line(&mut answer)
        .map_err(|_| refused())?;
    match answer.trim() {
        "y" | "Y" | "yes" | "Yes" => Ok(()),
        _ => Err(refused()),
    }
}

/// Holds the lock of the user plugin directory `dir` (a file beside it, so that listing the
/// directory shows plugins only) until dropped: two installs never interleave.
fn lock(dir: &Path) -> Result<std::fs::File, Error> {
    let path = dir.with_extension("lock");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|source| Error::WriteFile {
            path: path.clone(),
            source,
        })?;
    #[cfg(unix)]
    {
        use std::os::unix::io::AsRawFd;
        // SAFETY: flock on a descriptor this function owns; it blocks until the lock is free.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } != 0 {
            return Err(Error::WriteFile {
                path,
                source: std::io::Error::last_os_error(),
            });
        }
    }
    Ok(file)
}

/// Warns on stderr when commands will not use an installed strategy: the user plugin directory
/// is refused, not searched, or a directory searched before it provides the strategy too.
fn warn_when_unused(config: &Config, dir: &Path, installed: &[Checked]) {
    let reason = (!config.allow_insecure_plugins())
        .then(|| insecure_directory(dir))
        .flatten();
    if let Some(reason) = reason {
        crate::output::warn(format_args!(
            "ptc refuses plugins from {}: {reason}; or pass --allow-insecure-plugins",
            dir.display()
        ));
        return;
    }
    let directories = config.plugin_directory_list();
    if !directories.iter().any(|d| d.kind == DirectoryKind::User) {
        crate::output::warn(
            "the configuration does not search the user plugin directory ([plugins] user_directory = false)",
        );
        return;
    }
    let paths: Vec<PathBuf> = directories.into_iter().map(|d| d.path).collect();
    let set = PluginSet::discover(&paths, config.allow_insecure_plugins());
    for plugin in installed {
        let destination = dir.join(&plugin.file_name);
        let found = set
            .directories
            .iter()
            .flat_map(|d| &d.files)
            .find(|f| f.path == destination);
        match found.map(|f| &f.outcome) {
            Some(FileOutcome::Hidden { by, .. }) => crate::output::warn(format_args!(
                "{} provides strategy `{}` too and is searched first: commands use it, not the one installed",
                by.display(),
                plugin.strategy
            )),
            Some(FileOutcome::Skipped(err)) => {
                crate::output::warn(format_args!("{}: {}", destination.display(), cause(err)))
            }
            _ => {}
        }
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    /// The test strategy `cargo test` built next to this test binary.
    fn built_turn_count() -> PathBuf {
        let deps = std::env::current_exe()
            .unwrap()
            .parent()
            .unwrap()
            .to_owned();
        deps.join(format!(
            "{}ptc_strategy_turn_count{}",
            std::env::consts::DLL_PREFIX,
            std::env::consts::DLL_SUFFIX
        ))
    }

    #[test]
    fn what_is_installed_is_the_file_that_was_checked_not_what_its_path_names_later() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let source = dir.path().join("libptc_strategy_turn_count.so");
        std::fs::copy(built_turn_count(), &source).unwrap();
        std::fs::set_permissions(&source, std::fs::Permissions::from_mode(0o755)).unwrap();
        let original = std::fs::read(&source).unwrap();
        let mut errors = Vec::new();
        let checked = check(vec![source.clone()], &mut errors);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(checked.len(), 1);
        // Replaced after the check: the path now names another file.
        let swapped = dir.path().join("swapped");
        std::fs::write(&swapped, b"not the checked plugin").unwrap();
        std::fs::rename(&swapped, &source).unwrap();
        let target = dir.path().join("installed");
        std::fs::create_dir(&target).unwrap();
        let written = write_checked(&checked, &target).unwrap();
        assert_eq!(written.len(), 1);
        let copied = std::fs::read(written[0].path()).unwrap();
        assert!(
            copied == original,
            "the copy has {} bytes, the checked plugin {}",
            copied.len(),
            original.len()
        );
    }
}
