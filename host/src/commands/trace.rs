//! `ptc trace`: a recorded run shown turn by turn, or the messages a strategy sends for the next
//! turn, and on request their sizes and the compression statistics.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::ValueEnum;
use serde_json::json;

use crate::commands::args::{ConfigArgs, RecordingArgs};
use crate::commands::Context;
use crate::host::Host;
use crate::output::{colour, escape_controls, prompt_text, terminal, write_out};
use crate::render::{RenderError, StatsView};
use crate::tokens::Counter;
use crate::Error;

/// Show a recorded run: its turns, or what a strategy sends for the next turn
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A recording: a JSON file, or FILE.jsonl:LINE
    recording: PathBuf,
    /// `turns`: each turn's program, tool calls, output and result or error;
    /// `compressed`: the messages the strategy sends for the next turn
    #[arg(long, value_enum, default_value_t = TraceView::Turns)]
    view: TraceView,
    /// Include each turn's raw response (the LLM's reasoning)
    #[arg(long)]
    raw: bool,
    /// Add sizes (characters and tokens per message) and the compression statistics
    #[arg(long)]
    usage: bool,
    /// The strategy of the compressed view and the statistics, or `as-sent` for the request
    /// the agent sent
    #[arg(long, value_name = "NAME")]
    strategy: Option<String>,
    /// Number of recorded turns to show [default: all]
    #[arg(long, value_name = "K")]
    turns: Option<usize>,
    /// For debugging only: the compressed view and the statistics show private values (names
    /// and map keys starting with `_`, private `data/` entries) instead of hiding them. Those
    /// prompts are then not what the agent sees: ptc hides private values from every prompt it
    /// renders
    #[arg(long)]
    show_private: bool,
    #[command(flatten)]
    config: ConfigArgs,
    #[command(flatten)]
    limits: RecordingArgs,
}

/// `ptc trace`: plugins load only when it renders (the compressed view, the statistics).
pub fn exec(args: Args, context: &Context, out: &mut dyn Write) -> Result<(), Error> {
    let host = context
        .reading(&args.config, &args.limits)?
        .showing_private(args.show_private);
    let text = trace(
        &host,
        &args.recording,
        args.view,
        args.raw,
        args.usage,
        args.strategy.as_deref(),
        args.turns,
    )?;
    write_out(out, &text)
}

/// What `ptc trace` shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TraceView {
    /// Every turn in full
    Turns,
    /// The messages the strategy sends for the next turn
    Compressed,
}

/// The turns view or the compressed view of the first `turns` turns (default: all), then the
/// usage figures when `usage` is set. On a terminal, the control characters of recorded text
/// (but newline and tab) are shown escaped.
pub fn trace(
    host: &Host,
    path: &Path,
    view: TraceView,
    raw: bool,
    usage: bool,
    strategy: Option<&str>,
    turns: Option<usize>,
) -> Result<String, Error> {
    let options = Shown {
        view,
        raw,
        usage,
        escape: terminal(),
    };
    trace_with(host, path, options, strategy, turns)
}

/// What `ptc trace` shows, and whether control characters are escaped.
#[derive(Clone, Copy)]
struct Shown {
    view: TraceView,
    raw: bool,
    usage: bool,
    escape: bool,
}

fn trace_with(
    host: &Host,
    path: &Path,
    Shown {
        view,
        raw,
        usage,
        escape,
    }: Shown,
    strategy: Option<&str>,
    turns: Option<usize>,
) -> Result<String, Error> {
    let shown_text = |text: &str| -> String {
        if escape {
            escape_controls(text).into_owned()
        } else {
            text.to_owned()
        }
    };
    let recording = crate::ops::recording_named(host, path)?;
    let k = turns.unwrap_or(recording.turns.len());
    if k > recording.turns.len() {
        return Err(RenderError::TurnsOutOfRange {
            path: recording.path.clone(),
            asked: k,
            recorded: recording.turns.len(),
        }
        .into());
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
        let prompter = host.prompter_or_as_sent(strategy)?;
        Some(
            prompter
                .render(&recording, k, &mut Counter::new(host.tokenizer(None)?))?
                .0,
        )
    } else {
        None
    };
    match view {
        TraceView::Turns => {
            let shown = |v: &ptc_plugin_api::Value| {
                shown_text(&ptc_strategy_kit::to_clojure(
                    v,
                    ptc_strategy_kit::Limits::new(10, 400),
                ))
            };
            let turns: Vec<serde_json::Value> = recording.turns[..k]
                .iter()
                .map(|t| {
                    let mut turn = json!({
                        "number": t.number,
                        "success": t.success,
                        "tool_calls": t.tool_calls.iter().map(|c| json!({
                            "name": shown_text(c.name.as_str()),
                            "args": shown(&c.args),
                            "result": shown(&c.result),
                        })).collect::<Vec<_>>(),
                        "prints": t.prints.iter().map(|p| shown_text(p)).collect::<Vec<_>>(),
                        "result": shown(&t.result),
                    });
                    if let Some(program) = t.program.as_ref().into_option() {
                        turn["program"] = json!(shown_text(program));
                    }
                    if raw {
                        turn["raw_response"] = json!(shown_text(&t.raw_response));
                    }
                    if let Some(error) = t.error.as_ref().into_option() {
                        turn["reason"] = json!(shown_text(&error.reason));
                        turn["message"] = json!(shown_text(error.text()));
                    }
                    turn
                })
                .collect();
            let context = json!({
                "turns": turns,
                "max_turns": recording.run.max_turns,
                "bold": bold, "red": red, "reset": reset,
            });
            text.push_str(&templates.render("trace_turns", &context)?);
        }
        TraceView::Compressed => {
            let prompt = prompt.as_ref().expect("rendered above");
            text.push_str(&shown_text(&prompt_text(host, prompt)?));
        }
    }
    if let Some(prompt) = prompt.filter(|_| usage) {
        let tokenizer = host.tokenizer(None)?;
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
        let context = json!({
            "tokenizer": tokenizer.name(),
            "messages": messages,
            "chars": chars,
            "tokens": counter.prompt(&prompt.messages),
            "bold": bold, "red": red, "reset": reset,
        });
        text.push('\n');
        text.push_str(&templates.render("usage", &context)?);
        let context = json!({
            "strategy": prompt.strategy,
            "stats": StatsView::of(&prompt),
        });
        text.push('\n');
        text.push_str(&templates.render("compression_box", &context)?);
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host() -> Host {
        let mut config = crate::Config::defaults();
        config
            .layer_set("templates.directory=\"/nonexistent/ptc-templates\"")
            .unwrap();
        Host::with_strategies(config, Vec::new())
    }

    #[test]
    fn recorded_control_characters_are_escaped_on_a_terminal_only() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("escapes.json");
        let recording = serde_json::json!({
            "mission": "m",
            "turns": [{
                "number": 1,
                "raw_response": "plan\u{1b}]0;owned\u{7}\n```clojure\n(println 1)\n```",
                "program": "(println \"\u{1b}[2J\")",
                "success": false,
                "prints": ["\u{1b}[31mred\ttab"],
                // Names are checked when the recording is read (no control characters), so
                // here only values and text the model wrote carry them.
                "tool_calls": [{"name": "t", "args": {"k": "\u{1b}"}, "result": "\u{8}"}],
                "error": {"reason": "r\u{1b}", "message": "m\u{1b}[1A"},
            }],
        });
        std::fs::write(&path, recording.to_string()).unwrap();
        let run = |escape| {
            let options = Shown {
                view: TraceView::Turns,
                raw: true,
                usage: false,
                escape,
            };
            trace_with(&host(), &path, options, None, None).unwrap()
        };
        let escaped = run(true);
        assert!(
            !escaped.contains(|c: char| c.is_control() && c != '\n' && c != '\t'),
            "{escaped:?}"
        );
        for shown in [
            "plan\\x1b]0;owned\\x07",
            "\\x1b[2J",
            "\\x1b[31mred\ttab",
            "r\\x1b",
            "m\\x1b[1A",
        ] {
            assert!(escaped.contains(shown), "{shown} in {escaped}");
        }
        let piped = run(false);
        assert!(piped.contains("\u{1b}[31mred\ttab"), "{piped:?}");
    }
}
