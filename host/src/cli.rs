//! The `ptc` command line.

use std::io::Write;
use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};
use ptc_plugin_api::{OptionValue, Stats};
use serde::Serialize;
use serde_json::json;

use crate::config::Config;
use crate::host::Host;
use crate::render::Prompt;
use crate::Error;

/// Compress the message history of PTC-Lisp code agents with pluggable strategies.
///
/// ptc renders the prompt an agent sends before each turn from a recorded run: the system
/// prompt, then what the strategy keeps of the history (symbols defined, tool calls made,
/// output printed, the latest error, the turns left). Strategies are plugins (dylibs) found in
/// the plugin directories; every text comes from a template you can edit.
#[derive(Debug, Parser)]
#[command(name = "ptc", version, max_term_width = 100)]
pub struct Cli {
    /// Configuration file layered over the built-in defaults [default: ./ptc.toml if present]
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// Set a configuration key, after the files: `println_limit=5` (an option of the selected
    /// strategy, else a [compression] key) or `section.key=value`
    /// (`strategies.single-user-coalesced.println_limit=5`). The value is TOML; anything else
    /// is a string. Repeatable.
    #[arg(long = "set", global = true, value_name = "KEY=VALUE")]
    pub sets: Vec<String>,

    /// Log what ptc does to stderr (-v: debug, -vv: trace); RUST_LOG also works
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// List the strategies loaded from the plugin directories, with their options
    Strategies {
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Render the prompt a recorded run sends before a turn
    ///
    /// The prompt for turn K+1 is rendered from the first K recorded turns (default: all of
    /// them, i.e. the prompt after the last recorded turn).
    Render {
        /// A recording: a JSON file (see the README for the format)
        recording: PathBuf,
        /// Number of recorded turns to render from (0 = the first prompt)
        #[arg(long, value_name = "K")]
        turns: Option<usize>,
        /// The strategy [default: [compression] strategy of the configuration]
        #[arg(long, value_name = "NAME")]
        strategy: Option<String>,
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
}

/// Output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// For people
    Text,
    /// For programs
    Json,
}

/// Runs a parsed command line, writing results to `out` and warnings to stderr.
pub fn run(cli: Cli, out: &mut dyn Write) -> Result<(), Error> {
    let config = Config::load(cli.config.as_deref(), &cli.sets)?;
    let host = Host::new(config);
    for warning in host.plugin_warnings() {
        eprintln!("warning: {warning}");
    }
    for (name, origin) in host.unused_strategy_tables() {
        eprintln!("warning: {origin} configures strategy `{name}`, which is not loaded");
    }
    let text = match cli.command {
        Command::Strategies { format } => strategies(&host, format)?,
        Command::Render {
            recording,
            turns,
            strategy,
            format,
        } => {
            let renderer = host.renderer(strategy.as_deref())?;
            let recording = host.load_recording(&recording)?;
            let turns = turns.unwrap_or(recording.turns.len());
            let prompt = renderer.render(&recording, turns)?;
            match format {
                Format::Json => prompt_json(&prompt),
                Format::Text => prompt_text(&host, &prompt)?,
            }
        }
    };
    out.write_all(text.as_bytes()).map_err(Error::Output)?;
    out.flush().map_err(Error::Output)
}

fn strategies(host: &Host, format: Format) -> Result<String, Error> {
    let strategies = host.plugins().strategies();
    Ok(match format {
        Format::Json => {
            let list: Vec<_> = strategies
                .iter()
                .map(|s| {
                    json!({
                        "name": s.name,
                        "version": s.version,
                        "description": s.description,
                        "file": s.file.display().to_string(),
                        "options": s.options.iter().map(|o| json!({
                            "name": o.name.as_str(),
                            "default": option_json(&o.default),
                            "doc": o.doc.as_str(),
                        })).collect::<Vec<_>>(),
                    })
                })
                .collect();
            pretty(&list)
        }
        Format::Text => {
            let mut text = String::new();
            if strategies.is_empty() {
                text.push_str("no strategies loaded (searched: ");
                let dirs: Vec<String> = host
                    .config()
                    .plugin_directories()
                    .iter()
                    .map(|d| d.display().to_string())
                    .collect();
                text.push_str(&dirs.join(", "));
                text.push_str(")\n");
            }
            for s in strategies {
                text.push_str(&format!(
                    "{} {}\n    {}\n    {}\n",
                    s.name,
                    s.version,
                    s.description,
                    s.file.display()
                ));
                let width = s
                    .options
                    .iter()
                    .map(|o| o.name.len() + o.default.to_string().len())
                    .max()
                    .unwrap_or(0)
                    + 3;
                for o in &s.options {
                    let setting = format!("{} = {}", o.name, o.default);
                    text.push_str(&format!("    {setting:width$}  {}\n", o.doc));
                }
            }
            text
        }
    })
}

fn option_json(value: &OptionValue) -> serde_json::Value {
    match value {
        OptionValue::Boolean(b) => json!(b),
        OptionValue::Integer(i) => json!(i),
        OptionValue::Float(f) => json!(f),
        OptionValue::String(s) => json!(s.as_str()),
    }
}

/// `ptc render --format json`: exactly `strategy`, `turns`, `messages`, `stats`.
#[derive(Serialize)]
struct PromptJson<'a> {
    strategy: &'a str,
    turns: usize,
    messages: Vec<MessageJson<'a>>,
    stats: StatsJson,
}

#[derive(Serialize)]
struct MessageJson<'a> {
    role: &'static str,
    content: &'a str,
}

#[derive(Serialize)]
struct StatsJson {
    turns_compressed: u64,
    tool_calls_total: u64,
    tool_calls_shown: u64,
    tool_calls_dropped: u64,
    printlns_total: u64,
    printlns_shown: u64,
    printlns_dropped: u64,
    error_turns_collapsed: u64,
}

impl From<Stats> for StatsJson {
    fn from(s: Stats) -> StatsJson {
        StatsJson {
            turns_compressed: s.turns_compressed,
            tool_calls_total: s.tool_calls_total,
            tool_calls_shown: s.tool_calls_shown,
            tool_calls_dropped: s.tool_calls_dropped,
            printlns_total: s.printlns_total,
            printlns_shown: s.printlns_shown,
            printlns_dropped: s.printlns_dropped,
            error_turns_collapsed: s.error_turns_collapsed,
        }
    }
}

fn prompt_json(prompt: &Prompt) -> String {
    pretty(&PromptJson {
        strategy: &prompt.strategy,
        turns: prompt.turns,
        messages: prompt
            .messages
            .iter()
            .map(|m| MessageJson {
                role: m.role.as_str(),
                content: &m.content,
            })
            .collect(),
        stats: prompt.stats.into(),
    })
}

fn prompt_text(host: &Host, prompt: &Prompt) -> Result<String, Error> {
    let context = tera::Context::from_serialize(&PromptJson {
        strategy: &prompt.strategy,
        turns: prompt.turns,
        messages: prompt
            .messages
            .iter()
            .map(|m| MessageJson {
                role: m.role.as_str(),
                content: &m.content,
            })
            .collect(),
        stats: prompt.stats.into(),
    })
    .expect("a struct serializes to a context");
    Ok(host.host_templates()?.render("text_output", &context)?)
}

fn pretty<T: Serialize>(value: &T) -> String {
    let mut text = serde_json::to_string_pretty(value).expect("JSON output serializes");
    text.push('\n');
    text
}
