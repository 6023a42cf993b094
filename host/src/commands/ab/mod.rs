//! `ptc ab`: every strategy asked for over every recording, measured and reported as a table,
//! markdown, CSV or JSON, and optionally as an HTML page ([`ops::compare`]); `ptc ab merge`
//! (`merge`) combines the parts of a split run.

mod merge;

use std::io::Write;
use std::path::PathBuf;

use crate::ab::shard::Shard;
use crate::ab::{Clock, PlanOptions};
use crate::commands::args::{ConfigArgs, RecordingArgs, ViewArgs};
use crate::commands::Context;
use crate::ops::{self, CompareOptions, Corpus, Format};
use crate::Error;

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
#[derive(Debug, clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct Args {
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
    /// Pricing profiles to judge, comma-separated (`ptc pricing` lists them), the first the
    /// cost column, each with keys for this run: `NAME@breakpoints=strategy|auto|none`,
    /// `@cache_ttl=5m|30m|1h|24h|unstated`, `@model=M` (a model's prices and minimum),
    /// `@min_cacheable_tokens=N`, `@hits=none|all`; e.g. `anthropic@model=claude-haiku-4-5`
    /// (judged on its own) [default: `[ab] pricing`]
    #[arg(long, value_name = "LIST")]
    pricing: Option<String>,
    /// What the verdict requires of a strategy before it recommends it: comma-separated
    /// measures (symbols, calls, prints, error, used-next, evidence), each kept in full or to
    /// the percentage given, e.g. `symbols,error,used-next=95%`; "" requires nothing
    /// [default: `[ab] require`, symbols,error,evidence=90%]
    #[arg(long, value_name = "LIST")]
    require: Option<String>,
    /// What to print on stdout
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
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
    view: ViewArgs,
    #[command(flatten)]
    config: ConfigArgs,
    #[command(flatten)]
    limits: RecordingArgs,
}

/// What `ptc ab` does besides measuring.
#[derive(Debug, clap::Subcommand)]
enum AbCommand {
    Merge(merge::Args),
}

/// `ptc ab`, or `ptc ab merge`.
pub fn exec(args: Args, context: &Context, out: &mut dyn Write) -> Result<(), Error> {
    if let Some(AbCommand::Merge(merge)) = args.command {
        return merge::exec(merge, context, out);
    }
    let host = context.with_strategies(&args.config, Some(&args.limits))?;
    let options = CompareOptions {
        corpus: Corpus::Paths(args.recordings),
        plan: PlanOptions {
            strategies: args.strategies,
            tokenizer: args.tokenizer,
            pricing: args.pricing,
            require: args.require,
            baseline: None,
            clock: clock(args.no_timing),
            by_run: false,
        },
        format: args.format,
        report: args.report,
        strict: args.strict,
        shard: args.shard.unwrap_or(Shard::ALL),
        progress: true,
        view: args.view.view(),
    };
    ops::compare(&host, &options, out)
}

/// The clock of `--no-timing`.
fn clock(no_timing: bool) -> Clock {
    match no_timing {
        true => Clock::Zero,
        false => Clock::Measured,
    }
}
