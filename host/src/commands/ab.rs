//! `ptc ab`: every strategy asked for over every recording, measured and reported as a table,
//! markdown, CSV or JSON, and optionally as an HTML page; and the tokenizer the commands count
//! tokens with.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use clap::ValueEnum;

use crate::ab::report;
use crate::ab::shard::Shard;
use crate::ab::tokens::Tokenizer;
use crate::ab::{partial, run as run_ab, Ab, AbPlan, PromptLog};
use crate::host::Host;
use crate::output::{pretty, write_atomically, write_out};
use crate::recording::corpus::{self, Source};
use crate::Error;

/// Output format of `ptc ab`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum AbFormat {
    /// Aligned columns, for a terminal
    Table,
    /// Everything, per-turn series included
    Json,
    /// Markdown tables
    Markdown,
    /// One row per prompt
    Csv,
    /// What `ptc ab merge` combines: this shard's sums and every prompt's row (JSON)
    Partial,
}

/// The tokenizer named, else the one of `[ab] tokenizer`.
pub fn tokenizer(host: &Host, name: Option<&str>) -> Result<Tokenizer, Error> {
    Tokenizer::named(name.unwrap_or(host.config().ab_tokenizer()))
}

/// What the progress bar shows: the recordings done of all, and the time left.
const PROGRESS: &str = "{bar:30} {pos}/{len} recordings, {elapsed} elapsed, about {eta} left";

/// The progress bar of `len` recordings, on stderr.
fn progress_bar(len: usize) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new(len as u64);
    if let Ok(style) = indicatif::ProgressStyle::with_template(PROGRESS) {
        bar.set_style(style);
    }
    bar
}

/// Runs the comparison, warns on stderr about strategies that failed, writes the HTML report
/// when asked, and returns the results in `format`.
#[allow(clippy::too_many_arguments)]
pub fn ab(
    host: &Host,
    paths: &[PathBuf],
    strategies: Option<&str>,
    tokenizer: Option<&str>,
    pricing: Option<&str>,
    format: AbFormat,
    report_file: Option<&Path>,
    no_timing: bool,
    strict: bool,
    shard: Shard,
    out: &mut dyn Write,
) -> Result<(), Error> {
    let plan = AbPlan::new(host, strategies, tokenizer, pricing)?;
    let all = corpus::sources(paths)?;
    if all.is_empty() {
        let what: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        return Err(Error::NoRecording {
            what: format!("{} (no .json or .jsonl file)", what.join(", ")),
        });
    }
    let (positions, sources) = shard.select(&all);
    let partial = format == AbFormat::Partial;
    if partial && report_file.is_some() {
        return Err(Error::Usage(
            "--report is written by `ptc ab merge`; a shard with --format partial writes its part only".into(),
        ));
    }
    if sources.is_empty() && !partial {
        return Err(Error::NoRecording {
            what: format!("shard {shard} (none of the {} recordings)", all.len()),
        });
    }
    let bar = if std::io::stderr().is_terminal() && sources.len() > 1 && !crate::output::quiet() {
        progress_bar(sources.len())
    } else {
        indicatif::ProgressBar::hidden()
    };
    if partial {
        let result = partial::write(
            host,
            plan,
            &all,
            &positions,
            &sources,
            shard,
            strict,
            no_timing,
            &|| bar.inc(1),
            out,
        )?;
        bar.finish_and_clear();
        // The part carries the recordings that could not be read and the failures: the merge
        // reports them and sets the exit code; here they are warnings only.
        warn_bad_recordings(&result);
        warn_failures(&result);
        return Ok(());
    }
    let detail = matches!(format, AbFormat::Json | AbFormat::Csv);
    let result = run_ab(host, plan, &sources, detail, strict, &|| bar.inc(1))?;
    bar.finish_and_clear();
    results(
        host,
        result,
        &sources,
        sources.len(),
        format,
        report_file,
        no_timing,
        out,
    )
}

fn warn_bad_recordings(result: &Ab) {
    for bad in &result.bad_recordings {
        crate::output::warn(format_args!(
            "skipping recording {}: {}",
            bad.label, bad.error
        ));
    }
}

fn warn_failures(result: &Ab) {
    for (variant, summary) in result.variants.iter().zip(result.summaries()) {
        if let Some(err) = &summary.first_error {
            crate::output::warn(format_args!(
                "strategy {} failed on {} recording(s); first: {err}",
                variant.label, summary.failed
            ));
        }
    }
}

/// Warns on stderr about what was left out and what failed, writes the HTML report when
/// asked, and writes `result` in `format`: the end of `ptc ab` and of `ptc ab merge`. `count`
/// is the number of recordings given, read or not; the report shows the prompts of the first
/// of `sources` side by side (none after a merge, which has no recordings).
#[allow(clippy::too_many_arguments)]
pub fn results(
    host: &Host,
    mut result: Ab,
    sources: &[Source],
    count: usize,
    format: AbFormat,
    report_file: Option<&Path>,
    no_timing: bool,
    out: &mut dyn Write,
) -> Result<(), Error> {
    warn_bad_recordings(&result);
    if result.bad_recordings.len() == count {
        return Err(Error::NoGoodRecording { count });
    }
    if no_timing {
        result.clear_timing();
    }
    if let Some(failures) = result.all_asked_failed() {
        return Err(Error::AbAllFailed { failures });
    }
    warn_failures(&result);
    if let Some(file) = report_file {
        let prompts = PromptLog::collect(host, &result, sources);
        let page = report::html(&result, &prompts, &host.host_templates()?)?;
        write_atomically(file, page.as_bytes())?;
    }
    let text = match format {
        AbFormat::Table => report::table(&result),
        AbFormat::Markdown => report::markdown_tables(&result),
        AbFormat::Csv => report::csv(&result),
        AbFormat::Json => pretty(&report::json(&result)),
        AbFormat::Partial => {
            return Err(Error::Usage(
                "--format partial is written by `ptc ab --shard K/N`; merge parts into table, json, markdown or csv".into(),
            ))
        }
    };
    write_out(out, &text)?;
    match result.bad_recordings.first() {
        None => Ok(()),
        Some(first) => Err(Error::SomeRecordingsBad {
            bad: result.bad_recordings.len(),
            count,
            first: first.label.clone(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use super::*;

    /// A terminal that keeps what is written to it.
    #[derive(Debug, Default)]
    struct Screen(Arc<Mutex<String>>);

    impl indicatif::TermLike for Screen {
        fn width(&self) -> u16 {
            120
        }
        fn move_cursor_up(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_down(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_right(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_left(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn write_line(&self, s: &str) -> std::io::Result<()> {
            self.write_str(&format!("{s}\n"))
        }
        fn write_str(&self, s: &str) -> std::io::Result<()> {
            self.0.lock().unwrap().push_str(s);
            Ok(())
        }
        fn clear_line(&self) -> std::io::Result<()> {
            Ok(())
        }
        fn flush(&self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn the_progress_bar_counts_recordings_and_shows_the_time_left() {
        let screen = Screen::default();
        let written = Arc::clone(&screen.0);
        let bar = progress_bar(35);
        bar.set_draw_target(indicatif::ProgressDrawTarget::term_like(Box::new(screen)));
        bar.inc(7);
        bar.tick();
        let text = written.lock().unwrap().clone();
        assert!(
            text.contains(" 7/35 recordings, 0s elapsed, about "),
            "{text:?}"
        );
        assert!(text.trim_end().ends_with(" left"), "{text:?}");
    }
}
