//! Which plugin is running, so that a plugin that ends the process from inside a call is
//! named: `exit` called in a plugin's function (of any code, 0 included) ends ptc with exit
//! code [`EXIT_IN_PLUGIN`] and one `error:` line naming the strategy and its file, never with
//! the plugin's code and no output; an abort (a double panic aborts) prints the same line
//! before the process ends by SIGABRT. The plugin running is kept per thread, as each call is
//! made on one thread.

use std::cell::Cell;
use std::ffi::{c_char, c_int, CString};
use std::path::Path;
use std::ptr::null;
use std::sync::Once;

/// The exit code when a plugin ends the process from inside a call.
pub const EXIT_IN_PLUGIN: c_int = 2;

thread_local! {
    /// The `error:` line naming the plugin this thread is running, NUL-terminated, or null.
    static RUNNING: Cell<*const c_char> = const { Cell::new(null()) };
}

/// What names one plugin in the line printed when it ends the process (made once per plugin).
pub struct Label(CString);

impl Label {
    pub fn new(strategy: &str, file: &Path) -> Label {
        let line = format!(
            "error: strategy `{strategy}` ({}) ended the process while ptc was running it: \
             nothing more was written\n",
            file.display()
        );
        Label(CString::new(line.replace('\0', "?")).expect("no NUL left"))
    }
}

/// Runs `call`, a call into the plugin `label` names, with the plugin recorded as running.
pub fn during<T>(label: &Label, call: impl FnOnce() -> T) -> T {
    #[cfg(unix)]
    install();
    let before = RUNNING.with(|running| running.replace(label.0.as_ptr()));
    let result = call();
    RUNNING.with(|running| running.set(before));
    result
}

/// Writes the running plugin's line to stderr; whether one was running. Only
/// async-signal-safe calls (a thread-local read and `write`).
#[cfg(unix)]
fn report() -> bool {
    let line = RUNNING.with(Cell::get);
    if line.is_null() {
        return false;
    }
    // SAFETY: a NUL-terminated string of a `Label`, which lives as long as the strategy.
    unsafe {
        let length = libc::strlen(line);
        libc::write(2, line.cast(), length);
    }
    true
}

#[cfg(unix)]
extern "C" fn on_exit() {
    if report() {
        // SAFETY: ends the process at once, without running the other exit handlers again.
        unsafe { libc::_exit(EXIT_IN_PLUGIN) };
    }
}

#[cfg(unix)]
extern "C" fn on_abort(signal: c_int) {
    report();
    // SAFETY: the default action again, then the signal: the process ends as it would have.
    unsafe {
        libc::signal(signal, libc::SIG_DFL);
        libc::raise(signal);
    }
}

#[cfg(unix)]
fn install() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        // SAFETY: registering a handler that only reads a thread-local and writes to stderr;
        // SIGABRT is taken over only when its action is the default.
        unsafe {
            libc::atexit(on_exit);
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(libc::SIGABRT, null(), &mut old) == 0
                && old.sa_sigaction == libc::SIG_DFL
            {
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = on_abort as extern "C" fn(c_int) as usize;
                libc::sigemptyset(&mut action.sa_mask);
                libc::sigaction(libc::SIGABRT, &action, std::ptr::null_mut());
            }
        }
    });
}
