//! Who may change a plugin before ptc runs it. A plugin is native code that runs with the
//! user's rights, so, like sshd's `StrictModes`, ptc refuses a plugin file or a plugin
//! directory that another user could write: one owned by someone other than the user running
//! ptc (or root), or writable by its group or by everyone. A group-writable file or directory
//! is accepted when its group is the owner's private group (the group named after the owner,
//! with no other member), the usual setup under a `umask` of 002.
//! `--allow-insecure-plugins` (or `[plugins] allow_insecure = true`) turns the check off.

use std::path::Path;

/// Why another user could change `path`, with how to fix it; `None` when only the user (or
/// root) can. A path that cannot be inspected is left to the loader to report.
#[cfg(unix)]
pub fn insecure(path: &Path) -> Option<String> {
    use std::os::unix::fs::MetadataExt;

    let meta = std::fs::metadata(path).ok()?;
    // SAFETY: geteuid has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    let owner = meta.uid();
    let shown = path.display();
    if owner != me && owner != 0 {
        return Some(format!(
            "it is owned by user {owner}, not by you ({me}) or root, and its owner could change it to run any code as you; run `chown {me} {shown}` or remove it"
        ));
    }
    let mode = meta.mode() & 0o7777;
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
    let could = if meta.is_dir() {
        "who could put any code in it"
    } else {
        "who could replace it with any code"
    };
    Some(format!(
        "it is writable by {who} (mode {mode:o}), {could}; run `chmod {fix} {shown}`"
    ))
}

#[cfg(not(unix))]
pub fn insecure(_path: &Path) -> Option<String> {
    None
}

/// Whether `gid` is the private group of user `uid`: the user's primary group, named after the
/// user, with no member but the user.
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
        true
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

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
}
