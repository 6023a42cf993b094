//! The program lines of the differential check: a recorded run's programs in order, sharing
//! memory, their capability calls answered from the recording.

use ptc_lisp::differential::{program_lines, Runner};
use ptc_lisp::replay::{RecordedCall, RecordedRun, RecordedTurn};
use ptc_lisp::Budget;
use serde_json::json;

fn turn(id: &str, source: &str, calls: Vec<RecordedCall>) -> RecordedTurn {
    RecordedTurn {
        evaluation_id: id.into(),
        source: source.into(),
        calls,
        observation: None,
    }
}

fn run_lines(run: &RecordedRun) -> Vec<serde_json::Value> {
    let mut runner = Runner::default();
    program_lines("r", run)
        .iter()
        .map(|l| runner.eval_line(l, Budget::default()).unwrap())
        .collect()
}

#[test]
fn a_runs_programs_share_memory_and_get_the_recorded_answers() {
    let run = RecordedRun {
        preludes: vec![(
            "ev".into(),
            "(ns ev)\n(defn value-of [r] (get r :value))".into(),
        )],
        turns: vec![
            turn(
                "e1",
                "(def rec (ev/value-of (tool/evidence.get {\"id\" \"a\"}))) (println (get rec \"title\")) 7",
                vec![RecordedCall {
                    name: "evidence.get".into(),
                    arguments: json!({"id": "a"}),
                    result: json!({"status": "ok", "value": {"title": "Disk full"}}),
                }],
            ),
            turn("e2", "(def broken (/ 1 nil))", vec![]),
            turn("e3", "[(get rec \"title\") *1 (tool/evidence.get {\"id\" \"b\"})]", vec![]),
        ],
        host_programs: 0,
    };
    let out = run_lines(&run);
    assert_eq!(out[0]["status"], "ok");
    assert_eq!(out[0]["value"], "7");
    assert_eq!(out[0]["prints"], json!(["Disk full"]));
    assert_eq!(
        out[0]["calls"],
        json!([{"name": "evidence.get", "arguments": {"id": "a"}}])
    );
    assert_eq!(out[1]["status"], "error");
    // The failed program left memory as it was; `*1` is the first program's value, and a call
    // the recording does not hold is answered with an error value, on both sides alike.
    assert_eq!(
        out[2]["value"],
        r#"["Disk full" 7 {:reason "not recorded" :status :error}]"#
    );
}

#[test]
fn a_prelude_is_no_programs_value() {
    let run = RecordedRun {
        preludes: vec![("p".into(), "(ns p)\n(def limit 5)\n42".into())],
        turns: vec![turn("e1", "*1", vec![])],
        host_programs: 0,
    };
    assert_eq!(run_lines(&run)[0]["value"], "nil");
}

#[test]
fn a_line_without_a_program_is_refused() {
    let e = Runner::default()
        .eval_line(&json!({"id": "x"}), Budget::default())
        .unwrap_err();
    assert!(e.contains("program"), "{e}");
}
