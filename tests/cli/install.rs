//! The user plugin directory (`$XDG_DATA_HOME/ptc/plugins`, else `~/.local/share/ptc/plugins`):
//! searched after the others, under the same trust rules; `ptc plugins install` checks a plugin
//! before copying it there, `list` shows every directory and what each file provides, `remove`
//! deletes only from there.

use std::path::{Path, PathBuf};

use serde_json::Value as Json;

use crate::bad_plugins::{bad_plugin, BUMPED_ABI};
use crate::support::{
    built_plugin, example, ptc_command, set_mode, strategy_names, Scratch, SUC, TURN_COUNT,
};

/// The names in `dir`, sorted (hidden temporary files included).
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn file_name(crate_name: &str) -> String {
    built_plugin(crate_name)
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

/// `ptc plugins install PATHS...` in `scratch`.
fn install(scratch: &Scratch, paths: &[&Path]) -> crate::support::Run {
    scratch.run(
        ptc_command(scratch.path())
            .args(["plugins", "install"])
            .args(paths),
    )
}

/// The file each strategy of `ptc strategies --format json` comes from.
fn strategy_files(scratch: &Scratch) -> Vec<(String, PathBuf)> {
    let list = scratch.ptc(["strategies", "--format", "json"]).json();
    list.as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap().to_owned(),
                PathBuf::from(s["file"].as_str().unwrap()),
            )
        })
        .collect()
}

#[test]
fn a_plugin_in_the_user_directory_is_loaded_and_a_missing_directory_is_fine() {
    let scratch = Scratch::with_plugins(&[SUC]);
    let run = scratch.ptc(["strategies", "--format", "json"]);
    assert_eq!(run.stderr, "", "no user plugin directory: no word about it");
    assert_eq!(strategy_names(&run.json()), ["single-user-coalesced"]);

    std::fs::create_dir_all(scratch.user_plugins()).unwrap();
    set_mode(&scratch.user_plugins(), 0o755);
    scratch.install_in(&scratch.user_plugins(), TURN_COUNT);
    let files = strategy_files(&scratch);
    assert_eq!(files[1].0, "turn-count");
    assert!(
        files[1]
            .1
            .starts_with(scratch.user_plugins().canonicalize().unwrap()),
        "{files:?}"
    );
    let render = scratch.render_json(
        &example("tool-actions.json"),
        1,
        &["--strategy", "turn-count"],
    );
    assert_eq!(render["strategy"], "turn-count");
}

#[test]
fn without_xdg_data_home_the_user_directory_is_under_home() {
    let scratch = Scratch::with_plugins(&[]);
    let dir = scratch.path().join("home/.local/share/ptc/plugins");
    let run = scratch.run(
        ptc_command(scratch.path())
            .env_remove("XDG_DATA_HOME")
            .args(["plugins", "install"])
            .arg(built_plugin(TURN_COUNT)),
    );
    let installed = run.ok();
    let file = dir.join(file_name(TURN_COUNT));
    assert_eq!(
        installed,
        format!(
            "installed turn-count {}: {}\n",
            env!("CARGO_PKG_VERSION"),
            file.display()
        )
    );
    let list = scratch.run(
        ptc_command(scratch.path())
            .env_remove("XDG_DATA_HOME")
            .args(["strategies", "--format", "json"]),
    );
    assert_eq!(strategy_names(&list.json()), ["turn-count"]);
}

#[cfg(unix)]
#[test]
fn a_user_directory_others_can_write_is_refused_like_any_plugin_directory() {
    let scratch = Scratch::with_plugins(&[SUC]);
    std::fs::create_dir_all(scratch.user_plugins()).unwrap();
    scratch.install_in(&scratch.user_plugins(), TURN_COUNT);
    set_mode(&scratch.user_plugins(), 0o777);
    let run = scratch.ptc(["strategies", "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let shown = scratch.user_plugins().display().to_string();
    assert!(
        run.stderr.starts_with(&format!(
            "warning: refusing plugin directory {shown}: it is writable by every other user"
        )) && run.stderr.contains(&format!("run `chmod o-w {shown}`")),
        "{}",
        run.stderr
    );
    assert_eq!(strategy_names(&run.json()), ["single-user-coalesced"]);
    // Removing from there says why nothing there is known.
    let err = scratch.ptc(["plugins", "remove", "turn-count"]).bad_input();
    assert!(
        err.starts_with(
            "error: cannot remove `turn-count`: the user plugin directory is not searched: refused: it is writable by every other user"
        ),
        "{err}"
    );
    // Installing there says that ptc will refuse it.
    let run = install(&scratch, &[&built_plugin(TURN_COUNT)]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.starts_with(&format!(
            "warning: ptc refuses plugins from {shown}: it is writable by every other user"
        )),
        "{}",
        run.stderr
    );
}

#[test]
fn install_checks_and_copies_a_plugin_file_with_no_temporary_left() {
    let scratch = Scratch::with_plugins(&[SUC]);
    let run = install(&scratch, &[&built_plugin(TURN_COUNT)]);
    assert_eq!(run.stderr, "");
    let file = scratch.user_plugins().join(file_name(TURN_COUNT));
    assert_eq!(
        run.ok(),
        format!(
            "installed turn-count {}: {}\n",
            env!("CARGO_PKG_VERSION"),
            file.display()
        )
    );
    assert_eq!(names(&scratch.user_plugins()), [file_name(TURN_COUNT)]);
    assert_eq!(
        std::fs::read(&file).unwrap(),
        std::fs::read(built_plugin(TURN_COUNT)).unwrap()
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode, 0o755, "readable by all, writable by its owner only");
    }
    let files = strategy_files(&scratch);
    assert_eq!(files.len(), 2);
    assert_eq!(files[1].0, "turn-count");

    // Again: the file is replaced, still one file.
    install(&scratch, &[&built_plugin(TURN_COUNT)]).ok();
    assert_eq!(names(&scratch.user_plugins()), [file_name(TURN_COUNT)]);
}

#[test]
fn install_refuses_what_is_not_a_strategy_plugin_and_installs_nothing() {
    let scratch = Scratch::with_plugins(&[]);
    install(&scratch, &[&built_plugin(SUC)]).ok();
    let before = std::fs::read(scratch.user_plugins().join(file_name(SUC))).unwrap();

    let text = scratch.write("junk/libtext.so", "not a library\n");
    let real = std::fs::read(built_plugin(TURN_COUNT)).unwrap();
    let truncated = scratch.write("junk/libtruncated.so", &real[..real.len() / 2]);
    let notes = scratch.write("junk/notes.txt", "x");
    let no_crate = scratch.path().join("junk");
    let missing = scratch.path().join("missing.so");
    let run = install(
        &scratch,
        &[
            &built_plugin(TURN_COUNT),
            &text,
            &truncated,
            &notes,
            &no_crate,
            &missing,
        ],
    );
    let err = run.bad_input();
    for expected in [
        format!("cannot install {}: file too short", text.display()),
        format!(
            "cannot install {}: truncated or corrupt",
            truncated.display()
        ),
        format!(
            "cannot install {}: not a plugin file: ptc loads files whose name ends in",
            notes.display()
        ),
        format!(
            "cannot install {}: a directory without a Cargo.toml",
            no_crate.display()
        ),
        format!("cannot install {}: it does not exist", missing.display()),
    ] {
        assert!(err.contains(&expected), "{expected}\n{err}");
    }
    assert!(!err.contains("turn_count"), "the good file is fine: {err}");
    // Nothing was written: the good file of the same run neither.
    assert_eq!(names(&scratch.user_plugins()), [file_name(SUC)]);
    assert_eq!(
        std::fs::read(scratch.user_plugins().join(file_name(SUC))).unwrap(),
        before
    );
}

#[test]
fn install_refuses_a_plugin_built_for_another_plugin_api() {
    let scratch = Scratch::with_plugins(&[]);
    let bumped = bad_plugin(BUMPED_ABI);
    let err = install(&scratch, &[&bumped]).bad_input();
    assert!(
        err.starts_with(&format!(
            "error: cannot install {}: built for ptc-plugin-api",
            bumped.display()
        )) && err.contains("the plugin speaks ABI version 3, this host 2"),
        "{err}"
    );
    assert!(!scratch
        .user_plugins()
        .join(bumped.file_name().unwrap())
        .exists());
}

#[test]
fn install_refuses_two_files_of_one_strategy() {
    let scratch = Scratch::with_plugins(&[]);
    let copy = scratch.path().join("libcopy.so");
    std::fs::copy(built_plugin(TURN_COUNT), &copy).unwrap();
    let err = install(&scratch, &[&built_plugin(TURN_COUNT), &copy]).bad_input();
    assert!(
        err.ends_with(&format!(
            "and {} together: both provide strategy `turn-count`",
            copy.display()
        )),
        "{err}"
    );
    assert!(!scratch.user_plugins().join("libcopy.so").exists());
}

#[test]
fn install_replaces_another_file_of_the_same_strategy() {
    let scratch = Scratch::with_plugins(&[]);
    let copy = scratch.path().join("libold_name.so");
    std::fs::copy(built_plugin(TURN_COUNT), &copy).unwrap();
    install(&scratch, &[&copy]).ok();
    let out = install(&scratch, &[&built_plugin(TURN_COUNT)]).ok();
    assert!(
        out.ends_with(&format!(
            "removed {}, which provided turn-count too\n",
            scratch.user_plugins().join("libold_name.so").display()
        )),
        "{out}"
    );
    assert_eq!(names(&scratch.user_plugins()), [file_name(TURN_COUNT)]);
}

/// `ptc plugins list --format json`.
fn list_json(scratch: &Scratch) -> Json {
    scratch.ptc(["plugins", "list", "--format", "json"]).json()
}

#[test]
fn list_shows_every_directory_in_order_and_what_each_file_provides() {
    let scratch = Scratch::with_plugins(&[SUC]);
    let list = list_json(&scratch);
    let dirs = list.as_array().unwrap();
    assert_eq!(dirs.len(), 2, "{list:#}");
    assert_eq!(dirs[0]["directory"], "./plugins");
    assert_eq!(dirs[0]["kind"], "configured");
    assert_eq!(dirs[0]["state"], "searched");
    assert_eq!(dirs[0]["files"][0]["strategy"], "single-user-coalesced");
    assert_eq!(dirs[0]["files"][0]["status"], "loaded");
    assert_eq!(dirs[1]["kind"], "user");
    assert_eq!(dirs[1]["state"], "missing");
    assert_eq!(
        dirs[1]["directory"],
        scratch.user_plugins().display().to_string()
    );

    install(&scratch, &[&built_plugin(SUC), &built_plugin(TURN_COUNT)]).ok();
    scratch.write("data/ptc/plugins/libjunk.so", "junk");
    let list = list_json(&scratch);
    let user = &list[1]["files"];
    let by_name = |name: &str| -> &Json {
        user.as_array()
            .unwrap()
            .iter()
            .find(|f| f["file"].as_str().unwrap().ends_with(name))
            .unwrap()
    };
    let hidden = by_name(&file_name(SUC));
    assert_eq!(hidden["status"], "hidden");
    assert_eq!(hidden["strategy"], "single-user-coalesced");
    assert!(hidden["hidden_by"]
        .as_str()
        .unwrap()
        .ends_with(&format!("plugins/{}", file_name(SUC))));
    assert_eq!(by_name(&file_name(TURN_COUNT))["status"], "loaded");
    let junk = by_name("libjunk.so");
    assert_eq!(junk["status"], "skipped");
    assert_eq!(junk["strategy"], Json::Null);
    assert!(
        junk["error"]
            .as_str()
            .unwrap()
            .starts_with("file too short to be a shared library"),
        "{junk}"
    );

    let text = scratch.ptc(["plugins", "list"]).ok();
    let expected = format!(
        "./plugins ([plugins] directories, from ptc.toml)\n  {suc}  single-user-coalesced {v}\n{user} (the user plugin directory)\n",
        suc = file_name(SUC),
        v = env!("CARGO_PKG_VERSION"),
        user = scratch.user_plugins().display(),
    );
    assert!(text.starts_with(&expected), "{text}");
    assert!(text.contains("\n  libjunk.so "), "{text}");
    assert!(text.contains("not loaded: file too short"), "{text}");
    assert!(
        text.contains(&format!(
            "single-user-coalesced {}, hidden by {} (searched first)\n",
            env!("CARGO_PKG_VERSION"),
            scratch.plugins().join(file_name(SUC)).display()
        )),
        "{text}"
    );
    // A strategy hidden by one of an earlier directory is no warning in the other commands.
    let run = scratch.ptc(["strategies"]);
    assert!(!run.stderr.contains("single_user"), "{}", run.stderr);
}

#[test]
fn remove_deletes_by_strategy_or_file_name_from_the_user_directory_only() {
    let scratch = Scratch::with_plugins(&[SUC]);
    let full_history = built_plugin("ptc-strategy-full-history");
    install(&scratch, &[&built_plugin(TURN_COUNT), &full_history]).ok();
    let user = scratch.user_plugins();

    // Unknown names: nothing is removed, and the closest installed name is suggested.
    let err = scratch
        .ptc(["plugins", "remove", "turn-count", "full-histroy"])
        .bad_input();
    assert_eq!(
        err,
        format!(
            "error: cannot remove `full-histroy`: no strategy or file of that name in the user plugin directory {} (installed: full-history, {}, turn-count, {}); did you mean `full-history`?",
            user.display(),
            file_name("ptc-strategy-full-history"),
            file_name(TURN_COUNT)
        )
    );
    assert_eq!(names(&user).len(), 2);
    // A strategy of another directory is not ptc's to remove.
    let err = scratch
        .ptc(["plugins", "remove", "single-user-coalesced"])
        .bad_input();
    assert!(
        err.contains(&format!(
            "it is not in the user plugin directory {}: it comes from ./plugins/{}",
            user.display(),
            file_name(SUC)
        )),
        "{err}"
    );
    assert!(scratch.plugins().join(file_name(SUC)).exists());

    let out = scratch
        .ptc([
            "plugins",
            "remove",
            "turn-count",
            &file_name("ptc-strategy-full-history"),
        ])
        .ok();
    assert_eq!(
        out,
        format!(
            "removed turn-count: {}\nremoved full-history: {}\n",
            user.join(file_name(TURN_COUNT)).display(),
            user.join(file_name("ptc-strategy-full-history")).display()
        )
    );
    assert!(names(&user).is_empty());
    let err = scratch.ptc(["plugins", "remove", "turn-count"]).bad_input();
    assert_eq!(
        err,
        format!(
            "error: cannot remove `turn-count`: nothing is installed in the user plugin directory {}",
            user.display()
        )
    );
}

#[test]
fn plugins_help_explains_each_command() {
    let help = Scratch::with_plugins(&[]).ptc(["plugins", "--help"]).ok();
    for needle in [
        "install",
        "list",
        "remove",
        "XDG_DATA_HOME",
        "~/.local/share/ptc/plugins",
    ] {
        assert!(help.contains(needle), "{needle}:\n{help}");
    }
    let help = Scratch::with_plugins(&[])
        .ptc(["plugins", "install", "--help"])
        .ok();
    for needle in [
        "cargo build --release",
        "Cargo.toml",
        "temporary name",
        "exit 2",
    ] {
        assert!(help.contains(needle), "{needle}:\n{help}");
    }
}

/// A plugin file whose name starts with `.` is invisible to `ls`: it is neither installed nor
/// loaded from a plugin directory.
#[test]
fn a_hidden_plugin_file_is_refused_and_not_loaded() {
    let scratch = Scratch::with_plugins(&[SUC]);
    let hidden = scratch.path().join(format!(".{}", file_name(TURN_COUNT)));
    std::fs::copy(built_plugin(TURN_COUNT), &hidden).unwrap();
    set_mode(&hidden, 0o755);
    let err = install(&scratch, &[&hidden]).bad_input();
    assert!(err.contains("which hides it from `ls`"), "{err}");
    assert!(!scratch.user_plugins().exists(), "nothing installed");

    let planted = scratch
        .plugins()
        .join(format!(".{}", file_name(TURN_COUNT)));
    std::fs::copy(built_plugin(TURN_COUNT), &planted).unwrap();
    set_mode(&planted, 0o755);
    let run = scratch.ptc(["strategies", "--format", "json"]);
    assert!(
        run.stderr.contains(&format!(
            "warning: skipping plugin ./plugins/.{}: its name starts with `.`",
            file_name(TURN_COUNT)
        )),
        "{}",
        run.stderr
    );
    assert_eq!(strategy_names(&run.json()), ["single-user-coalesced"]);
}

/// Two installs of one strategy under two file names, one finishing while the other waits:
/// the second sees the first's file and replaces it, so one file provides the strategy.
#[cfg(unix)]
#[test]
fn installs_take_turns_and_leave_one_file_per_strategy() {
    use std::os::unix::io::AsRawFd;
    let scratch = Scratch::with_plugins(&[]);
    let user = scratch.user_plugins();
    std::fs::create_dir_all(&user).unwrap();
    set_mode(&user, 0o755);
    let second = scratch.path().join("libsecond_turn_count.so");
    std::fs::copy(built_plugin(TURN_COUNT), &second).unwrap();
    set_mode(&second, 0o755);
    // Another install holds the directory's lock while it writes its file.
    let lock = std::fs::File::create(user.with_extension("lock")).unwrap();
    // SAFETY: flock on a descriptor this test owns.
    assert_eq!(unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX) }, 0);
    let mut waiting = ptc_command(scratch.path());
    waiting
        .args(["plugins", "install"])
        .arg(&second)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let child = waiting.spawn().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(700));
    let first = user.join(file_name(TURN_COUNT));
    std::fs::copy(built_plugin(TURN_COUNT), &first).unwrap();
    set_mode(&first, 0o755);
    drop(lock);
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(&format!(
            "removed {}, which provided turn-count too",
            first.display()
        )),
        "{stdout}"
    );
    let mut left: Vec<String> = std::fs::read_dir(&user)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["libsecond_turn_count.so"]);
}
