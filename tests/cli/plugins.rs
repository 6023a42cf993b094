//! Discovery and loading of strategy plugins: several side by side, nothing without its file,
//! junk reported and skipped.

use crate::support::{built_plugin, example, set_mode, strategy_names, Scratch, SUC, TURN_COUNT};

#[test]
fn strategies_lists_every_loaded_plugin_with_its_options() {
    let scratch = Scratch::new();
    let list = scratch.ptc(["strategies", "--format", "json"]).json();
    let names = strategy_names(&list);
    assert_eq!(names, ["single-user-coalesced", "turn-count"]);
    let suc = &list[0];
    assert_eq!(suc["version"], env!("CARGO_PKG_VERSION"));
    let file = std::path::PathBuf::from(suc["file"].as_str().unwrap());
    assert!(
        file.is_absolute() && file.starts_with(scratch.path().canonicalize().unwrap()),
        "{file:?}"
    );
    let option = suc["options"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["name"] == "println_limit")
        .unwrap();
    assert_eq!(option["default"], 15);
    assert!(option["doc"].as_str().unwrap().contains("println"));
    let mut keys: Vec<&String> = suc.as_object().unwrap().keys().collect();
    keys.sort();
    assert_eq!(
        keys,
        [
            "default",
            "description",
            "file",
            "name",
            "options",
            "renders_from",
            "version"
        ]
    );
}

#[test]
fn two_plugins_render_side_by_side_in_one_process() {
    let scratch = Scratch::new();
    let path = example("tool-actions.json");
    let count = scratch.render_json(
        &path,
        2,
        &["--strategy", "turn-count", "--set", "label=Done"],
    );
    let content = count["messages"][0]["content"].as_str().unwrap();
    assert!(content.ends_with("\nDone: 2"), "{content}");
    assert_eq!(count["strategy"], "turn-count");
    let suc = scratch.render_json(&path, 2, &[]);
    assert_eq!(suc["strategy"], "single-user-coalesced");
    assert!(suc["messages"][1]["content"]
        .as_str()
        .unwrap()
        .contains(";; Tool calls made:"));
}

#[test]
fn removing_the_file_removes_the_strategy() {
    let scratch = Scratch::with_plugins(&[TURN_COUNT]);
    let list = scratch.ptc(["strategies", "--format", "json"]).json();
    assert_eq!(list.as_array().unwrap().len(), 1);
    let err = scratch
        .ptc(["render", example("tool-actions.json").to_str().unwrap()])
        .bad_input();
    assert!(
        err.contains(
            "unknown strategy `single-user-coalesced`: the loaded strategies are turn-count"
        ),
        "{err}"
    );
}

#[test]
fn junk_in_the_plugin_directory_is_reported_and_skipped() {
    let scratch = Scratch::new();
    scratch.write("plugins/empty.so", "");
    scratch.write("plugins/text.so", "not a library\n");
    scratch.write(
        "plugins/random.so",
        (0..4096u32)
            .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
            .collect::<Vec<_>>(),
    );
    let real = std::fs::read(built_plugin(SUC)).unwrap();
    scratch.write("plugins/truncated.so", &real[..real.len() / 2]);
    scratch.write("plugins/notes.txt", "ignored");
    scratch.write("plugins/some-crate/src/lib.rs", "ignored");
    let run = scratch.ptc([
        "render",
        example("single-shot.json").to_str().unwrap(),
        "--format",
        "json",
    ]);
    let stderr = run.stderr.clone();
    assert_eq!(run.code, 0, "{stderr}");
    for file in ["empty.so", "text.so", "random.so", "truncated.so"] {
        assert!(
            stderr
                .lines()
                .any(|l| l.starts_with("warning: skipping plugin ") && l.contains(file)),
            "no warning for {file}:\n{stderr}"
        );
    }
    assert!(
        stderr.contains("truncated.so: truncated or corrupt"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("notes.txt") && !stderr.contains("some-crate"),
        "{stderr}"
    );
    assert!(!stderr.contains('\0'));
}

#[test]
fn a_second_plugin_with_the_same_name_is_skipped() {
    let scratch = Scratch::with_plugins(&[SUC]);
    let copy = scratch.plugins().join("libzz_copy.so");
    std::fs::copy(built_plugin(SUC), &copy).unwrap();
    set_mode(&copy, 0o755);
    let run = scratch.ptc(["strategies"]);
    assert_eq!(run.code, 0);
    assert!(
        run.stderr
            .contains("libzz_copy.so: strategy `single-user-coalesced` is already loaded from"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_strategy_error_names_the_strategy_and_exits_2() {
    let scratch = Scratch::new();
    let path = example("tool-actions.json");
    let err = scratch
        .ptc([
            "render",
            path.to_str().unwrap(),
            "--strategy",
            "turn-count",
            "--set",
            "fail_after=0",
        ])
        .bad_input();
    assert!(
        err.contains("strategy `turn-count` (")
            && err.contains("failed: too many turns for turn-count"),
        "{err}"
    );
    let err = scratch
        .ptc([
            "render",
            path.to_str().unwrap(),
            "--set",
            "tool_call_results=sometimes",
        ])
        .bad_input();
    assert!(err.contains("option `tool_call_results`: expected one of never, when_no_println, found \"sometimes\""), "{err}");
}

#[test]
fn a_huge_file_in_the_plugin_directory_is_skipped_from_its_header() {
    let scratch = Scratch::with_plugins(&[SUC]);
    // 3 GiB of holes: only its header is read.
    std::fs::File::create(scratch.plugins().join("libhuge.so"))
        .unwrap()
        .set_len(3 << 30)
        .unwrap();
    let run = scratch.ptc(["strategies", "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stderr,
        "warning: skipping plugin ./plugins/libhuge.so: not a shared library (no ELF header)\n"
    );
    assert_eq!(strategy_names(&run.json()), ["single-user-coalesced"]);
}

#[test]
fn commands_that_render_nothing_load_no_plugin() {
    let scratch = Scratch::with_plugins(&[SUC]);
    scratch.write("plugins/libjunk.so", "not a library\n");
    let warning = "warning: skipping plugin ./plugins/libjunk.so";
    let recording = example("single-shot.json");
    let recording = recording.to_str().unwrap();
    let trace = crate::support::repo().join("tests/cli/traces/ptc-runner.jsonl");
    let new_plugin = scratch.path().join("new");
    for args in [
        vec!["schema"],
        vec!["validate", recording],
        vec!["import", "ptc-runner", trace.to_str().unwrap()],
        vec!["trace", recording],
        vec!["trace", recording, "--raw"],
        vec!["new-plugin", "mine", "--path", new_plugin.to_str().unwrap()],
    ] {
        let run = scratch.ptc(&args);
        assert_eq!(run.code, 0, "{args:?}: {}", run.stderr);
        assert!(!run.stderr.contains("plugin"), "{args:?}: {}", run.stderr);
    }
    for args in [
        vec!["render", recording],
        vec!["trace", recording, "--view", "compressed"],
        vec!["trace", recording, "--usage"],
        vec!["strategies"],
    ] {
        let run = scratch.ptc(&args);
        assert_eq!(run.code, 0, "{args:?}: {}", run.stderr);
        assert!(run.stderr.starts_with(warning), "{args:?}: {}", run.stderr);
        assert_eq!(run.stderr.matches(warning).count(), 1, "{}", run.stderr);
    }
}

/// A build of the workspace leaves only the bundled strategies next to `ptc`, where plugin
/// discovery looks: the strategies that exist for the tests are built into `deps/` only.
#[test]
fn no_test_strategy_is_built_next_to_ptc() {
    let deps = built_plugin(TURN_COUNT);
    let beside_ptc = deps
        .parent()
        .and_then(|d| d.parent())
        .expect("the profile directory")
        .join(deps.file_name().unwrap());
    assert!(
        !beside_ptc.exists(),
        "{} is where discovery finds it",
        beside_ptc.display()
    );
}
