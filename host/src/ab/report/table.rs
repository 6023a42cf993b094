//! The results of `ptc ab` as aligned columns for a terminal, or as markdown tables. Both
//! start with a column of marks (the baseline, the verdict) that a line under the table
//! explains; the retention columns stand under one heading.

use std::fmt::Write;

use super::{intro, pricing_table, summary_table, Table};
use crate::ab::{Ab, Summary};

fn aligned(table: &Table) -> String {
    let mut header = vec![String::new()];
    header.extend(table.header.iter().cloned());
    let rows: Vec<Vec<String>> = table
        .rows
        .iter()
        .map(|row| {
            let mut cells = vec![row.mark.clone()];
            cells.extend(row.cells.iter().cloned());
            cells
        })
        .collect();
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in &rows {
        for (w, c) in widths.iter_mut().zip(row) {
            *w = (*w).max(c.chars().count());
        }
    }
    // The mark and the strategy are left-aligned, the figures right-aligned.
    let line = |cells: &[String]| {
        let mut out = String::new();
        for (i, (c, w)) in cells.iter().zip(&widths).enumerate() {
            let gap = if i == 0 { "" } else { "  " };
            if i < 2 {
                let _ = write!(out, "{gap}{c:<w$}");
            } else {
                let _ = write!(out, "{gap}{c:>w$}");
            }
        }
        out.trim_end().to_owned() + "\n"
    };
    let mut out = String::new();
    if let Some((columns, title)) = &table.group {
        // Column i starts after the columns before it and a gap of two before each; the
        // column of marks comes first.
        let start_of = |i: usize| widths[..i].iter().sum::<usize>() + 2 * i;
        let (first, last) = (columns.start + 1, columns.end);
        let start = start_of(first);
        let end = start_of(last) + widths[last];
        let span = end - start;
        let title = format!(" {title} ");
        let dashes = span.saturating_sub(title.chars().count());
        let _ = writeln!(
            out,
            "{}{}{title}{}",
            " ".repeat(start),
            "-".repeat(dashes / 2),
            "-".repeat(dashes - dashes / 2)
        );
    }
    out.push_str(&line(&header));
    for row in &rows {
        out.push_str(&line(row));
    }
    for line in &table.legend {
        let _ = writeln!(out, "{line}");
    }
    out
}

fn markdown(table: &Table) -> String {
    let header: Vec<String> = table
        .header
        .iter()
        .enumerate()
        .map(|(i, h)| match &table.group {
            Some((columns, title)) if columns.contains(&i) => format!("{title} {h}"),
            _ => h.clone(),
        })
        .collect();
    let mut out = format!("|  | {} |\n", header.join(" | "));
    out.push_str("|---|");
    for i in 0..header.len() {
        out.push_str(if i == 0 { "---|" } else { "---:|" });
    }
    out.push('\n');
    for row in &table.rows {
        let _ = writeln!(out, "| {} | {} |", row.mark, row.cells.join(" | "));
    }
    if !table.legend.is_empty() {
        // One paragraph, a line break after each line but the last.
        let _ = write!(out, "\n{}\n", table.legend.join("  \n"));
    }
    out
}

/// The terminal table.
pub fn table(ab: &Ab) -> String {
    let summaries = ab.summaries();
    let mut out = intro(ab, summaries) + "\n\n";
    out.push_str(&aligned(&summary_table(ab, summaries)));
    out.push_str("\nvs baseline: tokens, and cost under each pricing profile\n");
    out.push_str(&aligned(&pricing_table(ab)));
    out.push_str(&time_note(ab));
    out.push_str(&super::verdict::section(ab));
    out.push_str(&failures(ab, summaries));
    out
}

/// Whether time between calls was modelled: a line under the cost table.
fn time_note(ab: &Ab) -> String {
    let read = ab.recordings();
    match ab.timed_recordings {
        None => String::new(),
        Some(0) => "time between calls: not modelled (no recording carries the time of its calls: each call is taken to follow the one before within every TTL; `--pricing anthropic@cache_ttl=1h` prices the 1-hour writes)\n".to_owned(),
        Some(timed) => format!(
            "time between calls: modelled on {timed} of {read} recording(s) (a cache entry expires after its profile's TTL, `ptc pricing`; compare TTLs with `--pricing anthropic@cache_ttl=1h`)\n"
        ),
    }
}

/// The same as markdown tables.
pub fn markdown_tables(ab: &Ab) -> String {
    let summaries = ab.summaries();
    let mut out = format!("{}\n\n", intro(ab, summaries));
    out.push_str(&markdown(&summary_table(ab, summaries)));
    out.push_str("\nvs baseline: tokens, and cost under each pricing profile\n\n");
    out.push_str(&markdown(&pricing_table(ab)));
    out.push_str(&time_note(ab));
    out.push_str(&super::verdict::section(ab));
    out.push_str(&failures(ab, summaries));
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
