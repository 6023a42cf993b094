//! ptc renders the prompts of PTC-Lisp code agents through compression strategies loaded as
//! plugins.
//!
//! A [`Host`] loads the strategies found in the configured plugin directories; a
//! [`Renderer`] renders the prompt for the next turn of a [`Recording`] through a strategy and
//! its templates. The `ptc` binary is a thin command line over this library.

mod ab;
mod config;
mod corpus;
mod elf;
mod error;
mod host;
pub mod import;
mod mission;
mod new_plugin;
mod plugins;
mod pricing;
mod recording;
mod render;
mod report;
mod retention;
pub mod serve;
mod templates;
mod tokens;
mod trigger;
mod trust;
mod value_json;

pub mod cli;

pub use ab::{run as run_ab, Ab, AbPlan, PromptMeasure, RunMeasure, Summary, Variant};
pub use config::{Config, ConfigError, Origin, CONFIG_FILE_NAME, DEFAULT_CONFIG};
pub use corpus::{single as single_source, sources, Source};
pub use error::Error;
pub use host::{Host, UNCOMPRESSED_STRATEGY};
pub use plugins::{LoadedStrategy, PluginError, PluginSet};
pub use pricing::{Pricing, PromptCost};
pub use recording::{Problem, Recording, RecordingDefaults, RecordingError, Severity};
pub use render::{Prompt, RenderedMessage, Renderer, SectionCache};
pub use retention::{Facts, Retention, Share};
pub use templates::{TemplateError, Templates};
pub use tokens::{Counter, Tokenizer};
pub use trigger::{Prompter, RunCache};

/// The bundled example recordings, compiled in: (file name, JSON).
pub mod examples {
    include!(concat!(env!("OUT_DIR"), "/examples.rs"));
}
pub use value_json::MAX_DEPTH;

/// Installs the stderr log subscriber: `-v` debug, `-vv` trace, else `RUST_LOG` or warnings.
pub fn init_logging(verbose: u8) {
    let filter = match verbose {
        0 => tracing_subscriber::EnvFilter::try_from_default_env()
            .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        1 => tracing_subscriber::EnvFilter::new("debug"),
        _ => tracing_subscriber::EnvFilter::new("trace"),
    };
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .without_time()
        .init();
}
