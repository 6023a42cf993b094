//! `aggressive`: minimal summaries for token-constrained runs. One user message with the
//! mission, the tool names with their parameter names, the `user/` names with their type only,
//! the latest error if the last turn failed, and the turns left. No data samples, no tool-call
//! list, no output.

use ptc_plugin_api::{
    export_strategy, Field, Message, OptionSpec, Options, Output, Record, RenderError, Role, Run,
    Section, Stats, Strategy, Turn,
};
use ptc_strategy_kit::coalesce;
use ptc_strategy_kit::type_label;

pub struct Aggressive;

export_strategy!(Aggressive);

const OWN_TEMPLATES: &[(&str, &str)] = &[
    (
        "system",
        include_str!("../../../templates/coalesce/system.tera"),
    ),
    (
        "mission",
        include_str!("../../../templates/coalesce/mission.tera"),
    ),
    (
        "turns_left",
        include_str!("../../../templates/coalesce/turns_left.tera"),
    ),
    (
        "tool_names",
        include_str!("../../../templates/aggressive/tool_names.tera"),
    ),
    (
        "names",
        include_str!("../../../templates/aggressive/names.tera"),
    ),
    (
        "last_error",
        include_str!("../../../templates/aggressive/last_error.tera"),
    ),
];

impl Strategy for Aggressive {
    const NAME: &'static str = "aggressive";
    const DESCRIPTION: &'static str =
        "Minimal: mission, tool and user/ names with types, the latest error, turns left.";

    fn options() -> Vec<OptionSpec> {
        Vec::new()
    }

    fn templates() -> Vec<(&'static str, &'static str)> {
        OWN_TEMPLATES.to_vec()
    }

    const RENDERS_FROM: &'static [&'static str] = &["memory_values", "prints", "errors"];

    fn render<'r>(
        run: &'r Run,
        turns: &'r [Turn],
        _options: &Options,
    ) -> Result<Output<'r>, RenderError> {
        let mut sections = vec![Section::new("mission").with("mission", run.mission.as_str())];
        if !run.tools.is_empty() {
            // The `tool/` section's fields, shown by a template of names and parameters.
            let mut tools = coalesce::tools_section(run);
            tools.template = "tool_names".into();
            sections.push(tools);
        }
        let memory = turns.iter().rev().find(|t| t.success).map(|t| &t.memory);
        if let Some(memory) = memory.filter(|m| !m.is_empty()) {
            let mut names: Vec<_> = memory.iter().collect();
            names.sort_by(|a, b| {
                (!a.1.is_function(), a.0.as_str()).cmp(&(!b.1.is_function(), b.0.as_str()))
            });
            let names: Vec<Field> = names
                .into_iter()
                .map(|e| {
                    Record::new()
                        .with("name", e.0.as_str())
                        .with("type", type_label(&e.1))
                        .into()
                })
                .collect();
            sections.push(Section::new("names").with("names", names));
        }
        let last_failed = turns.last().filter(|t| !t.success);
        if let Some(turn) = last_failed {
            let message = turn.error_text().unwrap_or("error");
            sections.push(Section::new("last_error").with("message", message));
        }
        sections.push(coalesce::turns_left_section(run, turns.len()));
        let successful = turns.iter().filter(|t| t.success);
        let calls = successful.clone().map(|t| t.tool_calls.len()).sum();
        let prints = successful.map(|t| t.prints.len()).sum();
        let failed = turns.iter().filter(|t| !t.success).count() as u64;
        // No tool call and no print is shown.
        let mut stats = Stats {
            turns_compressed: turns.len() as u64,
            error_turns_collapsed: failed - u64::from(last_failed.is_some()),
            ..Stats::default()
        };
        coalesce::count_tool_calls(&mut stats, calls, 0);
        coalesce::count_printlns(&mut stats, prints, 0);
        Ok(Output {
            // The user message changes with every turn: only the system prompt can be read
            // from the cache by the next prompt.
            messages: vec![
                coalesce::system_message(run).cached(),
                Message::new(Role::User, sections),
            ]
            .into(),
            stats,
        })
    }
}
