//! The comparison with the bill as a table for people, and the sums both it and the JSON
//! (`to_json`) give.

use std::fmt::Write as _;

use serde_json::{json, Value as Json};

use crate::ab::bill::{Bill, Call, MissFit, RunBill, READ_TOLERANCE, STRETCH_CALLS};
use crate::cache::Caching;
use crate::pricing::{Pricing, ProfileInfo};

/// Sums of some runs' calls.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct Sums {
    pub(super) runs: usize,
    pub(super) calls: usize,
    /// Calls that read from the cache, as billed.
    pub(super) hits: usize,
    /// Of those, the calls whose simulated read is within the tolerance.
    pub(super) close: usize,
    /// Of the others, those that read less than the simulation (a shorter, older prefix:
    /// a partial miss) and those that read more (a prefix no earlier request of the run sent).
    pub(super) shorter: usize,
    pub(super) longer: usize,
    /// Calls that read nothing where the simulation reads (the misses of the miss rate).
    pub(super) missed: usize,
    pub(super) counted: u64,
    pub(super) billed_prompt: u64,
    pub(super) billed_read: u64,
    pub(super) simulated_read: u64,
    /// The stated cost, or the billed tokens priced by the profile where a call states none.
    pub(super) billed: f64,
    /// Whether some call stated no cost (its billed tokens are priced instead).
    pub(super) unstated: bool,
    pub(super) best: f64,
    pub(super) expected: f64,
    /// With the rate fitted on the other runs (the expected cost where there is none).
    pub(super) held_out: f64,
}

impl Sums {
    /// Every call of `run`.
    pub(super) fn add(&mut self, run: &RunBill, miss_rate: f64) {
        self.runs += 1;
        for call in &run.calls {
            self.add_call(call, miss_rate);
            self.held_out += call.expected_cost(run.held_out_rate.unwrap_or(miss_rate));
        }
    }

    /// The calls of `run` in its stretches that read nothing (`apart`), or the others; the
    /// run is counted when it has some.
    pub(super) fn add_part(&mut self, run: &RunBill, miss_rate: f64, apart: bool) {
        let mut any = false;
        for call in run.calls.iter().filter(|c| c.apart == apart) {
            any = true;
            self.add_call(call, miss_rate);
            self.held_out += call.expected_cost(run.held_out_rate.unwrap_or(miss_rate));
        }
        self.runs += usize::from(any);
    }

    fn add_call(&mut self, call: &Call, miss_rate: f64) {
        self.calls += 1;
        if call.billed_read > 0 {
            self.hits += 1;
            self.close += usize::from(call.read_close());
            if !call.read_close() {
                if call.billed_read < call.simulated_read {
                    self.shorter += 1;
                } else {
                    self.longer += 1;
                }
            }
        } else if call.simulated_read > 0 {
            self.missed += 1;
        }
        self.counted += call.counted;
        self.billed_prompt += call.billed_prompt;
        self.billed_read += call.billed_read;
        self.simulated_read += call.simulated_read;
        match call.billed_cost {
            Some(cost) => self.billed += cost,
            None => {
                self.billed += call.priced_bill;
                self.unstated = true;
            }
        }
        self.best += call.best_cost;
        self.expected += call.expected_cost(miss_rate);
    }
}

/// A run's calls outside its stretches that read nothing (`apart`: those in them).
pub(super) fn of_run(run: &RunBill, miss_rate: f64, apart: bool) -> Sums {
    let mut sums = Sums::default();
    sums.add_part(run, miss_rate, apart);
    sums.runs = 1;
    sums
}

/// `(a - b) / b` as a signed percentage, or `-` when `b` is 0.
pub(super) fn error(simulated: f64, billed: f64) -> String {
    if billed == 0.0 {
        "-".into()
    } else {
        format!("{:+.1}%", (simulated - billed) / billed * 100.0)
    }
}

pub(super) fn error_json(simulated: f64, billed: f64) -> Json {
    if billed == 0.0 {
        Json::Null
    } else {
        json!(round((simulated - billed) / billed, 4))
    }
}

pub(super) fn round(x: f64, places: i32) -> f64 {
    let p = 10f64.powi(places);
    (x * p).round() / p
}

/// `12,345`.
pub(super) fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// One line on a profile's rule and prices.
pub(super) fn rule(pricing: &Pricing, info: &ProfileInfo) -> String {
    let caching = match pricing.caching {
        _ if pricing.min_cacheable_tokens == 0 => "no caching".to_owned(),
        Caching::Implicit => format!(
            "implicit caching from {} tokens in steps of {}",
            pricing.min_cacheable_tokens,
            pricing.cache_step_tokens.max(1)
        ),
        Caching::PrefixUnits => format!(
            "prefix units from {} tokens in steps of {}",
            pricing.min_cacheable_tokens,
            pricing.cache_step_tokens.max(1)
        ),
        Caching::Explicit | Caching::OpenAiBreakpoints | Caching::GeminiExplicit => format!(
            "{} caching from {} tokens, {} TTL, the breakpoint where automatic caching puts it",
            pricing.caching.as_str(),
            pricing.min_cacheable_tokens,
            pricing.ttl.as_str()
        ),
    };
    let mut line = format!(
        "{}: {caching}; $ per Mtok: input {}, cache read {}, output {}",
        pricing.name, pricing.input_per_mtok, pricing.cache_read_per_mtok, info.output_per_mtok
    );
    if pricing.caching.has_breakpoints() {
        let _ = write!(line, ", cache write {}", pricing.cache_write_per_mtok);
    }
    if let Some(source) = &info.source {
        let _ = write!(line, " ({source}");
        if let Some(date) = &info.as_of {
            let _ = write!(line, ", as of {date}");
        }
        line.push(')');
    }
    line
}

pub(super) fn miss_line(fit: &MissFit) -> String {
    let read = if fit.predicted_tokens == 0 {
        "no call the best case has reading".to_owned()
    } else {
        format!(
            "the bill read {:.1}% of the {} tokens the best case reads ({} of its {} reading calls read nothing)",
            100.0 * fit.read_tokens as f64 / fit.predicted_tokens as f64,
            thousands(fit.predicted_tokens),
            fit.missed,
            fit.predicted
        )
    };
    if fit.fitted {
        format!(
            "miss rate {:.3}, fitted: {read}, on the runs with a cache read",
            fit.rate
        )
    } else {
        format!("miss rate {:.3}, given (here {read})", fit.rate)
    }
}

pub(super) fn name(run: &RunBill) -> String {
    let path = run.recording.display().to_string();
    crate::output::escape_controls(&path).into_owned()
}

/// What heads [`table`]: the runs and calls compared, and each profile's rule and miss rate.
pub fn heading(bill: &Bill) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Simulated against the bill: {} run(s), {} billed call(s); the best case reads every prefix the rule allows ({})",
        bill.compared.runs,
        bill.compared.calls,
        if bill.shared_cache {
            if bill.time_ordered {
                "one cache per profile, shared by its runs in the order the calls were sent"
            } else {
                "one cache per profile, shared by its runs in corpus order (not every call has a time)"
            }
        } else {
            "one cache per run"
        }
    );
    for (pricing, info, fit) in &bill.profiles {
        let _ = writeln!(out, "  {}", rule(pricing, info));
        let _ = writeln!(out, "    {}", miss_line(fit));
    }
    out
}

/// The names of the profiles that price the runs as billed.
pub fn billed_profiles(bill: &Bill) -> Vec<String> {
    bill.profiles
        .iter()
        .map(|(p, _, _)| p.name.clone())
        .collect()
}

/// The comparison for people: the [`heading`], then a row per run and the sums.
pub fn table(bill: &Bill) -> String {
    let mut out = heading(bill);
    out.push('\n');
    let width = bill
        .runs
        .iter()
        .map(|r| name(r).chars().count())
        .chain([26])
        .max()
        .unwrap_or(26);
    let _ = writeln!(
        out,
        "{:<width$}  {:>5}  {:>11}  {:>11}  {:>14}  {:>10}  {:>18}  {:>18}  {:>18}",
        "run",
        "calls",
        "read calls",
        "billed read",
        "simulated read",
        "billed $",
        "best case $",
        "with misses $",
        "rate of others $"
    );
    let line = |out: &mut String, label: &str, sums: &Sums, no_read: bool| {
        let close = if no_read {
            "none".to_owned()
        } else {
            format!("{}/{}", sums.close, sums.hits)
        };
        let _ = writeln!(
            out,
            "{:<width$}  {:>5}  {:>11}  {:>11}  {:>14}  {:>10}  {:>18}  {:>18}  {:>18}",
            label,
            sums.calls,
            close,
            thousands(sums.billed_read),
            thousands(sums.simulated_read),
            format!("{:.4}{}", sums.billed, if sums.unstated { "*" } else { "" }),
            format!("{:.4} {}", sums.best, error(sums.best, sums.billed)),
            format!("{:.4} {}", sums.expected, error(sums.expected, sums.billed)),
            format!("{:.4} {}", sums.held_out, error(sums.held_out, sums.billed)),
        );
    };
    let (mut with_reads, mut without, mut all) =
        (Sums::default(), Sums::default(), Sums::default());
    let mut apart = Sums::default();
    for run in &bill.runs {
        let rate = bill.profiles[run.profile].2.rate;
        line(
            &mut out,
            &name(run),
            &of_run(run, rate, false),
            !run.any_read(),
        );
        for (first, last, _) in run.stretches() {
            let mut sums = Sums::default();
            for call in run
                .calls
                .iter()
                .filter(|c| (first..=last).contains(&c.turn))
            {
                sums.add_call(call, rate);
                sums.held_out += call.expected_cost(run.held_out_rate.unwrap_or(rate));
            }
            line(
                &mut out,
                &format!("  turns {first}-{last} apart"),
                &sums,
                true,
            );
        }
        all.add(run, rate);
        if run.any_read() {
            with_reads.add_part(run, rate, false);
            apart.add_part(run, rate, true);
        } else {
            without.add(run, rate);
        }
    }
    out.push('\n');
    if with_reads.runs > 0 {
        line(
            &mut out,
            &format!("runs with a cache read ({})", with_reads.runs),
            &with_reads,
            false,
        );
    }
    if apart.runs > 0 {
        line(
            &mut out,
            &format!("stretches apart, in {} run(s)", apart.runs),
            &apart,
            true,
        );
    }
    if without.runs > 0 {
        line(
            &mut out,
            &format!("runs that read nothing ({})", without.runs),
            &without,
            true,
        );
    }
    line(&mut out, &format!("every run ({})", all.runs), &all, false);
    out.push('\n');
    if with_reads.hits > with_reads.close || with_reads.missed > 0 {
        let _ = writeln!(
            out,
            "Where the bill differs from the best case, on the runs with a cache read: {} of the {} read calls read less than it by more than {READ_TOLERANCE} tokens (an older, shorter prefix: a partial miss) and {} more (a prefix no earlier request of the run sent: another run's, see --shared-cache); {} call(s) read nothing where it reads. The miss rate counts both kinds of miss, by the tokens not read; the model cannot say which calls miss, only how much.",
            with_reads.shorter,
            with_reads.hits,
            with_reads.longer,
            with_reads.missed
        );
    }
    let _ = writeln!(
        out,
        "read calls: calls that read from the cache, as billed, and how many of them the simulation reads within {READ_TOLERANCE} tokens of the bill; \"none\": the run read nothing on any call (a provider that did not cache), kept out of the miss rate; \"apart\": a stretch of calls that read nothing inside a run that reads elsewhere (at least {STRETCH_CALLS} the best case reads: calls routed to an upstream that did not cache), kept out of its run's row and of the miss rate."
    );
    let _ = writeln!(
        out,
        "with misses: the best case with the miss rate applied; rate of others: with the rate fitted on the other runs of the profile (the rate checked on a run it was not fitted on)."
    );
    if all.unstated {
        let _ = writeln!(
            out,
            "*: some calls state no cost: their billed tokens are priced by the profile instead."
        );
    }
    let _ = writeln!(
        out,
        "Modelled, not measured: the simulated columns price the recorded requests by the profile's rule; tokens are ptc's {} count scaled, call by call, to the billed prompt.",
        bill.tokenizer.name()
    );
    for line in token_lines(bill) {
        out.push_str(&line);
        out.push('\n');
    }
    if !bill.without_bill.is_empty() {
        let _ = writeln!(
            out,
            "{} recording(s) hold no billed request and are not compared.",
            bill.without_bill.len()
        );
    }
    let rebuilt: Vec<crate::ab::RebuiltRun> = bill
        .runs
        .iter()
        .filter_map(|run| {
            Some(crate::ab::RebuiltRun {
                recording: run.recording.display().to_string(),
                inferred_prefix_tokens: run.rebuilt?,
            })
        })
        .collect();
    out.push_str(&crate::ab::report::judged::rebuilt_note(
        &rebuilt,
        "its as-sent size is unknown, no call of it is compared",
    ));
    out
}

/// Per provider and model: ptc's count of the requests over the billed prompt tokens.
/// The provider and model a run's usage names, each once: `deepseek/deepseek-chat` (from a
/// model already named with its provider, or without), `openrouter (no model named)`.
pub(super) fn model_label(provider: Option<&str>, model: Option<&str>) -> String {
    match (provider, model) {
        (Some(p), Some(m)) if m.starts_with(&format!("{p}/")) => m.to_owned(),
        (Some(p), Some(m)) => format!("{p}/{m}"),
        (None, Some(m)) => m.to_owned(),
        (Some(p), None) => format!("{p} (no model named)"),
        (None, None) => "no provider or model named".to_owned(),
    }
}

pub(super) fn by_model(bill: &Bill) -> Vec<(String, u64, u64, usize)> {
    let mut groups: Vec<(String, u64, u64, usize)> = Vec::new();
    for run in &bill.runs {
        let key = model_label(run.provider.as_deref(), run.model.as_deref());
        let (counted, billed) = run.calls.iter().fold((0, 0), |(c, b), call| {
            (c + call.counted, b + call.billed_prompt)
        });
        match groups.iter_mut().find(|g| g.0 == key) {
            Some(group) => {
                group.1 += counted;
                group.2 += billed;
                group.3 += run.calls.len();
            }
            None => groups.push((key, counted, billed, run.calls.len())),
        }
    }
    groups.sort_by(|a, b| a.0.cmp(&b.0));
    groups
}

pub(super) fn token_lines(bill: &Bill) -> Vec<String> {
    by_model(bill)
        .into_iter()
        .map(|(model, counted, billed, calls)| {
            format!(
                "Tokens, {model}: ptc counted {:.3}x the billed prompt tokens ({} against {} over {calls} call(s), {}; the provider's tokenizer is not ptc's).",
                if billed == 0 { 0.0 } else { counted as f64 / billed as f64 },
                thousands(counted),
                thousands(billed),
                bill.tokenizer.name()
            )
        })
        .collect()
}
