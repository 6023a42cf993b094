//! The strategy call of every bundled strategy on long runs, and how delta-log's grows with the
//! number of turns.
//!
//! Run them with `cargo bench -p ptc-host --bench strategies` (a filter such as `-- long_runs`
//! or `-- delta_log_turns` runs one part).
//!
//! A strategy call is the strategy's `render(run, turns, options)` through its loaded dylib:
//! the sections with their fields, before any template.
//!
//! # `long_runs_{lean,realistic}/STRATEGY`
//!
//! The corpus of `cargo run --release -p ptc-host --example generate_corpus -- --count 80
//! --turns 25 --seed 7 --style lean|realistic`, built in memory by the generator's own code:
//! 80 runs of 25 turns whose `user/` namespace grows to about 25 definitions (lists of products
//! and customers, tool results, functions). One iteration calls the strategy for every prompt
//! `ptc ab` renders, the prefixes 0..25 of every run: 2,000 calls. Criterion reports the time
//! of an iteration; divided by 2,000 it is the mean strategy call. At the end the bench prints
//! that mean per strategy and style (the median of the samples) with its ratio to
//! single-user-coalesced's, measured in the same run.
//!
//! # `delta_log_turns/{strategy,full_text}_{10,100,1000}`
//!
//! One delta-log prompt after 10, 100 and 1,000 turns of a synthetic run ([`synthetic_run`]):
//! the strategy call alone, and the full text through the templates. What a render costs must
//! grow at most linearly with the turns before it: 100 turns within about 10× of 10, 1,000
//! within about 10× of 100.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use ptc::{Config, Host, Recording, RecordingDefaults, Renderer};
use serde_json::{json, Value as Json};

#[allow(dead_code)]
#[path = "../examples/generate_corpus.rs"]
mod generate_corpus;
mod support;

use generate_corpus::Style;

/// The long-run corpus: `--count 80 --turns 25 --seed 7`.
const RUNS: usize = 80;
const TURNS: usize = 25;
const SEED: u64 = 7;
const SAMPLES: usize = 10;
const BASELINE: &str = "single-user-coalesced";

/// A host with every bundled strategy, the compiled-in templates whatever the working
/// directory holds.
fn host() -> Host {
    let mut config = Config::defaults();
    for set in [
        "plugins.next_to_executable=false",
        "templates.directory=/nonexistent/ptc-bench-templates",
    ] {
        config.layer_set(set).expect("a valid --set");
    }
    Host::with_strategies(config, support::strategies())
}

fn parse(name: &str, json: &Json) -> Recording {
    let defaults = RecordingDefaults {
        max_turns: 20,
        system_prompt: String::new(),
    };
    Recording::parse(json.to_string().as_bytes(), Path::new(name), &defaults)
        .unwrap_or_else(|e| panic!("{name} is invalid: {e}"))
}

/// The generated corpus of one style, parsed.
fn corpus(style: Style) -> Vec<Recording> {
    generate_corpus::corpus(RUNS, TURNS, SEED, style)
        .iter()
        .map(|(name, json)| parse(name, json))
        .collect()
}

/// Every prompt `ptc ab` renders of every run: the strategy's output for each prefix.
fn sweep(renderer: &Renderer, corpus: &[Recording]) {
    for recording in corpus {
        for k in 0..recording.turns.len() {
            black_box(renderer.output(black_box(recording), k).unwrap());
        }
    }
}

/// The mean strategy call per (style, strategy), in µs: the median of the samples.
type Means = RefCell<BTreeMap<(&'static str, String), Vec<f64>>>;

fn long_runs(c: &mut Criterion, means: &Means) {
    let host = host();
    let names: Vec<String> = host
        .plugins()
        .strategies()
        .iter()
        .map(|s| s.name.clone())
        .collect();
    for (style, label) in [(Style::Lean, "lean"), (Style::Realistic, "realistic")] {
        let corpus = corpus(style);
        let calls: usize = corpus.iter().map(|r| r.turns.len()).sum();
        let mut group = c.benchmark_group(format!("long_runs_{label}"));
        group.sample_size(SAMPLES);
        group.throughput(Throughput::Elements(calls as u64));
        for name in &names {
            let renderer = host.renderer(Some(name)).expect("a renderer");
            group.bench_function(name.as_str(), |b| {
                b.iter_custom(|iters| {
                    let started = Instant::now();
                    for _ in 0..iters {
                        sweep(&renderer, &corpus);
                    }
                    let elapsed = started.elapsed();
                    let per_call = elapsed.as_secs_f64() * 1e6 / (iters as f64 * calls as f64);
                    means
                        .borrow_mut()
                        .entry((label, name.clone()))
                        .or_default()
                        .push(per_call);
                    elapsed
                })
            });
        }
        group.finish();
    }
}

fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    }
}

/// The table of mean strategy calls: the last [`SAMPLES`] figures of each benchmark are its
/// samples (criterion's warm-up calls come first).
fn print_table(means: &Means) {
    let means = means.borrow();
    if means.is_empty() {
        return;
    }
    let mean = |style: &'static str, name: &str| {
        means.get(&(style, name.to_string())).map(|all| {
            let samples = &all[all.len().saturating_sub(SAMPLES)..];
            median(samples)
        })
    };
    let mut names: Vec<&String> = means.keys().map(|(_, name)| name).collect();
    names.sort();
    names.dedup();
    eprintln!(
        "\nmean strategy call, {RUNS} runs x {TURNS} turns (median of {SAMPLES} samples, µs)"
    );
    eprintln!(
        "{:<24} {:>9} {:>9} {:>9} {:>9}",
        "strategy", "lean", "real.", "x SUC", "x SUC"
    );
    let show = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.1}"));
    let ratio = |v: Option<f64>, base: Option<f64>| match (v, base) {
        (Some(v), Some(b)) => format!("{:.2}", v / b),
        _ => "-".to_string(),
    };
    for name in names {
        let (lean, real) = (mean("lean", name), mean("realistic", name));
        eprintln!(
            "{name:<24} {:>9} {:>9} {:>9} {:>9}",
            show(lean),
            show(real),
            ratio(lean, mean("lean", BASELINE)),
            ratio(real, mean("realistic", BASELINE)),
        );
    }
}

// ---------------------------------------------------------------------------------------------
// delta-log over 10, 100 and 1,000 turns
// ---------------------------------------------------------------------------------------------

/// A synthetic run of `turns` turns, the shape of a long agent run: every turn calls a tool,
/// binds its result (a list of 5 maps) to one of 8 working names and redefines a running total;
/// it prints a line on even turns, and every 9th turn fails with an eval error. The `user/`
/// namespace stays at 9 definitions. With `growing`, every successful turn also defines a new
/// small value of its own, so that the namespace grows by one definition per turn (in
/// definition order).
pub fn synthetic_run(turns: usize, growing: bool) -> Json {
    let mut memory = serde_json::Map::new();
    let out: Vec<Json> = (1..=turns)
        .map(|t| {
            let failed = t % 9 == 0;
            let slot = format!("rows-{}", t % 8);
            let result: Vec<Json> = (0..5)
                .map(|i| json!({":id": t * 10 + i, ":name": format!("item {t}-{i}"), ":status": {"$kw": "open"}}))
                .collect();
            let mut program = format!(
                "(def {slot} (tool/search {{:query \"step {t}\" :limit 5}}))\n(def total (+ total (count {slot})))"
            );
            if growing {
                program += &format!("\n(def step-{t:04} {t})");
            }
            let prints: Vec<String> = if t % 2 == 0 {
                vec![format!("step {t} found 5 rows")]
            } else {
                Vec::new()
            };
            let mut turn = json!({
                "number": t,
                "raw_response": format!("Step {t}: the next page of results.\n\n```clojure\n{program}\n```"),
                "program": program,
                "success": !failed,
                "prints": prints,
                "tool_calls": [{"name": "search", "args": {":query": format!("step {t}"), ":limit": 5}, "result": result}],
            });
            if failed {
                turn["result"] = Json::Null;
                turn["error"] = json!({"reason": "eval_error", "message": format!("undefined symbol: rows-{t}x")});
            } else {
                memory.insert(slot, Json::Array(result));
                memory.insert("total".into(), json!(t * 5));
                if growing {
                    memory.insert(format!("step-{t:04}"), json!(t));
                }
                turn["result"] = json!(t * 5);
            }
            turn["memory"] = Json::Object(memory.clone());
            turn
        })
        .collect();
    json!({
        "mission": "Page through the search results and keep a running total of the open items.",
        "system_prompt": "You are a PTC-Lisp agent.",
        "max_turns": turns + 5,
        "tools": [{"name": "search", "signature": "(query :string, limit :int) -> [{id :int, name :string}]", "description": "Full-text search."}],
        "data": {"limit": 5},
        "turns": out,
    })
}

fn delta_log_turns(c: &mut Criterion) {
    let host = host();
    let renderer = host.renderer(Some("delta-log")).expect("delta-log");
    for (id, growing) in [("delta_log_turns", false), ("delta_log_growing", true)] {
        let mut group = c.benchmark_group(id);
        for turns in [10, 100, 1_000] {
            let recording = parse("synthetic.json", &synthetic_run(turns, growing));
            group.measurement_time(Duration::from_secs(if turns >= 1_000 { 10 } else { 5 }));
            group.bench_function(format!("strategy_{turns}"), |b| {
                b.iter(|| black_box(renderer.output(black_box(&recording), turns).unwrap()))
            });
            group.bench_function(format!("full_text_{turns}"), |b| {
                b.iter(|| black_box(renderer.render(black_box(&recording), turns).unwrap()))
            });
        }
        group.finish();
    }
}

fn benches(c: &mut Criterion) {
    let means = Means::default();
    long_runs(c, &means);
    print_table(&means);
    delta_log_turns(c);
}

criterion_group!(strategies, benches);
criterion_main!(strategies);
