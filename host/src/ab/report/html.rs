//! The results of `ptc ab` as one self-contained HTML page: the host template `report.html`
//! (skeleton, style, headings, prose) filled with what is computed here, escaped: the tables,
//! the legend and the SVG charts.

use std::fmt::Write;

use serde_json::json;

use super::{intro, percent, pricing_table, summary_table, Table};
use crate::ab::{Ab, Summary};
use crate::render::templates::{TemplateError, Templates};

const COLORS: [&str; 8] = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
];

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A line chart: one series per variant over turn indexes.
fn line_chart(title: &str, y_label: &str, labels: &[String], series: &[Vec<f64>]) -> String {
    let (w, h, left, bottom, top, right) = (720.0, 320.0, 70.0, 40.0, 30.0, 20.0);
    let points = series.iter().map(Vec::len).max().unwrap_or(0).max(1);
    let max = series
        .iter()
        .flatten()
        .cloned()
        .fold(0.0f64, f64::max)
        .max(1e-12);
    let x = |i: usize| left + (w - left - right) * (i as f64) / ((points.max(2) - 1) as f64);
    let y = |v: f64| top + (h - top - bottom) * (1.0 - v / max);
    let mut svg = format!(
        r#"<figure><figcaption>{}</figcaption><svg viewBox="0 0 {w} {h}" width="{w}" height="{h}" role="img" aria-label="{}">"#,
        escape(title),
        escape(title)
    );
    for i in 0..=4 {
        let v = max * i as f64 / 4.0;
        let _ = write!(
            svg,
            r##"<line x1="{left}" x2="{}" y1="{1:.1}" y2="{1:.1}" stroke="#ddd"/><text x="{2}" y="{3:.1}" font-size="11" text-anchor="end">{4}</text>"##,
            w - right,
            y(v),
            left - 6.0,
            y(v) + 4.0,
            short_number(v)
        );
    }
    for i in 0..points {
        let _ = write!(
            svg,
            r#"<text x="{:.1}" y="{}" font-size="11" text-anchor="middle">{}</text>"#,
            x(i),
            h - bottom + 16.0,
            i + 1
        );
    }
    let _ = write!(
        svg,
        r#"<text x="{:.1}" y="{}" font-size="12" text-anchor="middle">turn about to run</text><text x="14" y="{:.1}" font-size="12" transform="rotate(-90 14 {:.1})" text-anchor="middle">{}</text>"#,
        (left + w - right) / 2.0,
        h - 4.0,
        h / 2.0,
        h / 2.0,
        escape(y_label)
    );
    for (n, values) in series.iter().enumerate() {
        if values.is_empty() {
            continue;
        }
        let path: Vec<String> = values
            .iter()
            .enumerate()
            .map(|(i, v)| format!("{:.1},{:.1}", x(i), y(*v)))
            .collect();
        let _ = write!(
            svg,
            r#"<polyline fill="none" stroke="{}" stroke-width="2" points="{}"><title>{}</title></polyline>"#,
            COLORS[n % COLORS.len()],
            path.join(" "),
            escape(&labels[n])
        );
    }
    svg.push_str("</svg></figure>");
    svg
}

fn short_number(v: f64) -> String {
    if v == 0.0 {
        "0".into()
    } else if v >= 1000.0 {
        format!("{:.1}k", v / 1000.0)
    } else if v >= 1.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.4}")
    }
}

/// Grouped bars: retention per category, one bar per variant.
fn retention_chart(labels: &[String], summaries: &[Summary]) -> String {
    let categories = [
        "symbols",
        "tool calls",
        "printed lines",
        "latest error",
        "used next",
    ];
    let (w, h, left, bottom, top) = (720.0, 280.0, 50.0, 40.0, 20.0);
    let group = (w - left) / categories.len() as f64;
    let bar = (group - 20.0) / labels.len().max(1) as f64;
    let mut svg = format!(
        r#"<figure><figcaption>Retention: share of the history's facts visible in the prompts</figcaption><svg viewBox="0 0 {w} {h}" width="{w}" height="{h}" role="img" aria-label="retention">"#
    );
    for i in 0..=4 {
        let yv = top + (h - top - bottom) * (1.0 - i as f64 / 4.0);
        let _ = write!(
            svg,
            r##"<line x1="{left}" x2="{w}" y1="{yv:.1}" y2="{yv:.1}" stroke="#ddd"/><text x="{}" y="{:.1}" font-size="11" text-anchor="end">{}%</text>"##,
            left - 6.0,
            yv + 4.0,
            i * 25
        );
    }
    for (c, name) in categories.iter().enumerate() {
        let x0 = left + group * c as f64 + 10.0;
        for (n, s) in summaries.iter().enumerate() {
            let share = [
                s.retention.symbols,
                s.retention.tool_calls,
                s.retention.printed_lines,
                s.retention.error,
                s.retention.used_next,
            ][c];
            // No fact of that kind in the history, or no prompt rendered: no bar, not 0%.
            let Some(r) = share.ratio() else {
                continue;
            };
            let bh = (h - top - bottom) * r;
            let _ = write!(
                svg,
                r#"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{}"><title>{}: {}</title></rect>"#,
                x0 + bar * n as f64,
                h - bottom - bh,
                (bar - 2.0).max(1.0),
                bh,
                COLORS[n % COLORS.len()],
                escape(&labels[n]),
                percent(share)
            );
        }
        let _ = write!(
            svg,
            r#"<text x="{:.1}" y="{}" font-size="12" text-anchor="middle">{name}</text>"#,
            x0 + (group - 20.0) / 2.0,
            h - bottom + 18.0
        );
    }
    svg.push_str("</svg></figure>");
    svg
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
    for h in &table.header {
        let _ = write!(out, "<th>{}</th>", escape(h));
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

/// One self-contained HTML page (no network): tables and charts, laid out by the host template
/// `report.html`. Its context: `intro`, `verdicts` (one line per provider: the cheapest
/// strategy at full retention), `baseline` (label), `summary_table` and
/// `baseline_table` (HTML tables), `strategies` (`label`, `colour`, `rendered`: whether it
/// rendered any prompt), `tokens_chart`, `cost_chart` and `retention_chart` (SVG figures),
/// `message_overhead`, `reply_priming` and `tokenizer`. Texts are HTML-escaped already.
pub fn html(ab: &Ab, templates: &Templates) -> Result<String, TemplateError> {
    let summaries = ab.summaries();
    let labels: Vec<String> = ab.variants.iter().map(|v| v.label.clone()).collect();
    let by_turn = ab.by_turn();
    // A strategy that rendered no prompt has no line (rather than one at zero).
    let rendered = |i: usize| summaries[i].prompts > 0;
    let tokens: Vec<Vec<f64>> = by_turn
        .iter()
        .enumerate()
        .map(|(i, s)| match rendered(i) {
            true => s.iter().map(|(t, _)| *t).collect(),
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
    let strategies: Vec<serde_json::Value> = labels
        .iter()
        .enumerate()
        .map(|(i, l)| {
            json!({
                "label": escape(l),
                "colour": COLORS[i % COLORS.len()],
                "rendered": rendered(i),
            })
        })
        .collect();
    let pricing = &ab.pricing[ab.primary_pricing].name;
    let context = json!({
        "intro": escape(&intro(ab, summaries)),
        "verdicts": super::verdict::verdicts(ab, summaries)
            .iter()
            .map(|v| escape(&super::verdict::line(ab, summaries, v)))
            .collect::<Vec<_>>(),
        "baseline": escape(&ab.variants[ab.baseline].label),
        "summary_table": html_table(&summary_table(ab, summaries)),
        "baseline_table": html_table(&pricing_table(ab, summaries)),
        "strategies": strategies,
        "tokens_chart": line_chart(
            "Input tokens per prompt (mean over recordings)",
            "tokens",
            &labels,
            &tokens
        ),
        "cost_chart": line_chart(
            &format!("Cumulative input cost, {pricing} pricing (all recordings)"),
            "dollars",
            &labels,
            &cumulative
        ),
        "retention_chart": retention_chart(&labels, summaries),
        "message_overhead": crate::ab::tokens::MESSAGE_OVERHEAD,
        "reply_priming": crate::ab::tokens::REPLY_PRIMING,
        "tokenizer": ab.tokenizer.name(),
    });
    templates.render("report.html", &context)
}
