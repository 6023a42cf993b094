//! The `ptc` command line.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};
use ptc_plugin_api::OptionValue;
use serde::Serialize;
use serde_json::json;

use crate::ab::report;
use crate::ab::tokens::{Counter, Tokenizer};
use crate::ab::{run as run_ab, AbPlan, Variant};
use crate::config::Config;
use crate::host::Host;
use crate::recording::corpus::{self, Source};
use crate::recording::{Recording, Severity};
use crate::render::{Prompt, PromptView, StatsView};
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

    /// Load plugin files and directories that another user could write (group- or
    /// world-writable, or owned by someone else than you or root); the same as `[plugins]
    /// allow_insecure = true`
    #[arg(long, global = true)]
    pub allow_insecure_plugins: bool,

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
    /// Compare strategies on recorded runs: tokens, prompt-cache cost, retention, render time
    ///
    /// Renders the prompt sent before every turn of every recording through every strategy and
    /// measures it. Without RECORDINGS it runs on the bundled example recordings; a directory
    /// stands for every .json file in it. Strategies come from --strategies, else `[ab]
    /// strategies`, else every loaded strategy; `name@option=value` is a variant with other
    /// options.
    ///
    /// A strategy that cannot be used (its plugin was skipped) or fails on a recording is
    /// reported as failed, with the reason, in the report and as a `warning:` on stderr; the
    /// others complete and the exit code is 0. Exit 2 when every strategy asked for (the
    /// baseline when named) rendered no prompt at all.
    Ab {
        /// Recording files or directories [default: the bundled examples]
        recordings: Vec<PathBuf>,
        /// Comma-separated strategies or variants, e.g.
        /// `full-history,single-user-coalesced,single-user-coalesced@println_limit=5`
        #[arg(long, value_name = "LIST")]
        strategies: Option<String>,
        /// BPE encoding: o200k_base or cl100k_base [default: `[ab] tokenizer`]
        #[arg(long, value_name = "NAME")]
        tokenizer: Option<String>,
        /// Pricing profile of the cost column [default: `[ab] pricing`]
        #[arg(long, value_name = "NAME")]
        pricing: Option<String>,
        #[arg(long, value_enum, default_value_t = AbFormat::Table)]
        format: AbFormat,
        /// Also write a self-contained HTML report with charts
        #[arg(long, value_name = "FILE.html")]
        report: Option<PathBuf>,
        /// Report render times as 0, so that the output is byte-for-byte reproducible
        #[arg(long)]
        no_timing: bool,
    },
    /// Check recordings: syntax, types and rules, every problem reported
    ///
    /// Rules: consecutive turn numbers from 1, an `error` on failed turns, no more turns than
    /// `max_turns`, valid names, mission placeholders that have data; tool calls naming tools
    /// the recording does not declare are warnings. Exit 0 when there is no error, 2 otherwise.
    Validate {
        /// Recording files, JSONL files or directories [default: the bundled examples]
        paths: Vec<PathBuf>,
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Print the JSON Schema of the recording format
    Schema,
    /// Answer render requests from another program: JSON lines on stdin and stdout
    ///
    /// Request: {"id", "recording", "turns"?, "strategy"?, "options"?}; response: {"id",
    /// "strategy", "turns", "messages", "stats"} or {"id", "error": {"code", "message"}}. See
    /// the README.
    Serve {
        /// Serve on stdin/stdout (the only transport)
        #[arg(long, required = true)]
        stdio: bool,
    },
    /// Start a strategy of your own: a crate with a small real strategy, its templates, a README
    /// and a test, depending on this checkout's ptc-plugin-api
    NewPlugin {
        /// The strategy's name (kebab-case); the crate is ptc-strategy-NAME
        name: String,
        /// Where to create it [default: ./NAME]
        #[arg(long, value_name = "DIR")]
        path: Option<PathBuf>,
        /// The ptc-plugin-api to depend on [default: the one of the checkout ptc was built from]
        #[arg(long, value_name = "DIR")]
        api_path: Option<PathBuf>,
    },
    /// Write the default ptc.toml and every default template into DIR, to start editing them
    Init {
        /// Where to write [default: the working directory]
        dir: Option<PathBuf>,
        /// Overwrite files that exist
        #[arg(long)]
        force: bool,
    },
    /// Make a recording from another runtime's log
    Import {
        #[command(subcommand)]
        from: ImportFrom,
    },
    /// Show a recorded run: its turns, or what a strategy sends for the next turn
    Trace {
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
        /// The strategy of the compressed view and the statistics
        #[arg(long, value_name = "NAME")]
        strategy: Option<String>,
        /// Number of recorded turns to show [default: all]
        #[arg(long, value_name = "K")]
        turns: Option<usize>,
    },
    /// A unified diff of the prompts two strategies send before a turn
    Diff {
        /// A recording: a JSON file
        recording: PathBuf,
        /// Number of recorded turns to render from [default: all]
        #[arg(long, value_name = "K")]
        turns: Option<usize>,
        /// The two strategies, `A,B` (variants allowed)
        #[arg(long, value_name = "A,B")]
        strategies: String,
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

/// Where `ptc import` reads from.
#[derive(Debug, Subcommand)]
pub enum ImportFrom {
    /// A ptc_runner JSONL trace log: the root run becomes a recording; what the trace lost is
    /// summarized on stderr
    PtcRunner {
        /// The trace log (JSONL)
        trace: PathBuf,
        /// Write the recording here instead of stdout
        #[arg(short, long, value_name = "OUT")]
        output: Option<PathBuf>,
    },
}

/// What `ptc trace` shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TraceView {
    /// Every turn in full
    Turns,
    /// The messages the strategy sends for the next turn
    Compressed,
}

/// Output format of `ptc ab`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum AbFormat {
    /// Aligned columns, for a terminal
    Table,
    /// Everything, per-turn series included
    Json,
    /// Markdown tables
    Markdown,
    /// One row per prompt
    Csv,
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
    let mut config = Config::load(cli.config.as_deref(), &cli.sets)?;
    if cli.allow_insecure_plugins {
        config.layer_set("plugins.allow_insecure=true")?;
    }
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
            let prompter = host.prompter(strategy.as_deref())?;
            let recording = corpus::single(&recording)?.load(&host.recording_defaults()?)?;
            let turns = turns.unwrap_or(recording.turns.len());
            let tokenizer = tokenizer(&host, None)?;
            let (prompt, _) = prompter.render(&recording, turns, &mut Counter::new(tokenizer))?;
            match format {
                Format::Json => prompt_json(&prompt),
                Format::Text => prompt_text(&host, &prompt)?,
            }
        }
        Command::Ab {
            recordings,
            strategies,
            tokenizer,
            pricing,
            format,
            report,
            no_timing,
        } => ab(
            &host,
            &recordings,
            strategies.as_deref(),
            tokenizer.as_deref(),
            pricing.as_deref(),
            format,
            report.as_deref(),
            no_timing,
        )?,
        Command::Diff {
            recording,
            turns,
            strategies,
        } => diff(&host, &recording, turns, &strategies)?,
        Command::Schema => pretty(&crate::recording::schema()),
        Command::Serve { .. } => {
            let stdin = std::io::stdin();
            crate::commands::serve::serve(&host, stdin.lock(), &mut *out)?;
            return Ok(());
        }
        Command::NewPlugin {
            name,
            path,
            api_path,
        } => {
            let dir = path.unwrap_or_else(|| PathBuf::from(&name));
            let api = match api_path.or_else(crate::commands::new_plugin::default_api_path) {
                Some(api) => api,
                None => return Err(Error::Usage(
                    "the ptc-plugin-api checkout ptc was built from is gone; pass --api-path DIR"
                        .into(),
                )),
            };
            let files = crate::commands::new_plugin::scaffold(&name, &dir, &api)?;
            format!(
                "created {} ({} files); build it with `cargo build --release --manifest-path {}/Cargo.toml`\n",
                dir.display(),
                files.len(),
                dir.display()
            )
        }
        Command::Init { dir, force } => init(
            &host,
            dir.as_deref().unwrap_or(std::path::Path::new(".")),
            force,
        )?,
        Command::Import {
            from: ImportFrom::PtcRunner { trace, output },
        } => {
            let imported =
                crate::recording::import::ptc_runner(&trace, &host.recording_defaults()?)?;
            eprintln!(
                "imported 1 run ({} turns) from {}: {}",
                imported.turns,
                trace.display(),
                imported.losses
            );
            let text = pretty(&imported.json);
            match output {
                Some(path) => {
                    write_atomically(&path, text.as_bytes())?;
                    String::new()
                }
                None => text,
            }
        }
        Command::Trace {
            recording,
            view,
            raw,
            usage,
            strategy,
            turns,
        } => trace(
            &host,
            &recording,
            view,
            raw,
            usage,
            strategy.as_deref(),
            turns,
        )?,
        Command::Validate { paths, format } => {
            let (text, errors, recordings) = validate(&host, &paths, format)?;
            out.write_all(text.as_bytes()).map_err(Error::Output)?;
            out.flush().map_err(Error::Output)?;
            if errors > 0 {
                return Err(Error::Invalid { errors, recordings });
            }
            return Ok(());
        }
    };
    out.write_all(text.as_bytes()).map_err(Error::Output)?;
    out.flush().map_err(Error::Output)
}

fn tokenizer(host: &Host, name: Option<&str>) -> Result<Tokenizer, Error> {
    Tokenizer::named(name.unwrap_or(host.config().ab_tokenizer()))
}

#[allow(clippy::too_many_arguments)]
fn ab(
    host: &Host,
    paths: &[PathBuf],
    strategies: Option<&str>,
    tokenizer: Option<&str>,
    pricing: Option<&str>,
    format: AbFormat,
    report_file: Option<&std::path::Path>,
    no_timing: bool,
) -> Result<String, Error> {
    let plan = AbPlan::new(host, strategies, tokenizer, pricing)?;
    let sources = corpus::sources(paths)?;
    let bar = if std::io::stderr().is_terminal() && sources.len() > 1 {
        indicatif::ProgressBar::new(sources.len() as u64)
    } else {
        indicatif::ProgressBar::hidden()
    };
    let detail = matches!(format, AbFormat::Json | AbFormat::Csv);
    let mut result = run_ab(host, plan, &sources, detail, &|| bar.inc(1))?;
    bar.finish_and_clear();
    if no_timing {
        for run in &mut result.runs {
            run.totals.render_ns = 0;
            for p in &mut run.prompts {
                p.render_ns = 0;
            }
        }
    }
    if let Some(failures) = result.all_asked_failed() {
        return Err(Error::AbAllFailed { failures });
    }
    for (variant, summary) in result.variants.iter().zip(result.summaries()) {
        if let Some(err) = summary.first_error {
            eprintln!(
                "warning: strategy {} failed on {} recording(s); first: {err}",
                variant.label, summary.failed
            );
        }
    }
    if let Some(file) = report_file {
        write_atomically(file, report::html(&result).as_bytes())?;
    }
    Ok(match format {
        AbFormat::Table => report::table(&result),
        AbFormat::Markdown => report::markdown_tables(&result),
        AbFormat::Csv => report::csv(&result),
        AbFormat::Json => pretty(&report::json(&result)),
    })
}

/// `ptc trace`: the turns view or the compressed view, and the usage figures.
fn trace(
    host: &Host,
    path: &std::path::Path,
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
    let colour = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let (bold, red, reset) = if colour {
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

/// `ptc init`: the default configuration and templates, written where users edit them.
fn init(host: &Host, dir: &std::path::Path, force: bool) -> Result<String, Error> {
    let mut files: Vec<(PathBuf, String)> = vec![(
        dir.join(crate::CONFIG_FILE_NAME),
        crate::DEFAULT_CONFIG.to_owned(),
    )];
    let templates = dir.join("templates");
    for (name, text) in crate::render::templates::host_defaults() {
        files.push((templates.join(format!("{name}.tera")), text.to_owned()));
    }
    // A section the strategy shares with the kit goes to coalesce/ once, where editing it
    // changes every strategy that shows it; the strategy's own templates to its own folder.
    let shared = ptc_strategy_kit::coalesce::TEMPLATES;
    for strategy in host.plugins().strategies() {
        for (name, text) in &strategy.templates {
            let folder = if shared.contains(&(name.as_str(), text.as_str())) {
                crate::host::SHARED_TEMPLATES_DIR
            } else {
                &strategy.name
            };
            let path = templates.join(folder).join(format!("{name}.tera"));
            if !files.iter().any(|(known, _)| *known == path) {
                files.push((path, text.clone()));
            }
        }
    }
    if !force {
        if let Some((existing, _)) = files.iter().find(|(path, _)| path.exists()) {
            return Err(Error::Exists {
                path: existing.clone(),
            });
        }
    }
    for (path, text) in &files {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|source| Error::WriteFile {
                path: parent.to_owned(),
                source,
            })?;
        }
        write_atomically(path, text.as_bytes())?;
    }
    Ok(format!(
        "wrote {} files into {}\n",
        files.len(),
        dir.display()
    ))
}

/// Every problem of every recording: (report, errors, recordings read).
fn validate(
    host: &Host,
    paths: &[PathBuf],
    format: Format,
) -> Result<(String, usize, usize), Error> {
    let defaults = host.recording_defaults()?;
    let sources = corpus::sources(paths)?;
    let mut errors = 0;
    let mut text = String::new();
    let mut json = Vec::new();
    for source in &sources {
        let (file, first_line) = match source {
            Source::Line { path, line, .. } => (path.clone(), *line),
            other => (other.label(), 1),
        };
        let problems = match source.bytes() {
            Ok(bytes) => Recording::check(&bytes, &file, first_line, &defaults),
            Err(err) => vec![crate::recording::Problem {
                severity: Severity::Error,
                line: None,
                column: None,
                json_path: ".".into(),
                message: err.to_string(),
            }],
        };
        for p in &problems {
            if p.severity == Severity::Error {
                errors += 1;
            }
            let place = match (p.line, p.column) {
                (Some(line), Some(column)) => format!("{}:{line}:{column}", file.display()),
                _ => source.label().display().to_string(),
            };
            text.push_str(&format!(
                "{place}: {}: at `{}`: {}\n",
                p.severity.as_str(),
                p.json_path,
                p.message
            ));
            json.push(json!({
                "file": file.display().to_string(),
                "line": p.line.or((first_line > 1).then_some(first_line)),
                "column": p.column,
                "severity": p.severity.as_str(),
                "json_path": p.json_path,
                "message": p.message,
            }));
        }
    }
    let summary = format!(
        "{} recording(s), {errors} error(s), {} warning(s)\n",
        sources.len(),
        json.len() - errors
    );
    Ok(match format {
        Format::Text => (text + &summary, errors, sources.len()),
        Format::Json => (
            pretty(&json!({"recordings": sources.len(), "errors": errors, "problems": json})),
            errors,
            sources.len(),
        ),
    })
}

/// Writes `bytes` to `path` through a temporary file in the same directory, so that a failed
/// run never leaves half a file.
fn write_atomically(path: &std::path::Path, bytes: &[u8]) -> Result<(), Error> {
    let fail = |source| Error::WriteFile {
        path: path.to_owned(),
        source,
    };
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temporary = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    std::fs::write(&temporary, bytes).map_err(fail)?;
    std::fs::rename(&temporary, path).map_err(|e| {
        let _ = std::fs::remove_file(&temporary);
        fail(e)
    })
}

fn diff(
    host: &Host,
    path: &std::path::Path,
    turns: Option<usize>,
    strategies: &str,
) -> Result<String, Error> {
    let specs: Vec<&str> = strategies.split(',').map(str::trim).collect();
    let [a, b] = specs.as_slice() else {
        return Err(Error::BadVariant {
            spec: strategies.into(),
            reason: "--strategies takes exactly two, A,B".into(),
        });
    };
    let plan = AbPlan::new(host, Some(strategies), None, None)?;
    let recording = corpus::single(path)?.load(&host.recording_defaults()?)?;
    let turns = turns.unwrap_or(recording.turns.len());
    let mut counter = Counter::new(plan.tokenizer);
    let mut texts = Vec::new();
    for spec in [a, b] {
        let variant = Variant::parse(spec)?;
        let prompter = crate::ab::prompter_for(host, &variant)?;
        let (prompt, _) = prompter.render(&recording, turns, &mut counter)?;
        let mut text = String::new();
        for m in &prompt.messages {
            text.push_str(&format!(
                "=== {} ===\n{}\n\n",
                m.role.as_str().to_uppercase(),
                m.content
            ));
        }
        texts.push(text);
    }
    let diff = similar::TextDiff::from_lines(&texts[0], &texts[1]);
    let unified = diff
        .unified_diff()
        .context_radius(3)
        .header(a, b)
        .to_string();
    let colour = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    if !colour {
        return Ok(unified);
    }
    Ok(unified
        .lines()
        .map(|line| {
            let code = match line.as_bytes().first() {
                Some(b'+') => "32",
                Some(b'-') => "31",
                Some(b'@') => "36",
                _ => return format!("{line}\n"),
            };
            format!("\x1b[{code}m{line}\x1b[0m\n")
        })
        .collect())
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

fn prompt_json(prompt: &Prompt) -> String {
    pretty(&PromptView::from(prompt))
}

fn prompt_text(host: &Host, prompt: &Prompt) -> Result<String, Error> {
    let context = tera::Context::from_serialize(&PromptView::from(prompt))
        .expect("a struct serializes to a context");
    Ok(host.host_templates()?.render("text_output", &context)?)
}

fn pretty<T: Serialize>(value: &T) -> String {
    let mut text = serde_json::to_string_pretty(value).expect("JSON output serializes");
    text.push('\n');
    text
}
