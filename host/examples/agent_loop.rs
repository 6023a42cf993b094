//! An agent loop that renders every prompt through a ptc strategy, with a scripted LLM and a
//! scripted executor standing in for the model and the PTC-Lisp runtime. It records the run in
//! the recording format, so `ptc render RECORDING --turns K` replays any of its prompts.
//!
//! ```sh
//! cargo build --release && cargo run --release -p ptc-host --example agent_loop -- /tmp/run.json
//! target/release/ptc render /tmp/run.json --turns 2
//! ```

use ptc::{Config, Host, Recording};
use serde_json::{json, Value as Json};

/// What the scripted LLM answers, turn by turn.
const RESPONSES: &[&str] = &[
    "First, the open tickets.\n```clojure\n(def open (tool/list-tickets {:status :open}))\n(println \"open:\" (count open))\n```",
    "Now the oldest one.\n```clojure\n(def oldest (first (sort-by :age > opne)))\n```",
    "Typo: `opne`. Again.\n```clojure\n(def oldest (first (sort-by :age > open)))\n(tool/notify {:channel \"support\" :message (str \"Oldest: \" (:id oldest))})\n```",
    "Done.\n```clojure\n(return (:id oldest))\n```",
];

/// What running a program did.
struct Effect {
    success: bool,
    prints: Vec<&'static str>,
    calls: Vec<Json>,
    defs: Vec<(&'static str, Json)>,
    error: Option<&'static str>,
}

/// What the scripted runtime does with a program.
fn execute(program: &str) -> Effect {
    let tickets = json!([{":id": "T-1", ":age": 3}, {":id": "T-2", ":age": 9}]);
    let ok = |prints, calls, defs| Effect {
        success: true,
        prints,
        calls,
        defs,
        error: None,
    };
    if program.contains("list-tickets") {
        let call = json!({"name": "list-tickets", "args": {":status": {"$kw": "open"}}, "result": tickets});
        ok(vec!["open: 2"], vec![call], vec![("open", tickets)])
    } else if program.contains("opne") {
        Effect {
            success: false,
            prints: vec![],
            calls: vec![],
            defs: vec![],
            error: Some("undefined symbol: opne"),
        }
    } else if program.contains("notify") {
        let call = json!({"name": "notify", "args": {":channel": "support", ":message": "Oldest: T-2"}, "result": null});
        ok(
            vec![],
            vec![call],
            vec![("oldest", json!({":id": "T-2", ":age": 9}))],
        )
    } else {
        ok(vec![], vec![], vec![])
    }
}

/// The program inside the response's clojure fence.
fn program(response: &str) -> Option<&str> {
    let start = response.find("```clojure\n")? + "```clojure\n".len();
    let end = response[start..].find("\n```")? + start;
    Some(&response[start..end])
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "agent-run.json".into());
    // The strategy dylibs sit in the target directory, one level above this example.
    let mut config = Config::load(None, &[])?;
    if let Some(target) = std::env::current_exe()?.parent().and_then(|d| d.parent()) {
        config.layer_set(&format!(
            "plugins.directories=[{:?}]",
            target.display().to_string()
        ))?;
    }
    let host = Host::new(config);
    let max_turns = 5u32;
    let mut run = json!({
        "mission": "Find the oldest open ticket and tell the support channel.",
        "max_turns": max_turns,
        "tools": [
            {"name": "list-tickets", "signature": "(status :keyword) -> [{id :string, age :int}]"},
            {"name": "notify", "signature": "(channel :string, message :string) -> :nil"}
        ],
        "turns": [],
    });
    // A single-shot run sends only its first prompt, which has no history to compress:
    // the configured strategy renders it like any other.
    let renderer = host.renderer(Some(host.config().strategy()))?;
    let defaults = host.recording_defaults()?;
    let mut memory = serde_json::Map::new();
    for response in RESPONSES {
        // The turns so far are immutable: the prompt is rendered from them, and the turns left
        // come from their number, never from the messages.
        let recording =
            Recording::parse(&serde_json::to_vec(&run)?, "agent-run".as_ref(), &defaults)?;
        let turns_so_far = recording.turns.len();
        let prompt = renderer.render(&recording, turns_so_far)?;
        println!(
            "turn {} ({} left): {} messages, {} characters sent",
            turns_so_far + 1,
            max_turns as usize - turns_so_far,
            prompt.messages.len(),
            prompt
                .messages
                .iter()
                .map(|m| m.content.len())
                .sum::<usize>()
        );
        let program = program(response);
        let Effect {
            success,
            prints,
            calls,
            defs,
            error,
        } = execute(program.unwrap_or(""));
        if success {
            for (name, value) in defs {
                memory.insert(name.into(), value);
            }
        }
        let mut turn = json!({
            "number": turns_so_far + 1,
            "raw_response": response,
            "program": program,
            "success": success,
            "prints": prints,
            "tool_calls": calls,
            "memory": memory,
        });
        if let Some(message) = error {
            turn["error"] = json!({"reason": "eval_error", "message": message});
        }
        run["turns"].as_array_mut().expect("turns").push(turn);
        if response.contains("(return ") {
            break;
        }
    }
    std::fs::write(&out, serde_json::to_string_pretty(&run)?)?;
    println!(
        "recorded {} turns in {out}; replay with `ptc render {out} --turns K`",
        run["turns"].as_array().map_or(0, Vec::len)
    );
    Ok(())
}
