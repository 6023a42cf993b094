//! The results of `ptc ab` as aligned columns for a terminal, or as markdown tables.

use std::fmt::Write;

use super::{intro, pricing_rows, strings, summary_rows, Row};
use crate::ab::{Ab, Summary};

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

/// The terminal table.
pub fn table(ab: &Ab) -> String {
    let summaries = ab.summaries();
    let (h1, r1) = summary_rows(ab, summaries);
    let (h2, r2) = pricing_rows(ab, summaries);
    let mut out = intro(ab, summaries) + "\n\n";
    out.push_str(&aligned(&strings(h1), &r1));
    out.push_str("\nvs baseline: tokens, and cost under each pricing profile\n");
    out.push_str(&aligned(&h2, &r2));
    out.push_str(&super::verdict::section(ab, summaries));
    out.push_str(&failures(ab, summaries));
    out
}

/// The same as markdown tables.
pub fn markdown_tables(ab: &Ab) -> String {
    let summaries = ab.summaries();
    let (h1, r1) = summary_rows(ab, summaries);
    let (h2, r2) = pricing_rows(ab, summaries);
    let mut out = format!("{}\n\n", intro(ab, summaries));
    out.push_str(&markdown(&strings(h1), &r1));
    out.push_str("\nvs baseline: tokens, and cost under each pricing profile\n\n");
    out.push_str(&markdown(&h2, &r2));
    out.push_str(&super::verdict::section(ab, summaries));
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
