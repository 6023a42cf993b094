//! The evidence measure on real runs of every agent: the literals each next action cites from
//! earlier observations, and the share of them a strategy's prompts still show.

use serde_json::Value as Json;

use crate::support::{all_strategies, repo};

/// `ptc ab` on fixture folders or files of real runs, against the as-sent baseline, as JSON.
fn ab(fixtures: &[&str], strategies: &str, extra: &[&str]) -> Json {
    let paths: Vec<String> = fixtures
        .iter()
        .map(|f| {
            repo()
                .join("tests/fixtures/realruns")
                .join(f)
                .display()
                .to_string()
        })
        .collect();
    let mut args: Vec<&str> = vec!["ab"];
    args.extend(paths.iter().map(String::as_str));
    args.extend([
        "--no-timing",
        "--format",
        "json",
        "--strategies",
        strategies,
        "--set",
        "ab.baseline=\"as-sent\"",
    ]);
    args.extend(extra);
    all_strategies().ptc(args).json()
}

/// Per strategy label: (visible, total) of its evidence.
fn evidence(json: &Json) -> Vec<(String, u64, u64)> {
    json["strategies"]
        .as_array()
        .expect("strategies")
        .iter()
        .map(|s| {
            let e = &s["retention"]["evidence"];
            (
                s["label"].as_str().unwrap().to_owned(),
                e["visible"].as_u64().unwrap(),
                e["total"].as_u64().unwrap(),
            )
        })
        .collect()
}

fn of<'a>(figures: &'a [(String, u64, u64)], label: &str) -> &'a (String, u64, u64) {
    figures
        .iter()
        .find(|f| f.0 == label)
        .unwrap_or_else(|| panic!("{label} in {figures:?}"))
}

/// The baseline shows the prompts as they were sent, full-history every observation whole: on
/// runs whose turns all succeed, both keep every literal the next actions cite.
#[test]
fn as_sent_and_full_history_keep_every_cited_literal() {
    for fixture in ["mini-swe-agent", "openhands", "atif"] {
        let json = ab(&[fixture], "full-history", &[]);
        let figures = evidence(&json);
        for label in ["as-sent", "full-history"] {
            let (_, visible, total) = of(&figures, label);
            assert!(*total > 0, "{fixture}: {label} has evidence to keep");
            assert_eq!(visible, total, "{fixture}: {label} keeps it all");
        }
        assert!(json["cited_runs"].as_u64().unwrap() > 0, "{fixture}");
        // The names a PTC-Lisp program uses: no such thing in another agent's actions.
        for s in json["strategies"].as_array().unwrap() {
            assert_eq!(s["retention"]["used_next"]["total"], 0, "{fixture}: {s}");
        }
    }
}

/// Strategies that leave old observations out lose some of what the next actions cite, and
/// the default requirement lists them as failing it, with the actions they dropped.
#[test]
fn trim_and_observation_masking_lose_cited_literals_on_real_runs() {
    let json = ab(&["claude-code"], "trim,observation-masking", &[]);
    let figures = evidence(&json);
    let ratio = |label: &str| {
        let (_, visible, total) = of(&figures, label);
        *visible as f64 / *total as f64
    };
    assert_eq!(ratio("as-sent"), 1.0, "{figures:?}");
    assert!(ratio("trim") < 0.9, "{figures:?}");
    assert!(ratio("observation-masking") < 0.9, "{figures:?}");
    let masking = json["strategies"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["label"] == "observation-masking")
        .unwrap();
    assert!(
        masking["unmet_requirements"]
            .as_array()
            .unwrap()
            .iter()
            .any(|u| u["measure"] == "evidence" && u["at_least"] == 0.9),
        "{masking}"
    );
    let dropped = masking["dropped_actions"].as_array().unwrap();
    assert!(!dropped.is_empty(), "{masking}");
    for action in dropped {
        let (gone, cited) = (
            action["dropped"].as_array().unwrap().len() as u64,
            action["cited"].as_u64().unwrap(),
        );
        assert!(gone > 0 && gone <= cited, "{action}");
    }
    // On the PTC-Lisp runs of the Kernel agent too.
    let figures = evidence(&ab(&["ptc_runner-kernel"], "observation-masking", &[]));
    let (_, visible, total) = of(&figures, "observation-masking");
    assert!((*visible as f64) < 0.9 * *total as f64, "{figures:?}");
}

/// The fewer turns a strategy keeps whole, the fewer cited literals it shows: over every
/// setting, a smaller one never shows more, and the smallest shows less than the default.
#[test]
fn a_strategy_that_drops_more_shows_fewer_cited_literals() {
    for (strategy, option, values) in [
        ("trim", "keep_turns", [1, 2, 3, 4, 6, 10]),
        ("observation-masking", "window", [0, 1, 2, 3, 4, 6]),
    ] {
        let labels: Vec<String> = values
            .iter()
            .map(|v| format!("{strategy}@{option}={v}"))
            .collect();
        let json = ab(
            &["mini-swe-agent", "claude-code"],
            &format!("{strategy},{}", labels.join(",")),
            &[],
        );
        let figures = evidence(&json);
        let shown: Vec<u64> = labels.iter().map(|l| of(&figures, l).1).collect();
        assert!(
            shown.windows(2).all(|w| w[0] <= w[1]),
            "{strategy}: {figures:?}"
        );
        assert!(
            shown[0] < of(&figures, strategy).1,
            "{strategy}: {figures:?}"
        );
    }
}

/// A log whose tool outputs are redacted holds no observation to cite from: the measure
/// cannot apply, and says `n/a` there rather than a figure.
#[test]
fn a_run_whose_outputs_are_redacted_has_no_evidence_figure() {
    let json = ab(&["codex"], "full-history", &[]);
    for (label, visible, total) in evidence(&json) {
        assert_eq!((visible, total), (0, 0), "{label}");
    }
    assert_eq!(json["cited_runs"], 0);
    let table = all_strategies()
        .ptc([
            "ab",
            "--wide",
            "--explain",
            repo()
                .join("tests/fixtures/realruns/codex")
                .to_str()
                .unwrap(),
            "--no-timing",
            "--strategies",
            "full-history",
            "--set",
            "ab.baseline=\"as-sent\"",
        ])
        .ok();
    let header = table
        .lines()
        .find(|l| l.contains(" evidence "))
        .expect("a header");
    let end = header.find(" evidence ").unwrap() + " evidence".len();
    for label in [" as-sent ", " full-history "] {
        let row = table.lines().find(|l| l.contains(label)).expect("a row");
        assert_eq!(row[..end].split_whitespace().last(), Some("n/a"), "{table}");
    }
}

/// The verdict states the share of cited literals the strategy it recommends keeps, and over
/// how many actions and runs the figure was taken.
#[test]
fn the_verdict_names_the_share_of_cited_literals_kept() {
    let table = all_strategies()
        .ptc([
            "ab",
            "--wide",
            "--explain",
            repo()
                .join("tests/fixtures/realruns/claude-code")
                .to_str()
                .unwrap(),
            "--no-timing",
            "--strategies",
            "trim,observation-masking",
            "--set",
            "ab.baseline=\"as-sent\"",
        ])
        .ok();
    assert!(
        table.contains("cheapest strategy that keeps every symbol, the latest error and 90% of the literals the next action cites (--require symbols,error,evidence=90%)"),
        "{table}"
    );
    assert!(
        table.contains(
            "(the literals the next actions cite: cited by 5 of 20 actions, in 3 of 3 runs)"
        ),
        "{table}"
    );
    assert!(
        table.contains("\n  trim: evidence 88% (90% required)\n"),
        "{table}"
    );
    assert!(
        table.contains(
            "\n  observation-masking: error 82% (100% required); evidence 73% (90% required)\n"
        ),
        "{table}"
    );
    assert!(
        table.contains("is the cheapest that keeps every symbol, the latest error and 90% of the literals the next action cites; it also shows 92% of tool calls, every printed line and every literal the next action cites\n"),
        "{table}"
    );
    assert!(
        table.contains("actions whose cited literals a strategy's prompt drops"),
        "{table}"
    );
    assert!(table.contains(" drops `"), "{table}");
}
