//! `full-history`, the baseline: the conversation without compression. The system
//! prompt, the first user message (the same as every strategy's first prompt), then for each turn
//! the assistant's whole response and a user message with the turn's prints (or its error) and
//! the number of the turn about to run. Append-only: the prompt for turn k + 1 extends the prompt
//! for turn k, so a provider's prompt cache keeps all of it.

use ptc_plugin_api::{
    export_strategy, OptionSpec, Options, Output, RenderError, Run, Strategy, Turn,
};
use ptc_strategy_kit::coalesce;

pub struct FullHistory;

export_strategy!(FullHistory);

impl Strategy for FullHistory {
    const NAME: &'static str = "full-history";
    const DESCRIPTION: &'static str =
        "No compression: every response and its feedback, append-only (the baseline).";

    /// The only options it reads: the samples of `data/` in the first user message. Turns are
    /// shown whole, so no other limit applies.
    fn options() -> Vec<OptionSpec> {
        coalesce::options()
            .into_iter()
            .filter(|o| ["sample_limit", "sample_printable_limit"].contains(&o.name.as_str()))
            .collect()
    }

    fn templates() -> Vec<(&'static str, &'static str)> {
        coalesce::TEMPLATES.to_vec()
    }

    const RENDERS_FROM: &'static [&'static str] = &["prints", "results", "errors"];

    fn render<'r>(
        run: &'r Run,
        turns: &'r [Turn],
        options: &Options,
    ) -> Result<Output<'r>, RenderError> {
        let settings = coalesce::settings_with_defaults(options)?;
        Ok(coalesce::uncompressed(run, turns, &settings))
    }
}
