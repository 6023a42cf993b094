//! Setting the cost simulation beside what the provider billed (`ptc bill`), on recordings
//! that hold the requests as sent and their usage.

use std::path::PathBuf;

use crate::ab::bill::{Bill, BillOptions, ToBill};
use crate::host::Host;
use crate::recording::corpus;
use crate::Error;

/// A comparison with the bill: of which recordings, and how.
#[derive(Clone, Debug)]
pub struct BillRequest {
    /// Recording files, JSONL corpora and directories of them.
    pub recordings: Vec<PathBuf>,
    pub options: BillOptions,
}

/// The comparison of the recordings `request` names with their bill, read one at a time (an
/// unreadable one is the error). Priced by the configuration's profiles, counted with the
/// tokenizer of `[ab] tokenizer`.
pub fn bill(host: &Host, request: &BillRequest) -> Result<Bill, Error> {
    let defaults = host.recording_defaults()?;
    // One recording at a time, listed as it is read: a run's requests, held whole in memory,
    // are the square of its conversation, and a log's runs are held once imported.
    let recordings = corpus::Listing::new(&request.recordings)
        .reading_logs(&defaults)
        .map(|source| Ok(ToBill::from(source?.load(&defaults)?)));
    let bill = read(host, recordings, &request.options)?;
    // The runs whose provider was inferred from their model, unless a profile was asked for
    // (`ptc ab` says it before its tables).
    let inferred: Vec<(String, String)> = bill
        .runs
        .iter()
        .filter(|run| run.provider.is_none() && request.options.profile.is_none())
        .map(|run| {
            let model = run.model.clone().unwrap_or_default();
            (run.recording.display().to_string(), model)
        })
        .collect();
    if !inferred.is_empty() {
        crate::output::note(format_args!(
            "{}",
            crate::ab::bill::inferred_provider_note(&inferred, inferred.len())
        ));
    }
    Ok(bill)
}

/// The comparison of recordings already read with their bill, taken one at a time.
pub(super) fn of_recordings(
    host: &Host,
    recordings: impl Iterator<Item = ToBill>,
    options: &BillOptions,
) -> Result<Bill, Error> {
    read(host, recordings.map(Ok), options)
}

fn read(
    host: &Host,
    recordings: impl Iterator<Item = Result<ToBill, Error>>,
    options: &BillOptions,
) -> Result<Bill, Error> {
    let config = host.config();
    let mut pricing = config.pricing_profiles()?;
    let mut info = config.pricing_info();
    // A profile with keys for one run (`deepseek@model=deepseek-chat@rule=2026-11-26`) prices
    // every run as it says, whatever the runs' dates.
    if let Some(spec) = options.profile.as_deref().filter(|spec| spec.contains('@')) {
        let variant = crate::ab::pricing_variant(&pricing, &info, spec)?;
        let base = spec.split('@').next().unwrap_or("").trim();
        if let Some(mut about) = info.iter().find(|i| i.name == base).cloned() {
            about.name = variant.name.clone();
            about.output_per_mtok = variant.output_per_mtok;
            about.models.clear();
            info.push(about);
            pricing.push(variant);
        }
    }
    let tokenizer = host.tokenizer(None)?;
    Bill::read(recordings, &pricing, &info, tokenizer, options)
}
