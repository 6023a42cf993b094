//! The results of `ptc ab` as JSON: the settings, a summary per strategy and every per-turn
//! series.

use std::io::Write;

use serde_json::{json, Value as Json};

use super::{verdict, vs_base};
use crate::ab::retention::{Retention, Share};
use crate::ab::spool::Spool;
use crate::ab::{Ab, RunDetail, Variant};
use crate::pricing::Pricing;
use crate::tokens::Counting;
use crate::Error;

fn retention_json(r: &Retention) -> Json {
    let share = |s: Share| json!({"visible": s.visible, "total": s.total, "ratio": s.ratio()});
    json!({
        "symbols": share(r.symbols),
        "tool_calls": share(r.tool_calls),
        "printed_lines": share(r.printed_lines),
        "error": share(r.error),
        "used_next": share(r.used_next),
        "evidence": share(r.evidence),
        "cited_actions": share(r.cited_actions),
    })
}

/// Each measure's share kept (`null` with nothing to retain), by its key.
fn retention_ratios(r: &Retention) -> Json {
    r.shares()
        .iter()
        .map(|(key, share)| ((*key).to_owned(), json!(share.ratio())))
        .collect::<serde_json::Map<String, Json>>()
        .into()
}

/// One element of `runs`: the prompts of one recording through one variant.
fn run_json(variants: &[Variant], pricing: &[Pricing], run: &RunDetail) -> Json {
    json!({
        "recording": run.recording.display().to_string(),
        "strategy": variants[run.variant].label,
        "error": run.error,
        "prompts": run.prompts.iter().map(|p| json!({
            "turns": p.turns,
            "tokens": p.tokens,
            "shared": p.shared,
            "cost": pricing.iter().zip(&p.costs).map(|(pr, c)| {
                let mut cost = json!({
                    "read": c.read, "written": c.written, "plain": c.plain, "cost": c.cost,
                });
                if let Some(calls) = calls_json(c.call_read, c.call_written, c.call_plain, c.output) {
                    cost["model_calls"] = calls;
                }
                (pr.name.clone(), cost)
            }).collect::<serde_json::Map<String, Json>>(),
            "retention": retention_json(&p.retention),
            "render_us": p.render_ns as f64 / 1000.0,
        })).collect::<Vec<_>>(),
    })
}

/// The tokens of the model calls a strategy made besides its prompts (a compaction's
/// summarizer), when it made any: their input by how the cache billed it, their output.
fn calls_json(read: usize, written: usize, plain: usize, output: usize) -> Option<Json> {
    (read + written + plain + output > 0)
        .then(|| json!({"read": read, "written": written, "plain": plain, "output": output}))
}

/// Indentation of an element of `runs` in the pretty-printed document.
const RUN_INDENT: &str = "\n    ";

/// [`run_json`] as [`write_json`] takes it from a spool: pretty-printed for its place in
/// `runs`, after the separator from the element before it (none before the first).
pub fn run_text(variants: &[Variant], pricing: &[Pricing], run: &RunDetail, first: bool) -> String {
    let text =
        serde_json::to_string_pretty(&run_json(variants, pricing, run)).expect("a run serializes");
    let separator = if first { RUN_INDENT } else { ",\n    " };
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    out.push_str(separator);
    // Strings are escaped: every line break in the text is between two of its lines.
    out.push_str(&text.replace('\n', RUN_INDENT));
    out
}

/// The document [`json`] makes, pretty-printed and followed by a line break as
/// [`crate::output::pretty`] writes it, with the elements of `runs` copied from `rows` (made by
/// [`run_text`], in order) instead of taken from `ab`: no row is held.
pub fn write_json(ab: &Ab, rows: &mut Spool, out: &mut dyn Write) -> Result<(), Error> {
    let Json::Object(document) = json(ab) else {
        unreachable!("the document is an object")
    };
    let put =
        |out: &mut dyn Write, text: &str| out.write_all(text.as_bytes()).map_err(Error::Output);
    put(out, "{\n")?;
    for (i, (key, value)) in document.iter().enumerate() {
        if i > 0 {
            put(out, ",\n")?;
        }
        put(out, &format!("  {}: ", Json::from(key.as_str())))?;
        if key == "runs" && !rows.is_empty() {
            put(out, "[")?;
            rows.copy_to(out)?;
            put(out, "\n  ]")?;
        } else {
            let text = serde_json::to_string_pretty(value).expect("JSON output serializes");
            put(out, &text.replace('\n', "\n  "))?;
        }
    }
    put(out, "\n}\n")?;
    out.flush().map_err(Error::Output)
}

/// Everything: settings, summaries and the per-turn series.
pub fn json(ab: &Ab) -> Json {
    let summaries = ab.summaries();
    let strategies: Vec<Json> = ab
        .variants
        .iter()
        .zip(summaries)
        .enumerate()
        .map(|(index, (v, s))| {
            // Its ratios and requirements: on the recordings it is judged on, against the
            // baseline on the same ones.
            let judged = &ab.judged()[index];
            let (j, on) = (&judged.summary, &judged.baseline);
            let cost: serde_json::Map<String, Json> = ab
                .pricing
                .iter()
                .zip(&s.costs)
                .map(|(p, c)| (p.name.clone(), json!(c)))
                .collect();
            let cache: serde_json::Map<String, Json> = ab
                .pricing
                .iter()
                .zip(&s.cache)
                .map(|(p, c)| {
                    let mut tokens = json!({
                        "read": c.read,
                        "written": c.written,
                        "plain": c.plain,
                        "read_share": c.read_share(),
                    });
                    if let Some(calls) =
                        calls_json(c.call_read, c.call_written, c.call_plain, c.output)
                    {
                        tokens["model_calls"] = calls;
                    }
                    (p.name.clone(), tokens)
                })
                .collect();
            let vs: serde_json::Map<String, Json> = ab
                .pricing
                .iter()
                .enumerate()
                .map(|(i, p)| (p.name.clone(), json!(vs_base(j, j.costs[i], on.costs[i]))))
                .collect();
            json!({
                "label": v.label,
                "strategy": v.strategy,
                "prompts": s.prompts,
                "tokens": s.tokens,
                "mean_tokens": s.mean_tokens(),
                "max_tokens": s.max_tokens,
                "tokens_vs_baseline": vs_base(j, j.tokens as f64, on.tokens as f64),
                "cached_share": s.cached_share(),
                "cost": cost,
                "cache": cache,
                "cost_vs_baseline": vs,
                "retention": retention_json(&s.retention),
                "render_us_mean": s.mean_render_us(),
                "failed": s.failed,
                "first_error": s.first_error,
                "not_judged": ab.unjudged.get(index).cloned().flatten(),
                "judged_recordings": judged.recordings,
                "unmet_requirements": verdict::dropped(j, &ab.requirements).iter().map(|d| json!({
                    "measure": d.category,
                    "at_least": d.required,
                    "kept": d.kept,
                })).collect::<Vec<_>>(),
                "dropped_actions": ab.dropped_actions(index),
            })
        })
        .collect();
    let runs: Vec<Json> = ab
        .runs
        .iter()
        .map(|run| run_json(&ab.variants, &ab.pricing, run))
        .collect();
    let mut out = json!({
        "tokenizer": ab.tokenizer.name(),
        "counting": Counting::of(ab.pricing[ab.primary_pricing].caching).as_str(),
        "baseline": ab.variants[ab.baseline].label,
        "cited_runs": ab.cited_runs(),
        "pricing": ab.pricing.iter().map(|p| (p, json!({
            "name": p.name,
            "input_per_mtok": p.input_per_mtok,
            "cache_read_per_mtok": p.cache_read_per_mtok,
            "cache_write_per_mtok": p.cache_write_per_mtok,
            "cache_write_1h_per_mtok": p.cache_write_1h_per_mtok,
            "min_cacheable_tokens": p.min_cacheable_tokens,
            "cache_step_tokens": p.cache_step_tokens,
            "caching": p.caching.as_str(),
            "cache_ttl": p.ttl.as_str(),
            "breakpoints": p.placement.as_str(),
        }))).map(|(p, mut said)| {
            // Only a profile with price tiers says them.
            if !p.tiers.is_empty() {
                said["tiers"] = json!(p.tiers);
            }
            said
        }).collect::<Vec<_>>(),
        "primary_pricing": ab.pricing[ab.primary_pricing].name,
        "requirements": ab.requirements.0.iter().map(|r| json!({
            "measure": r.measure.key(),
            "at_least": r.percent / 100.0,
        })).collect::<Vec<_>>(),
        "verdict": verdict::verdicts(ab).iter().map(|v| {
            let mut said = json!({
            "provider": v.provider,
            "strategy": ab.variants[v.variant].label,
            "pricing": ab.pricing[v.profile].name,
            "breakpoints": ab.pricing[v.profile].placement.as_str(),
            "cost_vs_baseline": v.vs_baseline,
            "cost_vs_baseline_no_hits": v.no_hits,
            "best_case": v.no_hits.is_some(),
            "meets_requirements": v.meets,
            "drops": verdict::dropped(&summaries[v.variant], &ab.requirements).iter().map(|d| d.category).collect::<Vec<_>>(),
            "retention": retention_ratios(&summaries[v.variant].retention),
            "text": verdict::line(ab, v),
            });
            // Only a verdict a price tier decided names the one without tiers.
            if let Some((variant, profile)) = v.untiered {
                said["without_tiers"] = json!({
                    "strategy": ab.variants[variant].label,
                    "pricing": ab.pricing[profile].name,
                });
            }
            said
        }).collect::<Vec<_>>(),
        "strategies": strategies,
        "runs": runs,
    });
    // Only a corpus with rebuilt runs says so: the runs, each with its inferred prefix.
    if !ab.rebuilt.is_empty() {
        out["rebuilt"] = json!(ab.rebuilt);
    }
    // Only a run asked for planned breakpoints says how much of the bill is placement.
    if let Some(placement) = super::placement::json(ab) {
        out["placement"] = placement;
    }
    // Only a corpus billed by several profiles, priced run by run, says how.
    if let Some(by_run) = &ab.by_run {
        out["priced_by_run"] = json!(by_run);
    }
    out
}
