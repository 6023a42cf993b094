//! Limits hold whatever the input: the options that bound a prompt bound every prompt of every
//! strategy that declares them, no recorded value (string, keyword, map key) breaks a line of
//! a prompt and no private value is shown (a property test), and extreme inputs (a 100 MB
//! string, 10,000 turns, 100,000 definitions, empty everything) give a correct, bounded render
//! or a clear error, never a crash.

use std::sync::OnceLock;

use proptest::prelude::*;
use ptc::{Host, Recording, RecordingDefaults};
use serde_json::{json, Value as Json};

use crate::support::{in_process_host, Scratch, STRATEGIES};

/// Every bundled strategy, loaded once from its dylib; options come per case.
fn host() -> &'static Host {
    static HOST: OnceLock<Host> = OnceLock::new();
    HOST.get_or_init(|| in_process_host(&[]))
}

/// What a generated turn holds. Each kind of text is a run of its own capital letter, which
/// no template writes twice in a row, so the longest run in a prompt is the longest piece of
/// that text shown: `Q` printed lines, `A` tool-call arguments, `M` defined values, `D` data.
#[derive(Clone, Debug)]
struct Spec {
    success: bool,
    prints: Vec<usize>,
    args: Vec<usize>,
    values: Vec<(usize, usize)>,
}

fn spec() -> impl Strategy<Value = Spec> {
    (
        prop::bool::weighted(0.8),
        prop::collection::vec(0usize..400, 0..4),
        prop::collection::vec(0usize..200, 0..3),
        prop::collection::vec((0usize..4, 0usize..300), 0..3),
    )
        .prop_map(|(success, prints, args, values)| Spec {
            success,
            prints,
            args,
            values,
        })
}

/// Text after a line break inside recorded values; no line of a prompt may start with it.
const INJECTED: &str = "INJECTED";
/// The value of every private name and key; no prompt may show it.
const SECRET: &str = "SECRETVALUE";

/// A map whose keys and values, keywords and strings, each hold `line_break` then
/// [`INJECTED`], with a private entry.
fn odd_map(line_break: &str) -> Json {
    let text = |head: &str| format!("{head}{line_break}{INJECTED} -> :nil");
    json!({"$map": [
        [{"$kw": text("k")}, text("v")],
        [text("s"), {"$kw": text("w")}],
        [{"$kw": "_private"}, SECRET],
        ["list", [text("l"), {"$kw": text("m")}]],
    ]})
}

/// Whether `c` ends a line for some reader of the prompt.
fn breaks_line(c: char) -> bool {
    matches!(
        c,
        '\n' | '\r' | '\u{0B}' | '\u{0C}' | '\u{85}' | '\u{2028}' | '\u{2029}'
    )
}

fn marked_recording(data: usize, specs: &[Spec], line_break: &str) -> Json {
    let mut memory = serde_json::Map::new();
    let turns: Vec<Json> = specs
        .iter()
        .enumerate()
        .map(|(i, spec)| {
            let number = i + 1;
            if spec.success {
                for (name, len) in &spec.values {
                    let value = if name % 2 == 0 {
                        json!("M".repeat(*len))
                    } else {
                        json!(["M".repeat(*len), "M".repeat(len / 2)])
                    };
                    memory.insert(format!("value-{name}"), value);
                }
                memory.insert("odd".into(), odd_map(line_break));
                memory.insert("_secret".into(), json!(SECRET));
            }
            let mut turn = json!({
                "number": number,
                "raw_response": format!("Step {number}.\n```clojure\n(step {number})\n```"),
                "program": format!("(step {number})"),
                "success": spec.success,
                "prints": if spec.success {
                    spec.prints.iter().map(|n| format!("out: {}", "Q".repeat(*n))).collect()
                } else {
                    Vec::new()
                },
                "tool_calls": spec.args.iter().map(|n| json!({
                    "name": "search",
                    "args": {"$map": [
                        [{"$kw": "query"}, "A".repeat(*n)],
                        [{"$kw": format!("k{line_break}{INJECTED}")}, format!("v{line_break}{INJECTED}")],
                        [{"$kw": "_token"}, SECRET],
                    ]},
                    "result": odd_map(line_break),
                })).collect::<Vec<_>>(),
                "memory": Json::Object(memory.clone()),
            });
            if !spec.success {
                turn["error"] = json!({"reason": "eval_error", "message": "boom"});
            }
            turn
        })
        .collect();
    json!({
        "mission": "Mission: go.",
        "system_prompt": "System.",
        "max_turns": specs.len() + 2,
        "tools": [{"name": "search", "signature": "(query :string) -> :string"}],
        "data": {
            "blob": "D".repeat(data),
            "rows": ["D".repeat(data / 2), "D".repeat(data)],
            "odd": odd_map(line_break),
            "_key": SECRET,
        },
        "turns": turns,
    })
}

/// The longest run of `letter` in `text`.
fn longest_run(text: &str, letter: char) -> usize {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        run = if c == letter { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    longest
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn every_prompt_keeps_within_its_limits(
        data in 0usize..300,
        specs in prop::collection::vec(spec(), 0..6),
        println_char_limit in 0usize..120,
        sample_printable_limit in 0usize..120,
        tool_args_printable_limit in 0usize..120,
        line_break in prop::sample::select(vec!["\n", "\r\n", "\r", "\n\n", "\u{0B}", "\u{0C}", "\u{85}", "\u{2028}", "\u{2029}"]),
        tool_call_results in prop::sample::select(vec!["never", "when_no_println"]),
    ) {
        let json = marked_recording(data, &specs, line_break);
        let defaults = RecordingDefaults { max_turns: 5, system_prompt: "System.".into(), max_recording_bytes: ptc::DEFAULT_MAX_RECORDING_BYTES };
        let recording =
            Recording::parse(&serde_json::to_vec(&json).unwrap(), "marked.json".as_ref(), &defaults)
                .expect("a valid recording");
        let limits = [
            ("println_char_limit", println_char_limit, 'Q'),
            ("sample_printable_limit", sample_printable_limit, 'M'),
            ("sample_printable_limit", sample_printable_limit, 'D'),
            ("tool_args_printable_limit", tool_args_printable_limit, 'A'),
        ];
        let mut checked = 0;
        for strategy in host().plugins().strategies() {
            let declares = |option: &str| strategy.options.iter().any(|o| o.name.as_str() == option);
            let mut config = host().config().clone();
            // Turns inside a window are shown whole, by design; with no window every turn is
            // subject to the limits.
            if declares("window") {
                config.layer_set(&format!("strategies.{}.window=0", strategy.name)).unwrap();
            }
            // Likewise turns before a compaction: with a trigger of 0 every turn is compacted.
            if declares("trigger_tokens") {
                config.layer_set(&format!("strategies.{}.trigger_tokens=0", strategy.name)).unwrap();
            }
            if declares("tool_call_results") {
                config
                    .layer_set(&format!(
                        "strategies.{}.tool_call_results={tool_call_results:?}",
                        strategy.name
                    ))
                    .unwrap();
            }
            for (option, value, _) in limits {
                if declares(option) {
                    config
                        .layer_set(&format!("strategies.{}.{option}={value}", strategy.name))
                        .unwrap();
                }
            }
            let renderer = host().renderer_with(Some(&strategy.name), &config).unwrap();
            for k in 0..=recording.turns.len() {
                let prompt = renderer.render(&recording, k).unwrap();
                let text: String = prompt.messages.iter().map(|m| m.content.as_str()).collect();
                // Only `\n` breaks lines, and each line came from a template or from text the
                // model wrote, never from a recorded value.
                let odd_break = text.chars().find(|&c| c != '\n' && breaks_line(c));
                prop_assert!(
                    odd_break.is_none(),
                    "{} at k = {}: a raw {:?} in\n{}", strategy.name, k, odd_break, text
                );
                for line in text.lines() {
                    prop_assert!(
                        !line.trim_start().starts_with(INJECTED),
                        "{} at k = {}: a recorded value broke a line:\n{}", strategy.name, k, text
                    );
                }
                prop_assert!(
                    !text.contains(SECRET),
                    "{} at k = {}: a private value is shown:\n{}", strategy.name, k, text
                );
                for (option, value, letter) in limits {
                    if declares(option) {
                        checked += 1;
                        let run = longest_run(&text, letter);
                        prop_assert!(
                            run <= value.max(1),
                            "{} at k = {}: a run of {} `{}` with {} = {}\n{}",
                            strategy.name, k, run, letter, option, value, text
                        );
                    }
                }
            }
        }
        prop_assert!(checked > 0);
    }
}

/// A recording of `turns` small turns whose last memory holds `definitions` values.
fn large_recording(turns: usize, definitions: usize) -> Json {
    let turns: Vec<Json> = (1..=turns)
        .map(|number| {
            // The memory grows to `definitions` entries over the last two turns.
            let defined = match turns - number {
                0 => definitions,
                1 => definitions / 2,
                _ => 0,
            };
            let memory: serde_json::Map<String, Json> =
                (0..defined).map(|i| (format!("v{i}"), json!(i))).collect();
            json!({
                "number": number,
                "raw_response": format!("```clojure\n(def v{number} {number})\n```"),
                "program": format!("(def v{number} {number})"),
                "success": true,
                "prints": [format!("turn {number}")],
                "tool_calls": [],
                "memory": memory,
            })
        })
        .collect();
    json!({"mission": "Many turns.", "max_turns": turns.len() + 1, "turns": turns})
}

#[test]
fn a_100_mb_string_is_cut_to_its_limit() {
    let scratch = Scratch::with_plugins(&[crate::support::SUC, "ptc-strategy-delta-log"]);
    let huge = "x".repeat(100 * 1024 * 1024);
    let json = format!(
        r#"{{"mission": "Look at data/blob.", "data": {{"blob": "{huge}"}}, "max_turns": 3,
            "turns": [{{"number": 1, "program": "(println (count data/blob))", "success": true,
                        "prints": ["{print}"], "tool_calls": [], "memory": {{"copy": "{huge}"}}}}]}}"#,
        print = "y".repeat(1024 * 1024),
    );
    drop(huge);
    let path = scratch.write("huge.json", json);
    for strategy in ["single-user-coalesced", "delta-log"] {
        let render = scratch.render_json(&path, 1, &["--strategy", strategy]);
        let text = crate::support::conversation(&render);
        assert!(text.len() < 20_000, "{strategy}: {} bytes", text.len());
        assert_eq!(longest_run(&text, 'x'), 80, "{strategy}");
        assert_eq!(longest_run(&text, 'y'), 2000, "{strategy}");
    }
}

#[test]
fn ten_thousand_turns_render_with_every_strategy() {
    let scratch = crate::support::all_strategies();
    let path = scratch.write(
        "ten-thousand-turns.json",
        serde_json::to_vec(&large_recording(10_000, 0)).unwrap(),
    );
    for (strategy, _) in STRATEGIES.iter() {
        let render = scratch.render_json(&path, 10_000, &["--strategy", strategy]);
        let text = crate::support::conversation(&render);
        assert!(text.contains("Many turns."), "{strategy}");
        assert_eq!(render["turns"], 10_000, "{strategy}");
    }
    let validate = scratch.ptc(["validate", path.to_str().unwrap()]).ok();
    assert!(validate.contains("0 error(s)"), "{validate}");
}

#[test]
fn a_hundred_thousand_definitions_are_all_listed() {
    let scratch = crate::support::all_strategies();
    let path = scratch.write(
        "many-definitions.json",
        serde_json::to_vec(&large_recording(2, 100_000)).unwrap(),
    );
    for strategy in ["single-user-coalesced", "delta-log", "aggressive"] {
        let render = scratch.render_json(&path, 2, &["--strategy", strategy]);
        let text = crate::support::conversation(&render);
        for name in ["v0 ", "v50000 ", "v99999 "] {
            assert!(text.contains(name), "{strategy} lost {name}");
        }
    }
}

#[test]
fn empty_recordings_render_or_fail_clearly() {
    let scratch = crate::support::all_strategies();
    let cases = [
        ("no-turns.json", json!({"mission": "Only a mission."})),
        (
            "empty-parts.json",
            json!({"mission": "Empty parts.", "tools": [], "data": {}, "turns": [],
                   "signature": null, "system_prompt": ""}),
        ),
        (
            "empty-turn.json",
            json!({"mission": "An empty turn.", "max_turns": 2, "turns": [{
                "number": 1, "raw_response": "", "program": "", "success": true,
                "prints": [""], "tool_calls": [], "memory": {}}]}),
        ),
    ];
    for (name, json) in cases {
        let path = scratch.write(name, serde_json::to_vec(&json).unwrap());
        let turns = json["turns"].as_array().map_or(0, Vec::len);
        for (strategy, _) in STRATEGIES.iter() {
            let render = scratch.render_json(&path, turns, &["--strategy", strategy]);
            let text = crate::support::conversation(&render);
            let mission = json["mission"].as_str().unwrap();
            assert!(text.contains(mission), "{strategy} on {name}:\n{text}");
        }
    }
    for (name, contents) in [("empty-file.json", ""), ("empty-object.json", "{}")] {
        let path = scratch.write(name, contents);
        let err = scratch.ptc(["render", path.to_str().unwrap()]).bad_input();
        assert!(err.contains(name), "{err}");
    }
}
