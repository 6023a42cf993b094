//! The `ptc` command line: the global options and the list of commands. Each command's
//! arguments and body are in `commands/<name>.rs`; adding one adds a line to [`Command`] and
//! one to [`run`].

use std::io::Write;

use clap::{ColorChoice, CommandFactory, Parser, Subcommand};

use crate::commands::args::ConfigArgs;
use crate::commands::{self, Context};
use crate::Error;

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

/// The commands, in the order `ptc --help` lists them.
#[derive(Debug, Subcommand)]
pub enum Command {
    Strategies(commands::strategies::Args),
    Ab(commands::ab::Args),
    Bill(commands::bill::Args),
    Pricing(commands::pricing::Args),
    Validate(commands::validate::Args),
    Schema(commands::schema::Args),
    Serve(commands::serve::Args),
    NewPlugin(commands::new_plugin::Args),
    Init(commands::init::Args),
    Plugins(commands::plugins::Args),
    Import(commands::import::Args),
    Trace(commands::trace::Args),
    Diff(commands::diff::Args),
    Render(commands::render::Args),
    Completions(commands::completions::Args),
    Man(commands::man::Args),
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
    let context = Context { global: cli.config };
    let context = &context;
    match cli.command {
        Command::Strategies(args) => commands::strategies::exec(args, context, out),
        Command::Ab(args) => commands::ab::exec(args, context, out),
        Command::Bill(args) => commands::bill::exec(args, context, out),
        Command::Pricing(args) => commands::pricing::exec(args, context, out),
        Command::Validate(args) => commands::validate::exec(args, context, out),
        Command::Schema(args) => commands::schema::exec(args, out),
        Command::Serve(args) => commands::serve::exec(args, context, out),
        Command::NewPlugin(args) => commands::new_plugin::exec(args, out),
        Command::Init(args) => commands::init::exec(args, context, out),
        Command::Plugins(args) => commands::plugins::exec(args, context, out),
        Command::Import(args) => commands::import::exec(args, context, out),
        Command::Trace(args) => commands::trace::exec(args, context, out),
        Command::Diff(args) => commands::diff::exec(args, context, out),
        Command::Render(args) => commands::render::exec(args, context, out),
        Command::Completions(args) => commands::completions::exec(args, Cli::command(), out),
        Command::Man(args) => commands::man::exec(args, Cli::command(), out),
    }
}
