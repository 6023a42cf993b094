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
pub use cache::{Pricing, PromptCost};
#[doc(hidden)]
pub use commands::ab_merge::{merge as merge_parts, MergeFormat};
pub use config::{Config, ConfigError, Origin, CONFIG_FILE_NAME, DEFAULT_CONFIG};
pub use error::Error;
pub use host::{Host, UNCOMPRESSED_STRATEGY};
pub use output::escape_controls;
pub use plugins::{LoadedStrategy, PluginError, PluginSet};
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
pub use tokens::{Counter, Tokenizer};

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
