//! Properties of the strategy family over generated recordings, checked in process with the
//! real dylibs: every strategy keeps the mission and the turns indicator and is a pure function;
//! full-history, per-turn-summary and bounded-transcript are append-only; observation-masking
//! changes at most one earlier message between consecutive prompts; the transcript strategies
//! keep the prefix they cache whenever they act; rolling-window's limits equal the strategies
//! they should.

use std::sync::OnceLock;

use proptest::prelude::*;
use ptc::{Host, Recording, RecordingDefaults, RenderedMessage};
use serde_json::{json, Value as Json};

use crate::support::{in_process_host, STRATEGIES};

fn default_host() -> &'static Host {
    static HOST: OnceLock<Host> = OnceLock::new();
    HOST.get_or_init(|| in_process_host(&[]))
}

fn window_host(window: usize) -> &'static Host {
    static ZERO: OnceLock<Host> = OnceLock::new();
    static WIDE: OnceLock<Host> = OnceLock::new();
    let (cell, set) = if window == 0 {
        (&ZERO, "strategies.rolling-window.window=0")
    } else {
        (&WIDE, "strategies.rolling-window.window=99")
    };
    cell.get_or_init(|| in_process_host(&[set]))
}

#[derive(Clone, Debug)]
struct TurnSpec {
    success: bool,
    program: bool,
    prints: Vec<String>,
    calls: Vec<(usize, i64)>,
    defs: Vec<(usize, usize)>,
}

fn turn_spec() -> impl Strategy<Value = TurnSpec> {
    (
        prop::bool::weighted(0.75),
        prop::bool::weighted(0.9),
        prop::collection::vec("[a-z ]{0,12}(\n[a-z]{1,5})?", 0..3),
        prop::collection::vec((0usize..3, -5i64..50), 0..4),
        prop::collection::vec((0usize..5, 0usize..4), 0..3),
    )
        .prop_map(|(success, program, prints, calls, defs)| TurnSpec {
            success,
            program,
            prints,
            calls,
            defs,
        })
}

const NAMES: [&str; 5] = ["orders", "total", "helper", "ids", "note"];
const TOOLS: [&str; 3] = ["search", "send-email", "lookup"];

fn value(kind: usize, seed: usize) -> Json {
    match kind {
        0 => json!(seed as i64 * 7),
        1 => json!(format!("text {seed} ").repeat(seed % 4 + 1)),
        2 => json!((0..seed % 6)
            .map(|i| json!({":id": i, ":ok": i % 2 == 0}))
            .collect::<Vec<_>>()),
        _ => {
            json!({"$fn": {"params": ["x"], "doc": if seed % 2 == 0 { json!("Helps; a lot") } else { Json::Null }, "return_type": null}})
        }
    }
}

/// A valid recording from the generated choices.
fn recording_json(
    max_turns: u32,
    tools: usize,
    data: bool,
    signature: bool,
    specs: &[TurnSpec],
) -> Json {
    let mut memory = serde_json::Map::new();
    let mut turns = Vec::new();
    for (i, spec) in specs.iter().take(max_turns as usize).enumerate() {
        let number = i + 1;
        let mut turn = json!({
            "number": number,
            "raw_response": format!("Thinking about turn {number}.\n```clojure\n(step {number})\n```"),
            "program": if spec.program { json!(format!("(step {number})")) } else { Json::Null },
            "success": spec.success,
            "prints": spec.prints,
            "tool_calls": spec.calls.iter().map(|(t, n)| json!({"name": TOOLS[*t], "args": {":n": n}, "result": [n]})).collect::<Vec<_>>(),
        });
        if spec.success {
            for (name, kind) in &spec.defs {
                memory.insert(NAMES[*name].into(), value(*kind, number + name));
            }
        } else {
            turn["error"] = json!({"reason": "eval_error", "message": if number % 3 == 0 { Json::Null } else { json!(format!("boom {number}")) }});
        }
        turn["memory"] = Json::Object(memory.clone());
        turns.push(turn);
    }
    let mut recording = json!({
        "mission": "Mission: do the generated thing.",
        "system_prompt": "System.",
        "max_turns": max_turns,
        "tools": TOOLS.iter().take(tools).map(|t| json!({"name": t, "signature": "(n :int) -> [:int]"})).collect::<Vec<_>>(),
        "turns": turns,
    });
    if data {
        recording["data"] = json!({"limit": 10, "regions": ["Zürich", "Genève"]});
    }
    if signature {
        recording["signature"] = json!("{done :bool}");
    }
    recording
}

fn recordings() -> impl Strategy<Value = Recording> {
    (
        1u32..=6,
        0usize..=3,
        any::<bool>(),
        any::<bool>(),
        prop::collection::vec(turn_spec(), 0..=6),
    )
        .prop_map(|(max_turns, tools, data, signature, specs)| {
            let json = recording_json(max_turns, tools, data, signature, &specs);
            let defaults = RecordingDefaults {
                max_turns: 5,
                system_prompt: "System.".into(),
                max_recording_bytes: ptc::DEFAULT_MAX_RECORDING_BYTES,
            };
            Recording::parse(
                &serde_json::to_vec(&json).unwrap(),
                "generated.json".as_ref(),
                &defaults,
            )
            .expect("generated recordings are valid")
        })
}

/// A host where delta-log re-coalesces after a hundred characters of deltas.
fn delta_log_host() -> &'static Host {
    static HOST: OnceLock<Host> = OnceLock::new();
    HOST.get_or_init(|| in_process_host(&["strategies.delta-log.recoalesce_chars=100"]))
}

/// A host where the transcript strategies act on short runs.
fn acting_host() -> &'static Host {
    static HOST: OnceLock<Host> = OnceLock::new();
    HOST.get_or_init(|| {
        in_process_host(&[
            "strategies.clear-tool-results.trigger_tokens=0",
            "strategies.clear-tool-results.keep_tool_uses=1",
            "strategies.trim.keep_turns=2",
            "strategies.compact.trigger_tokens=30",
        ])
    })
}

/// A host whose strategies show less of each turn and value than by default.
fn narrow_host() -> &'static Host {
    static HOST: OnceLock<Host> = OnceLock::new();
    HOST.get_or_init(|| {
        in_process_host(&[
            "strategies.per-turn-summary.println_limit=1",
            "strategies.per-turn-summary.tool_call_limit=1",
            "strategies.per-turn-summary.sample_limit=1",
            "strategies.full-history.sample_limit=1",
            "strategies.bounded-transcript.observation_chars=5",
        ])
    })
}

/// A delta-log prompt's user message: whole, and without its tail (the sections replaced by
/// the next prompt); with the re-coalescing point it was rendered from.
struct DeltaLogPrompt {
    full: String,
    log: String,
}

fn delta_log_prompt(host: &Host, recording: &Recording, k: usize) -> (DeltaLogPrompt, u64) {
    let renderer = host.renderer(Some("delta-log")).unwrap();
    let mut output = renderer.output(recording, k).unwrap();
    let point = output.stats.turns_compressed;
    let full = renderer.messages(&output).unwrap()[1].content.to_string();
    // The last block is the tail: the error or samples of the latest turn, the turns left.
    let tail = output.messages[1].blocks.to_mut().pop().unwrap();
    assert!(tail
        .sections
        .iter()
        .all(|s| ["error", "samples", "turns_left"].contains(&s.template.as_str())));
    let log = renderer.messages(&output).unwrap()[1].content.to_string();
    (DeltaLogPrompt { full, log }, point)
}

/// Every block of a prompt: (message index, role, text, cache breakpoint).
fn blocks(messages: &[RenderedMessage]) -> Vec<(usize, &'static str, &str, bool)> {
    messages
        .iter()
        .enumerate()
        .flat_map(|(i, m)| {
            m.block_texts()
                .map(move |(text, mark)| (i, m.role.as_str(), text, mark))
        })
        .collect()
}

/// Each message's role and text, without its blocks.
fn texts(messages: &[RenderedMessage]) -> Vec<(&'static str, &str)> {
    messages
        .iter()
        .map(|m| (m.role.as_str(), m.content.as_str()))
        .collect()
}

fn render(host: &Host, strategy: &str, recording: &Recording, k: usize) -> Vec<RenderedMessage> {
    let renderer = host.renderer(Some(strategy)).unwrap();
    let prompt = renderer.render(recording, k).unwrap();
    prompt.messages
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 48,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn every_prompt_keeps_the_mission_and_the_turns_indicator_and_is_pure(recording in recordings()) {
        for (strategy, _) in STRATEGIES.iter() {
            for k in 0..=recording.turns.len() {
                let messages = render(default_host(), strategy, &recording, k);
                prop_assert_eq!(&*messages[0].content, "System.");
                prop_assert!(messages[1].content.starts_with("Mission: do the generated thing."), "{} {}", strategy, k);
                let last = &messages.last().unwrap().content;
                prop_assert!(
                    last.contains("Turns left: ") || last.contains("FINAL TURN") || last.contains(" of "),
                    "{} {}: {}", strategy, k, last
                );
                prop_assert_eq!(&messages, &render(default_host(), strategy, &recording, k));
            }
        }
    }

    #[test]
    fn full_history_per_turn_summary_and_bounded_transcript_are_append_only(recording in recordings()) {
        for strategy in ["full-history", "per-turn-summary", "bounded-transcript"] {
            for k in 0..recording.turns.len() {
                let before = render(default_host(), strategy, &recording, k);
                let after = render(default_host(), strategy, &recording, k + 1);
                prop_assert!(after.len() > before.len());
                // The text is append-only; the cache breakpoint moves to the newest message.
                prop_assert_eq!(texts(&after[..before.len()]), texts(&before), "{} {}", strategy, k);
            }
        }
    }

    #[test]
    fn delta_log_appends_between_recoalescing_points(recording in recordings()) {
        for host in [default_host(), delta_log_host()] {
            let mut recoalesced = 0;
            for k in 0..recording.turns.len() {
                let (before, point_before) = delta_log_prompt(host, &recording, k);
                let (after, point_after) = delta_log_prompt(host, &recording, k + 1);
                if point_after == point_before {
                    // Everything but the tail of the previous prompt is a prefix of this one.
                    prop_assert!(
                        after.full.starts_with(&before.log),
                        "turn {}: the log changed\n--- before ---\n{}\n--- after ---\n{}",
                        k + 1, before.log, after.full
                    );
                    prop_assert!(after.log.len() > before.log.len());
                } else {
                    // A re-coalescing point is only ever set at the newest turn.
                    prop_assert_eq!(point_after, k as u64 + 1);
                    prop_assert!(point_after > point_before);
                    recoalesced += 1;
                }
            }
            // The small budget re-coalesces every few turns (each delta is sized at 32
            // characters or more); the default one never does on runs this short.
            if std::ptr::eq(host, default_host()) {
                prop_assert_eq!(recoalesced, 0);
            } else if recording.turns.len() >= 4 {
                prop_assert!(recoalesced > 0);
            }
        }
    }

    #[test]
    fn observation_masking_changes_at_most_one_earlier_message(recording in recordings()) {
        for k in 0..recording.turns.len() {
            let before = render(default_host(), "observation-masking", &recording, k);
            let after = render(default_host(), "observation-masking", &recording, k + 1);
            prop_assert!(after.len() > before.len());
            let (before, after) = (texts(&before), texts(&after));
            let changed = before.iter().zip(&after).filter(|(a, b)| a != b).count();
            prop_assert!(changed <= 1, "{} earlier messages changed at turn {}", changed, k);
        }
    }

    /// A run's prompts rendered one after the other through one cache (as `ptc ab` renders
    /// them) are those rendered alone; a message of full-history's at the place of the same
    /// message in the prompt before is that message's text, shared, not a copy.
    #[test]
    fn prompts_rendered_through_one_cache_are_those_rendered_alone(recording in recordings()) {
        for host in [default_host(), acting_host(), delta_log_host()] {
            let mut counter = ptc::Counter::new(ptc::Tokenizer::O200kBase);
            for (strategy, _) in STRATEGIES.iter() {
                let prompter = host.prompter(Some(strategy)).unwrap();
                let mut cache = ptc::RunCache::default();
                let mut before: Vec<RenderedMessage> = Vec::new();
                for k in 0..=recording.turns.len() {
                    let (prompt, _) = prompter.render_cached(&recording, k, &mut counter, &mut cache).unwrap();
                    prop_assert_eq!(&prompt.messages, &render(host, strategy, &recording, k), "{} {}", strategy, k);
                    if *strategy == "full-history" && k > 0 {
                        let shared = prompt.messages.iter().zip(&before)
                            .filter(|(now, was)| std::sync::Arc::ptr_eq(&now.content, &was.content))
                            .count();
                        // All but the last message of the prompt before: the turns left change.
                        prop_assert_eq!(shared, before.len() - 1, "turn {}", k);
                    }
                    before = prompt.messages;
                }
            }
        }
    }

    /// What a strategy keeps while a run renders (a turn's messages, shared by the prompts
    /// that show them; what it counted of a turn) makes the prompts a run without a key gets,
    /// every one made anew: the same messages, blocks, breakpoints and statistics. The hosts take turns on
    /// the one run, so what is kept for one strategy's options is never another's.
    #[test]
    fn prompts_of_a_run_whose_turns_are_kept_are_those_made_anew(recording in recordings()) {
        let mut unkeyed = recording.clone();
        unkeyed.run.key = 0;
        let hosts = [default_host(), narrow_host(), acting_host(), delta_log_host(), window_host(0)];
        for (strategy, _) in STRATEGIES.iter() {
            for k in 0..=recording.turns.len() {
                for host in hosts {
                    let renderer = host.renderer(Some(strategy)).unwrap();
                    let kept = renderer.render(&recording, k).unwrap();
                    let anew = renderer.render(&unkeyed, k).unwrap();
                    prop_assert_eq!(blocks(&kept.messages), blocks(&anew.messages), "{} {}", strategy, k);
                    prop_assert_eq!(kept.stats, anew.stats, "{} {}", strategy, k);
                }
            }
        }
    }

    /// The layout property prompt caching needs: the prefix a prompt asks to cache (up to its
    /// last breakpoint) is, block for block, the start of the next prompt, so the next prompt
    /// can read it. delta-log rewrites its head at its re-coalescing points, on purpose.
    #[test]
    fn the_cached_prefix_of_a_prompt_starts_the_next_one(recording in recordings()) {
        for (strategy, _) in STRATEGIES.iter() {
            for k in 0..recording.turns.len() {
                let before = render(default_host(), strategy, &recording, k);
                let after = render(default_host(), strategy, &recording, k + 1);
                let (before, after) = (blocks(&before), blocks(&after));
                let Some(last) = before.iter().rposition(|b| b.3) else {
                    continue;
                };
                let cached = &before[..=last];
                let kept = after.len() > last
                    && cached.iter().zip(&after).all(|(a, b)| (a.0, a.1, a.2) == (b.0, b.1, b.2));
                if !kept && *strategy == "delta-log" {
                    let (_, point_before) = delta_log_prompt(default_host(), &recording, k);
                    let (_, point_after) = delta_log_prompt(default_host(), &recording, k + 1);
                    prop_assert!(point_after > point_before, "delta-log, turn {}", k + 1);
                    continue;
                }
                prop_assert!(kept, "{}: the prefix cached before turn {} is not the start of the next prompt", strategy, k + 1);
            }
        }
    }

    /// The transcript strategies set to act on these short runs: every observation but the
    /// latest cleared, two turns kept, a compaction past 30 tokens. The prefix a prompt caches
    /// starts the next prompt, except where no earlier prompt could tell: the first prompt
    /// that clears, and a compaction; and the first prompt that leaves a turn out, which reads
    /// its predecessor's prefix through a breakpoint on its last message. A compaction and a
    /// trim keep the head block, which is always marked.
    #[test]
    fn the_transcript_strategies_keep_the_prefix_they_cache_when_they_act(recording in recordings()) {
        for strategy in ["clear-tool-results", "trim", "compact"] {
            for k in 0..recording.turns.len() {
                let before = render(acting_host(), strategy, &recording, k);
                let after = render(acting_host(), strategy, &recording, k + 1);
                let cleared = |m: &[RenderedMessage]| m.iter().any(|m| m.content.contains("cleared to save context"));
                if strategy == "clear-tool-results" && !cleared(&before) && cleared(&after) {
                    continue;
                }
                let trimmed = |m: &[RenderedMessage]| m[1].content.contains("left out to save context");
                if strategy == "trim" && !trimmed(&before) && trimmed(&after) {
                    // The first prompt that leaves a turn out repeats the head, marked before.
                    prop_assert_eq!(before[1].block_texts().next(), after[1].block_texts().next());
                    prop_assert!(before[1].block_texts().next().unwrap().1, "the head is cached");
                    continue;
                }
                if strategy == "compact" && after.len() == 2 {
                    // Compacted at the newest turn: the head block is the one cached before.
                    let head = |m: &[RenderedMessage]| m[1].block_texts().next().map(|b| b.0.to_owned());
                    prop_assert_eq!(head(&before), head(&after));
                    prop_assert!(after[1].block_texts().next().unwrap().1, "the head is cached");
                    continue;
                }
                let (before, after) = (blocks(&before), blocks(&after));
                let last = before.iter().rposition(|b| b.3).expect("a breakpoint");
                let kept = after.len() > last
                    && before[..=last].iter().zip(&after).all(|(a, b)| (a.0, a.1, a.2) == (b.0, b.1, b.2));
                prop_assert!(kept, "{}: the prefix cached before turn {} is not the start of the next prompt", strategy, k + 1);
            }
        }
    }

    #[test]
    fn rolling_window_limits(recording in recordings()) {
        for k in 0..=recording.turns.len() {
            let zero = window_host(0).renderer(Some("rolling-window")).unwrap().render(&recording, k).unwrap();
            let suc = default_host().renderer(Some("single-user-coalesced")).unwrap().render(&recording, k).unwrap();
            prop_assert_eq!(&zero.messages, &suc.messages);
            prop_assert_eq!(zero.stats, suc.stats);
            let wide = window_host(99).renderer(Some("rolling-window")).unwrap().render(&recording, k).unwrap();
            let full = default_host().renderer(Some("full-history")).unwrap().render(&recording, k).unwrap();
            prop_assert_eq!(&wide.messages, &full.messages);
            prop_assert_eq!(wide.stats, full.stats);
        }
    }
}

/// ptc counts tokens line by line with caches; every count must equal the tokenizer's. Checked
/// on every message of every prompt of the hand-written examples through every strategy (and of the
/// recordings in `PTC_TOKEN_CHECK_DIR`, when set).
#[test]
fn cached_token_counts_equal_the_tokenizer() {
    let host = default_host();
    let defaults = host.recording_defaults().unwrap();
    let mut recordings: Vec<Recording> = crate::support::EXAMPLES
        .iter()
        .map(|name| Recording::load(&crate::support::example(name), &defaults).unwrap())
        .collect();
    if let Some(dir) = std::env::var_os("PTC_TOKEN_CHECK_DIR") {
        for entry in std::fs::read_dir(dir).unwrap().take(200) {
            recordings.push(Recording::load(&entry.unwrap().path(), &defaults).unwrap());
        }
    }
    for tokenizer in [ptc::Tokenizer::O200kBase, ptc::Tokenizer::Cl100kBase] {
        for recording in &recordings {
            let mut counter = ptc::Counter::new(tokenizer);
            for (strategy, _) in STRATEGIES.iter() {
                let renderer = host.renderer(Some(strategy)).unwrap();
                for k in 0..=recording.turns.len() {
                    for m in renderer.render(recording, k).unwrap().messages {
                        assert_eq!(
                            counter.text(&m.content),
                            tokenizer.count(&m.content),
                            "{strategy} {k}"
                        );
                    }
                }
            }
        }
    }
}

/// A block that renders to nothing moves its breakpoint to the block before it, in an earlier
/// message when it is its message's first: a prompt rendered through the cache gives that
/// earlier message the breakpoint when the moving block is there, and not when it is gone,
/// though the earlier message is the same as in the prompt before.
#[test]
fn a_breakpoint_moved_to_an_earlier_message_is_moved_again_or_not_through_the_cache() {
    use ptc_plugin_api::{Block, Message, Output, Role, Section, Stats};
    let renderer = default_host().renderer(Some("full-history")).unwrap();
    let mission = |text: &'static str| Section::new("mission").with("mission", text);
    let output = |last: Option<&'static str>| {
        let mut marked = Block::new(vec![mission(last.unwrap_or(""))]);
        marked.cache_breakpoint = last.is_none();
        Output {
            messages: vec![
                Message::new(Role::System, vec![mission("system")]),
                Message::new(Role::User, vec![mission("first")]),
                Message::of_blocks(Role::User, vec![marked]),
            ]
            .into(),
            stats: Stats::default(),
        }
    };
    let mut cache = ptc::SectionCache::default();
    let mut marks = Vec::new();
    for last in [None, None, Some("last"), None] {
        let output = output(last);
        let alone = renderer.messages(&output).unwrap();
        let cached = renderer.messages_cached(&output, Some(&mut cache)).unwrap();
        cache.keep(output);
        assert_eq!(cached, alone, "{last:?}");
        marks.push(cached[1].blocks[0].cache_breakpoint);
    }
    assert_eq!(marks, [true, true, false, true]);
}
