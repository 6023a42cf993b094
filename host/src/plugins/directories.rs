//! Where strategy plugins are searched, and why each directory is on the list: the configured
//! directories, the directory holding the `ptc` executable, and the user plugin directory that
//! `ptc plugins install` writes to (`$XDG_DATA_HOME/ptc/plugins`, else
//! `~/.local/share/ptc/plugins`).

use std::fmt;
use std::path::{Path, PathBuf};

/// A directory searched for plugins, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PluginDirectory {
    pub path: PathBuf,
    pub kind: DirectoryKind,
}

/// Why a directory is searched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DirectoryKind {
    /// `[plugins] directories`, set in the file or flag named.
    Configured { origin: String },
    /// `[plugins] next_to_executable`.
    NextToExecutable,
    /// `[plugins] user_directory`: where `ptc plugins install` puts plugins.
    User,
}

impl DirectoryKind {
    /// `configured`, `executable` or `user`: the kind in `ptc plugins list --format json`.
    pub fn id(&self) -> &'static str {
        match self {
            DirectoryKind::Configured { .. } => "configured",
            DirectoryKind::NextToExecutable => "executable",
            DirectoryKind::User => "user",
        }
    }
}

impl fmt::Display for DirectoryKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DirectoryKind::Configured { origin } => {
                write!(f, "[plugins] directories, from {origin}")
            }
            DirectoryKind::NextToExecutable => f.write_str("next to the ptc executable"),
            DirectoryKind::User => f.write_str("the user plugin directory"),
        }
    }
}

/// The user plugin directory: `$XDG_DATA_HOME/ptc/plugins`, or `$HOME/.local/share/ptc/plugins`
/// when `XDG_DATA_HOME` is unset, empty or relative (which the XDG specification says to
/// ignore); `None` when neither gives an absolute directory.
pub fn user_directory() -> Option<PathBuf> {
    user_directory_from(
        std::env::var_os("XDG_DATA_HOME").as_deref().map(Path::new),
        std::env::var_os("HOME").as_deref().map(Path::new),
    )
}

fn user_directory_from(xdg_data_home: Option<&Path>, home: Option<&Path>) -> Option<PathBuf> {
    let data = match xdg_data_home.filter(|p| p.is_absolute()) {
        Some(data) => data.to_owned(),
        None => home.filter(|p| p.is_absolute())?.join(".local/share"),
    };
    Some(data.join("ptc").join("plugins"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_user_directory_follows_xdg_data_home_then_home() {
        let user = |xdg: Option<&str>, home: Option<&str>| {
            user_directory_from(xdg.map(Path::new), home.map(Path::new))
        };
        assert_eq!(
            user(Some("/data"), Some("/home/a")),
            Some(PathBuf::from("/data/ptc/plugins"))
        );
        assert_eq!(
            user(None, Some("/home/a")),
            Some(PathBuf::from("/home/a/.local/share/ptc/plugins"))
        );
        // Empty or relative: ignored, as the XDG specification says.
        assert_eq!(
            user(Some(""), Some("/home/a")),
            Some(PathBuf::from("/home/a/.local/share/ptc/plugins"))
        );
        assert_eq!(
            user(Some("rel"), Some("/home/a")),
            Some(PathBuf::from("/home/a/.local/share/ptc/plugins"))
        );
        assert_eq!(user(None, None), None);
        assert_eq!(user(None, Some("")), None);
    }
}
