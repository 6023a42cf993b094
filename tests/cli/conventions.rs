//! What users of other command-line tools expect: options where they apply, shell completions,
//! a man page, `-q` and `--color`.

use crate::support::{all_strategies, example, Scratch};

/// The headings and the long options of `ptc <args> --help`.
fn help(args: &[&str]) -> String {
    let mut all = args.to_vec();
    all.push("--help");
    Scratch::new().ptc(all).ok()
}

#[test]
fn configuration_options_are_offered_only_by_the_commands_that_read_the_configuration() {
    for command in ["schema", "new-plugin", "completions", "man"] {
        let text = help(&[command]);
        assert!(!text.contains("--set"), "{command} offers --set:\n{text}");
        assert!(
            !text.contains("--config"),
            "{command} offers --config:\n{text}"
        );
        assert!(text.contains("Global options:\n"), "{command}:\n{text}");
        assert!(text.contains("--quiet"), "{command}:\n{text}");
    }
    for command in [
        "ab",
        "render",
        "validate",
        "trace",
        "diff",
        "serve",
        "strategies",
    ] {
        let text = help(&[command]);
        let configuration = text.find("Configuration:\n").expect(command);
        let global = text.find("Global options:\n").expect(command);
        assert!(configuration < global, "{command}:\n{text}");
        let section = &text[configuration..global];
        assert!(section.contains("--set <KEY=VALUE>"), "{command}:\n{text}");
        assert!(
            section.contains("--allow-insecure-plugins"),
            "{command}:\n{text}"
        );
    }
    // Before the command or after it, a configuration option applies to it.
    let scratch = all_strategies();
    let recording = example("tool-actions.json");
    let recording = recording.to_str().unwrap();
    let before = scratch
        .ptc(["--set", "println_limit=1", "render", recording])
        .ok();
    let after = scratch
        .ptc(["render", recording, "--set", "println_limit=1"])
        .ok();
    let neither = scratch.ptc(["render", recording]).ok();
    assert_eq!(before, after);
    assert_ne!(before, neither, "--set before the command was ignored");
    let err = scratch.ptc(["schema", "--set", "x=1"]).run_failed();
    assert!(err.contains("unexpected argument '--set'"), "{err}");
}

#[test]
fn every_format_option_says_what_it_prints() {
    for command in ["strategies", "ab", "validate", "render"] {
        let text = help(&[command]);
        let at = text.find("--format <FORMAT>").expect(command);
        let description = text[at..].lines().nth(1).unwrap_or("").trim();
        assert!(
            !description.is_empty() && !description.starts_with("[possible values"),
            "{command} --format has no description:\n{text}"
        );
    }
}

#[test]
fn completions_are_printed_for_every_shell() {
    let scratch = Scratch::new();
    for (shell, marker) in [
        ("bash", "complete -F _ptc"),
        ("zsh", "#compdef ptc"),
        ("fish", "complete -c ptc"),
        ("powershell", "Register-ArgumentCompleter"),
    ] {
        let script = scratch.ptc(["completions", shell]).ok();
        assert!(script.contains(marker), "{shell}:\n{script}");
        for command in ["ab", "render", "validate", "completions"] {
            assert!(script.contains(command), "{shell} lacks {command}");
        }
    }
    let bash = scratch.ptc(["completions", "bash"]).ok();
    let file = scratch.write("ptc.bash", &bash);
    if let Ok(status) = std::process::Command::new("bash")
        .arg("-n")
        .arg(&file)
        .status()
    {
        assert!(
            status.success(),
            "the bash completion script does not parse"
        );
    }
    let err = scratch.ptc(["completions", "tcsh"]).run_failed();
    assert!(err.contains("invalid value 'tcsh'"), "{err}");
}

#[test]
fn the_man_page_is_printed_or_written_one_page_per_command() {
    let scratch = Scratch::new();
    let page = scratch.ptc(["man"]).ok();
    assert!(page.contains(".TH ptc 1"), "{page}");
    assert!(page.contains("ptc\\-ab(1)"), "{page}");
    scratch.ptc(["man", "--dir", "man1"]).ok();
    for file in [
        "ptc.1",
        "ptc-ab.1",
        "ptc-render.1",
        "ptc-import-ptc-runner.1",
    ] {
        let text = std::fs::read_to_string(scratch.path().join("man1").join(file)).unwrap();
        assert!(text.starts_with(".ie"), "{file}: {text}");
    }
    let ab = std::fs::read_to_string(scratch.path().join("man1/ptc-ab.1")).unwrap();
    assert!(ab.contains("\\-\\-no\\-timing"), "{ab}");
}

#[test]
fn quiet_leaves_out_warnings_but_not_errors() {
    let scratch = all_strategies();
    let dir = scratch.write(
        "quiet/bad.json",
        "{\"mission\": \"x\", \"max_turns\": 2, \"turns\": [",
    );
    let dir = dir.parent().unwrap().to_owned();
    std::fs::copy(example("tool-actions.json"), dir.join("good.json")).unwrap();
    let dir = dir.to_str().unwrap();
    let loud = scratch.ptc(["ab", dir, "--strategies", "delta-log", "--no-timing"]);
    assert_eq!(loud.code, 1);
    assert!(
        loud.stderr.contains("warning: skipping recording"),
        "{}",
        loud.stderr
    );
    let quiet = scratch.ptc(["ab", dir, "--strategies", "delta-log", "--no-timing", "-q"]);
    assert_eq!(quiet.code, 1);
    assert_eq!(quiet.stdout, loud.stdout);
    assert!(!quiet.stderr.contains("warning:"), "{}", quiet.stderr);
    let error = quiet.stderr.trim_end();
    assert!(
        error.starts_with("error: 1 of 2 recordings could not be read")
            && error.contains("(first: ")
            && error.contains("bad.json"),
        "{error}"
    );
}

#[test]
fn colour_follows_the_color_option_and_never_reaches_a_pipe_by_default() {
    let scratch = all_strategies();
    let recording = example("failure-recovery.json");
    let recording = recording.to_str().unwrap();
    let diff = |extra: &[&str]| {
        let mut args = vec!["diff", recording, "--strategies", "full-history,delta-log"];
        args.extend_from_slice(extra);
        scratch.ptc(args).ok()
    };
    let escape = '\u{1b}';
    assert!(!diff(&[]).contains(escape), "colour on a pipe");
    assert!(!diff(&["--color", "never"]).contains(escape));
    assert!(diff(&["--color", "always"]).contains(escape));
    assert!(diff(&["--color=always"]).contains(escape));
    // Logs: plain on a pipe, coloured when asked.
    let logs = |extra: &[&str]| {
        let mut args = vec!["-v", "strategies"];
        args.extend_from_slice(extra);
        let run = scratch.ptc(args);
        assert_eq!(run.code, 0, "{}", run.stderr);
        run.stderr
    };
    let plain = logs(&[]);
    assert!(plain.contains("DEBUG"), "{plain}");
    assert!(!plain.contains(escape), "{plain}");
    assert!(logs(&["--color", "always"]).contains(escape));
    // clap's own help follows it too.
    let help = scratch.ptc(["--color", "always", "--help"]).ok();
    assert!(help.contains(escape));
    assert!(!scratch.ptc(["--help"]).ok().contains(escape));
}

/// `ptc ab 2>&1 | head`: stderr closed too (`ab` writes notes there before its table), ptc still
/// ends with 0, and an error it cannot print still ends it with its own code: no panic (101).
#[test]
fn a_closed_stderr_is_no_panic() {
    let scratch = crate::support::all_strategies();
    let closed = |args: &[&str]| {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        crate::support::ptc_command(scratch.path())
            .args(args)
            .stdout(writer.try_clone().unwrap())
            .stderr(writer)
            .status()
            .unwrap()
            .code()
    };
    assert_eq!(
        closed(&["ab", "--strategies", "single-user-coalesced"]),
        Some(0)
    );
    assert_eq!(closed(&["ab", "--set", "no.such_key=1"]), Some(2));
}

#[test]
fn a_reader_that_stops_reading_ends_ptc_quietly_with_0_as_the_exit_codes_page_says() {
    let scratch = Scratch::new();
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let output = crate::support::ptc_command(scratch.path())
        .args(["render", example("tool-actions.json").to_str().unwrap()])
        .stdout(writer)
        .stderr(std::process::Stdio::piped())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert_eq!(String::from_utf8_lossy(&output.stderr), "");
    let page =
        std::fs::read_to_string(crate::support::repo().join("docs/src/reference/exit-codes.md"))
            .unwrap()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
    assert!(
        page.contains("a reader that stops reading (`ptc ... | head`) ends ptc quietly with 0"),
        "docs/src/reference/exit-codes.md says how a closed pipe ends ptc"
    );
}
