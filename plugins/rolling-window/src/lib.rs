//! `rolling-window`: the last `window` turns as the conversation without compression shows them
//! (the assistant's response, the user's feedback), everything before them coalesced into the
//! first user message exactly as `single-user-coalesced` renders it. `window = 0` is
//! single-user-coalesced; `window >= turns` is full-history.

use ptc_plugin_api::{
    export_strategy, OptionSpec, Options, Output, RenderError, Run, Strategy, Turn,
};
use ptc_strategy_kit::coalesce::{self, Settings};

pub struct RollingWindow;

export_strategy!(RollingWindow);

impl Strategy for RollingWindow {
    const NAME: &'static str = "rolling-window";
    const DESCRIPTION: &'static str =
        "The last `window` turns in full; older turns coalesced as single-user-coalesced does.";

    fn options() -> Vec<OptionSpec> {
        let mut options = vec![OptionSpec::count(
            "window",
            2,
            "turns kept in full at the end; older ones are coalesced into the first user message",
        )];
        options.extend(coalesce::options());
        options
    }

    fn templates() -> Vec<(&'static str, &'static str)> {
        coalesce::TEMPLATES.to_vec()
    }

    const RENDERS_FROM: &'static [&'static str] = &["memory_values", "prints", "results", "errors"];

    fn render<'r>(
        run: &'r Run,
        turns: &'r [Turn],
        options: &Options,
    ) -> Result<Output<'r>, RenderError> {
        let settings = Settings::read(options)?;
        let window = options.count("window")?;
        let (older, recent) = turns.split_at(turns.len().saturating_sub(window));
        let (first, mut stats) = coalesce::user_message(run, older, &settings);
        // The next prompt keeps this one as its prefix only while the window is not full;
        // once it is, the first user message changes with every turn and only the system
        // prompt can be read from the cache.
        let window_full = turns.len() >= window;
        let system = coalesce::system_message(run);
        let system = if window_full { system.cached() } else { system };
        let mut messages = vec![system, first];
        for turn in recent {
            messages.extend(coalesce::exchange(run, turn));
        }
        stats += coalesce::shown_whole(recent);
        if !window_full {
            if let Some(last) = messages.last_mut() {
                last.set_cache_breakpoint();
            }
        }
        Ok(Output {
            messages: messages.into(),
            stats,
        })
    }
}
