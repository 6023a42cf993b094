//! A recording's billed calls counted as the profile its run is priced by counts them, one
//! request after another, before the cache is simulated.

use super::call::{billed, Call};
use crate::cache::{CacheRequest, Caching};
use crate::pricing::Pricing;
use crate::recording::{Recording, SentMessages};
use crate::render::trigger::as_sent_after;
use crate::tokens::{Counter, Counting};

/// A call measured, before the cache is simulated.
pub(super) struct Pending {
    pub(super) run: usize,
    pub(super) call: Call,
    /// Tokens shared with the previous request of its run.
    pub(super) shared: usize,
    /// The previous request of its run: (ptc's count, the billed prompt), when it was billed.
    pub(super) previous: Option<(u64, u64)>,
    /// ptc's count of the response after the previous request, when this request sends the
    /// whole previous request and then that response.
    pub(super) response: Option<usize>,
    /// The request's message-boundary prefixes: (key, tokens up to its end).
    pub(super) prefixes: Vec<(u64, usize)>,
    pub(super) request: CacheRequest,
}

/// Counts every billed call of `recording` (the `run`-th) and adds it to `pending`; returns the
/// turns not compared.
pub(super) fn measure(
    recording: &Recording,
    run: usize,
    pricing: &Pricing,
    counter: &mut Counter,
    pending: &mut dyn FnMut(Pending),
) -> usize {
    // The request as the profile's provider counts it.
    let counting = Counting::of(pricing.caching);
    let mut previous = Vec::new();
    let mut previous_billed = None;
    let mut skipped = 0;
    let mut sent = SentMessages::default();
    for turns in 0..recording.turns.len() {
        let usage = recording.usage.get(turns).and_then(Option::as_ref);
        let prompt = match as_sent_after(recording, turns, &mut sent) {
            Ok(prompt) => prompt,
            Err(_) => {
                skipped += usize::from(usage.is_some());
                previous.clear();
                previous_billed = None;
                continue;
            }
        };
        let at = recording.started_at.get(turns).copied().flatten();
        // A rebuilt request's inferred prefix leads it, as it led every request of the run.
        let mut request = counter
            .request_as(counting, &previous, &prompt.messages, at)
            .after_prefix(prompt.prefix_tokens, !previous.is_empty());
        let (counted, shared) = (request.tokens, request.shared);
        let response = match prompt.messages.get(previous.len()) {
            Some(next)
                if !previous.is_empty()
                    && next.role == ptc_plugin_api::Role::Assistant
                    && prompt.messages[..previous.len()]
                        .iter()
                        .zip(&previous)
                        .all(|(a, b)| a.same_text(b)) =>
            {
                Some(match counting {
                    Counting::OpenAiChat => counter.message(next),
                    Counting::AnthropicBlocks => {
                        counter.prompt_as(counting, std::slice::from_ref(next))
                    }
                })
            }
            _ => None,
        };
        let Some(usage) = usage else {
            skipped += 1;
            previous = prompt.messages;
            previous_billed = None;
            continue;
        };
        // The blocks of a request as sent end where its messages end.
        let prefixes = message_ends(&request);
        if pricing.caching == Caching::Implicit {
            request.blocks.clear();
        }
        let call = billed(usage, turns + 1, at, counted);
        let this = (call.counted, call.billed_prompt);
        pending(Pending {
            run,
            call,
            shared,
            previous: previous_billed,
            response,
            prefixes,
            request,
        });
        previous = prompt.messages;
        previous_billed = Some(this);
    }
    skipped
}

/// The (key, end) of each block of `request`.
fn message_ends(request: &CacheRequest) -> Vec<(u64, usize)> {
    request.blocks.iter().map(|b| (b.prefix, b.end)).collect()
}
