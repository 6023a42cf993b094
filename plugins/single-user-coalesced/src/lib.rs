//! `single-user-coalesced`, ptc's default strategy: the whole history is
//! coalesced into one user message after the system prompt.
//!
//! The user message holds, in order and each omitted when empty: the mission; `tool/`;
//! `data/`; `user/` (the memory of the last successful turn); the expected output; the tool
//! calls of successful turns (or `;; No tool calls made`); their println output; the latest
//! error while the last turn failed; the turns left. When anything was printed no value shows a
//! sample. A run with `max_turns = 1` sends only its first prompt, which has no history to
//! compress; rendered after its turn, it shows that turn coalesced, like any other.
//!
//! This crate decides what is shown; the templates in `templates/coalesce/` decide
//! how it looks. The sections themselves are built by `ptc_strategy_kit::coalesce`, which every
//! strategy that coalesces part of its history shares, so they all render it the same way.

use ptc_plugin_api::{
    export_strategy, OptionSpec, Options, Output, RenderError, Run, Strategy, Turn,
};
use ptc_strategy_kit::coalesce::{self, Settings};

/// The strategy.
pub struct SingleUserCoalesced;

export_strategy!(SingleUserCoalesced);

impl Strategy for SingleUserCoalesced {
    const NAME: &'static str = "single-user-coalesced";
    const DESCRIPTION: &'static str =
        "All history coalesced into one user message: namespaces, tool calls, output, latest error.";

    fn options() -> Vec<OptionSpec> {
        coalesce::options()
    }

    fn templates() -> Vec<(&'static str, &'static str)> {
        coalesce::TEMPLATES.to_vec()
    }

    const RENDERS_FROM: &'static [&'static str] = &["memory_values", "prints", "errors"];

    fn render<'r>(
        run: &'r Run,
        turns: &'r [Turn],
        options: &Options,
    ) -> Result<Output<'r>, RenderError> {
        let settings = Settings::read(options)?;
        let (user, stats) = coalesce::user_message(run, turns, &settings);
        Ok(Output {
            // The user message changes with every turn: only the system prompt can be read from
            // the cache by the next prompt.
            messages: vec![coalesce::system_message(run).cached(), user].into(),
            stats,
        })
    }
}
