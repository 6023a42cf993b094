//! Loading plugins on Linux: the file loaded is the file checked, and the loader's errors
//! name the plugin.

use super::*;
use std::os::unix::fs::PermissionsExt;

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

fn chmod(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

#[test]
fn the_loaded_file_is_the_checked_one() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("libx.so");
    std::fs::copy(built_turn_count(), &path).unwrap();
    chmod(&path, 0o755);
    let plugin = PluginFile::open(&path).unwrap();
    assert_eq!(plugin.insecure(), None);
    // Swapped after the check: the path now names a file anybody could have written.
    let swapped = dir.path().join("swapped.so");
    std::fs::write(&swapped, b"not the checked file").unwrap();
    chmod(&swapped, 0o666);
    std::fs::rename(&swapped, &path).unwrap();
    let loaded = LoadedStrategy::load_open(plugin).unwrap();
    assert_eq!(loaded.name, "turn-count");
    // Named as it was when checked.
    assert_eq!(
        loaded.file,
        dir.path().canonicalize().unwrap().join("libx.so")
    );
}

#[test]
fn a_link_into_a_directory_others_can_write_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let open = dir.path().canonicalize().unwrap().join("ww");
    std::fs::create_dir(&open).unwrap();
    chmod(&open, 0o777);
    let target = open.join("lib.so");
    std::fs::copy(built_turn_count(), &target).unwrap();
    chmod(&target, 0o755);
    let plugins = dir.path().join("plugins");
    std::fs::create_dir(&plugins).unwrap();
    chmod(&plugins, 0o755);
    std::os::unix::fs::symlink(&target, plugins.join("libx.so")).unwrap();
    let set = PluginSet::discover(std::slice::from_ref(&plugins), false);
    assert!(set.strategies().is_empty());
    assert_eq!(
        set.warnings[0].to_string(),
        format!(
            "refusing plugin {}: the directory {} on its path is writable by every other user (mode 777), who could swap the plugin for any code; run `chmod o-w {}`; or pass --allow-insecure-plugins",
            plugins.join("libx.so").display(),
            open.display(),
            open.display()
        )
    );
    let set = PluginSet::discover(&[plugins], true);
    assert_eq!(set.strategies()[0].name, "turn-count");
    assert!(set.warnings.is_empty());
}

#[test]
fn loader_errors_name_the_plugin_not_the_descriptor() {
    // A position-independent executable passes the ELF check; the loader refuses it.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("libtrue.so");
    std::fs::copy("/bin/true", &path).unwrap();
    let file = std::fs::File::open(&path).unwrap();
    if elf::check(&file, file.metadata().unwrap().len()).is_err() {
        eprintln!("skipped: /bin/true is not a position-independent executable here");
        return;
    }
    let Err(err) = LoadedStrategy::load(&path) else {
        panic!("an executable loaded as a plugin");
    };
    let text = err.to_string();
    assert!(!text.contains("/proc/self/fd"), "{text}");
    assert!(
        text.starts_with(&format!("skipping plugin {}: ", path.display()))
            && text.matches(&path.display().to_string()).count() >= 2,
        "{text}"
    );
}

#[test]
fn a_huge_file_is_refused_from_its_header() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("libbig.so");
    std::fs::File::create(&path)
        .unwrap()
        .set_len(3 << 30)
        .unwrap();
    let Err(err) = LoadedStrategy::load(&path) else {
        panic!("zeros loaded");
    };
    assert_eq!(
        err.to_string(),
        format!(
            "skipping plugin {}: not a shared library (no ELF header)",
            path.display()
        )
    );
}
