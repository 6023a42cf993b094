//! A/B testing strategies on recorded runs: for every recording and strategy, the prompt sent
//! before each turn is rendered and measured: tokens, prompt-cache cost under every pricing
//! profile, retention, render time. Recordings are spread over cores; results are collected in
//! recording order, so every figure but the render time is identical whatever the thread count.
//!
//! This module holds the run itself, [`run`] and its result [`Ab`]; what it compares is resolved
//! in `plan`, one recording through one variant is measured in `measure`, and the measures are
//! added up in `summary`.

mod measure;
mod plan;
pub mod pricing;
pub mod report;
pub mod retention;
mod summary;
pub mod tokens;

use rayon::prelude::*;

use crate::ab::measure::{measure, unusable};
use crate::ab::pricing::Pricing;
use crate::ab::tokens::{Counter, Tokenizer};
use crate::config::Config;
use crate::host::Host;
use crate::recording::corpus::Source;
use crate::render::trigger::Prompter;
use crate::Error;

pub use measure::{PromptMeasure, RunMeasure};
pub use plan::{AbPlan, Variant};
pub use summary::Summary;

/// An A/B run: the variants, the pricing profiles, and every measure.
pub struct Ab {
    pub variants: Vec<Variant>,
    /// Index of the baseline in `variants`.
    pub baseline: usize,
    pub pricing: Vec<Pricing>,
    /// Index of the profile of the table's cost column.
    pub primary_pricing: usize,
    pub tokenizer: Tokenizer,
    /// Recording-major: all variants of recording 0, then of recording 1, ...
    pub runs: Vec<RunMeasure>,
    /// Whether the baseline was added to the variants asked for.
    pub baseline_added: bool,
    /// The recordings that could not be read, in order: (where, why). They are left out of
    /// every figure.
    pub bad_recordings: Vec<(String, Error)>,
}

/// Renders and measures every recording through every variant of `plan`. Recordings are read
/// one at a time per thread and dropped once measured, so memory stays bounded by the largest
/// recording; per-prompt measures are kept only with `detail`. `progress` is called once per
/// recording done. A recording that cannot be read is left out and listed in
/// [`Ab::bad_recordings`] (with `strict`, the first, in order, is the error instead). A variant
/// whose strategy is not loaded is reported as failed on every recording; a bad option of a
/// variant is an error.
pub fn run(
    host: &Host,
    plan: AbPlan,
    sources: &[Source],
    detail: bool,
    strict: bool,
    progress: &(dyn Fn() + Sync),
) -> Result<Ab, Error> {
    let prompters: Vec<Result<Prompter<'_>, String>> = plan
        .variants
        .iter()
        .map(|v| match prompter_for(host, v) {
            Ok(prompter) => Ok(Ok(prompter)),
            Err(e @ (Error::UnknownStrategy { .. } | Error::StrategyNotLoaded { .. })) => {
                Ok(Err(e.to_string()))
            }
            Err(e) => Err(e),
        })
        .collect::<Result<_, _>>()?;
    let defaults = host.recording_defaults()?;
    let primary_pricing = plan
        .pricing
        .iter()
        .position(|p| p.name == plan.primary_pricing)
        .unwrap_or(0);
    let per_recording: Vec<Result<Vec<RunMeasure>, Error>> = sources
        .par_iter()
        .map(|source| {
            let recording = match source.load(&defaults) {
                Ok(recording) => recording,
                Err(e) => {
                    progress();
                    return Err(e);
                }
            };
            let mut counter = Counter::new(plan.tokenizer);
            let runs = prompters
                .iter()
                .enumerate()
                .map(|(i, p)| match p {
                    Ok(p) => measure(
                        p,
                        i,
                        &recording,
                        &plan.pricing,
                        primary_pricing,
                        detail,
                        &mut counter,
                    ),
                    Err(reason) => unusable(i, &recording, plan.pricing.len(), reason),
                })
                .collect();
            progress();
            Ok(runs)
        })
        .collect();
    let mut runs = Vec::with_capacity(sources.len() * plan.variants.len());
    let mut bad_recordings = Vec::new();
    for (source, result) in sources.iter().zip(per_recording) {
        match result {
            Ok(measures) => runs.extend(measures),
            Err(e) if strict => return Err(e),
            Err(e) => bad_recordings.push((source.label().display().to_string(), e)),
        }
    }
    let baseline = plan
        .variants
        .iter()
        .position(|v| v.label == plan.baseline)
        .unwrap_or(0);
    Ok(Ab {
        variants: plan.variants,
        baseline,
        pricing: plan.pricing,
        primary_pricing,
        tokenizer: plan.tokenizer,
        runs,
        baseline_added: plan.baseline_added,
        bad_recordings,
    })
}

/// The prompter of a variant: its options set for it alone; `compress_above_tokens` turns on
/// the trigger.
pub fn prompter_for<'h>(host: &'h Host, variant: &Variant) -> Result<Prompter<'h>, Error> {
    let mut config: Config = host.config().clone();
    let mut threshold = config.compress_above_tokens();
    for (option, value) in &variant.options {
        if option == "compress_above_tokens" {
            threshold = value.parse().ok().filter(|&n| n > 0);
            if value.parse::<usize>().is_err() {
                return Err(Error::BadVariant {
                    spec: variant.label.clone(),
                    reason: format!(
                        "compress_above_tokens must be a number of tokens, not `{value}`"
                    ),
                });
            }
            continue;
        }
        config.layer_set(&format!("strategies.{}.{option}={value}", variant.strategy))?;
    }
    host.prompter_with(Some(&variant.strategy), &config, threshold)
}
