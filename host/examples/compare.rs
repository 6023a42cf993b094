//! ptc embedded in a program, without the command line: the bundled example recordings
//! compared through two strategies with [`ptc::run_corpus`], the figures read from the result,
//! then the same comparison written as `ptc ab` writes it with [`ptc::ops::compare`].
//!
//! ```sh
//! cargo build --release && cargo run --release -p ptc-host --example compare
//! ```

use ptc::ops::{self, CompareOptions, Corpus};
use ptc::{AbPlan, Clock, Config, Host, PlanOptions, RunOptions};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The configuration ptc uses by default (the compiled-in ptc.toml, then ./ptc.toml), with
    // the target directory (one level above this example, where the strategy dylibs are built)
    // among the plugin directories.
    let mut config = Config::load(None, &[])?;
    if let Some(target) = std::env::current_exe()?.parent().and_then(|d| d.parent()) {
        config.layer_set(&format!(
            "plugins.directories=[{:?}]",
            target.display().to_string()
        ))?;
    }
    let host = Host::new(config);
    let plan = PlanOptions {
        strategies: Some("full-history,delta-log".into()),
        clock: Clock::Zero,
        ..PlanOptions::default()
    };
    let sources = ptc::sources(&[], &host.recording_defaults()?)?;
    let ab = ptc::run_corpus(
        &host,
        AbPlan::new(&host, &plan)?,
        &sources,
        RunOptions::default(),
    )?;
    for (variant, summary) in ab.variants.iter().zip(ab.summaries()) {
        println!(
            "{:<14} {:>4} prompts {:>8} tokens",
            variant.label, summary.prompts, summary.tokens
        );
    }
    // The same comparison, written as a table with its verdict.
    let options = CompareOptions::new(Corpus::Paths(Vec::new()), plan);
    ops::compare(&host, &options, &mut std::io::stdout())?;
    Ok(())
}
