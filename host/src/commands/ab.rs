//! `ptc ab`: every strategy asked for over every recording, measured and reported as a table,
//! markdown, CSV or JSON, and optionally as an HTML page; and the tokenizer the commands count
//! tokens with.

use std::io::{BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};

use clap::ValueEnum;

use crate::ab::report::{self, Requirements};
use crate::ab::shard::{Shard, ShardSources};
use crate::ab::spool::Spool;
use crate::ab::{
    partial, run_with as run_ab_with, Ab, AbPlan, PromptLog, Rows, RunDetail, Variant,
};
use crate::commands::args::{ConfigArgs, RecordingArgs};
use crate::commands::Context;
use crate::host::Host;
use crate::output::{write_atomically, write_out};
use crate::pricing::Pricing;
use crate::recording::corpus::Listing;
use crate::recording::ReadError;
use crate::tokens::Tokenizer;
use crate::Error;

/// Compare strategies on recorded runs: tokens, prompt-cache cost, retention, render time
///
/// Renders the prompt sent before every turn of every recording through every strategy and
/// measures it. Without RECORDINGS it runs on the bundled example recordings; a directory
/// stands for every .json file in it. Strategies come from --strategies, else `[ab]
/// strategies`, else every loaded strategy; `name@option=value` is a variant with other
/// options.
///
/// A strategy that cannot be used (its plugin was skipped) or fails on a recording is
/// reported as failed, with the reason, in the report and as a `warning:` on stderr; the
/// others complete and the exit code is 0. Exit 2 when every strategy asked for (the
/// baseline when named) rendered no prompt at all.
///
/// A recording that cannot be read is left out with a `warning:` naming it; the others are
/// measured and written, and the exit code is 1 (`--strict`: exit 2 at the first). Exit 2
/// when no recording could be read or none was found.
///
/// A large corpus is split over machines with --shard K/N: each runs `ptc ab RECORDINGS
/// --shard K/N --format partial > part-K.json` with the same recordings and settings, and
/// `ptc ab merge part-*.json` gives, byte for byte, what one run gives (see `ptc ab merge
/// --help`). A recording directory named `merge` is written `./merge`.
#[derive(Debug, clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct Args {
    #[command(subcommand)]
    command: Option<AbCommand>,
    /// Recording files or directories [default: the bundled examples]
    recordings: Vec<PathBuf>,
    /// Comma-separated strategies or variants, e.g.
    /// `full-history,single-user-coalesced,single-user-coalesced@println_limit=5`
    #[arg(long, value_name = "LIST")]
    strategies: Option<String>,
    /// BPE encoding: o200k_base or cl100k_base [default: `[ab] tokenizer`]
    #[arg(long, value_name = "NAME")]
    tokenizer: Option<String>,
    /// Pricing profiles to judge, comma-separated (`ptc pricing` lists them), the first the
    /// cost column, each with keys for this run: `NAME@breakpoints=strategy|auto|none`,
    /// `@cache_ttl=5m|30m|1h|24h|unstated`, `@model=M` (a model's prices and minimum),
    /// `@min_cacheable_tokens=N`, `@hits=none|all`; e.g. `anthropic@model=claude-haiku-4-5`
    /// (judged on its own) [default: `[ab] pricing`]
    #[arg(long, value_name = "LIST")]
    pricing: Option<String>,
    /// What the verdict requires of a strategy before it recommends it: comma-separated
    /// measures (symbols, calls, prints, error, used-next, evidence), each kept in full or to
    /// the percentage given, e.g. `symbols,error,used-next=95%`; "" requires nothing
    /// [default: `[ab] require`, symbols,error]
    #[arg(long, value_name = "LIST")]
    require: Option<String>,
    /// What to print on stdout
    #[arg(long, value_enum, default_value_t = AbFormat::Table)]
    format: AbFormat,
    /// Also write a self-contained HTML report: the tables, charts, and the prompts side by
    /// side (those of the first 50 recordings, at most 8 MiB of distinct lines)
    #[arg(long, value_name = "FILE.html")]
    report: Option<PathBuf>,
    /// Report render times as 0, so that the output is byte-for-byte reproducible
    #[arg(long)]
    no_timing: bool,
    /// Stop at the first recording that cannot be read (exit 2, no results) instead of
    /// leaving it out, warning about it, and exiting 1 after the results
    #[arg(long)]
    strict: bool,
    /// Measure only shard K of N (0-based): the recordings whose identity hashes to K
    /// modulo N. The identity is the file's name (its path relative to the directory
    /// given), with `:LINE` for a line of a JSONL file; the hash is FNV-1a 64 of its UTF-8
    /// bytes, so every machine finds its share alone. With --format partial the shard
    /// writes a part for `ptc ab merge`, exit 0 even when recordings could not be read
    /// (the part carries them, and the merge reports them)
    #[arg(long, value_name = "K/N")]
    shard: Option<Shard>,
    #[command(flatten)]
    config: ConfigArgs,
    #[command(flatten)]
    limits: RecordingArgs,
}

/// What `ptc ab` does besides measuring.
#[derive(Debug, clap::Subcommand)]
enum AbCommand {
    Merge(crate::commands::ab_merge::Args),
}

/// `ptc ab`, or `ptc ab merge`.
pub fn exec(args: Args, context: &Context, out: &mut dyn Write) -> Result<(), Error> {
    if let Some(AbCommand::Merge(merge)) = args.command {
        return crate::commands::ab_merge::exec(merge, context, out);
    }
    let host = context.with_strategies(&args.config, Some(&args.limits))?;
    let requirements = requirements(&host, args.require.as_deref())?;
    ab(
        &host,
        &requirements,
        &args.recordings,
        args.strategies.as_deref(),
        args.tokenizer.as_deref(),
        args.pricing.as_deref(),
        args.format,
        args.report.as_deref(),
        args.no_timing,
        args.strict,
        args.shard.unwrap_or(Shard::ALL),
        out,
    )
}

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

/// The requirements of the verdict given (`--require`), else those of `[ab] require`.
pub fn requirements(host: &Host, given: Option<&str>) -> Result<Requirements, Error> {
    match given {
        Some(list) => Requirements::parse(list.split(','))
            .map_err(|e| Error::Usage(format!("--require: {e}"))),
        None => Requirements::parse(host.config().ab_require().iter().map(String::as_str))
            .map_err(|e| Error::Usage(format!("[ab] require: {e}"))),
    }
}

/// The tokenizer named, else the one of `[ab] tokenizer`.
pub fn tokenizer(host: &Host, name: Option<&str>) -> Result<Tokenizer, Error> {
    crate::ab::tokenizer_named(name.unwrap_or(host.config().ab_tokenizer()))
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
    requirements: &Requirements,
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
    if let Some(file) = report_file {
        crate::output::check_not_input("--report", file, paths, &["json", "jsonl"])?;
    }
    let plan = AbPlan::new(host, strategies, tokenizer, pricing)?;
    let partial = format == AbFormat::Partial;
    if partial && report_file.is_some() {
        return Err(Error::Usage(
            "--report is written by `ptc ab merge`; a shard with --format partial writes its part only".into(),
        ));
    }
    if partial {
        // A shard run where the corpus is not (a node that does not see it) would list it as
        // one recording that cannot be read and succeed; the merge would fail much later.
        crate::recording::corpus::check_given(paths)?;
    }
    let listing = Corpus { paths, shard };
    // The bar needs the number of recordings: for it, the corpus is listed once more first.
    let bar = if std::io::stderr().is_terminal() && !crate::output::quiet() {
        let mut counting = listing.sources();
        let count = counting.by_ref().take_while(Result::is_ok).count();
        if count > 1 {
            progress_bar(count)
        } else {
            indicatif::ProgressBar::hidden()
        }
    } else {
        indicatif::ProgressBar::hidden()
    };
    let mut sources = listing.sources();
    if !sources.start()? {
        let corpus = sources.corpus().recordings;
        if corpus == 0 {
            let what: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
            return Err(ReadError::NoRecording {
                what: format!("{} (no .json or .jsonl file)", what.join(", ")),
            }
            .into());
        }
        if !partial {
            return Err(ReadError::NoRecording {
                what: format!("shard {shard} (none of the {corpus} recordings)"),
            }
            .into());
        }
    }
    if partial {
        let mut result = partial::write(
            host,
            plan,
            &mut sources,
            shard,
            strict,
            no_timing,
            &|| bar.inc(1),
            out,
        )?;
        bar.finish_and_clear();
        // The part carries the recordings that could not be read and the failures: the merge
        // reports them and sets the exit code; here they are warnings only.
        let unreadable = warn_bad_recordings(&mut result)?;
        warn_failures(&result);
        let selected = sources.selected;
        if selected > 0 && unreadable == selected {
            return Err(ReadError::NoRecording {
                what: format!("shard {shard}: none of its {selected} recording(s) could be read"),
            }
            .into());
        }
        return Ok(());
    }
    // The per-prompt rows go to a spool as the output will print them.
    let mut rows = Spool::default();
    let (variants, pricing_profiles) = (plan.variants.clone(), plan.pricing.clone());
    let mut each = |_: usize, run: RunDetail| {
        spool_row(
            &mut rows,
            format,
            no_timing,
            &variants,
            &pricing_profiles,
            run,
        )
    };
    let each_row = if matches!(format, AbFormat::Json | AbFormat::Csv) {
        Rows::Each(&mut each)
    } else {
        Rows::Sums
    };
    let result = run_ab_with(host, plan, &mut sources, each_row, strict, &|| bar.inc(1))?;
    bar.finish_and_clear();
    let count = sources.selected;
    // Without a corpus, the bundled real runs follow the generated ones (in the formats for
    // people).
    let real_runs = paths.is_empty()
        && shard.count == 1
        && report_file.is_none()
        && matches!(format, AbFormat::Table | AbFormat::Markdown);
    results(
        host,
        requirements,
        result,
        &mut rows,
        Some(listing),
        count,
        format,
        report_file,
        no_timing,
        out,
    )?;
    if real_runs {
        let text = real_runs_section(
            host,
            requirements,
            strategies,
            tokenizer,
            pricing,
            format,
            no_timing,
        )?;
        write_out(out, &text)?;
    }
    Ok(())
}

/// `ptc ab` on the bundled real runs, against what their agents sent (`as-sent`), then the
/// simulation beside their bill.
fn real_runs_section(
    host: &Host,
    requirements: &Requirements,
    strategies: Option<&str>,
    tokenizer: Option<&str>,
    pricing: Option<&str>,
    format: AbFormat,
    no_timing: bool,
) -> Result<String, Error> {
    use crate::render::trigger::AS_SENT;
    let mut plan = AbPlan::new(host, strategies, tokenizer, pricing)?;
    let as_sent = match plan.variants.iter().position(|v| v.strategy == AS_SENT) {
        Some(i) => plan.variants.remove(i),
        None => crate::ab::Variant::parse(AS_SENT)?,
    };
    plan.variants.insert(0, as_sent);
    plan.baseline = AS_SENT.to_owned();
    plan.baseline_added = true;
    let sources = Listing::real_runs().collect::<Result<Vec<_>, _>>()?;
    let mut result = crate::ab::run(host, plan, &sources, false, true, &|| {})?;
    result.requirements = requirements.clone();
    if no_timing {
        result.clear_timing();
    }
    let table = match format {
        AbFormat::Markdown => report::markdown_tables(&result),
        _ => report::table(&result),
    };
    let defaults = host.recording_defaults()?;
    let recordings = sources
        .iter()
        .map(|s| s.load(&defaults))
        .collect::<Result<Vec<_>, _>>()?;
    let config = host.config();
    let bill = crate::ab::bill::Bill::new(
        recordings,
        &config.pricing_profiles()?,
        &config.pricing_info(),
        result.tokenizer,
        &crate::ab::bill::BillOptions {
            miss_rate: crate::ab::bill::MissRate::Fit,
            shared_cache: false,
            profile: None,
        },
    )?;
    Ok(format!(
        "\n\nReal runs (bundled, examples/realruns: imported logs of other people's agents; its README names them)\n\n{table}\n{}",
        crate::ab::bill::table(&bill)
    ))
}

/// Adds the rows of `run` to `rows` as `format` (JSON or CSV) prints them.
pub fn spool_row(
    rows: &mut Spool,
    format: AbFormat,
    no_timing: bool,
    variants: &[Variant],
    pricing: &[Pricing],
    mut run: RunDetail,
) -> Result<(), Error> {
    if no_timing {
        run.prompts.iter_mut().for_each(|p| p.render_ns = 0);
    }
    let text = match format {
        AbFormat::Json => report::json_run_text(variants, pricing, &run, rows.is_empty()),
        _ => report::csv_rows(variants, &run),
    };
    rows.push(&text)
}

/// A corpus as given on the command line, and the shard of it to measure.
#[derive(Clone, Copy)]
pub struct Corpus<'a> {
    pub paths: &'a [PathBuf],
    pub shard: Shard,
}

impl Corpus<'_> {
    /// The recordings of the shard, listed from the start.
    fn sources(self) -> ShardSources {
        ShardSources::new(Listing::new(self.paths), self.shard)
    }
}

/// Warns of each recording that could not be read; returns how many.
fn warn_bad_recordings(result: &mut Ab) -> Result<usize, Error> {
    let mut count = 0;
    for bad in result.bad_recordings.iter()? {
        let bad = bad?;
        count += 1;
        crate::output::warn(format_args!(
            "skipping recording {}: {}",
            bad.label, bad.error
        ));
    }
    Ok(count)
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
/// asked, and writes `result` in `format`, with the per-prompt rows of JSON and CSV from `rows`
/// (made by [`report::json_run_text`] or [`report::csv_rows`]): the end of `ptc ab` and of
/// `ptc ab merge`. `count` is the number of recordings given, read or not; the report shows the
/// prompts of the first recordings of `corpus` side by side (none after a merge, which has no
/// recordings).
#[allow(clippy::too_many_arguments)]
pub fn results(
    host: &Host,
    requirements: &Requirements,
    mut result: Ab,
    rows: &mut Spool,
    corpus: Option<Corpus<'_>>,
    count: usize,
    format: AbFormat,
    report_file: Option<&Path>,
    no_timing: bool,
    out: &mut dyn Write,
) -> Result<(), Error> {
    result.requirements = requirements.clone();
    warn_bad_recordings(&mut result)?;
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
        let mut bad = result
            .bad_recordings
            .iter()?
            .map_while(Result::ok)
            .map(|b| b.index);
        let prompts = match corpus {
            Some(corpus) => PromptLog::collect(host, &result, &mut corpus.sources(), &mut bad),
            None => PromptLog::collect(host, &result, &mut std::iter::empty(), &mut bad),
        };
        let page = report::html(&result, &prompts, &host.host_templates()?)?;
        write_atomically(file, page.as_bytes())?;
    }
    // Real runs carry their bill: the table says how the simulation compares with it.
    let bill = match corpus {
        Some(corpus)
            if result.billed_recordings > 0
                && corpus.shard.count == 1
                && matches!(format, AbFormat::Table | AbFormat::Markdown) =>
        {
            against_the_bill(host, corpus.paths)
        }
        _ => String::new(),
    };
    match format {
        AbFormat::Table => write_out(out, &(report::table(&result) + &bill))?,
        AbFormat::Markdown => write_out(out, &(report::markdown_tables(&result) + &bill))?,
        AbFormat::Csv => report::write_csv(&result, rows, &mut BufWriter::new(&mut *out))?,
        AbFormat::Json => report::write_json(&result, rows, &mut BufWriter::new(&mut *out))?,
        AbFormat::Partial => {
            return Err(Error::Usage(
                "--format partial is written by `ptc ab --shard K/N`; merge parts into table, json, markdown or csv".into(),
            ))
        }
    }
    match result.bad_recordings.first() {
        None => Ok(()),
        Some(first) => Err(Error::SomeRecordingsBad {
            bad: result.bad_recordings.len(),
            count,
            first: first.label.clone(),
        }),
    }
}

/// `ptc bill`'s table for the corpus `paths`, after a blank line; a warning instead when the
/// corpus cannot be compared with its bill (no profile for its provider, say).
fn against_the_bill(host: &Host, paths: &[PathBuf]) -> String {
    let options = crate::ab::bill::BillOptions {
        miss_rate: crate::ab::bill::MissRate::Fit,
        shared_cache: false,
        profile: None,
    };
    match crate::commands::bill::bill(host, paths, &options) {
        Ok(bill) => format!("\n{}", crate::ab::bill::table(&bill)),
        Err(err) => {
            crate::output::warn(format_args!(
                "the recordings carry their bill, but it is not compared: {err}"
            ));
            String::new()
        }
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
