//! What each prompt of a run costs under its provider's caching rule (the prices are a
//! [`Pricing`], the cache's data `cache`'s).
//!
//! Three rules are simulated, each as its provider publishes it:
//!
//! - **Explicit** (Anthropic). A request is a sequence of content blocks; a block may carry a
//!   cache breakpoint (at most [`MAX_BREAKPOINTS`]; where they go is the
//!   [`Placement`](crate::cache::Placement): the automatic one is the last block). The
//!   request reads the longest prefix that ends at one of its block boundaries, equals a
//!   prefix an earlier request of the run wrote, and lies within [`LOOKBACK_BLOCKS`] blocks
//!   before (and including) one of its breakpoints. The tokens from there up to its last
//!   breakpoint are written (at the write price of the profile's TTL); the tokens after the
//!   last breakpoint are plain input. Every breakpoint whose prefix reaches the minimum writes
//!   that prefix; one under the minimum caches nothing. A read refreshes the entry's TTL.
//! - **OpenAI's breakpoints** (GPT-5.6 and later). Breakpoints as above, but not on an
//!   assistant message's blocks (the API takes none there: such a mark is not written), at most
//!   [`MAX_BREAKPOINTS`] written a request; the automatic one is the last block of the newest
//!   message that is not the assistant's. The request reads the longest prefix, at any of its
//!   blocks (no lookback limit), that one of the latest [`OPENAI_MATCHED_BREAKPOINTS`]
//!   breakpoints written in the run wrote; the rest up to its last breakpoint is written at the
//!   write price. An entry lives its TTL (30 minutes) from its write: OpenAI calls it a minimum
//!   and does not say a read extends it.
//! - **Gemini's explicit caching** (a cache object the client creates). One object per run:
//!   the prefix up to the first breakpoint of the request that creates it (with `auto`, the
//!   system prompt), when it reaches the minimum. That request pays it at the write price,
//!   which the profile sets to what creating, reading and storing it for the TTL cost (input
//!   price, cached price, storage per hour × the TTL's hours); every later request that
//!   starts with it reads it; once the TTL from its creation has run out, or a request does
//!   not start with it, the next one creates another.
//! - **Implicit** (OpenAI before GPT-5.6, Gemini, DeepSeek). No markers: the longest prefix the
//!   prompt shares with the previous request of its run is read, when the prompt and the
//!   prefix reach the minimum, counted in steps of `cache_step_tokens`; everything else is
//!   plain input. No write premium.
//! - **Prefix units** (DeepSeek's guide, read 2026-11-26). No markers, no write premium; each
//!   cached prefix is a complete unit, and a request reads only a unit it starts with whole
//!   (the longest, in whole steps, when it reaches the minimum). A request persists the unit
//!   of its whole input and, when the next request sends its response back after it, the unit
//!   that ends with that response; a block prefix two requests share becomes a unit for the
//!   requests after the second (the guide's "common prefix detection": `A+B` then `A+C` reads
//!   nothing, and `A+D` then reads `A`). The guide also cuts units "at fixed token intervals"
//!   of long inputs without saying the interval: those are not simulated, so a long prompt
//!   edited in its middle reads no more than its last whole unit.
//!
//! The requests of one run are assumed to follow each other within the TTL, unless the
//! recording has per-turn timestamps: an entry not used for longer than the TTL is then gone
//! (for the implicit rule: nothing is read after a gap longer than the TTL). A profile whose
//! provider states no lifetime (`unstated`) expires nothing.

use super::{Pricing, PromptCost, TierTokens};
#[cfg(test)]
use crate::cache::CacheBlock;
use crate::cache::{
    CacheRequest, CacheState, Caching, Marks, Placement, Ttl, LOOKBACK_BLOCKS, MAX_BREAKPOINTS,
    OPENAI_MATCHED_BREAKPOINTS,
};

impl Pricing {
    /// The plain cost of `tokens`.
    fn per(tokens: usize, price: f64) -> f64 {
        tokens as f64 * price / 1_000_000.0
    }

    pub(super) fn write_price(&self) -> f64 {
        match self.ttl {
            Ttl::OneHour => self.cache_write_1h_per_mtok,
            _ => self.cache_write_per_mtok,
        }
    }

    /// What `read`, `written` and `plain` tokens cost. Linear, so the cost of many prompts is
    /// the cost of their summed tokens: sums of integers, exact in any order.
    pub fn priced(&self, read: usize, written: usize, plain: usize) -> PromptCost {
        PromptCost {
            read,
            written,
            plain,
            call_read: 0,
            call_written: 0,
            call_plain: 0,
            output: 0,
            cost: self.dollars(read, written, plain),
            ..PromptCost::default()
        }
    }

    /// The dollars of [`Pricing::priced`].
    #[inline]
    fn dollars(&self, read: usize, written: usize, plain: usize) -> f64 {
        Pricing::per(read, self.cache_read_per_mtok)
            + Pricing::per(written, self.write_price())
            + Pricing::per(plain, self.input_per_mtok)
    }

    /// `output` tokens of a model call's response, priced at the output price.
    pub fn output(&self, output: usize) -> PromptCost {
        PromptCost {
            output,
            cost: Pricing::per(output, self.output_per_mtok),
            ..PromptCost::default()
        }
    }

    /// What the requests that fell in a tier pay on top of the prices listed: per tier, its
    /// multiplier less one times what their tokens cost. Linear in each tier's tokens, so the
    /// surcharge of many prompts is that of their summed tokens.
    pub fn surcharge(&self, tiered: &[TierTokens; 3]) -> f64 {
        super::TierClass::ALL
            .iter()
            .zip(tiered)
            .filter(|(_, t)| **t != TierTokens::default())
            .map(|(&class, t)| {
                let listed = self.priced(t.read, t.written, t.plain).cost
                    + Pricing::per(t.output, self.output_per_mtok);
                (self.tiers.multiplier(class) - 1.0) * listed
            })
            .sum()
    }

    /// Adds `output` tokens of the response to `cost`'s request, at the output price times
    /// the request's tier.
    pub fn add_output(&self, cost: &mut PromptCost, output: usize) {
        cost.output += output;
        cost.cost += Pricing::per(output, self.output_per_mtok);
        self.add_response_surcharge(cost, output);
    }

    /// Adds the tier's surcharge on `response` tokens of the output of `cost`'s request: the
    /// response of a recorded turn is the same whatever the strategy and is not counted, but
    /// a prompt in a tier pays the tier on it too, which a prompt under the tier does not.
    pub fn add_response_surcharge(&self, cost: &mut PromptCost, response: usize) {
        if let Some(class) = cost.class {
            cost.tiered[class as usize].output += response;
            cost.cost +=
                (self.tiers.multiplier(class) - 1.0) * Pricing::per(response, self.output_per_mtok);
        }
    }

    /// The cost of `request`, given what earlier requests of its run left in `cache`, which it
    /// updates; in the tier it falls in ([`Tiers`](super::Tiers)), every price times the
    /// tier's. With a placement settled in hindsight ([`Placement::in_hindsight`]) the cost
    /// is provisional (the automatic placement's) until [`Pricing::settle`] prices the run.
    #[inline]
    pub fn cost(&self, request: &CacheRequest, cache: &mut CacheState) -> PromptCost {
        if self.in_hindsight() {
            let auto: Marks = self.marks(request, Placement::Auto);
            let cost = self.cost_marked(request, &auto, cache);
            cache.run.push(request.clone());
            return cost;
        }
        // Only the rules that place breakpoints read them.
        let marks: Marks = match self.caching {
            Caching::Explicit | Caching::OpenAiBreakpoints if self.min_cacheable_tokens > 0 => {
                self.marks(request, self.placement)
            }
            _ => Marks::new(),
        };
        self.cost_marked(request, &marks, cache)
    }

    /// Writes into `cost`, a cost as made by default, the cost of `request` at this
    /// profile's prices and in its tier, from `like`, what a profile that caches as this one
    /// does ([`Pricing::caches_like`]) made of it: the tokens it read, wrote and paid plainly.
    /// Equal to [`Pricing::cost`] with a cache that priced every request before it as
    /// `like`'s did. In place, as [`Pricing::in_tier`].
    #[inline]
    pub fn cost_like(&self, request: &CacheRequest, like: &PromptCost, cost: &mut PromptCost) {
        debug_assert_eq!(*cost, PromptCost::default());
        (cost.read, cost.written, cost.plain) = (like.read, like.written, like.plain);
        cost.cost = self.dollars(like.read, like.written, like.plain);
        self.in_tier(request, cost);
    }

    /// The blocks of `request` that `placement` puts a breakpoint on, as the caching rule
    /// takes them: none on an assistant's block for OpenAI's breakpoints, whose automatic one
    /// is the last block of the newest message that is not the assistant's.
    pub(super) fn marks<C: FromIterator<usize>>(
        &self,
        request: &CacheRequest,
        placement: Placement,
    ) -> C {
        let blocks = &request.blocks;
        match (self.caching, placement) {
            (Caching::OpenAiBreakpoints, Placement::Auto) => blocks
                .iter()
                .rposition(|b| !b.assistant)
                .into_iter()
                .collect(),
            (Caching::OpenAiBreakpoints, placement) => placement
                .breakpoints::<Marks>(request)
                .into_iter()
                .filter(|&i| !blocks[i].assistant)
                .collect(),
            (_, placement) => placement.breakpoints(request),
        }
    }

    /// [`Pricing::cost`] with breakpoints on the blocks `marks` (explicit caching and
    /// OpenAI's breakpoints; the other rules place none).
    #[inline]
    pub(super) fn cost_marked(
        &self,
        request: &CacheRequest,
        marks: &[usize],
        cache: &mut CacheState,
    ) -> PromptCost {
        let mut cost = self.cached(request, marks, cache);
        self.in_tier(request, &mut cost);
        cost
    }

    /// Makes `cost`, the cost of `request` at the prices listed, its tier's: times its
    /// multiplier. In place: a cost is copied at a cost (it holds every tier's tokens).
    #[inline]
    pub(super) fn in_tier(&self, request: &CacheRequest, cost: &mut PromptCost) {
        if let Some(class) = self.tiers.class(request.tokens as u64, request.at) {
            cost.class = Some(class);
            cost.tiered[class as usize] = TierTokens {
                read: cost.read,
                written: cost.written,
                plain: cost.plain,
                output: 0,
            };
            cost.cost *= self.tiers.multiplier(class);
        }
    }

    /// The cost of `request` at the prices listed, as the caching rule reads and writes it.
    fn cached(
        &self,
        request: &CacheRequest,
        marks: &[usize],
        cache: &mut CacheState,
    ) -> PromptCost {
        if self.min_cacheable_tokens == 0 {
            return self.priced(0, 0, request.tokens);
        }
        match self.caching {
            Caching::Implicit => self.implicit(request, cache),
            Caching::PrefixUnits => self.prefix_units(request, cache),
            Caching::Explicit => self.explicit(request, marks, cache),
            Caching::OpenAiBreakpoints => self.openai_breakpoints(request, marks, cache),
            Caching::GeminiExplicit => self.gemini_explicit(request, cache),
        }
    }

    /// Implicit caching: the prefix shared with the previous request is read, when the prompt
    /// and the prefix reach the minimum, in whole steps, and the previous request was sent
    /// within the TTL.
    fn implicit(&self, request: &CacheRequest, cache: &mut CacheState) -> PromptCost {
        let (total, shared) = (request.tokens, request.shared);
        let expired = match (request.at, cache.last_at) {
            (Some(now), Some(then)) => now - then > self.ttl.seconds(),
            _ => false,
        };
        if request.at.is_some() {
            cache.last_at = request.at;
        }
        if expired || total < self.min_cacheable_tokens || shared < self.min_cacheable_tokens {
            return self.priced(0, 0, total);
        }
        let step = self.cache_step_tokens.max(1);
        let read = shared.min(total) / step * step;
        self.priced(read, 0, total - read)
    }

    /// DeepSeek's prefix units, as the module documentation says.
    fn prefix_units(&self, request: &CacheRequest, cache: &mut CacheState) -> PromptCost {
        let now = request.at.unwrap_or(0.0);
        let ttl = self.ttl.seconds();
        cache.expire(now, ttl);
        let blocks = &request.blocks;
        // The previous request's output: the assistant blocks sent right after its whole input.
        if let Some(input) = cache.last_input {
            if let Some(at) = blocks.iter().position(|b| b.prefix == input) {
                let output = blocks[at + 1..].iter().take_while(|b| b.assistant).last();
                if let Some(output) = output {
                    cache.entries.entry(output.prefix).or_insert(now);
                }
            }
        }
        let hit = blocks
            .iter()
            .rev()
            .find(|b| cache.entries.contains_key(&b.prefix));
        let step = self.cache_step_tokens.max(1);
        let read = match hit {
            Some(hit) if request.tokens >= self.min_cacheable_tokens => {
                cache.entries.insert(hit.prefix, now);
                let read = hit.end.min(request.tokens) / step * step;
                if read >= self.min_cacheable_tokens {
                    read
                } else {
                    0
                }
            }
            _ => 0,
        };
        // Units for the requests after this one: the longest prefix it shares with an earlier
        // request, and its whole input.
        let shared = blocks
            .iter()
            .rev()
            .find(|b| cache.seen.contains(&b.prefix))
            .map(|b| b.prefix);
        for unit in shared.into_iter().chain(blocks.last().map(|b| b.prefix)) {
            cache.entries.insert(unit, now);
        }
        cache.seen.extend(blocks.iter().map(|b| b.prefix));
        cache.last_input = blocks.last().map(|b| b.prefix);
        self.priced(read, 0, request.tokens - read)
    }

    /// Explicit caching, as the module documentation says.
    fn explicit(
        &self,
        request: &CacheRequest,
        marks: &[usize],
        cache: &mut CacheState,
    ) -> PromptCost {
        let now = request.at.unwrap_or(0.0);
        let ttl = self.ttl.seconds();
        cache.expire(now, ttl);
        // A request with more is refused by the provider; the strategy's are checked when it
        // renders, so only the last four can be here.
        let breakpoints = &marks[marks.len().saturating_sub(MAX_BREAKPOINTS)..];
        if breakpoints.is_empty() {
            return self.priced(0, 0, request.tokens);
        }
        // Per breakpoint, the latest block within its lookback whose prefix is cached; the
        // longest of those is read (and its entry refreshed).
        let hit = breakpoints
            .iter()
            .filter_map(|&mark| {
                let first = (mark + 1).saturating_sub(LOOKBACK_BLOCKS);
                (first..=mark)
                    .rev()
                    .map(|i| &request.blocks[i])
                    .find(|b| cache.entries.contains_key(&b.prefix))
            })
            .max_by_key(|b| b.end);
        let read = hit.map_or(0, |b| b.end);
        if let Some(hit) = hit {
            cache.entries.insert(hit.prefix, now);
        }
        let mut cached_to = read;
        for &mark in breakpoints {
            let block = &request.blocks[mark];
            if block.end >= self.min_cacheable_tokens {
                cache.entries.insert(block.prefix, now);
                cached_to = cached_to.max(block.end);
            }
        }
        let written = cached_to - read;
        self.priced(read, written, request.tokens - cached_to)
    }

    /// Gemini's explicit caching, as the module documentation says.
    fn gemini_explicit(&self, request: &CacheRequest, cache: &mut CacheState) -> PromptCost {
        let now = request.at.unwrap_or(0.0);
        let ttl = self.ttl.seconds();
        // The cache object lives its TTL from its creation; using it does not extend it.
        cache.expire(now, ttl);
        if let Some(held) = request
            .blocks
            .iter()
            .find(|b| cache.entries.contains_key(&b.prefix))
        {
            return self.priced(held.end, 0, request.tokens - held.end);
        }
        let content = match self.placement {
            Placement::Strategy => request.blocks.iter().find(|b| b.strategy_breakpoint),
            Placement::Auto => request.blocks.iter().rev().find(|b| b.system),
            _ => None,
        };
        match content {
            Some(block) if block.end >= self.min_cacheable_tokens => {
                cache.entries.clear();
                cache.entries.insert(block.prefix, now);
                self.priced(0, block.end, request.tokens - block.end)
            }
            _ => self.priced(0, 0, request.tokens),
        }
    }

    /// OpenAI's breakpoints, as the module documentation says.
    fn openai_breakpoints(
        &self,
        request: &CacheRequest,
        marks: &[usize],
        cache: &mut CacheState,
    ) -> PromptCost {
        let now = request.at.unwrap_or(0.0);
        let ttl = self.ttl.seconds();
        // The prefixes written are entries until they expire.
        if cache.expire(now, ttl) {
            let CacheState {
                entries, written, ..
            } = cache;
            written.retain(|prefix| entries.contains_key(prefix));
        }
        let CacheState {
            entries, written, ..
        } = cache;
        let blocks = &request.blocks;
        let marks: Marks = marks
            .iter()
            .copied()
            .filter(|&i| !blocks[i].assistant)
            .collect();
        let marks = &marks[marks.len().saturating_sub(MAX_BREAKPOINTS)..];
        let read = blocks
            .iter()
            .rev()
            .find(|b| entries.contains_key(&b.prefix))
            .map_or(0, |b| b.end);
        let mut cached_to = read;
        for &mark in marks {
            let block = &blocks[mark];
            if block.end < self.min_cacheable_tokens {
                continue;
            }
            cached_to = cached_to.max(block.end);
            if entries.insert(block.prefix, now).is_some() {
                written.retain(|&prefix| prefix != block.prefix);
            }
            written.push_back(block.prefix);
            if written.len() > OPENAI_MATCHED_BREAKPOINTS {
                if let Some(oldest) = written.pop_front() {
                    entries.remove(&oldest);
                }
            }
        }
        self.priced(read, cached_to - read, request.tokens - cached_to)
    }
}

#[cfg(test)]
mod tests;
