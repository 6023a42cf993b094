//! The `ptc` command line: its flags and subcommands (clap), and the dispatch of each
//! subcommand to its body in `commands/`.

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, ColorChoice, CommandFactory, Parser, Subcommand};

use crate::commands;
use crate::config::Config;
use crate::host::Host;
use crate::output::write_out;
use crate::Error;

pub use crate::ab::shard::Shard;
pub use crate::commands::ab::AbFormat;
pub use crate::commands::ab_merge::MergeFormat;
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
///
/// The configuration options (--config, --set, --allow-insecure-plugins) belong to the commands
/// that read the configuration; they may also come before the command (`ptc --config F ab`).
#[derive(Debug, Parser)]
#[command(name = "ptc", version, max_term_width = 100)]
pub struct Cli {
    #[command(flatten)]
    pub config: ConfigArgs,

    /// Log what ptc does to stderr (-v: debug, -vv: trace); RUST_LOG also works
    #[arg(short, long, global = true, action = clap::ArgAction::Count, help_heading = GLOBAL)]
    pub verbose: u8,

    /// Print no warnings and no progress bar; errors are still printed
    #[arg(short, long, global = true, help_heading = GLOBAL)]
    pub quiet: bool,

    /// When to use colour on the terminal: help, diffs, `trace`, logs [default: auto, which
    /// also honours NO_COLOR]
    #[arg(long, global = true, value_enum, value_name = "WHEN", help_heading = GLOBAL)]
    pub color: Option<ColorChoice>,

    #[command(subcommand)]
    pub command: Command,
}

/// The help heading of the options every command takes.
const GLOBAL: &str = "Global options";

/// The options of the commands that read the configuration (and load strategies).
#[derive(Clone, Debug, Default, Args)]
#[command(next_help_heading = "Configuration")]
pub struct ConfigArgs {
    /// Configuration file layered over the built-in defaults [default: ./ptc.toml if present]
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// Set a configuration key, after the files: `println_limit=5` (an option of the selected
    /// strategy, else a [compression] key) or `section.key=value`
    /// (`strategies.single-user-coalesced.println_limit=5`). The value is TOML; anything else
    /// is a string. Repeatable.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub sets: Vec<String>,

    /// Load plugin files and directories that another user could write (group- or
    /// world-writable, or owned by someone else than you or root); the same as `[plugins]
    /// allow_insecure = true`
    #[arg(long)]
    pub allow_insecure_plugins: bool,
}

impl ConfigArgs {
    /// These options, given before the command, with `later` (given after it) over them.
    fn then(self, later: &ConfigArgs) -> ConfigArgs {
        ConfigArgs {
            config: later.config.clone().or(self.config),
            sets: self.sets.into_iter().chain(later.sets.clone()).collect(),
            allow_insecure_plugins: self.allow_insecure_plugins || later.allow_insecure_plugins,
        }
    }
}

/// The limit of the commands that read recordings.
#[derive(Clone, Debug, Args)]
#[command(next_help_heading = "Configuration")]
pub struct RecordingArgs {
    /// Largest recording read, in bytes: a recording file, a line of a JSONL corpus or of a
    /// trace log to import; a larger one is an error, found before more is read
    #[arg(long, value_name = "BYTES", default_value_t = crate::recording::DEFAULT_MAX_RECORDING_BYTES)]
    pub max_recording_bytes: u64,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// List the strategies loaded from the plugin directories, with their options
    Strategies {
        /// What to print
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        #[command(flatten)]
        config: ConfigArgs,
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
    ///
    /// A large corpus is split over machines with --shard K/N: each runs `ptc ab RECORDINGS
    /// --shard K/N --format partial > part-K.json` with the same recordings and settings, and
    /// `ptc ab merge part-*.json` gives, byte for byte, what one run gives (see `ptc ab merge
    /// --help`). A recording directory named `merge` is written `./merge`.
    #[command(args_conflicts_with_subcommands = true)]
    Ab {
        #[command(subcommand)]
        command: Option<AbCommand>,
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
        /// What to print on stdout
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
        /// Measure only shard K of N (0-based): the recordings whose identity hashes to K
        /// modulo N. The identity is the file's name (its path relative to the directory
        /// given), with `:LINE` for a line of a JSONL file; the hash is FNV-1a 64 of its UTF-8
        /// bytes, so every machine finds its share alone. With --format partial the shard
        /// writes a part for `ptc ab merge`, exit 0 even when recordings could not be read
        /// (the part carries them, and the merge reports them)
        #[arg(long, value_name = "K/N")]
        shard: Option<Shard>,
        #[command(flatten)]
        config: ConfigArgs,
        #[command(flatten)]
        limits: RecordingArgs,
    },
    /// Check recordings: syntax, types and rules, every problem reported
    ///
    /// Every problem in one run, each as FILE:LINE:COLUMN with its JSON path: the shape
    /// (types, unknown, missing or repeated fields, values) checked against `ptc schema`, and
    /// the rules: consecutive turn numbers from 1, an `error` on failed turns, no more turns
    /// than `max_turns`, valid names, mission placeholders that have data; tool calls naming
    /// tools the recording does not declare are warnings. Exit 0 when there is no error, 2
    /// otherwise.
    Validate {
        /// Recording files, JSONL files or directories [default: the bundled examples]
        paths: Vec<PathBuf>,
        /// What to print: one line per problem, or every problem as JSON
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        #[command(flatten)]
        config: ConfigArgs,
        #[command(flatten)]
        limits: RecordingArgs,
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
        #[command(flatten)]
        config: ConfigArgs,
        #[command(flatten)]
        limits: RecordingArgs,
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
        #[command(flatten)]
        config: ConfigArgs,
    },
    /// Install, list and remove strategy plugins
    ///
    /// Strategies are searched in the `[plugins] directories` (default ./plugins), then next to
    /// the ptc executable, then in the user plugin directory, $XDG_DATA_HOME/ptc/plugins
    /// (~/.local/share/ptc/plugins when XDG_DATA_HOME is not set), which `install` and `remove`
    /// change.
    Plugins {
        #[command(subcommand)]
        action: PluginsAction,
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
        #[command(flatten)]
        config: ConfigArgs,
        #[command(flatten)]
        limits: RecordingArgs,
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
        #[command(flatten)]
        config: ConfigArgs,
        #[command(flatten)]
        limits: RecordingArgs,
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
        #[command(flatten)]
        config: ConfigArgs,
        #[command(flatten)]
        limits: RecordingArgs,
    },
    /// Print a shell completion script
    ///
    /// bash: `ptc completions bash > ~/.local/share/bash-completion/completions/ptc`; zsh:
    /// write it as `_ptc` into a directory of your `fpath`; fish: `ptc completions fish >
    /// ~/.config/fish/completions/ptc.fish`; PowerShell: add the output to your `$PROFILE`.
    Completions {
        /// The shell
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print ptc's man page (roff), or write one page per command into a directory
    ///
    /// `ptc man | man -l -` reads it; `ptc man --dir ~/.local/share/man/man1` installs
    /// ptc.1, ptc-ab.1, ptc-render.1, ... for `man ptc-ab`.
    Man {
        /// Write ptc.1 and a page per command here instead of printing ptc.1
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
}

/// What `ptc ab` does besides measuring.
#[derive(Debug, Subcommand)]
pub enum AbCommand {
    /// Merge the parts of a split run into the results of one run
    ///
    /// Each part is the output of `ptc ab RECORDINGS --shard K/N --format partial`, run with
    /// the same recordings and settings for every K from 0 to N-1 (on as many machines as
    /// you like). The merge gives, byte for byte, what `ptc ab RECORDINGS` gives in every
    /// format, and the HTML report; render times are the shards' own, and --no-timing (on
    /// the shards or here) makes them 0.
    ///
    /// The merge refuses (exit 2, one `error:` line) a file that is not a part or is
    /// truncated (naming the file and the place in the JSON), parts measured with different
    /// settings (strategies, plugin versions, resolved options, templates, tokenizer,
    /// pricing, baseline: naming the first difference), of different corpora or splits, two
    /// parts of one shard, and missing shards (--allow-missing merges what is there). The
    /// recordings the shards could not read are warned about and exit 1, as in one run.
    Merge {
        /// Part files, or directories holding them (every .json file directly inside)
        #[arg(required = true)]
        parts: Vec<PathBuf>,
        /// Merge the parts given even when some shards are missing: the results cover the
        /// recordings of the shards given, and a warning names the missing ones
        #[arg(long)]
        allow_missing: bool,
        /// What to print on stdout
        #[arg(long, value_enum, default_value_t = MergeFormat::Table)]
        format: MergeFormat,
        /// Also write a self-contained HTML report with charts
        #[arg(long, value_name = "FILE.html")]
        report: Option<PathBuf>,
        /// Report render times as 0, so that the output is byte-for-byte reproducible
        #[arg(long)]
        no_timing: bool,
        #[command(flatten)]
        config: ConfigArgs,
    },
}

/// Where `ptc import` reads from.
#[derive(Debug, Subcommand)]
pub enum ImportFrom {
    /// A ptc_runner JSONL trace log: the root run becomes a recording; what the trace lost is
    /// summarized on stderr
    ///
    /// Reads both trace formats: v1 (events without `schema_version`, the agent in
    /// `metadata.agent`) and v2 (`schema_version: 2`, the agent in an `agent.config` event).
    /// A trace without the run's mission, or without its max_turns when it has more turns than
    /// the configured default, is an error naming the field; --mission and --max-turns give them.
    PtcRunner {
        /// The trace log (JSONL)
        trace: PathBuf,
        /// The run's mission, when the trace has none (replaces the trace's own)
        #[arg(long, value_name = "TEXT")]
        mission: Option<String>,
        /// The run's max_turns, when the trace has none (replaces the trace's own)
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
        max_turns: Option<u32>,
        /// Write the recording here instead of stdout; never the trace itself, and an
        /// existing file only with --force
        #[arg(short, long, value_name = "OUT")]
        output: Option<PathBuf>,
        /// Overwrite the --output file when it exists
        #[arg(long)]
        force: bool,
        #[command(flatten)]
        config: ConfigArgs,
        #[command(flatten)]
        limits: RecordingArgs,
    },
}

/// What `ptc plugins` does.
#[derive(Debug, Subcommand)]
pub enum PluginsAction {
    /// List every plugin directory searched, in order, with its plugin files and the strategy
    /// each provides (or why it was not loaded, or which earlier file hides it)
    List {
        /// What to print
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        #[command(flatten)]
        config: ConfigArgs,
    },
    /// Check strategy plugins and copy them into the user plugin directory
    ///
    /// PATH is a plugin file (a strategy crate's built cdylib: lib*.so, *.dylib, *.dll), or a
    /// directory with a Cargo.toml: a strategy crate, or a workspace such as a ptc checkout,
    /// which is built with `cargo build --release` and whose every strategy plugin is
    /// installed. Each file is loaded first, as commands load it: one that is not a ptc
    /// strategy plugin, or was built for another ptc-plugin-api, is refused (exit 2) and
    /// nothing is installed. A file is written under a temporary name, then renamed, so that the
    /// directory never holds half a plugin; it replaces the file of the same name, and any other
    /// file there that provided the same strategy.
    Install {
        /// Plugin files or crate directories
        #[arg(required = true, value_name = "PATH")]
        paths: Vec<PathBuf>,
        #[command(flatten)]
        config: ConfigArgs,
    },
    /// Remove plugins from the user plugin directory, by strategy name or file name
    Remove {
        /// Strategy names (`delta-log`) or file names (`libptc_strategy_delta_log.so`)
        #[arg(required = true, value_name = "NAME")]
        names: Vec<String>,
        #[command(flatten)]
        config: ConfigArgs,
    },
}

impl Command {
    /// The configuration options given after the command, for the commands that take them.
    fn config(&self) -> Option<&ConfigArgs> {
        match self {
            Command::Ab {
                command: Some(AbCommand::Merge { config, .. }),
                ..
            } => Some(config),
            Command::Strategies { config, .. }
            | Command::Ab { config, .. }
            | Command::Validate { config, .. }
            | Command::Serve { config, .. }
            | Command::Init { config, .. }
            | Command::Trace { config, .. }
            | Command::Diff { config, .. }
            | Command::Render { config, .. }
            | Command::Import {
                from: ImportFrom::PtcRunner { config, .. },
            }
            | Command::Plugins {
                action:
                    PluginsAction::List { config, .. }
                    | PluginsAction::Install { config, .. }
                    | PluginsAction::Remove { config, .. },
            } => Some(config),
            Command::Schema
            | Command::NewPlugin { .. }
            | Command::Completions { .. }
            | Command::Man { .. } => None,
        }
    }

    /// `--max-recording-bytes`, for the commands that read recordings.
    fn max_recording_bytes(&self) -> Option<u64> {
        match self {
            Command::Ab { limits, .. }
            | Command::Validate { limits, .. }
            | Command::Serve { limits, .. }
            | Command::Trace { limits, .. }
            | Command::Diff { limits, .. }
            | Command::Render { limits, .. }
            | Command::Import {
                from: ImportFrom::PtcRunner { limits, .. },
            } => Some(limits.max_recording_bytes),
            _ => None,
        }
    }
}

/// Parses the command line with `--color` applied to clap's own help and errors.
pub fn parse() -> Cli {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let color = colour_asked(&args).unwrap_or(ColorChoice::Auto);
    crate::output::set_colour(color);
    let matches = Cli::command().color(color).get_matches_from(&args);
    match <Cli as clap::FromArgMatches>::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(err) => err.exit(),
    }
}

/// The `--color WHEN` of a command line, looked at before clap parses it so that clap's own
/// messages follow it (the last one wins, as clap reads it).
fn colour_asked(args: &[std::ffi::OsString]) -> Option<ColorChoice> {
    let mut asked = None;
    let mut args = args.iter().filter_map(|a| a.to_str());
    while let Some(arg) = args.next() {
        if arg == "--" {
            break;
        }
        let value = match arg.strip_prefix("--color") {
            Some("") => args.next(),
            Some(rest) => rest.strip_prefix('='),
            None => None,
        };
        if let Some(choice) =
            value.and_then(|v| <ColorChoice as clap::ValueEnum>::from_str(v, true).ok())
        {
            asked = Some(choice);
        }
    }
    asked
}

/// Applies `-q` and `--color` to the whole run (before logging is set up).
pub fn apply_global_options(cli: &Cli) {
    crate::output::set_quiet(cli.quiet);
    if let Some(color) = cli.color {
        crate::output::set_colour(color);
    }
}

/// Runs a parsed command line, writing results to `out` and warnings to stderr.
pub fn run(cli: Cli, out: &mut dyn Write) -> Result<(), Error> {
    apply_global_options(&cli);
    match &cli.command {
        Command::Completions { shell } => {
            let mut text = Vec::new();
            clap_complete::generate(*shell, &mut Cli::command(), "ptc", &mut text);
            return out.write_all(&text).map_err(Error::Output);
        }
        Command::Man { dir } => return man(dir.as_deref(), out),
        _ => {}
    }
    if let Some(bytes) = cli.command.max_recording_bytes() {
        crate::recording::set_max_recording_bytes(bytes);
    }
    let args = match cli.command.config() {
        Some(after) => cli.config.then(after),
        None => cli.config,
    };
    let config = Config::load_allowing_insecure(
        args.config.as_deref(),
        &args.sets,
        args.allow_insecure_plugins,
    )?;
    // Plugins are loaded by the commands that use strategies only (`trace` when it renders):
    // the others run no plugin code.
    let host = Host::new(config).on_plugins_loaded(|host| {
        for warning in host.plugin_warnings() {
            crate::output::warn(warning);
        }
        for (name, origin) in host.unused_strategy_tables() {
            crate::output::warn(format_args!(
                "{origin} configures strategy `{name}`, which is not loaded"
            ));
        }
    });
    if matches!(
        cli.command,
        Command::Strategies { .. }
            | Command::Render { .. }
            | Command::Ab { command: None, .. }
            | Command::Diff { .. }
            | Command::Serve { .. }
            | Command::Init { .. }
    ) {
        host.plugins();
    }
    let text = match cli.command {
        Command::Strategies { format, .. } => commands::strategies::strategies(&host, format)?,
        Command::Render {
            recording,
            turns,
            strategy,
            format,
            model,
            max_tokens,
            cache_placement,
            cache_ttl,
            ..
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
            command:
                Some(AbCommand::Merge {
                    parts,
                    allow_missing,
                    format,
                    report,
                    no_timing,
                    ..
                }),
            ..
        } => {
            return commands::ab_merge::merge(
                &host,
                &parts,
                allow_missing,
                format,
                report.as_deref(),
                no_timing,
                out,
            );
        }
        Command::Ab {
            recordings,
            strategies,
            tokenizer,
            pricing,
            format,
            report,
            no_timing,
            strict,
            shard,
            ..
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
                shard.unwrap_or(Shard::ALL),
                out,
            );
        }
        Command::Diff {
            recording,
            turns,
            strategies,
            ..
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
        Command::Init { dir, force, .. } => commands::init::init(&host, dir.as_deref(), force)?,
        Command::Plugins { action } => commands::plugins::plugins(host.config(), action)?,
        Command::Import {
            from:
                ImportFrom::PtcRunner {
                    trace,
                    mission,
                    max_turns,
                    output,
                    force,
                    ..
                },
        } => {
            let supplied = crate::recording::import::Supplied { mission, max_turns };
            commands::import::ptc_runner(&host, &trace, output.as_deref(), force, &supplied)?
        }
        Command::Trace {
            recording,
            view,
            raw,
            usage,
            strategy,
            turns,
            ..
        } => commands::trace::trace(
            &host,
            &recording,
            view,
            raw,
            usage,
            strategy.as_deref(),
            turns,
        )?,
        Command::Validate { paths, format, .. } => {
            return commands::validate::validate(&host, &paths, format, out);
        }
        Command::Completions { .. } | Command::Man { .. } => unreachable!("answered above"),
    };
    write_out(out, &text)
}

/// `ptc man`: ptc.1 on `out`, or ptc.1 and one page per command written into `dir`.
fn man(dir: Option<&std::path::Path>, out: &mut dyn Write) -> Result<(), Error> {
    let command = Cli::command();
    match dir {
        None => {
            let mut page = Vec::new();
            clap_mangen::Man::new(command)
                .render(&mut page)
                .map_err(Error::Output)?;
            out.write_all(&page).map_err(Error::Output)
        }
        Some(dir) => {
            std::fs::create_dir_all(dir).map_err(|source| Error::WriteFile {
                path: dir.to_owned(),
                source,
            })?;
            clap_mangen::generate_to(command, dir).map_err(|source| Error::WriteFile {
                path: dir.to_owned(),
                source,
            })?;
            Ok(())
        }
    }
}
