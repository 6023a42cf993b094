//! Rendering benchmarks: workloads W1 (one agent run, every prefix, through the loaded dylib)
//! and W2 (the dylib against the strategy linked in).
//!
//! Run them with `cargo bench -p ptc-host` (add e.g. `-- --warm-up-time 1 --measurement-time 3`
//! for a quick pass, or a filter such as `-- w1_sweep`).
//!
//! # W1: one agent run, `single-user-coalesced`, every prefix
//!
//! A recording built in memory (see [`w1_recording`]): 20 turns, turn 10 failed with an eval
//! error, the others succeeded. Every turn makes 2 tool calls (`search {:query "...", :limit 5}`
//! and `list-orders {:customer_id 42, :status :open, :limit 5}`, each returning a list of 5 maps)
//! and prints 2 lines of 80 characters. Memory (the whole user namespace after the turn) grows by
//! one definition per successful turn, cycling through an integer, a 200-character string, a list
//! of 50 maps with 4 keyword keys, and a function with a docstring and a return type; the failed
//! turn keeps the memory of the turn before it. 3 tools with signatures. `data/` holds `items`, a
//! list of N maps with 5 keyword keys (N = 1,000 unless said otherwise), and `notes`, a
//! 2,000-character string. Mission about 110 characters, system prompt about 2.4 KB.
//!
//! Reference figures (ptc_runner's own SingleUserCoalesced, Elixir 1.14 / OTP 25 JIT, same
//! machine type), at N = 1,000: median **426 µs per render**, **9.6 ms per sweep** (a sweep is
//! the 20 renders of prefixes 1..=20). Its cost grows with the size of `data/`:
//!
//! | items in data         | per render |
//! |-----------------------|------------|
//! | list of 10            | 218 µs     |
//! | list of 1,000         | 426 µs     |
//! | list of 100,000       | 61.5 ms    |
//! | list of 1,000,000     | 788 ms     |
//! | map of 1,000 keys     | 1.0 ms     |
//! | map of 1,000,000 keys | 3.57 s     |
//!
//! Targets: at least 20× faster per render at N = 1,000 through the loaded dylib (50× is the
//! goal), and a render at N = 1,000,000 within 2× of one at N = 1,000.
//!
//! # W2: dispatch overhead
//!
//! W1 through the loaded dylib against the same strategy crate linked into this benchmark:
//! target ratio dylib / direct <= 1.05.
//!
//! # Benchmarks
//!
//! | id | what one iteration does |
//! |----|-------------------------|
//! | `w1_sweep/dylib` | `Renderer::render(k)` for k in 1..=20 (strategy + templates -> text), strategy loaded from the `.so` |
//! | `w1_sweep/linked_module` | the same through the host's `Renderer`, with the root module of the statically linked crate (same `extern "C"` call path, no `dlopen`) |
//! | `w1_sweep/direct` | `SingleUserCoalesced::render` called as a Rust trait method (no ABI shim, no panic guard), then the same templates via `Renderer::messages` |
//! | `w1_strategy_only/{dylib,linked_module,direct}` | the same sweep without templates: the strategy's `Output` only |
//! | `w1_per_render/{dylib,direct}` | one full-text render at k = 20 |
//! | `w1_data_size/{list_10,...,map_1000000}` | one full-text render at k = 20 through the dylib, `data/items` of the given shape and size |
//!
//! `PTC_BENCH_W2_ROUNDS=R cargo bench -p ptc-host --bench render` measures W2 alone, the dylib
//! and the direct call in turn for R rounds, and prints the median ratio: on a shared machine
//! it holds where criterion's groups, run one after the other, do not.
//!
//! Recordings are parsed once, outside the timed loops (parsing a million items takes a few
//! seconds); the big data-size recordings are built only when their benchmark runs and dropped
//! right after it.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use criterion::{criterion_group, Criterion};

/// The allocator of the `ptc` binary, so that the host's share is measured as it runs there.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
use ptc::{Config, Host, LoadedStrategy, Recording, RecordingDefaults, RenderedMessage, Renderer};
use ptc_plugin_api::Strategy;
use ptc_strategy_single_user_coalesced::SingleUserCoalesced;
use serde_json::{json, Value as Json};

/// Turns in the W1 run; also its `max_turns`, so the last prompt shows the final-turn warning.
const W1_TURNS: usize = 20;
/// The W1 turn that fails (1-based).
const W1_FAILED_TURN: usize = 10;
/// `data/items` size of the default W1 workload.
const W1_ITEMS: usize = 1_000;
const STRATEGY: &str = "single-user-coalesced";

// ---------------------------------------------------------------------------------------------
// The W1 recording
// ---------------------------------------------------------------------------------------------

/// The shape of `data/items`.
#[derive(Clone, Copy, Debug)]
enum Items {
    /// A list of N maps with 5 keyword keys.
    List(usize),
    /// A map of N keyword keys, each to a small map with 2 keyword keys.
    Map(usize),
}

/// `text` repeated and cut to exactly `len` characters (ASCII).
fn filler(text: &str, len: usize) -> String {
    text.chars().cycle().take(len).collect()
}

/// The JSON text of `data/items`, written directly: a `serde_json::Value` of a million maps
/// would cost far more memory than the recording itself.
fn items_json(items: Items) -> String {
    use std::fmt::Write;
    const STATUSES: [&str; 3] = ["open", "shipped", "cancelled"];
    const REGIONS: [&str; 4] = ["north", "south", "east", "west"];
    let mut out = String::new();
    match items {
        Items::List(n) => {
            out.reserve(n * 110);
            out.push('[');
            for i in 0..n {
                if i > 0 {
                    out.push(',');
                }
                write!(
                    out,
                    r#"{{":id":{i},":name":"item-{i:07}",":status":{{"$kw":"{}"}},":amount":{}.{:02},":region":"{}"}}"#,
                    STATUSES[i % 3],
                    10 + i % 990,
                    i % 100,
                    REGIONS[i % 4],
                )
                .unwrap();
            }
            out.push(']');
        }
        Items::Map(n) => {
            out.reserve(n * 60);
            out.push('{');
            for i in 0..n {
                if i > 0 {
                    out.push(',');
                }
                write!(
                    out,
                    r#"":k{i:07}":{{":id":{i},":status":{{"$kw":"{}"}}}}"#,
                    STATUSES[i % 3],
                )
                .unwrap();
            }
            out.push('}');
        }
    }
    out
}

/// The result of one tool call: a list of 5 maps.
fn tool_result(turn: usize, tool: &str) -> Json {
    let rows: Vec<Json> = (0..5)
        .map(|i| {
            let id = turn * 100 + i;
            match tool {
                "search" => json!({
                    ":id": id,
                    ":title": format!("Result {i} for query {turn}"),
                    ":score": 0.5 + i as f64 / 10.0,
                }),
                _ => json!({
                    ":id": id,
                    ":amount": 100.25 + i as f64,
                    ":status": {"$kw": "open"},
                }),
            }
        })
        .collect();
    Json::Array(rows)
}

/// The definition added to memory by the `j`-th successful turn (0-based), cycling through an
/// integer, a 200-character string, a list of 50 maps with 4 keyword keys, and a function.
fn definition(j: usize) -> (String, Json) {
    match j % 4 {
        0 => (format!("open-count-{j}"), json!(1_000 + j)),
        1 => (
            format!("summary-{j}"),
            json!(filler(
                &format!("Summary {j}: customers with open orders above the threshold. "),
                200
            )),
        ),
        2 => {
            let rows: Vec<Json> = (0..50)
                .map(|i| {
                    json!({
                        ":id": j * 1_000 + i,
                        ":customer": format!("customer-{i}"),
                        ":amount": 12.5 + i as f64,
                        ":status": {"$kw": if i % 2 == 0 { "open" } else { "shipped" }},
                    })
                })
                .collect();
            (format!("orders-{j}"), Json::Array(rows))
        }
        _ => (
            format!("score-{j}"),
            json!({"$fn": {
                "params": ["order", "weight"],
                "doc": "Scores an order by amount and age.\nHigher is more urgent; never negative.",
                "return_type": "integer",
            }}),
        ),
    }
}

/// The W1 recording as JSON text, with `data/items` of the given shape.
fn w1_json(items: Items) -> String {
    const PLACEHOLDER: &str = "\"@@ITEMS@@\"";
    let mut memory = serde_json::Map::new();
    let mut defined = 0;
    let turns: Vec<Json> = (1..=W1_TURNS)
        .map(|t| {
            let failed = t == W1_FAILED_TURN;
            let program = format!(
                "(def found (tool/search {{:query \"open orders {t}\" :limit 5}}))\n\
                 (def orders (tool/list-orders {{:customer_id 42 :status :open :limit 5}}))\n\
                 (println (count found))\n(println (count orders))"
            );
            let raw_response = format!(
                "Turn {t}: I look up matching items and the open orders of customer 42.\n\n```clojure\n{program}\n```"
            );
            let prints: Vec<String> = (0..2)
                .map(|p| filler(&format!("turn {t:02} print {p}: found 5 items and 5 open orders; "), 80))
                .collect();
            let tool_calls = json!([
                {
                    "name": "search",
                    "args": {":query": format!("open orders {t}"), ":limit": 5},
                    "result": tool_result(t, "search"),
                },
                {
                    "name": "list-orders",
                    "args": {":customer_id": 42, ":status": {"$kw": "open"}, ":limit": 5},
                    "result": tool_result(t, "list-orders"),
                },
            ]);
            let mut turn = json!({
                "number": t,
                "raw_response": raw_response,
                "program": program,
                "success": !failed,
                "prints": prints,
                "tool_calls": tool_calls,
            });
            if failed {
                turn["result"] = Json::Null;
                turn["error"] = json!({
                    "reason": "eval_error",
                    "message": "Undefined symbol: ordrs (did you mean orders?) in (count ordrs)",
                });
            } else {
                let (name, value) = definition(defined);
                defined += 1;
                memory.insert(name, value);
                turn["result"] = json!(t * 5);
            }
            // The whole user namespace after the turn; a failed turn keeps the previous one.
            turn["memory"] = Json::Object(memory.clone());
            turn
        })
        .collect();
    let recording = json!({
        "mission": "Find customers with open orders above 100.0 in data/items, check each with the tools, and report the totals.",
        "system_prompt": filler(
            "You are a PTC-Lisp agent. Write one program per turn in a ```clojure block; call tools as (tool/name {:arg value}); \
             define values with def and functions with defn; print what you need to see with println. ",
            2_400,
        ),
        "max_turns": W1_TURNS,
        "tools": [
            {
                "name": "search",
                "signature": "(query :string, limit :int) -> [{id :int, title :string, score :float}]",
                "description": "Full-text search over the catalogue.",
            },
            {
                "name": "list-orders",
                "signature": "(customer_id :int, status :keyword, limit :int) -> [{id :int, amount :float}]",
                "description": "The orders of a customer with the given status, newest first.",
            },
            {
                "name": "get-customer",
                "signature": "(id :int) -> {id :int, name :string, tier :keyword}",
                "description": "A customer's profile.",
            },
        ],
        "data": {
            "items": "@@ITEMS@@",
            "notes": filler("Notes from the account team: priority customers first, never email twice. ", 2_000),
        },
        "turns": turns,
    });
    recording
        .to_string()
        .replacen(PLACEHOLDER, &items_json(items), 1)
}

/// The W1 recording, parsed and checked by the host, without a key ([`ptc_plugin_api::Run::key`]):
/// every render reads the run's tools and data again, as the first prompt of a run does, instead
/// of taking what an earlier render of the same run kept. W1 measures a render, not a cache.
fn w1_recording(items: Items) -> Recording {
    let text = w1_json(items);
    let defaults = RecordingDefaults {
        max_turns: W1_TURNS as u32,
        system_prompt: String::new(),
        max_recording_bytes: ptc::DEFAULT_MAX_RECORDING_BYTES,
    };
    let mut recording = Recording::parse(text.as_bytes(), Path::new("w1.json"), &defaults)
        .unwrap_or_else(|e| panic!("the W1 recording is invalid: {e}"));
    assert_eq!(recording.turns.len(), W1_TURNS);
    recording.run.key = 0;
    recording
}

// ---------------------------------------------------------------------------------------------
// Strategies and hosts
// ---------------------------------------------------------------------------------------------

/// The strategy dylib cargo built beside this benchmark (`target/<profile>/deps`, where the
/// `ptc-strategy-single-user-coalesced` dev-dependency's cdylib lands), the newest if several.
fn strategy_dylib() -> PathBuf {
    let exe = std::env::current_exe().expect("the benchmark's own path");
    let deps = exe.parent().expect("the benchmark's directory");
    let prefix = format!(
        "{}ptc_strategy_single_user_coalesced",
        std::env::consts::DLL_PREFIX
    );
    let suffix = std::env::consts::DLL_SUFFIX;
    // deps/ first, then target/<profile>/ for a layout where it sits one level up.
    let dirs = [
        deps.to_path_buf(),
        deps.parent().unwrap_or(deps).to_path_buf(),
    ];
    let newest = dirs
        .iter()
        .filter_map(|dir| std::fs::read_dir(dir).ok())
        .flatten()
        .filter_map(Result::ok)
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.starts_with(&prefix) && name.ends_with(suffix)
        })
        .map(|e| {
            let modified = e
                .metadata()
                .and_then(|m| m.modified())
                .unwrap_or(SystemTime::UNIX_EPOCH);
            (modified, e.path())
        })
        .max_by_key(|(modified, _)| *modified);
    match newest {
        Some((_, path)) => path,
        None => panic!(
            "no {prefix}*{suffix} in {}: build the benchmark with `cargo bench -p ptc-host`",
            deps.display()
        ),
    }
}

/// The configuration every benchmark uses: the built-in defaults (plugins are handed to the
/// host, not discovered), with a template directory that does not exist so that the compiled-in
/// templates are used whatever the working directory holds.
fn config() -> Config {
    let mut config = Config::defaults();
    for set in [
        "plugins.next_to_executable=false",
        "templates.directory=/nonexistent/ptc-bench-templates",
    ] {
        config.layer_set(set).expect("a valid --set");
    }
    config
}

/// A host holding the strategy loaded from the dylib.
fn dylib_host() -> Host {
    let path = strategy_dylib();
    let strategy = LoadedStrategy::load(&path)
        .unwrap_or_else(|e| panic!("cannot load {}: {e}", path.display()));
    eprintln!("[bench] strategy dylib: {}", strategy.file.display());
    Host::with_strategies(config(), vec![strategy])
}

/// A host holding the root module of the strategy crate linked into this benchmark.
fn linked_host() -> Host {
    let module = ptc_strategy_single_user_coalesced::ptc_strategy_root_module();
    let strategy = LoadedStrategy::from_module(module, "linked".into()).expect("the linked module");
    Host::with_strategies(config(), vec![strategy])
}

fn renderer(host: &Host) -> Renderer<'_> {
    host.renderer(Some(STRATEGY))
        .expect("a renderer for the strategy")
}

/// The purest direct path: the strategy as a Rust trait call, then the host's templates.
fn render_direct(renderer: &Renderer, recording: &Recording, k: usize) -> Vec<RenderedMessage> {
    let output =
        SingleUserCoalesced::render(&recording.run, &recording.turns[..k], renderer.options())
            .expect("the strategy renders");
    renderer.messages(&output).expect("the templates render")
}

/// Checks once, outside any timing, that the three paths produce the same text for every prefix,
/// and prints the size of the last prompt.
fn check_paths_agree(dylib: &Renderer, linked: &Renderer, recording: &Recording) {
    for k in 1..=W1_TURNS {
        let via_dylib = dylib.render(recording, k).expect("dylib render").messages;
        let via_linked = linked.render(recording, k).expect("linked render").messages;
        let direct = render_direct(dylib, recording, k);
        assert_eq!(
            via_dylib, via_linked,
            "dylib and linked module differ at k = {k}"
        );
        assert_eq!(via_dylib, direct, "dylib and direct call differ at k = {k}");
    }
    let last = dylib.render(recording, W1_TURNS).expect("render");
    let chars: usize = last.messages.iter().map(|m| m.content.len()).sum();
    eprintln!(
        "[bench] W1 prompt at k = {W1_TURNS}: {} messages, {chars} bytes",
        last.messages.len()
    );
    // PTC_BENCH_SHOW=1 prints that prompt, to see what is being measured.
    if std::env::var_os("PTC_BENCH_SHOW").is_some() {
        for message in &last.messages {
            eprintln!("[{}]\n{}\n", message.role.as_str(), message.content);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Benchmarks
// ---------------------------------------------------------------------------------------------

/// W1 and W2 at N = 1,000: sweeps (full text and strategy only) and single renders.
fn w1(c: &mut Criterion) {
    let recording = w1_recording(Items::List(W1_ITEMS));
    let dylib_host = dylib_host();
    let linked_host = linked_host();
    let dylib = renderer(&dylib_host);
    let linked = renderer(&linked_host);
    check_paths_agree(&dylib, &linked, &recording);
    let options = dylib.options().clone();

    // One sweep = the prompt for every prefix 1..=20, as text (strategy + templates).
    // Reference: 9.6 ms per sweep.
    let mut group = c.benchmark_group("w1_sweep");
    group.bench_function("dylib", |b| {
        b.iter(|| {
            for k in 1..=W1_TURNS {
                black_box(dylib.render(black_box(&recording), k).unwrap());
            }
        })
    });
    group.bench_function("linked_module", |b| {
        b.iter(|| {
            for k in 1..=W1_TURNS {
                black_box(linked.render(black_box(&recording), k).unwrap());
            }
        })
    });
    group.bench_function("direct", |b| {
        b.iter(|| {
            for k in 1..=W1_TURNS {
                black_box(render_direct(&dylib, black_box(&recording), k));
            }
        })
    });
    group.finish();

    // The same sweep, strategy only (its Output, no templates): the rest of `w1_sweep` is the
    // template share.
    let mut group = c.benchmark_group("w1_strategy_only");
    group.bench_function("dylib", |b| {
        b.iter(|| {
            for k in 1..=W1_TURNS {
                black_box(dylib.output(black_box(&recording), k).unwrap());
            }
        })
    });
    group.bench_function("linked_module", |b| {
        b.iter(|| {
            for k in 1..=W1_TURNS {
                black_box(linked.output(black_box(&recording), k).unwrap());
            }
        })
    });
    group.bench_function("direct", |b| {
        b.iter(|| {
            for k in 1..=W1_TURNS {
                let turns = &black_box(&recording).turns[..k];
                black_box(SingleUserCoalesced::render(&recording.run, turns, &options).unwrap());
            }
        })
    });
    group.finish();

    // One full-text render of the last prompt (k = 20). Reference: 426 µs per render.
    let mut group = c.benchmark_group("w1_per_render");
    group.bench_function("dylib", |b| {
        b.iter(|| black_box(dylib.render(black_box(&recording), W1_TURNS).unwrap()))
    });
    group.bench_function("direct", |b| {
        b.iter(|| black_box(render_direct(&dylib, black_box(&recording), W1_TURNS)))
    });
    group.finish();
}

/// W1 at k = 20 through the dylib with `data/items` of growing size. Only three items are
/// shown, so the cost should not grow with N (target: N = 1,000,000 within 2× of N = 1,000).
/// Reference per render: list_10 218 µs, list_1000 426 µs, list_100000 61.5 ms,
/// list_1000000 788 ms, map_1000 1.0 ms, map_1000000 3.57 s.
fn w1_data_size(c: &mut Criterion) {
    let host = dylib_host();
    let renderer = renderer(&host);
    let cases = [
        ("list_10", Items::List(10)),
        ("list_1000", Items::List(1_000)),
        ("list_100000", Items::List(100_000)),
        ("list_1000000", Items::List(1_000_000)),
        ("map_1000", Items::Map(1_000)),
        ("map_1000000", Items::Map(1_000_000)),
    ];
    let mut group = c.benchmark_group("w1_data_size");
    for (id, items) in cases {
        let big = matches!(items, Items::List(n) | Items::Map(n) if n >= 100_000);
        group.sample_size(if big { 10 } else { 100 });
        // Built on the benchmark's first call, so a filter that skips it never builds it, and
        // dropped when the benchmark is done.
        let mut recording: Option<Recording> = None;
        group.bench_function(id, |b| {
            let recording = recording.get_or_insert_with(|| {
                let started = std::time::Instant::now();
                let recording = w1_recording(items);
                eprintln!("[bench] built {id} in {:.2?}", started.elapsed());
                recording
            });
            b.iter(|| black_box(renderer.render(black_box(&*recording), W1_TURNS).unwrap()))
        });
        drop(recording);
    }
    group.finish();
}

criterion_group!(benches, w1, w1_data_size);

/// W2 on a machine others use: the dylib and the direct call in turn, round after round (the
/// order swapped every round), so that a change of the machine's speed falls on both. Prints
/// each side's median time per render and per sweep and the median of the rounds' ratios, with
/// their quartiles.
fn w2_interleaved(rounds: usize) {
    use std::time::Instant;
    let recording = w1_recording(Items::List(W1_ITEMS));
    let host = dylib_host();
    let dylib = renderer(&host);
    let linked = linked_host();
    check_paths_agree(&dylib, &renderer(&linked), &recording);
    const RENDERS: usize = 200;
    const SWEEPS: usize = 10;
    let time = |f: &dyn Fn()| {
        let start = Instant::now();
        f();
        start.elapsed().as_secs_f64()
    };
    let one_dylib = || {
        for _ in 0..RENDERS {
            black_box(dylib.render(black_box(&recording), W1_TURNS).unwrap());
        }
    };
    let one_direct = || {
        for _ in 0..RENDERS {
            black_box(render_direct(&dylib, black_box(&recording), W1_TURNS));
        }
    };
    let sweep_dylib = || {
        for _ in 0..SWEEPS {
            for k in 1..=W1_TURNS {
                black_box(dylib.render(black_box(&recording), k).unwrap());
            }
        }
    };
    let sweep_direct = || {
        for _ in 0..SWEEPS {
            for k in 1..=W1_TURNS {
                black_box(render_direct(&dylib, black_box(&recording), k));
            }
        }
    };
    /// A measure's name, its dylib and direct closures, and how many times each runs.
    type Pair<'a> = (&'a str, &'a dyn Fn(), &'a dyn Fn(), usize);
    let pairs: [Pair; 2] = [
        ("render", &one_dylib, &one_direct, RENDERS),
        ("sweep", &sweep_dylib, &sweep_direct, SWEEPS),
    ];
    for (what, a, b, per) in pairs {
        let (mut ta, mut tb, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
        for round in 0..rounds {
            let (x, y) = if round % 2 == 0 {
                (time(a), time(b))
            } else {
                let y = time(b);
                (time(a), y)
            };
            ta.push(x / per as f64);
            tb.push(y / per as f64);
            ratios.push(x / y);
        }
        let q = |v: &mut Vec<f64>, at: f64| {
            v.sort_by(f64::total_cmp);
            v[((v.len() - 1) as f64 * at).round() as usize]
        };
        println!(
            "w2 per {what}: dylib {:.2} us, direct {:.2} us (medians of {rounds} rounds); dylib/direct {:.3} (quartiles {:.3}-{:.3})",
            q(&mut ta, 0.5) * 1e6,
            q(&mut tb, 0.5) * 1e6,
            q(&mut ratios, 0.5),
            q(&mut ratios, 0.25),
            q(&mut ratios, 0.75),
        );
    }
}

/// `PTC_BENCH_RENDERS=N` renders W1's last prompt N times through the dylib and exits, instead
/// of running the benchmarks: with `perf stat -e instructions:u` (or callgrind) at two values
/// of N, the difference gives the instructions per render, a figure that other work on a shared
/// machine does not disturb. `PTC_BENCH_TURNS=K` renders the prompt after K turns instead (1 to
/// 20: a sweep renders each once). `PTC_BENCH_DIRECT=1` calls the strategy as a Rust function
/// instead (W2's direct path), for the instructions the dylib adds.
fn main() {
    if let Some(rounds) = std::env::var("PTC_BENCH_W2_ROUNDS")
        .ok()
        .and_then(|n| n.parse::<usize>().ok())
    {
        w2_interleaved(rounds.max(1));
        return;
    }
    if let Some(count) = std::env::var("PTC_BENCH_RENDERS")
        .ok()
        .and_then(|n| n.parse::<usize>().ok())
    {
        let recording = w1_recording(Items::List(W1_ITEMS));
        let host = dylib_host();
        let renderer = renderer(&host);
        let turns = std::env::var("PTC_BENCH_TURNS")
            .ok()
            .and_then(|k| k.parse::<usize>().ok())
            .unwrap_or(W1_TURNS)
            .min(W1_TURNS);
        if std::env::var_os("PTC_BENCH_DIRECT").is_some() {
            for _ in 0..count {
                black_box(render_direct(&renderer, black_box(&recording), turns));
            }
        } else {
            for _ in 0..count {
                black_box(renderer.render(black_box(&recording), turns).unwrap());
            }
        }
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
