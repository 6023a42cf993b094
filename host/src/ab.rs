//! A/B testing strategies on recorded runs: for every recording and strategy, the prompt sent
//! before each turn is rendered and measured: tokens, prompt-cache cost under every pricing
//! profile, retention, render time. Recordings are spread over cores; results are collected in
//! recording order, so every figure but the render time is identical whatever the thread count.

use std::path::PathBuf;

use rayon::prelude::*;

use crate::config::Config;
use crate::host::Host;
use crate::pricing::{Pricing, PromptCost};
use crate::recording::Recording;
use crate::retention::{retention, Retention};
use crate::tokens::{Counter, Tokenizer};
use crate::trigger::Prompter;
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
    pub prompts: Vec<PromptMeasure>,
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
}

/// What to compare, resolved from the configuration and the command line.
pub struct AbPlan {
    pub variants: Vec<Variant>,
    pub baseline: String,
    pub pricing: Vec<Pricing>,
    pub primary_pricing: String,
    pub tokenizer: Tokenizer,
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
        let base = match variants.iter().position(|v| v.label == baseline) {
            Some(i) => variants.remove(i),
            None => Variant::parse(&baseline)?,
        };
        variants.insert(0, base);
        let tokenizer_name = tokenizer.unwrap_or(config.ab_tokenizer());
        let tokenizer = Tokenizer::from_name(tokenizer_name).ok_or_else(|| Error::UnknownName {
            what: "tokenizer",
            name: tokenizer_name.into(),
            known: "o200k_base, cl100k_base".into(),
        })?;
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
        })
    }
}

/// Renders and measures every recording through every variant of `plan`. `progress` is called
/// once per recording done.
pub fn run(
    host: &Host,
    plan: AbPlan,
    recordings: &[Recording],
    progress: &(dyn Fn() + Sync),
) -> Result<Ab, Error> {
    let prompters: Vec<Prompter<'_>> = plan
        .variants
        .iter()
        .map(|v| prompter_for(host, v))
        .collect::<Result<_, _>>()?;
    let per_recording: Vec<Vec<RunMeasure>> = recordings
        .par_iter()
        .map(|recording| {
            let mut counter = Counter::new(plan.tokenizer);
            let runs = prompters
                .iter()
                .enumerate()
                .map(|(i, p)| measure(p, i, recording, &plan.pricing, &mut counter))
                .collect();
            progress();
            runs
        })
        .collect();
    let baseline = plan
        .variants
        .iter()
        .position(|v| v.label == plan.baseline)
        .unwrap_or(0);
    let primary_pricing = plan
        .pricing
        .iter()
        .position(|p| p.name == plan.primary_pricing)
        .unwrap_or(0);
    Ok(Ab {
        variants: plan.variants,
        baseline,
        pricing: plan.pricing,
        primary_pricing,
        tokenizer: plan.tokenizer,
        runs: per_recording.into_iter().flatten().collect(),
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

fn measure(
    prompter: &Prompter<'_>,
    variant: usize,
    recording: &Recording,
    pricing: &[Pricing],
    counter: &mut Counter,
) -> RunMeasure {
    let mut prompts = Vec::with_capacity(recording.turns.len());
    let mut previous = Vec::new();
    for turns in 0..recording.turns.len() {
        let (prompt, render_ns) = match prompter.render(recording, turns, counter) {
            Ok(done) => done,
            Err(err) => {
                return RunMeasure {
                    recording: recording.path.clone(),
                    variant,
                    prompts,
                    error: Some(err.to_string()),
                }
            }
        };
        let tokens = counter.prompt(&prompt.messages);
        let shared = if turns == 0 {
            0
        } else {
            counter.shared_prefix(&previous, &prompt.messages)
        };
        let text: String = prompt
            .messages
            .iter()
            .skip(1)
            .map(|m| m.content.as_str())
            .collect::<Vec<_>>()
            .join("\n");
        prompts.push(PromptMeasure {
            turns,
            tokens,
            shared,
            costs: pricing.iter().map(|p| p.cost(tokens, shared)).collect(),
            retention: retention(&recording.turns[..turns], &text),
            render_ns,
        });
        previous = prompt.messages;
    }
    RunMeasure {
        recording: recording.path.clone(),
        variant,
        prompts,
        error: None,
    }
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
            let s = &mut sums[run.variant];
            if let Some(err) = &run.error {
                s.failed += 1;
                s.first_error
                    .get_or_insert_with(|| format!("{}: {err}", run.recording.display()));
            }
            for p in &run.prompts {
                s.prompts += 1;
                s.tokens += p.tokens;
                s.max_tokens = s.max_tokens.max(p.tokens);
                s.cached_tokens += p.costs[self.primary_pricing].cached;
                for (total, cost) in s.costs.iter_mut().zip(&p.costs) {
                    *total += cost.cost;
                }
                s.retention.add(&p.retention);
                s.render_ns += p.render_ns;
            }
        }
        sums
    }

    /// Per turn index k (the prompt before turn k + 1): (mean tokens, summed cost under the
    /// primary profile) over the recordings that reach it, per variant.
    pub fn by_turn(&self) -> Vec<Vec<(f64, f64)>> {
        let max_turns = self.runs.iter().map(|r| r.prompts.len()).max().unwrap_or(0);
        (0..self.variants.len())
            .map(|v| {
                (0..max_turns)
                    .map(|k| {
                        let mut tokens = 0usize;
                        let mut cost = 0.0;
                        let mut n = 0usize;
                        for run in self.runs.iter().filter(|r| r.variant == v) {
                            if let Some(p) = run.prompts.get(k) {
                                tokens += p.tokens;
                                cost += p.costs[self.primary_pricing].cost;
                                n += 1;
                            }
                        }
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
