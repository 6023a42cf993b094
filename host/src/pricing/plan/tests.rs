//! The planned placement against every placement enumerated on small generated runs, and the
//! bound beneath them all; hand-checked cases at Anthropic's Sonnet prices ($3 input, $0.30
//! read, $3.75 5-minute write, $6 1-hour write) with a minimum of 100 tokens.

use super::*;
use crate::cache::{CacheBlock, Ttl};
use crate::pricing::Tiers;

fn pricing(caching: Caching, ttl: Ttl) -> Pricing {
    Pricing {
        name: "p@breakpoints=planned".into(),
        input_per_mtok: 3.0,
        cache_read_per_mtok: 0.3,
        cache_write_per_mtok: 3.75,
        cache_write_1h_per_mtok: 6.0,
        min_cacheable_tokens: 100,
        cache_step_tokens: 1,
        caching,
        ttl,
        placement: Placement::Planned,
        output_per_mtok: 15.0,
        tiers: Tiers::default(),
    }
}

/// A request whose blocks hold the contents `ids` (each `size(id)` tokens), keyed by the
/// contents up to them; `marks` are the strategy's breakpoints; odd ids are the assistant's.
fn request(
    ids: &[u64],
    size: impl Fn(u64) -> usize,
    marks: &[usize],
    at: Option<f64>,
) -> CacheRequest {
    let mut end = 0;
    let mut key = 0xcbf2_9ce4_8422_2325_u64;
    let blocks = ids
        .iter()
        .enumerate()
        .map(|(i, &id)| {
            end += size(id);
            key = (key ^ id).wrapping_mul(0x100_0000_01b3).rotate_left(17);
            CacheBlock {
                end,
                prefix: key,
                strategy_breakpoint: marks.contains(&i),
                system: i == 0,
                assistant: id % 2 == 1,
            }
        })
        .collect();
    CacheRequest {
        blocks,
        tokens: end,
        shared: 0,
        at,
    }
}

/// A small deterministic generator (xorshift).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A run of `n` requests of at most `most` blocks: each appends to the one before, or keeps a
/// part of it and continues otherwise (a strategy rewriting its history); the strategy marks
/// some blocks; calls come 0 to 400 seconds apart when `timed`.
fn generated(seed: u64, n: usize, most: usize, timed: bool) -> Vec<CacheRequest> {
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let sizes: Vec<usize> = (0..64).map(|_| 20 + rng.below(200) as usize).collect();
    let size = |id: u64| sizes[(id % 64) as usize];
    let mut ids = vec![rng.below(64)];
    let mut at = 0.0;
    let mut run = Vec::new();
    for _ in 0..n {
        if rng.below(3) == 0 && ids.len() > 1 {
            ids.truncate(1 + rng.below(ids.len() as u64 - 1) as usize);
        }
        while ids.len() < most && (ids.len() < 2 || rng.below(3) > 0) {
            ids.push(rng.below(64));
        }
        let marks: Vec<usize> = (0..ids.len())
            .filter(|_| rng.below(3) == 0)
            .take(4)
            .collect();
        run.push(request(&ids, size, &marks, timed.then_some(at)));
        at += rng.below(400) as f64;
    }
    run
}

/// The cheapest placement of the run, every one of at most four breakpoints a request tried.
fn brute_force(p: &Pricing, run: &[CacheRequest]) -> f64 {
    let choices: Vec<Vec<Vec<usize>>> = run
        .iter()
        .map(|r| {
            let n = r.blocks.len();
            (0u32..1 << n)
                .filter(|set| set.count_ones() as usize <= MAX_BREAKPOINTS)
                .map(|set| (0..n).filter(|i| set & (1 << i) != 0).collect())
                .collect()
        })
        .collect();
    let mut pick = vec![0; run.len()];
    let mut best = f64::INFINITY;
    loop {
        let plan: Plan = pick
            .iter()
            .zip(&choices)
            .map(|(&c, all)| all[c].clone())
            .collect();
        best = best.min(p.run_cost(run, &plan).0);
        let mut i = 0;
        loop {
            if i == run.len() {
                return best;
            }
            pick[i] += 1;
            if pick[i] < choices[i].len() {
                break;
            }
            pick[i] = 0;
            i += 1;
        }
    }
}

fn total(costs: &[PromptCost]) -> f64 {
    costs.iter().map(|c| c.cost).sum()
}

#[test]
fn planned_is_between_the_bound_and_every_other_placement_and_mostly_the_optimum() {
    let mut optimal = 0;
    let mut cases = 0;
    for caching in [Caching::Explicit, Caching::OpenAiBreakpoints] {
        for ttl in [Ttl::FiveMinutes, Ttl::OneHour] {
            for seed in 1..=12 {
                let run = generated(seed, 4, 4, seed % 3 == 0);
                let p = pricing(
                    caching,
                    if caching == Caching::Explicit {
                        ttl
                    } else {
                        Ttl::ThirtyMinutes
                    },
                );
                let planned = total(&p.planned(&run).1);
                let bound = total(&p.bound(&run));
                let best = brute_force(&p, &run);
                let strategy = p.run_cost(&run, &p.whole(&run, Placement::Strategy)).0;
                let auto = p.run_cost(&run, &p.whole(&run, Placement::Auto)).0;
                let case = format!("{caching:?} {ttl:?} seed {seed}: bound {bound} best {best} planned {planned} strategy {strategy} auto {auto}");
                assert!(bound <= best + 1e-12, "{case}");
                assert!(best <= planned + 1e-12, "{case}");
                assert!(planned <= strategy.min(auto) + 1e-12, "{case}");
                cases += 1;
                optimal += usize::from(planned <= best + 1e-12);
            }
        }
    }
    eprintln!("planned is the optimum on {optimal} of {cases} runs");
    // Not proven optimal, but on these runs it misses the optimum rarely.
    assert!(optimal * 10 >= cases * 8, "{optimal} of {cases} optimal");
}

#[test]
fn an_appending_run_reads_what_the_request_before_wrote_and_the_last_writes_nothing() {
    // 1,000 tokens, then 1,500, then 2,000, each the one before and 500 more; no marks of the
    // strategy's.
    let size = |_| 500;
    let run = vec![
        request(&[2, 4], size, &[], None),
        request(&[2, 4, 6], size, &[], None),
        request(&[2, 4, 6, 8], size, &[], None),
    ];
    let p = pricing(Caching::Explicit, Ttl::FiveMinutes);
    let (plan, costs) = p.planned(&run);
    // Writes 1,000, then reads them and writes 500, then reads 1,500 and 500 are plain.
    assert_eq!(plan, vec![vec![1], vec![2], vec![2]]);
    let by_hand = 1000.0 * 3.75 + (1000.0 * 0.3 + 500.0 * 3.75) + (1500.0 * 0.3 + 500.0 * 3.0);
    assert!(
        (total(&costs) * 1e6 - by_hand).abs() < 1e-6,
        "{}",
        total(&costs) * 1e6
    );
    assert!((brute_force(&p, &run) * 1e6 - by_hand).abs() < 1e-6);
    // Automatic placement writes the last 500 too; the strategy's (none) caches nothing.
    let auto = p.run_cost(&run, &p.whole(&run, Placement::Auto)).0 * 1e6;
    assert!((auto - (by_hand + 500.0 * 0.75)).abs() < 1e-6, "{auto}");
    // The bound: each block written once, read by every later request, the last 500 plain.
    let bound = total(&p.bound(&run)) * 1e6;
    assert!((bound - by_hand).abs() < 1e-6, "{bound}");
}

#[test]
fn with_one_hour_writes_a_block_read_once_is_not_worth_writing() {
    // Two requests of 1,000 tokens, the second the first again and 1,000 more: a 1-hour write
    // costs $6 and saves $2.70 on the one read, so nothing is written.
    let size = |_| 1000;
    let run = vec![
        request(&[2], size, &[0], None),
        request(&[2, 4], size, &[1], None),
    ];
    let p = pricing(Caching::Explicit, Ttl::OneHour);
    let (plan, costs) = p.planned(&run);
    assert!(plan.iter().all(Vec::is_empty), "{plan:?}");
    assert!((total(&costs) * 1e6 - 3000.0 * 3.0).abs() < 1e-6);
    // With 5-minute writes ($3.75), it is: 1,000 written then read, 1,000 plain.
    let p = pricing(Caching::Explicit, Ttl::FiveMinutes);
    let by_hand = 1000.0 * 3.75 + 1000.0 * 0.3 + 1000.0 * 3.0;
    assert!((total(&p.planned(&run).1) * 1e6 - by_hand).abs() < 1e-6);
}

#[test]
fn a_read_further_back_than_the_lookback_gets_a_breakpoint_of_its_own() {
    // The second request adds 25 blocks after the 1,000 tokens the first wrote: a breakpoint
    // on its last block alone looks back 20 blocks and misses them.
    let size = |id: u64| if id == 2 { 1000 } else { 10 };
    let long: Vec<u64> = std::iter::once(2)
        .chain((0..25).map(|i| 4 + 2 * i))
        .collect();
    let run = vec![
        request(&[2], size, &[], None),
        request(&long, size, &[], None),
    ];
    let p = pricing(Caching::Explicit, Ttl::FiveMinutes);
    let (plan, costs) = p.planned(&run);
    assert_eq!(plan[1], vec![0], "{plan:?}");
    let by_hand = 1000.0 * 3.75 + 1000.0 * 0.3 + 250.0 * 3.0;
    assert!(
        (total(&costs) * 1e6 - by_hand).abs() < 1e-6,
        "{}",
        total(&costs) * 1e6
    );
    let auto = p.run_cost(&run, &p.whole(&run, Placement::Auto)).0 * 1e6;
    assert!(
        (auto - (1000.0 * 3.75 + 1250.0 * 3.75)).abs() < 1e-6,
        "{auto}"
    );
}

#[test]
fn settling_replaces_each_provisional_cost_by_the_planned_one_in_order() {
    let run = generated(7, 6, 6, true);
    for placement in [Placement::Planned, Placement::Bound] {
        let mut p = pricing(Caching::Explicit, Ttl::FiveMinutes);
        p.placement = placement;
        let mut cache = CacheState::default();
        let provisional: Vec<PromptCost> = run.iter().map(|r| p.cost(r, &mut cache)).collect();
        let settled = p.settle(&cache).expect("settled in hindsight");
        let now = match placement {
            Placement::Bound => p.bound(&run),
            _ => p.planned(&run).1,
        };
        assert_eq!(
            settled,
            provisional.into_iter().zip(now).collect::<Vec<_>>()
        );
        let mut one = settled[0].0;
        one.resettle(&settled[0].0, &settled[0].1);
        assert_eq!(
            (one.read, one.written, one.plain),
            (settled[0].1.read, settled[0].1.written, settled[0].1.plain)
        );
    }
    // Another placement, or a rule without breakpoints, settles nothing.
    let mut p = pricing(Caching::Implicit, Ttl::FiveMinutes);
    let mut cache = CacheState::default();
    p.cost(&run[0], &mut cache);
    assert!(p.settle(&cache).is_none());
    p.caching = Caching::Explicit;
    p.placement = Placement::Auto;
    assert!(p.settle(&cache).is_none());
}
