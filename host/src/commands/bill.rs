//! `ptc bill`: the cost simulation set beside what the provider billed, call by call, on
//! recordings that hold the requests as sent and their usage ([`ops::bill`]).

use std::io::Write;
use std::path::PathBuf;

use crate::ab::bill::{BillOptions, MissRate};
use crate::commands::args::{ConfigArgs, RecordingArgs};
use crate::commands::Context;
use crate::ops::{self, BillRequest};
use crate::output::{pretty, write_out};
use crate::Error;

/// Check the cost simulation against what the provider billed
///
/// For every recording that holds the requests its agent sent and the usage the provider
/// reported for each (real runs brought in with `ptc import`), the requests are priced by the
/// simulated cache rule of a pricing profile and set beside the bill: cache reads and cost per
/// run and in total, with the error. The simulation is the best case (every prefix the rule
/// allows is read); a miss rate, fitted on the runs given or set with --miss-rate, turns it into
/// an expectation. Runs that read nothing from the cache on any call are listed apart and left
/// out of the fit. Each run is priced with the profile whose `provider` (and `models`) match its
/// usage, or with --pricing.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Recordings: JSON files, JSONL corpora, directories
    #[arg(required = true, value_name = "RECORDING")]
    recordings: Vec<PathBuf>,
    /// Price every run with this profile instead of the one its usage names
    #[arg(long, value_name = "NAME")]
    pricing: Option<String>,
    /// The share of the tokens the best case reads from the cache that the provider does not
    /// read (whole misses and older, shorter prefixes): `fit` measures it on the runs given
    /// (on those with at least one read), a number from 0 to 1 sets it
    #[arg(long, value_name = "RATE|fit", default_value = "fit", value_parser = parse_miss_rate)]
    miss_rate: MissRate,
    /// One cache per profile shared by all its runs, in the order their calls were sent
    /// (when every call has a time), instead of one per run: what a provider's cache does
    /// for runs that share a prefix
    #[arg(long)]
    shared_cache: bool,
    /// `table` for people, `json` for programs (every call)
    #[arg(long, value_enum, default_value = "table")]
    format: BillFormat,
    #[command(flatten)]
    config: ConfigArgs,
    #[command(flatten)]
    limits: RecordingArgs,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum BillFormat {
    Table,
    Json,
}

fn parse_miss_rate(text: &str) -> Result<MissRate, String> {
    if text == "fit" {
        return Ok(MissRate::Fit);
    }
    match text.parse::<f64>() {
        Ok(rate) if (0.0..=1.0).contains(&rate) => Ok(MissRate::Fixed(rate)),
        _ => Err(format!(
            "`{text}` is neither `fit` nor a number from 0 to 1"
        )),
    }
}

/// `ptc bill`: reads every recording (an unreadable one is an error naming it), compares, and
/// prints the comparison.
pub fn exec(args: Args, context: &Context, out: &mut dyn Write) -> Result<(), Error> {
    let host = context.reading(&args.config, &args.limits)?;
    let request = BillRequest {
        recordings: args.recordings,
        options: BillOptions {
            miss_rate: args.miss_rate,
            shared_cache: args.shared_cache,
            profile: args.pricing,
            keep_runs: true,
        },
    };
    let bill = ops::bill(&host, &request)?;
    let text = match args.format {
        BillFormat::Table => crate::ab::bill::table(&bill),
        BillFormat::Json => pretty(&crate::ab::bill::json(&bill)),
    };
    write_out(out, &text)
}
