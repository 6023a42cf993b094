//! Placements settled once the whole run is known: `planned`, the breakpoints that make a
//! run's requests cheapest, and `bound`, the least any placement could cost it.
//!
//! - **Planned** is a placement a client could have sent: at most [`MAX_BREAKPOINTS`] a
//!   request, priced by the same simulation as every other placement (minimum, lookback, TTL,
//!   tiers). It is the cheapest of the strategy's placement, the automatic one and a plan made
//!   with the run in view (each request marks the longest prefix later requests hold often
//!   enough to pay for its write, the prefix it reads when its other marks are out of the
//!   lookback, and the prefixes where later requests part), improved request by request while
//!   the search has budget left. It is never above the strategy's or the automatic placement;
//!   it is not proven optimal: `bound` says how far it can be.
//! - **Bound** prices each prefix block (a block with everything before it) at the least its
//!   occurrences could pay: plain everywhere, or written once and read by every later request
//!   that holds it, in requests long enough to cache anything. TTL, lookback and the number
//!   of breakpoints are left out, so no placement costs less; `planned / bound - 1` is the
//!   largest share by which `planned` can miss the optimum.

use rustc_hash::{FxHashMap, FxHashSet};

use super::{Pricing, PromptCost};
use crate::cache::{
    CacheRequest, CacheState, Caching, Placement, LOOKBACK_BLOCKS, MAX_BREAKPOINTS,
};

/// The breakpoints of every request of a run.
pub(super) type Plan = Vec<Vec<usize>>;

/// The most blocks the search for a planned placement simulates for one run; past it the plan
/// is the best found so far.
const SEARCH_BUDGET: usize = 20_000_000;

impl Pricing {
    /// Whether this profile's costs are settled once the whole run is known: a placement in
    /// hindsight on a rule whose requests carry breakpoints.
    pub fn in_hindsight(&self) -> bool {
        self.placement.in_hindsight()
            && matches!(self.caching, Caching::Explicit | Caching::OpenAiBreakpoints)
    }

    /// For a placement settled in hindsight, each request `cache` recorded, in the order it was
    /// priced: its provisional cost and its settled one. `None` for any other placement.
    pub fn settle(&self, cache: &CacheState) -> Option<Vec<(PromptCost, PromptCost)>> {
        if !self.in_hindsight() {
            return None;
        }
        let settled = match self.placement {
            Placement::Bound => self.bound(&cache.run),
            _ => self.planned(&cache.run).1,
        };
        // The provisional costs, as `cost` priced them: the automatic placement.
        let (_, provisional) = self.run_cost(&cache.run, &self.whole(&cache.run, Placement::Auto));
        Some(provisional.into_iter().zip(settled).collect())
    }

    /// The run's requests priced with `plan`'s breakpoints: the total and each request's cost.
    pub(super) fn run_cost(
        &self,
        requests: &[CacheRequest],
        plan: &Plan,
    ) -> (f64, Vec<PromptCost>) {
        let mut cache = CacheState::default();
        let costs: Vec<PromptCost> = requests
            .iter()
            .zip(plan)
            .map(|(request, marks)| self.cost_marked(request, marks, &mut cache))
            .collect();
        (costs.iter().map(|c| c.cost).sum(), costs)
    }

    /// Every request with `placement`'s breakpoints.
    fn whole(&self, requests: &[CacheRequest], placement: Placement) -> Plan {
        requests.iter().map(|r| self.marks(r, placement)).collect()
    }

    /// The planned placement of the run: its breakpoints and each request's cost.
    pub(super) fn planned(&self, requests: &[CacheRequest]) -> (Plan, Vec<PromptCost>) {
        let mut best: Option<(f64, Plan)> = None;
        let starts = [
            self.whole(requests, Placement::Strategy),
            self.whole(requests, Placement::Auto),
            self.lookahead(requests),
        ];
        for plan in starts {
            let (cost, _) = self.run_cost(requests, &plan);
            if best.as_ref().is_none_or(|(b, _)| cost < *b) {
                best = Some((cost, plan));
            }
        }
        let (_, mut plan) = best.unwrap_or_default();
        self.improve(requests, &mut plan);
        let (_, costs) = self.run_cost(requests, &plan);
        (plan, costs)
    }

    /// Whether a breakpoint on `block` of `request` can write: the prefix reaches the minimum,
    /// and OpenAI takes none on the assistant's blocks.
    fn writable(&self, request: &CacheRequest, block: usize) -> bool {
        let b = &request.blocks[block];
        b.end >= self.min_cacheable_tokens
            && !(self.caching == Caching::OpenAiBreakpoints && b.assistant)
    }

    /// A plan made with the run in view, request after request, each knowing what the cache
    /// holds and which of its prefixes later requests hold.
    fn lookahead(&self, requests: &[CacheRequest]) -> Plan {
        let keys: Vec<FxHashSet<u64>> = requests
            .iter()
            .map(|r| r.blocks.iter().map(|b| b.prefix).collect())
            .collect();
        // A block written pays (write - input) once; each later request that holds it saves
        // (input - read) on it.
        let premium = (self.write_price() - self.input_per_mtok).max(0.0);
        let saving = self.input_per_mtok - self.cache_read_per_mtok;
        let mut cache = CacheState::default();
        let mut plan = Vec::with_capacity(requests.len());
        for (k, request) in requests.iter().enumerate() {
            let blocks = &request.blocks;
            // Per block, how many later requests share the prefix up to it (the blocks shared
            // with a request are a prefix of the request: their keys are prefixes).
            let mut parts: FxHashMap<usize, usize> = FxHashMap::default();
            for later in &keys[k + 1..] {
                let shared = blocks.partition_point(|b| later.contains(&b.prefix));
                if let Some(last) = (0..shared).rev().find(|&i| self.writable(request, i)) {
                    *parts.entry(last).or_default() += 1;
                }
            }
            let mut holders: Vec<(usize, usize)> = parts.into_iter().collect();
            holders.sort_unstable_by_key(|h| std::cmp::Reverse(h.0));
            // Later requests holding each of those blocks: those that part there or further.
            let mut held = 0;
            let holding: Vec<(usize, usize, usize)> = holders
                .iter()
                .map(|&(block, parting)| {
                    held += parting;
                    (block, held, parting)
                })
                .collect();
            let top = holding
                .iter()
                .find(|&&(_, held, _)| held as f64 * saving > premium)
                .map(|&(block, _, _)| block);
            let hit = blocks
                .iter()
                .rposition(|b| cache.entries.contains_key(&b.prefix));
            let mut marks: Vec<usize> = top.into_iter().collect();
            if let Some(hit) = hit {
                let covered = marks.iter().any(|&m| m >= hit && m - hit < LOOKBACK_BLOCKS);
                if !covered && self.caching == Caching::Explicit {
                    marks.push(hit);
                }
            }
            let mut parting: Vec<(usize, usize)> = holding
                .iter()
                .filter(|&&(block, _, _)| top.is_some_and(|t| block < t))
                .map(|&(block, _, parting)| (parting, block))
                .collect();
            parting.sort_unstable_by(|a, b| b.cmp(a));
            for (_, block) in parting {
                if marks.len() >= MAX_BREAKPOINTS {
                    break;
                }
                if !marks.contains(&block) {
                    marks.push(block);
                }
            }
            marks.sort_unstable();
            self.cost_marked(request, &marks, &mut cache);
            plan.push(marks);
        }
        plan
    }

    /// Improves `plan` request by request: each request's breakpoints are replaced by another
    /// choice (one fewer, none, the automatic, the strategy's) when the rest of the run then
    /// costs less, while the search has budget left.
    fn improve(&self, requests: &[CacheRequest], plan: &mut Plan) {
        let blocks: usize = requests.iter().map(|r| r.blocks.len().max(1)).sum();
        let mut budget = SEARCH_BUDGET;
        let mut before = CacheState::default();
        for k in 0..requests.len() {
            let rest = &requests[k..];
            let cost_from = |plan: &Plan, marks: &[usize]| {
                let mut cache = before.clone();
                let mut total = 0.0;
                for (i, request) in rest.iter().enumerate() {
                    let m = if i == 0 { marks } else { &plan[k + i][..] };
                    total += self.cost_marked(request, m, &mut cache).cost;
                }
                total
            };
            let current = plan[k].clone();
            let mut choices: Vec<Vec<usize>> = (0..current.len())
                .map(|drop| {
                    let mut fewer = current.clone();
                    fewer.remove(drop);
                    fewer
                })
                .collect();
            choices.push(self.marks(&requests[k], Placement::Auto));
            choices.push(self.marks(&requests[k], Placement::Strategy));
            choices.retain(|c| *c != current);
            if budget < blocks * (choices.len() + 1) {
                break;
            }
            budget -= blocks * (choices.len() + 1);
            let mut best = cost_from(plan, &current);
            for choice in choices {
                let cost = cost_from(plan, &choice);
                if cost < best * (1.0 - 1e-12) {
                    best = cost;
                    plan[k] = choice;
                }
            }
            self.cost_marked(&requests[k], &plan[k], &mut before);
        }
    }

    /// The least any placement could cost each request of the run, as the module
    /// documentation says.
    pub(super) fn bound(&self, requests: &[CacheRequest]) -> Vec<PromptCost> {
        let min = self.min_cacheable_tokens;
        // Per request: read, written, plain.
        let mut split = vec![(0usize, 0usize, 0usize); requests.len()];
        let multiplier = |request: &CacheRequest| {
            self.tiers
                .class(request.tokens as u64, request.at)
                .map_or(1.0, |c| self.tiers.multiplier(c))
        };
        // Per prefix block: its tokens and the requests holding it, in order.
        let mut nodes: FxHashMap<u64, (usize, Vec<usize>)> = FxHashMap::default();
        let mut order = Vec::new();
        for (j, request) in requests.iter().enumerate() {
            let cacheable = min > 0 && request.blocks.last().is_some_and(|b| b.end >= min);
            let mut start = 0;
            for block in &request.blocks {
                let tokens = block.end.saturating_sub(start);
                start = block.end;
                if !cacheable {
                    split[j].2 += tokens;
                    continue;
                }
                let node = nodes.entry(block.prefix).or_insert_with(|| {
                    order.push(block.prefix);
                    (tokens, Vec::new())
                });
                node.1.push(j);
            }
            split[j].2 += request.tokens.saturating_sub(start);
        }
        let (p, w, r) = (
            self.input_per_mtok,
            self.write_price(),
            self.cache_read_per_mtok.min(self.input_per_mtok),
        );
        for key in order {
            let (tokens, holders) = &nodes[&key];
            let m: Vec<f64> = holders.iter().map(|&j| multiplier(&requests[j])).collect();
            // Written by holder `a`: those before pay plain, those after read.
            let after: f64 = m.iter().sum::<f64>();
            let mut before = 0.0;
            let mut after = after;
            let mut best = (after * p, None);
            for (a, &ma) in m.iter().enumerate() {
                after -= ma;
                let cost = before * p + ma * w + after * r;
                if cost < best.0 {
                    best = (cost, Some(a));
                }
                before += ma;
            }
            for (i, &j) in holders.iter().enumerate() {
                let slot = match best.1 {
                    Some(a) if i == a => &mut split[j].1,
                    Some(a) if i > a => &mut split[j].0,
                    _ => &mut split[j].2,
                };
                *slot += tokens;
            }
        }
        requests
            .iter()
            .zip(split)
            .map(|(request, (read, written, plain))| {
                let mut cost = self.priced(read, written, plain);
                self.in_tier(request, &mut cost);
                cost
            })
            .collect()
    }
}

impl PromptCost {
    /// Replaces, in this prompt's cost, its own request's provisional cost `was` by the
    /// settled `now` ([`Pricing::settle`]).
    pub fn resettle(&mut self, was: &PromptCost, now: &PromptCost) {
        self.read = self.read - was.read + now.read;
        self.written = self.written - was.written + now.written;
        self.plain = self.plain - was.plain + now.plain;
        self.retier(was, now);
    }

    /// Replaces, in this prompt's cost, the provisional cost `was` of a model call made to
    /// build it by the settled `now`.
    pub fn resettle_call(&mut self, was: &PromptCost, now: &PromptCost) {
        self.call_read = self.call_read - was.read + now.read;
        self.call_written = self.call_written - was.written + now.written;
        self.call_plain = self.call_plain - was.plain + now.plain;
        self.retier(was, now);
    }

    fn retier(&mut self, was: &PromptCost, now: &PromptCost) {
        self.cost += now.cost - was.cost;
        for (mine, (w, n)) in self
            .tiered
            .iter_mut()
            .zip(was.tiered.iter().zip(&now.tiered))
        {
            mine.read = mine.read - w.read + n.read;
            mine.written = mine.written - w.written + n.written;
            mine.plain = mine.plain - w.plain + n.plain;
        }
    }
}

#[cfg(test)]
mod tests;
