//! The sections of the coalesced view, each from the part of the run or of its history it shows:
//! the head every prompt starts with (mission, `tool/`, `data/`), then `user/`, the tool calls,
//! the output, the latest error and the turns left. Each names the template of the same name;
//! what a section holds is cut to the limits of the [`Settings`].

use std::borrow::Cow;

use abi_stable::std_types::{RStr, RVec};
use ptc_plugin_api::{Field, Function, Record, Run, Section, ToolCall, Turn, Value};

use super::{head, Settings};
use crate::format::Printing;
use crate::{cap_chars, is_private_name, one_line, sanitize_doc, type_label, Limits};

/// An empty record with room for `fields` fields: records and sections are built with their
/// size known, without growing.
pub(super) fn record<'a>(fields: usize) -> Record<'a> {
    Record(RVec::with_capacity(fields))
}

/// A section of template `template` with room for `fields` fields.
pub(super) fn section<'a>(template: &'static str, fields: usize) -> Section<'a> {
    Section {
        template: RStr::from_str(template),
        fields: RVec::with_capacity(fields),
    }
}

/// The sections every prompt starts with: mission, `tool/`, `data/` (each omitted when empty).
pub fn first_prompt_head<'r>(run: &'r Run, settings: &Settings) -> Vec<Section<'r>> {
    let mut sections = Vec::with_capacity(3);
    push_head(run, settings, &mut sections);
    sections
}

/// [`first_prompt_head`], pushed onto `sections`.
pub fn push_head<'r>(run: &'r Run, settings: &Settings, sections: &mut Vec<Section<'r>>) {
    sections.push(section("mission", 1).with("mission", run.mission.as_str()));
    head::push_tools_and_data(run, settings.sample, sections);
}

/// `tool/`: every tool with its parameter names and return type, sorted by name.
pub fn tools_section(run: &Run) -> Section<'_> {
    head::read_tools_section(run)
}

/// `data/`: every input with its type and a sample, sorted by name. A private input (its name
/// starts with `_`) has `hidden` (true) instead of a sample.
pub fn data_section(run: &Run, sample: Limits) -> Section<'_> {
    head::read_data_section(run, sample)
}

/// The column at which `user/`'s comments start: a function's head or a value's name is followed
/// by spaces up to it, and at least one.
pub const USER_COMMENT_COLUMN: usize = 30;

/// The spaces after `text` that bring the next character to [`USER_COMMENT_COLUMN`], at least
/// one.
fn padding(text: &str) -> &'static str {
    const SPACES: &str = "                              ";
    let spaces = USER_COMMENT_COLUMN
        .saturating_sub(text.chars().count())
        .max(1);
    &SPACES[..spaces]
}

/// `user/`: functions, then values, each group sorted by name; values show a sample unless
/// anything was printed. A private value (its name starts with `_`) has `hidden` (true) and
/// never a sample. A function's `head` is its name and parameters as Clojure writes them,
/// `(name [a b])`; `pad` (after a function's head or a value's name) is the spaces up to
/// [`USER_COMMENT_COLUMN`], so that templates lay out the column without a filter call per line.
/// The values are the run's (borrowed from its turns): their samples are printed once per run
/// and kept while it renders.
pub fn user_section<'r>(
    memory: &[(&'r str, &'r Value)],
    has_println: bool,
    sample: Limits,
) -> Section<'r> {
    // Sorted once by name (stably, as each group was before), then split: each record is built
    // where it stays, in the list the section hands over. A memory already in order (as a
    // recording's usually is) is read as it is.
    let sorted: Cow<[(&'r str, &'r Value)]> = if memory.is_sorted_by(|a, b| a.0 <= b.0) {
        Cow::Borrowed(memory)
    } else {
        let mut sorted = memory.to_vec();
        sorted.sort_by(|a, b| a.0.cmp(b.0));
        Cow::Owned(sorted)
    };
    let function_count = sorted.iter().filter(|e| e.1.is_function()).count();
    let mut functions = Vec::with_capacity(function_count);
    let mut values = Vec::with_capacity(sorted.len() - function_count);
    let printing = Printing::now();
    for &(name, value) in sorted.iter() {
        match value {
            Value::Function(f) => functions.push(function_record(name, f)),
            value => values.push(value_record(name, value, has_println, sample, printing)),
        }
    }
    section("user", 2)
        .with("functions", functions)
        .with("values", values)
}

/// A function of `user/`: `name`, `params`, `head`, `pad`, and `doc` and `returns` when known.
fn function_record<'r>(name: &'r str, f: &'r Function) -> Field<'r> {
    let mut head = String::with_capacity(name.len() + 4 + f.params.len() * 8);
    head.push('(');
    head.push_str(name);
    head.push_str(" [");
    let mut params = RVec::with_capacity(f.params.len());
    for (i, param) in f.params.iter().enumerate() {
        if i > 0 {
            head.push(' ');
        }
        let param = one_line(param);
        head.push_str(&param);
        params.push(param.into());
    }
    head.push_str("])");
    let pad = padding(&head);
    let params = Field::List(params);
    let mut record = record(6)
        .with("name", name)
        .with("params", params)
        .with("head", head)
        .with("pad", Field::text_static(pad));
    if let Some(doc) = f.doc.as_ref().into_option() {
        record = record.with("doc", sanitize_doc(doc));
    }
    if let Some(returns) = f.return_type.as_ref().into_option() {
        record = record.with("returns", one_line(returns));
    }
    record.into()
}

/// A value of `user/`: `name`, `pad`, `type`, and `hidden` (private) or `sample` (unless
/// anything was printed).
fn value_record<'r>(
    name: &'r str,
    value: &Value,
    has_println: bool,
    sample: Limits,
    printing: Printing,
) -> Field<'r> {
    let mut record = record(4)
        .with("name", name)
        .with("pad", Field::text_static(padding(name)))
        .with("type", type_label(value));
    if is_private_name(name) {
        record = record.with("hidden", true);
    } else if !has_println {
        let sample: Field<'r> = printing.sample_field(value, sample);
        record = record.with("sample", sample);
    }
    record.into()
}

/// `Turns left: N`, or the final-turn warning when N <= 1.
pub fn turns_left_section<'r>(run: &Run, turns_so_far: usize) -> Section<'r> {
    let turns_left = run.turns_left(turns_so_far);
    section("turns_left", 2)
        .with("turns_left", turns_left)
        .with("final_turn", turns_left <= 1)
}

/// `;; Tool calls made:` with the most recent `tool_call_limit` of `calls`, or
/// `;; No tool calls made` when there are none. With `with_results`, each call also shows a
/// sample of its result. Arguments and results leave out private map entries, as every printed
/// value does. The calls are the run's (borrowed from its turns): what they print is printed
/// once per run and kept while it renders.
pub fn tool_calls_section<'r>(
    calls: &[&'r ToolCall],
    settings: &Settings,
    with_results: bool,
) -> Section<'r> {
    let skip = calls.len().saturating_sub(settings.tool_call_limit);
    let printing = Printing::now();
    let shown: Vec<Field> = calls[skip..]
        .iter()
        .map(|call| {
            let args: Field<'r> = match &call.args {
                Value::Nil => Field::text_static(""),
                args => printing.sample_field(args, settings.tool_args),
            };
            let mut record = record(if with_results { 3 } else { 2 })
                .with("name", call.name.as_str())
                .with("args", args);
            if with_results {
                let result: Field<'r> = printing.sample_field(&call.result, settings.sample);
                record = record.with("result", result);
            }
            record.into()
        })
        .collect();
    section("tool_calls", 2)
        .with("total", calls.len())
        .with("calls", shown)
}

/// `;; Output:` with the most recent `println_limit` of `prints`, each cut to
/// `println_char_limit` characters.
pub fn output_section<'r>(prints: &[&'r str], settings: &Settings) -> Section<'r> {
    let skip = prints.len().saturating_sub(settings.println_limit);
    let shown: Vec<Field> = prints[skip..]
        .iter()
        .map(|p| cap_chars(p, settings.println_char_limit).into())
        .collect();
    section("output", 1).with("prints", shown)
}

/// The failed turn's program and error (its reason stands in for a missing message).
pub fn error_section(turn: &Turn) -> Section<'_> {
    let mut section = section("error", 3);
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

#[cfg(test)]
mod tests {
    use abi_stable::std_types::{ROption, RVec};
    use ptc_plugin_api::{Function, Value};

    use super::*;

    fn text<'a>(record: &'a Field<'_>, name: &str) -> &'a str {
        let Field::Record(fields) = record else {
            panic!("not a record: {record:?}")
        };
        match fields.iter().find(|f| f.0.as_str() == name).map(|f| &f.1) {
            Some(Field::Text(text)) => text.as_str(),
            other => panic!("{name}: {other:?}"),
        }
    }

    #[test]
    fn heads_and_names_are_padded_to_the_comment_column_with_at_least_one_space() {
        let function = |params: &[&str]| {
            Value::Function(Function {
                params: params.iter().map(|p| (*p).into()).collect::<RVec<_>>(),
                doc: ROption::RNone,
                return_type: ROption::RNone,
            })
        };
        let long = "a-name-of-exactly-thirty-chars";
        assert_eq!(long.chars().count(), USER_COMMENT_COLUMN);
        let (f, g, n) = (
            function(&["order", "weight"]),
            function(&[]),
            Value::Integer(1),
        );
        let memory = [("score", &f), ("ünïcode", &g), (long, &n), ("x", &n)];
        let limits = Limits {
            limit: 3,
            printable_limit: 80,
        };
        let section = user_section(&memory, false, limits);
        let field = |name: &str| {
            section
                .fields
                .iter()
                .find(|f| f.0.as_str() == name)
                .map(|f| f.1.clone())
                .unwrap()
        };
        let Field::List(functions) = field("functions") else {
            panic!()
        };
        assert_eq!(text(&functions[0], "head"), "(score [order weight])");
        assert_eq!(text(&functions[0], "pad"), " ".repeat(30 - 22));
        // Characters, not bytes, count toward the column.
        assert_eq!(text(&functions[1], "head"), "(ünïcode [])");
        assert_eq!(text(&functions[1], "pad"), " ".repeat(30 - 12));
        let Field::List(values) = field("values") else {
            panic!()
        };
        assert_eq!(text(&values[0], "name"), long);
        assert_eq!(text(&values[0], "pad"), " ", "at least one space");
        assert_eq!(text(&values[1], "pad"), " ".repeat(29));
    }
}
