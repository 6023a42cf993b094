//! The coalesced view of a history, as `single-user-coalesced` renders it: the namespaces
//! (`tool/`, `data/`, `user/`), the tool calls and output of successful turns, the latest error,
//! the turns left. It lives here, beside the contract, because every strategy that coalesces
//! some of its history (rolling windows, per-turn summaries, ...) must render it exactly the same
//! way; strategies choose which of these sections to send and in which messages.
//!
//! The sections name these templates, whose defaults are in `templates/coalesce/`:
//! `system`, `mission`, `tools`, `data`, `user` (which includes `user_lines`), `expected_output`,
//! `tool_calls`, `output`,
//! `error`, `turns_left`, `assistant`, `feedback`.

use abi_stable::std_types::Tuple2;

use ptc_plugin_api::{
    Field, Message, OptionSpec, OptionValue, Options, Output, Record, RenderError, Role, Run,
    Section, Stats, ToolCall, Turn, Value,
};

use crate::{
    cap_chars, parse_tool_signature, sanitize_doc, shared_limit_options, to_clojure, type_label,
    Limits,
};

/// The default templates of the coalesced view, compiled in from `templates/coalesce/`.
pub const TEMPLATES: &[(&str, &str)] = &[
    (
        "system",
        include_str!("../../../templates/coalesce/system.tera"),
    ),
    (
        "mission",
        include_str!("../../../templates/coalesce/mission.tera"),
    ),
    (
        "tools",
        include_str!("../../../templates/coalesce/tools.tera"),
    ),
    (
        "data",
        include_str!("../../../templates/coalesce/data.tera"),
    ),
    (
        "user",
        include_str!("../../../templates/coalesce/user.tera"),
    ),
    (
        "user_lines",
        include_str!("../../../templates/coalesce/user_lines.tera"),
    ),
    (
        "expected_output",
        include_str!("../../../templates/coalesce/expected_output.tera"),
    ),
    (
        "tool_calls",
        include_str!("../../../templates/coalesce/tool_calls.tera"),
    ),
    (
        "output",
        include_str!("../../../templates/coalesce/output.tera"),
    ),
    (
        "error",
        include_str!("../../../templates/coalesce/error.tera"),
    ),
    (
        "turns_left",
        include_str!("../../../templates/coalesce/turns_left.tera"),
    ),
    (
        "assistant",
        include_str!("../../../templates/coalesce/assistant.tera"),
    ),
    (
        "feedback",
        include_str!("../../../templates/coalesce/feedback.tera"),
    ),
];

/// The options of the coalesced view: the shared limits, `failed_turn_tool_calls` and
/// `tool_call_results`.
pub fn options() -> Vec<OptionSpec> {
    let mut options = shared_limit_options();
    options.push(OptionSpec::new(
        "failed_turn_tool_calls",
        OptionValue::Boolean(false),
        "also list the tool calls made by failed turns (their side effects happened)",
    ));
    options.push(OptionSpec::new(
        "tool_call_results",
        OptionValue::String("never".into()),
        "\"never\", or \"when_no_println\": show `-> sample` of each tool result when nothing was printed",
    ));
    options
}

/// The user message of the coalesced view of `turns`, with its statistics.
pub fn user_message(run: &Run, turns: &[Turn], settings: &Settings) -> (Message, Stats) {
    let history = History::of(turns, settings);
    let mut sections = first_prompt_head(run, settings);
    sections.extend(history.sections(run, settings));
    sections.push(turns_left_section(run, turns.len()));
    (Message::new(Role::User, sections), history.stats)
}

/// The options the coalesced view reads, checked.
#[derive(Clone, Debug)]
pub struct Settings {
    pub println_limit: usize,
    pub tool_call_limit: usize,
    pub sample: Limits,
    pub tool_args: Limits,
    pub println_char_limit: usize,
    pub failed_turn_tool_calls: bool,
    pub tool_call_results_when_no_println: bool,
}

impl Settings {
    /// The settings from `options`, which declare every option of [`options()`].
    pub fn read(options: &Options) -> Result<Settings, RenderError> {
        Ok(Settings {
            println_limit: options.count("println_limit")?,
            tool_call_limit: options.count("tool_call_limit")?,
            sample: Limits::new(
                options.count("sample_limit")?,
                options.count("sample_printable_limit")?,
            ),
            tool_args: Limits::new(
                options.count("tool_args_limit")?,
                options.count("tool_args_printable_limit")?,
            ),
            println_char_limit: options.count("println_char_limit")?,
            failed_turn_tool_calls: options.boolean("failed_turn_tool_calls")?,
            tool_call_results_when_no_println: options
                .choice("tool_call_results", &["never", "when_no_println"])?
                == "when_no_println",
        })
    }
}

/// The settings of a strategy that declares only some of [`options()`]: those it declares
/// from `options`, the others at their defaults.
pub fn settings_with_defaults(options: &Options) -> Result<Settings, RenderError> {
    let mut all = Options::default();
    for spec in self::options() {
        let value = options
            .get(&spec.name)
            .cloned()
            .unwrap_or_else(|| spec.default.clone());
        all.entries.push(Tuple2(spec.name, value));
    }
    Settings::read(&all)
}

/// `[system]`: the run's system prompt.
pub fn system_message(run: &Run) -> Message {
    Message::new(
        Role::System,
        vec![Section::new("system").with("system_prompt", run.system_prompt.as_str())],
    )
}

/// The sections every prompt starts with: mission, `tool/`, `data/` (each omitted when empty).
pub fn first_prompt_head(run: &Run, settings: &Settings) -> Vec<Section> {
    let mut sections = vec![Section::new("mission").with("mission", run.mission.as_str())];
    if !run.tools.is_empty() {
        sections.push(tools_section(run));
    }
    if !run.data.is_empty() {
        sections.push(data_section(run, settings.sample));
    }
    sections
}

/// `tool/`: every tool with its parameter names and return type, sorted by name.
pub fn tools_section(run: &Run) -> Section {
    let mut tools: Vec<_> = run.tools.iter().collect();
    tools.sort_by(|a, b| a.name.as_str().cmp(b.name.as_str()));
    let tools: Vec<Field> = tools
        .into_iter()
        .map(|tool| {
            let signature =
                parse_tool_signature(tool.signature.as_ref().map(|s| s.as_str()).into());
            let mut record = Record::new()
                .with("name", tool.name.as_str())
                .with("params", signature.params)
                .with("returns", signature.returns);
            if let Some(description) = tool.description.as_ref().into_option() {
                record = record.with("description", description.as_str());
            }
            record.into()
        })
        .collect();
    Section::new("tools").with("tools", tools)
}

/// `data/`: every input with its type and a sample, sorted by name.
pub fn data_section(run: &Run, sample: Limits) -> Section {
    let mut data: Vec<_> = run.data.iter().collect();
    data.sort_by(|a, b| a.0.as_str().cmp(b.0.as_str()));
    let entries: Vec<Field> = data
        .into_iter()
        .map(|entry| {
            Record::new()
                .with("name", entry.0.as_str())
                .with("type", type_label(&entry.1))
                .with("sample", to_clojure(&entry.1, sample))
                .into()
        })
        .collect();
    Section::new("data").with("entries", entries)
}

/// `user/`: functions, then values, each group sorted by name; values show a sample unless
/// anything was printed.
pub fn user_section(memory: &[(&str, &Value)], has_println: bool, sample: Limits) -> Section {
    let mut functions = Vec::new();
    let mut values = Vec::new();
    for &(name, value) in memory {
        if let Value::Function(f) = value {
            let mut record = Record::new().with("name", name).with(
                "params",
                f.params.iter().map(|p| p.to_string()).collect::<Vec<_>>(),
            );
            if let Some(doc) = f.doc.as_ref().into_option() {
                record = record.with("doc", sanitize_doc(doc));
            }
            if let Some(returns) = f.return_type.as_ref().into_option() {
                record = record.with("returns", returns.as_str());
            }
            functions.push((name, record));
        } else {
            let mut record = Record::new()
                .with("name", name)
                .with("type", type_label(value));
            if !has_println {
                record = record.with("sample", to_clojure(value, sample));
            }
            values.push((name, record));
        }
    }
    let sorted = |mut group: Vec<(&str, Record)>| -> Vec<Field> {
        group.sort_by(|a, b| a.0.cmp(b.0));
        group.into_iter().map(|(_, r)| r.into()).collect()
    };
    Section::new("user")
        .with("functions", sorted(functions))
        .with("values", sorted(values))
}

/// `Turns left: N`, or the final-turn warning when N <= 1.
pub fn turns_left_section(run: &Run, turns_so_far: usize) -> Section {
    let turns_left = run.turns_left(turns_so_far);
    Section::new("turns_left")
        .with("turns_left", turns_left)
        .with("final_turn", turns_left <= 1)
}

/// What the turns so far add to the prompt, gathered once.
pub struct History<'a> {
    turns: &'a [Turn],
    /// Tool calls eligible for the list (successful turns, plus failed ones when asked).
    tool_calls: Vec<&'a ToolCall>,
    /// Prints of successful turns.
    prints: Vec<&'a str>,
    /// The memory of the last successful turn.
    memory: Vec<(&'a str, &'a Value)>,
    pub has_println: bool,
    pub stats: Stats,
}

impl<'a> History<'a> {
    pub fn of(turns: &'a [Turn], settings: &Settings) -> History<'a> {
        let successful = || turns.iter().filter(|t| t.success);
        let tool_calls: Vec<_> = turns
            .iter()
            .filter(|t| t.success || settings.failed_turn_tool_calls)
            .flat_map(|t| t.tool_calls.iter())
            .collect();
        let prints: Vec<&str> = successful()
            .flat_map(|t| t.prints.iter().map(|p| p.as_str()))
            .collect();
        let memory = turns
            .iter()
            .rev()
            .find(|t| t.success)
            .map(|t| t.memory.iter().map(|e| (e.0.as_str(), &e.1)).collect())
            .unwrap_or_default();
        let failed = turns.iter().filter(|t| !t.success).count();
        let last_failed = turns.last().is_some_and(|t| !t.success);
        let mut stats = Stats {
            turns_compressed: turns.len() as u64,
            error_turns_collapsed: (failed - usize::from(last_failed)) as u64,
            ..Stats::default()
        };
        count_tool_calls(&mut stats, tool_calls.len(), settings.tool_call_limit);
        count_printlns(&mut stats, prints.len(), settings.println_limit);
        History {
            turns,
            has_println: !prints.is_empty(),
            tool_calls,
            prints,
            memory,
            stats,
        }
    }

    /// `user/`, expected output, tool calls, output and the latest error, as each applies.
    pub fn sections(&self, run: &Run, settings: &Settings) -> Vec<Section> {
        let mut sections = Vec::new();
        if !self.memory.is_empty() {
            sections.push(user_section(
                &self.memory,
                self.has_println,
                settings.sample,
            ));
        }
        if let Some(signature) = run.signature.as_ref().into_option() {
            sections.push(Section::new("expected_output").with("signature", signature.as_str()));
        }
        if !self.turns.is_empty() {
            let with_results = settings.tool_call_results_when_no_println && !self.has_println;
            sections.push(tool_calls_section(&self.tool_calls, settings, with_results));
        }
        if self.has_println {
            sections.push(output_section(&self.prints, settings));
        }
        if let Some(last) = self.turns.last().filter(|t| !t.success) {
            sections.push(error_section(last));
        }
        sections
    }
}

/// `;; Tool calls made:` with the most recent `tool_call_limit` of `calls`, or
/// `;; No tool calls made` when there are none. With `with_results`, each call also shows a
/// sample of its result.
pub fn tool_calls_section(calls: &[&ToolCall], settings: &Settings, with_results: bool) -> Section {
    let skip = calls.len().saturating_sub(settings.tool_call_limit);
    let shown: Vec<Field> = calls[skip..]
        .iter()
        .map(|call| {
            let args = match &call.args {
                Value::Nil => String::new(),
                args => to_clojure(args, settings.tool_args),
            };
            let mut record = Record::new()
                .with("name", call.name.as_str())
                .with("args", args);
            if with_results {
                record = record.with("result", to_clojure(&call.result, settings.sample));
            }
            record.into()
        })
        .collect();
    Section::new("tool_calls")
        .with("total", calls.len())
        .with("calls", shown)
}

/// `;; Output:` with the most recent `println_limit` of `prints`, each cut to
/// `println_char_limit` characters.
pub fn output_section(prints: &[&str], settings: &Settings) -> Section {
    let skip = prints.len().saturating_sub(settings.println_limit);
    let shown: Vec<Field> = prints[skip..]
        .iter()
        .map(|p| cap_chars(p, settings.println_char_limit).into())
        .collect();
    Section::new("output").with("prints", shown)
}

/// The failed turn's program and error (ERR-004).
pub fn error_section(turn: &Turn) -> Section {
    let mut section = Section::new("error");
    if let Some(program) = turn.program.as_ref().into_option() {
        section = section.with("program", program.as_str());
    }
    let reason = turn
        .error
        .as_ref()
        .into_option()
        .map_or("error", |e| e.reason.as_str());
    let message = turn.error_text().unwrap_or("error");
    section.with("reason", reason).with("message", message)
}

/// The prompt without compression: system, the first user message, then per turn the
/// assistant's response and the user feedback (DECISIONS 21). Nothing is compressed: every tool
/// call and print of a successful turn counts as shown.
pub fn uncompressed(run: &Run, turns: &[Turn], settings: &Settings) -> Output {
    let (first, _) = user_message(run, &[], settings);
    let mut messages = vec![system_message(run), first];
    for turn in turns {
        messages.extend(exchange(run, turn));
    }
    Output {
        messages: messages.into(),
        stats: shown_whole(turns),
    }
}

/// Statistics of turns shown whole: nothing compressed, every tool call and print of a
/// successful turn counted as shown.
pub fn shown_whole(turns: &[Turn]) -> Stats {
    let successful = turns.iter().filter(|t| t.success);
    let calls: u64 = successful.clone().map(|t| t.tool_calls.len() as u64).sum();
    let prints: u64 = successful.map(|t| t.prints.len() as u64).sum();
    Stats {
        tool_calls_total: calls,
        tool_calls_shown: calls,
        printlns_total: prints,
        printlns_shown: prints,
        ..Stats::default()
    }
}

/// Counts a tool-calls section of `total` calls, of which the most recent `limit` are shown.
pub fn count_tool_calls(stats: &mut Stats, total: usize, limit: usize) {
    let shown = total.min(limit) as u64;
    stats.tool_calls_total += total as u64;
    stats.tool_calls_shown += shown;
    stats.tool_calls_dropped += total as u64 - shown;
}

/// Counts an output section of `total` println entries, of which the most recent `limit` are
/// shown.
pub fn count_printlns(stats: &mut Stats, total: usize, limit: usize) {
    let shown = total.min(limit) as u64;
    stats.printlns_total += total as u64;
    stats.printlns_shown += shown;
    stats.printlns_dropped += total as u64 - shown;
}

/// A turn as the conversation without compression shows it: the assistant's whole response,
/// then the user's feedback.
pub fn exchange(run: &Run, turn: &Turn) -> [Message; 2] {
    [
        Message::new(
            Role::Assistant,
            vec![Section::new("assistant").with("raw_response", turn.raw_response.as_str())],
        ),
        Message::new(Role::User, vec![feedback_section(run, turn)]),
    ]
}

/// What the user says after a turn without compression: its prints, or its error, and the
/// number of the turn about to run.
pub fn feedback_section(run: &Run, turn: &Turn) -> Section {
    let prints: Vec<Field> = turn.prints.iter().map(|p| p.as_str().into()).collect();
    let error = turn.error_text().unwrap_or("error");
    Section::new("feedback")
        .with("failed", !turn.success)
        .with("prints", prints)
        .with("error", error)
        .with("next_turn", turn.number + 1)
        .with("max_turns", run.max_turns)
}
