//! W4 of the benchmark plan: real runs in. Every log of the real runs is imported with the
//! `ptc` binary, a format at a time (criterion reports the throughput in MiB of log per
//! second), then `ptc ab` runs every strategy on the imported runs against what the agents
//! sent, and `ptc bill` sets the simulation beside the bill. Each iteration is a whole command,
//! process start and tokenizer tables included: what a user waits for.
//!
//! The logs: `$PTC_REALRUNS` when set, else `../shared/realruns` beside the repository when it
//! is there, else the repository's own `tests/fixtures/realruns` (a part of them).
//!
//! Run: `cargo bench -p ptc-host --bench import`.

use std::path::{Path, PathBuf};
use std::process::Command;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};

const PTC: &str = env!("CARGO_BIN_EXE_ptc");

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_owned()
}

fn realruns() -> PathBuf {
    if let Some(dir) = std::env::var_os("PTC_REALRUNS") {
        return dir.into();
    }
    let shared = repo().join("../shared/realruns");
    if shared.is_dir() {
        return shared;
    }
    repo().join("tests/fixtures/realruns")
}

/// The logs of one format in `dir`: the files whose names end with one of `suffixes`.
fn logs(dir: &Path, suffixes: &[&str]) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| {
                    let name = p.file_name().unwrap().to_string_lossy().into_owned();
                    suffixes.iter().any(|s| name.ends_with(s)) && !name.starts_with("derived-")
                })
                .collect()
        })
        .unwrap_or_default();
    found.sort();
    found
}

fn ptc(args: &[&str]) {
    let out = Command::new(PTC)
        .args(args)
        .current_dir(repo())
        .output()
        .expect("ptc runs");
    assert!(
        out.status.success(),
        "ptc {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn import(c: &mut Criterion) {
    let root = realruns();
    eprintln!("[bench] real runs from {}", root.display());
    let scratch = std::env::temp_dir().join(format!("ptc-bench-import-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap();
    let formats: [(&str, &str, &[&str]); 6] = [
        (
            "ptc-runner-kernel",
            "ptc_runner-kernel",
            &[".inspection.jsonl"],
        ),
        ("mini-swe-agent", "mini-swe-agent", &[".traj.json"]),
        ("atif", "atif", &[".json"]),
        ("claude-code", "claude-code", &[".jsonl"]),
        ("openhands", "openhands", &[".json", ".jsonl"]),
        ("codex", "codex", &[".jsonl"]),
    ];
    let mut group = c.benchmark_group("w4_import");
    group.sample_size(10);
    let mut imported = Vec::new();
    for (format, dir, suffixes) in formats {
        let files = logs(&root.join(dir), suffixes);
        if files.is_empty() {
            continue;
        }
        let bytes: u64 = files
            .iter()
            .map(|f| std::fs::metadata(f).unwrap().len())
            .sum();
        let out = scratch.join(format!("{format}.jsonl"));
        // A log the format's reader refuses (an example without its version) is left out.
        let mut args: Vec<String> = vec![
            "import".into(),
            "--skip-unreadable".into(),
            "--from".into(),
            format.into(),
        ];
        args.extend(files.iter().map(|f| f.display().to_string()));
        args.extend(["-o".into(), out.display().to_string(), "--force".into()]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        ptc(&args);
        imported.push(out.display().to_string());
        group.throughput(Throughput::Bytes(bytes));
        group.bench_function(
            format!("{format}_{}_logs_{}_KiB", files.len(), bytes >> 10),
            |b| b.iter(|| ptc(&args)),
        );
    }
    group.finish();

    // Every strategy on every imported run, against what was sent; then the bill.
    let strategies = "as-sent,full-history,single-user-coalesced,rolling-window,per-turn-summary,observation-masking,delta-log,aggressive,bounded-transcript,clear-tool-results,trim,compact";
    let config = repo().join("ptc.toml").display().to_string();
    let mut ab: Vec<&str> = vec!["ab"];
    ab.extend(imported.iter().map(String::as_str));
    ab.extend([
        "--strategies",
        strategies,
        "--set",
        "ab.baseline=as-sent",
        "--no-timing",
        "--config",
        &config,
    ]);
    let billed: Vec<&str> = imported
        .iter()
        .map(String::as_str)
        .filter(|f| f.contains("kernel") || f.contains("mini-swe"))
        .collect();
    let mut bill: Vec<&str> = vec!["bill"];
    bill.extend(&billed);
    bill.extend(["--config", &config]);
    let mut group = c.benchmark_group("w4_ab");
    group.sample_size(10);
    group.bench_function("every_strategy_on_the_imports", |b| b.iter(|| ptc(&ab)));
    group.bench_function("bill_of_the_billed_imports", |b| b.iter(|| ptc(&bill)));
    group.finish();
    let _ = std::fs::remove_dir_all(&scratch);
}

criterion_group!(benches, import);
criterion_main!(benches);
