//! `ptc ab` on whole corpora, as a user runs it: each iteration is the `ptc` binary over the
//! corpus, process start, the tokenizer's tables, the imports and the comparison with the bill
//! included.
//!
//! - W3: 10,000 generated runs of 20 turns (the corpus generator, `--seed 7`), five
//!   strategies. The corpus is `$PTC_W3_CORPUS` when set, else it is generated once into
//!   `target/w3-corpus` with the example `generate_corpus` (built by `cargo bench`).
//! - W5: real agents' logs, every loaded strategy (no `--strategies`), read as they are (imported as they are listed)
//!   and priced by the profile their usage names: the logs in `$PTC_W5_LOGS` (a directory;
//!   W5 is the 320 public mini-swe-agent trajectories of DeepSeek runs, fetched as the
//!   manual's performance page says, less the five with no response of the model, which
//!   `ptc ab` refuses). Skipped, saying so, when it is not set: no real logs of that size are
//!   in the repository.
//!
//! - W3's reading alone: its first 100 recordings read (`Recording::parse`) in this process,
//!   one after the other, from their bytes in memory: the share of W3 that reading takes, apart
//!   from process start and the disk.
//!
//! Run: `PTC_W5_LOGS=DIR cargo bench -p ptc-host --bench scale` (`-- w3` or `-- w5` for one);
//! the directories may be relative to where cargo is started.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};

const PTC: &str = env!("CARGO_BIN_EXE_ptc");

/// The four strategies of W3 (the baseline, full-history, is added).
const W3_STRATEGIES: &str =
    "single-user-coalesced,rolling-window,per-turn-summary,observation-masking";

fn ptc(args: &[&str]) {
    let out = Command::new(PTC).args(args).output().expect("ptc runs");
    assert!(
        out.status.success(),
        "ptc {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The directory an environment variable names. Cargo runs a benchmark from its package's
/// directory: a relative path is taken from where cargo was started (`$PWD`), as the user
/// wrote it.
fn given_dir(variable: &str) -> Option<PathBuf> {
    let dir = PathBuf::from(std::env::var_os(variable)?);
    if dir.is_absolute() {
        return Some(dir);
    }
    let started = std::env::var_os("PWD")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join(".."));
    Some(started.join(dir))
}

/// The W3 corpus: `$PTC_W3_CORPUS`, else generated once beside the build.
fn w3_corpus() -> Option<PathBuf> {
    if let Some(dir) = given_dir("PTC_W3_CORPUS") {
        return Some(dir);
    }
    let exe = std::env::current_exe().ok()?;
    let release = exe.parent()?.parent()?.to_owned();
    let corpus = release.join("../w3-corpus");
    if corpus.join("done").is_file() {
        return Some(corpus);
    }
    let generator = release
        .join("examples")
        .join(format!("generate_corpus{}", std::env::consts::EXE_SUFFIX));
    if !generator.is_file() {
        eprintln!(
            "w3 skipped: no corpus ($PTC_W3_CORPUS) and no generator at {} (`cargo build --release -p ptc-host --examples`)",
            generator.display()
        );
        return None;
    }
    let status = Command::new(&generator)
        .args(["--count", "10000", "--turns", "20", "--seed", "7", "--out"])
        .arg(&corpus)
        .status()
        .expect("the generator runs");
    assert!(status.success(), "the generator failed");
    std::fs::write(corpus.join("done"), "").unwrap();
    Some(corpus)
}

fn whole_commands(c: &mut Criterion) {
    let mut group = c.benchmark_group("scale");
    // Each iteration takes seconds: the fewest samples criterion takes.
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(1));
    if let Some(corpus) = w3_corpus() {
        let corpus = corpus.display().to_string();
        group.bench_function("w3_ab_10000_generated_runs_5_strategies", |b| {
            b.iter(|| ptc(&["ab", &corpus, "--strategies", W3_STRATEGIES, "--no-timing"]))
        });
    }
    match given_dir("PTC_W5_LOGS") {
        Some(logs) if logs.is_dir() => {
            let logs = logs.to_string_lossy().into_owned();
            let runs = std::fs::read_dir(&logs).map_or(0, |d| d.count());
            group.bench_function(format!("w5_ab_{runs}_real_logs_every_strategy"), |b| {
                b.iter(|| ptc(&["ab", &logs, "--no-timing"]))
            });
        }
        _ => eprintln!(
            "w5 skipped: set PTC_W5_LOGS to a directory of real agents' logs (a few hundred mini-swe-agent trajectories, say)"
        ),
    }
    group.finish();
}

/// The first 100 recordings of the W3 corpus, read from their bytes.
fn w3_reading(c: &mut Criterion) {
    let Some(corpus) = w3_corpus() else {
        return;
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(&corpus)
        .expect("the corpus is a directory")
        .map(|entry| entry.expect("the corpus lists").path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files.truncate(100);
    let texts: Vec<(PathBuf, Vec<u8>)> = files
        .into_iter()
        .map(|path| {
            let bytes = std::fs::read(&path).expect("a recording reads");
            (path, bytes)
        })
        .collect();
    let defaults = ptc::RecordingDefaults {
        max_turns: 20,
        system_prompt: String::new(),
        max_recording_bytes: ptc::DEFAULT_MAX_RECORDING_BYTES,
    };
    let mut group = c.benchmark_group("scale");
    group.sample_size(20);
    group.bench_function(format!("w3_read_{}_recordings", texts.len()), |b| {
        b.iter(|| {
            for (path, bytes) in &texts {
                let recording = ptc::Recording::parse(bytes, path, &defaults);
                std::hint::black_box(recording.expect("a W3 recording reads"));
            }
        })
    });
    group.finish();
}

criterion_group!(benches, whole_commands, w3_reading);
criterion_main!(benches);
