//! Merging the parts of a split comparison (`ptc ab --shard K/N --format partial`) into the
//! results of one comparison of the whole corpus, written as a comparison writes them.

use std::io::Write;
use std::path::PathBuf;

use crate::ab::merge::{merge as merge_parts, missing_shards};
use crate::ab::spool::Spool;
use crate::ab::{Clock, RunDetail, Variant};
use crate::host::Host;
use crate::ops::results::{self, Finish};
use crate::ops::Format;
use crate::pricing::Pricing;
use crate::Error;

/// A merge: which parts, and what is written.
#[derive(Clone, Debug)]
pub struct MergeOptions {
    /// Part files, or directories holding them (every .json file directly inside).
    pub parts: Vec<PathBuf>,
    /// Merge the parts given even when some shards are missing.
    pub allow_missing: bool,
    /// Any format but [`Format::Partial`].
    pub format: Format,
    /// Also write the HTML report to this file.
    pub report: Option<PathBuf>,
    /// Render times as the shards measured them, or 0.
    pub clock: Clock,
    /// What the verdict requires, as `ptc ab --require` (else `[ab] require`).
    pub require: Option<String>,
    /// How much the tables for people show (`--wide`, `--explain`).
    pub view: crate::ab::report::View,
}

/// Merges the parts `options` name and writes the results as [`compare`](super::compare)
/// does. No plugin is loaded: the parts say what was measured.
pub fn merge(host: &Host, options: &MergeOptions, out: &mut dyn Write) -> Result<(), Error> {
    let requirements = crate::ab::requirements(host, options.require.as_deref())?;
    if let Some(file) = &options.report {
        crate::output::check_not_input("--report", file, &options.parts, &["json"])?;
    }
    let (format, clock) = (options.format, options.clock);
    // The rows go to a spool as the output will print them, once the merge is known to hold.
    let mut rows = Spool::default();
    let mut each = |mut run: RunDetail, variants: &[Variant], pricing: &[Pricing]| {
        clock.run(&mut run);
        results::spool_row(&mut rows, format, variants, pricing, run)
    };
    let merged = match format.lists_rows() {
        true => merge_parts(&options.parts, Some(&mut each), options.allow_missing)?,
        false => merge_parts(&options.parts, None, options.allow_missing)?,
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
    let mut ab = merged.ab;
    ab.requirements = requirements;
    clock.ab(&mut ab);
    let finish = Finish {
        corpus: None,
        count: merged.sources,
        format,
        report: options.report.as_deref(),
        real_runs: None,
        // The profiles one run shows: those asked for (or billed, which the shards asked for).
        view: crate::ab::report::View {
            asked: merged.asked_pricing,
            ..options.view.clone()
        },
    };
    results::write(host, ab, &mut rows, &finish, None, out)
}
