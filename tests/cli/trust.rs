//! The trust model: a plugin file or directory that another user could write is refused (like
//! sshd's StrictModes) unless `--allow-insecure-plugins`; a template cannot read a file outside
//! the templates directory.

use crate::support::{example, set_mode, Scratch, SUC, TURN_COUNT};

/// Whether this process may give files away (root): then the tests also use a foreign group
/// and owner, which no user's private group rule can excuse.
#[cfg(unix)]
fn may_chown(path: &std::path::Path) -> bool {
    std::os::unix::fs::chown(path, None, Some(4242)).is_ok()
}

fn render_turn_count(scratch: &Scratch, extra: &[&str]) -> crate::support::Run {
    let mut args = vec![
        "render".to_string(),
        example("tool-actions.json").display().to_string(),
        "--strategy".into(),
        "turn-count".into(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    scratch.ptc(args)
}

#[cfg(unix)]
#[test]
fn a_plugin_others_can_write_is_refused_unless_allowed() {
    let scratch = Scratch::with_plugins(&[SUC, TURN_COUNT]);
    let file = scratch.install(TURN_COUNT);
    // As ptc names it: its plugin directory from ptc.toml, relative to the working directory.
    let shown = format!("./plugins/{}", file.file_name().unwrap().to_str().unwrap());
    // Group-writable by a group that is not the user's private one (root can arrange that),
    // else writable by everyone.
    let (mode, who, fix) = if may_chown(&file) {
        (0o775, "its group (gid 4242)", "g-w")
    } else {
        (0o757, "every other user", "o-w")
    };
    set_mode(&file, mode);
    let refusal = format!("refusing plugin {shown}: it is writable by {who}");
    let fix = format!("run `chmod {fix} {shown}`; or pass --allow-insecure-plugins");

    let run = scratch.ptc(["strategies", "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.starts_with(&format!("warning: {refusal}")) && run.stderr.contains(&fix),
        "{}",
        run.stderr
    );
    let list = run.json();
    assert_eq!(list.as_array().unwrap().len(), 1, "the others still load");
    assert_eq!(list[0]["name"], "single-user-coalesced");

    let err = render_turn_count(&scratch, &[]).bad_input();
    assert_eq!(
        err.split(", who could").next().unwrap(),
        format!("error: strategy `turn-count` is not loaded: {refusal} (mode {mode:o})")
    );
    scratch.render_json(&example("tool-actions.json"), 1, &[]);

    let run = render_turn_count(&scratch, &["--allow-insecure-plugins"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stderr, "");
    let run = render_turn_count(&scratch, &["--set", "plugins.allow_insecure=true"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
}

#[cfg(unix)]
#[test]
fn a_plugin_owned_by_another_user_is_refused() {
    let scratch = Scratch::with_plugins(&[SUC, TURN_COUNT]);
    let file = scratch.plugins().join("libptc_strategy_turn_count.so");
    if std::os::unix::fs::chown(&file, Some(4242), None).is_err() {
        // Not root: a file given away cannot be made here; the mode check above still runs.
        let err =
            render_turn_count(&scratch, &["--set", "plugins.allow_insecure=maybe"]).bad_input();
        assert!(err.contains("plugins.allow_insecure"), "{err}");
        return;
    }
    let err = render_turn_count(&scratch, &[]).bad_input();
    assert!(
        err.starts_with(&format!(
            "error: strategy `turn-count` is not loaded: refusing plugin ./plugins/{}: it is owned by user 4242, not by you",
            file.file_name().unwrap().to_str().unwrap()
        )) && err.contains("run `chown "),
        "{err}"
    );
    let run = render_turn_count(&scratch, &["--allow-insecure-plugins"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
}

#[cfg(unix)]
#[test]
fn a_plugin_directory_others_can_write_is_refused() {
    let scratch = Scratch::with_plugins(&[SUC, TURN_COUNT]);
    let dir = scratch.plugins();
    let mode = if may_chown(&dir) { 0o775 } else { 0o757 };
    set_mode(&dir, mode);
    let run = scratch.ptc(["strategies"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr
            .starts_with("warning: refusing plugin directory ./plugins: it is writable by ")
            && run.stderr.contains("--allow-insecure-plugins"),
        "{}",
        run.stderr
    );
    assert!(
        run.stdout.starts_with("no strategies loaded"),
        "{}",
        run.stdout
    );
    let err = render_turn_count(&scratch, &[]).bad_input();
    assert!(
        err.starts_with("error: unknown strategy `turn-count`: the loaded strategies are none")
            && err
                .ends_with("; 1 plugin file(s) or directories were not loaded (see the warnings)"),
        "{err}"
    );
    let run = render_turn_count(&scratch, &["--allow-insecure-plugins"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    set_mode(&dir, 0o755);
}

#[cfg(unix)]
#[test]
fn a_plugin_linked_into_a_directory_others_can_write_is_refused() {
    let scratch = Scratch::with_plugins(&[SUC]);
    // The link is the user's and the file it names too; the directory holding the file lets
    // anybody swap it.
    let open = scratch.path().canonicalize().unwrap().join("ww");
    std::fs::create_dir(&open).unwrap();
    let target = scratch.install_in(&open, TURN_COUNT);
    set_mode(&open, 0o777);
    let link = scratch.plugins().join("libx.so");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let err = render_turn_count(&scratch, &[]).bad_input();
    assert_eq!(
        err,
        format!(
            "error: unknown strategy `turn-count`: the loaded strategies are single-user-coalesced (searched ./plugins, {}; `ptc strategies` lists them); 1 plugin file(s) or directories were not loaded (see the warnings)",
            scratch.user_plugins().display()
        )
    );
    let run = scratch.ptc(["strategies"]);
    assert!(
        run.stderr.starts_with(&format!(
            "warning: refusing plugin ./plugins/libx.so: the directory {0} on its path is writable by every other user (mode 777), who could swap the plugin for any code; run `chmod o-w {0}`; or pass --allow-insecure-plugins",
            open.display()
        )),
        "{}",
        run.stderr
    );
    // With the sticky bit nobody else may rename the file.
    set_mode(&open, 0o1777);
    let run = render_turn_count(&scratch, &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    set_mode(&open, 0o777);
    let run = render_turn_count(&scratch, &["--allow-insecure-plugins"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
}

#[test]
fn the_directory_of_the_built_ptc_passes_the_check() {
    let scratch = Scratch::with_plugins(&[]);
    scratch.write("ptc.toml", "[plugins]\ndirectories = []\n");
    let run = scratch.ptc(["strategies"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!run.stderr.contains("refusing"), "{}", run.stderr);
}

#[test]
fn templates_cannot_include_files_outside_the_templates_directory() {
    let scratch = Scratch::with_plugins(&[SUC, TURN_COUNT]);
    let secret = scratch.write("secret.txt", "the secret\n");
    for (tag, path, cause) in [
        (
            "include",
            "../../secret.txt".to_string(),
            "Unknown template `../../secret.txt`",
        ),
        (
            "include",
            secret.display().to_string(),
            "Unknown template `",
        ),
        (
            "include",
            "../../ptc.toml".to_string(),
            "Unknown template `../../ptc.toml`",
        ),
        (
            "extends",
            "../../secret.txt".to_string(),
            "it extends `../../secret.txt`, which is not one of its templates",
        ),
        ("extends", secret.display().to_string(), "it extends `"),
    ] {
        let first = if tag == "extends" {
            ""
        } else {
            "{{ mission }}"
        };
        scratch.write(
            "templates/turn-count/count.tera",
            format!("{first}\n{{% {tag} \"{path}\" %}}\n"),
        );
        let run = render_turn_count(&scratch, &[]);
        assert!(!run.stdout.contains("the secret") && !run.stdout.contains("[plugins]"));
        let err = run.bad_input();
        assert!(
            err.starts_with(&format!("error: template `turn-count/count` (./templates/turn-count/count.tera), line 2: {cause}")),
            "{err}"
        );
        assert!(!err.contains("the secret"), "{err}");
    }
}

/// A `ptc.toml` another user could have written chooses the plugin directories and can switch
/// the trust check off, so it is refused as such a plugin is, before any plugin loads.
#[cfg(unix)]
#[test]
fn a_configuration_others_can_write_is_refused_unless_allowed() {
    let scratch = Scratch::new();
    let bad_plugin = scratch.write("elsewhere/libforeign.so", "not a library");
    let config = scratch.write(
        "ptc.toml",
        format!(
            "[plugins]\ndirectories = [{:?}]\nallow_insecure = true\n",
            bad_plugin.parent().unwrap().display().to_string()
        ),
    );
    let recording = example("tool-actions.json");
    let validate = |extra: &[&str]| {
        let mut args = vec!["validate", recording.to_str().unwrap()];
        args.extend_from_slice(extra);
        scratch.ptc(args)
    };
    set_mode(&config, 0o644);
    let run = validate(&[]);
    assert_eq!(
        run.code, 0,
        "a file only its owner can write is read: {}",
        run.stderr
    );

    // Writable by everyone: refused with the same rules and fix as a plugin; nothing loads.
    set_mode(&config, 0o666);
    let err = validate(&[]).bad_input();
    assert!(
        err.starts_with(
            "error: refusing configuration ptc.toml: it is writable by every other user (mode 666)"
        ) && err.contains("run `chmod o-w ptc.toml`")
            && err
                .trim_end()
                .ends_with("(or pass --allow-insecure-plugins)")
            && !err.contains("libforeign"),
        "{err}"
    );
    // The same through --config, and for a file another user owns.
    set_mode(&config, 0o644);
    if may_chown(&config) {
        std::os::unix::fs::chown(&config, Some(4242), None).unwrap();
        let err = validate(&["--config", config.to_str().unwrap()]).bad_input();
        assert!(
            err.contains("refusing configuration ") && err.contains("it is owned by user 4242"),
            "{err}"
        );
        std::os::unix::fs::chown(&config, Some(0), None).unwrap();
    }
    // A directory others can write lets them replace the file.
    set_mode(scratch.path(), 0o777);
    let err = validate(&[]).bad_input();
    assert!(
        err.starts_with("error: refusing configuration ptc.toml: its directory .: it is writable by every other user"),
        "{err}"
    );
    // The user's own choice on the command line reads it anyway.
    let run = validate(&["--allow-insecure-plugins"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    set_mode(scratch.path(), 0o700);
}

/// A template file, or a directory holding it inside the templates directory, that another user
/// could write is refused as a configuration file is: whoever writes it changes every prompt
/// `render` and `serve` send, and the report's page.
#[cfg(unix)]
#[test]
fn a_template_others_can_write_is_refused_unless_allowed() {
    let scratch = Scratch::new();
    let path = example("failure-recovery.json").display().to_string();
    let render = |extra: &[&str]| {
        let mut args = vec!["render", path.as_str(), "--turns", "1", "--format", "json"];
        args.extend(extra);
        scratch.ptc(args)
    };
    let file = scratch.write(
        "templates/coalesce/turns_left.tera",
        "{{ turns_left }} left\n",
    );
    for dir in ["templates", "templates/coalesce"] {
        set_mode(&scratch.path().join(dir), 0o755);
    }
    set_mode(&file, 0o644);
    assert!(render(&[]).ok().contains("7 left\""));

    set_mode(&file, 0o666);
    let err = render(&[]).bad_input();
    assert!(
        err.starts_with("error: refusing template ./templates/coalesce/turns_left.tera: it is writable by every other user (mode 666)"),
        "{err}"
    );
    assert!(render(&["--allow-insecure-plugins"])
        .ok()
        .contains("7 left\""));
    set_mode(&file, 0o644);

    for dir in ["templates/coalesce", "templates"] {
        set_mode(&scratch.path().join(dir), 0o777);
        let err = render(&[]).bad_input();
        assert!(
            err.starts_with(&format!(
                "error: refusing template ./templates/coalesce/turns_left.tera: its directory ./{dir}: it is writable by every other user"
            )),
            "{dir}: {err}"
        );
        set_mode(&scratch.path().join(dir), 0o755);
    }

    // The host's own templates (here the report's page) follow the same rule.
    let page = scratch.write("templates/report.html.tera", "planted\n");
    set_mode(&page, 0o666);
    let err = scratch
        .ptc([
            "ab",
            "--strategies",
            "single-user-coalesced",
            "--set",
            "ab.baseline=single-user-coalesced",
            "--report",
            "r.html",
            path.as_str(),
        ])
        .bad_input();
    assert!(
        err.contains(
            "refusing template ./templates/report.html.tera: it is writable by every other user"
        ),
        "{err}"
    );
    assert!(!scratch.path().join("r.html").exists());
}
