//! `ptc ab --pricing NAME@breakpoints=planned`: each run priced with the breakpoints that make
//! it cheapest knowing the whole run, shown beside the strategy's own, the automatic ones and
//! the bound beneath any placement; never above the own or automatic, never named a verdict.

use serde_json::Value as Json;

use crate::support::{all_strategies, example, EXAMPLES};

fn ab(pricing: &str, format: &str) -> crate::support::Run {
    let mut args: Vec<String> = vec!["ab".into()];
    args.extend(EXAMPLES.iter().map(|e| example(e).display().to_string()));
    args.extend(
        [
            "--strategies",
            "full-history,delta-log,rolling-window",
            "--pricing",
            pricing,
            "--format",
            format,
            "--no-timing",
        ]
        .map(str::to_owned),
    );
    all_strategies().ptc(args)
}

#[test]
fn planned_breakpoints_cost_no_more_than_the_own_or_automatic_and_no_less_than_the_bound() {
    let out = ab("anthropic@breakpoints=planned", "json").json();
    let placement = &out["placement"][0];
    assert_eq!(placement["own"], "anthropic");
    assert_eq!(placement["auto"], "anthropic@breakpoints=auto");
    assert_eq!(placement["planned"], "anthropic@breakpoints=planned");
    assert_eq!(placement["bound"], "anthropic@breakpoints=bound");
    let strategies = placement["strategies"].as_array().unwrap();
    assert_eq!(strategies.len(), 3);
    let mut saved = 0;
    for s in strategies {
        let f = |key: &str| s[key].as_f64().unwrap();
        let (own, auto, planned, bound) = (f("own"), f("auto"), f("planned"), f("bound"));
        assert!(bound <= planned + 1e-12, "{s}");
        assert!(planned <= own.min(auto) + 1e-12, "{s}");
        assert!(
            (f("placement_share") - (1.0 - planned / own)).abs() < 1e-12,
            "{s}"
        );
        assert!((f("gap") - (planned / bound - 1.0)).abs() < 1e-12, "{s}");
        saved += usize::from(planned < own - 1e-9);
        // The strategy's summary under the planned profile is the sum of its prompts, each
        // settled once its run was known.
        let prompts: f64 = out["runs"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["strategy"] == s["strategy"])
            .flat_map(|r| r["prompts"].as_array().unwrap().iter())
            .map(|p| {
                p["cost"]["anthropic@breakpoints=planned"]["cost"]
                    .as_f64()
                    .unwrap()
            })
            .sum();
        assert!((prompts - planned).abs() < 1e-9, "{prompts} {s}");
    }
    assert!(
        saved > 0,
        "planned saves nothing on any strategy: {placement}"
    );
    // A verdict names a placement a client can choose, never one known only in hindsight.
    for verdict in out["verdict"].as_array().unwrap() {
        let breakpoints = verdict["breakpoints"].as_str().unwrap();
        assert!(!["planned", "bound"].contains(&breakpoints), "{verdict}");
    }
}

#[test]
fn the_placement_table_fits_100_columns_under_the_costs() {
    let text = ab("anthropic@breakpoints=planned", "table").ok();
    let at = text.find("placement under anthropic:").expect(&text);
    assert!(at > text.find("vs baseline").unwrap(), "{text}");
    for line in text.lines() {
        assert!(line.chars().count() <= 100, "{line}");
    }
    let row: Vec<&str> = text[at..]
        .lines()
        .find(|l| l.starts_with("B  full-history"))
        .unwrap()
        .split_whitespace()
        .collect();
    // B, strategy, own, auto, planned, bound, placement, gap.
    assert_eq!(row.len(), 8, "{row:?}");
    assert!(row[6].ends_with('%') && row[7].ends_with('%'), "{row:?}");
    // Without a planned profile, no placement table and no JSON key.
    assert!(!ab("anthropic", "table").ok().contains("placement under"));
    let plain: Json = ab("anthropic", "json").json();
    assert!(plain.get("placement").is_none());
}

#[test]
fn planned_breakpoints_need_a_rule_whose_requests_carry_them() {
    let error = ab("deepseek@breakpoints=planned", "table").bad_input();
    assert!(
        error.contains("breakpoints=planned needs a profile whose requests carry breakpoints"),
        "{error}"
    );
    let error = ab("anthropic@breakpoints=best", "table").bad_input();
    assert!(error.contains("`planned` or `bound`"), "{error}");
}
