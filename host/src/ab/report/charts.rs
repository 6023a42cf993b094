//! The charts of the HTML report: line charts over the turns, as SVG that scales to the width
//! of the page, with axis ticks at round values; and the retention bars, as HTML that reflows.

use std::fmt::Write;

use super::requirement::MIN_EVIDENCE;
use super::{escape, percent};
use crate::ab::retention::Share;
use crate::ab::Summary;

/// A per-turn mean is drawn only where at least this share of the recordings reach the turn:
/// past it, a mean over a few recordings moves with them, not with the strategy.
pub const MIN_SHARE: f64 = 0.1;

/// What a vertical axis counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// `0`, `500`, `1k`, `1.5k`, `2M`.
    Count,
    /// `$0`, `$0.10`, `$0.20`.
    Dollars,
}

/// A round step near `rough`: 1, 2 or 5 times a power of ten.
fn nice_step(rough: f64) -> f64 {
    if !(rough.is_finite() && rough > 0.0) {
        return 1.0;
    }
    let magnitude = 10f64.powf(rough.log10().floor());
    let f = rough / magnitude;
    let nice = if f <= 1.0 {
        1.0
    } else if f <= 2.0 {
        2.0
    } else if f <= 5.0 {
        5.0
    } else {
        10.0
    };
    nice * magnitude
}

/// Ticks from 0 at a round step, about `target` of them, the last at or above `max`.
pub fn nice_ticks(max: f64, target: usize) -> Vec<f64> {
    let max = if max.is_finite() && max > 0.0 {
        max
    } else {
        1.0
    };
    let step = nice_step(max / target.max(1) as f64);
    let steps = ((max / step) - 1e-9).ceil().max(1.0) as usize;
    (0..=steps).map(|i| i as f64 * step).collect()
}

/// The fewest decimals that show `step` exactly (at most 9).
fn decimals(step: f64) -> usize {
    (0..9)
        .find(|&d| {
            let scaled = step * 10f64.powi(d as i32);
            (scaled - scaled.round()).abs() < 1e-6 * scaled.max(1.0)
        })
        .unwrap_or(9)
}

/// A tick's label, with the decimals its step needs.
pub fn tick_label(value: f64, step: f64, unit: Unit) -> String {
    if value == 0.0 {
        return match unit {
            Unit::Count => "0".into(),
            Unit::Dollars => "$0".into(),
        };
    }
    // A count drops the zeros a whole number does not need: 1k, 1.5k, 2k.
    let trim = |text: String| {
        if text.contains('.') {
            text.trim_end_matches('0').trim_end_matches('.').to_owned()
        } else {
            text
        }
    };
    match unit {
        Unit::Dollars => format!("${value:.0$}", decimals(step).max(2)),
        Unit::Count if value >= 1e6 => {
            trim(format!("{:.*}", decimals(step / 1e6), value / 1e6)) + "M"
        }
        Unit::Count if value >= 1e3 => {
            trim(format!("{:.*}", decimals(step / 1e3), value / 1e3)) + "k"
        }
        Unit::Count => trim(format!("{value:.0$}", decimals(step))),
    }
}

/// The turns that get a label on the horizontal axis: the first, and every multiple of a
/// round step (1, 2, 5, 10, ...) chosen so that about 12 are labelled.
fn turn_ticks(points: usize) -> Vec<usize> {
    let step = (nice_step(points as f64 / 12.0).round() as usize).max(1);
    (1..=points).filter(|t| *t == 1 || t % step == 0).collect()
}

/// A line chart over the turns, in the page's colours.
pub struct LineChart<'a> {
    pub title: &'a str,
    pub y_label: &'a str,
    pub unit: Unit,
    /// One per variant.
    pub labels: &'a [String],
    pub colours: &'a [&'a str],
    /// Per variant, per turn index; an empty series draws nothing.
    pub series: &'a [Vec<f64>],
    /// Per turn index: the recordings that reach it, written under the axis.
    pub reach: &'a [usize],
}

impl LineChart<'_> {
    pub fn svg(&self) -> String {
        let (w, h, left, bottom, top, right) = (640.0, 320.0, 84.0, 64.0, 16.0, 16.0);
        let points = self.reach.len().max(1);
        let max = self.series.iter().flatten().cloned().fold(0.0f64, f64::max);
        let ticks = nice_ticks(max, 5);
        let step = ticks.get(1).copied().unwrap_or(1.0);
        let top_value = ticks.last().copied().unwrap_or(1.0);
        let x = |i: usize| left + (w - left - right) * (i as f64) / ((points.max(2) - 1) as f64);
        let y = |v: f64| top + (h - top - bottom) * (1.0 - v / top_value);
        let mut svg = format!(
            r#"<figure><figcaption>{title}</figcaption><div class="scroll chart"><svg viewBox="0 0 {w} {h}" role="img" aria-label="{title}">"#,
            title = escape(self.title),
        );
        for v in &ticks {
            let _ = write!(
                svg,
                r##"<line x1="{left}" x2="{}" y1="{1:.1}" y2="{1:.1}" stroke="#ddd"/><text x="{2}" y="{3:.1}" font-size="14" text-anchor="end">{4}</text>"##,
                w - right,
                y(*v),
                left - 6.0,
                y(*v) + 4.0,
                tick_label(*v, step, self.unit)
            );
        }
        let axis = h - bottom;
        for t in turn_ticks(points) {
            let i = t - 1;
            let _ = write!(
                svg,
                r##"<line x1="{0:.1}" x2="{0:.1}" y1="{axis}" y2="{1}" stroke="#999"/><text x="{0:.1}" y="{2}" font-size="14" text-anchor="middle">{t}</text><text x="{0:.1}" y="{3}" font-size="13" fill="#666" text-anchor="middle">{4}</text>"##,
                x(i),
                axis + 4.0,
                axis + 18.0,
                axis + 34.0,
                self.reach.get(i).copied().unwrap_or(0),
            );
        }
        let _ = write!(
            svg,
            r##"<text x="{6}" y="{0}" font-size="11" fill="#666" text-anchor="end">turn</text><text x="{6}" y="{1}" font-size="11" fill="#666" text-anchor="end">recordings</text><text x="{2:.1}" y="{3}" font-size="13" text-anchor="middle">turn about to run, and the recordings that reach it</text><text x="14" y="{4:.1}" font-size="13" transform="rotate(-90 14 {4:.1})" text-anchor="middle">{5}</text>"##,
            axis + 19.0,
            axis + 36.0,
            (left + w - right) / 2.0,
            h - 4.0,
            (top + axis) / 2.0,
            escape(self.y_label),
            // Right of the rotated axis label, which is centred at x = 14.
            left - 14.0,
        );
        for (n, values) in self.series.iter().enumerate() {
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
                self.colours[n % self.colours.len()],
                path.join(" "),
                escape(&self.labels[n])
            );
        }
        svg.push_str("</svg></div>");
        // A legend under the chart: each line's colour and strategy.
        svg.push_str(r#"<div class="legend">"#);
        for (n, values) in self.series.iter().enumerate() {
            if !values.is_empty() {
                let _ = write!(
                    svg,
                    r#"<span><span class="swatch" style="background:{}"></span>{}</span> "#,
                    self.colours[n % self.colours.len()],
                    escape(&self.labels[n])
                );
            }
        }
        svg.push_str("</div></figure>");
        svg
    }
}

/// A retention category's share in a summary.
type ShareOf = fn(&Summary) -> Share;

/// The retention categories: their names on the page, their shares in a summary and the
/// fewest facts that make a share a measure (evidence of one or two literals is too little to
/// judge, as the verdict treats it).
const CATEGORIES: [(&str, ShareOf, usize); 6] = [
    ("symbols", |s| s.retention.symbols, 1),
    ("tool calls", |s| s.retention.tool_calls, 1),
    ("printed lines", |s| s.retention.printed_lines, 1),
    ("latest error", |s| s.retention.error, 1),
    ("used next", |s| s.retention.used_next, 1),
    ("evidence", |s| s.retention.evidence, MIN_EVIDENCE),
];

/// A variant's share in a category, when there is something to measure: it rendered prompts
/// and the history held at least `fewest` facts of the kind.
fn measured(s: &Summary, share_of: ShareOf, fewest: usize) -> Option<Share> {
    let share = share_of(s);
    (s.prompts > 0 && share.total >= fewest && share.ratio().is_some()).then_some(share)
}

/// Retention as bars: per category, one bar per variant with its share written next to it. A
/// variant that failed says so; one with nothing to measure in a category (it rendered
/// nothing, or the history held too few facts of the kind) reads `n/a`, never 0%. A category
/// with nothing to measure for any variant is left out, and a note under the bars names it.
pub fn retention_bars(labels: &[String], colours: &[&str], summaries: &[Summary]) -> String {
    let mut out = String::from(
        r#"<figure class="retention"><figcaption>Retention: share of the history's facts visible in the prompts</figcaption>"#,
    );
    let mut left_out = Vec::new();
    for (name, share_of, fewest) in CATEGORIES {
        if summaries
            .iter()
            .all(|s| measured(s, share_of, fewest).is_none())
        {
            left_out.push(match fewest {
                1 => name.to_owned(),
                n => format!("{name} (fewer than {n} in the history)"),
            });
            continue;
        }
        let _ = write!(
            out,
            r#"<div class="category"><div class="category-name">{name}</div>"#
        );
        for (n, s) in summaries.iter().enumerate() {
            let colour = colours[n % colours.len()];
            let mut label = escape(&labels[n]);
            if s.failed > 0 {
                let _ = write!(label, " (failed on {})", s.failed);
            }
            let _ = write!(
                out,
                r#"<div class="bar-row"><span class="bar-label"><span class="swatch" style="background:{colour}"></span>{label}</span>"#
            );
            match measured(s, share_of, fewest) {
                _ if s.prompts == 0 => {
                    out.push_str(r#"<span class="bar-none">n/a: rendered nothing</span>"#);
                }
                None => out.push_str(r#"<span class="bar-none">n/a</span>"#),
                Some(share) => {
                    let _ = write!(
                        out,
                        r#"<span class="bar-track"><span class="bar-fill" style="width:{:.1}%;background:{colour}"></span></span><span class="bar-value">{}</span>"#,
                        share.ratio().unwrap_or(0.0) * 100.0,
                        percent(share)
                    );
                }
            }
            out.push_str("</div>");
        }
        out.push_str("</div>");
    }
    if !left_out.is_empty() {
        let _ = write!(
            out,
            r#"<p class="note">Not shown, nothing to measure on these recordings: {}.</p>"#,
            left_out.join(", ")
        );
    }
    out.push_str("</figure>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(max: f64, unit: Unit) -> Vec<String> {
        let ticks = nice_ticks(max, 5);
        let step = ticks[1];
        ticks.iter().map(|t| tick_label(*t, step, unit)).collect()
    }

    #[test]
    fn ticks_fall_on_round_values() {
        assert_eq!(labels(3194.0, Unit::Count), ["0", "1k", "2k", "3k", "4k"]);
        assert_eq!(
            labels(1847.0, Unit::Count),
            ["0", "500", "1k", "1.5k", "2k"]
        );
        assert_eq!(
            labels(87.0, Unit::Count),
            ["0", "20", "40", "60", "80", "100"]
        );
        assert_eq!(
            labels(0.39, Unit::Dollars),
            ["$0", "$0.10", "$0.20", "$0.30", "$0.40"]
        );
        assert_eq!(
            labels(1.33, Unit::Dollars),
            ["$0", "$0.50", "$1.00", "$1.50"]
        );
        assert_eq!(
            labels(0.0042, Unit::Dollars),
            ["$0", "$0.001", "$0.002", "$0.003", "$0.004", "$0.005"]
        );
        assert_eq!(
            labels(2.4e6, Unit::Count),
            ["0", "500k", "1M", "1.5M", "2M", "2.5M"]
        );
        // The last tick is at or above the maximum, and an exact maximum is the last tick.
        assert_eq!(nice_ticks(4.0, 4), [0.0, 1.0, 2.0, 3.0, 4.0]);
        // Nothing to show: one step, never a division by zero.
        assert_eq!(
            labels(0.0, Unit::Count),
            ["0", "0.2", "0.4", "0.6", "0.8", "1"]
        );
        assert_eq!(nice_ticks(f64::NAN, 5).len(), 6);
    }

    #[test]
    fn turns_are_labelled_at_round_steps() {
        assert_eq!(turn_ticks(4), [1, 2, 3, 4]);
        assert_eq!(turn_ticks(17), [1, 2, 4, 6, 8, 10, 12, 14, 16]);
        assert_eq!(
            turn_ticks(60),
            [1, 5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55, 60]
        );
        assert_eq!(turn_ticks(0), Vec::<usize>::new());
    }
}
