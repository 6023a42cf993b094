//! Every bundled example recording rendered at every turn, as named snapshots. Each snapshot
//! holds the messages after the system prompt and the statistics; the system prompt has its
//! own snapshot.

use crate::support::{all_strategies, conversation, example, messages, shared};

fn snapshot_all(file: &str) {
    let path = example(file);
    let recording: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let turns = recording["turns"].as_array().map_or(0, Vec::len);
    let stem = file.trim_end_matches(".json");
    for k in 0..=turns {
        let render = shared().render_json(&path, k, &[]);
        insta::assert_snapshot!(format!("{stem}__turn_{k}"), conversation(&render));
    }
}

#[test]
fn data_exploration() {
    snapshot_all("data-exploration.json");
}

#[test]
fn tool_actions() {
    snapshot_all("tool-actions.json");
}

#[test]
fn failure_recovery() {
    snapshot_all("failure-recovery.json");
}

#[test]
fn final_turn() {
    snapshot_all("final-turn.json");
}

#[test]
fn single_shot() {
    snapshot_all("single-shot.json");
}

#[test]
fn default_system_prompt() {
    let render = shared().render_json(&example("tool-actions.json"), 0, &[]);
    let (role, content) = messages(&render).remove(0);
    assert_eq!(role, "system");
    insta::assert_snapshot!("default_system_prompt", content);
}

#[test]
fn text_output_shows_each_message_under_its_role() {
    let text = shared()
        .ptc([
            "render",
            example("single-shot.json").to_str().unwrap(),
            "--turns",
            "0",
        ])
        .ok();
    let headers: Vec<&str> = text.lines().filter(|l| l.starts_with("=== ")).collect();
    assert_eq!(
        headers,
        [
            "=== SYSTEM ===",
            "=== USER ===",
            "=== STATS (single-user-coalesced, 0 turn(s)) ==="
        ]
    );
}

/// `stats.enabled` says whether the prompt was compressed, as ptc_runner's statistics do:
/// false for `full-history` (compression off) and below `compress_above_tokens`.
#[test]
fn stats_say_whether_compression_was_enabled() {
    let recording = example("tool-actions.json");
    let enabled = |extra: &[&str]| {
        all_strategies().render_json(&recording, 2, extra)["stats"]["enabled"].clone()
    };
    assert_eq!(enabled(&[]), true);
    assert_eq!(enabled(&["--strategy", "full-history"]), false);
    assert_eq!(
        enabled(&["--set", "compression.compress_above_tokens=1000000"]),
        false
    );
}

#[test]
fn json_output_has_exactly_the_documented_keys_in_order() {
    let raw = shared()
        .ptc([
            "render",
            example("tool-actions.json").to_str().unwrap(),
            "--format",
            "json",
        ])
        .ok();
    let top: Vec<&str> = raw
        .lines()
        .filter(|l| l.starts_with("  \""))
        .map(|l| l.trim().split('"').nth(1).unwrap())
        .collect();
    assert_eq!(top, ["strategy", "turns", "messages", "stats"]);
    let json: serde_json::Value = serde_json::from_str(&raw).unwrap();
    let stats: Vec<&String> = json["stats"].as_object().unwrap().keys().collect();
    let mut expected = vec![
        "enabled",
        "error_turns_collapsed",
        "printlns_dropped",
        "printlns_shown",
        "printlns_total",
        "tool_calls_dropped",
        "tool_calls_shown",
        "tool_calls_total",
        "turns_compressed",
    ];
    expected.sort();
    assert_eq!(stats, expected);
}

/// `ptc schema` is derived from the types that read recordings; the copy in the repository
/// must follow it (`PTC_UPDATE_SCHEMA=1 cargo test` rewrites it).
#[test]
fn the_schema_copy_is_current() {
    let schema = shared().ptc(["schema"]).ok();
    let path = crate::support::repo().join("examples/recording.schema.json");
    let copy = std::fs::read_to_string(&path).unwrap_or_default();
    if schema != copy {
        if std::env::var_os("PTC_UPDATE_SCHEMA").is_some() {
            std::fs::write(&path, &schema).unwrap();
        } else {
            panic!("examples/recording.schema.json is stale: PTC_UPDATE_SCHEMA=1 cargo test rewrites it");
        }
    }
    let json: serde_json::Value = serde_json::from_str(&schema).unwrap();
    assert_eq!(json["title"], "ptc recording");
    assert_eq!(json["required"], serde_json::json!(["mission"]));
    assert_eq!(json["additionalProperties"], false);
}
