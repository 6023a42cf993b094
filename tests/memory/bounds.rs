//! Memory and time bounded by the input: a run whose requests repeat each other (`repeats`)
//! is held in the memory of what the file holds, not of every request expanded, by every
//! command that reads it; and checking a recording takes time linear in its tools and calls.

use serde_json::{json, Value as Json};

use crate::support::{appending_run, Scratch};
#[cfg(target_os = "linux")]
use crate::support::{peak_rss_kib, ptc_command, STRATEGIES};

/// The most any command may take on the runs below, in KiB: a bound linear in the file (a
/// little over a megabyte), well under what holding every request expanded took (2 GB for
/// 4,000 turns, 275 MB for 1,000).
#[cfg(target_os = "linux")]
const BOUND_KIB: i64 = 200 << 10;

#[cfg(target_os = "linux")]
#[test]
fn a_run_whose_requests_repeat_each_other_takes_memory_linear_in_its_file() {
    let crates: Vec<&str> = STRATEGIES
        .iter()
        .filter(|(name, _)| ["full-history", "single-user-coalesced"].contains(name))
        .map(|(_, krate)| *krate)
        .collect();
    let scratch = Scratch::with_plugins(&crates);
    let long = scratch.write(
        "long.json",
        serde_json::to_vec(&appending_run(4_000)).unwrap(),
    );
    let long = long.display().to_string();
    // `ab` renders every prompt of both variants, in time that grows with the messages of
    // every request: a shorter run, still one that took more than the bound before.
    let shorter = scratch.write(
        "shorter.json",
        serde_json::to_vec(&appending_run(1_000)).unwrap(),
    );
    let shorter = shorter.display().to_string();
    let commands: [&[&str]; 5] = [
        &["validate", &long],
        &["render", &long, "--turns", "1"],
        &["trace", &long],
        &["bill", &long],
        &["ab", &shorter, "--strategies", "as-sent,full-history"],
    ];
    for args in commands {
        let (kib, code) = peak_rss_kib(ptc_command(scratch.path()).args(args));
        assert_eq!(code, 0, "ptc {args:?}");
        assert!(
            kib < BOUND_KIB,
            "ptc {args:?} took {kib} KiB, over {BOUND_KIB}"
        );
    }
}

#[test]
fn a_recording_of_many_tools_and_calls_is_checked_in_linear_time() {
    let scratch = Scratch::new();
    // Names of the same length that differ only at their end, so that comparing two takes
    // as long as it can; every call names a tool not declared (a warning each) and every
    // tool has an unknown field (an error each), so every lookup is made.
    let n = 40_000;
    let name = |i: usize| format!("n{}{i:06}", "a".repeat(200));
    let tools: Vec<Json> = (0..n).map(|i| json!({"name": name(i), "x": 1})).collect();
    let calls: Vec<Json> = (0..n).map(|i| json!({"name": name(n + i)})).collect();
    let recording = json!({"mission": "m", "tools": tools,
        "turns": [{"number": 1, "success": true, "tool_calls": calls}]});
    let path = scratch.write("many.json", serde_json::to_vec(&recording).unwrap());
    let start = std::time::Instant::now();
    let run = scratch.ptc(["validate", &path.display().to_string()]);
    let took = start.elapsed();
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(
        run.stdout
            .matches("which the recording's tools do not declare")
            .count(),
        n
    );
    // Seconds here; a lookup scanning every tool took minutes.
    assert!(took.as_secs() < 10, "validate took {took:?}");
}
