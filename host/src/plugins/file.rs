//! A plugin file opened once: the trust check, the ELF check and the dynamic loader all see
//! the same open file, so that nobody can swap it between the checks and the loading.

use std::path::{Path, PathBuf};

use super::{trust, LoadError, PluginError};

/// A plugin file opened once: the trust check, the ELF check and the dynamic loader all see
/// this open file, so that nobody can swap the file between the checks and the loading.
pub(super) struct PluginFile {
    /// The path as found in the plugin directory, which every message names.
    pub(super) shown: PathBuf,
    pub(super) file: std::fs::File,
    /// Its size and owner, from the open file.
    meta: std::fs::Metadata,
    pub(super) len: u64,
    /// Where the open file is, symbolic links resolved.
    pub(super) real: PathBuf,
}

impl PluginFile {
    pub(super) fn open(path: &Path) -> Result<PluginFile, PluginError> {
        let fail = |source: LoadError| PluginError::Load {
            path: path.to_owned(),
            source,
        };
        let mut options = std::fs::OpenOptions::new();
        options.read(true);
        #[cfg(unix)]
        {
            // A FIFO put in its place must not block the open; it is refused just below.
            use std::os::unix::fs::OpenOptionsExt;
            options.custom_flags(libc::O_NONBLOCK);
        }
        let file = options.open(path).map_err(|e| fail(LoadError::Read(e)))?;
        let meta = file.metadata().map_err(|e| fail(LoadError::Read(e)))?;
        if !meta.is_file() {
            return Err(fail(LoadError::NotAFile));
        }
        let real = open_path(&file)
            .or_else(|| path.canonicalize().ok())
            .unwrap_or_else(|| path.to_owned());
        Ok(PluginFile {
            shown: path.to_owned(),
            len: meta.len(),
            file,
            meta,
            real,
        })
    }

    /// Why another user could have changed this file, or could swap it through a directory
    /// on its real path; `None` when only the user (or root) can.
    #[cfg(unix)]
    pub(super) fn insecure(&self) -> Option<String> {
        trust::insecure_open(&self.meta, &self.shown)
            .or_else(|| trust::insecure_directories(&self.real))
    }

    #[cfg(not(unix))]
    pub(super) fn insecure(&self) -> Option<String> {
        let _ = &self.meta;
        trust::insecure(&self.shown)
    }

    /// The path the dynamic loader opens: on Linux the open file itself, through
    /// `/proc/self/fd`. The descriptor then stays open for the life of the process: the loader
    /// knows the libraries it loaded by name, so the same `/proc/self/fd/N` must never name
    /// another file (libraries are never unloaded either). Elsewhere, the real path.
    pub(super) fn hand_over(self) -> PathBuf {
        #[cfg(target_os = "linux")]
        {
            use std::os::unix::io::{AsRawFd, IntoRawFd};
            let through = PathBuf::from(format!("/proc/self/fd/{}", self.file.as_raw_fd()));
            if through.exists() {
                let _kept_open = self.file.into_raw_fd();
                return through;
            }
        }
        self.real
    }
}

/// Where the open `file` is, when the system says (Linux).
fn open_path(file: &std::fs::File) -> Option<PathBuf> {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::io::AsRawFd;
        let real = std::fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd())).ok()?;
        real.is_absolute().then_some(real)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = file;
        None
    }
}
