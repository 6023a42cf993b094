//! The results of `ptc ab` in every format: a terminal table and markdown (`table.rs`), CSV, one
//! row per prompt (`csv.rs`), JSON, the summaries and every per-turn series (`json.rs`), and a
//! self-contained HTML page with charts (`html.rs`). This file holds the figures they share:
//! the summary and the against-the-baseline rows, and the line that introduces them.

mod csv;
mod html;
mod json;
mod table;
pub mod verdict;

pub use csv::csv;
pub use html::html;
pub use json::json;
pub use table::{markdown_tables, table};

use crate::ab::retention::Share;
use crate::ab::{Ab, Summary};

fn percent(share: Share) -> String {
    share
        .ratio()
        .map_or_else(|| "n/a".into(), |r| format!("{:.0}%", r * 100.0))
}

fn ratio(value: f64, base: f64) -> Option<f64> {
    (base > 0.0).then(|| value / base)
}

/// [`ratio`] of a summary's figure to the baseline's: none for a strategy that rendered no
/// prompt (it failed), whose figures are not zero but missing.
fn vs_base(s: &Summary, value: f64, base: f64) -> Option<f64> {
    ratio(value, base).filter(|_| s.prompts > 0)
}

fn times(r: Option<f64>) -> String {
    r.map_or_else(|| "n/a".into(), |r| format!("{r:.2}x"))
}

struct Row {
    cells: Vec<String>,
}

/// The summary rows: one per variant.
fn summary_rows(ab: &Ab, summaries: &[Summary]) -> (Vec<&'static str>, Vec<Row>) {
    let header = vec![
        "strategy",
        "prompts",
        "tokens",
        "mean",
        "max",
        "cached",
        "cost $",
        "vs base",
        "symbols",
        "calls",
        "prints",
        "error",
        "used next",
        "render us",
    ];
    let base = &summaries[ab.baseline];
    let p = ab.primary_pricing;
    let rows = ab
        .variants
        .iter()
        .zip(summaries)
        .map(|(v, s)| {
            let mut label = v.label.clone();
            if s.failed > 0 {
                label.push_str(&format!(" (failed on {})", s.failed));
            }
            Row {
                cells: vec![
                    label,
                    s.prompts.to_string(),
                    s.tokens.to_string(),
                    format!("{:.0}", s.mean_tokens()),
                    s.max_tokens.to_string(),
                    format!("{:.0}%", s.cached_share() * 100.0),
                    format!("{:.4}", s.costs[p]),
                    times(vs_base(s, s.costs[p], base.costs[p])),
                    percent(s.retention.symbols),
                    percent(s.retention.tool_calls),
                    percent(s.retention.printed_lines),
                    percent(s.retention.error),
                    percent(s.retention.used_next),
                    format!("{:.1}", s.mean_render_us()),
                ],
            }
        })
        .collect();
    (header, rows)
}

/// Cost vs baseline under every pricing profile, and tokens vs baseline.
fn pricing_rows(ab: &Ab, summaries: &[Summary]) -> (Vec<String>, Vec<Row>) {
    let mut header = vec!["strategy".to_string(), "tokens".to_string()];
    header.extend(ab.pricing.iter().map(|p| p.name.clone()));
    let base = &summaries[ab.baseline];
    let rows = ab
        .variants
        .iter()
        .zip(summaries)
        .map(|(v, s)| {
            let mut cells = vec![
                v.label.clone(),
                times(vs_base(s, s.tokens as f64, base.tokens as f64)),
            ];
            cells.extend(
                s.costs
                    .iter()
                    .zip(&base.costs)
                    .map(|(c, b)| times(vs_base(s, *c, *b))),
            );
            Row { cells }
        })
        .collect();
    (header, rows)
}

/// The line above the tables: recordings, prompts, strategies, tokenizer, pricing, baseline.
fn intro(ab: &Ab, summaries: &[Summary]) -> String {
    format!(
        "{} recording(s), {} prompt(s) through {} strategies; tokens: {}; cost: {} pricing, baseline {}",
        ab.recordings(),
        summaries[ab.baseline].prompts,
        ab.variants.len(),
        ab.tokenizer.name(),
        ab.pricing[ab.primary_pricing].name,
        ab.variants[ab.baseline].label
    )
}

/// A header of static names as owned strings.
fn strings(header: Vec<&'static str>) -> Vec<String> {
    header.into_iter().map(str::to_owned).collect()
}
