//! The results of `ptc ab` as CSV: one row per prompt, with its tokens, cache and cost under
//! every pricing profile, retention and render time.

use std::io::Write;

use crate::ab::spool::Spool;
use crate::ab::{Ab, RunDetail, Variant};
use crate::pricing::Pricing;
use crate::Error;

/// `text` as a CSV field, quoted (RFC 4180) when it holds a separator, a quote or a line break
/// (a CR alone breaks a row too).
fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_owned()
    }
}

/// One row per prompt, from the rows `ab` kept.
#[cfg(test)]
pub fn csv(ab: &Ab) -> String {
    let mut out = header(&ab.pricing);
    for run in &ab.runs {
        out.push_str(&rows(&ab.variants, run));
    }
    out
}

/// [`csv`] with the rows copied from `rows` (made by [`rows`], in order) instead of taken from
/// `ab`: no row is held.
pub fn write_csv(ab: &Ab, rows: &mut Spool, out: &mut dyn Write) -> Result<(), Error> {
    out.write_all(header(&ab.pricing).as_bytes())
        .map_err(Error::Output)?;
    rows.copy_to(out)?;
    out.flush().map_err(Error::Output)
}

/// The first line: the names of the columns.
fn header(pricing: &[Pricing]) -> String {
    let mut out = String::from("recording,strategy,turns,tokens,shared");
    for p in pricing {
        out.push_str(&format!(",read_{0},written_{0},plain_{0},cost_{0}", p.name));
    }
    for cat in [
        "symbols",
        "tool_calls",
        "printed_lines",
        "error",
        "used_next",
        "evidence",
        "cited_actions",
    ] {
        out.push_str(&format!(",{cat}_visible,{cat}_total"));
    }
    out.push_str(",render_us\n");
    out
}

/// The lines of one recording through one variant: one per prompt.
pub fn rows(variants: &[Variant], run: &RunDetail) -> String {
    let mut out = String::new();
    for p in &run.prompts {
        out.push_str(&format!(
            "{},{},{},{},{}",
            csv_field(&run.recording.display().to_string()),
            csv_field(&variants[run.variant].label),
            p.turns,
            p.tokens,
            p.shared
        ));
        for c in &p.costs {
            out.push_str(&format!(
                ",{},{},{},{:.8}",
                c.read, c.written, c.plain, c.cost
            ));
        }
        let r = &p.retention;
        for s in [
            r.symbols,
            r.tool_calls,
            r.printed_lines,
            r.error,
            r.used_next,
            r.evidence,
            r.cited_actions,
        ] {
            out.push_str(&format!(",{},{}", s.visible, s.total));
        }
        out.push_str(&format!(",{:.3}\n", p.render_ns as f64 / 1000.0));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::csv_field;

    #[test]
    fn a_field_with_a_carriage_return_or_a_line_feed_is_quoted() {
        assert_eq!(csv_field("runs/a\rb.json"), "\"runs/a\rb.json\"");
        assert_eq!(csv_field("runs/a\nb.json"), "\"runs/a\nb.json\"");
        assert_eq!(csv_field("plain.json"), "plain.json");
    }
}
