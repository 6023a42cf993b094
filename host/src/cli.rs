//! The `ptc` command line: its flags and subcommands (clap), and the dispatch of each
//! subcommand to its body in `commands/`.

use std::io::Write;
use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::commands;
use crate::config::Config;
use crate::host::Host;
use crate::output::write_out;
use crate::Error;

pub use crate::commands::ab::AbFormat;
pub use crate::commands::render::{RenderFormat, RequestArgs};
pub use crate::commands::trace::TraceView;
pub use crate::output::Format;
pub use crate::render::request::{Placement, Ttl};

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

    /// Largest recording read, in bytes: a recording file, a line of a JSONL corpus or of a
    /// trace log to import; a larger one is an error, found before more is read
    #[arg(long, global = true, value_name = "BYTES", default_value_t = crate::recording::DEFAULT_MAX_RECORDING_BYTES)]
    pub max_recording_bytes: u64,

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
    ///
    /// A recording that cannot be read is left out with a `warning:` naming it; the others are
    /// measured and written, and the exit code is 1 (`--strict`: exit 2 at the first). Exit 2
    /// when no recording could be read or none was found.
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
        /// Also write a self-contained HTML report: the tables, charts, and the prompts side by
        /// side (those of the first 50 recordings, at most 8 MiB of distinct lines)
        #[arg(long, value_name = "FILE.html")]
        report: Option<PathBuf>,
        /// Report render times as 0, so that the output is byte-for-byte reproducible
        #[arg(long)]
        no_timing: bool,
        /// Stop at the first recording that cannot be read (exit 2, no results) instead of
        /// leaving it out, warning about it, and exiting 1 after the results
        #[arg(long)]
        strict: bool,
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
        /// Longest request line accepted, in bytes; a longer one is answered with the error
        /// code `too_large` and skipped, never held in memory
        #[arg(long, value_name = "BYTES", default_value_t = commands::serve::DEFAULT_MAX_REQUEST_BYTES)]
        max_request_bytes: usize,
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
    ///
    /// `--format anthropic` and `--format openai` print a request body to send as it is
    /// (`curl https://api.anthropic.com/v1/messages ... -d @body.json`). Anthropic: the system
    /// messages' blocks in `system`, every other message's blocks as text blocks, and
    /// `cache_control` on the blocks --cache-placement chooses (at most 4). OpenAI: one string
    /// per message; OpenAI caches prompt prefixes without markers. Both leave out blank blocks
    /// and messages and keep consecutive messages of one role as they are.
    Render {
        /// A recording: a JSON file (see the README for the format)
        recording: PathBuf,
        /// Number of recorded turns to render from (0 = the first prompt)
        #[arg(long, value_name = "K")]
        turns: Option<usize>,
        /// The strategy [default: [compression] strategy of the configuration]
        #[arg(long, value_name = "NAME")]
        strategy: Option<String>,
        /// What to print
        #[arg(long, value_enum, default_value_t = RenderFormat::Text)]
        format: RenderFormat,
        /// The request's model (anthropic, openai)
        /// [default: claude-sonnet-4-5 for anthropic, gpt-5 for openai]
        #[arg(long, value_name = "NAME", help_heading = "Request options")]
        model: Option<String>,
        /// The reply's token limit: `max_tokens` (anthropic, which requires it) or
        /// `max_completion_tokens` (openai, left out when not given) [default: 4096 for anthropic]
        #[arg(long, value_name = "N", help_heading = "Request options",
              value_parser = clap::value_parser!(u32).range(1..))]
        max_tokens: Option<u32>,
        /// Which blocks carry a `cache_control` breakpoint (anthropic) [default: strategy]
        #[arg(
            long,
            value_enum,
            value_name = "POLICY",
            help_heading = "Request options"
        )]
        cache_placement: Option<Placement>,
        /// How long the cache keeps what a breakpoint writes (anthropic): 1h adds
        /// `"ttl": "1h"` to every `cache_control` [default: 5m]
        #[arg(long, value_enum, value_name = "TTL", help_heading = "Request options")]
        cache_ttl: Option<Ttl>,
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
        /// Write the recording here instead of stdout; never the trace itself, and an
        /// existing file only with --force
        #[arg(short, long, value_name = "OUT")]
        output: Option<PathBuf>,
        /// Overwrite the --output file when it exists
        #[arg(long)]
        force: bool,
    },
}

/// Runs a parsed command line, writing results to `out` and warnings to stderr.
pub fn run(cli: Cli, out: &mut dyn Write) -> Result<(), Error> {
    crate::recording::set_max_recording_bytes(cli.max_recording_bytes);
    let config = Config::load_allowing_insecure(
        cli.config.as_deref(),
        &cli.sets,
        cli.allow_insecure_plugins,
    )?;
    // Plugins are loaded by the commands that use strategies only (`trace` when it renders):
    // the others run no plugin code.
    let host = Host::new(config).on_plugins_loaded(|host| {
        for warning in host.plugin_warnings() {
            eprintln!("warning: {warning}");
        }
        for (name, origin) in host.unused_strategy_tables() {
            eprintln!("warning: {origin} configures strategy `{name}`, which is not loaded");
        }
    });
    if matches!(
        cli.command,
        Command::Strategies { .. }
            | Command::Render { .. }
            | Command::Ab { .. }
            | Command::Diff { .. }
            | Command::Serve { .. }
            | Command::Init { .. }
    ) {
        host.plugins();
    }
    let text = match cli.command {
        Command::Strategies { format } => commands::strategies::strategies(&host, format)?,
        Command::Render {
            recording,
            turns,
            strategy,
            format,
            model,
            max_tokens,
            cache_placement,
            cache_ttl,
        } => commands::render::render(
            &host,
            &recording,
            turns,
            strategy.as_deref(),
            format,
            &RequestArgs {
                model,
                max_tokens,
                placement: cache_placement,
                ttl: cache_ttl,
            },
        )?,
        Command::Ab {
            recordings,
            strategies,
            tokenizer,
            pricing,
            format,
            report,
            no_timing,
            strict,
        } => {
            return commands::ab::ab(
                &host,
                &recordings,
                strategies.as_deref(),
                tokenizer.as_deref(),
                pricing.as_deref(),
                format,
                report.as_deref(),
                no_timing,
                strict,
                out,
            );
        }
        Command::Diff {
            recording,
            turns,
            strategies,
        } => commands::diff::diff(&host, &recording, turns, &strategies)?,
        Command::Schema => commands::schema::schema(),
        Command::Serve {
            max_request_bytes, ..
        } => {
            return commands::serve::serve(&host, std::io::stdin().lock(), out, max_request_bytes);
        }
        Command::NewPlugin {
            name,
            path,
            api_path,
        } => commands::new_plugin::new_plugin(&name, path, api_path)?,
        Command::Init { dir, force } => commands::init::init(&host, dir.as_deref(), force)?,
        Command::Import {
            from:
                ImportFrom::PtcRunner {
                    trace,
                    output,
                    force,
                },
        } => commands::import::ptc_runner(&host, &trace, output.as_deref(), force)?,
        Command::Trace {
            recording,
            view,
            raw,
            usage,
            strategy,
            turns,
        } => commands::trace::trace(
            &host,
            &recording,
            view,
            raw,
            usage,
            strategy.as_deref(),
            turns,
        )?,
        Command::Validate { paths, format } => {
            return commands::validate::validate(&host, &paths, format, out);
        }
    };
    write_out(out, &text)
}
