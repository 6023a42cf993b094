//! `ptc ab merge`: the parts of a split run (`ptc ab --shard K/N --format partial`) combined
//! into the results of one run over the whole corpus, in any format, with the HTML report.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::ab::merge::merge as merge_parts;
use crate::ab::pricing::Pricing;
use crate::ab::shard::Shard;
use crate::ab::spool::Spool;
use crate::ab::{RunDetail, Variant};
use crate::commands::ab::{results, spool_row, AbFormat};
use crate::host::Host;
use crate::Error;

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
pub fn merge(
    host: &Host,
    parts: &[PathBuf],
    allow_missing: bool,
    format: MergeFormat,
    report_file: Option<&Path>,
    no_timing: bool,
    out: &mut dyn Write,
) -> Result<(), Error> {
    // The rows go to a spool as the output will print them, once the merge is known to hold.
    let mut rows = Spool::default();
    let mut each = |run: RunDetail, variants: &[Variant], pricing: &[Pricing]| {
        spool_row(&mut rows, format.into(), no_timing, variants, pricing, run)
    };
    let merged = match format {
        MergeFormat::Json | MergeFormat::Csv => merge_parts(parts, Some(&mut each), allow_missing)?,
        _ => merge_parts(parts, None, allow_missing)?,
    };
    if !merged.missing.is_empty() {
        let missing: Vec<String> = merged
            .missing
            .iter()
            .map(|&index| {
                Shard {
                    index,
                    count: merged.shards,
                }
                .to_string()
            })
            .collect();
        crate::output::warn(format_args!(
            "shard {} missing: the results cover {} of the {} recordings",
            missing.join(", "),
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
