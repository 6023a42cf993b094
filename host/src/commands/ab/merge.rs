//! `ptc ab merge`: the parts of a split run (`ptc ab --shard K/N --format partial`) combined
//! into the results of one run over the whole corpus, in any format, with the HTML report
//! ([`ops::merge`]).

use std::io::Write;
use std::path::PathBuf;

use crate::commands::args::{ConfigArgs, ViewArgs};
use crate::commands::Context;
use crate::ops::{self, Format, MergeOptions};
use crate::Error;

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
/// parts of one shard, missing shards (--allow-missing merges what is there), parts of
/// another ptc version, and figures no run gives (sums that overflow, shares above their
/// whole, rows that do not add up to their part's sums or belong to another shard, prices
/// that are negative or not finite). The recordings the shards could not read are warned
/// about and exit 1, as in one run.
#[derive(Debug, clap::Args)]
pub struct Args {
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
    /// What the verdict requires of a strategy, as `ptc ab --require` [default: `[ab] require`]
    #[arg(long, value_name = "LIST")]
    require: Option<String>,
    #[command(flatten)]
    view: ViewArgs,
    #[command(flatten)]
    config: ConfigArgs,
}

/// `ptc ab merge`: no plugin is loaded, the parts say what was measured.
pub fn exec(args: Args, context: &Context, out: &mut dyn Write) -> Result<(), Error> {
    let host = context.host(&args.config)?;
    let options = MergeOptions {
        parts: args.parts,
        allow_missing: args.allow_missing,
        format: match args.format {
            MergeFormat::Table => Format::Table,
            MergeFormat::Json => Format::Json,
            MergeFormat::Markdown => Format::Markdown,
            MergeFormat::Csv => Format::Csv,
        },
        report: args.report,
        clock: super::clock(args.no_timing),
        require: args.require,
        view: args.view.view(),
    };
    ops::merge(&host, &options, out)
}

/// Output format of `ptc ab merge`: those of `ptc ab` but a part.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum MergeFormat {
    /// Aligned columns, for a terminal
    Table,
    /// Everything, per-turn series included
    Json,
    /// Markdown tables
    Markdown,
    /// One row per prompt
    Csv,
}
