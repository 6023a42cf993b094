//! The results of `ptc ab` as CSV: one row per prompt, with its tokens, cache and cost under
//! every pricing profile, retention and render time.

use crate::ab::Ab;

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
        out.push_str(&format!(",read_{0},written_{0},plain_{0},cost_{0}", p.name));
    }
    for cat in [
        "symbols",
        "tool_calls",
        "printed_lines",
        "error",
        "used_next",
    ] {
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
            ] {
                out.push_str(&format!(",{},{}", s.visible, s.total));
            }
            out.push_str(&format!(",{:.3}\n", p.render_ns as f64 / 1000.0));
        }
    }
    out
}
