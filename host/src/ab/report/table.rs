//! The results of `ptc ab` as aligned columns for a terminal, or as markdown tables. Both
//! start with a column of marks (the baseline, the verdict) that a line under the table
//! explains; the retention columns stand under one heading.

use std::fmt::Write;

use super::{intro, pricing_view, summary_view, Table, View};
use crate::ab::{Ab, Summary};
use crate::cache::Ttl;

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

/// The terminal table, as `view` says.
pub fn table(ab: &Ab, view: &View) -> String {
    let summaries = ab.summaries();
    let mut out = intro(ab, summaries) + "\n\n";
    out.push_str(&aligned(&summary_view(ab, summaries, view)));
    out.push_str(&pricing_heading(ab, view));
    out.push_str(&aligned(&pricing_view(ab, view)));
    for (heading, table) in super::placement::tables(ab) {
        out.push_str(&wrap(&heading, 100));
        out.push_str(&wrap(&aligned(&table), 100));
    }
    out.push_str(&time_note(ab, view));
    out.push_str(&super::verdict_section::section(ab, view, false));
    out.push_str(&failures(ab, summaries));
    out
}

/// The line above the against-the-baseline table: which profiles it shows.
fn pricing_heading(ab: &Ab, view: &View) -> String {
    let shown = (0..ab.pricing.len())
        .filter(|&p| view.shows_profile(ab, p))
        .count();
    match shown == ab.pricing.len() {
        true => "\nvs baseline: tokens, and cost under each pricing profile\n".to_owned(),
        false => format!(
            "\nvs baseline: tokens, and cost under {shown} of the {} pricing profiles (--wide: every one)\n",
            ab.pricing.len()
        ),
    }
}

/// `text` with every line longer than `width` characters broken at spaces, each line it
/// continues indented two more than it; a word longer than a line stays whole.
pub fn wrap(text: &str, width: usize) -> String {
    let mut out = String::new();
    for line in text.split_inclusive('\n') {
        let (body, end) = match line.strip_suffix('\n') {
            Some(body) => (body, "\n"),
            None => (line, ""),
        };
        if body.chars().count() <= width {
            out.push_str(line);
            continue;
        }
        let indent = body.len() - body.trim_start().len();
        let mut current = body[..indent].to_owned();
        let mut empty = true;
        for word in body[indent..].split(' ') {
            let needed = current.chars().count() + usize::from(!empty) + word.chars().count();
            if !empty && needed > width {
                out.push_str(current.trim_end());
                out.push('\n');
                current = " ".repeat(indent + 2);
                empty = true;
            }
            if !empty {
                current.push(' ');
            }
            current.push_str(word);
            empty = false;
        }
        out.push_str(current.trim_end());
        out.push_str(end);
    }
    out
}

/// Whether time between calls was modelled: a line under the cost table. It names a way to
/// compare TTLs only with a profile shown whose TTL is 5 minutes (one a request may lengthen).
fn time_note(ab: &Ab, view: &View) -> String {
    let read = ab.recordings();
    let by_run = ab.by_run.as_ref().map(|b| b.note()).unwrap_or_default();
    let longer = (0..ab.pricing.len())
        .filter(|&p| view.shows_profile(ab, p))
        .map(|p| &ab.pricing[p])
        .find(|p| p.ttl == Ttl::FiveMinutes && !p.name.contains("cache_ttl=") && !p.in_hindsight())
        .map(|p| p.name.as_str());
    by_run
        + &match (ab.timed_recordings, longer) {
            (None, _) => String::new(),
            (Some(0), Some(name)) => format!("time between calls: not modelled (no recording carries the time of its calls: each call is taken to follow the one before within every TTL; `--pricing {name}@cache_ttl=1h` prices a 1-hour TTL)\n"),
            (Some(0), None) => "time between calls: not modelled (no recording carries the time of its calls: each call is taken to follow the one before within every TTL)\n".to_owned(),
            (Some(timed), Some(name)) => format!(
                "time between calls: modelled on {timed} of {read} recording(s) (a cache entry expires after its profile's TTL, `ptc pricing`; compare TTLs with `--pricing {name}@cache_ttl=1h`)\n"
            ),
            (Some(timed), None) => format!(
                "time between calls: modelled on {timed} of {read} recording(s) (a cache entry expires after its profile's TTL, `ptc pricing`)\n"
            ),
        }
}

/// The same as markdown tables.
pub fn markdown_tables(ab: &Ab, view: &View) -> String {
    let summaries = ab.summaries();
    let mut out = format!("{}\n\n", intro(ab, summaries));
    out.push_str(&markdown(&summary_view(ab, summaries, view)));
    out.push_str(&pricing_heading(ab, view));
    out.push('\n');
    out.push_str(&markdown(&pricing_view(ab, view)));
    for (heading, table) in super::placement::tables(ab) {
        out.push_str(&heading);
        out.push('\n');
        out.push_str(&markdown(&table));
    }
    out.push_str(&time_note(ab, view));
    out.push_str(&super::verdict_section::section(ab, view, true));
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
