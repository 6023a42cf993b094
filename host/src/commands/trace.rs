//! `ptc trace`: a recorded run shown turn by turn, or the messages a strategy sends for the next
//! turn, and on request their sizes and the compression statistics.

use std::path::Path;

use clap::ValueEnum;
use serde_json::json;

use crate::ab::tokens::Counter;
use crate::commands::ab::tokenizer;
use crate::host::Host;
use crate::output::{colour, prompt_text};
use crate::recording::corpus;
use crate::render::StatsView;
use crate::Error;

/// What `ptc trace` shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TraceView {
    /// Every turn in full
    Turns,
    /// The messages the strategy sends for the next turn
    Compressed,
}

/// The turns view or the compressed view of the first `turns` turns (default: all), then the
/// usage figures when `usage` is set.
pub fn trace(
    host: &Host,
    path: &Path,
    view: TraceView,
    raw: bool,
    usage: bool,
    strategy: Option<&str>,
    turns: Option<usize>,
) -> Result<String, Error> {
    let recording = corpus::single(path)?.load(&host.recording_defaults()?)?;
    let k = turns.unwrap_or(recording.turns.len());
    if k > recording.turns.len() {
        return Err(Error::TurnsOutOfRange {
            path: recording.path.clone(),
            asked: k,
            recorded: recording.turns.len(),
        });
    }
    let templates = host.host_templates()?;
    let (bold, red, reset) = if colour() {
        ("\x1b[1m", "\x1b[31m", "\x1b[0m")
    } else {
        ("", "", "")
    };
    let mut text = String::new();
    let needs_prompt = view == TraceView::Compressed || usage;
    let prompt = if needs_prompt {
        let prompter = host.prompter(strategy)?;
        Some(
            prompter
                .render(&recording, k, &mut Counter::new(tokenizer(host, None)?))?
                .0,
        )
    } else {
        None
    };
    match view {
        TraceView::Turns => {
            let shown = |v: &ptc_plugin_api::Value| {
                ptc_strategy_kit::to_clojure(v, ptc_strategy_kit::Limits::new(10, 400))
            };
            let turns: Vec<serde_json::Value> = recording.turns[..k]
                .iter()
                .map(|t| {
                    let mut turn = json!({
                        "number": t.number,
                        "success": t.success,
                        "tool_calls": t.tool_calls.iter().map(|c| json!({
                            "name": c.name.as_str(),
                            "args": shown(&c.args),
                            "result": shown(&c.result),
                        })).collect::<Vec<_>>(),
                        "prints": t.prints.iter().map(|p| p.as_str()).collect::<Vec<_>>(),
                        "result": shown(&t.result),
                    });
                    if let Some(program) = t.program.as_ref().into_option() {
                        turn["program"] = json!(program.as_str());
                    }
                    if raw {
                        turn["raw_response"] = json!(t.raw_response.as_str());
                    }
                    if let Some(error) = t.error.as_ref().into_option() {
                        turn["reason"] = json!(error.reason.as_str());
                        turn["message"] = json!(error.text());
                    }
                    turn
                })
                .collect();
            let context = tera::Context::from_serialize(&json!({
                "turns": turns,
                "max_turns": recording.run.max_turns,
                "bold": bold, "red": red, "reset": reset,
            }))
            .expect("an object is a context");
            text.push_str(&templates.render("trace_turns", &context)?);
        }
        TraceView::Compressed => {
            let prompt = prompt.as_ref().expect("rendered above");
            text.push_str(&prompt_text(host, prompt)?);
        }
    }
    if let Some(prompt) = prompt.filter(|_| usage) {
        let tokenizer = tokenizer(host, None)?;
        let mut counter = Counter::new(tokenizer);
        let messages: Vec<serde_json::Value> = prompt
            .messages
            .iter()
            .map(|m| json!({"role": m.role.as_str(), "chars": m.content.chars().count(), "tokens": counter.message(m)}))
            .collect();
        let chars: usize = prompt
            .messages
            .iter()
            .map(|m| m.content.chars().count())
            .sum();
        let context = tera::Context::from_serialize(&json!({
            "tokenizer": tokenizer.name(),
            "messages": messages,
            "chars": chars,
            "tokens": counter.prompt(&prompt.messages),
            "bold": bold, "red": red, "reset": reset,
        }))
        .expect("an object is a context");
        text.push('\n');
        text.push_str(&templates.render("usage", &context)?);
        let context = tera::Context::from_serialize(&json!({
            "strategy": prompt.strategy,
            "stats": StatsView::from(prompt.stats),
        }))
        .expect("an object is a context");
        text.push('\n');
        text.push_str(&templates.render("compression_box", &context)?);
    }
    Ok(text)
}
