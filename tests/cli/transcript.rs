//! The strategies of the tool-call transcript (`bounded-transcript`, `clear-tool-results`,
//! `trim`, `compact`) on a small run, each prompt written out by hand from the rules their
//! READMEs state, with where each puts its cache breakpoints.

use ptc::{Host, Recording, RecordingDefaults};
use serde_json::json;

use crate::support::in_process_host;

/// Three turns: the first prints `a` and calls `search`, the second fails, the third returns a
/// string of 12 characters as printed. The second response is 300 characters long, so that
/// only the prompts after it pass a small trigger.
fn recording() -> Recording {
    let json = json!({
        "mission": "Count.",
        "system_prompt": "S.",
        "max_turns": 4,
        "turns": [
            {"number": 1, "raw_response": "one", "program": "(one)", "success": true,
             "result": 1, "prints": ["a"],
             "tool_calls": [{"name": "search", "args": {":q": "x"}, "result": [1]}],
             "memory": {"x": 1}},
            {"number": 2, "raw_response": long_response(), "program": "(two)", "success": false,
             "error": {"reason": "eval_error", "message": "boom"}, "prints": [],
             "tool_calls": [], "memory": {"x": 1}},
            {"number": 3, "raw_response": "three", "program": "(three)", "success": true,
             "result": "abcdefghij", "prints": [], "tool_calls": [], "memory": {"x": 1, "y": 2}},
        ],
    });
    let defaults = RecordingDefaults {
        max_turns: 5,
        system_prompt: "S.".into(),
        max_recording_bytes: ptc::DEFAULT_MAX_RECORDING_BYTES,
    };
    Recording::parse(
        &serde_json::to_vec(&json).unwrap(),
        "small.json".as_ref(),
        &defaults,
    )
    .expect("a valid recording")
}

fn long_response() -> String {
    format!("two {}", "x".repeat(296))
}

/// The prompt after `k` turns: each message as `role: text`, and the texts of the blocks with a
/// breakpoint.
fn prompt(host: &Host, strategy: &str, k: usize) -> (Vec<String>, Vec<String>) {
    let rendered = host
        .renderer(Some(strategy))
        .unwrap()
        .render(&recording(), k)
        .unwrap();
    let messages = rendered
        .messages
        .iter()
        .map(|m| format!("{}: {}", m.role.as_str(), m.content))
        .collect();
    let marks = rendered
        .messages
        .iter()
        .flat_map(|m| m.block_texts())
        .filter(|(_, mark)| *mark)
        .map(|(text, _)| text.to_owned())
        .collect();
    (messages, marks)
}

const FIRST: &str = "user: Count.\n\nTurns left: 4";
// The responses do not hold their programs (a model calling tools): each shows what it ran.
const TURN_1: [&str; 2] = [
    "assistant: one\nRan (search):\n(one)",
    "user: user=> 1\nprintln:\na\nTurn 2 of 4",
];
const TURN_3: [&str; 2] = [
    "assistant: three\nRan:\n(three)",
    "user: user=> \"abcdefghij\"\nTurn 4 of 4",
];

fn turn_2() -> [String; 2] {
    [
        format!("assistant: {}\nRan:\n(two)", long_response()),
        "user: Error: boom\nTurn 3 of 4".into(),
    ]
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

#[test]
fn bounded_transcript_caps_each_observation_and_appends() {
    let host = in_process_host(&["strategies.bounded-transcript.observation_chars=8"]);
    let (messages, marks) = prompt(&host, "bounded-transcript", 3);
    let [response_2, _] = turn_2();
    // `"abcdefghij"` is 12 characters: 8 shown, 4 left out.
    let expected = strings(&[
        "system: S.",
        FIRST,
        TURN_1[0],
        TURN_1[1],
        &response_2,
        "user: Error: boom\nTurn 3 of 4",
        TURN_3[0],
        "user: user=> \"abcdefg\n... (4 more characters of this observation left out)\nTurn 4 of 4",
    ]);
    assert_eq!(messages, expected);
    assert_eq!(marks, [expected[7].trim_start_matches("user: ")]);
}

#[test]
fn clear_tool_results_clears_all_but_the_kept_observations_past_the_trigger() {
    let host = in_process_host(&[
        "strategies.clear-tool-results.trigger_tokens=0",
        "strategies.clear-tool-results.keep_tool_uses=1",
    ]);
    let (messages, marks) = prompt(&host, "clear-tool-results", 3);
    let [response_2, _] = turn_2();
    assert_eq!(
        messages,
        strings(&[
            "system: S.",
            FIRST,
            TURN_1[0],
            "user: [output of turn 1 cleared to save context]\nTurn 2 of 4",
            &response_2,
            "user: [error of turn 2 cleared to save context]\nTurn 3 of 4",
            TURN_3[0],
            TURN_3[1],
        ])
    );
    // The next prompt clears turn 3's observation: the breakpoint is on its response.
    assert_eq!(marks, [TURN_3[0].trim_start_matches("assistant: ")]);
    // Below the trigger (the default) it is the transcript.
    let (messages, marks) = prompt(&in_process_host(&[]), "clear-tool-results", 3);
    assert_eq!(
        messages,
        prompt(&in_process_host(&[]), "bounded-transcript", 3).0
    );
    assert_eq!(marks, [TURN_3[1].trim_start_matches("user: ")]);
}

#[test]
fn trim_keeps_the_first_message_and_the_last_turns() {
    let host = in_process_host(&["strategies.trim.keep_turns=1"]);
    let (messages, marks) = prompt(&host, "trim", 3);
    assert_eq!(
        messages,
        strings(&[
            "system: S.",
            "user: Count.\n\nTurns left: 4\n\n[turns 1-2 were left out to save context]",
            TURN_3[0],
            TURN_3[1],
        ])
    );
    // Only the system prompt and the first block of the first message are repeated.
    assert_eq!(marks, ["Count.\n\nTurns left: 4"]);
    let (messages, _) = prompt(&host, "trim", 2);
    assert_eq!(
        messages[1],
        "user: Count.\n\nTurns left: 4\n\n[turn 1 was left out to save context]"
    );
}

/// The sizes compact estimates (characters / 4 of what it hands its templates): the system
/// prompt and mission, 8 characters; turn 1, 3 + 2 (`1`, `a`); turn 2, 300 + 4; turn 3,
/// 5 + 12. The prompt after 2 turns, 317 characters, 80 tokens, passes a trigger of 50; the
/// summary of turns 1-2 hands its templates 71 characters (`x`, its padding and `integer`,
/// 37; `search` and `{:q "x"}`, 14; `a`; the failed program, reason and message, 19), so the
/// prompt after 3 turns, 8 + 71 + 17 = 96 characters, 24 tokens, does not.
#[test]
fn compact_replaces_the_history_by_its_coalesced_state_and_appends_after_it() {
    let host = in_process_host(&["strategies.compact.trigger_tokens=50"]);
    let summary = "user: Count.\n\n\
        ;; Turns 1-2 were compacted into the state below.\n\n\
        ;; === user/ (your prelude) ===\n\
        x                             ; = integer\n\n\
        ;; Tool calls made:\n\
        ;   search({:q \"x\"})\n\n\
        ;; Output:\n\
        a\n\n\
        ---\n\
        Your previous attempt:\n\
        ```clojure\n\
        (two)\n\
        ```\n\n\
        Error: boom\n\
        ---\n\n\
        Turns left: 2";
    let (messages, marks) = prompt(&host, "compact", 3);
    assert_eq!(
        messages,
        strings(&["system: S.", summary, TURN_3[0], TURN_3[1]])
    );
    // The head (the same block in every prompt) and the last message.
    assert_eq!(marks, ["Count.", TURN_3[1].trim_start_matches("user: ")]);
    let (two, _) = prompt(&host, "compact", 2);
    assert_eq!(two, strings(&["system: S.", summary]));
    let (one, _) = prompt(&host, "compact", 1);
    assert_eq!(one, strings(&["system: S.", FIRST, TURN_1[0], TURN_1[1]]));
    // With a trigger of 0 every prompt is the coalesced state, as single-user-coalesced shows
    // it, opened by the line that says which turns it replaced.
    let host = in_process_host(&["strategies.compact.trigger_tokens=0"]);
    let (messages, _) = prompt(&host, "compact", 3);
    let suc = prompt(&host, "single-user-coalesced", 3).0;
    assert_eq!(
        messages[1],
        suc[1].replacen(
            "Count.\n\n",
            "Count.\n\n;; Turns 1-3 were compacted into the state below.\n\n",
            1
        )
    );
}
