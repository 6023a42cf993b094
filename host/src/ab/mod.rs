//! A/B testing strategies on recorded runs: for every recording and strategy, the prompt sent
//! before each turn is rendered and measured: tokens, prompt-cache cost under every pricing
//! profile, retention, render time. Recordings are spread over cores; results are collected in
//! recording order, so every figure but the render time is identical whatever the thread count.

pub mod pricing;
pub mod report;
pub mod retention;
pub mod tokens;

use std::path::PathBuf;

use rayon::prelude::*;

use crate::ab::pricing::{Pricing, PromptCost};
use crate::ab::retention::{Facts, Retention};
use crate::ab::tokens::{Counter, Tokenizer};
use crate::config::Config;
use crate::host::Host;
use crate::recording::corpus::Source;
use crate::recording::Recording;
use crate::render::trigger::{Prompter, RunCache};
use crate::Error;

/// A strategy with options: `name` or `name@option=value@option=value`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Variant {
    /// As written, e.g. `single-user-coalesced@println_limit=5`.
    pub label: String,
    pub strategy: String,
    /// `(option, value)` set for this variant only.
    pub options: Vec<(String, String)>,
}

impl Variant {
    pub fn parse(spec: &str) -> Result<Variant, Error> {
        let mut parts = spec.trim().split('@');
        let strategy = parts.next().unwrap_or("").trim().to_owned();
        if strategy.is_empty() {
            return Err(Error::BadVariant {
                spec: spec.into(),
                reason: "no strategy name".into(),
            });
        }
        let options = parts
            .map(|p| {
                p.split_once('=')
                    .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
                    .ok_or_else(|| Error::BadVariant {
                        spec: spec.into(),
                        reason: format!("`{p}` is not option=value"),
                    })
            })
            .collect::<Result<_, _>>()?;
        Ok(Variant {
            label: spec.trim().to_owned(),
            strategy,
            options,
        })
    }
}

/// What one prompt measured.
#[derive(Clone, Debug, PartialEq)]
pub struct PromptMeasure {
    /// Turns rendered from: this is the prompt sent before turn `turns + 1`.
    pub turns: usize,
    pub tokens: usize,
    /// Tokens shared as an exact prefix with the previous request of the run.
    pub shared: usize,
    /// One per pricing profile, in the order of [`Ab::pricing`].
    pub costs: Vec<PromptCost>,
    pub retention: Retention,
    /// Duration of the strategy call.
    pub render_ns: u64,
}

/// One recording through one variant.
#[derive(Clone, Debug, PartialEq)]
pub struct RunMeasure {
    pub recording: PathBuf,
    pub variant: usize,
    /// Every prompt's measures, kept only when the output needs them (JSON, CSV).
    pub prompts: Vec<PromptMeasure>,
    /// The run's figures, always kept.
    pub totals: Summary,
    /// Per turn index: (tokens, cost under the primary profile).
    pub by_turn: Vec<(usize, f64)>,
    /// Why the variant could not render this recording.
    pub error: Option<String>,
}

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
}

/// What to compare, resolved from the configuration and the command line.
pub struct AbPlan {
    pub variants: Vec<Variant>,
    pub baseline: String,
    pub pricing: Vec<Pricing>,
    pub primary_pricing: String,
    pub tokenizer: Tokenizer,
    /// Whether the baseline was added because the list did not name it.
    pub baseline_added: bool,
}

impl AbPlan {
    /// `strategies` (or `[ab] strategies`, or every loaded strategy), the baseline added when
    /// missing.
    pub fn new(
        host: &Host,
        strategies: Option<&str>,
        tokenizer: Option<&str>,
        pricing: Option<&str>,
    ) -> Result<AbPlan, Error> {
        let config = host.config();
        let specs: Vec<String> = match strategies {
            Some(list) => list
                .split(',')
                .map(str::to_owned)
                .filter(|s| !s.trim().is_empty())
                .collect(),
            None if !config.ab_strategies().is_empty() => config.ab_strategies(),
            None => host
                .plugins()
                .strategies()
                .iter()
                .map(|s| s.name.clone())
                .collect(),
        };
        let mut variants: Vec<Variant> = specs
            .iter()
            .map(|s| Variant::parse(s))
            .collect::<Result<_, _>>()?;
        // The baseline comes first, added when the list does not name it.
        let baseline = config.ab_baseline().to_owned();
        let (base, baseline_added) = match variants.iter().position(|v| v.label == baseline) {
            Some(i) => (variants.remove(i), false),
            None => (Variant::parse(&baseline)?, true),
        };
        variants.insert(0, base);
        let tokenizer_name = tokenizer.unwrap_or(config.ab_tokenizer());
        let tokenizer = Tokenizer::named(tokenizer_name)?;
        let profiles = config.pricing_profiles()?;
        let primary = pricing.unwrap_or(config.ab_pricing()).to_owned();
        if !profiles.iter().any(|p| p.name == primary) {
            return Err(Error::UnknownName {
                what: "pricing profile",
                name: primary,
                known: profiles
                    .iter()
                    .map(|p| p.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        }
        Ok(AbPlan {
            variants,
            baseline,
            pricing: profiles,
            primary_pricing: primary,
            tokenizer,
            baseline_added,
        })
    }
}

/// Renders and measures every recording through every variant of `plan`. Recordings are read
/// one at a time per thread and dropped once measured, so memory stays bounded by the largest
/// recording; per-prompt measures are kept only with `detail`. `progress` is called once per
/// recording done. A recording that cannot be read is an error (the first, in order). A
/// variant whose strategy is not loaded is reported as failed on every recording; a bad option
/// of a variant is an error.
pub fn run(
    host: &Host,
    plan: AbPlan,
    sources: &[Source],
    detail: bool,
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
            let recording = source.load(&defaults)?;
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
    for result in per_recording {
        runs.extend(result?);
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

/// The measure of a variant that cannot render at all: failed, with the reason.
fn unusable(variant: usize, recording: &Recording, profiles: usize, reason: &str) -> RunMeasure {
    RunMeasure {
        recording: recording.path.clone(),
        variant,
        prompts: Vec::new(),
        totals: Summary {
            costs: vec![0.0; profiles],
            failed: 1,
            first_error: Some(reason.to_owned()),
            ..Summary::default()
        },
        by_turn: Vec::new(),
        error: Some(reason.to_owned()),
    }
}

fn measure(
    prompter: &Prompter<'_>,
    variant: usize,
    recording: &Recording,
    pricing: &[Pricing],
    primary: usize,
    detail: bool,
    counter: &mut Counter,
) -> RunMeasure {
    let mut run = RunMeasure {
        recording: recording.path.clone(),
        variant,
        prompts: Vec::new(),
        totals: Summary {
            costs: vec![0.0; pricing.len()],
            ..Summary::default()
        },
        by_turn: Vec::with_capacity(recording.turns.len()),
        error: None,
    };
    let mut previous = Vec::new();
    let mut cache = RunCache::default();
    let facts = Facts::of(&recording.turns);
    for turns in 0..recording.turns.len() {
        let (prompt, render_ns) =
            match prompter.render_cached(recording, turns, counter, &mut cache) {
                Ok(done) => done,
                Err(err) => {
                    run.totals.failed = 1;
                    run.totals.first_error = Some(format!("{}: {err}", recording.path.display()));
                    run.error = Some(err.to_string());
                    return run;
                }
            };
        let (tokens, shared) = counter.measure(&previous, &prompt.messages);
        let text: String = prompt
            .messages
            .iter()
            .skip(1)
            .map(|m| m.content.as_str())
            .collect::<Vec<_>>()
            .join("\n");
        let measure = PromptMeasure {
            turns,
            tokens,
            shared,
            costs: pricing.iter().map(|p| p.cost(tokens, shared)).collect(),
            retention: facts.retention(turns, &text),
            render_ns,
        };
        run.totals.add_prompt(&measure, primary);
        run.by_turn.push((tokens, measure.costs[primary].cost));
        if detail {
            run.prompts.push(measure);
        }
        previous = prompt.messages;
    }
    run
}

/// The figures of one variant over every recording.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Summary {
    pub prompts: usize,
    pub tokens: usize,
    pub max_tokens: usize,
    /// Under the primary pricing profile.
    pub cached_tokens: usize,
    /// One per pricing profile.
    pub costs: Vec<f64>,
    pub retention: Retention,
    pub render_ns: u64,
    /// Recordings the variant failed on, with the first error.
    pub failed: usize,
    pub first_error: Option<String>,
}

impl Summary {
    fn add_prompt(&mut self, p: &PromptMeasure, primary: usize) {
        self.prompts += 1;
        self.tokens += p.tokens;
        self.max_tokens = self.max_tokens.max(p.tokens);
        self.cached_tokens += p.costs[primary].cached;
        for (total, cost) in self.costs.iter_mut().zip(&p.costs) {
            *total += cost.cost;
        }
        self.retention.add(&p.retention);
        self.render_ns += p.render_ns;
    }

    fn merge(&mut self, other: &Summary) {
        self.prompts += other.prompts;
        self.tokens += other.tokens;
        self.max_tokens = self.max_tokens.max(other.max_tokens);
        self.cached_tokens += other.cached_tokens;
        for (total, cost) in self.costs.iter_mut().zip(&other.costs) {
            *total += cost;
        }
        self.retention.add(&other.retention);
        self.render_ns += other.render_ns;
        self.failed += other.failed;
        if self.first_error.is_none() {
            self.first_error.clone_from(&other.first_error);
        }
    }

    pub fn mean_tokens(&self) -> f64 {
        if self.prompts == 0 {
            0.0
        } else {
            self.tokens as f64 / self.prompts as f64
        }
    }

    pub fn cached_share(&self) -> f64 {
        if self.tokens == 0 {
            0.0
        } else {
            self.cached_tokens as f64 / self.tokens as f64
        }
    }

    pub fn mean_render_us(&self) -> f64 {
        if self.prompts == 0 {
            0.0
        } else {
            self.render_ns as f64 / self.prompts as f64 / 1000.0
        }
    }
}

impl Ab {
    /// The variants asked for that rendered no prompt at all, with the first reason; `None`
    /// when at least one rendered (the command then succeeds, the failures in its report).
    pub fn all_asked_failed(&self) -> Option<String> {
        let summaries = self.summaries();
        let mut failures = Vec::new();
        for (i, (variant, summary)) in self.variants.iter().zip(&summaries).enumerate() {
            if i == self.baseline && self.baseline_added {
                continue;
            }
            if summary.prompts > 0 || summary.failed == 0 {
                return None;
            }
            failures.push(format!(
                "{} failed: {}",
                variant.label,
                summary
                    .first_error
                    .as_deref()
                    .unwrap_or("no prompt rendered")
            ));
        }
        (!failures.is_empty()).then(|| failures.join("; "))
    }

    /// One summary per variant, in variant order.
    pub fn summaries(&self) -> Vec<Summary> {
        let mut sums = vec![
            Summary {
                costs: vec![0.0; self.pricing.len()],
                ..Summary::default()
            };
            self.variants.len()
        ];
        for run in &self.runs {
            sums[run.variant].merge(&run.totals);
        }
        sums
    }

    /// Per turn index k (the prompt before turn k + 1): (mean tokens, summed cost under the
    /// primary profile) over the recordings that reach it, per variant.
    pub fn by_turn(&self) -> Vec<Vec<(f64, f64)>> {
        let max_turns = self.runs.iter().map(|r| r.by_turn.len()).max().unwrap_or(0);
        let mut sums = vec![vec![(0usize, 0.0f64, 0usize); max_turns]; self.variants.len()];
        for run in &self.runs {
            for (k, (tokens, cost)) in run.by_turn.iter().enumerate() {
                let cell = &mut sums[run.variant][k];
                cell.0 += tokens;
                cell.1 += cost;
                cell.2 += 1;
            }
        }
        sums.into_iter()
            .map(|series| {
                series
                    .into_iter()
                    .map(|(tokens, cost, n)| {
                        (
                            if n == 0 {
                                0.0
                            } else {
                                tokens as f64 / n as f64
                            },
                            cost,
                        )
                    })
                    .collect()
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variants_parse_options() {
        let v = Variant::parse("single-user-coalesced@println_limit=5@tool_call_limit=3").unwrap();
        assert_eq!(v.strategy, "single-user-coalesced");
        assert_eq!(
            v.options,
            vec![
                ("println_limit".to_string(), "5".to_string()),
                ("tool_call_limit".to_string(), "3".to_string())
            ]
        );
        assert!(Variant::parse("x@nope").is_err());
        assert!(Variant::parse("@a=1").is_err());
    }
}
