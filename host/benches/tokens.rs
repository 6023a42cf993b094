//! Token counting is the hottest loop of `ptc ab`: bpe-openai (what ptc uses) against
//! tiktoken-rs, both o200k_base, on the prompts the bundled examples produce through every
//! strategy (the text `ptc ab` actually counts). Both must agree on every count.
//!
//! Run: `cargo bench -p ptc-host --bench tokens`.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use ptc::{Config, Host, Recording};

mod support;

/// Every message text of every prompt of the bundled examples, through every strategy found
/// next to this benchmark.
fn corpus() -> Vec<String> {
    let strategies = support::strategies();
    let names: Vec<String> = strategies.iter().map(|s| s.name.clone()).collect();
    let host = Host::with_strategies(Config::defaults(), strategies);
    let defaults = host.recording_defaults().unwrap();
    let mut texts = Vec::new();
    for (file, json) in ptc::examples::EXAMPLES {
        let recording = Recording::parse(json.as_bytes(), file.as_ref(), &defaults).unwrap();
        for name in &names {
            let renderer = host.renderer(Some(name)).unwrap();
            for k in 0..recording.turns.len() {
                for m in renderer.render(&recording, k).unwrap().messages {
                    texts.push(m.content.to_string());
                }
            }
        }
    }
    texts
}

fn tokens(c: &mut Criterion) {
    let texts = corpus();
    let bytes: usize = texts.iter().map(String::len).sum();
    let bpe = bpe_openai::o200k_base();
    let tiktoken = tiktoken_rs::o200k_base_singleton();
    for text in &texts {
        assert_eq!(
            bpe.count(text.as_str()),
            tiktoken.encode_ordinary(text).len(),
            "counts differ"
        );
    }
    let mut group = c.benchmark_group("count_o200k");
    group.throughput(Throughput::Bytes(bytes as u64));
    group.sample_size(20);
    group.bench_function("bpe_openai", |b| {
        b.iter(|| {
            texts
                .iter()
                .map(|t| bpe.count(black_box(t.as_str())))
                .sum::<usize>()
        })
    });
    group.bench_function("tiktoken_rs", |b| {
        b.iter(|| {
            texts
                .iter()
                .map(|t| tiktoken.encode_ordinary(black_box(t)).len())
                .sum::<usize>()
        })
    });
    group.finish();
}

criterion_group!(benches, tokens);
criterion_main!(benches);
