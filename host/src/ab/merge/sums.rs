//! The sums of a variant over a part's recordings, checked for what a measure can give.

use super::check::{countings, misbilled, partial, shares_fit};
use crate::ab::partial::Fingerprint;
use crate::ab::summary::CacheTokens;

/// Refuses the sums of a variant over `recordings` that no measure gives: every profile bills
/// each token of its count once (see [`misbilled`]), the cached tokens are those the primary profile read, no share is above
/// its whole, and the per-turn sums add up to the variant's (each turn reached by at least one
/// of the recordings, and by no more than the turn before). The reason starts with the place
/// after `summaries[v]`.
pub(super) fn summary_fits(
    s: &crate::ab::partial::SummaryPart,
    turns: &[crate::ab::summary::TurnSum],
    recordings: usize,
    print: &Fingerprint,
) -> Result<(), String> {
    let primary = print.primary_pricing;
    let profiles_billed = s.cache.len();
    if let Some((i, c)) = misbilled(
        &s.cache,
        s.tokens,
        &countings(print),
        &partial(print),
        primary,
    ) {
        return Err(format!(
            ".tokens: {} tokens, but cache[{i}] bills {}",
            s.tokens,
            c.read as u128 + c.written as u128 + c.plain as u128
        ));
    }
    if profiles_billed == 0 && s.tokens > 0 {
        return Err(format!(
            ".tokens: {} tokens that no profile bills",
            s.tokens
        ));
    }
    if s.max_tokens > s.tokens
        || (s.prompts == 0 && s.tokens > 0)
        || s.max_tokens
            .checked_mul(s.prompts)
            .is_some_and(|most| most < s.tokens)
    {
        return Err(format!(
            ".max_tokens: {} at most of {} prompts for {} tokens",
            s.max_tokens, s.prompts, s.tokens
        ));
    }
    let read = s.cache.get(primary).map_or(0, |c| c.read);
    if s.cached_tokens > s.tokens || s.cached_tokens != read {
        return Err(format!(
            ".cached_tokens: {} cached of {} tokens, {read} read from the primary profile's cache",
            s.cached_tokens, s.tokens
        ));
    }
    shares_fit(&s.retention, ".retention")?;
    if s.failed > recordings || s.first_error.is_some() != (s.failed > 0) {
        return Err(format!(".failed: {} of {recordings} recordings", s.failed));
    }
    let some_only = partial(print).get(primary).copied().unwrap_or(false);
    let mut tokens = 0usize;
    let mut cache = CacheTokens::default();
    let mut reach = recordings;
    for (k, turn) in turns.iter().enumerate() {
        if turn.recordings == 0 || turn.recordings > reach {
            return Err(format!(
                ": turns[{k}].recordings is {} after {reach}",
                turn.recordings
            ));
        }
        reach = turn.recordings;
        // Priced run by run, the primary column bills the runs a billed profile priced only.
        let bills = turn.cache.total();
        if bills != Some(turn.tokens) && !(some_only && bills.is_some_and(|b| b <= turn.tokens)) {
            return Err(format!(": turns[{k}].tokens are not those its cache bills"));
        }
        tokens = tokens
            .checked_add(turn.tokens)
            .ok_or_else(|| format!(": turns[{k}].tokens: the sum overflows"))?;
        cache = cache
            .checked_add(turn.cache)
            .ok_or_else(|| format!(": turns[{k}].cache: the sum overflows"))?;
    }
    if tokens != s.tokens || cache != s.cache.get(primary).copied().unwrap_or_default() {
        return Err(format!(
            ".tokens: {} tokens, the turns sum {tokens}",
            s.tokens
        ));
    }
    Ok(())
}
