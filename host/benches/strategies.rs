//! The strategy call of every bundled strategy on long runs, and how delta-log's grows with the
//! number of turns.
//!
//! Run them with `cargo bench -p ptc-host --bench strategies` (a filter such as
//! `-- long_runs_table` or `-- delta_log_turns` runs one part).
//!
//! A strategy call is the strategy's `render(run, turns, options)` through its loaded dylib:
//! the sections with their fields, before any template.
//!
//! # `long_runs_table/rounds` and `long_runs_{lean,realistic}/STRATEGY`
//!
//! The corpus of `cargo run --release -p ptc-host --example generate_corpus -- --count 80
//! --turns 25 --seed 7 --style lean|realistic`, built in memory by the generator's own code:
//! 80 runs of 25 turns whose `user/` namespace grows to about 25 definitions (lists of products
//! and customers, tool results, functions). A sweep calls the strategy for every prompt
//! `ptc ab` renders, the prefixes 0..25 of every run: 2,000 calls.
//!
//! `long_runs_table/rounds` measures 11 rounds, each one sweep per strategy and style one after
//! the other, and prints per strategy and style the median over the rounds of the mean call and
//! of its ratio to single-user-coalesced's in the same round: ratios taken under the same load.
//! `long_runs_{lean,realistic}/STRATEGY` are criterion's figures for one strategy's sweep
//! (divided by 2,000, the mean call).
//!
//! On the 2-core machine of the benchmark plan (µs; ratio to single-user-coalesced in the same
//! round), seed 7 and, to check the figures on runs they were not taken on, seed 41
//! (`PTC_BENCH_SEED=41`):
//!
//! | strategy              | lean µs   | realistic µs | lean ×    | realistic × |
//! |-----------------------|-----------|--------------|-----------|-------------|
//! | single-user-coalesced | 10.0-10.5 | 9.9-10.8     | 1.00      | 1.00        |
//! | aggressive            | 4.9       | 4.8-5.1      | 0.48-0.49 | 0.48-0.49   |
//! | full-history          | 12.0      | 12.2         | 1.20      | 1.22-1.23   |
//! | rolling-window        | 10.6-10.7 | 10.7-11.6    | 1.02-1.07 | 1.07        |
//! | observation-masking   | 11.3      | 11.5-12.3    | 1.12-1.13 | 1.15        |
//! | per-turn-summary      | 18.0-18.3 | 18.0-18.7    | 1.79-1.80 | 1.81-1.82   |
//! | delta-log             | 16.6-16.7 | 16.6-17.3    | 1.64-1.65 | 1.58-1.66   |
//!
//! The strategies of the tool-call transcript, seed 7 only, in one run on a loaded machine
//! (single-user-coalesced took 22.5-22.8 µs there, so only the ratios compare with the table):
//!
//! | strategy              | lean ×    | realistic × |
//! |-----------------------|-----------|-------------|
//! | bounded-transcript    | 1.25      | 1.24        |
//! | clear-tool-results    | 1.38      | 1.39        |
//! | trim                  | 1.01      | 1.06        |
//! | compact               | 1.18      | 1.31        |
//!
//! They format every turn's observation (its value cut at `observation_chars`) in every call;
//! clear-tool-results and compact also size every turn, to find where they act.
//!
//! observation-masking, per-turn-summary and delta-log show what each turn defined or
//! redefined. They read it from `Turn::defined`, which the host finds once per recording; when
//! they compared every turn's whole memory with the one before it, value by value, in every
//! call (about 5,400 values per call on this corpus), they took 2.8-2.9×, 4.3-4.4× and
//! 4.1-4.2×.
//!
//! # `delta_log_{turns,growing}/{strategy,full_text}_{10,100,1000}`
//!
//! One delta-log prompt after 10, 100 and 1,000 turns of a synthetic run ([`synthetic_run`]):
//! the strategy call alone, and the full text through the templates. `turns` keeps a namespace
//! of 9 working names, `growing` adds a definition per turn; the bench prints how many
//! definitions a render reads (`turns`: 18, 178 and 1,778; `growing`: 27, 267 and 2,667). Past the first re-coalescing point the templates render only the head and the
//! recent deltas; finding the points reads every turn's definitions (`Turn::defined`), so the
//! work grows linearly with the turns and, in `growing`, with the definitions. Here the
//! strategy call takes 9.7, 20 and 59 µs for `turns` and 11, 49 and 260 µs for `growing` (it
//! took 13-17 ms for `turns` at 1,000 turns when each render compared the memories).

use std::cell::RefCell;
use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion, SamplingMode, Throughput};
use ptc::{Config, Host, Recording, RecordingDefaults, Renderer};
use serde_json::{json, Value as Json};

#[allow(dead_code)]
#[path = "../examples/generate_corpus.rs"]
mod generate_corpus;
mod support;

use generate_corpus::Style;

/// The long-run corpus: `--count 80 --turns 25 --seed 7` (another seed with
/// `PTC_BENCH_SEED=N`, to check the figures on runs they were not taken on).
const RUNS: usize = 80;
const TURNS: usize = 25;
const SEED: u64 = 7;
/// Rounds of the side-by-side table.
const ROUNDS: usize = 11;
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
        max_recording_bytes: ptc::DEFAULT_MAX_RECORDING_BYTES,
    };
    Recording::parse(json.to_string().as_bytes(), Path::new(name), &defaults)
        .unwrap_or_else(|e| panic!("{name} is invalid: {e}"))
}

/// The generated corpus of one style, parsed.
fn corpus(style: Style) -> Vec<Recording> {
    let seed = std::env::var("PTC_BENCH_SEED")
        .ok()
        .map(|s| s.parse().expect("PTC_BENCH_SEED is a number"))
        .unwrap_or(SEED);
    generate_corpus::corpus(RUNS, TURNS, seed, style)
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

/// Every bundled strategy's name, single-user-coalesced first.
fn strategy_names(host: &Host) -> Vec<String> {
    let mut names: Vec<String> = host
        .plugins()
        .strategies()
        .iter()
        .map(|s| s.name.clone())
        .collect();
    names.sort_by_key(|name| (name != BASELINE, name.clone()));
    assert_eq!(
        names[0], BASELINE,
        "{BASELINE} is built with the benchmarks"
    );
    names
}

/// Each strategy on its own: criterion's figures for a sweep of one style's corpus.
fn long_runs(c: &mut Criterion) {
    let host = host();
    let names = strategy_names(&host);
    for (style, label) in STYLES {
        let corpus = corpus(style);
        let calls: usize = corpus.iter().map(|r| r.turns.len()).sum();
        let mut group = c.benchmark_group(format!("long_runs_{label}"));
        group.sample_size(10);
        group.throughput(Throughput::Elements(calls as u64));
        for name in &names {
            let renderer = host.renderer(Some(name)).expect("a renderer");
            group.bench_function(name.as_str(), |b| b.iter(|| sweep(&renderer, &corpus)));
        }
        group.finish();
    }
}

const STYLES: [(Style, &str); 2] = [(Style::Lean, "lean"), (Style::Realistic, "realistic")];

/// The mean strategy call of every strategy in both styles, side by side: one iteration is a
/// round of one sweep per strategy and style, one after the other, so that every figure of a
/// round is measured under the same load; the table gives, per strategy and style, the median
/// over the rounds of the mean call and of its ratio to single-user-coalesced's in the same
/// round.
fn long_runs_table(c: &mut Criterion) {
    let host = host();
    let names = strategy_names(&host);
    let renderers: Vec<Renderer> = names
        .iter()
        .map(|name| host.renderer(Some(name)).expect("a renderer"))
        .collect();
    // Built on the first call, so that a filter that skips the table never builds it.
    let mut corpora: Option<Vec<Vec<Recording>>> = None;
    // Per round: the mean call in µs per (style, strategy).
    let rounds: RefCell<Vec<Vec<Vec<f64>>>> = RefCell::default();
    let mut group = c.benchmark_group("long_runs_table");
    group.sampling_mode(SamplingMode::Flat);
    group.sample_size(ROUNDS);
    group.warm_up_time(Duration::from_millis(1));
    group.bench_function("rounds", |b| {
        let corpora = corpora.get_or_insert_with(|| STYLES.map(|(s, _)| corpus(s)).to_vec());
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let round: Vec<Vec<f64>> = corpora
                    .iter()
                    .map(|corpus| {
                        let calls: usize = corpus.iter().map(|r| r.turns.len()).sum();
                        renderers
                            .iter()
                            .map(|renderer| {
                                let started = Instant::now();
                                sweep(renderer, corpus);
                                let elapsed = started.elapsed();
                                total += elapsed;
                                elapsed.as_secs_f64() * 1e6 / calls as f64
                            })
                            .collect()
                    })
                    .collect();
                rounds.borrow_mut().push(round);
            }
            total
        })
    });
    group.finish();
    let rounds = rounds.into_inner();
    if rounds.is_empty() {
        return;
    }
    // Criterion's warm-up round comes first.
    let rounds = &rounds[rounds.len().saturating_sub(ROUNDS)..];
    eprintln!(
        "\nmean strategy call, {RUNS} runs x {TURNS} turns, every prefix; median of {} rounds",
        rounds.len()
    );
    eprintln!(
        "{:<22} {:>9} {:>9} {:>9} {:>9}",
        "strategy", "lean µs", "real. µs", "lean/SUC", "real./SUC"
    );
    for (i, name) in names.iter().enumerate() {
        let mean = |style: usize| median(&rounds.iter().map(|r| r[style][i]).collect::<Vec<_>>());
        let ratio = |style: usize| {
            median(
                &rounds
                    .iter()
                    .map(|r| r[style][i] / r[style][0])
                    .collect::<Vec<_>>(),
            )
        };
        eprintln!(
            "{name:<22} {:>9.1} {:>9.1} {:>9.2} {:>9.2}",
            mean(0),
            mean(1),
            ratio(0),
            ratio(1)
        );
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

/// The definitions of all `turns` (`Turn::defined`, found once when the recording was read): what
/// a render reads to find the re-coalescing points and the deltas.
fn definitions(turns: &[ptc_plugin_api::Turn]) -> usize {
    turns.iter().map(|t| t.defined.len()).sum()
}

fn delta_log_turns(c: &mut Criterion) {
    let host = host();
    let renderer = host.renderer(Some("delta-log")).expect("delta-log");
    for (id, growing) in [("delta_log_turns", false), ("delta_log_growing", true)] {
        let mut group = c.benchmark_group(id);
        for turns in [10, 100, 1_000] {
            let recording = parse("synthetic.json", &synthetic_run(turns, growing));
            eprintln!(
                "[bench] {id} at {turns} turns: {} definitions read per render",
                definitions(&recording.turns)
            );
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

criterion_group!(strategies, long_runs_table, long_runs, delta_log_turns);
criterion_main!(strategies);
