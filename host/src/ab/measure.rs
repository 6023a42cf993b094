//! Measuring one recording through one variant: the prompt sent before each turn is rendered
//! and measured (tokens, the prefix shared with the previous request, its cost under every
//! pricing profile, retention, render time), and added up into the run's totals.
//!
//! Each profile prices the request as its provider's format counts it ([`Counting::of`]): the
//! request is counted once per counting the profiles need. A prompt's `tokens` and `shared` are
//! the primary profile's counting, the one its cost is priced on.

use std::path::PathBuf;
use std::sync::Arc;

use crate::ab::by_run::RunPricing;
use crate::ab::retention::{Facts, Retention, Search};
use crate::ab::settle::settle;
use crate::ab::summary::CacheTokens;
use crate::ab::Summary;
use crate::cache::{CacheRequest, CacheState, Caching};
use crate::pricing::{Pricing, PromptCost};
use crate::recording::Recording;
use crate::render::trigger::{Prompter, RunCache};
use crate::tokens::{Counter, Counting};

/// What one prompt measured.
#[derive(Clone, Debug, PartialEq)]
pub struct PromptMeasure {
    /// Turns rendered from: this is the prompt sent before turn `turns + 1`.
    pub turns: usize,
    /// The tokens of the request, counted as the primary profile's provider counts them.
    pub tokens: usize,
    /// Tokens shared as an exact prefix with the previous request of the run (the primary
    /// profile's counting).
    pub shared: usize,
    /// One per pricing profile, in the order of [`Ab::pricing`](crate::ab::Ab::pricing).
    pub costs: Vec<PromptCost>,
    pub retention: Retention,
    /// Duration of the strategy call.
    pub render_ns: u64,
}

/// An action some of whose cited literals the prompt before it does not show: the drill-down
/// of the evidence measure.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DroppedAction {
    pub recording: PathBuf,
    /// The recording's position in the corpus: the drill-down lists actions in corpus order.
    pub position: usize,
    /// The turn whose action cites them.
    pub turn: usize,
    /// The literals it cites that the prompt does not show, in the order the action cites
    /// them.
    pub dropped: Vec<String>,
    /// How many literals it cites.
    pub cited: usize,
}

/// The dropped actions kept per run and per strategy: a drill-down, not a count.
pub const DRILL_DOWN: usize = 5;

/// One recording through one variant.
#[derive(Clone, Debug, PartialEq)]
pub struct RunMeasure {
    pub recording: PathBuf,
    pub variant: usize,
    /// Every prompt's measures, kept only when the output needs them (JSON, CSV).
    pub prompts: Vec<PromptMeasure>,
    /// The run's figures, always kept.
    pub totals: Summary,
    /// Per turn index: (tokens, how the primary profile's cache billed them), both in the
    /// primary profile's counting.
    pub by_turn: Vec<(usize, CacheTokens)>,
    /// Why the variant could not render this recording.
    pub error: Option<String>,
    /// Whether that was the strategy refusing an option's value: the configuration's fault,
    /// which ends the run (`ptc ab` stops with it) rather than failing a recording.
    pub option_error: bool,
    /// Whether the variant is judged on this recording: it holds what the variant's prompts
    /// are made from.
    pub judged: bool,
    /// The first actions whose cited literals its prompts dropped, at most [`DRILL_DOWN`].
    pub dropped: Vec<DroppedAction>,
}

/// The measure of a variant that cannot render at all: failed, with the reason.
pub(super) fn unusable(
    variant: usize,
    recording: &Recording,
    profiles: usize,
    reason: &str,
) -> RunMeasure {
    RunMeasure {
        recording: recording.label(),
        variant,
        judged: true,
        prompts: Vec::new(),
        totals: Summary {
            costs: vec![0.0; profiles],
            failed: 1,
            first_error: Some(reason.to_owned()),
            ..Summary::default()
        },
        by_turn: Vec::new(),
        error: Some(reason.to_owned()),
        option_error: false,
        dropped: Vec::new(),
    }
}

/// The run of `variant` on a recording it cannot be measured on and is not judged on (the
/// recording lacks what its prompts are made from): nothing measured, nothing failed.
pub(super) fn unmeasured(variant: usize, recording: &Recording, profiles: usize) -> RunMeasure {
    RunMeasure {
        judged: false,
        totals: Summary {
            costs: vec![0.0; profiles],
            ..Summary::default()
        },
        error: None,
        ..unusable(variant, recording, profiles, "")
    }
}

/// The pricing profiles a prompt is priced under, and the one its tokens are counted for.
pub(super) struct Priced<'a> {
    pub profiles: &'a [Pricing],
    /// The index of the profile of the cost column.
    pub primary: usize,
    /// Priced run by run: per turn, the profiles it is left out of (another billed profile
    /// prices its call) and the column `as-billed` takes its costs from; `None` when every
    /// profile prices every turn.
    pub by_run: Option<&'a RunPricing>,
    /// Per profile, whether it is priced at all ([`AbPlan::priced`](crate::ab::AbPlan)).
    pub priced: &'a [bool],
}

impl Priced<'_> {
    /// Whether profile `i` leaves turn `turn` unpriced: it is not priced at all, or another
    /// billed profile prices the turn's call.
    pub fn skips(&self, i: usize, turn: usize) -> bool {
        !self.priced.get(i).copied().unwrap_or(true)
            || self.by_run.is_some_and(|b| b.skipped(i, turn))
    }

    /// The profiles priced, with their indices.
    fn priced_profiles(&self) -> impl Iterator<Item = (usize, &Pricing)> {
        let priced = self.priced;
        self.profiles
            .iter()
            .enumerate()
            .filter(move |(i, _)| priced.get(*i).copied().unwrap_or(true))
    }
}

/// Per profile, the profile before it whose cache simulation it shares, if one does: it caches
/// alike ([`Pricing::caches_like`]), counts its requests alike, and prices the same turns of
/// the run's `turns`; the first of such profiles keeps a cache, the others none.
fn twins(priced: &Priced<'_>, turns: usize) -> Vec<Option<usize>> {
    let profiles = priced.profiles;
    (0..profiles.len())
        .map(|i| {
            (0..i).find(|&j| {
                profiles[i].caches_like(&profiles[j])
                    && Counting::of(profiles[i].caching) == Counting::of(profiles[j].caching)
                    && (0..turns).all(|t| priced.skips(i, t) == priced.skips(j, t))
            })
        })
        .collect()
}

/// Renders every prompt of `recording` through `prompter` and measures it; `facts` are the
/// recording's, gathered once for every variant.
pub(super) fn measure(
    prompter: &Prompter<'_>,
    variant: usize,
    recording: &Recording,
    facts: &Facts,
    priced: &Priced<'_>,
    detail: bool,
    counter: &mut Counter,
) -> RunMeasure {
    let (pricing, primary) = (priced.profiles, priced.primary);
    let skipped = |i: usize, turn: usize| priced.skips(i, turn);
    let mut run = RunMeasure {
        judged: true,
        recording: recording.label(),
        variant,
        prompts: Vec::new(),
        totals: Summary {
            costs: vec![0.0; pricing.len()],
            ..Summary::default()
        },
        by_turn: Vec::with_capacity(recording.turns.len()),
        error: None,
        option_error: false,
        dropped: Vec::new(),
    };
    // Profiles whose placement is settled once the run is known: their prompts are added up
    // at its end.
    let hindsight = pricing.iter().any(|p| p.in_hindsight());
    let mut deferred = Vec::new();
    let mut previous = Vec::new();
    let mut cache = RunCache::default();
    let mut search = Search::default();
    // What each provider holds in its cache for this run. Each profile prices the request as
    // its provider counts it; the blocks are measured only for a provider whose caching is
    // explicit, in Anthropic's format.
    let mut provider_caches = vec![CacheState::default(); pricing.len()];
    let countings: Vec<Counting> = pricing.iter().map(|p| Counting::of(p.caching)).collect();
    let twins = twins(priced, recording.turns.len());
    // Per profile, what the cache made of the latest model call's request: its twins price
    // theirs from it.
    let mut call_cost = vec![PromptCost::default(); pricing.len()];
    let primary_counting = countings
        .get(primary)
        .copied()
        .unwrap_or(Counting::OpenAiChat);
    // Each request is counted only as the profiles priced count it.
    let counted = |counting: Counting| {
        priced
            .priced_profiles()
            .any(|(i, _)| countings.get(i) == Some(&counting))
    };
    let chat = primary_counting == Counting::OpenAiChat || counted(Counting::OpenAiChat);
    let blocks = counted(Counting::AnthropicBlocks);
    // OpenAI's breakpoints and Gemini's explicit caching need the blocks of the chat format,
    // from the smallest of their minimums on.
    let blocks_from = priced
        .priced_profiles()
        .map(|(_, p)| p)
        .filter(|p| {
            matches!(
                p.caching,
                Caching::OpenAiBreakpoints | Caching::GeminiExplicit
            ) && p.min_cacheable_tokens > 0
        })
        .map(|p| p.min_cacheable_tokens)
        .min();
    let chat_blocks = blocks_from.is_some();
    let blocks_from = blocks_from.unwrap_or(usize::MAX);
    for turns in 0..recording.turns.len() {
        let (prompt, render_ns) =
            match prompter.render_cached(recording, turns, counter, &mut cache) {
                Ok(done) => done,
                Err(err) => {
                    run.totals.failed = 1;
                    run.totals.first_error = Some(format!("{}: {err}", recording.path.display()));
                    run.error = Some(err.to_string());
                    run.option_error = err.is_option_error();
                    settle(&mut run, deferred, priced, &provider_caches, detail);
                    return run;
                }
            };
        let at = recording.started_at.get(turns).copied().flatten();
        // The model calls made before the prompt is sent (a compaction's summarizer): each
        // profile prices their requests through its cache, before the prompt, and their
        // responses as output; their tokens are counted apart from the prompt's.
        let calls = match prompter.model_calls(recording, turns, &prompt) {
            Ok(calls) => calls,
            Err(err) => {
                run.totals.failed = 1;
                run.totals.first_error = Some(format!("{}: {err}", recording.path.display()));
                run.error = Some(err.to_string());
                run.option_error = err.is_option_error();
                settle(&mut run, deferred, priced, &provider_caches, detail);
                return run;
            }
        };
        // What the calls cost, per profile; none (nothing to add) without calls.
        let mut call_costs = match calls.is_empty() {
            true => Vec::new(),
            false => vec![PromptCost::default(); pricing.len()],
        };
        for call in &calls {
            let output = counter.text(&call.response);
            let chat_call = (chat || chat_blocks)
                .then(|| counter.request_as(Counting::OpenAiChat, &previous, &call.request, at));
            let blocks_call = blocks.then(|| {
                counter.request_as(Counting::AnthropicBlocks, &previous, &call.request, at)
            });
            for (i, ((p, &counting), cache)) in pricing
                .iter()
                .zip(&countings)
                .zip(&mut provider_caches)
                .enumerate()
            {
                let request = match counting {
                    Counting::OpenAiChat => chat_call.as_ref(),
                    Counting::AnthropicBlocks => blocks_call.as_ref(),
                };
                if let (Some(request), false) = (request, skipped(i, turns)) {
                    let mut cost = match twins[i] {
                        Some(twin) => {
                            let mut cost = PromptCost::default();
                            p.cost_like(request, &call_cost[twin], &mut cost);
                            cost
                        }
                        None => p.cost(request, cache),
                    };
                    call_cost[i] = cost;
                    p.add_output(&mut cost, output);
                    call_costs[i].add_call(cost);
                }
            }
        }
        // A rebuilt run's inferred prefix leads every request, the first included.
        let prefix = prompt.prefix_tokens;
        let follows = turns > 0;
        let chat_request = if chat || chat_blocks {
            let (tokens, shared) = counter.measure(&previous, &prompt.messages);
            // Blocks for the rules that place breakpoints in the chat format, unless the
            // request is under every such rule's minimum: no prefix of it is then read or
            // written, whatever its blocks.
            if chat_blocks && tokens.saturating_add(prefix) >= blocks_from {
                counter.request(&prompt.messages, tokens, shared, at)
            } else {
                CacheRequest {
                    tokens,
                    shared,
                    at,
                    ..CacheRequest::default()
                }
            }
        } else {
            CacheRequest::default()
        }
        .after_prefix(prefix, follows);
        let blocks_request = if blocks {
            counter
                .request_as(Counting::AnthropicBlocks, &previous, &prompt.messages, at)
                .after_prefix(prefix, follows)
        } else {
            CacheRequest::default()
        };
        let request_of = |counting: Counting| match counting {
            Counting::OpenAiChat => &chat_request,
            Counting::AnthropicBlocks => &blocks_request,
        };
        // The turn's response, priced only for the surcharge of a prompt in a price tier: the
        // billed output where the run has it, else ptc's count of the response.
        let mut response = None;
        let mut response_tokens = || {
            *response.get_or_insert_with(|| match recording.usage.get(turns) {
                Some(Some(usage)) if usage.output > 0 => usage.output as usize,
                _ => counter.text(&recording.turns[turns].raw_response),
            })
        };
        // Each profile's cost written in its place: a cost holds every tier's tokens, and one
        // made apart and then moved in is copied.
        let mut costs = vec![PromptCost::default(); pricing.len()];
        let each = pricing.iter().zip(&countings).zip(&mut provider_caches);
        for (i, ((p, &counting), cache)) in each.enumerate() {
            if skipped(i, turns) {
                continue;
            }
            // A twin's cost is priced from the tokens of its twin's, before it, whose calls
            // and surcharges leave them as its cache made them.
            let (before, after) = costs.split_at_mut(i);
            let cost = &mut after[0];
            match twins[i] {
                Some(twin) => p.cost_like(request_of(counting), &before[twin], cost),
                None => *cost = p.cost(request_of(counting), cache),
            }
            if cost.class.is_some() {
                p.add_response_surcharge(cost, response_tokens());
            }
            if let Some(calls) = call_costs.get(i) {
                cost.add_call(*calls);
            }
        }
        if let Some((slot, own)) = priced.by_run.and_then(|b| b.as_billed(turns)) {
            costs[slot] = costs[own];
        }
        let (tokens, shared) = {
            let request = request_of(primary_counting);
            (request.tokens, request.shared)
        };
        let messages: Vec<&str> = prompt
            .messages
            .iter()
            .skip(1)
            .map(|m| m.content.as_str())
            .collect();
        // The messages the previous prompt had at their place, the same texts (the system
        // prompt, which the text leaves out, aside): its text is written over from there.
        let lead = (prompt.messages.iter().zip(&previous).skip(1))
            .take_while(|(now, before)| Arc::ptr_eq(&now.content, &before.content))
            .count();
        let measure = PromptMeasure {
            turns,
            tokens,
            shared,
            costs,
            retention: facts.retention_next(turns, &messages, lead, &mut search),
            render_ns,
        };
        let evidence = measure.retention.evidence;
        if evidence.visible < evidence.total && run.dropped.len() < DRILL_DOWN {
            run.dropped.push(DroppedAction {
                recording: recording.label(),
                position: 0,
                turn: turns + 1,
                dropped: facts.dropped_last(turns, &search),
                cited: evidence.total,
            });
        }
        previous = prompt.messages;
        if hindsight {
            deferred.push((measure, calls.len()));
            continue;
        }
        run.totals.add_prompt(&measure, primary);
        run.by_turn
            .push((tokens, CacheTokens::from(&measure.costs[primary])));
        if detail {
            run.prompts.push(measure);
        }
    }
    settle(&mut run, deferred, priced, &provider_caches, detail);
    run
}
