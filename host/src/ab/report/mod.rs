//! The results of `ptc ab` as a terminal table, markdown, CSV (one row per prompt), JSON (the
//! summaries and every per-turn series) and a self-contained HTML report with charts.

use std::fmt::Write;

use serde_json::{json, Value as Json};

use crate::ab::retention::{Retention, Share};
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

fn aligned(header: &[String], rows: &[Row]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (w, c) in widths.iter_mut().zip(&row.cells) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line = |cells: &[String]| {
        let mut out = String::new();
        for (i, (c, w)) in cells.iter().zip(&widths).enumerate() {
            if i == 0 {
                let _ = write!(out, "{c:<w$}");
            } else {
                let _ = write!(out, "  {c:>w$}");
            }
        }
        out.trim_end().to_owned() + "\n"
    };
    let mut out = line(header);
    for row in rows {
        out.push_str(&line(&row.cells));
    }
    out
}

fn markdown(header: &[String], rows: &[Row]) -> String {
    let mut out = format!("| {} |\n", header.join(" | "));
    out.push_str(&format!(
        "|{}\n",
        header
            .iter()
            .enumerate()
            .map(|(i, _)| if i == 0 { "---|" } else { "---:|" })
            .collect::<String>()
    ));
    for row in rows {
        out.push_str(&format!("| {} |\n", row.cells.join(" | ")));
    }
    out
}

fn intro(ab: &Ab, summaries: &[Summary]) -> String {
    let recordings = ab.runs.len() / ab.variants.len().max(1);
    format!(
        "{} recording(s), {} prompt(s) through {} strategies; tokens: {}; cost: {} pricing, baseline {}",
        recordings,
        summaries[ab.baseline].prompts,
        ab.variants.len(),
        ab.tokenizer.name(),
        ab.pricing[ab.primary_pricing].name,
        ab.variants[ab.baseline].label
    )
}

fn strings(header: Vec<&'static str>) -> Vec<String> {
    header.into_iter().map(str::to_owned).collect()
}

/// The terminal table.
pub fn table(ab: &Ab) -> String {
    let summaries = ab.summaries();
    let (h1, r1) = summary_rows(ab, &summaries);
    let (h2, r2) = pricing_rows(ab, &summaries);
    let mut out = intro(ab, &summaries) + "\n\n";
    out.push_str(&aligned(&strings(h1), &r1));
    out.push_str("\nvs baseline: tokens, and cost under each pricing profile\n");
    out.push_str(&aligned(&h2, &r2));
    out.push_str(&failures(ab, &summaries));
    out
}

/// The same as markdown tables.
pub fn markdown_tables(ab: &Ab) -> String {
    let summaries = ab.summaries();
    let (h1, r1) = summary_rows(ab, &summaries);
    let (h2, r2) = pricing_rows(ab, &summaries);
    let mut out = format!("{}\n\n", intro(ab, &summaries));
    out.push_str(&markdown(&strings(h1), &r1));
    out.push_str("\nvs baseline: tokens, and cost under each pricing profile\n\n");
    out.push_str(&markdown(&h2, &r2));
    out.push_str(&failures(ab, &summaries));
    out
}

fn failures(ab: &Ab, summaries: &[Summary]) -> String {
    let mut out = String::new();
    for (v, s) in ab.variants.iter().zip(summaries) {
        if let Some(err) = &s.first_error {
            out.push_str(&format!(
                "\n{} failed on {} recording(s); first: {err}\n",
                v.label, s.failed
            ));
        }
    }
    out
}

fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_owned()
    }
}

/// One row per prompt.
pub fn csv(ab: &Ab) -> String {
    let mut out = String::from("recording,strategy,turns,tokens,shared");
    for p in &ab.pricing {
        out.push_str(&format!(",cached_{0},cost_{0}", p.name));
    }
    for cat in ["symbols", "tool_calls", "printed_lines", "error"] {
        out.push_str(&format!(",{cat}_visible,{cat}_total"));
    }
    out.push_str(",render_us\n");
    for run in &ab.runs {
        for p in &run.prompts {
            out.push_str(&format!(
                "{},{},{},{},{}",
                csv_field(&run.recording.display().to_string()),
                csv_field(&ab.variants[run.variant].label),
                p.turns,
                p.tokens,
                p.shared
            ));
            for c in &p.costs {
                out.push_str(&format!(",{},{:.8}", c.cached, c.cost));
            }
            let r = &p.retention;
            for s in [r.symbols, r.tool_calls, r.printed_lines, r.error] {
                out.push_str(&format!(",{},{}", s.visible, s.total));
            }
            out.push_str(&format!(",{:.3}\n", p.render_ns as f64 / 1000.0));
        }
    }
    out
}

fn retention_json(r: &Retention) -> Json {
    let share = |s: Share| json!({"visible": s.visible, "total": s.total, "ratio": s.ratio()});
    json!({
        "symbols": share(r.symbols),
        "tool_calls": share(r.tool_calls),
        "printed_lines": share(r.printed_lines),
        "error": share(r.error),
    })
}

/// Everything: settings, summaries and the per-turn series.
pub fn json(ab: &Ab) -> Json {
    let summaries = ab.summaries();
    let base = &summaries[ab.baseline];
    let strategies: Vec<Json> = ab
        .variants
        .iter()
        .zip(&summaries)
        .map(|(v, s)| {
            let cost: serde_json::Map<String, Json> = ab
                .pricing
                .iter()
                .zip(&s.costs)
                .map(|(p, c)| (p.name.clone(), json!(c)))
                .collect();
            let vs: serde_json::Map<String, Json> = ab
                .pricing
                .iter()
                .enumerate()
                .map(|(i, p)| (p.name.clone(), json!(vs_base(s, s.costs[i], base.costs[i]))))
                .collect();
            json!({
                "label": v.label,
                "strategy": v.strategy,
                "prompts": s.prompts,
                "tokens": s.tokens,
                "mean_tokens": s.mean_tokens(),
                "max_tokens": s.max_tokens,
                "tokens_vs_baseline": vs_base(s, s.tokens as f64, base.tokens as f64),
                "cached_share": s.cached_share(),
                "cost": cost,
                "cost_vs_baseline": vs,
                "retention": retention_json(&s.retention),
                "render_us_mean": s.mean_render_us(),
                "failed": s.failed,
                "first_error": s.first_error,
            })
        })
        .collect();
    let runs: Vec<Json> = ab
        .runs
        .iter()
        .map(|run| {
            json!({
                "recording": run.recording.display().to_string(),
                "strategy": ab.variants[run.variant].label,
                "error": run.error,
                "prompts": run.prompts.iter().map(|p| json!({
                    "turns": p.turns,
                    "tokens": p.tokens,
                    "shared": p.shared,
                    "cost": ab.pricing.iter().zip(&p.costs).map(|(pr, c)| (pr.name.clone(), json!({
                        "cached": c.cached, "written": c.written, "uncached": c.uncached, "cost": c.cost,
                    }))).collect::<serde_json::Map<String, Json>>(),
                    "retention": retention_json(&p.retention),
                    "render_us": p.render_ns as f64 / 1000.0,
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({
        "tokenizer": ab.tokenizer.name(),
        "baseline": ab.variants[ab.baseline].label,
        "pricing": ab.pricing.iter().map(|p| json!({
            "name": p.name,
            "input_per_mtok": p.input_per_mtok,
            "cache_read_per_mtok": p.cache_read_per_mtok,
            "cache_write_per_mtok": p.cache_write_per_mtok,
            "min_cacheable_tokens": p.min_cacheable_tokens,
            "cache_step_tokens": p.cache_step_tokens,
        })).collect::<Vec<_>>(),
        "primary_pricing": ab.pricing[ab.primary_pricing].name,
        "strategies": strategies,
        "runs": runs,
    })
}

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
    let categories = ["symbols", "tool calls", "printed lines", "latest error"];
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

fn html_table(header: &[String], rows: &[Row]) -> String {
    let mut out = String::from("<table><thead><tr>");
    for h in header {
        let _ = write!(out, "<th>{}</th>", escape(h));
    }
    out.push_str("</tr></thead><tbody>");
    for row in rows {
        out.push_str("<tr>");
        for c in &row.cells {
            let _ = write!(out, "<td>{}</td>", escape(c));
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody></table>");
    out
}

/// One self-contained HTML page (no network): tables and charts.
pub fn html(ab: &Ab) -> String {
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
    let (h1, r1) = summary_rows(ab, &summaries);
    let (h2, r2) = pricing_rows(ab, &summaries);
    let legend: String = labels
        .iter()
        .enumerate()
        .map(|(i, l)| {
            format!(
                r#"<span class="key"><span class="swatch" style="background:{}"></span>{}{}</span>"#,
                COLORS[i % COLORS.len()],
                escape(l),
                if rendered(i) { "" } else { " (rendered nothing)" }
            )
        })
        .collect();
    let pricing = &ab.pricing[ab.primary_pricing].name;
    format!(
        r#"<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>ptc ab report</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1000px; color: #222; }}
table {{ border-collapse: collapse; margin: 1em 0; font-size: 13px; }}
th, td {{ border-bottom: 1px solid #ddd; padding: 4px 8px; text-align: right; }}
th:first-child, td:first-child {{ text-align: left; }}
figure {{ margin: 1.5em 0; }} figcaption {{ font-weight: 600; margin-bottom: .3em; }}
.key {{ margin-right: 1.2em; font-size: 13px; }} .swatch {{ display: inline-block; width: 12px; height: 12px; margin-right: 4px; vertical-align: middle; }}
.note {{ color: #555; font-size: 13px; }}
</style></head><body>
<h1>ptc ab</h1>
<p class="note">{}</p>
<h2>Summary</h2>
{}
<h2>Against the baseline</h2>
<p class="note">Tokens, and cost under each pricing profile, relative to {}.</p>
{}
<h2>Per turn</h2>
<div>{}</div>
{}
{}
{}
<p class="note">Tokens: messages serialized as chat APIs bill them ({} per message plus role and content, {} per request), counted with {}. Cost: input tokens only; a prompt's prefix shared with the previous request of its run is read from the cache when both reach the profile's minimum.</p>
</body></html>
"#,
        escape(&intro(ab, &summaries)),
        html_table(&strings(h1), &r1),
        escape(&ab.variants[ab.baseline].label),
        html_table(&h2, &r2),
        legend,
        line_chart(
            "Input tokens per prompt (mean over recordings)",
            "tokens",
            &labels,
            &tokens
        ),
        line_chart(
            &format!("Cumulative input cost, {pricing} pricing (all recordings)"),
            "dollars",
            &labels,
            &cumulative
        ),
        retention_chart(&labels, &summaries),
        crate::ab::tokens::MESSAGE_OVERHEAD,
        crate::ab::tokens::REPLY_PRIMING,
        ab.tokenizer.name(),
    )
}
