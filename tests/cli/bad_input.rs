//! Bad input: each case is one error naming the file and the place, exit code 2, nothing on
//! stdout, never a panic.

use crate::support::{example, shared};

/// Renders `contents` written as a recording; returns the error.
fn render_error(name: &str, contents: &[u8], extra: &[&str]) -> String {
    let path = shared().write(name, contents);
    let mut args = vec!["render".to_string(), path.display().to_string()];
    args.extend(extra.iter().map(|s| s.to_string()));
    let err = shared().ptc(args).bad_input();
    assert!(
        err.contains(&path.display().to_string()),
        "the error names the file: {err}"
    );
    err
}

#[test]
fn malformed_json() {
    let err = render_error(
        "malformed.json",
        b"{\"mission\": \"x\",\n  \"turns\": [}\n",
        &[],
    );
    assert!(
        err.contains("malformed.json:2:13: at `turns[0]`: expected value"),
        "{err}"
    );
}

#[test]
fn wrong_type_deep_inside() {
    let json = br#"{"mission": "x", "turns": [{"number": 1, "success": true,
        "tool_calls": [{"name": "a", "args": {":q": 1}, "result": null}, {"name": 5}]}]}"#;
    let err = render_error("wrong-type.json", json, &[]);
    assert!(err.contains("wrong-type.json:2:83: at `turns[0].tool_calls[1].name`: invalid type: integer `5`, expected a string"), "{err}");
}

#[test]
fn missing_mission() {
    let err = render_error("no-mission.json", br#"{"turns": []}"#, &[]);
    assert!(err.contains("missing field `mission`"), "{err}");
}

#[test]
fn failed_turn_without_error() {
    let json = br#"{"mission": "x", "turns": [{"number": 1, "success": false}]}"#;
    let err = render_error("no-error.json", json, &[]);
    assert!(err.contains("at `turns[0]`: a failed turn"), "{err}");
}

#[test]
fn non_consecutive_turn_numbers() {
    let json = br#"{"mission": "x", "turns": [{"number": 1, "success": true}, {"number": 3, "success": true}]}"#;
    let err = render_error("gap.json", json, &[]);
    assert!(
        err.contains(
            "at `turns[1].number`: turn numbers must be consecutive from 1: expected 2, found 3"
        ),
        "{err}"
    );
}

#[test]
fn more_turns_than_max_turns() {
    let json = br#"{"mission": "x", "max_turns": 1, "turns": [{"number": 1, "success": true}, {"number": 2, "success": true}]}"#;
    let err = render_error("too-many.json", json, &[]);
    assert!(
        err.contains("at `turns`: 2 turns recorded but max_turns is 1"),
        "{err}"
    );
}

#[test]
fn unknown_tag() {
    let json = br#"{"mission": "x", "data": {"d": {"$date": "2025-01-01"}}}"#;
    let err = render_error("tag.json", json, &[]);
    assert!(err.contains("at `data.d`: unknown tag `$date`"), "{err}");
}

#[test]
fn nesting_deeper_than_128_levels() {
    let deep = format!(
        "{{\"mission\": \"x\", \"data\": {{\"d\": {}{}}}}}",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let err = render_error("deep.json", deep.as_bytes(), &[]);
    assert!(err.contains("value nested deeper than 128 levels"), "{err}");
    assert!(
        err.contains(&format!("at `data.d{}`", "[0]".repeat(127))),
        "{err}"
    );
}

#[test]
fn invalid_utf8() {
    let err = render_error("latin1.json", b"{\"mission\": \"caf\xe9\"}", &[]);
    assert!(err.contains("latin1.json:1:"), "{err}");
}

#[test]
fn turns_beyond_the_recording() {
    let err = shared()
        .ptc([
            "render",
            example("tool-actions.json").to_str().unwrap(),
            "--turns",
            "99",
        ])
        .bad_input();
    assert!(
        err.contains("--turns 99 is more than the 4 turn(s) recorded in"),
        "{err}"
    );
}

#[test]
fn unknown_strategy() {
    let err = shared()
        .ptc([
            "render",
            example("tool-actions.json").to_str().unwrap(),
            "--strategy",
            "nope",
        ])
        .bad_input();
    assert!(
        err.contains(
            "unknown strategy `nope`: the loaded strategies are single-user-coalesced, turn-count"
        ),
        "{err}"
    );
}

#[test]
fn missing_recording_file() {
    let err = shared().ptc(["render", "does-not-exist.json"]).bad_input();
    assert!(
        err.contains("cannot read recording does-not-exist.json"),
        "{err}"
    );
}

#[test]
fn placeholder_without_data() {
    let err = render_error("placeholder.json", br#"{"mission": "Find {{who}}"}"#, &[]);
    assert!(
        err.contains("at `mission`: placeholder {{who}} has no data/who"),
        "{err}"
    );
}

#[test]
fn a_recording_over_the_size_limit_is_refused_before_it_is_read() {
    // 2 GiB of holes.
    let path = shared().path().join("huge.json");
    std::fs::File::create(&path)
        .unwrap()
        .set_len(2 << 30)
        .unwrap();
    let limit = "is larger than the limit of 268435456 bytes (256 MiB); raise it with --max-recording-bytes";
    for command in ["render", "trace", "validate"] {
        let run = shared().ptc([command, path.to_str().unwrap()]);
        let err = if command == "validate" {
            assert_eq!(run.code, 2, "{}", run.stderr);
            run.stdout
        } else {
            run.bad_input()
        };
        assert!(
            err.contains(&format!("recording {} {limit}", path.display())),
            "{command}: {err}"
        );
    }
    // The limit is the flag's.
    let small = example("single-shot.json");
    let err = shared()
        .ptc([
            "render",
            small.to_str().unwrap(),
            "--max-recording-bytes",
            "100",
        ])
        .bad_input();
    assert_eq!(
        err,
        format!(
            "error: recording {} is larger than the limit of 100 bytes; raise it with --max-recording-bytes",
            small.display()
        )
    );
}

#[cfg(unix)]
#[test]
fn an_endless_jsonl_line_ends_with_the_limit_not_an_abort() {
    let scratch = crate::support::Scratch::with_plugins(&[crate::support::SUC]);
    let zero = scratch.path().join("zero.jsonl");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    for args in [
        vec!["ab", "zero.jsonl"],
        vec!["validate", "zero.jsonl"],
        vec!["trace", "zero.jsonl"],
    ] {
        let err = scratch.ptc(&args).bad_input();
        assert_eq!(
            err,
            "error: recording zero.jsonl:1 is larger than the limit of 268435456 bytes (256 MiB); raise it with --max-recording-bytes",
            "{args:?}"
        );
    }
    let err = scratch
        .ptc([
            "import",
            "ptc-runner",
            "/dev/zero",
            "--max-recording-bytes",
            "1048576",
        ])
        .bad_input();
    assert_eq!(
        err,
        "error: cannot import /dev/zero:1: the line is longer than the limit of 1048576 bytes (1 MiB); raise it with --max-recording-bytes"
    );
}

/// `ptc validate` checks many recordings at once and reports them in the order listed: the
/// broken ones among 300 (more than are checked at once) come out in file order, each once.
#[test]
fn validate_reports_many_recordings_in_order() {
    let scratch = shared();
    let good = std::fs::read(example("data-exploration.json")).unwrap();
    let broken = [0, 1, 255, 256, 257, 299];
    for i in 0..300 {
        let name = format!("validate-many/r{i:03}.json");
        match broken.contains(&i) {
            true => scratch.write(&name, b"{\"mission\": "),
            false => scratch.write(&name, &good),
        };
    }
    let run = scratch.ptc(["validate", "validate-many"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    let files: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| l.contains(": error: "))
        .map(|l| l.split(':').next().unwrap())
        .collect();
    let expected: Vec<String> = broken
        .iter()
        .map(|i| format!("validate-many/r{i:03}.json"))
        .collect();
    assert_eq!(files, expected, "{}", run.stdout);
    assert!(
        run.stdout
            .ends_with("300 recording(s), 6 error(s), 0 warning(s)\n"),
        "{}",
        run.stdout
    );
}
