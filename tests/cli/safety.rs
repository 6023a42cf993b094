//! What ptc does with hostile or unlucky input: files it writes never follow a planted link nor
//! replace a pipe or a device, no output file is one of the files read, templates and missions
//! cannot grow without bound, recorded text cannot drive a terminal.

use std::path::Path;
use std::process::Command;

use serde_json::json;

use crate::support::{example, ptc_command, repo, shared, Scratch};

/// `ptc ab` on one small recording through full-history, with `--report OUT`.
fn ab_report(scratch: &Scratch, out: &str) -> Command {
    let mut command = ptc_command(scratch.path());
    command
        .args([
            "ab",
            "--strategies",
            "full-history",
            "--no-timing",
            "--report",
            out,
        ])
        .arg(example("single-shot.json"));
    command
}

#[cfg(unix)]
#[test]
fn a_report_written_to_a_fifo_goes_through_it_and_leaves_it_in_place() {
    use std::io::Read;
    use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};

    let scratch = Scratch::with_plugins(&["ptc-strategy-full-history"]);
    let fifo = scratch.path().join("report.fifo");
    let name = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
    // Opened for reading first and without blocking, so that ptc's open never waits and this
    // test never hangs, whatever ptc does with the path.
    let mut reader = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(&fifo)
        .unwrap();
    let mut child = ab_report(&scratch, fifo.to_str().unwrap())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut html = Vec::new();
    let mut chunk = [0u8; 65536];
    let status = loop {
        match reader.read(&mut chunk) {
            Ok(0) => {
                if let Some(status) = child.try_wait().unwrap() {
                    break status;
                }
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            Ok(n) => html.extend_from_slice(&chunk[..n]),
            Err(err) if err.kind() == std::io::ErrorKind::WouldBlock => {
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            Err(err) => panic!("{err}"),
        }
    };
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert!(status.success(), "{stderr}");
    let html = String::from_utf8(html).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"), "{html:.200}");
    let kind = std::fs::symlink_metadata(&fifo).unwrap().file_type();
    assert!(kind.is_fifo(), "the FIFO was replaced: {kind:?}");
    let names: Vec<_> = std::fs::read_dir(scratch.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(names.is_empty(), "{names:?}");
}

#[cfg(target_os = "linux")]
#[test]
fn a_report_written_to_dev_stdout_goes_to_stdout() {
    let scratch = Scratch::with_plugins(&["ptc-strategy-full-history"]);
    let before = std::fs::symlink_metadata("/dev/stdout")
        .unwrap()
        .file_type();
    let output = ab_report(&scratch, "/dev/stdout").output().unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.starts_with("<!DOCTYPE html>"), "{stdout:.200}");
    assert!(
        stdout.lines().any(|l| l
            .trim_start_matches(['B', '*', ' '])
            .starts_with("full-history ")),
        "the table follows the report: {stdout}"
    );
    let after = std::fs::symlink_metadata("/dev/stdout")
        .unwrap()
        .file_type();
    assert_eq!(before, after);
}

#[test]
fn import_never_overwrites_its_own_trace_and_an_existing_file_only_when_forced() {
    let scratch = Scratch::new();
    let original = std::fs::read(repo().join("tests/cli/traces/ptc-runner.jsonl")).unwrap();
    let trace = scratch.write("trace.jsonl", &original);
    let import = |output: &Path, force: bool| {
        let mut args = vec![
            "import".to_owned(),
            "ptc-runner".into(),
            trace.display().to_string(),
            "-o".into(),
            output.display().to_string(),
        ];
        if force {
            args.push("--force".into());
        }
        scratch.ptc(args)
    };
    // The same file, by its own path, through `..` and through a link; forced or not.
    let mut same = vec![trace.clone(), scratch.path().join("plugins/../trace.jsonl")];
    #[cfg(unix)]
    {
        let link = scratch.path().join("link.jsonl");
        std::os::unix::fs::symlink(&trace, &link).unwrap();
        same.push(link);
    }
    for output in &same {
        for force in [false, true] {
            let err = import(output, force).bad_input();
            assert!(
                err.contains("is the trace being imported; write the recording to another file"),
                "{err}"
            );
            assert_eq!(
                std::fs::read(&trace).unwrap(),
                original,
                "the trace is intact"
            );
        }
    }
    let out = scratch.write("recording.json", "mine");
    let err = import(&out, false).bad_input();
    assert!(
        err.ends_with("recording.json exists (--force overwrites it)"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "mine");
    assert_eq!(import(&out, true).ok(), "");
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(written["turns"].as_array().unwrap().len(), 3);
}

#[test]
fn new_plugin_refuses_a_directory_that_is_not_empty_and_names_no_missing_flag() {
    let scratch = Scratch::new();
    let dir = scratch.path().join("taken");
    scratch.write("taken/notes.txt", "mine");
    let err = scratch
        .ptc(["new-plugin", "my-strategy", "--path", dir.to_str().unwrap()])
        .bad_input();
    assert!(
        err.ends_with(
            "taken exists and is not empty; choose another directory (--path DIR) or empty it"
        ),
        "{err}"
    );
    assert!(!err.contains("--force"), "{err}");
    assert_eq!(
        std::fs::read_to_string(dir.join("notes.txt")).unwrap(),
        "mine"
    );
}

#[test]
fn a_template_cannot_ask_for_a_huge_pad_or_write_without_bound() {
    let scratch = Scratch::new();
    let cases = [
        (
            "{{ \"x\" | pad(width=1000000000000) }}\n",
            "template `ptc/text_output` (./templates/text_output.tera), line 1: pad: width 1000000000000 is more than the maximum of 10000",
        ),
        (
            // Each pass writes the system prompt: 16 MiB after a few thousand of the 10^10.
            "{% for i in range(end=100000) %}{% for j in range(end=100000) %}{{ messages[0].content }}{% endfor %}{% endfor %}\n",
            "template `ptc/text_output` (./templates/text_output.tera): its output grew more than 16 MiB beyond the",
        ),
    ];
    for (template, expected) in cases {
        scratch.write("templates/text_output.tera", template);
        let err = scratch
            .ptc(["render", example("single-shot.json").to_str().unwrap()])
            .bad_input();
        assert!(err.starts_with(&format!("error: {expected}")), "{err}");
    }
}

#[test]
fn a_mission_whose_placeholders_multiply_it_is_refused_by_validate_and_render_alike() {
    let scratch = Scratch::new();
    // 200 kB of data, used eight times: 1.6 MB.
    let recording = json!({
        "mission": "{{x}}".repeat(8),
        "data": {"x": "A".repeat(200_000)},
    });
    let path = scratch.write("multiplied.json", recording.to_string());
    let message = "at `mission`: with its placeholders filled in the mission is over 1 MiB (1048576 bytes); placeholder {{x}} takes it past the limit";
    let err = scratch.ptc(["render", path.to_str().unwrap()]).bad_input();
    assert!(err.contains("multiplied.json"), "{err}");
    assert!(err.ends_with(message), "{err}");
    let validate = scratch.ptc(["validate", path.to_str().unwrap()]);
    assert_eq!(validate.code, 2, "{}", validate.stdout);
    assert!(
        validate
            .stdout
            .lines()
            .any(|l| l.contains("multiplied.json") && l.contains("error:") && l.ends_with(message)),
        "{}",
        validate.stdout
    );
}

#[test]
fn a_byte_order_mark_before_a_recording_or_a_configuration_is_skipped() {
    let scratch = Scratch::new();
    let mut bytes = b"\xEF\xBB\xBF".to_vec();
    bytes.extend(std::fs::read(example("single-shot.json")).unwrap());
    let path = scratch.write("bom.json", &bytes);
    let mut jsonl = b"\xEF\xBB\xBF".to_vec();
    jsonl.extend(json!({"mission": "From a JSONL file."}).to_string().bytes());
    let lines = scratch.write("bom.jsonl", jsonl);
    let config = scratch.write(
        "bom.toml",
        "\u{feff}[plugins]\ndirectories = [\"plugins\"]\nnext_to_executable = false\n",
    );
    for recording in [&path, &lines] {
        let out = scratch
            .ptc([
                "--config",
                config.to_str().unwrap(),
                "render",
                recording.to_str().unwrap(),
            ])
            .ok();
        assert!(out.contains("=== USER ==="), "{out}");
        let validate = scratch.ptc(["validate", recording.to_str().unwrap()]).ok();
        assert!(validate.contains(" 0 error(s)"), "{validate}");
    }
}

#[cfg(target_os = "linux")]
#[test]
fn trace_escapes_recorded_control_characters_on_a_terminal() {
    // `script` gives ptc a terminal; without it there is nothing to test here.
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("skipped: no `script` to run ptc on a terminal");
        return;
    }
    let recording = json!({
        "mission": "m",
        "turns": [{
            "number": 1,
            "raw_response": "plan\u{1b}]0;owned\u{7}",
            "program": "(println 1)",
            "success": true,
            "prints": ["\u{1b}[31mred"],
            "tool_calls": [],
            "memory": {},
        }],
    });
    let path = shared().write("escapes.json", recording.to_string());
    let ptc = env!("CARGO_BIN_EXE_ptc");
    let output = Command::new("script")
        .args([
            "-qec",
            &format!("{ptc} trace --raw {}", path.display()),
            "/dev/null",
        ])
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(output.status.success(), "{text}");
    assert!(!text.contains('\u{1b}'), "{text:?}");
    assert!(text.contains("plan\\x1b]0;owned\\x07"), "{text:?}");
    assert!(text.contains("\\x1b[31mred"), "{text:?}");
}

/// A strategy that compresses a run compresses it single-shot too: it never sends the full
/// history under its own name: a single-shot run is not a reason to fall back to another view.
#[test]
fn no_strategy_sends_a_single_shot_run_uncompressed_under_its_name() {
    let scratch = crate::support::all_strategies();
    // The same run, single-shot and not.
    let run = |max_turns: u32| {
        let recording = json!({
            "mission": "Once.",
            "max_turns": max_turns,
            "turns": [{
                "number": 1, "raw_response": "(println 1)", "program": "(println 1)",
                "success": true, "prints": ["1"], "tool_calls": [], "memory": {"a": 1},
            }],
        });
        scratch.write(&format!("run-of-{max_turns}.json"), recording.to_string())
    };
    let (single, longer) = (run(1), run(2));
    let full = |path: &Path| scratch.render_json(path, 1, &["--strategy", "full-history"]);
    let (full_single, full_longer) = (full(&single), full(&longer));
    let list = scratch.ptc(["strategies", "--format", "json"]).json();
    let mut uncompressed = Vec::new();
    for strategy in list.as_array().unwrap() {
        let name = strategy["name"].as_str().unwrap();
        let render = |path: &Path| scratch.render_json(path, 1, &["--strategy", name]);
        let (on_single, on_longer) = (render(&single), render(&longer));
        assert_eq!(on_single["strategy"], name);
        let falls_back = on_single["messages"] == full_single["messages"]
            && on_longer["messages"] != full_longer["messages"];
        if falls_back {
            uncompressed.push(name);
        }
    }
    assert!(uncompressed.is_empty(), "{uncompressed:?}");
}

/// A hostile recording cannot drive the terminal through a diagnostic: `validate`'s problems,
/// `error:` and `warning:` lines quote recorded text with its control characters escaped, and
/// `render` and `diff` escape the prompt text on a terminal.
#[cfg(target_os = "linux")]
#[test]
fn diagnostics_and_prompts_escape_control_characters() {
    // A bad name holding OSC 52 (write the clipboard), a title change and a carriage return.
    let hostile = "x\u{1b}]52;c;cHduZWQ=\u{7}\r\u{1b}]0;owned\u{7}";
    // An unknown field: its key is quoted as the recording wrote it.
    let mut recording = json!({"mission": "m", "turns": []});
    recording[hostile] = json!(1);
    let path = shared().write("hostile-names.json", recording.to_string());
    let validate = shared().ptc(["validate", &path.display().to_string()]);
    assert_eq!(validate.code, 2, "{}", validate.stderr);
    for text in [&validate.stdout, &validate.stderr] {
        assert!(!text.contains('\u{1b}') && !text.contains('\r'), "{text:?}");
    }
    assert!(
        validate.stdout.contains("x\\x1b]52;c;"),
        "{}",
        validate.stdout
    );
    let render = shared().ptc(["render", &path.display().to_string()]);
    assert_eq!(render.code, 2);
    assert!(render.stderr.starts_with("error: "), "{}", render.stderr);
    assert!(
        !render.stderr.contains('\u{1b}') && render.stderr.contains("\\x1b"),
        "{:?}",
        render.stderr
    );

    // On a terminal (`script`), the prompt's recorded text is escaped too.
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("skipped: no `script` to run ptc on a terminal");
        return;
    }
    let run = json!({
        "mission": "m",
        "turns": [{
            "number": 1,
            "raw_response": "r",
            "program": "(println 1)",
            "success": true,
            "prints": ["\u{1b}]0;owned\u{7}printed"],
            "tool_calls": [],
            "memory": {},
        }],
    });
    let path = shared().write("hostile-prints.json", run.to_string());
    let ptc = env!("CARGO_BIN_EXE_ptc");
    for args in [
        format!("render {}", path.display()),
        format!(
            "diff {} --strategies full-history,single-user-coalesced",
            path.display()
        ),
    ] {
        let output = Command::new("script")
            .args(["-qec", &format!("{ptc} {args}"), "/dev/null"])
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        let text = String::from_utf8(output.stdout).unwrap();
        assert!(output.status.success(), "{args}: {text}");
        assert!(!text.contains('\u{1b}'), "{args}: {text:?}");
        assert!(
            text.contains("\\x1b]0;owned\\x07printed"),
            "{args}: {text:?}"
        );
    }
}

#[test]
fn an_output_file_is_never_one_of_the_inputs() {
    let scratch = Scratch::new();
    let recording = std::fs::read(example("tool-actions.json")).unwrap();
    let run = scratch.write("runs/run.json", &recording);
    let other = scratch.write("runs/other.json", &recording);
    let part = scratch.ptc([
        "ab",
        run.to_str().unwrap(),
        "--shard",
        "0/1",
        "--format",
        "partial",
        "--strategies",
        "turn-count",
        "--set",
        "ab.baseline=turn-count",
    ]);
    let part = scratch.write("p0.json", part.ok());
    let part_bytes = std::fs::read(&part).unwrap();
    let refused = |args: Vec<String>, file: &Path, bytes: &[u8]| {
        let err = scratch.ptc(&args).bad_input();
        assert!(
            err.contains(&format!(
                "--report {} is one of the files read",
                file.display()
            )),
            "{args:?}: {err}"
        );
        assert!(
            err.contains(file.file_name().unwrap().to_str().unwrap()),
            "{err}"
        );
        assert_eq!(
            std::fs::read(file).unwrap(),
            bytes,
            "{args:?}: the input is intact"
        );
    };
    let s = |p: &Path| p.display().to_string();
    // A file given, the same file through `..`, a file found in a directory given.
    refused(
        vec!["ab".into(), s(&run), "--report".into(), s(&run)],
        &run,
        &recording,
    );
    refused(
        vec![
            "ab".into(),
            s(&run),
            "--report".into(),
            s(&scratch.path().join("plugins/../runs/run.json")),
        ],
        &scratch.path().join("plugins/../runs/run.json"),
        &recording,
    );
    refused(
        vec![
            "ab".into(),
            "--strategies".into(),
            "single-user-coalesced".into(),
            s(&scratch.path().join("runs")),
            "--report".into(),
            s(&other),
        ],
        &other,
        &recording,
    );
    #[cfg(unix)]
    {
        let link = scratch.path().join("link.html");
        std::os::unix::fs::symlink(&run, &link).unwrap();
        refused(
            vec!["ab".into(), s(&run), "--report".into(), s(&link)],
            &link,
            &recording,
        );
    }
    // The merge: a part given, or found in a directory given.
    refused(
        vec![
            "ab".into(),
            "merge".into(),
            s(&part),
            "--report".into(),
            s(&part),
        ],
        &part,
        &part_bytes,
    );
    refused(
        vec![
            "ab".into(),
            "merge".into(),
            s(scratch.path()),
            "--report".into(),
            s(&part),
        ],
        &part,
        &part_bytes,
    );
    // Another file is written.
    let report = scratch.path().join("runs/report.html");
    scratch
        .ptc([
            "ab",
            &s(&run),
            "--strategies",
            "turn-count",
            "--set",
            "ab.baseline=turn-count",
            "--report",
            &s(&report),
        ])
        .ok();
    assert!(std::fs::read_to_string(&report)
        .unwrap()
        .starts_with("<!DOCTYPE html>"));
}

#[test]
fn a_report_named_by_a_glob_that_lists_inputs_is_refused_leaving_them_intact() {
    let scratch = Scratch::new();
    let recording = std::fs::read(example("tool-actions.json")).unwrap();
    let names = ["a.json", "b.json", "c.json"];
    let runs: Vec<_> = names
        .iter()
        .map(|n| scratch.write(&format!("runs/{n}"), &recording))
        .collect();
    let s = |p: &Path| p.display().to_string();
    // `ptc ab --report runs/*.json`: the shell makes the first file the report.
    let mut args = vec![
        "ab",
        "--strategies",
        "single-user-coalesced",
        "--no-timing",
        "--report",
    ]
    .into_iter()
    .map(String::from)
    .collect::<Vec<_>>();
    args.extend(runs.iter().map(|p| s(p)));
    let err = scratch.ptc(&args).bad_input();
    assert!(err.contains(&s(&runs[0])), "{err}");
    assert!(err.contains("name a new .html file"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert_eq!(std::fs::read(&runs[0]).unwrap(), recording);

    // `ptc ab merge --allow-missing --report parts/*.json`.
    let part = |shard: &str| {
        scratch
            .ptc([
                "ab",
                &s(&runs[1]),
                &s(&runs[2]),
                "--shard",
                shard,
                "--format",
                "partial",
                "--strategies",
                "turn-count",
                "--set",
                "ab.baseline=turn-count",
            ])
            .ok()
    };
    let first = part("0/3");
    let parts = [
        scratch.write("parts/part-0.json", &first),
        scratch.write("parts/part-1.json", part("1/3")),
    ];
    let err = scratch
        .ptc([
            "ab",
            "merge",
            "--allow-missing",
            "--report",
            &s(&parts[0]),
            &s(&parts[1]),
        ])
        .bad_input();
    assert!(err.contains(&s(&parts[0])), "{err}");
    assert!(err.contains("name a new .html file"), "{err}");
    assert_eq!(std::fs::read_to_string(&parts[0]).unwrap(), first);
}

/// `ptc ab --config ptc.toml --report ptc.toml` (or any existing file that is not a page)
/// leaves it as it was: only a new file, an empty one or an earlier report is written.
#[test]
fn a_report_over_the_configuration_read_is_refused_leaving_it_intact() {
    let scratch = Scratch::new();
    let config = "[ab]\nstrategies = [\"turn-count\"]\n";
    let file = scratch.write("mine.toml", config);
    let file = file.display().to_string();
    let run = example("tool-actions.json").display().to_string();
    let args = |report: &str| {
        [
            "ab",
            &run,
            "--config",
            &file,
            "--no-timing",
            "--set",
            "ab.baseline=turn-count",
            "--report",
            report,
        ]
        .map(String::from)
    };
    let err = scratch.ptc(args(&file)).bad_input();
    assert!(
        err.contains("is an existing file that is not an HTML page"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), config);
    // Nor is a new report named as the directory read lists its recordings.
    let runs = scratch.path().join("runs");
    std::fs::create_dir(&runs).unwrap();
    std::fs::copy(&run, runs.join("a.json")).unwrap();
    let inside = runs.join("x.json").display().to_string();
    let mut listed = args(&inside);
    listed[1] = runs.display().to_string();
    let err = scratch.ptc(listed).bad_input();
    assert!(err.contains("would be read as an input of"), "{err}");
    assert!(!runs.join("x.json").exists());
    // An earlier report is replaced.
    let report = scratch.path().join("report.html").display().to_string();
    scratch.ptc(args(&report)).ok();
    scratch.ptc(args(&report)).ok();
    assert!(std::fs::read_to_string(&report)
        .unwrap()
        .starts_with("<!DOCTYPE html>"));
}

#[test]
fn an_import_output_that_is_a_log_ptc_imports_is_refused_even_with_force() {
    let scratch = Scratch::new();
    let session =
        std::fs::read(repo().join("tests/fixtures/realruns/claude-code/session-5c0375b4.jsonl"))
            .unwrap();
    let logs = [
        scratch.write("logs/a.jsonl", &session),
        scratch.write("logs/b.jsonl", &session),
    ];
    let s = |p: &Path| p.display().to_string();
    // `ptc import --force -o logs/*.jsonl`: the first log becomes the output.
    let err = scratch
        .ptc(["import", "--force", "-o", &s(&logs[0]), &s(&logs[1])])
        .bad_input();
    assert!(err.contains(&s(&logs[0])), "{err}");
    assert!(err.contains("claude-code"), "{err}");
    assert_eq!(std::fs::read(&logs[0]).unwrap(), session);
}

#[test]
fn a_bidi_character_in_a_recording_name_cannot_reorder_the_report() {
    let scratch = Scratch::new();
    let recording = std::fs::read(example("tool-actions.json")).unwrap();
    let run = scratch.write("runs/evil\u{202e}nosj.json", recording);
    let report = scratch.path().join("report.html");
    scratch
        .ptc([
            "ab",
            "--strategies",
            "turn-count",
            "--set",
            "ab.baseline=turn-count",
            "--no-timing",
            "--report",
            &report.display().to_string(),
            &run.display().to_string(),
        ])
        .ok();
    let html = std::fs::read_to_string(&report).unwrap();
    // The prompts' JSON keeps the name as it is (a script reads it); the picker escapes it.
    let (before, rest) = html.split_once("id=\"prompt-data\"").unwrap();
    let after = rest.split_once("</script>").unwrap().1;
    for shown in [before, after] {
        assert!(!shown.contains('\u{202e}'), "a raw U+202E is shown");
    }
    assert!(
        html.contains("\\u202A-\\u202E"),
        "the picker escapes its options"
    );
}
