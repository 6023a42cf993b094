//! The results of `ptc ab` in every format: a terminal table and markdown (`table.rs`), CSV, one
//! row per prompt (`csv.rs`), JSON, the summaries and every per-turn series (`json.rs`), and a
//! self-contained HTML page with charts (`html.rs`). This file holds the figures they share:
//! the summary and the against-the-baseline tables, with their marks and the line that
//! introduces them.

mod charts;
mod csv;
pub mod drill;
mod html;
mod json;
pub mod judged;
mod placement;
mod providers;
mod requirement;
mod table;
mod tier_decided;
pub mod verdict;
mod verdict_section;

#[cfg(test)]
pub use csv::csv;
pub use csv::{rows as csv_rows, write_csv};
pub use html::html;
#[cfg(test)]
pub use json::json;
pub use json::{run_text as json_run_text, write_json};
pub use requirement::Requirements;
pub use table::{markdown_tables, table, wrap};

use crate::ab::retention::Share;
use crate::ab::{Ab, Summary};
use crate::tokens::Counting;
use html::escape;

/// How much of the results the tables for people show.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct View {
    /// Every column and every pricing profile (`--wide`); by default the summary shows tokens,
    /// cost and what is retained, and the costs against the baseline those of the profile of
    /// the cost column, the profiles asked for and those the runs were billed by.
    pub wide: bool,
    /// Each verdict in full, the strategies judged on some recordings only and why, and the
    /// actions whose cited literals are dropped (`--explain`); by default a verdict is one
    /// short line per provider.
    pub explain: bool,
    /// The profiles asked for (`--pricing`, or those the runs were billed by): each is shown.
    pub asked: Vec<String>,
    /// The profiles the runs were billed by.
    pub billed: Vec<String>,
}

/// The columns of the summary table shown without `--wide`.
const NARROW_SUMMARY: [&str; 3] = ["strategy", "tokens", "cost $"];

impl View {
    /// Whether the tables for people read the costs of the profile named `name` when the
    /// runs are priced by the one profile their bill names, `billed`: those of its provider
    /// (the verdict, its range, the profile's variants for other models), unless every
    /// profile is shown (`--wide`, `--explain`).
    pub fn reads_beside_bill(&self, billed: &str, name: &str) -> bool {
        self.wide || self.explain || verdict::family(billed) == verdict::family(name)
    }

    /// Whether the against-the-baseline table shows profile `p` of `ab`.
    fn shows_profile(&self, ab: &Ab, p: usize) -> bool {
        let name = &ab.pricing[p].name;
        // A corpus priced run by run: its cost column adds up the billed profiles' (`--wide`
        // shows them).
        self.wide
            || p == ab.primary_pricing
            || ab.by_run.is_none() && (self.asked.contains(name) || self.billed.contains(name))
    }

    /// Whether the verdicts show that of `provider`: every one with `--wide` or `--explain`,
    /// or when no profile was asked for and the runs were not priced run by run; else those
    /// of the profiles asked for or billed.
    pub(super) fn shows_verdict(&self, ab: &Ab, provider: &str) -> bool {
        let primary = verdict::family(&ab.pricing[ab.primary_pricing].name);
        let by_run = ab
            .by_run
            .iter()
            .flat_map(|b| b.profiles.iter().map(|(n, _)| n));
        self.wide
            || self.explain
            || (self.asked.is_empty() && ab.by_run.is_none())
            || provider == primary
            || self
                .asked
                .iter()
                .chain(&self.billed)
                .chain(by_run)
                .any(|name| verdict::family(name) == provider)
    }
}

/// `table` with only the columns `keep` says (by index of its header), its group of columns
/// narrowed to those kept.
fn narrow(table: Table, keep: impl Fn(usize, &str) -> bool) -> Table {
    let kept: Vec<usize> = (0..table.header.len())
        .filter(|&i| keep(i, &table.header[i]))
        .collect();
    let pick = |cells: &[String]| kept.iter().map(|&i| cells[i].clone()).collect();
    let group = table.group.and_then(|(range, title)| {
        let inside: Vec<usize> = (0..kept.len())
            .filter(|&k| range.contains(&kept[k]))
            .collect();
        Some((*inside.first()?..*inside.last()? + 1, title))
    });
    Table {
        header: pick(&table.header),
        group,
        rows: table
            .rows
            .into_iter()
            .map(|row| Row {
                cells: pick(&row.cells),
                ..row
            })
            .collect(),
        legend: table.legend,
    }
}

fn percent(share: Share) -> String {
    share
        .ratio()
        .map_or_else(|| "n/a".into(), |r| format!("{:.0}%", r * 100.0))
}

/// The share of the cited literals a strategy's prompts show; `n/a` where the runs cite fewer
/// than the verdict needs to judge ([`requirement::MIN_EVIDENCE`]): a share of one or two
/// literals reads as a defect, not as a measure.
fn evidence_percent(share: Share) -> String {
    if share.total < requirement::MIN_EVIDENCE {
        "n/a".into()
    } else {
        percent(share)
    }
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

/// The mark of the baseline's row.
const BASELINE_MARK: &str = "B";
/// The mark of the verdict's row, and of its cell in the against-the-baseline table.
const VERDICT_MARK: &str = "*";

struct Row {
    /// [`BASELINE_MARK`], [`VERDICT_MARK`], both or nothing: the first column of every format.
    mark: String,
    /// Whether the row is the baseline's, the verdict's: the HTML page styles them.
    baseline: bool,
    verdict: bool,
    cells: Vec<String>,
}

/// A table as every format shows it: a column of marks, then `header` and `rows`; the columns
/// `group.0` (a range of `header`'s indexes) stand under the heading `group.1`.
struct Table {
    header: Vec<String>,
    group: Option<(std::ops::Range<usize>, &'static str)>,
    rows: Vec<Row>,
    /// What the marks mean, one line each: written under the table.
    legend: Vec<String>,
}

/// The retention columns of the summary table, under the heading [`RETAINED`].
const RETENTION_COLUMNS: [&str; 6] = [
    "symbols",
    "calls",
    "prints",
    "error",
    "used next",
    "evidence",
];
const RETAINED: &str = "retained";

fn mark(baseline: bool, verdict: bool) -> String {
    let mut mark = String::new();
    if baseline {
        mark.push_str(BASELINE_MARK);
    }
    if verdict {
        mark.push_str(VERDICT_MARK);
    }
    mark
}

/// The verdict of the table's pricing profile: the primary profile's, placements aside.
fn primary_verdict(ab: &Ab, verdicts: &[verdict::Verdict]) -> Option<usize> {
    let provider = verdict::family(&ab.pricing[ab.primary_pricing].name);
    verdicts
        .iter()
        .find(|v| v.provider == provider)
        .map(|v| v.variant)
}

/// The summary table, [`View::wide`] or narrow.
fn summary_view(ab: &Ab, summaries: &[Summary], view: &View) -> Table {
    let table = summary_table(ab, summaries);
    match view.wide {
        true => table,
        false => narrow(table, |i, h| {
            NARROW_SUMMARY.contains(&h) || RETENTION_COLUMNS.contains(&h) && i > 0
        }),
    }
}

/// The summary table: one row per variant.
fn summary_table(ab: &Ab, summaries: &[Summary]) -> Table {
    let mut header: Vec<String> = [
        "strategy", "prompts", "tokens", "mean", "max", "cached", "cost $", "vs base",
    ]
    .map(str::to_owned)
    .to_vec();
    let group = header.len()..header.len() + RETENTION_COLUMNS.len();
    header.extend(RETENTION_COLUMNS.map(str::to_owned));
    header.push("render µs".to_owned());
    let judged = ab.judged();
    let p = ab.primary_pricing;
    let verdicts = verdict::verdicts(ab);
    let chosen = primary_verdict(ab, &verdicts);
    let rows = ab
        .variants
        .iter()
        .zip(summaries)
        .enumerate()
        .map(|(i, (v, s))| {
            let mut label = v.label.clone();
            if s.failed > 0 {
                label.push_str(&format!(" (failed on {})", s.failed));
            }
            let (baseline, verdict) = (i == ab.baseline, chosen == Some(i));
            Row {
                mark: mark(baseline, verdict),
                baseline,
                verdict,
                cells: vec![
                    label,
                    s.prompts.to_string(),
                    s.tokens.to_string(),
                    format!("{:.0}", s.mean_tokens()),
                    s.max_tokens.to_string(),
                    format!("{:.0}%", s.cached_share() * 100.0),
                    format!("{:.4}", s.costs[p]),
                    times(vs_base(
                        &judged[i].summary,
                        judged[i].summary.costs[p],
                        judged[i].baseline.costs[p],
                    )),
                    // On the recordings it is judged on, as its ratio to the baseline.
                    percent(judged[i].summary.retention.symbols),
                    percent(judged[i].summary.retention.tool_calls),
                    percent(judged[i].summary.retention.printed_lines),
                    percent(judged[i].summary.retention.error),
                    percent(judged[i].summary.retention.used_next),
                    evidence_percent(judged[i].summary.retention.evidence),
                    format!("{:.1}", s.mean_render_us()),
                ],
            }
        })
        .collect();
    let pricing = &ab.pricing[p].name;
    let required = ab.requirements.text();
    let verdict = match verdicts.iter().find(|v| Some(v.variant) == chosen) {
        Some(v) if v.meets && ab.requirements.0.is_empty() => {
            format!("{VERDICT_MARK} the cheapest under {pricing} pricing (the verdict below)")
        }
        Some(v) if v.meets => format!(
            "{VERDICT_MARK} the cheapest that keeps {required} under {pricing} pricing (the verdict below)"
        ),
        Some(_) => format!(
            "{VERDICT_MARK} the cheapest under {pricing} pricing, though it does not keep {required} (the verdict below)"
        ),
        None => String::new(),
    };
    let legend = [
        format!("{BASELINE_MARK} the baseline"),
        verdict,
        partly_judged_legend(ab),
        format!(
            "{RETAINED}: the share of the history's facts the prompts show (symbols, tool calls, printed lines, the latest error, the names the next program uses, the literals the next action cites from earlier observations)"
        ),
    ]
    .into_iter()
    .filter(|part| !part.is_empty())
    .collect();
    Table {
        header,
        group: Some((group, RETAINED)),
        rows,
        legend,
    }
}

/// The legend of the ratios to the baseline when some strategy is judged on some recordings
/// only: they compare it with the baseline on those; empty when every one is judged on all.
fn partly_judged_legend(ab: &Ab) -> String {
    let all = ab.recordings();
    let partly = ab
        .judged()
        .iter()
        .any(|j| j.recordings > 0 && j.recordings < all);
    match partly {
        true => "ratios to the baseline and shares retained: each strategy's on the recordings it is judged on, against the baseline on the same ones (some strategies are judged on some recordings only: `--explain` says which and why)".to_owned(),
        false => String::new(),
    }
}

/// [`pricing_table`] with the profiles `view` shows; a row is marked a verdict's only when a
/// column shown holds that verdict (the mark never points at a hidden column).
fn pricing_view(ab: &Ab, view: &View) -> Table {
    // The strategy and tokens, then a column per profile.
    let mut table = narrow(pricing_table(ab), |i, _| {
        i < 2 || view.shows_profile(ab, i - 2)
    });
    for row in &mut table.rows {
        row.verdict = row.cells[2..].iter().any(|c| c.ends_with(VERDICT_MARK));
        row.mark = mark(row.baseline, row.verdict);
    }
    table
}

/// [`pricing_table`] as the report shows it first: the cost column's profile and each profile
/// that holds a verdict; and the whole table, when that leaves some profiles out.
fn pricing_verdicts(ab: &Ab) -> (Table, Option<Table>) {
    let every = pricing_table(ab);
    let kept: Vec<bool> = (0..every.header.len())
        .map(|i| {
            i < 2
                || i - 2 == ab.primary_pricing
                || every
                    .rows
                    .iter()
                    .any(|r| r.cells[i].ends_with(VERDICT_MARK))
        })
        .collect();
    if kept.iter().all(|&k| k) {
        return (every, None);
    }
    (narrow(pricing_table(ab), |i, _| kept[i]), Some(every))
}

/// Cost vs baseline under every pricing profile, and tokens vs baseline; the verdict of each
/// provider marked in the column of the placement it names.
fn pricing_table(ab: &Ab) -> Table {
    let mut header = vec!["strategy".to_string(), "tokens".to_string()];
    header.extend(ab.pricing.iter().map(|p| p.name.clone()));
    let verdicts = verdict::verdicts(ab);
    let rows =
        ab.variants
            .iter()
            .zip(ab.judged())
            .enumerate()
            .map(|(i, (v, judged))| {
                // On the recordings it is judged on, against the baseline on the same ones.
                let (s, base) = (&judged.summary, &judged.baseline);
                let mut cells = vec![
                    v.label.clone(),
                    times(vs_base(s, s.tokens as f64, base.tokens as f64)),
                ];
                cells.extend(s.costs.iter().zip(&base.costs).enumerate().map(
                    |(profile, (c, b))| {
                        let mut cell = times(vs_base(s, *c, *b));
                        if verdicts
                            .iter()
                            .any(|v| v.variant == i && v.profile == profile)
                        {
                            cell.push_str(VERDICT_MARK);
                        }
                        cell
                    },
                ));
                let verdict = verdicts.iter().any(|v| v.variant == i);
                Row {
                    mark: mark(i == ab.baseline, verdict),
                    baseline: i == ab.baseline,
                    verdict,
                    cells,
                }
            })
            .collect();
    Table {
        header,
        group: None,
        rows,
        legend: [
            format!("{BASELINE_MARK} the baseline"),
            format!("{VERDICT_MARK} a provider's verdict, in the column of its cache placement"),
            partly_judged_legend(ab),
        ]
        .into_iter()
        .filter(|part| !part.is_empty())
        .collect(),
    }
}

/// The line above the tables: recordings, prompts, strategies, tokenizer and what it counts
/// (the request format of the primary profile's provider), pricing, baseline.
fn intro(ab: &Ab, summaries: &[Summary]) -> String {
    let primary = &ab.pricing[ab.primary_pricing];
    format!(
        "{} recording(s), {} prompt(s) through {} strategies; tokens: {} on {}; cost: {} pricing, baseline {}",
        ab.recordings(),
        summaries[ab.baseline].prompts,
        ab.variants.len(),
        ab.tokenizer.name(),
        Counting::of(primary.caching).describe(),
        primary.name,
        ab.variants[ab.baseline].label
    )
}

#[cfg(test)]
mod evidence_cell_tests {
    use super::*;

    #[test]
    fn evidence_of_too_few_literals_is_not_a_share() {
        let share = |visible, total| Share { visible, total };
        assert_eq!(evidence_percent(share(0, 0)), "n/a");
        assert_eq!(evidence_percent(share(0, 1)), "n/a");
        assert_eq!(
            evidence_percent(share(4, requirement::MIN_EVIDENCE - 1)),
            "n/a"
        );
        assert_eq!(evidence_percent(share(4, requirement::MIN_EVIDENCE)), "80%");
        assert_eq!(evidence_percent(share(0, 10)), "0%");
    }
}
