//! `ptc import --replay`: a Kernel run's memory recomputed by replaying its PTC-Lisp programs,
//! recorded only when every turn replays exactly.

use serde_json::Value as Json;

use crate::support::{all_strategies, repo, Scratch};

fn kernel() -> String {
    repo()
        .join("tests/fixtures/realruns/ptc_runner-kernel/checkout-5xx-9.inspection.jsonl")
        .display()
        .to_string()
}

fn lacks(recording: &Json) -> Vec<&str> {
    recording["lacks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect()
}

/// The names a program defines at its top level (`(def name` or `(defn name`).
fn defined(program: &str) -> Vec<String> {
    program
        .split("(def")
        .skip(1)
        .filter_map(|rest| {
            let rest = rest
                .strip_prefix("n-")
                .or(rest.strip_prefix('n'))
                .unwrap_or(rest);
            rest.strip_prefix(' ')?
                .split(|c: char| c.is_whitespace() || c == ')')
                .next()
                .map(str::to_owned)
        })
        .collect()
}

#[test]
fn a_run_that_replays_exactly_records_the_memory_of_each_turn() {
    let scratch = Scratch::new();
    let run = scratch.ptc(["import", "--replay", &kernel()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let recording: Json = serde_json::from_str(&run.stdout).unwrap();
    assert!(
        !lacks(&recording).contains(&"memory_values"),
        "{:?}",
        lacks(&recording)
    );
    let turns = recording["turns"].as_array().unwrap();
    let mut checked = 0;
    for turn in turns {
        let Some(program) = turn["program"].as_str() else {
            continue;
        };
        let memory = turn["memory"]
            .as_object()
            .expect("a program's turn has memory");
        for name in defined(program) {
            if turn["success"] != false {
                assert!(memory.contains_key(&name), "{name} after {program}");
                checked += 1;
            }
        }
    }
    assert!(checked > 3, "{checked}");
    let last = turns
        .iter()
        .rev()
        .find(|t| t["program"].is_string())
        .unwrap();
    assert!(
        last["memory"]["records"].is_array() || !last["memory"].as_object().unwrap().is_empty()
    );
}

#[test]
fn without_replay_the_recording_still_lacks_memory() {
    let scratch = Scratch::new();
    let run = scratch.ptc(["import", &kernel()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let recording: Json = serde_json::from_str(&run.stdout).unwrap();
    assert!(lacks(&recording).contains(&"memory_values"));
}

/// `ptc ab` on the log as it is judges no strategy (no memory): its "not judged" list says how
/// to record the memory; on the run imported with `--replay` the strategies are judged and the
/// hint is gone.
#[test]
fn not_judged_for_lack_of_memory_says_how_to_replay() {
    let scratch = Scratch::new();
    let hint = "`ptc import --replay` records it for ptc_runner Kernel runs";
    let ab = |path: &str| {
        let run = all_strategies().ptc([
            "ab",
            path,
            "--strategies",
            "single-user-coalesced",
            "--no-timing",
        ]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        run.stdout
    };
    let raw = ab(&kernel());
    let not_judged = raw.split("not judged (").nth(1).expect(&raw);
    assert!(not_judged.contains("lack memory_values"), "{raw}");
    assert!(not_judged.contains(hint), "{raw}");
    let run = scratch.ptc(["import", "--replay", &kernel()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let file = scratch.write("replayed.json", &run.stdout);
    let replayed = ab(&file.display().to_string());
    assert!(
        !replayed.contains("not judged (") && !replayed.contains(hint),
        "{replayed}"
    );
}

/// A log whose observation disagrees with what the programs do: the turn does not verify, and
/// the run keeps its recorded data with no memory (nothing invented).
#[test]
fn a_run_with_a_turn_that_does_not_verify_records_no_memory() {
    let text = std::fs::read_to_string(kernel()).unwrap();
    // The first observation the agent was sent (a prelude's source holds `user=> ` too).
    let opening = r#"source=\"evaluation\">"#;
    let at = text.find(opening).expect("an observation") + opening.len();
    // Every copy of the first observation (each later request sends it again) now says more.
    let end = at + text[at..].find("</untrusted_ptc_output>").unwrap();
    let body = &text[at..end];
    let tampered = text.replace(body, &format!("{body} and more"));
    let scratch = Scratch::new();
    let log = scratch.write("tampered.inspection.jsonl", tampered);
    let run = scratch.ptc(["import", "--replay", &log.display().to_string()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let recording: Json = serde_json::from_str(&run.stdout).unwrap();
    assert!(lacks(&recording).contains(&"memory_values"));
    for turn in recording["turns"].as_array().unwrap() {
        assert!(
            turn["memory"].as_object().is_none_or(|m| m.is_empty()),
            "{}",
            turn["memory"]
        );
    }
}

/// A turn whose replay reproduced the observation gets the program's value and every printed
/// line, where the observation was cut: it no longer lacks them, and `ptc ab` judges the
/// strategies built on prints and memory on the run, with figures (not `n/a`).
#[test]
fn a_replayed_run_holds_each_turns_value_and_prints_and_is_judged() {
    let log = kernel();
    let scratch = Scratch::new();
    let plain = scratch.ptc(["import", &log]);
    assert_eq!(plain.code, 0, "{}", plain.stderr);
    let plain: Json = serde_json::from_str(&plain.stdout).unwrap();
    let turn_lacks = |r: &Json, kind: &str| {
        r["turns"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| {
                t["lacks"]
                    .as_array()
                    .is_some_and(|l| l.iter().any(|l| l == kind))
            })
            .count()
    };
    // Without the replay, cut observations leave turns without their value or prints.
    assert!(turn_lacks(&plain, "results") > 0 && turn_lacks(&plain, "prints") > 0);
    let run = scratch.ptc(["import", "--replay", &log]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let replayed: Json = serde_json::from_str(&run.stdout).unwrap();
    assert!(
        turn_lacks(&replayed, "results") < turn_lacks(&plain, "results"),
        "{}",
        run.stdout
    );
    assert!(turn_lacks(&replayed, "prints") < turn_lacks(&plain, "prints"));
    let lacks = lacks(&replayed);
    assert!(
        !lacks.contains(&"memory_values") && !lacks.contains(&"prints"),
        "{lacks:?}"
    );
    // Every value and print kept is the replay's where the observation held it whole.
    for (p, r) in plain["turns"]
        .as_array()
        .unwrap()
        .iter()
        .zip(replayed["turns"].as_array().unwrap())
    {
        if p["lacks"].is_null() && p["success"] == true && p["result"].is_object() {
            assert_eq!(p["result"], r["result"]);
            assert_eq!(p["prints"], r["prints"]);
        }
    }
    let file = scratch.write("replayed.json", &run.stdout);
    let ab = all_strategies().ptc([
        "ab",
        &file.display().to_string(),
        "--strategies",
        "full-history,delta-log,single-user-coalesced",
        "--no-timing",
        "--format",
        "json",
    ]);
    assert_eq!(ab.code, 0, "{}", ab.stderr);
    let doc: Json = serde_json::from_str(&ab.stdout).unwrap();
    for strategy in doc["strategies"].as_array().unwrap() {
        assert_eq!(strategy["judged_recordings"], 1, "{strategy}");
    }
}
