//! What the benchmarks share: the strategy dylibs `cargo bench` built next to them.

use ptc::LoadedStrategy;

/// Every bundled strategy built beside the benchmark executable (the test-only one left out).
pub fn strategies() -> Vec<LoadedStrategy> {
    let deps = std::env::current_exe()
        .unwrap()
        .parent()
        .unwrap()
        .to_owned();
    let mut files: Vec<_> = std::fs::read_dir(&deps)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            name.starts_with("libptc_strategy_")
                && name.ends_with(std::env::consts::DLL_SUFFIX)
                && !name.contains("turn_count")
        })
        .collect();
    files.sort();
    let strategies: Vec<LoadedStrategy> = files
        .iter()
        .filter_map(|p| LoadedStrategy::load(p).ok())
        .collect();
    assert!(
        strategies.len() >= 5,
        "build with `cargo bench -p ptc-host`"
    );
    strategies
}
