//! `ptc ab merge`: the parts of a split run (`ptc ab --shard K/N --format partial`) combined
//! into the results of one run over the whole corpus, in any format, with the HTML report.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::ab::merge::{merge as merge_parts, missing_shards};
use crate::ab::report::Requirements;
use crate::ab::spool::Spool;
use crate::ab::{RunDetail, Variant};
use crate::commands::ab::{results, spool_row, AbFormat};
use crate::commands::args::ConfigArgs;
use crate::commands::Context;
use crate::host::Host;
use crate::pricing::Pricing;
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
    config: ConfigArgs,
}

/// `ptc ab merge`: no plugin is loaded, the parts say what was measured.
pub fn exec(args: Args, context: &Context, out: &mut dyn Write) -> Result<(), Error> {
    let host = context.host(&args.config)?;
    let requirements = crate::commands::ab::requirements(&host, args.require.as_deref())?;
    merge(
        &host,
        &requirements,
        &args.parts,
        args.allow_missing,
        args.format,
        args.report.as_deref(),
        args.no_timing,
        out,
    )
}

/// Output format of `ptc ab merge`: those of `ptc ab` but a part.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum MergeFormat {
    /// Aligned columns, for a terminal
    Table,
    /// Everything, per-turn series included
    Json,
    /// Markdown tables
    Markdown,
    /// One row per prompt
    Csv,
}

impl From<MergeFormat> for AbFormat {
    fn from(format: MergeFormat) -> AbFormat {
        match format {
            MergeFormat::Table => AbFormat::Table,
            MergeFormat::Json => AbFormat::Json,
            MergeFormat::Markdown => AbFormat::Markdown,
            MergeFormat::Csv => AbFormat::Csv,
        }
    }
}

/// Merges the parts in `parts` (files, or directories of `.json` parts) and writes the
/// results as `ptc ab` does.
#[allow(clippy::too_many_arguments)]
pub fn merge(
    host: &Host,
    requirements: &Requirements,
    parts: &[PathBuf],
    allow_missing: bool,
    format: MergeFormat,
    report_file: Option<&Path>,
    no_timing: bool,
    out: &mut dyn Write,
) -> Result<(), Error> {
    if let Some(file) = report_file {
        crate::output::check_not_input("--report", file, parts, &["json"])?;
    }
    // The rows go to a spool as the output will print them, once the merge is known to hold.
    let mut rows = Spool::default();
    let mut each = |run: RunDetail, variants: &[Variant], pricing: &[Pricing]| {
        spool_row(&mut rows, format.into(), no_timing, variants, pricing, run)
    };
    let merged = match format {
        MergeFormat::Json | MergeFormat::Csv => merge_parts(parts, Some(&mut each), allow_missing)?,
        _ => merge_parts(parts, None, allow_missing)?,
    };
    if merged.missing_count > 0 {
        crate::output::warn(format_args!(
            "shard {} missing: the results cover {} of the {} recordings",
            missing_shards(&merged.missing, merged.missing_count, merged.shards),
            merged.sources,
            merged.corpus
        ));
    }
    if merged.sources == 0 {
        return Err(Error::MergeRefused {
            reason: "the parts given hold no recording".into(),
        });
    }
    results(
        host,
        requirements,
        merged.ab,
        &mut rows,
        None,
        merged.sources,
        format.into(),
        report_file,
        no_timing,
        out,
    )
}
