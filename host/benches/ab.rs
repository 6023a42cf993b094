//! `ptc ab` per recording: every prompt of a run rendered through five strategies, tokens
//! counted, caching priced, retention measured (workload W3 of the benchmark plan, one
//! recording at a time; the whole 10,000-recording run is measured with the binary, see the
//! README). Recordings come from the corpus generator's shape: 20 turns.
//!
//! Run: `cargo bench -p ptc-host --bench ab`.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use ptc::{AbPlan, Config, Host, PlanOptions, RunOptions, Source};

/// The sums only; the first recording that cannot be read is the error.
fn strict() -> RunOptions<'static> {
    RunOptions {
        strict: true,
        ..RunOptions::default()
    }
}

mod support;

fn host() -> Host {
    let strategies = support::strategies();
    let mut config = Config::defaults();
    config
        .layer_set("templates.directory=\"/nonexistent/ptc-templates\"")
        .unwrap();
    Host::with_strategies(config, strategies)
}

fn ab(c: &mut Criterion) {
    let host = host();
    let sources: Vec<Source> = ptc::examples::EXAMPLES
        .iter()
        .map(|(name, json)| Source::Embedded { name, json })
        .collect();
    let strategies = "single-user-coalesced,rolling-window,per-turn-summary,observation-masking";
    let prompts: usize = {
        let plan = AbPlan::new(&host, &PlanOptions::strategies(strategies)).unwrap();
        let result = ptc::run_corpus(&host, plan, &sources, strict()).unwrap();
        result.summaries().iter().map(|s| s.prompts).sum()
    };
    let mut group = c.benchmark_group("ab_examples");
    group.sample_size(20);
    group.bench_function(format!("{prompts}_prompts_5_strategies"), |b| {
        b.iter(|| {
            let plan = AbPlan::new(&host, &PlanOptions::strategies(strategies)).unwrap();
            black_box(ptc::run_corpus(&host, plan, black_box(&sources), strict()).unwrap())
        })
    });
    group.finish();
}

criterion_group!(benches, ab);
criterion_main!(benches);
