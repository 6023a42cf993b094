//! Agents' logs read where users point ptc: `ab`, `bill`, `render` and `import` take the logs
//! `ptc import` reads, and directories of them, detected file by file; every run carries a
//! name (its log, and which run of it) that every output uses; `import -o` writes what the
//! name says.

use std::path::{Path, PathBuf};

use serde_json::Value as Json;

use crate::support::{all_strategies, repo, Scratch};

fn realrun(path: &str) -> PathBuf {
    repo().join("tests/fixtures/realruns").join(path)
}

/// A directory holding one raw log of every format ptc reads, copied as they were published.
fn logs_of_every_format(scratch: &Scratch) -> PathBuf {
    let dir = scratch.path().join("logs");
    std::fs::create_dir_all(&dir).unwrap();
    for log in [
        "ptc_runner-kernel/checkout-5xx-9.inspection.jsonl",
        "mini-swe-agent/deepseek_reasoner_dev_pvlib__pvlib-python-1707.traj.json",
        "claude-code/session-5c0375b4.jsonl",
        "openhands/replay-wrong_initial_state.json",
        "atif/harbor-golden-openhands-hello-world.json",
        "codex/rollout-2026-02-23T20-34-25-019c8bfe.jsonl",
        "gemini-cli/atif-rfc-example-gemini-cli.json",
        "mini-swe-agent/atif-rfc-example-mini-swe-agent.json",
        // The canonical trace the Kernel run wrote beside its inspection artifact.
        "ptc_runner-kernel/checkout-5xx-9.trace.jsonl",
    ] {
        let from = realrun(log);
        std::fs::copy(&from, dir.join(from.file_name().unwrap())).unwrap();
    }
    dir
}

fn text(path: &Path) -> String {
    path.display().to_string()
}

#[test]
fn ab_reads_a_directory_of_raw_logs_of_every_format_and_names_each_run() {
    let scratch = Scratch::new();
    let dir = logs_of_every_format(&scratch);
    let run = all_strategies().ptc([
        "ab",
        &text(&dir),
        "--strategies",
        "full-history,delta-log",
        "--format",
        "csv",
        "--no-timing",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        !run.stderr.contains("unknown field") && !run.stderr.contains("warning: skipping"),
        "a log is imported, not read as recordings line by line:\n{}",
        run.stderr
    );
    // The companion trace holds no run: one note says so and where its run is.
    let notes: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.contains("checkout-5xx-9.trace.jsonl"))
        .collect();
    assert_eq!(notes.len(), 1, "{}", run.stderr);
    assert!(
        notes[0].starts_with(
            "note: checkout-5xx-9.trace.jsonl passed over: a ptc_runner canonical trace"
        ) && notes[0].contains("inspection artifact of the same name beside it"),
        "{}",
        notes[0]
    );
    let names: std::collections::BTreeSet<&str> = run
        .stdout
        .lines()
        .skip(1)
        .filter_map(|row| row.split(',').next())
        .collect();
    // One name per run: the Claude Code session holds a thread and two side chains.
    let expected = [
        "checkout-5xx-9.inspection.jsonl",
        "deepseek_reasoner_dev_pvlib__pvlib-python-1707.traj.json",
        "session-5c0375b4.jsonl (thread from line 1)",
        "session-5c0375b4.jsonl (side chain from line 16)",
        "session-5c0375b4.jsonl (side chain from line 26)",
        "replay-wrong_initial_state.json",
        "harbor-golden-openhands-hello-world.json",
        "rollout-2026-02-23T20-34-25-019c8bfe.jsonl",
        "atif-rfc-example-gemini-cli.json",
        "atif-rfc-example-mini-swe-agent.json",
    ];
    for name in expected {
        assert!(names.contains(name), "{name} in {names:?}");
    }
    assert_eq!(names.len(), expected.len(), "{names:?}");
}

#[test]
fn imported_runs_keep_their_names_in_a_corpus() {
    let scratch = Scratch::new();
    let corpus = scratch.path().join("runs.jsonl");
    let kernel = realrun("ptc_runner-kernel/checkout-5xx-9.inspection.jsonl");
    let mini = realrun("mini-swe-agent/deepseek_reasoner_dev_pvlib__pvlib-python-1707.traj.json");
    scratch
        .ptc(["import", &text(&kernel), &text(&mini), "-o", &text(&corpus)])
        .ok();
    let csv = all_strategies()
        .ptc([
            "ab",
            &text(&corpus),
            "--strategies",
            "full-history",
            "--format",
            "csv",
            "--no-timing",
        ])
        .ok();
    assert!(!csv.contains("runs.jsonl:"), "{csv}");
    assert!(csv.contains("\ncheckout-5xx-9.inspection.jsonl,"), "{csv}");
    assert!(
        csv.contains("\ndeepseek_reasoner_dev_pvlib__pvlib-python-1707.traj.json,"),
        "{csv}"
    );
    // The bill names them so too.
    let bill = scratch.ptc(["bill", &text(&corpus)]).ok();
    assert!(bill.contains("checkout-5xx-9.inspection.jsonl"), "{bill}");
    assert!(!bill.contains("runs.jsonl:"), "{bill}");
}

#[test]
fn a_split_run_of_named_recordings_merges_into_what_one_run_gives() {
    let scratch = Scratch::new();
    let dir = logs_of_every_format(&scratch);
    let strategies = "full-history,delta-log";
    let whole = all_strategies()
        .ptc([
            "ab",
            &text(&dir),
            "--strategies",
            strategies,
            "--no-timing",
            "--format",
            "json",
        ])
        .ok();
    let mut parts = Vec::new();
    for k in 0..3 {
        let part = all_strategies()
            .ptc([
                "ab",
                &text(&dir),
                "--strategies",
                strategies,
                "--no-timing",
                "--format",
                "partial",
                "--shard",
                &format!("{k}/3"),
            ])
            .ok();
        parts.push(scratch.write(&format!("part-{k}.json"), part));
    }
    let mut args = vec!["ab".to_owned(), "merge".to_owned()];
    args.extend(parts.iter().map(|p| text(p)));
    args.extend(["--format", "json"].map(String::from));
    let merged = all_strategies().ptc(&args).ok();
    assert_eq!(merged, whole);
    // The runs were billed by several providers: each run is priced by its own profile, and
    // the merge says so as one run does.
    assert!(whole.contains("\"priced_by_run\""), "{whole}");
    let table = all_strategies()
        .ptc(["ab", &text(&dir), "--strategies", strategies, "--no-timing"])
        .ok();
    let merged = all_strategies().ptc(&args[..args.len() - 2]).ok();
    assert_eq!(merged, table);
    assert!(table.contains("priced run by run"), "{table}");
}

#[test]
fn render_and_bill_read_a_raw_log_directly() {
    let scratch = Scratch::new();
    let kernel = realrun("ptc_runner-kernel/checkout-5xx-9.inspection.jsonl");
    let prompt = all_strategies()
        .ptc(["render", &text(&kernel), "--turns", "1"])
        .ok();
    assert!(!prompt.is_empty());
    let bill = scratch.ptc(["bill", &text(&kernel)]).ok();
    assert!(bill.contains("checkout-5xx-9.inspection.jsonl"), "{bill}");
}

#[test]
fn a_file_of_no_known_format_in_a_corpus_is_one_unreadable_file_not_a_warning_a_line() {
    let scratch = Scratch::new();
    let dir = scratch.path().join("logs");
    std::fs::create_dir(&dir).unwrap();
    std::fs::copy(
        realrun("ptc_runner-kernel/checkout-5xx-9.inspection.jsonl"),
        dir.join("checkout-5xx-9.inspection.jsonl"),
    )
    .unwrap();
    let lines = "{\"level\": \"info\", \"msg\": \"listening\"}\n".repeat(40);
    std::fs::write(dir.join("events.jsonl"), lines).unwrap();
    let run = all_strategies().ptc(["ab", &text(&dir), "--strategies", "full-history"]);
    let about: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.starts_with("warning:") && l.contains("events.jsonl"))
        .collect();
    assert_eq!(about.len(), 1, "{}", run.stderr);
    assert!(
        about[0].contains("cannot tell the format") && about[0].contains("mini-swe-agent"),
        "{}",
        about[0]
    );
    assert!(run.stdout.contains("1 recording(s)"), "{}", run.stdout);
}

/// A canonical trace named on the command line is no run: an error that says what it is and
/// where its run is, exit 2; found in a directory, it is passed over with a note.
#[test]
fn a_canonical_trace_named_alone_is_refused_saying_where_its_run_is() {
    let scratch = Scratch::new();
    let trace = scratch.path().join("checkout-5xx-9.trace.jsonl");
    std::fs::copy(
        realrun("ptc_runner-kernel/checkout-5xx-9.trace.jsonl"),
        &trace,
    )
    .unwrap();
    let run = all_strategies().ptc(["ab", &text(&trace), "--strategies", "full-history"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("checkout-5xx-9.trace.jsonl holds no run: a ptc_runner canonical trace")
            && run.stderr.contains("not among these files"),
        "{}",
        run.stderr
    );
    assert!(run.stdout.is_empty(), "{}", run.stdout);
}

/// Imported on its own, a canonical trace is refused naming the file to import in its place:
/// the inspection artifact beside it, or where the run writes one.
#[test]
fn a_canonical_trace_imported_names_the_artifact_to_import() {
    let scratch = Scratch::new();
    let trace = realrun("ptc_runner-kernel/checkout-5xx-9.trace.jsonl");
    let err = scratch.ptc(["import", &text(&trace)]).bad_input();
    let artifact = realrun("ptc_runner-kernel/checkout-5xx-9.inspection.jsonl");
    assert!(
        err.contains("is a ptc_runner canonical trace")
            && err.contains(&format!("import {} instead", text(&artifact))),
        "{err}"
    );
    let alone = scratch.path().join("alone.trace.jsonl");
    std::fs::copy(&trace, &alone).unwrap();
    let err = scratch.ptc(["import", &text(&alone)]).bad_input();
    assert!(
        err.contains("is a ptc_runner canonical trace") && err.contains("with --inspect"),
        "{err}"
    );
}

#[test]
fn a_missing_log_and_a_file_of_no_known_format_say_so() {
    let scratch = Scratch::new();
    let err = scratch.ptc(["import", "missing.jsonl"]).bad_input();
    assert!(err.contains("cannot read missing.jsonl"), "{err}");
    assert!(err.contains("No such file"), "{err}");
    let other = scratch.write("notes.json", "{\"hello\": 1}");
    let err = scratch.ptc(["import", &text(&other)]).bad_input();
    assert!(err.contains("cannot tell the format of"), "{err}");
    for format in [
        "claude-code",
        "codex",
        "mini-swe-agent",
        "ptc-runner-kernel",
        "atif",
    ] {
        assert!(err.contains(format), "the formats are listed: {err}");
    }
}

#[test]
fn import_output_is_what_its_name_says() {
    let scratch = Scratch::new();
    let session = realrun("claude-code/session-5c0375b4.jsonl");
    let kernel = realrun("ptc_runner-kernel/checkout-5xx-9.inspection.jsonl");
    // Three runs do not fit one .json recording: refused with the fix, nothing written.
    let json = scratch.path().join("x.json");
    let err = scratch
        .ptc(["import", &text(&session), "-o", &text(&json)])
        .bad_input();
    assert!(err.contains(".jsonl") && err.contains("directory"), "{err}");
    assert!(!json.exists());
    // Nor a file named with neither extension, which ptc would read as one recording: refused
    // with the two names that work, nothing written.
    let bare = scratch.path().join("bare");
    let err = scratch
        .ptc(["import", &text(&session), "-o", &text(&bare)])
        .bad_input();
    assert!(
        err.contains(&format!("{}.jsonl", text(&bare)))
            && err.contains(&format!("{}/", text(&bare))),
        "{err}"
    );
    assert!(!bare.exists());
    // One run into such a file is one recording, as ptc reads it.
    scratch
        .ptc(["import", &text(&kernel), "-o", &text(&bare)])
        .ok();
    scratch.ptc(["validate", &text(&bare)]).ok();
    // One run into a .jsonl file is one line.
    let jsonl = scratch.path().join("one.jsonl");
    scratch
        .ptc(["import", &text(&kernel), "-o", &text(&jsonl)])
        .ok();
    let written = std::fs::read_to_string(&jsonl).unwrap();
    assert_eq!(written.lines().count(), 1, "{written}");
    let _: Json = serde_json::from_str(written.trim()).unwrap();
    scratch.ptc(["validate", &text(&jsonl)]).ok();
    // A directory: a file per run, each a recording that validates.
    let dir = scratch.path().join("runs");
    scratch
        .ptc([
            "import",
            &text(&session),
            &text(&kernel),
            "-o",
            &format!("{}/", dir.display()),
        ])
        .ok();
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    // Each named after its run, without the log's extension or stray dashes.
    assert_eq!(
        files,
        [
            "checkout-5xx-9.inspection.json",
            "session-5c0375b4-side-chain-from-line-16.json",
            "session-5c0375b4-side-chain-from-line-26.json",
            "session-5c0375b4-thread-from-line-1.json",
        ]
    );
    scratch.ptc(["validate", &text(&dir)]).ok();
}

#[test]
fn import_reads_the_logs_of_a_directory() {
    let scratch = Scratch::new();
    let out = scratch.path().join("all.jsonl");
    scratch
        .ptc(["import", &text(&realrun("codex")), "-o", &text(&out)])
        .ok();
    assert_eq!(std::fs::read_to_string(&out).unwrap().lines().count(), 4);
}

#[test]
fn runs_that_hold_what_their_agent_sent_are_compared_with_it() {
    let scratch = all_strategies();
    let mini = realrun("mini-swe-agent/deepseek_reasoner_dev_pvlib__pvlib-python-1707.traj.json");
    let claude = realrun("claude-code/session-5c0375b4.jsonl");
    let ab = |paths: &[&Path], more: &[&str]| {
        let mut args = vec!["ab".to_owned()];
        args.extend(paths.iter().map(|p| text(p)));
        args.extend(
            [
                "--strategies",
                "full-history,delta-log",
                "--no-timing",
                "--format",
                "json",
            ]
            .map(str::to_owned),
        );
        args.extend(more.iter().map(|m| m.to_string()));
        let run = scratch.ptc(args);
        assert_eq!(run.code, 0, "{}", run.stderr);
        let json: Json = serde_json::from_str(&run.stdout).unwrap();
        (json["baseline"].as_str().unwrap().to_owned(), run.stderr)
    };
    // A log that kept its requests, and one whose requests are rebuilt: as-sent is the
    // baseline, though the strategies asked for do not name it, and stderr says why.
    for paths in [vec![mini.as_path()], vec![mini.as_path(), claude.as_path()]] {
        let (baseline, stderr) = ab(&paths, &[]);
        assert_eq!(baseline, "as-sent", "{stderr}");
        assert!(
            stderr.contains("note: compared with as-sent, the requests every run's agent sent"),
            "{stderr}"
        );
    }
    // Asked for on the command line, full-history stays; so does any other baseline.
    let (baseline, stderr) = ab(&[&mini], &["--set", "ab.baseline=full-history"]);
    assert_eq!(baseline, "full-history");
    assert!(!stderr.contains("compared with as-sent"), "{stderr}");
    let config = scratch.write(
        "baseline-delta-log.toml",
        "[plugins]\ndirectories = [\"plugins\"]\nnext_to_executable = false\n[ab]\nbaseline = \"delta-log\"\n",
    );
    let (baseline, _) = ab(&[&mini], &["--config", &text(&config)]);
    assert_eq!(baseline, "delta-log");
    // A corpus where a run holds no request keeps the configured baseline.
    let plain = repo().join("examples/recordings/tool-actions.json");
    let (baseline, stderr) = ab(&[&mini, &plain], &[]);
    assert_eq!(baseline, "full-history", "{stderr}");
}

#[test]
fn ab_prices_runs_by_the_provider_their_usage_names_unless_asked() {
    let mini = realrun("mini-swe-agent/deepseek_reasoner_dev_pvlib__pvlib-python-1707.traj.json");
    let run = all_strategies().ptc([
        "ab",
        &text(&mini),
        "--strategies",
        "as-sent,full-history",
        "--no-timing",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains("cost: deepseek pricing"),
        "{}",
        run.stdout
    );
    assert!(run.stderr.contains("priced by deepseek"), "{}", run.stderr);
    // Asked for, another profile prices them.
    let asked = all_strategies()
        .ptc([
            "ab",
            &text(&mini),
            "--strategies",
            "as-sent,full-history",
            "--no-timing",
            "--pricing",
            "anthropic",
        ])
        .ok();
    assert!(asked.contains("cost: anthropic pricing"), "{asked}");
    // The table against the baseline shows the profile the runs were billed by, and those
    // asked for, not every configured one.
    let heading = |out: &str| {
        out.lines()
            .skip_while(|l| !l.starts_with("vs baseline"))
            .take(2)
            .collect::<Vec<_>>()
            .join("\n")
    };
    let table = heading(&run.stdout);
    assert!(table.contains("under 1 of the"), "{table}");
    assert!(table.ends_with("tokens  deepseek"), "{table}");
    let table = heading(&asked);
    assert!(table.contains("under 2 of the"), "{table}");
    // Runs billed by two providers: each run is priced by its own profile alone, and the cost
    // column adds them up.
    let session = realrun("claude-code/session-5c0375b4.jsonl");
    let mixed = all_strategies().ptc([
        "ab",
        &text(&mini),
        &text(&session),
        "--strategies",
        "full-history,trim",
        "--no-timing",
    ]);
    assert_eq!(mixed.code, 0, "{}", mixed.stderr);
    assert!(
        mixed.stderr.contains(
            "billed under several profiles (deepseek, anthropic): each run is priced by its own"
        ),
        "{}",
        mixed.stderr
    );
    assert!(
        mixed.stdout.contains("cost: as-billed pricing"),
        "{}",
        mixed.stdout
    );
    let table = heading(&mixed.stdout);
    assert!(table.ends_with("tokens  as-billed"), "{table}");
    assert!(
        mixed.stdout.contains(
            "priced run by run: each run by the profile its usage names, in that profile's column only (runs:\n  deepseek 1, anthropic 3)"
        ),
        "{}",
        mixed.stdout
    );
    // One verdict per billed profile, on its own runs, and one on the whole as billed; none
    // for the profiles no run was billed by.
    let verdicts: Vec<&str> = mixed
        .stdout
        .lines()
        .skip_while(|l| !l.starts_with("verdict:"))
        .skip(2)
        .take_while(|l| l.starts_with("  "))
        .filter(|l| !l.starts_with("    "))
        .collect();
    let providers: Vec<&str> = verdicts
        .iter()
        .map(|l| l.trim().split(':').next().unwrap())
        .collect();
    assert_eq!(
        providers,
        ["anthropic", "deepseek", "as-billed"],
        "{verdicts:?}"
    );
    assert!(verdicts[0].contains("its 3 billed runs"), "{verdicts:?}");
    assert!(verdicts[1].contains("its 1 billed run"), "{verdicts:?}");
    // Each run counts in its own profile's column only, and as-billed adds them up.
    let json = all_strategies().ptc([
        "ab",
        &text(&mini),
        &text(&session),
        "--strategies",
        "full-history,trim",
        "--no-timing",
        "--format",
        "json",
    ]);
    assert_eq!(json.code, 0, "{}", json.stderr);
    let doc: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(
        doc["priced_by_run"]["profiles"],
        serde_json::json!([["deepseek", 1], ["anthropic", 3]])
    );
    assert_eq!(doc["primary_pricing"], "as-billed");
    let csv = all_strategies().ptc([
        "ab",
        &text(&mini),
        &text(&session),
        "--strategies",
        "full-history",
        "--no-timing",
        "--format",
        "csv",
    ]);
    assert_eq!(csv.code, 0, "{}", csv.stderr);
    let mut lines = csv.stdout.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (deepseek, anthropic, billed, none) = (
        col("cost_deepseek"),
        col("cost_anthropic"),
        col("cost_as-billed"),
        col("cost_none"),
    );
    let (mut sums, mut rows) = ([0.0f64; 3], 0);
    for line in lines {
        let cells: Vec<&str> = line.split(',').collect();
        let cost = |i: usize| cells[i].parse::<f64>().unwrap();
        let claude = line.starts_with("session-5c0375b4");
        // A run is priced by the profile it was billed by, and by no other billed one; a
        // profile no run was billed by (what-if) prices every run.
        assert_eq!(cost(deepseek) == 0.0, claude, "{line}");
        assert_eq!(cost(anthropic) == 0.0, !claude, "{line}");
        assert!(cost(none) > 0.0, "{line}");
        assert_eq!(cost(billed), cost(deepseek) + cost(anthropic), "{line}");
        sums[0] += cost(deepseek);
        sums[1] += cost(anthropic);
        sums[2] += cost(billed);
        rows += 1;
    }
    assert!(
        rows > 10 && sums[0] > 0.0 && sums[1] > 0.0,
        "{}",
        csv.stdout
    );
    assert!((sums[2] - sums[0] - sums[1]).abs() < 1e-9, "{sums:?}");
}

/// Logs that share a file name (every Kernel run writes `run.inspection.jsonl`) give runs
/// named with as many parent folders as tell them apart, in `ptc ab` and in `ptc import`.
#[test]
fn runs_of_logs_that_share_a_file_name_are_named_with_their_folders() {
    let scratch = Scratch::new();
    let mut dirs = Vec::new();
    for (folder, log) in [
        ("loop", "checkout-5xx-9.inspection.jsonl"),
        ("fast", "fast-checkout-5xx-10.inspection.jsonl"),
    ] {
        let dir = scratch.path().join(folder).join("inspect");
        std::fs::create_dir_all(&dir).unwrap();
        let from = realrun(&format!("ptc_runner-kernel/{log}"));
        std::fs::copy(from, dir.join("run.inspection.jsonl")).unwrap();
        dirs.push(dir);
    }
    let csv = all_strategies()
        .ptc([
            "ab",
            &text(&dirs[0]),
            &text(&dirs[1]),
            "--strategies",
            "full-history",
            "--format",
            "csv",
            "--no-timing",
        ])
        .ok();
    let names: std::collections::BTreeSet<&str> = csv
        .lines()
        .skip(1)
        .filter_map(|row| row.split(',').next())
        .collect();
    assert_eq!(
        names,
        [
            "fast/inspect/run.inspection.jsonl",
            "loop/inspect/run.inspection.jsonl"
        ]
        .into_iter()
        .collect(),
        "{csv}"
    );
    let out = scratch.path().join("runs.jsonl");
    let logs: Vec<String> = dirs
        .iter()
        .map(|d| text(&d.join("run.inspection.jsonl")))
        .collect();
    scratch
        .ptc(["import", &logs[0], &logs[1], "-o", &text(&out)])
        .ok();
    let imported: Vec<String> = std::fs::read_to_string(&out)
        .unwrap()
        .lines()
        .map(|l| {
            serde_json::from_str::<Json>(l).unwrap()["name"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(
        imported,
        [
            "loop/inspect/run.inspection.jsonl",
            "fast/inspect/run.inspection.jsonl"
        ]
    );
}

/// A directory is read with its folders (sessions kept by date), hidden folders passed over.
#[test]
fn a_directory_is_read_with_its_folders() {
    let scratch = Scratch::new();
    let day = scratch.path().join("sessions/2026/02/23");
    std::fs::create_dir_all(&day).unwrap();
    let rollout = realrun("codex/rollout-2026-02-23T20-34-25-019c8bfe.jsonl");
    std::fs::copy(&rollout, day.join(rollout.file_name().unwrap())).unwrap();
    let mini = realrun("mini-swe-agent/deepseek_reasoner_dev_pvlib__pvlib-python-1707.traj.json");
    std::fs::copy(
        &mini,
        scratch
            .path()
            .join("sessions")
            .join(mini.file_name().unwrap()),
    )
    .unwrap();
    let hidden = scratch.path().join("sessions/.git");
    std::fs::create_dir_all(&hidden).unwrap();
    std::fs::write(hidden.join("config.json"), "not a recording").unwrap();
    let dir = scratch.path().join("sessions");
    let run = all_strategies().ptc([
        "ab",
        &text(&dir),
        "--strategies",
        "full-history",
        "--no-timing",
        "--format",
        "csv",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let runs: std::collections::BTreeSet<&str> = run
        .stdout
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap())
        .collect();
    // The file directly in the directory first, then the folder's; the hidden one is not read.
    assert_eq!(runs.len(), 2, "{runs:?}");
    assert!(runs.iter().any(|r| r.starts_with("rollout-")), "{runs:?}");
    assert!(!run.stderr.contains("config.json"), "{}", run.stderr);
    // `ptc import` of the directory reads the same logs.
    let import = all_strategies().ptc(["import", &text(&dir)]);
    assert_eq!(import.code, 0, "{}", import.stderr);
    assert_eq!(import.stdout.lines().count(), 2, "{}", import.stdout);
}

/// A run whose calls were billed under several profiles (a gateway that routed them to
/// several providers) is priced call by call: each turn in the column of its own call's
/// profile, the run in each of those columns, and `as-billed` adds them up.
#[test]
fn a_run_billed_by_several_providers_is_priced_call_by_call() {
    let scratch = all_strategies();
    let pure = repo().join("examples/realruns/mini-swe-agent-pvlib-1707.json");
    let mut doc: Json = serde_json::from_slice(&std::fs::read(&pure).unwrap()).unwrap();
    doc["name"] = "routed".into();
    let turns = doc["turns"].as_array_mut().unwrap();
    assert_eq!(turns.len(), 16);
    for turn in turns.iter_mut().skip(10) {
        turn["usage"]["provider"] = "anthropic".into();
        turn["usage"]["model"] = "claude-sonnet-4-5".into();
    }
    let routed = scratch.write("routed.json", doc.to_string());
    let ab = |format: &str| {
        scratch
            .ptc([
                "ab",
                &text(&routed),
                &text(&pure),
                "--strategies",
                "full-history",
                "--no-timing",
                "--format",
                format,
            ])
            .ok()
    };
    let table = ab("table");
    for said in [
        "  1 run(s) billed under several of them, priced call by call (each turn by its call's profile, the\n    run in each column):\n",
        "\n    routed: deepseek 10 turn(s), anthropic 6 turn(s)\n",
        // The routed run counts in both profiles' runs.
        "(runs:\n  deepseek 2, anthropic 1)\n",
    ] {
        assert!(table.contains(said), "{said}\n{table}");
    }
    let csv = ab("csv");
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (deepseek, sonnet, billed) = (
        col("cost_deepseek"),
        col("cost_anthropic"),
        col("cost_as-billed"),
    );
    // A row per prompt: a run's costs are the sums of its rows.
    let row = |name: &str| -> Vec<f64> {
        let mut sums = vec![0.0; 3];
        for line in csv.lines().filter(|l| l.starts_with(name)) {
            let cells: Vec<&str> = line.split(',').collect();
            for (sum, i) in sums.iter_mut().zip([deepseek, sonnet, billed]) {
                *sum += cells[i].parse::<f64>().unwrap();
            }
        }
        sums
    };
    let (routed_costs, pure_costs) = (row("routed"), row("deepseek_reasoner_dev_pvlib"));
    // The routed run's first ten turns are priced by DeepSeek, the last six by Sonnet.
    assert!(routed_costs[0] > 0.0 && routed_costs[1] > 0.0, "{csv}");
    assert!(routed_costs[0] < pure_costs[0], "{csv}");
    assert_eq!(pure_costs[1], 0.0, "{csv}");
    assert!(
        (routed_costs[2] - routed_costs[0] - routed_costs[1]).abs() < 1e-9,
        "{csv}"
    );
    // Each turn is in one billed column: the first ten turns in DeepSeek's, where the whole
    // run has sixteen; the eleventh writes Sonnet's cache, which held nothing.
    let turn = |n: usize| -> Vec<f64> {
        let line = csv
            .lines()
            .find(|l| l.starts_with(&format!("routed,full-history,{n},")))
            .unwrap();
        let cells: Vec<&str> = line.split(',').collect();
        [deepseek, sonnet, billed]
            .iter()
            .map(|&i| cells[i].parse::<f64>().unwrap())
            .collect()
    };
    for n in 0..16 {
        let costs = turn(n);
        assert_eq!(costs[0] > 0.0, n < 10, "turn {n}: {costs:?}");
        assert_eq!(costs[1] > 0.0, n >= 10, "turn {n}: {costs:?}");
        assert_eq!(costs[2], costs[0] + costs[1], "turn {n}: {costs:?}");
    }
    let written = header
        .iter()
        .position(|h| *h == "written_anthropic")
        .unwrap();
    let eleventh = csv
        .lines()
        .find(|l| l.starts_with("routed,full-history,10,"))
        .unwrap();
    let tokens: u64 = eleventh.split(',').nth(3).unwrap().parse().unwrap();
    let wrote: u64 = eleventh.split(',').nth(written).unwrap().parse().unwrap();
    assert!(wrote > tokens / 2, "{eleventh}");
    // The bill compares a run with one profile's cache rule: it says why it will not.
    let bill = scratch.ptc(["bill", &text(&routed)]).bad_input();
    assert!(
        bill.contains("its calls are billed under several pricing profiles (deepseek (10 call(s)), anthropic (6 call(s)))"),
        "{bill}"
    );
}

/// A log whose usage names the model and not its provider (OpenHands, ATIF) is priced by the
/// provider the model names, and the output says the provider was inferred.
#[test]
fn a_run_whose_usage_names_only_its_model_is_priced_by_that_models_provider_said_inferred() {
    let scratch = all_strategies();
    let sonnet = realrun("openhands/replay-wrong_initial_state.json");
    let gpt = realrun("openhands/atif-rfc-example-openhands_trajectory.json");
    let run = scratch.ptc([
        "ab",
        &text(&sonnet),
        &text(&gpt),
        "--strategies",
        "as-sent,full-history",
        "--no-timing",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("note: 2 run(s) name their model but not its provider, priced by the provider inferred from the model (its prefix, or the one provider whose profile lists it): replay-wrong_initial_state.json (claude-3-5-sonnet-20241022), atif-rfc-example-openhands_trajectory.json (gpt-5-2025-08-07); --pricing chooses another"),
        "{}",
        run.stderr
    );
    assert_eq!(
        run.stderr.matches("name their model").count(),
        1,
        "{}",
        run.stderr
    );
    assert!(
        run.stdout.contains("(runs:\n  anthropic 1, openai 1)"),
        "{}",
        run.stdout
    );
    assert!(
        !run.stdout.contains("no usage names its provider"),
        "{}",
        run.stdout
    );
    // `ptc bill` prices it too, and says so; asked for a profile, it says nothing.
    let bill = scratch.ptc(["bill", &text(&sonnet)]);
    assert_eq!(bill.code, 0, "{}", bill.stderr);
    assert!(
        bill.stderr
            .contains("note: 1 run(s) name their model but not its provider"),
        "{}",
        bill.stderr
    );
    assert!(bill.stdout.contains("\n  anthropic"), "{}", bill.stdout);
    let asked = scratch.ptc(["bill", &text(&sonnet), "--pricing", "openai"]);
    assert_eq!(asked.code, 0, "{}", asked.stderr);
    assert!(
        !asked.stderr.contains("name their model"),
        "{}",
        asked.stderr
    );
}
