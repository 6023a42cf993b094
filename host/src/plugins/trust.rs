//! Who may change a plugin before ptc runs it. A plugin is native code that runs with the
//! user's rights, so, like sshd's `StrictModes`, ptc refuses a plugin file or a plugin
//! directory that another user could write: one owned by someone other than the user running
//! ptc (or root), or writable by its group or by everyone. The same holds for every directory
//! on the real path of the file (symbolic links resolved) up to `/`, since whoever can write a
//! directory can rename what is in it; a directory writable by others but with the sticky bit
//! (`/tmp`) is accepted there, since only the owner of an entry may rename it.
//!
//! A group-writable file or directory is accepted when its group is the owner's private group:
//! the group named after the owner, the primary group of no other user, and listing no other
//! member; the usual setup under a `umask` of 002.
//! `--allow-insecure-plugins` (or `[plugins] allow_insecure = true`) turns the check off.

use std::path::Path;

/// What a refusal is about: the plugin file or plugin directory itself, or a directory on the
/// real path of the file.
#[derive(Clone, Copy)]
enum Subject<'a> {
    Itself(&'a Path),
    Ancestor(&'a Path),
}

/// Why another user could change `path`, with how to fix it; `None` when only the user (or
/// root) can. A path that cannot be inspected is left to the loader to report.
#[cfg(unix)]
pub fn insecure(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    verdict(&meta, Subject::Itself(path))
}

/// [`insecure`] for a file already open (its `fstat`), shown as `shown`.
#[cfg(unix)]
pub fn insecure_open(meta: &std::fs::Metadata, shown: &Path) -> Option<String> {
    verdict(meta, Subject::Itself(shown))
}

/// Why another user could swap what `real` (an absolute path without symbolic links) names
/// through one of the directories holding it, up to `/`; `None` when none of them lets
/// another user do so. A directory that cannot be inspected is a refusal.
#[cfg(unix)]
pub fn insecure_directories(real: &Path) -> Option<String> {
    for dir in real.ancestors().skip(1) {
        if dir.as_os_str().is_empty() {
            break;
        }
        match std::fs::symlink_metadata(dir) {
            Ok(meta) => {
                if let Some(reason) = verdict(&meta, Subject::Ancestor(dir)) {
                    return Some(reason);
                }
            }
            Err(e) => {
                return Some(format!(
                    "the directory {} on its path cannot be checked ({e})",
                    dir.display()
                ))
            }
        }
    }
    None
}

#[cfg(unix)]
fn verdict(meta: &std::fs::Metadata, subject: Subject<'_>) -> Option<String> {
    use std::os::unix::fs::MetadataExt;

    // SAFETY: geteuid has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    let owner = meta.uid();
    let (shown, head) = match subject {
        Subject::Itself(path) => (path, "it is".to_owned()),
        Subject::Ancestor(dir) => (
            dir,
            format!("the directory {} on its path is", dir.display()),
        ),
    };
    let shown = shown.display();
    if owner != me && owner != 0 {
        let fix = match subject {
            Subject::Itself(_) => "or remove it",
            Subject::Ancestor(_) => "or move the plugin elsewhere",
        };
        return Some(format!(
            "{head} owned by user {owner}, not by you ({me}) or root, and its owner could change it to run any code as you; run `chown {me} {shown}` {fix}"
        ));
    }
    let mode = meta.mode() & 0o7777;
    // Under the sticky bit only an entry's owner (checked in turn) may rename or remove it.
    if matches!(subject, Subject::Ancestor(_)) && mode & 0o1000 != 0 {
        return None;
    }
    let other = mode & 0o002 != 0;
    let group = mode & 0o020 != 0 && !private_group(meta.gid(), owner);
    let (who, fix) = match (group, other) {
        (true, true) => (
            format!("its group (gid {}) and every other user", meta.gid()),
            "go-w",
        ),
        (true, false) => (format!("its group (gid {})", meta.gid()), "g-w"),
        (false, true) => ("every other user".to_owned(), "o-w"),
        (false, false) => return None,
    };
    let could = match subject {
        Subject::Ancestor(_) => "who could swap the plugin for any code",
        Subject::Itself(_) if meta.is_dir() => "who could put any code in it",
        Subject::Itself(_) => "who could replace it with any code",
    };
    Some(format!(
        "{head} writable by {who} (mode {mode:o}), {could}; run `chmod {fix} {shown}`"
    ))
}

#[cfg(not(unix))]
pub fn insecure(_path: &Path) -> Option<String> {
    None
}

/// Whether `gid` is the private group of user `uid`: the user's primary group, named after the
/// user, the primary group of no other user, and with no member but the user.
#[cfg(unix)]
fn private_group(gid: u32, uid: u32) -> bool {
    use std::ffi::CStr;

    let mut buffer = vec![0 as libc::c_char; 16 * 1024];
    // SAFETY: the structs are plain C data, filled by the *_r calls from `buffer`, which
    // outlives every pointer read from them; a null result pointer means not found.
    unsafe {
        let mut user: libc::passwd = std::mem::zeroed();
        let mut found: *mut libc::passwd = std::ptr::null_mut();
        if libc::getpwuid_r(
            uid,
            &mut user,
            buffer.as_mut_ptr(),
            buffer.len(),
            &mut found,
        ) != 0
            || found.is_null()
            || user.pw_gid != gid
        {
            return false;
        }
        let user_name = CStr::from_ptr(user.pw_name).to_owned();
        let mut group: libc::group = std::mem::zeroed();
        let mut found: *mut libc::group = std::ptr::null_mut();
        if libc::getgrgid_r(
            gid,
            &mut group,
            buffer.as_mut_ptr(),
            buffer.len(),
            &mut found,
        ) != 0
            || found.is_null()
            || CStr::from_ptr(group.gr_name) != user_name.as_c_str()
        {
            return false;
        }
        let mut member = group.gr_mem;
        while !member.is_null() && !(*member).is_null() {
            if CStr::from_ptr(*member) != user_name.as_c_str() {
                return false;
            }
            member = member.add(1);
        }
    }
    primary_group_of_none_but(gid, uid)
}

/// Whether no user but `uid` has `gid` as primary group, in the whole user database
/// (`/etc/passwd` and every other source that lists its users). A user database that cannot
/// be read through counts as one that has such a user.
#[cfg(unix)]
fn primary_group_of_none_but(gid: u32, uid: u32) -> bool {
    // getpwent walks one process-wide cursor.
    static CURSOR: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _cursor = CURSOR.lock().unwrap_or_else(|e| e.into_inner());
    let mut alone = true;
    // SAFETY: the cursor is used under the lock only; each entry is read before the next call
    // of getpwent, which may reuse its memory.
    unsafe {
        libc::setpwent();
        loop {
            let errno = errno();
            if !errno.is_null() {
                *errno = 0;
            }
            let entry = libc::getpwent();
            if entry.is_null() {
                // The end of the database, or an error reading it.
                if !errno.is_null() && *errno != 0 && *errno != libc::ENOENT {
                    alone = false;
                }
                break;
            }
            if (*entry).pw_gid == gid && (*entry).pw_uid != uid {
                alone = false;
                break;
            }
        }
        libc::endpwent();
    }
    alone
}

/// This thread's `errno`, where this platform's libc exposes it.
#[cfg(unix)]
fn errno() -> *mut libc::c_int {
    #[cfg(target_os = "linux")]
    // SAFETY: returns this thread's errno; no preconditions.
    return unsafe { libc::__errno_location() };
    #[cfg(any(target_os = "macos", target_os = "ios", target_os = "freebsd"))]
    // SAFETY: as above.
    return unsafe { libc::__error() };
    #[allow(unreachable_code)]
    std::ptr::null_mut()
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;
    use std::process::Command;

    #[test]
    fn other_writable_files_are_refused_with_the_fix() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("libx.so");
        std::fs::write(&file, "x").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert_eq!(insecure(&file), None);
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o646)).unwrap();
        let reason = insecure(&file).unwrap();
        assert!(
            reason.starts_with("it is writable by every other user (mode 646)"),
            "{reason}"
        );
        assert!(reason.ends_with(&format!("`chmod o-w {}`", file.display())));
    }

    #[test]
    fn a_directory_on_the_path_others_can_write_is_refused_unless_sticky() {
        let dir = tempfile::tempdir().unwrap();
        let open = dir.path().canonicalize().unwrap().join("open");
        std::fs::create_dir(&open).unwrap();
        let file = open.join("libx.so");
        std::fs::write(&file, "x").unwrap();
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).unwrap();
        let reason = insecure_directories(&file).unwrap();
        assert_eq!(
            reason,
            format!(
                "the directory {0} on its path is writable by every other user (mode 777), who could swap the plugin for any code; run `chmod o-w {0}`",
                open.display()
            )
        );
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o1777)).unwrap();
        assert_eq!(insecure_directories(&file), None);
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(insecure_directories(&file), None);
    }

    /// Users and groups made for a test, removed when it ends.
    struct Accounts(Vec<String>);

    impl Accounts {
        fn run(&mut self, command: &str, args: &[&str]) -> bool {
            Command::new(command)
                .args(args)
                .output()
                .is_ok_and(|o| o.status.success())
        }
    }

    impl Drop for Accounts {
        fn drop(&mut self) {
            for user in self.0.iter().rev() {
                let _ = Command::new("userdel").arg(user).output();
            }
            for group in self.0.iter().rev() {
                let _ = Command::new("groupdel").arg(group).output();
            }
        }
    }

    fn uid_gid(user: &str) -> (u32, u32) {
        let id = |flag: &str| -> u32 {
            let out = Command::new("id").args([flag, user]).output().unwrap();
            String::from_utf8(out.stdout)
                .unwrap()
                .trim()
                .parse()
                .unwrap()
        };
        (id("-u"), id("-g"))
    }

    #[test]
    fn a_group_that_is_another_users_primary_group_is_not_private() {
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            eprintln!("skipped: creating users and groups needs root");
            return;
        }
        let owner = format!("ptcown{}", std::process::id());
        let other = format!("ptcoth{}", std::process::id());
        let mut accounts = Accounts(vec![owner.clone()]);
        if !accounts.run("useradd", &["-U", "-M", "-s", "/bin/false", &owner]) {
            eprintln!("skipped: useradd -U failed");
            return;
        }
        let (uid, gid) = uid_gid(&owner);
        assert!(private_group(gid, uid), "a new user's own group is private");
        accounts.0.push(other.clone());
        assert!(accounts.run("useradd", &["-g", &owner, "-M", "-s", "/bin/false", &other]));
        assert!(
            !private_group(gid, uid),
            "{other} has the group as primary group and can write what it may write"
        );
    }
}
