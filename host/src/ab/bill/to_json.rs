//! The comparison with the bill as JSON (`ptc bill --format json`): every run and call, the
//! sums, the profiles with their miss rates.

use serde_json::{json, Value as Json};

use super::report::{by_model, error_json, of_run, round, rule, Sums};
use super::{Bill, READ_TOLERANCE};

fn sums_json(sums: &Sums) -> Json {
    json!({
        "runs": sums.runs,
        "calls": sums.calls,
        "read_calls": sums.hits,
        "read_calls_within_tolerance": sums.close,
        "read_calls_shorter": sums.shorter,
        "read_calls_longer": sums.longer,
        "missed_calls": sums.missed,
        "counted_prompt_tokens": sums.counted,
        "billed_prompt_tokens": sums.billed_prompt,
        "billed_read": sums.billed_read,
        "simulated_read": sums.simulated_read,
        "billed_usd": round(sums.billed, 8),
        "billed_usd_stated": !sums.unstated,
        "best_case_usd": round(sums.best, 8),
        "best_case_error": error_json(sums.best, sums.billed),
        "with_misses_usd": round(sums.expected, 8),
        "with_misses_error": error_json(sums.expected, sums.billed),
        "rate_of_others_usd": round(sums.held_out, 8),
        "rate_of_others_error": error_json(sums.held_out, sums.billed),
    })
}

/// The comparison for programs: every call, each run's sums and the totals.
pub fn json(bill: &Bill) -> Json {
    let profiles: Vec<Json> = bill
        .profiles
        .iter()
        .map(|(pricing, info, fit)| {
            json!({
                "name": pricing.name,
                "rule": rule(pricing, info),
                "provider": info.provider,
                "models": info.models.iter().map(|(m, _)| m).collect::<Vec<_>>(),
                "source": info.source,
                "as_of": info.as_of,
                "miss_rate": {
                    "rate": round(fit.rate, 6),
                    "fitted": fit.fitted,
                    "predicted_reads": fit.predicted,
                    "missed": fit.missed,
                    "predicted_read_tokens": fit.predicted_tokens,
                    "billed_read_tokens": fit.read_tokens,
                },
            })
        })
        .collect();
    let (mut with_reads, mut without, mut all) =
        (Sums::default(), Sums::default(), Sums::default());
    let mut apart = Sums::default();
    let runs: Vec<Json> = bill
        .runs
        .iter()
        .map(|run| {
            let rate = bill.profiles[run.profile].2.rate;
            all.add(run, rate);
            if run.any_read() {
                with_reads.add_part(run, rate, false);
                apart.add_part(run, rate, true);
            } else {
                without.add(run, rate);
            }
            let calls: Vec<Json> = run
                .calls
                .iter()
                .map(|c| {
                    json!({
                        "turn": c.turn,
                        "at": c.at,
                        "counted_prompt_tokens": c.counted,
                        "billed_prompt_tokens": c.billed_prompt,
                        "billed_read": c.billed_read,
                        "billed_written": c.billed_written,
                        "output": c.output,
                        "billed_usd": c.billed_cost,
                        "priced_bill_usd": round(c.priced_bill, 10),
                        "simulated_read": c.simulated_read,
                        "simulated_written": c.simulated_written,
                        "read_within_tolerance": c.read_close(),
                        "best_case_usd": round(c.best_cost, 10),
                        "miss_usd": round(c.miss_cost, 10),
                        "with_misses_usd": round(c.expected_cost(rate), 10),
                        "apart": c.apart,
                    })
                })
                .collect();
            let mut run_json = sums_json(&of_run(run, rate, false));
            let object = run_json.as_object_mut().expect("an object");
            object.remove("runs");
            object.insert(
                "recording".into(),
                json!(run.recording.display().to_string()),
            );
            object.insert("profile".into(), json!(bill.profiles[run.profile].0.name));
            object.insert("provider".into(), json!(run.provider));
            object.insert("model".into(), json!(run.model));
            object.insert("any_read".into(), json!(run.any_read()));
            object.insert("skipped_turns".into(), json!(run.skipped));
            let stretches: Vec<Json> = run
                .stretches()
                .into_iter()
                .map(|(first, last, calls)| json!({"first_turn": first, "last_turn": last, "calls": calls}))
                .collect();
            object.insert("stretches_apart".into(), json!(stretches));
            if let Some(prefix) = run.rebuilt {
                object.insert("rebuilt".into(), json!(true));
                object.insert("inferred_prefix_tokens".into(), json!(prefix));
            }
            object.insert(
                "rate_of_others".into(),
                json!(run.held_out_rate.map(|r| round(r, 6))),
            );
            object.insert("per_call".into(), json!(calls));
            run_json
        })
        .collect();
    let tokens: Vec<Json> = by_model(bill)
        .into_iter()
        .map(|(model, counted, billed, calls)| {
            json!({
                "model": model,
                "calls": calls,
                "counted": counted,
                "billed": billed,
                "ratio": if billed == 0 { Json::Null } else { json!(round(counted as f64 / billed as f64, 4)) },
            })
        })
        .collect();
    json!({
        "tokenizer": bill.tokenizer.name(),
        "read_tolerance": READ_TOLERANCE,
        "shared_cache": bill.shared_cache,
        "time_ordered": bill.time_ordered,
        "profiles": profiles,
        "runs": runs,
        "totals": {
            "runs_with_a_read": sums_json(&with_reads),
            "runs_without_a_read": sums_json(&without),
            "stretches_apart": sums_json(&apart),
            "every_run": sums_json(&all),
        },
        "tokens": tokens,
        "not_compared": bill.without_bill.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
    })
}
