//! Every output of a comparison, pinned: the table, markdown, CSV, JSON, a split run's merge
//! and the HTML report (render times left out), on the bundled runs and on a generated corpus.
//! A change to any of them, byte for byte, changes a snapshot: a refactoring shows here that
//! it changed nothing, and a change meant to alter output shows what it altered. The tables
//! are kept whole; the longer outputs by their size and FNV-1a 64 digest.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::{all_strategies, generator, Scratch};

const STRATEGIES: &str = "full-history,delta-log,observation-masking";

fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// `ptc ab` on `corpus` (none: the bundled runs) with `extra`, its stdout.
fn ab(corpus: Option<&Path>, extra: &[&str]) -> String {
    let mut args = vec!["ab".to_owned()];
    args.extend(corpus.map(|c| c.display().to_string()));
    args.extend(["--strategies", STRATEGIES, "--no-timing"].map(String::from));
    args.extend(extra.iter().map(|s| s.to_string()));
    all_strategies().ptc(&args).ok()
}

/// Every output of `corpus`: the tables whole, the rest as size and digest.
fn outputs(scratch: &Scratch, corpus: Option<&Path>, tag: &str) -> String {
    let mut text = String::new();
    let table = ab(corpus, &[]);
    let markdown = ab(corpus, &["--format", "markdown"]);
    writeln!(text, "=== table\n{table}\n=== markdown\n{markdown}").unwrap();
    let mut digest = |what: &str, bytes: &[u8]| {
        writeln!(
            text,
            "{what}: {} bytes, {:016x}",
            bytes.len(),
            fnv1a64(bytes)
        )
        .unwrap();
    };
    for format in ["csv", "json"] {
        digest(format, ab(corpus, &["--format", format]).as_bytes());
    }
    let parts: Vec<PathBuf> = (0..2)
        .map(|k| {
            let part = ab(
                corpus,
                &["--format", "partial", "--shard", &format!("{k}/2")],
            );
            scratch.write(&format!("{tag}-part-{k}.json"), part)
        })
        .collect();
    // Without a corpus, the table ends with the bundled real runs, which a merge has not.
    let merged_formats: &[&str] = match corpus {
        None => &["csv", "json"],
        Some(_) => &["table", "csv", "json"],
    };
    for &format in merged_formats {
        let mut args = vec!["ab".to_owned(), "merge".to_owned()];
        args.extend(parts.iter().map(|p| p.display().to_string()));
        args.extend(["--format", format].map(String::from));
        let merged = all_strategies().ptc(&args).ok();
        let one = match format {
            "table" => table.clone(),
            _ => ab(corpus, &["--format", format]),
        };
        assert_eq!(
            merged, one,
            "the merge of {tag} gives what one run gives ({format})"
        );
    }
    let report = scratch.path().join(format!("{tag}.html"));
    ab(corpus, &["--report", &report.display().to_string()]);
    digest("report", &std::fs::read(&report).unwrap());
    text
}

#[test]
fn every_output_of_the_bundled_runs_is_pinned() {
    let scratch = Scratch::new();
    insta::assert_snapshot!("bundled_outputs", outputs(&scratch, None, "bundled"));
}

#[test]
fn every_output_of_a_generated_corpus_is_pinned() {
    let scratch = Scratch::new();
    // Written where `ptc` runs and named relatively, so that the outputs, which name the
    // recordings, are the same on every machine.
    let corpus = Path::new("outputs-generated");
    let status = Command::new(generator())
        .args(["--count", "12", "--turns", "8", "--seed", "7", "--out"])
        .arg(all_strategies().path().join(corpus))
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    insta::assert_snapshot!(
        "generated_outputs",
        outputs(&scratch, Some(corpus), "generated")
    );
}

/// The lines of `text` wider than `width` characters.
fn wider_than(text: &str, width: usize) -> Vec<&str> {
    text.lines()
        .filter(|line| line.chars().count() > width)
        .collect()
}

#[test]
fn the_default_ab_output_fits_100_columns_and_wide_shows_every_profile() {
    // Every strategy on the bundled runs and real runs, as a user first runs it.
    let table = all_strategies().ptc(["ab", "--no-timing"]).ok();
    assert_eq!(wider_than(&table, 100), Vec::<&str>::new());
    // One short line per provider: none of the verdict's detail.
    assert!(table
        .contains("\n  anthropic: delta-log (breakpoints=strategy) 0.90x full-history (10% less;"));
    assert!(!table.contains("it also shows"), "{table}");
    assert!(
        !table.contains("judged on some recordings only ("),
        "{table}"
    );
    // The costs under the profile of the cost column; the real runs', those they were billed by.
    assert!(
        !table.contains("gemini-explicit@breakpoints=auto"),
        "{table}"
    );
    let headings: Vec<&str> = table
        .lines()
        .filter(|l| l.starts_with("   strategy               tokens  ") && !l.contains("cost $"))
        .collect();
    assert_eq!(
        headings
            .iter()
            .map(|l| l.split_whitespace().last().unwrap())
            .collect::<Vec<_>>(),
        ["anthropic", "as-billed"],
        "{table}"
    );
    let wide = all_strategies().ptc(["ab", "--no-timing", "--wide"]).ok();
    assert!(wide.contains("gemini-explicit@breakpoints=auto"));
    assert!(wide.contains("render µs"));
    assert!(!wider_than(&wide, 100).is_empty());
    let explain = all_strategies()
        .ptc(["ab", "--no-timing", "--explain"])
        .ok();
    assert!(explain.contains("it also shows"));
    assert!(explain.contains("(the literals the next actions cite: cited by "));
    assert!(!table.contains("(the literals the next actions cite: cited by "));
    assert!(explain.contains("read calls  billed read"));
    // Markdown verdicts are lists.
    let markdown = all_strategies()
        .ptc(["ab", "--no-timing", "--format", "markdown"])
        .ok();
    assert!(
        markdown.contains("\n\n- anthropic: delta-log"),
        "{markdown}"
    );
}
