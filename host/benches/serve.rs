//! `ptc serve --stdio` throughput: requests answered per second, each one a whole recording
//! (the 5-turn failure-recovery example) parsed and its prompt rendered, in process.
//!
//! Run: `cargo bench -p ptc-host --bench serve`.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use ptc::{Config, Host};

mod support;

fn serve(c: &mut Criterion) {
    let mut config = Config::defaults();
    config
        .layer_set("templates.directory=\"/nonexistent/ptc-templates\"")
        .unwrap();
    let host = Host::with_strategies(config, support::strategies());
    let (_, json) = ptc::examples::EXAMPLES
        .iter()
        .find(|(name, _)| *name == "failure-recovery.json")
        .unwrap();
    let recording: serde_json::Value = serde_json::from_str(json).unwrap();
    let requests: String = (0..100)
        .map(|i| {
            let mut line = serde_json::to_string(
                &serde_json::json!({"id": i, "recording": recording, "turns": i % 6}),
            )
            .unwrap();
            line.push('\n');
            line
        })
        .collect();
    let mut group = c.benchmark_group("serve");
    group.throughput(Throughput::Elements(100));
    group.bench_function("100_requests", |b| {
        b.iter(|| {
            ptc::serve::serve(
                &host,
                black_box(requests.as_bytes()),
                std::io::sink(),
                ptc::serve::DEFAULT_MAX_REQUEST_BYTES,
            )
            .unwrap()
        })
    });
    group.finish();
}

criterion_group!(benches, serve);
criterion_main!(benches);
