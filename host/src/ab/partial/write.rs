//! Writing a shard's part: the sums first, then every row, copied from where they were spooled
//! as they were measured.

use std::io::{BufWriter, Write};

use crate::ab::partial::{BadPart, Fingerprint, JudgedPart, Part, RowPart, SummaryPart, FORMAT};
use crate::ab::shard::ShardSources;
use crate::ab::spool::Spool;
use crate::ab::{run_listed, Ab, AbPlan, Rows, RunDetail, RunOptions, Summary};
use crate::host::Host;
use crate::Error;

/// Measures the recordings of `shard`, listed by `sources`, and writes the part to `out`
/// (render times as the plan's clock reports them). Returns the shard's results, for the
/// warnings.
pub fn write(
    host: &Host,
    plan: AbPlan,
    sources: &mut ShardSources,
    strict: bool,
    progress: &(dyn Fn() + Sync),
    out: &mut dyn Write,
) -> Result<Ab, Error> {
    let shard = sources.shard();
    let fingerprint = Fingerprint::of(host, &plan)?;
    let mut rows = Spool::default();
    let mut each = |position: usize, run: RunDetail| -> Result<(), Error> {
        let row = RowPart::of(position, run);
        let line = serde_json::to_string(&row).expect("a row serializes");
        let separator = if rows.is_empty() { "    " } else { ",\n    " };
        rows.push(&format!("{separator}{line}"))
    };
    let options = RunOptions {
        rows: Rows::Each(&mut each),
        strict,
        progress,
        billed: None,
        presumed: None,
    };
    let mut ab = run_listed(host, plan, sources, options)?;
    let part = Part {
        format: FORMAT.to_owned(),
        shard,
        corpus: sources.corpus(),
        sources: sources.selected,
        fingerprint,
        recordings: ab.recordings(),
        timed_recordings: ab.timed_recordings.unwrap_or(0),
        lacking: ab.lacking.clone(),
        rebuilt: ab.rebuilt.clone(),
        by_run: ab.by_run.clone(),
        summaries: ab
            .summaries()
            .iter()
            .zip(&ab.totals.first_failure)
            .map(|(s, first)| summary_part(s, *first))
            .collect(),
        judged: if ab.judged().iter().all(|j| j.recordings == ab.recordings()) {
            Vec::new()
        } else {
            ab.judged()
                .iter()
                .map(|j| JudgedPart {
                    recordings: j.recordings,
                    summary: summary_part(&j.summary, None),
                    baseline: summary_part(&j.baseline, None),
                })
                .collect()
        },
        turns: ab.totals.turns.clone(),
        cited_runs: ab.totals.cited_runs,
        dropped: ab.totals.dropped.clone(),
        bad_recordings: Vec::new(),
        runs: (),
    };
    let head = serde_json::to_string_pretty(&part).expect("a part serializes");
    let head = head.strip_suffix("\n}").unwrap_or(&head);
    let mut out = BufWriter::new(out);
    let put = |out: &mut BufWriter<&mut dyn Write>, text: &str| {
        out.write_all(text.as_bytes()).map_err(Error::Output)
    };
    put(&mut out, head)?;
    // The recordings that could not be read, as the field would be pretty-printed.
    put(&mut out, ",\n  \"bad_recordings\": [")?;
    let bad_count = ab.bad_recordings.len();
    for (i, bad) in ab.bad_recordings.iter()?.enumerate() {
        let bad = bad?;
        let text = serde_json::to_string_pretty(&BadPart {
            position: bad.index,
            recording: bad.label,
            error: bad.error,
        })
        .expect("a bad recording serializes");
        put(&mut out, if i == 0 { "\n    " } else { ",\n    " })?;
        put(&mut out, &text.replace('\n', "\n    "))?;
    }
    put(&mut out, if bad_count == 0 { "]" } else { "\n  ]" })?;
    put(&mut out, ",\n  \"runs\": [\n")?;
    rows.copy_to(&mut out)?;
    put(
        &mut out,
        if rows.is_empty() {
            "  ]\n}\n"
        } else {
            "\n  ]\n}\n"
        },
    )?;
    out.flush().map_err(Error::Output)?;
    Ok(ab)
}

fn summary_part(s: &Summary, first_error_position: Option<usize>) -> SummaryPart {
    SummaryPart {
        prompts: s.prompts,
        tokens: s.tokens,
        max_tokens: s.max_tokens,
        cached_tokens: s.cached_tokens,
        cache: s.cache.clone(),
        retention: s.retention,
        render_ns: s.render_ns,
        failed: s.failed,
        first_error: s.first_error.clone(),
        first_error_position,
    }
}

impl SummaryPart {
    /// The summary it adds up to, not yet priced.
    pub fn summary(&self) -> Summary {
        Summary {
            prompts: self.prompts,
            tokens: self.tokens,
            max_tokens: self.max_tokens,
            cached_tokens: self.cached_tokens,
            costs: Vec::new(),
            cache: self.cache.clone(),
            retention: self.retention,
            render_ns: self.render_ns,
            failed: self.failed,
            first_error: self.first_error.clone(),
        }
    }
}
