//! Each rule of the simulation on small requests whose costs are computed by hand. Prices are
//! Anthropic's Sonnet list prices ($3 input, $0.30 read, $3.75 5-minute write, $6 1-hour
//! write) and OpenAI's ($1.25 input, $0.125 read), so that a cost reads as tokens × price.

use super::*;

fn anthropic() -> Pricing {
    Pricing {
        name: "anthropic".into(),
        input_per_mtok: 3.0,
        cache_read_per_mtok: 0.3,
        cache_write_per_mtok: 3.75,
        cache_write_1h_per_mtok: 6.0,
        min_cacheable_tokens: 1024,
        cache_step_tokens: 1,
        caching: Caching::Explicit,
        ttl: Ttl::FiveMinutes,
        placement: Placement::Strategy,
        output_per_mtok: 15.0,
        tiers: crate::pricing::Tiers::default(),
    }
}

fn openai() -> Pricing {
    Pricing {
        name: "openai".into(),
        input_per_mtok: 1.25,
        cache_read_per_mtok: 0.125,
        cache_write_per_mtok: 1.25,
        cache_write_1h_per_mtok: 1.25,
        min_cacheable_tokens: 1024,
        cache_step_tokens: 128,
        caching: Caching::Implicit,
        ttl: Ttl::FiveMinutes,
        placement: Placement::Strategy,
        output_per_mtok: 10.0,
        tiers: crate::pricing::Tiers::default(),
    }
}

/// A request of blocks given as (tokens at the block's end, prefix key, breakpoint), the
/// first block the system prompt, and `tokens` in all.
fn request(blocks: &[(usize, u64, bool)], tokens: usize) -> CacheRequest {
    CacheRequest {
        blocks: blocks
            .iter()
            .enumerate()
            .map(|(i, &(end, prefix, mark))| CacheBlock {
                end,
                prefix,
                strategy_breakpoint: mark,
                system: i == 0,
                assistant: false,
            })
            .collect(),
        tokens,
        shared: 0,
        at: None,
    }
}

fn dollars(tokens: usize, price: f64) -> f64 {
    tokens as f64 * price / 1e6
}

fn assert_cost(cost: PromptCost, read: usize, written: usize, plain: usize, dollars: f64) {
    assert_eq!(
        (cost.read, cost.written, cost.plain),
        (read, written, plain)
    );
    assert!(
        (cost.cost - dollars).abs() < 1e-12,
        "{} != {dollars}",
        cost.cost
    );
}

#[test]
fn implicit_reads_the_shared_prefix_in_steps_and_writes_nothing() {
    let mut cache = CacheState::default();
    let mut r = request(&[], 5000);
    r.shared = 1100;
    // 1100 tokens shared: 8 whole steps of 128 = 1024 read, the other 3976 plain.
    let c = openai().cost(&r, &mut cache);
    assert_cost(c, 1024, 0, 3976, dollars(1024, 0.125) + dollars(3976, 1.25));
    // A prefix of exactly the minimum is read; one token less is not.
    r.shared = 1024;
    assert_eq!(openai().cost(&r, &mut cache).read, 1024);
    r.shared = 1023;
    assert_cost(
        openai().cost(&r, &mut cache),
        0,
        0,
        5000,
        dollars(5000, 1.25),
    );
}

#[test]
fn implicit_prompts_under_the_minimum_pay_the_input_price() {
    let mut r = request(&[], 1000);
    r.shared = 1000;
    let c = openai().cost(&r, &mut CacheState::default());
    assert_cost(c, 0, 0, 1000, dollars(1000, 1.25));
    // A prompt of exactly the minimum, all of it shared, is read whole.
    let mut r = request(&[], 1024);
    r.shared = 1024;
    assert_eq!(openai().cost(&r, &mut CacheState::default()).read, 1024);
    // With a step of 1 every shared token counts.
    let gemini = Pricing {
        cache_step_tokens: 1,
        ..openai()
    };
    let mut r = request(&[], 3000);
    r.shared = 2001;
    assert_eq!(gemini.cost(&r, &mut CacheState::default()).read, 2001);
}

#[test]
fn no_minimum_means_no_caching() {
    let p = Pricing {
        min_cacheable_tokens: 0,
        ..anthropic()
    };
    let r = request(&[(100, 1, false), (3000, 2, true)], 3010);
    assert_cost(
        p.cost(&r, &mut CacheState::default()),
        0,
        0,
        3010,
        dollars(3010, 3.0),
    );
}

#[test]
fn explicit_writes_up_to_the_last_breakpoint_and_the_tail_is_plain() {
    let mut cache = CacheState::default();
    // System (100), history (to 2900, marked), tail (to 3000), 10 tokens of reply priming.
    let first = request(&[(100, 1, false), (2900, 2, true), (3000, 3, false)], 3010);
    assert_cost(
        anthropic().cost(&first, &mut cache),
        0,
        2900,
        110,
        dollars(2900, 3.75) + dollars(110, 3.0),
    );
    // The next request repeats the marked prefix, adds a block and marks it: reads 2900,
    // writes the 600 up to its new breakpoint, and its tail is plain.
    let second = request(
        &[
            (100, 1, false),
            (2900, 2, false),
            (3500, 4, true),
            (3600, 5, false),
        ],
        3610,
    );
    assert_cost(
        anthropic().cost(&second, &mut cache),
        2900,
        600,
        110,
        dollars(2900, 0.3) + dollars(600, 3.75) + dollars(110, 3.0),
    );
    // The same request again reads everything up to its breakpoint and writes nothing.
    assert_cost(
        anthropic().cost(&second, &mut cache),
        3500,
        0,
        110,
        dollars(3500, 0.3) + dollars(110, 3.0),
    );
}

#[test]
fn a_prefix_written_by_no_breakpoint_is_not_read() {
    let mut cache = CacheState::default();
    // Marked at the end: only the prefix of the whole request is written, not the 2000 at
    // its second block.
    let first = request(&[(100, 1, false), (2000, 2, false), (3000, 3, true)], 3000);
    anthropic().cost(&first, &mut cache);
    let second = request(&[(100, 1, false), (2000, 2, false), (3500, 9, true)], 3500);
    assert_cost(
        anthropic().cost(&second, &mut cache),
        0,
        3500,
        0,
        dollars(3500, 3.75),
    );
}

#[test]
fn a_read_looks_back_twenty_blocks_from_a_breakpoint() {
    // A first request marked at block 1 (2000 tokens); a second that has 19 or 20 more
    // blocks after it and is marked on its last one.
    for (more, hit) in [(19, true), (20, false)] {
        let mut cache = CacheState::default();
        anthropic().cost(
            &request(&[(100, 1, false), (2000, 2, true)], 2000),
            &mut cache,
        );
        let mut blocks = vec![(100, 1, false), (2000, 2, false)];
        for i in 0..more {
            blocks.push((2000 + 10 * (i + 1), 100 + i as u64, false));
        }
        blocks.last_mut().unwrap().2 = true;
        let end = blocks.last().unwrap().0;
        let c = anthropic().cost(&request(&blocks, end), &mut cache);
        // The breakpoint's block counts: 19 more blocks put block 1 the 20th looked at.
        if hit {
            assert_cost(
                c,
                2000,
                end - 2000,
                0,
                dollars(2000, 0.3) + dollars(end - 2000, 3.75),
            );
        } else {
            assert_cost(c, 0, end, 0, dollars(end, 3.75));
        }
    }
}

#[test]
fn an_earlier_breakpoint_extends_the_lookback() {
    let mut cache = CacheState::default();
    anthropic().cost(
        &request(&[(100, 1, false), (2000, 2, true)], 2000),
        &mut cache,
    );
    // 30 blocks later: too far for the last breakpoint, within reach of one on block 5.
    let mut blocks = vec![(100, 1, false), (2000, 2, false)];
    for i in 0..30 {
        blocks.push((2000 + 10 * (i + 1), 100 + i as u64, i == 3 || i == 29));
    }
    let c = anthropic().cost(&request(&blocks, 2300), &mut cache);
    assert_cost(c, 2000, 300, 0, dollars(2000, 0.3) + dollars(300, 3.75));
}

#[test]
fn a_breakpoint_under_the_minimum_caches_nothing() {
    let mut cache = CacheState::default();
    // Marked at 1023 tokens: nothing written, the tail plain.
    let first = request(&[(100, 1, false), (1023, 2, true), (1500, 3, false)], 1500);
    assert_cost(
        anthropic().cost(&first, &mut cache),
        0,
        0,
        1500,
        dollars(1500, 3.0),
    );
    // So the next request reads nothing; its own breakpoint at exactly 1024 is written.
    let second = request(&[(100, 1, false), (1023, 2, false), (1024, 4, true)], 1600);
    assert_cost(
        anthropic().cost(&second, &mut cache),
        0,
        1024,
        576,
        dollars(1024, 3.75) + dollars(576, 3.0),
    );
}

#[test]
fn at_most_four_breakpoints_count_the_last_four() {
    let mut cache = CacheState::default();
    // Five marks: the first (at 1100) is not sent, so its prefix is never written.
    let blocks: Vec<(usize, u64, bool)> = (0..5)
        .map(|i| (1100 + 100 * i, i as u64 + 1, true))
        .collect();
    let c = anthropic().cost(&request(&blocks, 1500), &mut cache);
    assert_cost(c, 0, 1500, 0, dollars(1500, 3.75));
    let probe = request(&[(1100, 1, true)], 1100);
    let again = anthropic().cost(&probe, &mut cache);
    assert_eq!(
        again.read, 0,
        "the fifth breakpoint from the end wrote nothing"
    );
    let probe = request(&[(1100, 9, false), (1200, 2, true)], 1200);
    assert_eq!(anthropic().cost(&probe, &mut cache).read, 1200);
    // Six marks: the first two are not sent. Exactly four: all are.
    for (marks, written) in [(6, [false, false, true, true, true, true]), (4, [true; 6])] {
        let mut cache = CacheState::default();
        let blocks: Vec<(usize, u64, bool)> = (0..6)
            .map(|i| (1100 + 100 * i, i as u64 + 1, i >= 6 - marks))
            .collect();
        anthropic().cost(&request(&blocks, 1600), &mut cache);
        for (i, expected) in written.iter().enumerate().skip(6 - marks) {
            let probe = request(&[(1100 + 100 * i, i as u64 + 1, true)], 1100 + 100 * i);
            let read = anthropic().cost(&probe, &mut cache.clone()).read;
            assert_eq!(read > 0, *expected, "{marks} marks, block {i}");
        }
    }
}

#[test]
fn the_one_hour_ttl_pays_its_own_write_price() {
    let p = Pricing {
        ttl: Ttl::OneHour,
        ..anthropic()
    };
    let r = request(&[(100, 1, false), (2000, 2, true), (2100, 3, false)], 2100);
    assert_cost(
        p.cost(&r, &mut CacheState::default()),
        0,
        2000,
        100,
        dollars(2000, 6.0) + dollars(100, 3.0),
    );
}

#[test]
fn entries_expire_after_the_ttl_unless_read() {
    let p = anthropic();
    let mut cache = CacheState::default();
    let at = |r: &CacheRequest, t: f64| CacheRequest {
        at: Some(t),
        ..r.clone()
    };
    let r = request(&[(100, 1, false), (2000, 2, true)], 2000);
    p.cost(&at(&r, 0.0), &mut cache);
    // Read at 250 s: the entry lives on until 550 s.
    assert_eq!(p.cost(&at(&r, 250.0), &mut cache).read, 2000);
    assert_eq!(p.cost(&at(&r, 550.0), &mut cache).read, 2000);
    // 301 s later it is gone, and written again.
    let c = p.cost(&at(&r, 851.0), &mut cache);
    assert_eq!((c.read, c.written), (0, 2000));
    // The one-hour TTL keeps it.
    let hour = Pricing {
        ttl: Ttl::OneHour,
        ..anthropic()
    };
    let mut cache = CacheState::default();
    hour.cost(&at(&r, 0.0), &mut cache);
    assert_eq!(hour.cost(&at(&r, 3600.0), &mut cache).read, 2000);
    assert_eq!(hour.cost(&at(&r, 7201.0), &mut cache).read, 0);
}

#[test]
fn placements_put_the_breakpoints() {
    let r = request(
        &[
            (100, 1, false),
            (2000, 2, true),
            (2500, 3, false),
            (2600, 4, false),
        ],
        2600,
    );
    assert_eq!(Placement::Strategy.breakpoints::<Vec<usize>>(&r), vec![1]);
    // Anthropic's automatic caching: one breakpoint, on the last block of the request.
    assert_eq!(Placement::Auto.breakpoints::<Vec<usize>>(&r), vec![3]);
    assert_eq!(
        Placement::None.breakpoints::<Vec<usize>>(&r),
        Vec::<usize>::new()
    );
    let only_system = request(&[(100, 1, false)], 100);
    assert_eq!(
        Placement::Auto.breakpoints::<Vec<usize>>(&only_system),
        vec![0]
    );
    assert_eq!(
        Placement::Auto.breakpoints::<Vec<usize>>(&CacheRequest::default()),
        Vec::<usize>::new()
    );
    // With no breakpoint everything is plain.
    let none = Pricing {
        placement: Placement::None,
        ..anthropic()
    };
    assert_cost(
        none.cost(&r, &mut CacheState::default()),
        0,
        0,
        2600,
        dollars(2600, 3.0),
    );
    // Auto on the same request: writes all 2600.
    let auto = Pricing {
        placement: Placement::Auto,
        ..anthropic()
    };
    let mut cache = CacheState::default();
    assert_cost(auto.cost(&r, &mut cache), 0, 2600, 0, dollars(2600, 3.75));
    // The next request appends two blocks: its breakpoint moves to its last block, the
    // lookback from there finds the 2600 written, and 400 are written.
    let next = request(
        &[
            (100, 1, false),
            (2000, 2, true),
            (2500, 3, false),
            (2600, 4, false),
            (2800, 5, false),
            (3000, 6, false),
        ],
        3000,
    );
    assert_cost(
        auto.cost(&next, &mut cache),
        2600,
        400,
        0,
        dollars(2600, 0.3) + dollars(400, 3.75),
    );
    // One that rewrites everything after the system prompt reads nothing: the automatic
    // breakpoint never wrote the system prompt alone.
    let rewritten = request(&[(100, 1, false), (2900, 7, false)], 2900);
    assert_cost(
        auto.cost(&rewritten, &mut cache),
        0,
        2900,
        0,
        dollars(2900, 3.75),
    );
}

#[test]
fn names_parse_back() {
    for p in [Placement::Strategy, Placement::Auto, Placement::None] {
        assert_eq!(Placement::parse(p.as_str()), Some(p));
        assert_eq!(p.to_string(), p.as_str());
    }
    assert_eq!(Placement::parse("all"), None);
    for t in [
        Ttl::FiveMinutes,
        Ttl::ThirtyMinutes,
        Ttl::OneHour,
        Ttl::Day,
        Ttl::Unstated,
    ] {
        assert_eq!(Ttl::parse(t.as_str()), Some(t));
    }
    assert_eq!(Ttl::parse("1d"), None);
    for c in [
        Caching::Explicit,
        Caching::Implicit,
        Caching::OpenAiBreakpoints,
        Caching::GeminiExplicit,
        Caching::PrefixUnits,
    ] {
        assert_eq!(Caching::parse(c.as_str()), Some(c));
    }
    assert_eq!(
        (
            Caching::Explicit.as_str(),
            Caching::Implicit.as_str(),
            Caching::OpenAiBreakpoints.as_str()
        ),
        ("explicit", "implicit", "openai-breakpoints")
    );
    assert_eq!(Caching::parse("both"), None);
    // As the configuration and requests read them.
    assert_eq!("auto".parse::<Placement>(), Ok(Placement::Auto));
    assert_eq!(
        "last".parse::<Placement>(),
        Err("unknown cache placement `last` (strategy, auto, none, planned or bound)".to_owned())
    );
    assert_eq!(
        "1d".parse::<Ttl>(),
        Err("unknown cache TTL `1d` (5m, 30m, 1h, 24h or unstated)".to_owned())
    );
    let read = |text: &str| toml::from_str::<std::collections::BTreeMap<String, Placement>>(text);
    assert_eq!(read("p = \"none\"").unwrap()["p"], Placement::None);
    assert!(read("p = \"all\"")
        .unwrap_err()
        .to_string()
        .contains("expected \"strategy\", \"auto\", \"none\", \"planned\" or \"bound\""));
    assert_eq!(
        (
            Ttl::FiveMinutes.seconds(),
            Ttl::ThirtyMinutes.seconds(),
            Ttl::OneHour.seconds(),
            Ttl::Day.seconds()
        ),
        (300.0, 1800.0, 3600.0, 86_400.0)
    );
    assert!(Ttl::Unstated.seconds().is_infinite());
}

#[test]
fn implicit_reads_nothing_after_a_gap_longer_than_the_ttl() {
    // OpenAI's in-memory retention at its shortest (5 minutes): requests 0 s, 200 s, 600 s,
    // 700 s apart from the start, each sharing 2,000 tokens with the one before.
    let p = openai();
    let mut cache = CacheState::default();
    let sent = |t: f64| CacheRequest {
        tokens: 3000,
        shared: 2000,
        at: Some(t),
        ..CacheRequest::default()
    };
    let first = CacheRequest {
        shared: 0,
        ..sent(0.0)
    };
    assert_eq!(p.cost(&first, &mut cache).read, 0);
    // 200 s after the previous one: 1,920 read (15 steps of 128), 1,080 plain.
    assert_cost(
        p.cost(&sent(200.0), &mut cache),
        1920,
        0,
        1080,
        dollars(1920, 0.125) + dollars(1080, 1.25),
    );
    // 400 s after it: the entry is gone; everything plain.
    assert_cost(
        p.cost(&sent(600.0), &mut cache),
        0,
        0,
        3000,
        dollars(3000, 1.25),
    );
    // 100 s after that one (which sent the prefix again): read.
    assert_eq!(p.cost(&sent(700.0), &mut cache).read, 1920);
    // The 24-hour retention keeps it over the 400 s gap; a provider that states no lifetime
    // keeps it however long the gap.
    for ttl in [Ttl::Day, Ttl::Unstated] {
        let p = Pricing { ttl, ..openai() };
        let mut cache = CacheState::default();
        p.cost(&first, &mut cache);
        assert_eq!(p.cost(&sent(200.0), &mut cache).read, 1920);
        assert_eq!(p.cost(&sent(600.0), &mut cache).read, 1920);
        assert_eq!(p.cost(&sent(80_000.0), &mut cache).read, 1920);
    }
    // Without times, no gap is known: read.
    let mut cache = CacheState::default();
    p.cost(&CacheRequest { at: None, ..first }, &mut cache);
    assert_eq!(
        p.cost(
            &CacheRequest {
                at: None,
                ..sent(0.0)
            },
            &mut cache
        )
        .read,
        1920
    );
}

/// OpenAI's rule from GPT-5.6 on, priced as GPT-5.6 Terra: $2.50 input, $0.25 read, $3.125
/// write (1.25x).
fn gpt_5_6() -> Pricing {
    Pricing {
        name: "openai-gpt-5-6".into(),
        input_per_mtok: 2.5,
        cache_read_per_mtok: 0.25,
        cache_write_per_mtok: 3.125,
        cache_write_1h_per_mtok: 5.0,
        min_cacheable_tokens: 1024,
        cache_step_tokens: 1,
        caching: Caching::OpenAiBreakpoints,
        ttl: Ttl::ThirtyMinutes,
        placement: Placement::Strategy,
        output_per_mtok: 15.0,
        tiers: crate::pricing::Tiers::default(),
    }
}

/// A request of blocks given as (tokens at the block's end, prefix key, breakpoint, the
/// assistant's), and `tokens` in all.
fn turns(blocks: &[(usize, u64, bool, bool)], tokens: usize) -> CacheRequest {
    CacheRequest {
        blocks: blocks
            .iter()
            .enumerate()
            .map(|(i, &(end, prefix, mark, assistant))| CacheBlock {
                end,
                prefix,
                strategy_breakpoint: mark,
                system: i == 0,
                assistant,
            })
            .collect(),
        tokens,
        shared: 0,
        at: None,
    }
}

#[test]
fn openai_breakpoints_write_at_a_premium_and_read_at_any_block() {
    let p = gpt_5_6();
    let mut cache = CacheState::default();
    // System 1,200 (marked), user to 2,000 (marked), 50 plain after: 2,000 written at
    // $3.125, 50 plain.
    let first = turns(&[(1200, 1, true, false), (2000, 2, true, false)], 2050);
    assert_cost(
        p.cost(&first, &mut cache),
        0,
        2000,
        50,
        dollars(2000, 3.125) + dollars(50, 2.5),
    );
    // 30 blocks later (no lookback limit), marked at the end: reads the 2,000 written, writes
    // the 3,000 up to its breakpoint.
    let mut blocks = vec![(1200, 1, true, false), (2000, 2, false, false)];
    blocks.extend((0..30).map(|i| (2000 + 100 * (i + 1), 100 + i as u64, false, i % 2 == 0)));
    blocks.last_mut().unwrap().2 = true;
    blocks.last_mut().unwrap().3 = false;
    let long = turns(&blocks, 5000);
    assert_cost(
        p.cost(&long, &mut cache),
        2000,
        3000,
        0,
        dollars(2000, 0.25) + dollars(3000, 3.125),
    );
}

#[test]
fn openai_takes_no_breakpoint_on_the_assistants_blocks() {
    let p = gpt_5_6();
    // The strategy marks the assistant's message (to 2,000) and not what follows: nothing is
    // written; all 2,100 are plain.
    let r = turns(
        &[
            (1000, 1, false, false),
            (2000, 2, true, true),
            (2100, 3, false, false),
        ],
        2100,
    );
    assert_cost(
        p.cost(&r, &mut CacheState::default()),
        0,
        0,
        2100,
        dollars(2100, 2.5),
    );
    // The automatic breakpoint goes on the newest message that is not the assistant's.
    let auto = Pricing {
        placement: Placement::Auto,
        ..gpt_5_6()
    };
    let ends_with_assistant = turns(
        &[
            (1000, 1, false, false),
            (1500, 2, false, false),
            (2000, 3, false, true),
        ],
        2000,
    );
    assert_cost(
        auto.cost(&ends_with_assistant, &mut CacheState::default()),
        0,
        1500,
        500,
        dollars(1500, 3.125) + dollars(500, 2.5),
    );
}

#[test]
fn openai_matches_the_latest_eighty_breakpoints() {
    let p = gpt_5_6();
    let mut cache = CacheState::default();
    // The first request writes its prefix of 1,100 (key 1); 80 requests then each write a
    // prefix of their own (keys 1000..1080) that the first does not share.
    let first = turns(&[(1100, 1, true, false)], 1100);
    p.cost(&first, &mut cache);
    for k in 0..79 {
        let other = turns(&[(1200, 1000 + k, true, false)], 1200);
        p.cost(&other, &mut cache);
    }
    // 80 written so far: the first is still matched.
    assert_eq!(p.cost(&first, &mut cache).read, 1100);
    // Reading it marked it again (the latest written now); 80 more writes push it out.
    for k in 79..159 {
        let other = turns(&[(1200, 1000 + k, true, false)], 1200);
        p.cost(&other, &mut cache);
    }
    let again = p.cost(&first, &mut cache);
    assert_eq!((again.read, again.written), (0, 1100));
}

#[test]
fn openai_breakpoints_live_thirty_minutes_from_the_write() {
    let p = gpt_5_6();
    let mut cache = CacheState::default();
    let at = |t: f64| CacheRequest {
        at: Some(t),
        ..turns(&[(1100, 1, false, false), (1500, 2, true, false)], 1500)
    };
    p.cost(&at(0.0), &mut cache);
    // Read at 20 minutes; the mark is written again (same prefix), so it lives to 50.
    assert_eq!(p.cost(&at(1200.0), &mut cache).read, 1500);
    assert_eq!(p.cost(&at(2900.0), &mut cache).read, 1500);
    // 31 minutes later: gone, written again.
    let c = p.cost(&at(2900.0 + 1860.0), &mut cache);
    assert_eq!((c.read, c.written), (0, 1500));
}

/// The minimum of each model, as the default configuration's `[pricing.anthropic]` table gives
/// it through `anthropic@model=M`, on one run of two requests: a system prompt of 600 tokens
/// (a breakpoint), then a history to 1,500, 2,500 or 4,500 tokens (a breakpoint), then 10
/// plain tokens; the second request sends the same blocks and 300 more tokens (a breakpoint).
/// Under a model's minimum a breakpoint caches nothing; at or past it, its prefix is written
/// once and read by the second request. Each model at its own prices (`@model=` sets them with
/// the minimum): (input, 5-minute write, read) below.
#[test]
fn each_model_caches_from_its_own_minimum() {
    let config = crate::config::Config::defaults();
    let profiles = config.pricing_profiles().unwrap();
    let info = config.pricing_info();
    let model = |m: &str| {
        crate::ab::pricing_variant(&profiles, &info, &format!("anthropic@model={m}")).unwrap()
    };
    let two = |history: usize| {
        let first = request(&[(600, 1, true), (history, 2, true)], history + 10);
        let second = request(
            &[
                (600, 1, true),
                (history, 2, false),
                (history + 300, 3, true),
            ],
            history + 310,
        );
        (first, second)
    };
    // (model, its minimum, its input, write and read prices)
    for (name, min, (input, write, hit)) in [
        ("claude-opus-5", 512, (5.0, 6.25, 0.5)),
        ("claude-sonnet-4-5", 1024, (3.0, 3.75, 0.3)),
        ("claude-opus-4-7", 2048, (5.0, 6.25, 0.5)),
        ("claude-haiku-4-5", 4096, (1.0, 1.25, 0.1)),
    ] {
        let p = model(name);
        assert_eq!(p.min_cacheable_tokens, min, "{name}");
        assert_eq!(p.input_per_mtok, input, "{name}");
        for history in [1500, 2500, 4500] {
            let (first, second) = two(history);
            let mut cache = CacheState::default();
            let a = p.cost(&first, &mut cache);
            let b = p.cost(&second, &mut cache);
            // What each breakpoint caches: the system prompt's 600 tokens from a minimum of
            // 600 or less, the history from one of `history` or less.
            let system = 600 >= min;
            let whole = history >= min;
            let grown = history + 300 >= min;
            let written_first = if whole {
                history
            } else if system {
                600
            } else {
                0
            };
            assert_cost(
                a,
                0,
                written_first,
                history + 10 - written_first,
                dollars(written_first, write) + dollars(history + 10 - written_first, input),
            );
            // The second request reads what the first wrote (the history's block is within
            // the lookback of its last breakpoint) and writes up to its own last breakpoint.
            let read = written_first;
            let cached_to = if grown { history + 300 } else { read };
            let written = cached_to - read;
            let plain = history + 310 - cached_to;
            assert_cost(
                b,
                read,
                written,
                plain,
                dollars(read, hit) + dollars(written, write) + dollars(plain, input),
            );
        }
    }
    // Hand-computed for Haiku 4.5 (4,096) at a history of 2,500: nothing is cached, every
    // token at its $1: 2,510 then 2,810 plain.
    let (first, second) = two(2500);
    let mut cache = CacheState::default();
    let haiku = model("claude-haiku-4-5");
    assert_cost(haiku.cost(&first, &mut cache), 0, 0, 2510, 0.00251);
    assert_cost(haiku.cost(&second, &mut cache), 0, 0, 2810, 0.00281);
    // For Claude Opus 5 (512, $5 input, $6.25 write, $0.50 read) at the same history: 2,500
    // written then read, 300 written.
    let mut cache = CacheState::default();
    let opus = model("claude-opus-5");
    assert_cost(
        opus.cost(&first, &mut cache),
        0,
        2500,
        10,
        0.015625 + 0.00005,
    );
    assert_cost(
        opus.cost(&second, &mut cache),
        2500,
        300,
        10,
        0.00125 + 0.001875 + 0.00005,
    );
}

#[test]
fn a_model_call_is_priced_with_the_prompt_and_kept_apart() {
    // A summarizer's request reads 2,000 and writes 500 (Anthropic's prices) and answers 300
    // output tokens ($15); the prompt after it writes 800 and sends 50 plain.
    let p = anthropic();
    let mut call = p.priced(2000, 500, 0);
    let output = p.output(300);
    assert_eq!(output.output, 300);
    assert!((output.cost - dollars(300, 15.0)).abs() < 1e-15);
    call.output = output.output;
    call.cost += output.cost;
    let mut prompt = p.priced(0, 800, 50);
    prompt.add_call(call);
    assert_eq!(
        (prompt.read, prompt.written, prompt.plain),
        (0, 800, 50),
        "the prompt's own tokens"
    );
    assert_eq!(
        (
            prompt.call_read,
            prompt.call_written,
            prompt.call_plain,
            prompt.output
        ),
        (2000, 500, 0, 300)
    );
    let expected = dollars(800, 3.75)
        + dollars(50, 3.0)
        + dollars(2000, 0.3)
        + dollars(500, 3.75)
        + dollars(300, 15.0);
    assert!((prompt.cost - expected).abs() < 1e-15);
    // Summed as tokens and priced again, the same dollars (what a merge does).
    let tokens = crate::ab::summary::CacheTokens::from(&prompt);
    assert!((tokens.priced(&p).cost - expected).abs() < 1e-15);
    assert_eq!(tokens.total(), Some(850), "the prompts' input only");
}

/// Gemini 2.5 Flash with explicit caching: $0.30 input, $0.075 read, $1.375 to create (input,
/// read and an hour's storage), one object a run.
fn gemini_explicit() -> Pricing {
    Pricing {
        name: "gemini-explicit".into(),
        input_per_mtok: 0.30,
        cache_read_per_mtok: 0.075,
        cache_write_per_mtok: 1.375,
        cache_write_1h_per_mtok: 1.375,
        min_cacheable_tokens: 2048,
        cache_step_tokens: 1,
        caching: Caching::GeminiExplicit,
        ttl: Ttl::OneHour,
        placement: Placement::Strategy,
        output_per_mtok: 2.5,
        tiers: crate::pricing::Tiers::default(),
    }
}

#[test]
fn gemini_explicit_creates_one_object_and_reads_it_until_its_ttl() {
    let p = gemini_explicit();
    let mut cache = CacheState::default();
    let at = |r: CacheRequest, t: f64| CacheRequest { at: Some(t), ..r };
    // The head (to 2,500, marked) and 500 more: the object is the head, created at $1.375.
    let first = request(&[(2500, 1, true), (3000, 2, false)], 3000);
    assert_cost(
        p.cost(&at(first, 0.0), &mut cache),
        0,
        2500,
        500,
        dollars(2500, 1.375) + dollars(500, 0.3),
    );
    // Later requests start with it (their own breakpoints further on change nothing): read.
    let later = request(&[(2500, 1, true), (3000, 2, false), (4000, 3, true)], 4100);
    assert_cost(
        p.cost(&at(later.clone(), 1800.0), &mut cache),
        2500,
        0,
        1600,
        dollars(2500, 0.075) + dollars(1600, 0.3),
    );
    // An hour after its creation it is gone, whatever used it: created again.
    let c = p.cost(&at(later, 3601.0), &mut cache);
    assert_eq!((c.read, c.written), (0, 2500));
    // A head under the minimum makes no object.
    let small = request(&[(1000, 9, true), (3000, 10, false)], 3000);
    let c = p.cost(&small, &mut CacheState::default());
    assert_eq!((c.read, c.written, c.plain), (0, 0, 3000));
    // `auto`: the system prompt (the first block here) is the object.
    let auto = Pricing {
        placement: Placement::Auto,
        ..gemini_explicit()
    };
    let head = request(&[(2100, 4, false), (2600, 5, true)], 2600);
    let c = auto.cost(&head, &mut CacheState::default());
    assert_eq!((c.read, c.written, c.plain), (0, 2100, 500));
}

/// A rebuilt request's inferred prefix leads it as one system block with a breakpoint: every
/// block ends that much later, the first request writes the prefix, and the next one (which
/// shares it) reads it, as a client caching its system prompt does.
#[test]
fn an_inferred_prefix_is_a_leading_cached_block_of_its_size() {
    let mut cache = CacheState::default();
    // The conversation alone: 500 tokens, its last block marked.
    let first = request(&[(200, 1, false), (500, 2, true)], 500).after_prefix(10_000, false);
    assert_eq!(first.tokens, 10_500);
    assert_eq!(first.shared, 0);
    assert_eq!(first.blocks.len(), 3);
    assert!(first.blocks[0].system && first.blocks[0].strategy_breakpoint);
    assert_eq!(
        first.blocks.iter().map(|b| b.end).collect::<Vec<_>>(),
        [10_000, 10_200, 10_500]
    );
    assert_cost(
        anthropic().cost(&first, &mut cache),
        0,
        10_500,
        0,
        dollars(10_500, 3.75),
    );
    // The next request adds a block: the prefix and the conversation before are read.
    let second = request(&[(200, 1, false), (500, 2, false), (800, 3, true)], 800)
        .after_prefix(10_000, true);
    assert_eq!(second.shared, 10_000);
    assert_cost(
        anthropic().cost(&second, &mut cache),
        10_500,
        300,
        0,
        dollars(10_500, 0.3) + dollars(300, 3.75),
    );
    // No prefix changes nothing.
    let plain = request(&[(200, 1, true)], 210);
    assert_eq!(plain.clone().after_prefix(0, true), plain);
}

fn deepseek_units() -> Pricing {
    Pricing {
        name: "deepseek".into(),
        input_per_mtok: 0.28,
        cache_read_per_mtok: 0.028,
        cache_write_per_mtok: 0.28,
        cache_write_1h_per_mtok: 0.28,
        min_cacheable_tokens: 64,
        cache_step_tokens: 64,
        caching: Caching::PrefixUnits,
        ttl: Ttl::Unstated,
        placement: Placement::Strategy,
        output_per_mtok: 0.42,
        tiers: crate::pricing::Tiers::default(),
    }
}

#[test]
fn prefix_units_read_only_a_whole_unit() {
    // The guide's examples, in blocks: A (1,000 tokens), then B, C or D after it.
    let (p, mut cache) = (deepseek_units(), CacheState::default());
    let (a, ab, ac, ad, out, next) = (1, 2, 3, 4, 5, 6);
    let cost = |tokens: [usize; 3]| {
        dollars(tokens[0], 0.028) + dollars(tokens[1], 0.0) + dollars(tokens[2], 0.28)
    };
    // A+B: nothing cached yet.
    let first = p.cost(
        &turns(&[(1000, a, false, false), (1500, ab, false, false)], 1500),
        &mut cache,
    );
    assert_cost(first, 0, 0, 1500, cost([0, 0, 1500]));
    // A+C shares A with A+B, but A is no unit: nothing is read (the longest shared prefix
    // would read 960). A is persisted now, as a prefix two requests shared.
    let mut second = turns(&[(1000, a, false, false), (1600, ac, false, false)], 1600);
    second.shared = 1000;
    assert_cost(p.cost(&second, &mut cache), 0, 0, 1600, cost([0, 0, 1600]));
    let old = Pricing {
        caching: Caching::Implicit,
        ..p.clone()
    };
    assert_eq!(old.cost(&second, &mut CacheState::default()).read, 960);
    // A+D reads the unit A, in whole steps of 64: 960 read, 740 plain.
    let third = turns(&[(1000, a, false, false), (1700, ad, false, false)], 1700);
    assert_cost(p.cost(&third, &mut cache), 960, 0, 740, cost([960, 0, 740]));
    // A+D, its response, then a new message: the unit that ends with the response (1,900
    // tokens) is read: 1,856 in whole steps, 144 plain.
    let fourth = turns(
        &[
            (1000, a, false, false),
            (1700, ad, false, false),
            (1900, out, false, true),
            (2000, next, false, false),
        ],
        2000,
    );
    assert_cost(
        p.cost(&fourth, &mut cache),
        1856,
        0,
        144,
        cost([1856, 0, 144]),
    );
    // At the minimum: a unit of 127 tokens reads one step of 64; one of 63 reads nothing.
    for (unit, read) in [(127, 64), (63, 0)] {
        let mut cache = CacheState::default();
        p.cost(&turns(&[(unit, 10, false, false)], unit), &mut cache);
        let then = turns(&[(unit, 10, false, false), (300, 11, false, false)], 300);
        assert_eq!(p.cost(&then, &mut cache).read, read, "{unit}");
    }
}

/// Claude Haiku 5.5's tier on Sonnet's prices: a request whose prompt, cache reads and writes
/// included, passes 100,000 tokens pays 5x on every token, its output included; a request of
/// 100,000 tokens does not. DeepSeek's peak hours (2x, weekdays 01:00-04:00 UTC) multiply too.
#[test]
fn a_request_over_the_tiers_line_pays_its_multiplier_on_every_token() {
    use crate::pricing::{LongPrompt, PeakHours, PeakWindow, TierClass, Tiers};
    let mut haiku = anthropic();
    haiku.tiers = Tiers {
        long_prompt: Some(LongPrompt {
            above_tokens: 100_000,
            multiplier: 5.0,
        }),
        peak: Some(PeakHours {
            windows: vec![PeakWindow::parse("01:00-04:00").unwrap()],
            multiplier: 2.0,
        }),
    };
    // One breakpoint at 50,000 tokens: written on the first request, read on the second.
    let blocks = [(50_000, 1, true)];
    let mut cache = CacheState::default();
    let at_line = haiku.cost(&request(&blocks, 100_000), &mut cache);
    assert_cost(
        at_line,
        0,
        50_000,
        50_000,
        dollars(50_000, 3.75) + dollars(50_000, 3.0),
    );
    assert_eq!(at_line.class, None);
    let over = haiku.cost(&request(&blocks, 100_001), &mut cache);
    // 50,000 read at $0.30 and 50,001 plain at $3, times 5.
    let listed = dollars(50_000, 0.3) + dollars(50_001, 3.0);
    assert_cost(over, 50_000, 0, 50_001, 5.0 * listed);
    assert_eq!(over.class, Some(TierClass::Long));
    // The tokens kept for the tier pay its surcharge on top of the prices listed.
    assert!(
        (haiku.priced(50_000, 0, 50_001).cost + haiku.surcharge(&over.tiered) - over.cost).abs()
            < 1e-12
    );
    // Its output pays 5x too ($15 per Mtok listed); the response of a recorded turn, the
    // same for every strategy, pays the surcharge only.
    let mut with_output = over;
    haiku.add_output(&mut with_output, 1_000);
    assert!((with_output.cost - over.cost - 5.0 * dollars(1_000, 15.0)).abs() < 1e-12);
    let mut with_response = over;
    haiku.add_response_surcharge(&mut with_response, 1_000);
    assert!((with_response.cost - over.cost - 4.0 * dollars(1_000, 15.0)).abs() < 1e-12);
    assert_eq!(with_response.tiered[TierClass::Long as usize].output, 1_000);
    let mut under = at_line;
    haiku.add_response_surcharge(&mut under, 1_000);
    assert_eq!(under, at_line);
    // In peak hours (Monday 2026-11-23, 01:00 UTC) 2x; over the line as well, 10x.
    let monday_one = 20_780.0 * 86_400.0 + 3_600.0;
    let mut timed = request(&[], 10);
    timed.at = Some(monday_one);
    let peak = haiku.cost(&timed, &mut CacheState::default());
    assert_cost(peak, 0, 0, 10, 2.0 * dollars(10, 3.0));
    assert_eq!(peak.class, Some(TierClass::Peak));
    let mut both = request(&[], 100_001);
    both.at = Some(monday_one);
    let both = haiku.cost(&both, &mut CacheState::default());
    assert_cost(both, 0, 0, 100_001, 10.0 * dollars(100_001, 3.0));
    assert_eq!(both.class, Some(TierClass::Both));
    // Off-peak at 04:00 and without a time.
    timed.at = Some(monday_one + 3.0 * 3_600.0);
    assert_eq!(haiku.cost(&timed, &mut CacheState::default()).class, None);
    timed.at = None;
    assert_eq!(haiku.cost(&timed, &mut CacheState::default()).class, None);
}

/// A profile that caches as another does is priced from the other's costs, request by request,
/// exactly as from a cache of its own: other prices, another TTL's write price aside, and a
/// tier of its own. One that differs in its rule, minimum, steps, lifetime or placement, or
/// settles its placement in hindsight, does not cache alike.
#[test]
fn a_profile_that_caches_alike_is_priced_from_the_others_tokens() {
    use crate::pricing::{LongPrompt, Tiers};
    let mut cheap = anthropic();
    cheap.name = "cheap".into();
    (cheap.input_per_mtok, cheap.cache_read_per_mtok) = (0.5, 0.05);
    (cheap.cache_write_per_mtok, cheap.cache_write_1h_per_mtok) = (0.625, 1.0);
    cheap.tiers = Tiers {
        long_prompt: Some(LongPrompt {
            above_tokens: 3_000,
            multiplier: 2.0,
        }),
        peak: None,
    };
    assert!(cheap.caches_like(&anthropic()));
    // Written, read and extended, under the minimum, then over the tier's line.
    let requests = [
        request(&[(1_500, 1, true)], 1_600),
        request(&[(1_500, 1, false), (2_500, 2, true)], 2_600),
        request(&[(500, 3, true)], 600),
        request(
            &[(1_500, 1, false), (2_500, 2, false), (3_500, 4, true)],
            3_600,
        ),
    ];
    let (mut own, mut other) = (CacheState::default(), CacheState::default());
    let mut last = PromptCost::default();
    for request in &requests {
        let like = anthropic().cost(request, &mut other);
        last = PromptCost::default();
        cheap.cost_like(request, &like, &mut last);
        assert_eq!(last, cheap.cost(request, &mut own));
    }
    // 2,500 read at $0.05, 1,000 written at $0.625, 100 plain at $0.50, times 2.
    let listed = dollars(2_500, 0.05) + dollars(1_000, 0.625) + dollars(100, 0.5);
    assert_cost(last, 2_500, 1_000, 100, 2.0 * listed);
    assert!(last.class.is_some());
    for differs in [
        Pricing {
            min_cacheable_tokens: 2_048,
            ..anthropic()
        },
        Pricing {
            ttl: Ttl::OneHour,
            ..anthropic()
        },
        Pricing {
            placement: Placement::Auto,
            ..anthropic()
        },
        Pricing {
            caching: Caching::OpenAiBreakpoints,
            ..anthropic()
        },
        Pricing {
            placement: Placement::Planned,
            ..anthropic()
        },
        openai(),
    ] {
        assert!(!cheap.caches_like(&differs), "{differs:?}");
    }
    let planned = Pricing {
        placement: Placement::Planned,
        ..anthropic()
    };
    assert!(!planned.caches_like(&planned.clone()));
}
