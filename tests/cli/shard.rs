//! A split run: `ptc ab --shard K/N --format partial` on each shard, as separate processes,
//! then `ptc ab merge`, gives byte for byte what one run gives; and the merge refuses parts
//! that do not belong together.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::support::{all_strategies, example, generator, repo, Run, Scratch, TURN_COUNT};

const FULL_HISTORY: &str = "ptc-strategy-full-history";

/// `ptc ARGS` in `dir`, started but not waited for.
fn start(dir: &Path, args: &[String]) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_ptc"))
        .args(args)
        .current_dir(dir)
        .env_remove("RUST_LOG")
        .env("NO_COLOR", "1")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("ptc starts")
}

fn finished(output: Output) -> Run {
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8(output.stdout).expect("UTF-8 stdout"),
        stderr: String::from_utf8(output.stderr).expect("UTF-8 stderr"),
    }
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| (*s).to_owned()).collect()
}

/// Runs `ptc ab ARGS --shard K/N --format partial` for every K at once, each writing
/// `DIR/part-K.json`; returns DIR.
fn shards(scratch: &Scratch, args: &[&str], n: usize) -> PathBuf {
    let dir = scratch.path().join(format!("parts-{n}"));
    std::fs::create_dir_all(&dir).unwrap();
    let children: Vec<_> = (0..n)
        .map(|k| {
            let mut all = strings(&["ab"]);
            all.extend(strings(args));
            all.extend(strings(&[
                "--shard",
                &format!("{k}/{n}"),
                "--format",
                "partial",
            ]));
            start(scratch.path(), &all)
        })
        .collect();
    for (k, child) in children.into_iter().enumerate() {
        let run = finished(child.wait_with_output().unwrap());
        assert_eq!(run.code, 0, "shard {k}/{n}:\n{}", run.stderr);
        assert!(!run.stderr.contains("error:"), "{}", run.stderr);
        std::fs::write(dir.join(format!("part-{k}.json")), run.stdout).unwrap();
    }
    dir
}

/// `ptc ab ARGS --no-timing EXTRA` in one run and merged from N shards, for every N of
/// `splits`: the same stdout, stderr and exit code. Returns the one run.
fn assert_merges_exactly(scratch: &Scratch, args: &[&str], splits: &[usize]) -> Run {
    let mut whole = strings(&["ab"]);
    whole.extend(strings(args));
    whole.extend(strings(&["--no-timing", "--format", "json"]));
    let one = finished(start(scratch.path(), &whole).wait_with_output().unwrap());
    assert!(
        one.code == 0 || one.code == 1,
        "one run failed:\n{}",
        one.stderr
    );
    for &n in splits {
        let mut sharded = strings(args);
        sharded.push("--no-timing".into());
        let dir = shards(
            scratch,
            &sharded.iter().map(String::as_str).collect::<Vec<_>>(),
            n,
        );
        let merge = strings(&["ab", "merge", dir.to_str().unwrap(), "--format", "json"]);
        let merged = finished(start(scratch.path(), &merge).wait_with_output().unwrap());
        assert_eq!(merged.code, one.code, "{n} shards:\n{}", merged.stderr);
        // The note on how the runs were priced is the shards' (which read the corpus), not the
        // merge's; every warning is the same.
        let warnings = |text: &str| -> String {
            text.lines()
                .filter(|l| {
                    !l.starts_with("note: priced by")
                        && !l.starts_with("note: the runs were billed")
                })
                .map(|l| format!("{l}\n"))
                .collect()
        };
        assert_eq!(
            warnings(&merged.stderr),
            warnings(&one.stderr),
            "{n} shards: the same warnings"
        );
        assert!(
            merged.stdout == one.stdout,
            "{n} shards: the merge differs from one run"
        );
    }
    one
}

#[test]
fn a_strategy_judged_on_some_runs_is_judged_on_the_same_runs_when_merged() {
    // A Kernel log imported without its replay lacks the memory values delta-log's prompts
    // are made from: delta-log is judged on the four bundled real runs, which have them, in
    // one run and in merged parts alike.
    let scratch = all_strategies();
    let real = repo().join("examples/realruns");
    let log = repo()
        .join("tests/fixtures/realruns/ptc_runner-kernel/fast-checkout-5xx-10.inspection.jsonl");
    let args = [
        real.to_str().unwrap(),
        log.to_str().unwrap(),
        "--strategies",
        "as-sent,delta-log",
        "--set",
        "ab.baseline=\"as-sent\"",
    ];
    let one = assert_merges_exactly(scratch, &args, &[2, 4]);
    assert!(
        one.stdout.contains("\"judged_recordings\": 4,"),
        "{}",
        one.stdout
    );
    // The table too: by default (the profiles the runs were billed by, which the shards were
    // asked to price, as one run shows them), and every profile with the detail.
    let dir = shards(scratch, &[&args[..], &["--no-timing"]].concat(), 2);
    for view in [&[][..], &["--wide", "--explain"][..]] {
        let merge = [
            &["ab", "merge", dir.to_str().unwrap(), "--format", "table"][..],
            view,
        ];
        let merged = scratch.ptc(merge.concat()).ok();
        let table = scratch
            .ptc([&["ab"][..], &args, &["--no-timing"], view].concat())
            .ok();
        // One run follows its table with the comparison with the bill, which parts do not
        // carry.
        let (table, bill) = table.split_once("\n\nSimulated against the bill").unwrap();
        assert!(bill.contains("billed call(s)"), "{bill}");
        assert_eq!(merged.trim_end(), table.trim_end(), "{view:?}");
        assert!(
            merged.contains("  delta-log: 4 of 5 recordings (1 lack memory_values")
                || view.is_empty(),
            "{merged}"
        );
    }
}

#[test]
fn a_row_marked_a_verdict_shows_the_column_that_holds_it() {
    // The bundled corpus: a verdict per provider, a table that shows few of their columns
    // (per-turn-summary is a verdict only under a profile it does not show).
    let scratch = all_strategies();
    let table = scratch.ptc(["ab", "--no-timing"]).ok();
    let (_, against) = table.split_once("\nvs baseline:").unwrap();
    let rows: Vec<&str> = against
        .lines()
        .skip(2)
        // The rows, up to the legend: a mark column three wide.
        .take_while(|l| l.get(1..3) == Some("  ") || l.starts_with("B* "))
        .collect();
    assert!(!rows.is_empty(), "{table}");
    let mut marked = 0;
    for row in rows {
        let cells: Vec<&str> = row.split_whitespace().collect();
        let row_marked = row.starts_with('*') || row.starts_with("B*");
        let cell_marked = cells.iter().skip(2).any(|c| c.ends_with("x*"));
        assert_eq!(row_marked, cell_marked, "{row}\n{table}");
        marked += usize::from(row_marked);
    }
    assert!(marked > 0, "some verdict is shown: {table}");
}

#[test]
fn the_model_calls_of_a_strategy_merge_exactly() {
    // compact with a low trigger makes summarizer calls, priced apart from the prompts.
    let scratch = all_strategies();
    let one = assert_merges_exactly(
        scratch,
        &["--strategies", "full-history,compact@trigger_tokens=1500"],
        &[2, 5],
    );
    assert!(
        one.stdout.contains("\"model_calls\""),
        "no model call was made"
    );
}

#[test]
fn the_merge_of_any_split_of_the_bundled_corpus_is_one_run_byte_for_byte() {
    let scratch = all_strategies();
    let one = assert_merges_exactly(scratch, &[], &[1, 2, 3, 7]);
    let json: serde_json::Value = serde_json::from_str(&one.stdout).unwrap();
    assert_eq!(json["runs"].as_array().unwrap().len() % 35, 0, "every run");
    // The other formats and the HTML report, from the parts of three shards.
    let parts = scratch.path().join("parts-3");
    let parts = parts.to_str().unwrap();
    for format in ["table", "markdown", "csv"] {
        let one = scratch.ptc(["ab", "--no-timing", "--format", format]).ok();
        let merged = scratch.ptc(["ab", "merge", parts, "--format", format]).ok();
        // One run of the bundled corpus follows it with the bundled real runs, which are not
        // part of it (and not of its parts).
        let one = match one.split_once("\n\nReal runs (bundled") {
            Some((corpus, _)) => corpus.to_owned(),
            None => one,
        };
        assert!(one == merged, "--format {format} differs");
    }
    let (a, b) = (
        scratch.path().join("one.html"),
        scratch.path().join("merged.html"),
    );
    scratch
        .ptc(["ab", "--no-timing", "--report", a.to_str().unwrap()])
        .ok();
    scratch
        .ptc(["ab", "merge", parts, "--report", b.to_str().unwrap()])
        .ok();
    // Every chart and table is the same; only one run has the recordings whose prompts the
    // page shows side by side.
    let (one, merged) = (
        std::fs::read_to_string(&a).unwrap(),
        std::fs::read_to_string(&b).unwrap(),
    );
    // One run of the bundled corpus also has the section of the bundled real runs (which
    // are not part of it), from its heading to the end of the runs' text.
    let without_prompts = |page: &str| -> String {
        let section = page.find("<h2>Real runs</h2>").and_then(|start| {
            let end = start + page[start..].find("</pre></div>")? + "</pre></div>".len();
            Some((start, end))
        });
        let page = match section {
            Some((start, end)) => format!("{}{}", &page[..start], &page[end..]),
            None => page.to_owned(),
        };
        page.lines()
            .filter(|l| !l.starts_with("<p class=\"note\">Pick a recording"))
            .filter(|l| !l.starts_with("<script type=\"application/json\" id=\"prompt-data\">"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert!(
        without_prompts(&one) == without_prompts(&merged),
        "the HTML reports differ beyond the prompts"
    );
    assert!(one.contains("The prompts of 35 of the 35 recording(s) measured"));
    assert!(merged.contains("No prompts: the page was made by `ptc ab merge`"));
    assert!(
        one.len() > merged.len() + 10_000,
        "the one run's page has its prompts"
    );
}

fn generate(count: usize, turns: usize, seed: u64, out: &Path) {
    let status = Command::new(generator())
        .args(["--count", &count.to_string(), "--turns", &turns.to_string()])
        .args(["--seed", &seed.to_string(), "--out"])
        .arg(out)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
}

/// 2,000 generated runs: 1,990 files of 3 turns, 5 longer ones on which a strategy fails, a
/// JSONL file of 5 lines, and a recording that cannot be read.
fn generated_corpus(scratch: &Scratch) {
    let corpus = scratch.path().join("corpus");
    generate(1990, 3, 11, &corpus);
    let long = scratch.path().join("long");
    generate(10, 6, 12, &long);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&long)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let mut lines = String::new();
    for (i, file) in files.iter().enumerate() {
        if i % 2 == 0 {
            std::fs::rename(file, corpus.join(format!("long-{i}.json"))).unwrap();
        } else {
            lines.push_str(std::fs::read_to_string(file).unwrap().trim());
            lines.push('\n');
        }
    }
    std::fs::write(corpus.join("lines.jsonl"), lines).unwrap();
    std::fs::write(corpus.join("broken.json"), "{\"mission\": ").unwrap();
}

#[test]
fn the_merge_of_any_split_of_2000_generated_runs_is_one_run_byte_for_byte() {
    let scratch = Scratch::with_plugins(&[FULL_HISTORY, TURN_COUNT]);
    generated_corpus(&scratch);
    let one = assert_merges_exactly(
        &scratch,
        &["corpus", "--strategies", "turn-count@fail_after=4"],
        &[1, 2, 3, 7],
    );
    // What the comparison covered: a recording left out, a strategy failing on some.
    assert_eq!(one.code, 1, "{}", one.stderr);
    assert!(
        one.stderr
            .contains("warning: skipping recording corpus/broken.json")
            && one
                .stderr
                .contains("1 of 2001 recordings could not be read"),
        "{}",
        one.stderr
    );
    assert!(
        one.stderr.contains(
            "warning: strategy turn-count@fail_after=4 failed on 10 recording(s); first: corpus/lines.jsonl"
        ),
        "{}",
        one.stderr
    );
    let json: serde_json::Value = serde_json::from_str(&one.stdout).unwrap();
    let runs = json["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2000 * 2);
    assert_eq!(runs[0]["recording"], "corpus/gen-000-explore.json");
}

/// Three parts of the bundled corpus through two strategies, in a scratch directory of their
/// own.
fn parts() -> (Scratch, Vec<PathBuf>) {
    let scratch = Scratch::new();
    let args = [
        "--strategies",
        "turn-count",
        "--set",
        "ab.baseline=turn-count",
    ];
    let dir = shards(&scratch, &args, 3);
    let parts = (0..3).map(|k| dir.join(format!("part-{k}.json"))).collect();
    (scratch, parts)
}

fn merge(scratch: &Scratch, parts: &[&Path], extra: &[&str]) -> Run {
    let mut args: Vec<String> = strings(&["ab", "merge"]);
    args.extend(parts.iter().map(|p| p.display().to_string()));
    args.extend(strings(extra));
    scratch.ptc(args)
}

#[test]
fn the_merge_refuses_parts_that_do_not_belong_together() {
    let (scratch, parts) = parts();
    let p: Vec<&Path> = parts.iter().map(PathBuf::as_path).collect();
    let name = |i: usize| p[i].display().to_string();
    merge(&scratch, &p, &[]).ok();

    let err = merge(&scratch, &p[..2], &[]).bad_input();
    assert_eq!(
        err,
        "error: cannot merge: shard 2/3 missing (--allow-missing merges the parts given)"
    );
    let run = merge(&scratch, &p[..2], &["--allow-missing"]);
    assert!(
        run.stderr
            .starts_with("warning: shard 2/3 missing: the results cover "),
        "{}",
        run.stderr
    );
    assert!(run.ok().contains("strategy"));

    let err = merge(&scratch, &[p[0], p[1], p[1], p[2]], &[]).bad_input();
    assert_eq!(
        err,
        format!(
            "error: cannot merge: {} and {} are both shard 1/3",
            name(1),
            name(1)
        )
    );

    // Other settings, another split.
    let other = scratch.path().join("other.json");
    let mut args = vec!["ab", "--strategies", "turn-count", "--set"];
    args.extend([
        "ab.baseline=turn-count",
        "--shard",
        "1/3",
        "--format",
        "partial",
    ]);
    args.extend(["--set", "strategies.turn-count.fail_after=7"]);
    std::fs::write(&other, scratch.ptc(&args).ok()).unwrap();
    let err = merge(&scratch, &[p[0], &other, p[2]], &[]).bad_input();
    assert_eq!(
        err,
        format!(
            "error: cannot merge: {} and {} were measured with different settings: fingerprint.variants[0].options.fail_after is 1000 and 7",
            name(0),
            other.display()
        )
    );
    let mut args = vec!["ab", "--strategies", "turn-count", "--set"];
    args.extend([
        "ab.baseline=turn-count",
        "--shard",
        "1/4",
        "--format",
        "partial",
    ]);
    std::fs::write(&other, scratch.ptc(&args).ok()).unwrap();
    let err = merge(&scratch, &[p[0], &other], &[]).bad_input();
    assert!(
        err.ends_with("come from different splits (shard 0/3 and shard 1/4)"),
        "{err}"
    );
}

#[test]
fn parts_measured_on_other_contents_of_the_same_files_are_not_merged() {
    // A corpus of the same names whose one recording changed between two runs of the shards
    // (a task of the second run failed and left the first run's part): the parts name the
    // same recordings, but not the same bytes.
    let scratch = Scratch::new();
    let corpus = scratch.path().join("corpus");
    std::fs::create_dir(&corpus).unwrap();
    for name in [
        "data-exploration.json",
        "failure-recovery.json",
        "final-turn.json",
    ] {
        std::fs::copy(example(name), corpus.join(name)).unwrap();
    }
    let part = |k: usize| -> PathBuf {
        let out = scratch.path().join(format!("part-{k}.json"));
        let shard = format!("{k}/2");
        let args = [
            "ab",
            "corpus",
            "--strategies",
            "turn-count",
            "--set",
            "ab.baseline=turn-count",
            "--shard",
            &shard,
            "--format",
            "partial",
        ];
        std::fs::write(&out, scratch.ptc(args).ok()).unwrap();
        out
    };
    let (zero, one) = (part(0), part(1));
    merge(&scratch, &[&zero, &one], &[]).ok();
    let text = std::fs::read_to_string(corpus.join("final-turn.json")).unwrap();
    std::fs::write(corpus.join("final-turn.json"), format!("{text}\n")).unwrap();
    let one = part(1);
    let err = merge(&scratch, &[&zero, &one], &[]).bad_input();
    assert!(
        err.starts_with(&format!(
            "error: cannot merge: {} was run on other contents of the corpus than {}: the same 3 recordings, but their bytes differ (contents ",
            one.display(),
            zero.display()
        )),
        "{err}"
    );
    assert!(
        err.ends_with("); measure every shard of the corpus as it is now"),
        "{err}"
    );
    // Measured again on the corpus as it is now, the parts merge.
    let zero = part(0);
    merge(&scratch, &[&zero, &one], &[]).ok();
}

#[test]
fn a_file_that_is_not_a_whole_part_is_an_error_naming_the_file_and_the_place() {
    let (scratch, parts) = parts();
    let text = std::fs::read_to_string(&parts[1]).unwrap();
    let cut = scratch.path().join("cut.json");
    let rows = text.find("\"runs\"").unwrap();
    std::fs::write(&cut, &text[..rows + 200]).unwrap();
    let p = [parts[0].as_path(), cut.as_path(), parts[2].as_path()];
    let err = merge(&scratch, &p, &["--format", "json"]).bad_input();
    assert!(
        err.starts_with(&format!(
            "error: cannot read part {} at `runs[0]",
            cut.display()
        )) && err.contains("EOF while parsing"),
        "{err}"
    );
    // Every format reads the part whole, rows included: the same error.
    let err = merge(&scratch, &p, &[]).bad_input();
    assert!(
        err.contains("at `runs[0]") && err.contains("EOF while parsing"),
        "{err}"
    );

    std::fs::write(&cut, &text[..text.len() / 3]).unwrap();
    merge(&scratch, &p, &[]).bad_input();

    // A value out of place, and one that does not fit the fingerprint.
    std::fs::write(
        &cut,
        text.replacen("\n  \"recordings\": ", "\n  \"recordings\": -", 1),
    )
    .unwrap();
    let err = merge(&scratch, &p, &[]).bad_input();
    assert!(
        err.contains("at `recordings`: invalid value: integer `-"),
        "{err}"
    );
    std::fs::write(&cut, text.replace("\"variant\":0", "\"variant\":9")).unwrap();
    let err = merge(&scratch, &p, &["--format", "csv"]).bad_input();
    assert_eq!(
        err,
        format!(
            "error: part {} does not hold together: runs[0] does not fit the fingerprint and corpus",
            cut.display()
        )
    );

    // Foreign files.
    let json = scratch.path().join("results.json");
    let mut args = vec!["ab", "--strategies", "turn-count", "--set"];
    args.extend(["ab.baseline=turn-count", "--format", "json"]);
    std::fs::write(&json, scratch.ptc(args).ok()).unwrap();
    let err = merge(&scratch, &[&json], &[]).bad_input();
    assert_eq!(
        err,
        format!(
            "error: {} is not a part of `ptc ab` (write parts with `ptc ab --shard K/N --format partial`)",
            json.display()
        )
    );
    std::fs::write(
        &cut,
        text.replacen("ptc-ab-partial/1", "ptc-ab-partial/2", 1),
    )
    .unwrap();
    let err = merge(&scratch, &[&cut], &[]).bad_input();
    assert!(err.contains("is a part of layout ptc-ab-partial/2; this ptc reads ptc-ab-partial/1"));
    std::fs::write(&cut, b"\xff\xfe\x00garbage").unwrap();
    merge(&scratch, &[&cut], &[]).bad_input();
    let err = merge(&scratch, &[&scratch.path().join("none.json")], &[]).bad_input();
    assert!(err.starts_with("error: cannot read "), "{err}");
    let empty = scratch.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let err = merge(&scratch, &[&empty], &[]).bad_input();
    assert!(err.ends_with("(no .json file)"), "{err}");
}

#[test]
fn a_part_rewritten_with_its_rows_spread_over_lines_is_refused_whatever_the_format() {
    let (scratch, parts) = parts();
    // The same JSON, its rows over two lines each.
    let text = std::fs::read_to_string(&parts[1]).unwrap();
    let rows = text.find("\"runs\": [").unwrap();
    let (head, tail) = text.split_at(rows);
    let tail = tail.replace("{\"position\"", "{\n      \"position\"");
    assert_ne!(tail, &text[rows..], "the part has rows");
    let spread = scratch.path().join("spread.json");
    std::fs::write(&spread, format!("{head}{tail}")).unwrap();
    let value: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&spread).unwrap()).unwrap();
    assert_eq!(
        value,
        serde_json::from_str::<serde_json::Value>(&text).unwrap()
    );
    let p = [parts[0].as_path(), spread.as_path(), parts[2].as_path()];
    // A part is checked whole, its rows included, also where the output prints no row.
    for format in [&[][..], &["--format", "json"], &["--format", "markdown"]] {
        let err = merge(&scratch, &p, format).bad_input();
        assert_eq!(
            err,
            format!(
                "error: part {} does not hold together: runs[0] is not on a line of its own, as `ptc ab --format partial` writes it",
                spread.display()
            ),
            "{format:?}"
        );
    }
}

/// FNV-1a 64, as the README documents the assignment of recordings to shards.
fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[test]
fn a_shard_holds_the_recordings_whose_name_hashes_to_it_and_may_hold_none() {
    let scratch = Scratch::new();
    let err = scratch.ptc(["ab", "--shard", "3/3"]).run_failed();
    assert!(err.contains("`3/3` is not K/N with 0 <= K < N"), "{err}");
    let args = [
        "ab",
        "--strategies",
        "turn-count",
        "--set",
        "ab.baseline=turn-count",
    ];
    let names: Vec<&str> = ptc::examples::EXAMPLES.iter().map(|(n, _)| *n).collect();
    let shard_of = |name: &str, n: u64| fnv1a64(name.as_bytes()) % n;
    let part = |shard: &str| -> serde_json::Value {
        let mut all = args.to_vec();
        all.extend(["--shard", shard, "--format", "partial"]);
        serde_json::from_str(&scratch.ptc(all).ok()).unwrap()
    };
    let three = part("2/7");
    let held: Vec<&str> = three["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["recording"].as_str().unwrap())
        .collect();
    let expected: Vec<String> = names
        .iter()
        .filter(|n| shard_of(n, 7) == 2)
        .map(|n| format!("examples/recordings/{n}"))
        .collect();
    assert!(!expected.is_empty());
    assert_eq!(held, expected);
    assert_eq!(three["sources"], expected.len());
    // A shard with no recording: a table of it is an error, a part is not.
    let empty = (0..50)
        .find(|k| names.iter().all(|n| shard_of(n, 50) != *k))
        .expect("a shard of 50 holding none of the examples");
    let empty = format!("{empty}/50");
    let mut all = args.to_vec();
    all.extend(["--shard", &empty]);
    let err = scratch.ptc(all).bad_input();
    assert!(
        err.contains(&format!(
            "no recording in shard {empty} (none of the {} recordings)",
            names.len()
        )),
        "{err}"
    );
    let none = part(&empty);
    assert_eq!(none["sources"], 0);
    assert_eq!(none["runs"], serde_json::json!([]));
    let mut all = args.to_vec();
    all.extend(["--format", "partial", "--report", "x.html"]);
    let err = scratch.ptc(all).bad_input();
    assert!(
        err.contains("--report is written by `ptc ab merge`"),
        "{err}"
    );
}

/// `ptc ab merge PARTS EXTRA` in `scratch`, which must answer within a minute.
fn merge_in_time(scratch: &Scratch, parts: &[&Path], extra: &[&str]) -> Run {
    let mut args = strings(&["ab", "merge"]);
    args.extend(parts.iter().map(|p| p.display().to_string()));
    args.extend(strings(extra));
    let mut child = start(scratch.path(), &args);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            child.kill().unwrap();
            panic!("`ptc ab merge` did not answer within a minute");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    finished(child.wait_with_output().unwrap())
}

#[test]
fn the_missing_shards_of_a_huge_split_are_counted_not_listed() {
    let scratch = Scratch::new();
    // The shard of a hundred million that holds the first bundled example.
    let count = 100_000_000u64;
    let index = fnv1a64(ptc::examples::EXAMPLES[0].0.as_bytes()) % count;
    let shard = format!("{index}/{count}");
    let mut args = vec!["ab", "--strategies", "turn-count", "--set"];
    args.extend(["ab.baseline=turn-count", "--format", "partial"]);
    args.extend(["--shard", &shard]);
    let part = scratch.write("huge.json", scratch.ptc(&args).ok());
    let first = |count: u64| -> String {
        (0..)
            .filter(|k| *k != index)
            .take(5)
            .map(|k| format!("{k}/{count}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let named = format!("{} and {} more missing", first(count), count - 6);
    let err = merge_in_time(&scratch, &[&part], &[]).bad_input();
    assert_eq!(
        err,
        format!("error: cannot merge: shard {named} (--allow-missing merges the parts given)")
    );
    let run = merge_in_time(&scratch, &[&part], &["--allow-missing"]);
    assert!(
        run.stderr.starts_with(&format!(
            "warning: shard {named}: the results cover 1 of the "
        )),
        "{}",
        run.stderr
    );
    run.ok();
    // A count no split could have: the same, at once.
    let huge = u64::MAX;
    let index = fnv1a64(ptc::examples::EXAMPLES[0].0.as_bytes()) % huge;
    let text = std::fs::read_to_string(&part).unwrap();
    let hostile = scratch.write(
        "hostile.json",
        text.replacen(
            &format!(
                "\"index\": {}",
                fnv1a64(ptc::examples::EXAMPLES[0].0.as_bytes()) % count
            ),
            &format!("\"index\": {index}"),
            1,
        )
        .replacen(
            &format!("\"count\": {count}"),
            &format!("\"count\": {huge}"),
            1,
        ),
    );
    let err = merge_in_time(&scratch, &[&hostile], &[]).bad_input();
    assert!(
        err.ends_with(&format!(
            "4/{huge} and {} more missing (--allow-missing merges the parts given)",
            huge - 6
        )),
        "{err}"
    );
}

/// The part `part` with its text edited by `edit`, written as `name` in the scratch directory.
fn edited(scratch: &Scratch, part: &Path, name: &str, edit: impl Fn(&str) -> String) -> PathBuf {
    let text = std::fs::read_to_string(part).unwrap();
    let new = edit(&text);
    assert_ne!(new, text, "{name}: the edit changes the part");
    scratch.write(name, new)
}

/// Replaces the first occurrence of `field` (a pretty-printed `"name": value` of the sums,
/// found after `after`) with `value`.
fn set(text: &str, after: &str, field: &str, value: &str) -> String {
    let start = text.find(after).unwrap();
    let at = start + text[start..].find(&format!("\"{field}\": ")).unwrap();
    let end = at + text[at..].find([',', '\n']).unwrap();
    format!("{}\"{field}\": {value}{}", &text[..at], &text[end..])
}

#[test]
fn the_merge_refuses_figures_that_cannot_be_naming_the_file_and_the_place() {
    let (scratch, parts) = parts();
    let p: Vec<&Path> = parts.iter().map(PathBuf::as_path).collect();
    let summaries = "\"summaries\": [";
    let refused = |files: &[&Path], extra: &[&str]| merge(&scratch, files, extra).bad_input();
    let inconsistent = |file: &Path, place: &str| {
        format!(
            "error: part {} does not hold together: {place}",
            file.display()
        )
    };

    // Sums that would wrap around.
    let big = edited(&scratch, p[1], "big.json", |t| {
        set(t, summaries, "tokens", "18446744073709551000")
    });
    let err = refused(&[p[0], &big, p[2]], &[]);
    assert!(
        err.starts_with(&inconsistent(&big, "summaries[0].tokens")),
        "{err}"
    );
    // A share above its whole.
    let cached = edited(&scratch, p[1], "cached.json", |t| {
        set(t, summaries, "cached_tokens", "99999999")
    });
    let err = refused(&[p[0], &cached, p[2]], &[]);
    assert!(
        err.starts_with(&inconsistent(&cached, "summaries[0].cached_tokens")),
        "{err}"
    );
    let shown = edited(&scratch, p[2], "shown.json", |t| {
        set(
            &set(t, summaries, "visible", "99999"),
            summaries,
            "total",
            "99998",
        )
    });
    let err = refused(&[p[0], p[1], &shown], &[]);
    assert!(
        err.starts_with(&inconsistent(&shown, "summaries[0].retention.symbols")),
        "{err}"
    );
    // More recordings lacking data than the part holds, or recordings that lack nothing.
    let lacking = edited(&scratch, p[1], "lacking.json", |t| {
        t.replacen(
            "\"lacking\": [\n    {\n      \"recordings\": 0,",
            "\"lacking\": [\n    {\n      \"recordings\": 99999,",
            1,
        )
    });
    let err = refused(&[p[0], &lacking, p[2]], &[]);
    assert!(
        err.starts_with(&inconsistent(&lacking, "lacking[0] does not fit")),
        "{err}"
    );
    let timed = edited(&scratch, p[1], "timed.json", |t| {
        t.replacen(
            "\"timed_recordings\": 0,",
            "\"timed_recordings\": 99999,",
            1,
        )
    });
    let err = refused(&[p[0], &timed, p[2]], &[]);
    assert!(
        err.starts_with(&inconsistent(&timed, "timed_recordings: 99999 of")),
        "{err}"
    );
    // More recordings than the corpus holds.
    let text = std::fs::read_to_string(p[0]).unwrap();
    let sources: usize = text
        .split("\n  \"sources\": ")
        .nth(1)
        .and_then(|rest| rest.split(',').next())
        .unwrap()
        .parse()
        .unwrap();
    let bad: usize = text.matches("\"position\": ").count();
    let many = 30 + bad;
    let more = edited(&scratch, p[0], "more.json", |t| {
        set(
            &set(t, "\"corpus\"", "sources", &many.to_string()),
            "\"fingerprint\"",
            "recordings",
            "30",
        )
    });
    assert!(sources < many);
    let err = refused(&[&more, p[1], p[2]], &[]);
    assert!(
        err.starts_with("error: cannot merge: the parts hold ")
            && err.contains("recordings of a corpus of 35"),
        "{err}"
    );
    // Shards no split has.
    for (name, from, to) in [
        ("k.json", "\"index\": 0,", "\"index\": 3,"),
        ("n.json", "\"count\": 3\n", "\"count\": 0\n"),
    ] {
        let odd = edited(&scratch, p[0], name, |t| t.replacen(from, to, 1));
        let err = refused(&[&odd], &["--allow-missing"]);
        assert!(err.contains("is not K/N with 0 <= K < N"), "{err}");
    }
    // Two pricing profiles of one name, in every part.
    let twice: Vec<PathBuf> = (0..3)
        .map(|k| {
            edited(&scratch, p[k], &format!("twice-{k}.json"), |t| {
                t.replace("\"name\": \"gemini\"", "\"name\": \"openai\"")
            })
        })
        .collect();
    let t: Vec<&Path> = twice.iter().map(PathBuf::as_path).collect();
    let err = refused(&t, &[]);
    assert!(
        err.starts_with(&inconsistent(t[0], "fingerprint.pricing[11].name"))
            && err.contains("`openai`"),
        "{err}"
    );
    // Another version of ptc, in every part.
    let version = env!("CARGO_PKG_VERSION");
    let other: Vec<PathBuf> = (0..3)
        .map(|k| {
            edited(&scratch, p[k], &format!("version-{k}.json"), |t| {
                t.replacen(&format!("\"ptc\": \"{version}\""), "\"ptc\": \"9.9.9\"", 1)
            })
        })
        .collect();
    let o: Vec<&Path> = other.iter().map(PathBuf::as_path).collect();
    let err = refused(&o, &[]);
    assert_eq!(
        err,
        format!(
            "error: {} was written by ptc 9.9.9; this is ptc {version} (merge parts with the ptc that wrote them)",
            o[0].display()
        )
    );
    // Prices no provider asks: infinite, negative, or so large that a cost is infinite.
    for (name, price, place) in [
        ("inf", "1e999", "`fingerprint.pricing[0].input_per_mtok`"),
        (
            "negative",
            "-1.0",
            "`fingerprint.pricing[0].input_per_mtok`",
        ),
    ] {
        let priced: Vec<PathBuf> = (0..3)
            .map(|k| {
                edited(&scratch, p[k], &format!("{name}-{k}.json"), |t| {
                    t.replacen(
                        "\"input_per_mtok\": 3.0",
                        &format!("\"input_per_mtok\": {price}"),
                        1,
                    )
                })
            })
            .collect();
        let x: Vec<&Path> = priced.iter().map(PathBuf::as_path).collect();
        let err = refused(&x, &[]);
        assert!(
            err.starts_with(&format!(
                "error: cannot read part {} at {place}",
                x[0].display()
            )) && err.contains("a finite price of 0 or more"),
            "{err}"
        );
    }
    let priced: Vec<PathBuf> = (0..3)
        .map(|k| {
            edited(&scratch, p[k], &format!("huge-price-{k}.json"), |t| {
                t.replace("\"input_per_mtok\": 3.0", "\"input_per_mtok\": 1e308")
            })
        })
        .collect();
    let x: Vec<&Path> = priced.iter().map(PathBuf::as_path).collect();
    for format in ["table", "csv"] {
        let err = refused(&x, &["--format", format]);
        assert!(
            err.starts_with("error: cannot merge: ") && err.contains("is not a finite number"),
            "{format}: {err}"
        );
    }
}

#[test]
fn the_merge_refuses_rows_that_do_not_match_their_sums_or_their_shard() {
    let (scratch, parts) = parts();
    let p: Vec<&Path> = parts.iter().map(PathBuf::as_path).collect();
    // The rows are checked whatever the output prints: the default tables print none.
    for json in [&["--format", "json"][..], &[]] {
        rows_are_checked(&scratch, &p, json);
    }
}

fn rows_are_checked(scratch: &Scratch, p: &[&Path], json: &[&str]) {
    let rows = |t: &str| -> Vec<String> {
        t.lines()
            .filter(|l| l.starts_with("    {\"position\""))
            .map(|l| l.trim_end_matches(',').to_owned())
            .collect()
    };
    let with_rows = |t: &str, new: &[String]| -> String {
        let start = t.find("  \"runs\": [\n").unwrap() + "  \"runs\": [\n".len();
        format!("{}{}\n  ]\n}}\n", &t[..start], new.join(",\n"))
    };
    let text = std::fs::read_to_string(p[1]).unwrap();
    let mine = rows(&text);
    assert!(mine.len() >= 3, "{} rows", mine.len());
    let inconsistent =
        |file: &Path| format!("error: part {} does not hold together: ", file.display());

    // A row twice.
    let mut twice = mine.clone();
    twice.insert(1, mine[1].clone());
    let file = scratch.write("twice.json", with_rows(&text, &twice));
    let err = merge(scratch, &[p[0], &file, p[2]], json).bad_input();
    assert!(
        err.starts_with(&inconsistent(&file)) && err.contains("runs[2]"),
        "{err}"
    );
    // Rows out of order.
    let mut swapped = mine.clone();
    swapped.swap(0, 1);
    let file = scratch.write("swapped.json", with_rows(&text, &swapped));
    let err = merge(scratch, &[p[0], &file, p[2]], json).bad_input();
    assert!(
        err.starts_with(&inconsistent(&file)) && err.contains("runs[1]"),
        "{err}"
    );
    // A row dropped.
    let mut dropped = mine.clone();
    dropped.remove(1);
    let file = scratch.write("dropped.json", with_rows(&text, &dropped));
    let err = merge(scratch, &[p[0], &file, p[2]], json).bad_input();
    assert!(
        err.starts_with(&inconsistent(&file)) && err.contains("summaries[0]"),
        "{err}"
    );
    // A row of another shard's recording.
    let theirs = rows(&std::fs::read_to_string(p[0]).unwrap());
    let name = |row: &str| -> String {
        let value: serde_json::Value = serde_json::from_str(row).unwrap();
        value["recording"].as_str().unwrap().to_owned()
    };
    let mut moved = mine.clone();
    moved[0] = mine[0].replace(&name(&mine[0]), &name(&theirs[0]));
    let file = scratch.write("moved.json", with_rows(&text, &moved));
    let err = merge(scratch, &[p[0], &file, p[2]], json).bad_input();
    assert!(
        err.starts_with(&inconsistent(&file))
            && err.contains("runs[0].recording")
            && err.contains("shard 0/3, not 1/3"),
        "{err}"
    );
    // Tokens of a row that are not those its sums count.
    let mut more = mine.clone();
    more[0] = mine[0].replacen("\"tokens\":", "\"tokens\":1", 1);
    let file = scratch.write("tokens.json", with_rows(&text, &more));
    let err = merge(scratch, &[p[0], &file, p[2]], json).bad_input();
    assert!(err.starts_with(&inconsistent(&file)), "{err}");
    // The rows as written merge.
    let file = scratch.write("same.json", with_rows(&text, &mine));
    merge(scratch, &[p[0], &file, p[2]], json).ok();
}
