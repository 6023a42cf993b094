//! ptc renders the prompts of PTC-Lisp code agents through compression strategies loaded as
//! plugins.
//!
//! A [`Host`] loads the strategies found in the configured plugin directories; a
//! [`Renderer`] renders the prompt for the next turn of a [`Recording`] through a strategy and
//! its templates. The `ptc` binary is a thin command line over this library.

mod ab;
mod cache;
pub mod cli;
mod commands;
mod config;
mod error;
mod hash;
mod host;
mod message;
mod output;
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

pub use ab::retention::{Facts, Retention, Share};
pub use ab::{
    run as run_ab, run_with as run_ab_with, Ab, AbPlan, BadRecording, PromptMeasure, Rows,
    RunDetail, RunMeasure, Summary, Variant,
};
#[doc(hidden)]
pub use commands::ab_merge::{merge as merge_parts, MergeFormat};
pub use config::{Config, ConfigError, Origin, CONFIG_FILE_NAME, DEFAULT_CONFIG};
pub use error::Error;
pub use host::{Host, UNCOMPRESSED_STRATEGY};
pub use output::escape_controls;
pub use plugins::{LoadedStrategy, PluginError, PluginSet};
pub use pricing::{Pricing, PromptCost};
pub use recording::corpus::{single as single_source, sources, Source};
pub use recording::{
    max_recording_bytes, set_max_recording_bytes, Problem, Recording, RecordingDefaults,
    RecordingError, Severity, DEFAULT_MAX_RECORDING_BYTES,
};
pub use recording::{Lack, ReadError, Request, RequestMessage, RequestToolCall, Usage};
pub use render::templates::{TemplateError, Templates};
pub use render::trigger::{Prompter, RunCache};
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

/// Where the number of threads came from: the first of these that is set.
fn thread_count(var: impl Fn(&str) -> Option<String>) -> Result<(usize, &'static str), Error> {
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
    let (threads, from) = thread_count(|name| std::env::var(name).ok())?;
    // Fails only when the pool was built already (a second call): the first size stays.
    let _ = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build_global();
    tracing::debug!("{threads} thread(s) (from {from})");
    Ok(threads)
}

#[cfg(test)]
mod thread_tests {
    use super::thread_count;

    fn count(vars: &[(&str, &str)]) -> Result<(usize, &'static str), String> {
        thread_count(|name| {
            vars.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.to_string())
        })
        .map_err(|e| e.to_string())
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
