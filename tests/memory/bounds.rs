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
    // `ab` renders every prompt of both variants: a run of 4,000 such turns sends more
    // messages in all than one run may (it is refused, in the memory it read), a shorter one
    // is measured.
    let shorter = scratch.write(
        "shorter.json",
        serde_json::to_vec(&appending_run(1_000)).unwrap(),
    );
    let shorter = shorter.display().to_string();
    // `serve` renders one prompt per request: the last prompt of the long run, as sent and
    // through a strategy, is answered within the bound, and so is the next request.
    let recording = std::fs::read_to_string(&long).unwrap();
    let requests: String = ["as-sent", "full-history", "as-sent"]
        .iter()
        .enumerate()
        .map(|(id, strategy)| {
            format!(
                "{{\"id\": {id}, \"strategy\": \"{strategy}\", \"turns\": 3999, \"recording\": {recording}}}\n"
            )
        })
        .collect();
    let requests = scratch.write("requests.jsonl", requests);
    let commands: [(&[&str], i32); 7] = [
        (&["validate", &long], 0),
        (&["render", &long, "--turns", "1"], 0),
        (&["trace", &long], 0),
        (&["bill", &long], 0),
        (&["ab", &long, "--strategies", "as-sent,full-history"], 0),
        (&["ab", &shorter, "--strategies", "as-sent,full-history"], 0),
        (&["serve", "--stdio"], 0),
    ];
    let input = || std::fs::File::open(&requests).unwrap();
    for (args, expected) in commands {
        let mut command = ptc_command(scratch.path());
        command.args(args).stdin(input());
        let (kib, code) = peak_rss_kib(&mut command);
        assert_eq!(code, expected, "ptc {args:?}");
        assert!(
            kib < BOUND_KIB,
            "ptc {args:?} took {kib} KiB, over {BOUND_KIB}"
        );
    }
    let served = ptc_command(scratch.path())
        .args(["serve", "--stdio"])
        .stdin(input())
        .output()
        .unwrap();
    let answers: Vec<Json> = String::from_utf8(served.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let codes: Vec<&str> = answers
        .iter()
        .map(|a| a["error"]["code"].as_str().unwrap_or("none"))
        .collect();
    assert_eq!(codes, ["none", "none", "none"], "{answers:?}");
    assert_eq!(answers[0]["messages"].as_array().map(Vec::len), Some(7_999));
    assert!(answers[0]["messages"] == answers[2]["messages"]);
    // The full history: the recorded turns, the last of them the 4,000th.
    let full = answers[1]["messages"].to_string();
    assert!(full.contains("r3998"), "{}", &full[full.len() - 300..]);
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
