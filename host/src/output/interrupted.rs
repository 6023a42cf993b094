//! Temporary files removed when ptc is stopped while it writes them: a write registers its
//! temporary file ([`pending`]), and SIGINT, SIGTERM or SIGHUP removes every registered one
//! before ending ptc as the signal would have. Only a signal whose action is the default is
//! taken over (one the shell ignores stays ignored).

use std::path::Path;

/// A registered temporary file; dropping it forgets the file (call it once the file is renamed
/// or removed).
pub struct Pending {
    #[cfg(unix)]
    slot: Option<usize>,
}

/// Registers `path`, a temporary file being written, for removal on a signal.
pub fn pending(path: &Path) -> Pending {
    #[cfg(unix)]
    {
        unix::pending(path)
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        Pending {}
    }
}

#[cfg(unix)]
mod unix {
    use std::ffi::{c_char, c_int, CString};
    use std::os::unix::ffi::OsStrExt;
    use std::path::Path;
    use std::ptr::null_mut;
    use std::sync::atomic::{AtomicPtr, Ordering::SeqCst};
    use std::sync::Once;

    use super::Pending;

    /// How many temporary files may be registered at once (writes are few and short).
    const SLOTS: usize = 8;

    /// The registered paths, as C strings the signal handler can read without allocating.
    static PENDING: [AtomicPtr<c_char>; SLOTS] = [const { AtomicPtr::new(null_mut()) }; SLOTS];

    pub(super) fn pending(path: &Path) -> Pending {
        install();
        let Ok(path) = CString::new(path.as_os_str().as_bytes()) else {
            return Pending { slot: None };
        };
        let raw = path.into_raw();
        for (i, slot) in PENDING.iter().enumerate() {
            if slot
                .compare_exchange(null_mut(), raw, SeqCst, SeqCst)
                .is_ok()
            {
                return Pending { slot: Some(i) };
            }
        }
        // SAFETY: `raw` comes from `into_raw` above and was stored nowhere.
        drop(unsafe { CString::from_raw(raw) });
        Pending { slot: None }
    }

    impl Drop for Pending {
        fn drop(&mut self) {
            if let Some(i) = self.slot {
                // Whoever swaps the pointer out owns it: the handler never frees it.
                let raw = PENDING[i].swap(null_mut(), SeqCst);
                if !raw.is_null() {
                    // SAFETY: stored by `pending` from `into_raw`, and now taken out.
                    drop(unsafe { CString::from_raw(raw) });
                }
            }
        }
    }

    /// Removes the registered files, then ends the process by the same signal. Only
    /// async-signal-safe calls: atomic swaps, `unlink`, `signal` and `raise`.
    extern "C" fn on_signal(signal: c_int) {
        for slot in &PENDING {
            let raw = slot.swap(null_mut(), SeqCst);
            if !raw.is_null() {
                // SAFETY: a NUL-terminated path, never freed once taken out here.
                unsafe { libc::unlink(raw) };
            }
        }
        // SAFETY: restoring the default action and raising the signal again ends the process
        // as the signal would have.
        unsafe {
            libc::signal(signal, libc::SIG_DFL);
            libc::raise(signal);
        }
    }

    fn install() {
        static INSTALL: Once = Once::new();
        INSTALL.call_once(|| {
            for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
                // SAFETY: plain sigaction calls with zeroed, then filled, structures.
                unsafe {
                    let mut old: libc::sigaction = std::mem::zeroed();
                    if libc::sigaction(signal, std::ptr::null(), &mut old) != 0
                        || old.sa_sigaction != libc::SIG_DFL
                    {
                        continue;
                    }
                    let mut action: libc::sigaction = std::mem::zeroed();
                    action.sa_sigaction = on_signal as extern "C" fn(c_int) as usize;
                    libc::sigemptyset(&mut action.sa_mask);
                    libc::sigaction(signal, &action, std::ptr::null_mut());
                }
            }
        });
    }
}
