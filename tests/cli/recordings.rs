//! Recordings as users handle them: corpora (JSONL files, directories), `ptc validate`,
//! `ptc trace`.

use std::path::Path;

use serde_json::Value as Json;

use crate::support::{example, repo, shared, Scratch};

const BAD: &str = concat!(
    r#"{"mission": "Find {{who}} and {{x}}", "max_turns": 1, "tools": [{"name": "bad name"}], "#,
    r#""turns": [{"number": 2, "success": false, "tool_calls": [{"name": "ghost"}]}, {"number": 3, "success": true}]}"#,
    "\n\n",
    r#"{"mission": 5}"#,
    "\n",
    r#"{"mission": "fine", "tools": [{"name": "t"}], "turns": [{"number": 1, "success": true, "tool_calls": [{"name": "t"}]}]}"#,
    "\n"
);

#[test]
fn validate_reports_every_problem_with_file_line_and_path() {
    let path = shared().write("bad.jsonl", BAD);
    let run = shared().ptc(["validate", path.to_str().unwrap()]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    let report = run.stdout.replace(&path.display().to_string(), "bad.jsonl");
    insta::assert_snapshot!("validate_bad_jsonl", report);
    assert!(
        run.stderr
            .ends_with("error: 8 error(s) in 3 recording(s)\n"),
        "{}",
        run.stderr
    );
    let json = shared().ptc(["validate", path.to_str().unwrap(), "--format", "json"]);
    let json: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(json["errors"], 8);
    assert_eq!(json["problems"].as_array().unwrap().len(), 9);
    assert_eq!(json["problems"][8]["line"], 3);
    assert_eq!(json["problems"][8]["column"], 13);
    // Every problem has its place: the text there is the field or the value it is about.
    let first = BAD.lines().next().unwrap();
    for (problem, text) in json["problems"].as_array().unwrap().iter().zip([
        r#""mission""#,
        r#""mission""#,
        r#""name": "bad name""#,
        r#""turns""#,
        r#"{"number": 2"#,
        r#""number": 2"#,
        r#""name": "ghost""#,
        r#""number": 3"#,
    ]) {
        assert_eq!(problem["line"], 1, "{problem}");
        let column = problem["column"].as_u64().unwrap() as usize;
        assert!(first[column - 1..].starts_with(text), "{problem}: {text}");
    }
}

/// The text at `line`:`column` (both from 1) of `text`.
fn at(text: &str, line: u64, column: u64) -> &str {
    let line = text
        .lines()
        .nth(line as usize - 1)
        .expect("the line exists");
    &line[column as usize - 1..]
}

#[test]
fn validate_reports_every_problem_of_shape_and_rule_in_one_run_each_in_its_place() {
    let path = repo().join("tests/fixtures/recordings/many-problems.json");
    let run = shared().ptc(["validate", path.to_str().unwrap()]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    let report = run
        .stdout
        .replace(&path.display().to_string(), "many-problems.json");
    insta::assert_snapshot!("validate_many_problems", report);
    assert_eq!(run.stderr, "error: 12 error(s) in 1 recording(s)\n");
    let json = shared().ptc(["validate", path.to_str().unwrap(), "--format", "json"]);
    assert_eq!(json.code, 2);
    let json: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let problems = json["problems"].as_array().unwrap();
    let expected = [
        ("misson", "error", r#""misson": "typo""#),
        ("mission", "error", r#""mission": "Find {{who}}""#),
        ("data.x", "error", r#"{"$nope": 1}"#),
        ("turns", "error", r#""turns": ["#),
        ("turns[0].success", "error", r#""yes""#),
        ("turns[1]", "error", r#"{"number": 3"#),
        ("turns[1].number", "error", r#""number": 3"#),
        (
            "turns[1].tool_calls[0].name",
            "warning",
            r#""name": "ghost""#,
        ),
        (
            "turns[1].tool_calls[0].args",
            "error",
            r#"{"a": 1, "a": 2}"#,
        ),
        ("turns[2].number", "error", r#""number": 4"#),
        ("turns[2].prints[0]", "error", "5]"),
        ("turns[2].started_at", "error", r#""started_at": -1"#),
        ("turns[3]", "error", "5\n"),
    ];
    assert_eq!(problems.len(), expected.len(), "{problems:#?}");
    for (problem, (json_path, severity, place)) in problems.iter().zip(expected) {
        assert_eq!(problem["json_path"], json_path, "{problem}");
        assert_eq!(problem["severity"], severity, "{problem}");
        let (line, column) = (
            problem["line"].as_u64().unwrap(),
            problem["column"].as_u64().unwrap(),
        );
        let found = at(&text, line, column);
        assert!(
            found.starts_with(place.trim_end_matches('\n')),
            "{json_path} at {line}:{column}: {found:?}"
        );
    }
}

#[test]
fn the_bundled_examples_are_valid() {
    let expected = format!(
        "{} recording(s), 0 error(s), 0 warning(s)\n",
        crate::support::bundled().0
    );
    assert!(
        crate::support::bundled().0 >= 30,
        "the bundled corpus has at least 30 runs"
    );
    let out = shared().ptc(["validate"]).ok();
    assert_eq!(out, expected);
    let dir = repo().join("examples/recordings");
    let out = shared().ptc(["validate", dir.to_str().unwrap()]).ok();
    assert_eq!(out, expected);
}

#[test]
fn a_jsonl_line_is_a_recording_wherever_one_is_accepted() {
    let path = shared().write("corpus.jsonl", BAD);
    let line = format!("{}:4", path.display());
    let render = shared().render_json(line.as_ref(), 1, &[]);
    assert_eq!(render["turns"], 1);
    let err = shared().ptc(["render", path.to_str().unwrap()]).bad_input();
    assert!(err.contains("holds 3 recordings; name one"), "{err}");
    let err = shared()
        .ptc(["render", &format!("{}:3", path.display())])
        .bad_input();
    assert!(err.contains("corpus.jsonl:3:13: at `mission`"), "{err}");
    // ptc ab measures the good line, names the bad ones, and exits 1: results, but partial.
    let run = crate::support::all_strategies().ptc(["ab", path.to_str().unwrap()]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stdout.starts_with("1 recording(s), 1 prompt(s)"),
        "{}",
        run.stdout
    );
    assert!(
        run.stderr
            .contains("corpus.jsonl:1:2: at `mission`: placeholder {{who}}"),
        "{}",
        run.stderr
    );
    let err = crate::support::all_strategies()
        .ptc(["ab", path.to_str().unwrap(), "--strict"])
        .bad_input();
    assert!(
        err.contains("corpus.jsonl:1:2: at `mission`: placeholder {{who}}"),
        "{err}"
    );
}

#[test]
fn trace_shows_turns_raw_responses_and_the_compressed_view() {
    let path = example("failure-recovery.json");
    let turns = shared()
        .ptc(["trace", path.to_str().unwrap(), "--turns", "2"])
        .ok();
    insta::assert_snapshot!("trace_turns", turns);
    let raw = shared()
        .ptc(["trace", path.to_str().unwrap(), "--turns", "1", "--raw"])
        .ok();
    assert!(raw.contains("--- raw response ---\nLet me fetch"), "{raw}");
    let usage = shared()
        .ptc([
            "trace",
            path.to_str().unwrap(),
            "--turns",
            "3",
            "--view",
            "compressed",
            "--usage",
        ])
        .ok();
    let tail = usage.split("=== Usage").nth(1).expect("usage section");
    insta::assert_snapshot!("trace_usage", tail);
    assert!(
        !usage.contains('\x1b'),
        "no colour when stdout is not a terminal"
    );
    let other = shared()
        .ptc([
            "trace",
            path.to_str().unwrap(),
            "--view",
            "compressed",
            "--strategy",
            "turn-count",
            "--turns",
            "2",
        ])
        .ok();
    assert!(other.contains("\nTurns so far: 2\n"), "{other}");
}

#[test]
fn import_turns_a_ptc_runner_trace_into_a_recording() {
    let trace = repo().join("tests/cli/traces/ptc-runner.jsonl");
    let out = shared().path().join("imported.json");
    let run = shared().ptc([
        "import",
        "ptc-runner",
        trace.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr.contains("imported 1 run (3 turns) from"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("1 string(s) truncated by the trace"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("2 set(s) and 1 function(s) restored, 1 nested run(s) skipped"),
        "{}",
        run.stderr
    );
    insta::assert_snapshot!("imported_recording", std::fs::read_to_string(&out).unwrap());
    assert_eq!(
        shared().ptc(["validate", out.to_str().unwrap()]).ok(),
        "1 recording(s), 0 error(s), 0 warning(s)\n"
    );
    let render = shared().render_json(&out, 3, &[]);
    let user = render["messages"][1]["content"].as_str().unwrap();
    assert!(
        user.contains("(mail [c & more])             ; \"Mails a customer\" -> nil"),
        "{user}"
    );
    assert!(
        user.contains(";   send-email({:body \"Your order is late\" :to \"ada@example.com\"})"),
        "{user}"
    );
}

#[test]
fn a_v2_trace_imports_to_the_recording_its_v1_trace_gives() {
    let traces = repo().join("tests/cli/traces");
    let import = |trace: &str, out: &str| {
        let out = shared().path().join(out);
        let run = shared().ptc([
            "import",
            "ptc-runner",
            traces.join(trace).to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--force",
        ]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        (std::fs::read_to_string(out).unwrap(), run.stderr)
    };
    let (v1, v1_summary) = import("ptc-runner.jsonl", "from-v1.json");
    let (v2, v2_summary) = import("ptc-runner-v2.jsonl", "from-v2.json");
    assert_eq!(unnamed(&v1), unnamed(&v2));
    assert!(v1_summary.contains("(trace format v1): "), "{v1_summary}");
    assert!(v2_summary.contains("(trace format v2): "), "{v2_summary}");
    // The same losses, and no note: both traces give max_turns.
    let losses = |summary: &str| summary.split_once("): ").unwrap().1.to_owned();
    assert_eq!(losses(&v1_summary), losses(&v2_summary));
    assert_eq!(v2_summary.lines().count(), 1, "{v2_summary}");
}

#[test]
fn a_v2_trace_without_a_mission_names_the_field_and_takes_it_from_mission() {
    // The sample events of ptc_runner's own trace analyzer tests: no `agent.config` event.
    let trace = repo().join("tests/cli/traces/ptc-runner-v2-no-mission.jsonl");
    let trace = trace.to_str().unwrap();
    let err = shared().ptc(["import", "ptc-runner", trace]).bad_input();
    assert_eq!(
        err,
        format!(
            "error: cannot import {trace}:2: the root run has no mission (looked for `config.prompt` of an `agent.config` event, but the root `run.start` has no `agent_id`; `data.step.prompt` of its `run.stop`); give it with --mission TEXT"
        )
    );
    let run = shared().ptc([
        "import",
        "ptc-runner",
        trace,
        "--mission",
        "Report the weather",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let recording: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(
        recording,
        serde_json::json!({"mission": "Report the weather", "name": "ptc-runner-v2-no-mission.jsonl", "tools": [], "turns": []})
    );
    assert!(
        run.stderr.ends_with(
            "note: the trace gives no max_turns for the run: the recording takes the configured default (5); --max-turns N sets one\n"
        ),
        "{}",
        run.stderr
    );
    let run = shared().ptc([
        "import",
        "ptc-runner",
        trace,
        "--mission",
        "m",
        "--max-turns",
        "0",
    ]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("--max-turns"), "{}", run.stderr);
}

#[test]
fn a_v2_trace_without_max_turns_names_the_field_and_takes_it_from_max_turns() {
    // The v2 trace with no max_turns in its agent.config and no tool definitions in its step:
    // the tools come from the agent's `tool_names`.
    let v2 = std::fs::read_to_string(repo().join("tests/cli/traces/ptc-runner-v2.jsonl")).unwrap();
    let edited: Vec<String> = v2
        .lines()
        .map(|line| {
            let mut event: serde_json::Value = serde_json::from_str(line).unwrap();
            if event["event"] == "agent.config" {
                event["config"].as_object_mut().unwrap().remove("max_turns");
            }
            if let Some(step) = event["data"]["step"].as_object_mut() {
                step.remove("tools");
            }
            event.to_string()
        })
        .collect();
    let trace = shared().write("no-max-turns.jsonl", edited.join("\n") + "\n");
    let trace = trace.to_str().unwrap();
    // 3 turns, a default of 2.
    let lower = "compression.max_turns=2";
    let err = shared()
        .ptc(["import", "ptc-runner", trace, "--set", lower])
        .bad_input();
    assert_eq!(
        err,
        format!(
            "error: cannot import {trace}:3: the root run records 3 turns but has no max_turns (looked for `config.max_turns` of the `agent.config` event with agent_id \"5f3c9a1e\"), and the configured default is 2; give it with --max-turns N"
        )
    );
    let out = shared()
        .ptc([
            "import",
            "ptc-runner",
            trace,
            "--set",
            lower,
            "--max-turns",
            "3",
        ])
        .ok();
    let recording: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(recording["max_turns"], 3);
    assert_eq!(recording["turns"].as_array().unwrap().len(), 3);
    assert_eq!(
        recording["tools"],
        serde_json::json!([
            {"name": "lookup", "signature": null, "description": null},
            {"name": "send-email", "signature": null, "description": null}
        ])
    );
    // --mission replaces the trace's own.
    let out = shared()
        .ptc([
            "import",
            "ptc-runner",
            trace,
            "--mission",
            "Mail them",
            "--max-turns",
            "9",
        ])
        .ok();
    let recording: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(recording["mission"], "Mail them");
    assert_eq!(recording["max_turns"], 9);
}

#[test]
fn a_trace_of_another_format_is_refused_naming_the_versions() {
    let v2 = std::fs::read_to_string(repo().join("tests/cli/traces/ptc-runner-v2.jsonl")).unwrap();
    let v3 = shared().write(
        "v3.jsonl",
        v2.replace("\"schema_version\": 2", "\"schema_version\": 3"),
    );
    let err = shared()
        .ptc(["import", "ptc-runner", v3.to_str().unwrap()])
        .bad_input();
    assert!(
        err.ends_with("v3.jsonl:1: `schema_version` 3 is a trace format this ptc does not read (it reads 1 (no schema_version) and 2)"),
        "{err}"
    );
    let v1 = std::fs::read_to_string(repo().join("tests/cli/traces/ptc-runner.jsonl")).unwrap();
    let mixed = shared().write("mixed.jsonl", format!("{v1}{}", v2.lines().nth(1).unwrap()));
    let err = shared()
        .ptc(["import", "ptc-runner", mixed.to_str().unwrap()])
        .bad_input();
    assert!(
        err.ends_with("mixed.jsonl:8: `schema_version` 2 differs from the null of line 1: one trace has one format"),
        "{err}"
    );
}

#[test]
fn a_broken_trace_names_its_line() {
    let trace = repo().join("tests/cli/traces/broken.jsonl");
    let err = shared()
        .ptc(["import", "ptc-runner", trace.to_str().unwrap()])
        .bad_input();
    assert!(
        err.contains("broken.jsonl:2: column 2: key must be a string"),
        "{err}"
    );
    let empty = shared().write("no-run.jsonl", "{\"event\": \"trace.start\"}\n");
    let err = shared()
        .ptc(["import", "ptc-runner", empty.to_str().unwrap()])
        .bad_input();
    assert!(err.contains("no root `run.start` event"), "{err}");
}

/// The Python client (`clients/python`, standard library only, so plain python3 runs it from
/// its folder without installing anything) through `ptc serve`: a render, an error answer
/// raised, the server still answering. `clients/python/tests` is its whole test, which CI runs
/// with pytest.
#[test]
fn the_python_client_renders_and_raises_through_serve() {
    let scratch = crate::support::all_strategies();
    let script = r#"
import sys
from ptc_client import Ptc, RenderError

with Ptc(sys.argv[1]) as ptc:
    response = ptc.render(sys.argv[2], turns=2, strategy="delta-log")
    assert response["strategy"] == "delta-log" and response["turns"] == 2, response
    assert response["messages"][-1]["content"].endswith("Turns left: 6"), response
    try:
        ptc.render(sys.argv[2], strategy="delta-lgo")
        raise SystemExit("an unknown strategy raised nothing")
    except RenderError as err:
        assert err.code == "unknown_strategy", err
        assert "did you mean `delta-log`?" in err.message, err
    assert ptc.render(sys.argv[2])["turns"] == 5
print("ok")
"#;
    let output = std::process::Command::new("python3")
        .args(["-c", script])
        .arg(env!("CARGO_BIN_EXE_ptc"))
        .arg(example("failure-recovery.json"))
        .env("PYTHONPATH", repo().join("clients/python"))
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("XDG_DATA_HOME", scratch.path().join("data"))
        .current_dir(scratch.path())
        .output()
        .expect("python3 runs");
    assert!(
        output.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&output.stdout), "ok\n");
}

#[test]
fn init_writes_the_missing_defaults_and_lists_the_files_it_skips() {
    let scratch = crate::support::all_strategies();
    let dir = scratch.path().join("init-here");
    let out = scratch.ptc(["init", dir.to_str().unwrap()]).ok();
    assert!(out.starts_with("wrote "), "{out}");
    let config = std::fs::read_to_string(dir.join("ptc.toml")).unwrap();
    assert_eq!(
        config,
        std::fs::read_to_string(repo().join("ptc.toml")).unwrap()
    );
    let tools = std::fs::read_to_string(dir.join("templates/coalesce/tools.tera")).unwrap();
    assert_eq!(
        tools,
        std::fs::read_to_string(repo().join("templates/coalesce/tools.tera")).unwrap()
    );
    assert!(dir.join("templates/system_prompt.tera").is_file());
    let written: usize = out["wrote ".len()..]
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    // Into a directory that has some of the files: the missing ones are written, the others
    // kept and listed.
    std::fs::write(dir.join("ptc.toml"), "# mine\n").unwrap();
    std::fs::remove_file(dir.join("templates/coalesce/tools.tera")).unwrap();
    let out = scratch.ptc(["init", dir.to_str().unwrap()]).ok();
    let skipped = written - 1;
    assert!(
        out.starts_with(&format!(
            "wrote 1 files into {}\nskipped {skipped} files that exist (--force overwrites them):\n  {}\n",
            dir.display(),
            dir.join("ptc.toml").display()
        )),
        "{out}"
    );
    assert_eq!(out.lines().count(), 2 + skipped, "{out}");
    assert_eq!(
        std::fs::read_to_string(dir.join("ptc.toml")).unwrap(),
        "# mine\n"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("templates/coalesce/tools.tera")).unwrap(),
        tools
    );
    let out = scratch.ptc(["init", dir.to_str().unwrap(), "--force"]).ok();
    assert_eq!(
        out,
        format!("wrote {written} files into {}\n", dir.display())
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("ptc.toml")).unwrap(),
        config
    );
}

#[test]
fn the_corpus_generator_writes_valid_runs_whose_styles_differ_only_in_text() {
    let examples = generator();
    let scratch = shared();
    let generate = |style: &str| {
        let out = scratch.path().join(format!("generated-{style}"));
        let status = std::process::Command::new(&examples)
            .args(["--count", "12", "--seed", "5", "--style", style, "--out"])
            .arg(&out)
            .status()
            .unwrap();
        assert!(status.success());
        out
    };
    let (lean, realistic) = (generate("lean"), generate("realistic"));
    let mut files: Vec<_> = std::fs::read_dir(&lean)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    files.sort();
    assert_eq!(files.len(), 12);
    let (mut lean_chars, mut realistic_chars) = (0, 0);
    for file in &files {
        let read = |dir: &std::path::Path| -> serde_json::Value {
            serde_json::from_slice(&std::fs::read(dir.join(file)).unwrap()).unwrap()
        };
        let (a, b) = (read(&lean), read(&realistic));
        assert_eq!(a["data"], b["data"], "{file:?}");
        let (a, b) = (
            a["turns"].as_array().unwrap(),
            b["turns"].as_array().unwrap(),
        );
        assert_eq!(a.len(), b.len(), "{file:?}");
        for (x, y) in a.iter().zip(b) {
            for effect in ["success", "prints", "tool_calls", "memory", "error"] {
                assert_eq!(
                    x[effect], y[effect],
                    "{file:?} turn {}: {effect}",
                    x["number"]
                );
            }
            lean_chars += x["raw_response"].as_str().unwrap().len();
            realistic_chars += y["raw_response"].as_str().unwrap().len();
        }
    }
    assert!(
        realistic_chars > 2 * lean_chars,
        "{realistic_chars} vs {lean_chars}"
    );
    for dir in [&lean, &realistic] {
        let report = scratch.ptc(["validate", dir.to_str().unwrap()]).ok();
        assert!(
            report.contains("12 recording(s), 0 error(s), 0 warning(s)"),
            "{report}"
        );
    }
}

/// The corpus generator built by `cargo test`.
fn generator() -> std::path::PathBuf {
    let path = std::env::current_exe()
        .unwrap()
        .parent()
        .and_then(|deps| deps.parent())
        .unwrap()
        .join("examples")
        .join(format!("generate_corpus{}", std::env::consts::EXE_SUFFIX));
    assert!(
        path.is_file(),
        "{} was not built by cargo test",
        path.display()
    );
    path
}

#[test]
fn the_corpus_generator_still_writes_the_bundled_generated_runs_byte_for_byte() {
    let scratch = shared();
    for (name, extra) in [
        ("default", &[][..]),
        ("zero-calls", &["--calls-per-turn", "0"][..]),
    ] {
        let out = scratch.path().join(format!("bundled-{name}"));
        let status = std::process::Command::new(generator())
            .args(["--count", "30", "--seed", "2026", "--pretty"])
            .args(extra)
            .arg("--out")
            .arg(&out)
            .stderr(std::process::Stdio::null())
            .status()
            .unwrap();
        assert!(status.success());
        let mut compared = 0;
        for entry in std::fs::read_dir(repo().join("examples/recordings")).unwrap() {
            let path = entry.unwrap().path();
            let file = path.file_name().unwrap().to_str().unwrap().to_owned();
            if !file.starts_with("gen-") {
                continue;
            }
            assert!(
                std::fs::read(&path).unwrap() == std::fs::read(out.join(&file)).unwrap(),
                "{name}: {file} differs from the bundled one"
            );
            compared += 1;
        }
        assert_eq!(compared, 30);
    }
}

#[test]
fn the_corpus_generator_makes_the_calls_per_turn_asked_for() {
    let scratch = shared();
    for (style, calls) in [("lean", 1), ("lean", 6), ("realistic", 8)] {
        let out = scratch.path().join(format!("calls-{style}-{calls}"));
        let status = std::process::Command::new(generator())
            .args([
                "--count", "12", "--turns", "9", "--seed", "5", "--style", style,
            ])
            .args(["--calls-per-turn", &calls.to_string(), "--out"])
            .arg(&out)
            .stderr(std::process::Stdio::null())
            .status()
            .unwrap();
        assert!(status.success());
        let mut turns = 0;
        for entry in std::fs::read_dir(&out).unwrap() {
            let path = entry.unwrap().path();
            let run: serde_json::Value =
                serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
            let all = run["turns"].as_array().unwrap();
            for turn in &all[..all.len() - 1] {
                if turn["success"] != true {
                    continue;
                }
                let made = turn["tool_calls"].as_array().unwrap();
                assert_eq!(
                    made.len(),
                    calls,
                    "{} turn {}",
                    path.display(),
                    turn["number"]
                );
                let program = turn["program"].as_str().unwrap();
                for call in made {
                    let name = call["name"].as_str().unwrap();
                    assert!(
                        program.contains(&format!("(tool/{name} ")),
                        "{} turn {}: {name} is not in the program",
                        path.display(),
                        turn["number"]
                    );
                }
                turns += 1;
            }
        }
        assert!(turns > 50, "{style} {calls}: only {turns} turns checked");
        let report = scratch.ptc(["validate", out.to_str().unwrap()]).ok();
        assert!(
            report.contains("12 recording(s), 0 error(s), 0 warning(s)"),
            "{report}"
        );
    }
}

/// The events of the v1 test trace, to be changed and written back.
fn v1_events() -> Vec<Json> {
    std::fs::read_to_string(repo().join("tests/cli/traces/ptc-runner.jsonl"))
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

fn jsonl(events: &[Json]) -> String {
    events.iter().map(|e| format!("{e}\n")).collect()
}

#[test]
fn import_errors_name_the_trace_and_the_field_of_the_recording_made() {
    let scratch = Scratch::new();
    // A run whose data has a name no recording may have.
    let mut events = v1_events();
    events[1]["metadata"]["context"]["bad name"] = 1.into();
    let trace = scratch.write("rule.jsonl", jsonl(&events));
    let err = scratch
        .ptc(["import", "ptc-runner", trace.to_str().unwrap()])
        .bad_input();
    assert_eq!(
        err,
        format!(
            "error: cannot import {}: the run it holds breaks a rule of recordings: in the recording made, data.bad name: \"bad name\" is not a valid name",
            trace.display()
        )
    );
    // `turns` an object, not a list: refused at the root `run.stop`, not 0 turns.
    let mut events = v1_events();
    let first = events[5]["metadata"]["step"]["turns"][0].clone();
    events[5]["metadata"]["step"]["turns"] = serde_json::json!({ "a": first });
    let trace = scratch.write("object.jsonl", jsonl(&events));
    let err = scratch
        .ptc(["import", "ptc-runner", trace.to_str().unwrap()])
        .bad_input();
    assert_eq!(
        err,
        format!(
            "error: cannot import {}:6: `metadata.step.turns` of the root `run.stop` is an object, not a list of turns",
            trace.display()
        )
    );
}

#[test]
fn a_byte_order_mark_at_the_start_of_a_trace_is_skipped() {
    let scratch = Scratch::new();
    let original = std::fs::read(repo().join("tests/cli/traces/ptc-runner.jsonl")).unwrap();
    let plain = scratch.write("plain.jsonl", &original);
    let mut marked = b"\xEF\xBB\xBF".to_vec();
    marked.extend_from_slice(&original);
    let marked = scratch.write("marked.jsonl", marked);
    let import = |trace: &Path| scratch.ptc(["import", "ptc-runner", trace.to_str().unwrap()]);
    assert_eq!(
        unnamed(&import(&marked).ok()),
        unnamed(&import(&plain).ok())
    );
}

/// An imported recording without the line of its `name`, which is its log's file name: the
/// recordings of two logs compare on what they hold.
fn unnamed(recording: &str) -> String {
    recording
        .lines()
        .filter(|l| !l.trim_start().starts_with("\"name\": "))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn a_trace_with_many_nested_runs_imports_the_recording_of_its_root_run() {
    let scratch = Scratch::new();
    let events = v1_events();
    let plain = scratch.write("plain.jsonl", jsonl(&events));
    // 2,000 more nested runs (starts and stops) between the root's start and its stop.
    let (nested_start, nested_stop) = (events[3].clone(), events[4].clone());
    let mut many = events[..3].to_vec();
    for i in 0..2000 {
        let span = format!("n{i}");
        let mut start = nested_start.clone();
        start["span_id"] = span.clone().into();
        let mut stop = nested_stop.clone();
        stop["span_id"] = span.into();
        many.extend([start, stop]);
    }
    many.extend(events[3..].iter().cloned());
    let many = scratch.write("many.jsonl", jsonl(&many));
    let import = |trace: &Path| scratch.ptc(["import", "ptc-runner", trace.to_str().unwrap()]);
    let run = import(&many);
    assert!(
        run.stderr.contains("2001 nested run(s) skipped"),
        "{}",
        run.stderr
    );
    assert_eq!(unnamed(&run.ok()), unnamed(&import(&plain).ok()));
}

#[test]
fn an_integer_beyond_64_bits_is_refused_by_validate_and_render_with_its_path() {
    let scratch = Scratch::new();
    let example = std::fs::read_to_string(example("final-turn.json")).unwrap();
    let mut json: serde_json::Value = serde_json::from_str(&example).unwrap();
    json["turns"][0]["memory"] = serde_json::json!({"big": 1});
    let text = serde_json::to_string(&json)
        .unwrap()
        .replace(r#""big":1"#, r#""big":123456789012345678901234567890"#);
    let file = scratch.write("big.json", text);
    let expected = "at `turns[0].memory.big`: integer 123456789012345678901234567890 does not fit in 64 bits; write it as a string or a float";
    let run = scratch.ptc(["validate", file.to_str().unwrap()]);
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert!(run.stdout.contains(expected), "{}", run.stdout);
    let error = scratch
        .ptc(["render", file.to_str().unwrap(), "--turns", "1"])
        .bad_input();
    assert!(error.contains(expected), "{error}");
}

#[test]
fn render_names_a_misspelt_or_missing_turn_field_where_and_as_validate_does() {
    let scratch = Scratch::new();
    let example = std::fs::read_to_string(example("failure-recovery.json")).unwrap();
    let mut json: serde_json::Value = serde_json::from_str(&example).unwrap();
    let turn = json["turns"][0].as_object_mut().unwrap();
    let raw = turn.remove("raw_response").unwrap();
    turn.insert("raw_respons".into(), raw);
    let misspelt = scratch.write(
        "misspelt.json",
        serde_json::to_string_pretty(&json).unwrap(),
    );
    let mut json: serde_json::Value = serde_json::from_str(&example).unwrap();
    json["turns"][1].as_object_mut().unwrap().remove("success");
    let missing = scratch.write("missing.json", serde_json::to_string_pretty(&json).unwrap());
    for (file, words) in [
        (
            &misspelt,
            "unknown field `raw_respons`; did you mean `raw_response`?",
        ),
        (&missing, "at `turns[1]`: missing field `success`"),
    ] {
        let path = file.to_str().unwrap();
        let run = scratch.ptc(["validate", path]);
        assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
        // `FILE:LINE:COLUMN: error: at ...` from validate; `invalid recording FILE:LINE:COLUMN:
        // at ...` from render: the same place and the same words.
        let line = run.stdout.lines().next().unwrap();
        let (place, said) = line.split_once(": error: ").unwrap();
        assert!(said.contains(words), "{line}");
        let error = scratch.ptc(["render", path]).bad_input();
        assert!(
            error.contains(&format!("invalid recording {place}: {said}")),
            "{error}\nvalidate: {line}"
        );
    }
}

#[test]
fn a_bundled_run_is_named_from_any_directory_and_said_so() {
    let scratch = Scratch::new();
    let whole = example("failure-recovery.json");
    let expected = scratch
        .ptc(["render", whole.to_str().unwrap(), "--turns", "1"])
        .ok();
    for name in [
        "failure-recovery.json",
        "examples/recordings/failure-recovery.json",
    ] {
        let run = scratch.ptc(["render", name, "--turns", "1"]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert_eq!(run.stdout, expected);
        assert!(
            run.stderr.contains(&format!(
                "note: no file {name}: the bundled examples/recordings/failure-recovery.json"
            )),
            "{}",
            run.stderr
        );
    }
    // Every command that reads one recording says so.
    for command in [
        &["trace", "failure-recovery.json"][..],
        &["pricing", "--requests", "failure-recovery.json"],
    ] {
        let run = scratch.ptc(command);
        assert_eq!(run.code, 0, "{command:?}: {}", run.stderr);
        assert!(
            run.stderr
                .contains("note: no file failure-recovery.json: the bundled"),
            "{command:?}: {}",
            run.stderr
        );
    }
    // A file of that name wins, and nothing is said.
    let mine = scratch.write(
        "failure-recovery.json",
        r#"{"mission": "Mine", "turns": []}"#,
    );
    let run = scratch.ptc(["render", "failure-recovery.json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains("Mine") && !run.stderr.contains("bundled"),
        "{}",
        run.stderr
    );
    assert!(mine.is_file());
    // A name that is neither a file nor a bundled run is still the error naming it.
    let err = scratch.ptc(["render", "no-such-run.json"]).bad_input();
    assert!(err.contains("no-such-run.json"), "{err}");
}
