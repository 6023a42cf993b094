//! ptc renders the prompts of PTC-Lisp code agents through compression strategies loaded as
//! plugins.
//!
//! A [`Host`] loads the strategies found in the configured plugin directories; a
//! [`Renderer`] renders the prompt for the next turn of a [`Recording`] through a strategy and
//! its templates. The operations of the `ptc` commands are in [`ops`], each a function of one
//! options struct: [`ops::compare`] (`ptc ab`), [`ops::merge`] (`ptc ab merge`),
//! [`ops::bill`] (`ptc bill`), [`ops::import`] (`ptc import`) and [`ops::render`] (`ptc render`,
//! and each request of `ptc serve`); [`run_corpus`] measures a corpus and returns the figures
//! ([`Ab`]) without writing anything. The `ptc` binary is a thin command line over this
//! library (`host/examples/compare.rs` embeds it).

mod ab;
mod cache;
pub mod cli;
mod commands;
mod config;
mod error;
mod hash;
mod host;
mod message;
pub mod ops;
mod output;
mod parallel;
mod plugins;
mod pricing;
mod recording;
mod render;
pub mod serve;
mod suggest;
mod tokens;

pub use recording::import;
#[doc(hidden)]
pub use render::fuzz as __fuzz;
pub use render::request;

pub use ab::bill::{Bill, BillOptions, MissRate};
pub use ab::retention::{Facts, Retention, Share};
pub use ab::shard::Shard;
pub use ab::{
    run_corpus, run_listed, Ab, AbPlan, BadRecording, Clock, PlanOptions, PromptMeasure, Rows,
    RunDetail, RunMeasure, RunOptions, Summary, Variant,
};
pub use config::{Config, ConfigError, Origin, CONFIG_FILE_NAME, DEFAULT_CONFIG};
pub use error::Error;
pub use host::{Host, UNCOMPRESSED_STRATEGY};
pub use output::{escape_controls, to_stderr};
pub use plugins::{LoadedStrategy, PluginError, PluginSet};
pub use pricing::{Pricing, PromptCost};
pub use recording::corpus::{source, sources, Source};
pub use recording::{Lack, ReadError, Request, RequestMessage, RequestToolCall, Usage};
pub use recording::{
    Problem, Recording, RecordingDefaults, RecordingError, Severity, DEFAULT_MAX_RECORDING_BYTES,
};
pub use render::templates::{TemplateError, Templates};
pub use render::trigger::{Prompter, Rendering, RunCache};
pub use render::RenderError;
pub use render::{BlockSpan, Prompt, RenderedMessage, Renderer, SectionCache};
pub use tokens::{Counter, Counting, Tokenizer};

/// The bundled example recordings, compiled in: (file name, JSON).
pub mod examples {
    include!(concat!(env!("OUT_DIR"), "/examples.rs"));
}
pub use recording::value_json::MAX_DEPTH;

/// Installs the stderr log subscriber: `-v` debug, `-vv` trace, else `RUST_LOG` or warnings
/// (errors only with `-q`). Colour codes only where `--color` allows them on stderr.
pub fn init_logging(verbose: u8) {
    let filter = match verbose {
        0 => tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| {
            tracing_subscriber::EnvFilter::new(if output::quiet() { "error" } else { "warn" })
        }),
        1 => tracing_subscriber::EnvFilter::new("debug"),
        _ => tracing_subscriber::EnvFilter::new("trace"),
    };
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(output::stderr_colour())
        .without_time()
        .init();
}

/// The number of threads, from the first of these that is set, at most `cpus` (more threads
/// than CPUs only add memory and switching: 10,000 of them took 48 s and 1.9 GB); where it
/// came from; and the number asked for when it was more.
fn thread_count(
    var: impl Fn(&str) -> Option<String>,
    cpus: usize,
) -> Result<(usize, &'static str, Option<usize>), Error> {
    let (asked, from) = asked_threads(var)?;
    let cpus = cpus.max(1);
    Ok(if asked > cpus {
        (cpus, from, Some(asked))
    } else {
        (asked, from, None)
    })
}

/// The number of threads asked for, and where it came from: the first of these that is set.
fn asked_threads(var: impl Fn(&str) -> Option<String>) -> Result<(usize, &'static str), Error> {
    let positive = |text: &str| text.trim().parse::<usize>().ok().filter(|&n| n > 0);
    if let Some(text) = var("PTC_THREADS") {
        return positive(&text).map(|n| (n, "PTC_THREADS")).ok_or_else(|| {
            Error::Usage(format!(
                "PTC_THREADS={text:?}: the number of threads is a whole number from 1"
            ))
        });
    }
    // Slurm's allocation: without cgroups or task affinity, nothing else tells the process
    // that it shares the node.
    if let Some(n) = var("SLURM_CPUS_PER_TASK").as_deref().and_then(positive) {
        return Ok((n, "SLURM_CPUS_PER_TASK"));
    }
    if let Some(n) = var("RAYON_NUM_THREADS").as_deref().and_then(positive) {
        return Ok((n, "RAYON_NUM_THREADS"));
    }
    // The CPUs this process may run on: its affinity mask and, on Linux, the cgroup's CPU
    // quota (a container's CPU limit).
    let n = std::thread::available_parallelism().map_or(1, usize::from);
    Ok((n, "the CPUs available to the process"))
}

/// Sizes the thread pool `ptc ab` measures recordings with: `PTC_THREADS`, else
/// `SLURM_CPUS_PER_TASK`, else `RAYON_NUM_THREADS`, else the CPUs the process may use. The
/// count is logged under `-v`.
pub fn init_threads() -> Result<usize, Error> {
    let cpus = std::thread::available_parallelism().map_or(1, usize::from);
    let (threads, from, asked) = thread_count(|name| std::env::var(name).ok(), cpus)?;
    // Fails only when the pool was built already (a second call): the first size stays.
    let _ = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build_global();
    match asked {
        Some(asked) => tracing::debug!(
            "{threads} thread(s): {from} asks for {asked}, more than the {cpus} CPU(s) available"
        ),
        None => tracing::debug!("{threads} thread(s) (from {from})"),
    }
    Ok(threads)
}

#[cfg(test)]
mod thread_tests {
    use super::thread_count;

    fn count(vars: &[(&str, &str)]) -> Result<(usize, &'static str), String> {
        thread_count(
            |name| {
                vars.iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, v)| v.to_string())
            },
            64,
        )
        .map(|(n, from, _)| (n, from))
        .map_err(|e| e.to_string())
    }

    #[test]
    fn threads_are_at_most_the_cpus_available_whatever_is_asked() {
        for name in ["PTC_THREADS", "SLURM_CPUS_PER_TASK", "RAYON_NUM_THREADS"] {
            let vars = |n: &str| (n == name).then(|| "10000".to_owned());
            assert_eq!(thread_count(vars, 2).unwrap(), (2, name, Some(10_000)));
            let vars = |n: &str| (n == name).then(|| "2".to_owned());
            assert_eq!(thread_count(vars, 2).unwrap(), (2, name, None));
        }
    }

    #[test]
    fn threads_come_from_the_override_then_slurm_then_the_cpus() {
        assert_eq!(
            count(&[("PTC_THREADS", "3"), ("SLURM_CPUS_PER_TASK", "1")]),
            Ok((3, "PTC_THREADS"))
        );
        assert_eq!(
            count(&[("SLURM_CPUS_PER_TASK", "1"), ("RAYON_NUM_THREADS", "5")]),
            Ok((1, "SLURM_CPUS_PER_TASK"))
        );
        assert_eq!(
            count(&[("SLURM_CPUS_PER_TASK", "x"), ("RAYON_NUM_THREADS", "5")]),
            Ok((5, "RAYON_NUM_THREADS"))
        );
        let (cpus, from) = count(&[]).unwrap();
        assert!(cpus >= 1);
        assert_eq!(from, "the CPUs available to the process");
        let err = count(&[("PTC_THREADS", "0")]).unwrap_err();
        assert!(err.contains("PTC_THREADS"), "{err}");
    }
}
