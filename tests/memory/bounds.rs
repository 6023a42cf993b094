//! Memory and time bounded by the input: a run whose requests repeat each other (`repeats`)
//! is held in the memory of what the file holds, not of every request expanded, by every
//! command that reads it; and checking a recording takes time linear in its tools and calls.

use serde_json::{json, Value as Json};

use crate::support::Scratch;
#[cfg(target_os = "linux")]
use crate::support::{peak_rss_kib, ptc_command, STRATEGIES};

/// A run of `turns` short turns whose requests each send the previous one's messages again,
/// then an assistant and a user message: request k sends 2k + 1 messages, the file holds 2
/// per turn. Each turn carries billed usage, so `ptc bill` compares every call.
fn appending_run(turns: usize) -> Json {
    let turns: Vec<Json> = (0..turns)
        .map(|k| {
            let request = if k == 0 {
                json!({"model": "m", "messages": [{"role": "user", "content": "start"}]})
            } else {
                json!({"model": "m", "repeats": 2 * k - 1, "messages": [
                    {"role": "assistant", "content": format!("a{k}")},
                    {"role": "user", "content": format!("u{k}")}]})
            };
            json!({"number": k + 1, "success": true, "raw_response": format!("r{k}"),
                "request": request,
                "usage": {"input": 10 + k, "output": 1, "provider": "anthropic",
                    "model": "claude-sonnet-4-5"}})
        })
        .collect();
    json!({"mission": "m", "max_turns": turns.len(), "turns": turns})
}

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

/// A run whose requests send more messages in all than one run may (4,000,000, each request
/// counting again those it repeats: 2,001 turns of `appending_run` send 2,001², the 2,000
/// before the last exactly the limit) is refused by `ab` and `serve` before it is measured,
/// naming the turn; the server answers the next request.
#[test]
fn a_run_that_sends_more_messages_than_the_limit_is_refused_by_ab_and_serve() {
    use std::io::Write;
    let scratch = Scratch::new();
    let run = appending_run(2_001);
    let file = scratch.write("long.json", serde_json::to_vec(&run).unwrap());
    let started = std::time::Instant::now();
    let refused = scratch.ptc([
        "ab",
        file.to_str().unwrap(),
        "--strategies",
        "as-sent",
        "--set",
        "ab.baseline=as-sent",
    ]);
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert_eq!(refused.stdout, "");
    let cause = "at `turns[2000].request`: the requests up to this turn send 4004001 messages in all (each counting again those it repeats), over the limit of 4000000 one run may send to be measured";
    let skipped = format!(
        "warning: skipping recording {0}: invalid recording {0}: {cause}",
        file.display()
    );
    assert!(
        refused.stderr.lines().any(|l| l == skipped),
        "{}",
        refused.stderr
    );
    assert!(refused
        .stderr
        .ends_with("error: none of the 1 recording(s) could be read (see the warnings above)\n"));
    assert!(started.elapsed().as_secs() < 60, "refused before measuring");

    let line =
        |id: u32, run: &Json| format!("{}\n", json!({"id": id, "recording": run, "turns": 1}));
    let mut child = crate::support::ptc_command(scratch.path())
        .args(["serve", "--stdio"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all((line(1, &run) + &line(2, &appending_run(3))).as_bytes())
        .unwrap();
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    let answers: Vec<Json> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(answers.len(), 2, "{answers:?}");
    assert_eq!(
        answers[0]["error"]["code"], "bad_recording",
        "{}",
        answers[0]
    );
    assert!(
        answers[0]["error"]["message"]
            .as_str()
            .unwrap()
            .ends_with(cause),
        "{}",
        answers[0]
    );
    assert!(answers[1].get("error").is_none(), "{}", answers[1]);
}
