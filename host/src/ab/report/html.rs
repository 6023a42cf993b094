//! The results of `ptc ab` as one self-contained HTML page: the host template `report.html`
//! (skeleton, style, headings, prose, the script of the side-by-side prompts) filled with what
//! is computed here, escaped: the tables, the legend, the charts and the prompts as JSON.

use std::fmt::Write;

use serde_json::json;

use super::charts::{retention_bars, LineChart, Unit, MIN_SHARE};
use super::{intro, pricing_verdicts, summary_table, Table};
use crate::ab::{script_json, Ab, PromptLog, PROMPT_BYTES, PROMPT_RECORDINGS};
use crate::render::templates::{TemplateError, Templates};
use crate::tokens::Counting;

const COLORS: [&str; 8] = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
];

/// Strategy `i`'s colour: one of [`COLORS`], past them a hue a golden angle from the one
/// before, at two lightnesses in turn, so that any number of strategies have their own.
fn colour(i: usize) -> String {
    match COLORS.get(i) {
        Some(c) => (*c).to_owned(),
        None => {
            let n = i - COLORS.len();
            let hue = (20.0 + n as f64 * 137.508) % 360.0;
            let lightness = if n % 2 == 0 { 38 } else { 58 };
            format!("hsl({hue:.1}, 70%, {lightness}%)")
        }
    }
}

pub(super) fn escape(text: &str) -> String {
    // A bidirectional or format character in a recording's name (U+202E...) would reorder the
    // cell it is in: it is shown as `\u{202E}`, as on a terminal.
    crate::output::escape_controls(text)
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A table in a box of its own that scrolls sideways on a narrow page; a first column of marks,
/// the grouped columns under one heading, the baseline's and the verdict's rows classed
/// `baseline` and `verdict`, and the legend under it.
fn html_table(table: &Table) -> String {
    let mut out = String::from("<div class=\"scroll\"><table><thead>");
    if let Some((columns, title)) = &table.group {
        out.push_str("<tr class=\"group\"><th></th>");
        for _ in 0..columns.start {
            out.push_str("<th></th>");
        }
        let _ = write!(
            out,
            "<th colspan=\"{}\" class=\"span\">{}</th>",
            columns.len(),
            escape(title)
        );
        for _ in columns.end..table.header.len() {
            out.push_str("<th></th>");
        }
        out.push_str("</tr>");
    }
    out.push_str("<tr><th class=\"mark\"></th>");
    // A long profile name breaks after `-`, `@` or `=` first, so that the columns are as wide
    // as their figures.
    for h in &table.header {
        let mut cell = String::new();
        for c in escape(h).chars() {
            cell.push(c);
            if matches!(c, '-' | '@' | '=') {
                cell.push_str("<wbr>");
            }
        }
        let _ = write!(out, "<th>{cell}</th>");
    }
    out.push_str("</tr></thead><tbody>");
    for row in &table.rows {
        let class: Vec<&str> = [(row.baseline, "baseline"), (row.verdict, "verdict")]
            .into_iter()
            .filter_map(|(on, class)| on.then_some(class))
            .collect();
        if class.is_empty() {
            out.push_str("<tr>");
        } else {
            let _ = write!(out, "<tr class=\"{}\">", class.join(" "));
        }
        let _ = write!(out, "<td class=\"mark\">{}</td>", escape(&row.mark));
        for c in &row.cells {
            let _ = write!(out, "<td>{}</td>", escape(c));
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody></table></div>");
    if !table.legend.is_empty() {
        let lines: Vec<String> = table.legend.iter().map(|l| escape(l)).collect();
        let _ = write!(out, "<p class=\"note\">{}</p>", lines.join("<br>"));
    }
    out
}

/// One self-contained HTML page (no network): tables, charts and the prompts side by side,
/// laid out by the host template `report.html`. Its context: `intro`, `requirements` (what the
/// verdict requires, in words), `verdicts` (one line per provider: the cheapest strategy that
/// meets the requirements, with its figures), `not_recommended` (one line per strategy that
/// does not meet them, and why), `cited_over` (over how many actions and runs the evidence
/// measure was taken; empty when no action cites anything), `dropped_actions` (per strategy
/// that drops cited literals, `head`, how many actions lose some, and `actions`, the first of
/// them in words), `rebuilt` (the note on the runs whose as-sent baseline is
/// rebuilt from their log, a line each, with the prefix inferred; empty when none is),
/// `baseline` (label), `summary_table` and
/// `baseline_table` (HTML tables, their marks explained under them; the second under the
/// profile of the cost column and those holding a verdict), `baseline_table_all` (under every
/// profile, when that leaves some out) and `profiles` (how many), `failures` (one line per
/// strategy that failed, with its first error), `strategies` (`label`, `colour`, `rendered`:
/// whether it rendered any prompt), `tokens_chart` and `cost_chart` (SVG figures),
/// `retention_chart` (HTML bars), `min_share` (the percentage of the recordings a turn must
/// reach for its mean to be drawn), `prompts_json` (the prompts of [`PromptLog`], as JSON
/// safe inside a `<script>` element), `prompt_note` (which prompts it holds),
/// `message_overhead`, `reply_priming`, `tokenizer` and `counting` (what the token figures
/// count: the request format of the primary profile's provider, in words), `real_runs` (the
/// section on the bundled real runs as the terminal shows it, when `ptc ab` was given no
/// corpus; empty otherwise). Texts are HTML-escaped already.
pub fn html(
    ab: &Ab,
    prompts: &PromptLog,
    real_runs: Option<&str>,
    templates: &Templates,
) -> Result<String, TemplateError> {
    let summaries = ab.summaries();
    let (shown, every) = pricing_verdicts(ab);
    let labels: Vec<String> = ab.variants.iter().map(|v| v.label.clone()).collect();
    let by_turn = ab.by_turn();
    let reach = ab.turn_reach();
    // The recordings that reach each turn, whichever variant rendered them.
    let reached: Vec<usize> = (0..reach.iter().map(Vec::len).max().unwrap_or(0))
        .map(|k| reach.iter().map(|r| r[k]).max().unwrap_or(0))
        .collect();
    let enough = ((ab.recordings() as f64 * MIN_SHARE).ceil() as usize).max(1);
    // A strategy that rendered no prompt has no line (rather than one at zero).
    let rendered = |i: usize| summaries[i].prompts > 0;
    let tokens: Vec<Vec<f64>> = by_turn
        .iter()
        .enumerate()
        .map(|(i, s)| match rendered(i) {
            true => s
                .iter()
                .zip(&reach[i])
                .take_while(|(_, r)| **r >= enough)
                .map(|((t, _), _)| *t)
                .collect(),
            false => Vec::new(),
        })
        .collect();
    let cumulative: Vec<Vec<f64>> = by_turn
        .iter()
        .enumerate()
        .map(|(i, s)| match rendered(i) {
            true => s
                .iter()
                .scan(0.0, |acc, (_, c)| {
                    *acc += c;
                    Some(*acc)
                })
                .collect(),
            false => Vec::new(),
        })
        .collect();
    let owned: Vec<String> = (0..labels.len()).map(colour).collect();
    let colours: Vec<&str> = owned.iter().map(String::as_str).collect();
    let strategies: Vec<serde_json::Value> = labels
        .iter()
        .enumerate()
        .map(|(i, l)| {
            json!({
                "label": escape(l),
                "colour": colours[i],
                "rendered": rendered(i),
            })
        })
        .collect();
    let failures: Vec<String> = ab
        .variants
        .iter()
        .zip(summaries)
        .filter_map(|(v, s)| {
            let err = s.first_error.as_ref()?;
            Some(escape(&format!(
                "{} failed on {} recording(s); first: {err}",
                v.label, s.failed
            )))
        })
        .collect();
    let verdicts = super::verdict::verdicts(ab);
    let mut data = prompts.to_json(ab);
    // The pair shown first: the baseline and the verdict under the table's pricing.
    let second = super::primary_verdict(ab, &verdicts)
        .filter(|v| *v != ab.baseline)
        .or((0..labels.len()).find(|i| *i != ab.baseline))
        .unwrap_or(ab.baseline);
    data["pair"] = json!([ab.baseline, second]);
    let pricing = &ab.pricing[ab.primary_pricing].name;
    let context = json!({
        "intro": escape(&intro(ab, summaries)),
        "requirements": escape(&if ab.requirements.0.is_empty() {
            "Per provider, the cheapest strategy and cache placement, with nothing required of what the prompts keep.".to_owned()
        } else {
            format!(
                "Per provider, the cheapest strategy and cache placement of those that keep {} (summed over every prompt: --require {}) and rendered every recording.",
                ab.requirements.text(),
                ab.requirements.written()
            )
        }),
        "rebuilt": super::judged::rebuilt_note(&ab.rebuilt, "nothing is judged on it")
            .lines()
            .map(|line| escape(line.trim()))
            .collect::<Vec<_>>(),
        "not_recommended": ab
            .variants
            .iter()
            .zip(summaries)
            .filter_map(|(v, s)| {
                let why = super::verdict::not_met(s, &ab.requirements)?;
                Some(escape(&format!("{}: {why}", v.label)))
            })
            .collect::<Vec<_>>(),
        "cited_over": super::drill::cited_over(ab, summaries).map(|o| escape(&o)).unwrap_or_default(),
        "dropped_actions": super::drill::per_strategy(ab, summaries)
            .into_iter()
            .map(|(head, actions)| serde_json::json!({
                "head": escape(&head),
                "actions": actions.iter().map(|a| escape(a)).collect::<Vec<_>>(),
            }))
            .collect::<Vec<_>>(),
        "verdicts": verdicts
            .iter()
            .map(|v| serde_json::json!({
                "short": escape(&super::verdict::short(ab, v)),
                "long": escape(&super::verdict::line(ab, v)),
            }))
            .collect::<Vec<_>>(),
        "baseline": escape(&ab.variants[ab.baseline].label),
        "summary_table": html_table(&summary_table(ab, summaries)),
        "baseline_table": html_table(&shown),
        "baseline_table_all": every.as_ref().map(html_table),
        "profiles": ab.pricing.len(),
        "failures": failures,
        "strategies": strategies,
        "tokens_chart": LineChart {
            title: "Input tokens per prompt (mean over the recordings that reach the turn)",
            y_label: "tokens",
            unit: Unit::Count,
            labels: &labels,
            colours: &colours,
            series: &tokens,
            reach: &reached,
        }.svg(),
        "cost_chart": LineChart {
            title: &format!("Cumulative input cost, {pricing} pricing (all recordings)"),
            y_label: "dollars",
            unit: Unit::Dollars,
            labels: &labels,
            colours: &colours,
            series: &cumulative,
            reach: &reached,
        }.svg(),
        "retention_chart": retention_bars(&labels, &colours, summaries),
        "min_share": format!("{:.0}", MIN_SHARE * 100.0),
        "prompts_json": script_json(&data),
        "prompt_note": escape(&prompt_note(ab, prompts)),
        "message_overhead": crate::tokens::MESSAGE_OVERHEAD,
        "reply_priming": crate::tokens::REPLY_PRIMING,
        "tokenizer": ab.tokenizer.name(),
        "real_runs": real_runs.map(escape).unwrap_or_default(),
        "counting": Counting::of(ab.pricing[ab.primary_pricing].caching).describe(),
    });
    templates.render("report.html", &context)
}

/// Which recordings' prompts the page holds, and why not the others'.
fn prompt_note(ab: &Ab, prompts: &PromptLog) -> String {
    let kept = prompts.recordings.len();
    if kept == 0 && prompts.left_out == 0 && ab.recordings() > 0 {
        return "No prompts: the page was made by `ptc ab merge`, which has the parts' measures, \
                not the recordings (`ptc ab --report` on some of the recordings shows them)."
            .into();
    }
    let mut note = format!(
        "The prompts of {kept} of the {} recording(s) measured",
        ab.recordings()
    );
    if prompts.left_out > 0 {
        note.push_str(&format!(
            ": the page holds the prompts of at most the first {PROMPT_RECORDINGS} recordings and {} MiB of distinct lines",
            PROMPT_BYTES >> 20
        ));
    }
    note.push('.');
    note
}

#[cfg(test)]
mod tests {
    #[test]
    fn twelve_strategies_have_twelve_colours() {
        let colours: Vec<String> = (0..12).map(super::colour).collect();
        let distinct: std::collections::HashSet<&String> = colours.iter().collect();
        assert_eq!(distinct.len(), 12, "{colours:?}");
        assert_eq!(colours[8], "hsl(20.0, 70%, 38%)");
    }

    #[test]
    fn html_text_shows_a_bidi_character_escaped_so_it_cannot_reorder_a_cell() {
        assert_eq!(
            super::escape("a\u{202e}<b>\u{2066}"),
            "a\\u{202E}&lt;b&gt;\\u{2066}"
        );
    }
}
