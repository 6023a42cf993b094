//! The coalesced view of a history, as `single-user-coalesced` renders it: the namespaces
//! (`tool/`, `data/`, `user/`), the tool calls and output of successful turns, the latest error,
//! the turns left. It lives in the strategy kit, a crate of its own that strategies depend on
//! (the contract, `ptc-plugin-api`, holds only what crosses the plugin boundary and never
//! depends on the kit), because every strategy that coalesces some of its history (rolling
//! windows, per-turn summaries, ...) must render it exactly the same way; strategies choose
//! which of these sections to send and in which messages.
//!
//! The sections name these templates, whose defaults are in `templates/coalesce/`:
//! `system`, `mission`, `tools`, `data`, `user` (which includes `user_lines`), `expected_output`,
//! `tool_calls`, `output`,
//! `error`, `turns_left`, `assistant`, `feedback`.

mod head;
mod history;
mod sections;
mod settings;
mod uncompressed;

use std::cell::RefCell;

use ptc_plugin_api::{Message, Role, Run, Section, Stats, Turn};

use crate::kept::ByRun;

pub use history::{count_printlns, count_tool_calls, shown_whole, History};
pub use sections::{
    data_section, error_section, first_prompt_head, output_section, push_head, tool_calls_section,
    tools_section, turns_left_section, user_section,
};
pub use settings::{options, settings_with_defaults, Settings};
pub use uncompressed::{exchange, feedback_section, response, uncompressed};

/// The default templates of the coalesced view, compiled in from `templates/coalesce/`.
pub const TEMPLATES: &[(&str, &str)] = &[
    (
        "system",
        include_str!("../../../../templates/coalesce/system.tera"),
    ),
    (
        "mission",
        include_str!("../../../../templates/coalesce/mission.tera"),
    ),
    (
        "tools",
        include_str!("../../../../templates/coalesce/tools.tera"),
    ),
    (
        "data",
        include_str!("../../../../templates/coalesce/data.tera"),
    ),
    (
        "user",
        include_str!("../../../../templates/coalesce/user.tera"),
    ),
    (
        "user_lines",
        include_str!("../../../../templates/coalesce/user_lines.tera"),
    ),
    (
        "expected_output",
        include_str!("../../../../templates/coalesce/expected_output.tera"),
    ),
    (
        "tool_calls",
        include_str!("../../../../templates/coalesce/tool_calls.tera"),
    ),
    (
        "output",
        include_str!("../../../../templates/coalesce/output.tera"),
    ),
    (
        "error",
        include_str!("../../../../templates/coalesce/error.tera"),
    ),
    (
        "turns_left",
        include_str!("../../../../templates/coalesce/turns_left.tera"),
    ),
    (
        "assistant",
        include_str!("../../../../templates/coalesce/assistant.tera"),
    ),
    (
        "feedback",
        include_str!("../../../../templates/coalesce/feedback.tera"),
    ),
];

/// `[system]`: the run's system prompt.
pub fn system_message(run: &Run) -> Message<'_> {
    Message::new(
        Role::System,
        vec![Section::new("system").with("system_prompt", run.system_prompt.as_str())],
    )
}

/// What every prompt that shows the turns one by one starts with: the system prompt, then the
/// first user message (mission, `tool/`, `data/`, expected output, turns left), the same as
/// every strategy's first prompt. While a run with a key renders, the two messages are made
/// once per run and settings and shared by its prompts ([`crate::kept`]).
pub fn head<'r>(run: &'r Run, settings: &Settings) -> [Message<'r>; 2] {
    let made = || [system_message(run), user_message(run, &[], settings).0];
    let kept = HEADS.with(|kept| {
        kept.borrow_mut()
            .get(settings.clone(), || made().map(Message::shared))
    });
    kept.unwrap_or_else(made)
}

thread_local! {
    /// By the settings: the head of the run's prompts, shared.
    static HEADS: RefCell<ByRun<Settings, [Message<'static>; 2]>> = RefCell::default();
}

/// The user message of the coalesced view of `turns`, with its statistics.
pub fn user_message<'r>(
    run: &'r Run,
    turns: &'r [Turn],
    settings: &Settings,
) -> (Message<'r>, Stats) {
    let history = History::of(turns, settings);
    // The head (mission, tool/, data/), then user/, expected output, tool calls, output,
    // error, turns left: one list, built where it stays.
    let mut sections = Vec::with_capacity(9);
    push_head(run, settings, &mut sections);
    history.push_sections(run, settings, &mut sections);
    sections.push(turns_left_section(run, turns.len()));
    (Message::new(Role::User, sections), history.stats)
}
