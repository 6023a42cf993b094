//! The `tool/` and `data/` sections every prompt of a run starts with, read once per run.
//!
//! Each prompt of a run starts with the same head, and building it read every tool's signature,
//! sorted the tools and the data by name and printed a sample of every input, again for every
//! prompt. What that reading gives ([`Head`]: the order, each tool's parameter names as places
//! in its signature and its return type, each input's type and sample) is kept under the run's
//! key ([`Run::key`], which the host never gives two runs) and the limits it was read with,
//! on the thread that rendered it: the next prompt of the run builds its sections from it,
//! borrowing the names from the run as before. A run without a key (0) is read every time.
//! The sections are the same either way (tested).

use std::borrow::Cow;
use std::cell::RefCell;
use std::ops::Range;

use abi_stable::std_types::RVec;
use ptc_plugin_api::{showing_private, Field, Run, Section, Tool};

use super::sections::{record, section};
use crate::signature::read_tool_signature;
use crate::{is_private_name, to_clojure, type_label, Limits};

/// What the head of a run's prompts is built from.
pub(super) struct Head {
    key: u64,
    sample: Limits,
    /// Whether private values were shown when it was read.
    private_shown: bool,
    /// How many tools and inputs the run has: a run that does not match is read again.
    sizes: (usize, usize),
    /// Per tool, in name order: its place in the run's tools, its parameter names as places in
    /// its signature, its return type.
    tools: Vec<(usize, Vec<Range<usize>>, String)>,
    /// Per input, in name order: its place in the run's data, its type, its sample (none for a
    /// private input).
    data: Vec<(usize, Cow<'static, str>, Option<String>)>,
}

thread_local! {
    /// The head read last on this thread.
    static KEPT: RefCell<Option<Head>> = const { RefCell::new(None) };
}

impl Head {
    /// Reads the head of `run`, its samples cut to `sample`.
    pub(super) fn of(run: &Run, sample: Limits) -> Head {
        Head {
            key: run.key,
            sample,
            private_shown: showing_private(),
            sizes: (run.tools.len(), run.data.len()),
            tools: read_tools(run),
            data: read_data(run, sample),
        }
    }

    /// Whether this is the head of `run` read with `sample`.
    fn is_of(&self, run: &Run, sample: Limits) -> bool {
        run.key != 0
            && self.key == run.key
            && self.sample == sample
            && self.private_shown == showing_private()
            && self.sizes == (run.tools.len(), run.data.len())
    }
}

/// Pushes the `tool/` and `data/` sections of `run` (each unless the run has none), from the
/// head kept for it on this thread, read first when none is.
pub(super) fn push_tools_and_data<'r>(
    run: &'r Run,
    sample: Limits,
    sections: &mut Vec<Section<'r>>,
) {
    if run.tools.is_empty() && run.data.is_empty() {
        return;
    }
    let push = |head: &Head, sections: &mut Vec<Section<'r>>| -> Option<()> {
        let tools = match run.tools.is_empty() {
            true => None,
            false => Some(tools_section(&head.tools, run)?),
        };
        let data = match run.data.is_empty() {
            true => None,
            false => Some(data_section(&head.data, run)?),
        };
        sections.extend(tools.into_iter().chain(data));
        Some(())
    };
    if run.key == 0 {
        if !run.tools.is_empty() {
            sections.push(read_tools_section(run));
        }
        if !run.data.is_empty() {
            sections.push(read_data_section(run, sample));
        }
        return;
    }
    KEPT.with(|kept| {
        let mut kept = kept.borrow_mut();
        if let Some(head) = kept.as_ref().filter(|h| h.is_of(run, sample)) {
            if push(head, sections).is_some() {
                return;
            }
        }
        let head = Head::of(run, sample);
        push(&head, sections).expect("a head read from the run fits it");
        *kept = Some(head);
    });
}

/// Per tool of `run`, in name order: its place in the run's tools, its parameter names as
/// places in its signature, its return type.
pub(super) fn read_tools(run: &Run) -> Vec<(usize, Vec<Range<usize>>, String)> {
    let mut order: Vec<usize> = (0..run.tools.len()).collect();
    order.sort_by(|&a, &b| run.tools[a].name.as_str().cmp(run.tools[b].name.as_str()));
    order
        .into_iter()
        .map(|i| {
            let signature: Option<&str> =
                run.tools[i].signature.as_ref().map(|s| s.as_str()).into();
            let start = signature.map_or(0, |s| s.as_ptr() as usize);
            let mut params = Vec::new();
            let returns = read_tool_signature(signature, |name| {
                let at = name.as_ptr() as usize - start;
                params.push(at..at + name.len());
            });
            (i, params, returns)
        })
        .collect()
}

/// Per input of `run`, in name order: its place in the run's data, its type, its sample cut to
/// `sample` (none for a private input).
pub(super) fn read_data(
    run: &Run,
    sample: Limits,
) -> Vec<(usize, Cow<'static, str>, Option<String>)> {
    let mut order: Vec<usize> = (0..run.data.len()).collect();
    order.sort_by(|&a, &b| run.data[a].0.as_str().cmp(run.data[b].0.as_str()));
    order
        .into_iter()
        .map(|i| {
            let entry = &run.data[i];
            let shown = (!is_private_name(&entry.0)).then(|| to_clojure(&entry.1, sample));
            (i, type_label(&entry.1), shown)
        })
        .collect()
}

/// `tool/` read from `run` as it is built, for a run whose head is not kept: every tool with its
/// parameter names and return type, sorted by name.
pub(super) fn read_tools_section(run: &Run) -> Section<'_> {
    let mut tools: Vec<&Tool> = run.tools.iter().collect();
    tools.sort_by(|a, b| a.name.as_str().cmp(b.name.as_str()));
    let mut fields = RVec::with_capacity(tools.len());
    for tool in tools {
        let mut params = RVec::new();
        let signature = tool.signature.as_ref().map(|s| s.as_str()).into();
        let returns = read_tool_signature(signature, |name| params.push(Field::from(name)));
        fields.push(tool_record(tool, params, returns));
    }
    section("tools", 1).with("tools", Field::List(fields))
}

/// `data/` read from `run` as it is built, for a run whose head is not kept: every input with
/// its type and a sample cut to `sample`, sorted by name; a private input has `hidden` (true)
/// instead of a sample.
pub(super) fn read_data_section(run: &Run, sample: Limits) -> Section<'_> {
    let mut data: Vec<_> = run.data.iter().collect();
    data.sort_by(|a, b| a.0.as_str().cmp(b.0.as_str()));
    let mut entries = RVec::with_capacity(data.len());
    for entry in data {
        let shown = (!is_private_name(&entry.0)).then(|| to_clojure(&entry.1, sample));
        entries.push(data_record(&entry.0, type_label(&entry.1), shown));
    }
    section("data", 1).with("entries", Field::List(entries))
}

/// A tool of `tool/`: its name, parameter names, return type and description (when it has one).
fn tool_record<'r>(tool: &'r Tool, params: RVec<Field<'r>>, returns: String) -> Field<'r> {
    let mut record = record(4)
        .with("name", tool.name.as_str())
        .with("params", Field::List(params))
        .with("returns", returns);
    if let Some(description) = tool.description.as_ref().into_option() {
        record = record.with("description", description.as_str());
    }
    record.into()
}

/// An input of `data/`: its name, type and sample, or `hidden` (true) for a private one.
fn data_record<'r>(name: &'r str, label: Cow<'static, str>, sample: Option<String>) -> Field<'r> {
    let record = record(3).with("name", name).with("type", label);
    match sample {
        Some(sample) => record.with("sample", sample).into(),
        None => record.with("hidden", true).into(),
    }
}

/// `tool/` from `tools` ([`read_tools`]): every tool with its parameter names and return type,
/// sorted by name; `None` when a place is not in `run` (a run that is not the one read).
pub(super) fn tools_section<'r>(
    tools: &[(usize, Vec<Range<usize>>, String)],
    run: &'r Run,
) -> Option<Section<'r>> {
    let mut fields = RVec::with_capacity(tools.len());
    for (i, params, returns) in tools {
        let tool = run.tools.get(*i)?;
        let signature = tool.signature.as_ref().map_or("", |s| s.as_str());
        let mut names = RVec::with_capacity(params.len());
        for place in params {
            names.push(Field::from(signature.get(place.clone())?));
        }
        fields.push(tool_record(tool, names, returns.clone()));
    }
    Some(section("tools", 1).with("tools", Field::List(fields)))
}

/// `data/` from `data` ([`read_data`]): every input with its type and a sample, sorted by name;
/// a private input has `hidden` (true) instead of a sample. `None` when a place is not in `run`.
pub(super) fn data_section<'r>(
    data: &[(usize, Cow<'static, str>, Option<String>)],
    run: &'r Run,
) -> Option<Section<'r>> {
    let mut entries = RVec::with_capacity(data.len());
    for (i, label, sample) in data {
        let entry = run.data.get(*i)?;
        entries.push(data_record(&entry.0, label.clone(), sample.clone()));
    }
    Some(section("data", 1).with("entries", Field::List(entries)))
}

#[cfg(test)]
mod tests {
    use abi_stable::std_types::{ROption, RString, Tuple2};
    use ptc_plugin_api::{Tool, Value};

    use super::*;

    fn run(key: u64, data: &[(&str, Value)]) -> Run {
        let tool = |name: &str, signature: Option<&str>, description: Option<&str>| Tool {
            name: name.into(),
            signature: signature.map(RString::from).into(),
            description: description.map(RString::from).into(),
        };
        Run {
            mission: "m".into(),
            system_prompt: "s".into(),
            tools: vec![
                tool(
                    "search",
                    Some("(query :string, limit :int) -> [:map]"),
                    Some("Finds."),
                ),
                tool("add", Some("  (a :int, b :int) -> :int "), None),
                tool("now", None, None),
            ]
            .into(),
            data: data
                .iter()
                .map(|(name, value)| Tuple2(RString::from(*name), value.clone()))
                .collect(),
            max_turns: 5,
            signature: ROption::RNone,
            key,
        }
    }

    fn head(run: &Run, sample: Limits) -> Vec<Section<'_>> {
        let mut sections = Vec::new();
        push_tools_and_data(run, sample, &mut sections);
        sections
    }

    #[test]
    fn a_kept_head_gives_the_sections_a_run_read_anew_gives() {
        let long = Value::List((0..40).map(Value::Integer).collect::<Vec<_>>().into());
        let data = [
            ("rows", long.clone()),
            ("_secret", Value::Integer(7)),
            ("name", Value::String("x".into())),
        ];
        let small = Limits {
            limit: 3,
            printable_limit: 10,
        };
        let unkeyed = run(0, &data);
        let anew = head(&unkeyed, small);
        assert_eq!(anew.len(), 2);
        assert_eq!(
            anew[0],
            tools_section(&read_tools(&unkeyed), &unkeyed).unwrap()
        );
        // Read, then kept: the second prompt of the run gives the same sections.
        let keyed = run(41, &data);
        assert_eq!(head(&keyed, small), anew);
        assert_eq!(head(&keyed, small), anew);
        // Other limits, or another run, are read again, not taken from what was kept.
        assert_eq!(head(&keyed, Limits::NONE), head(&unkeyed, Limits::NONE));
        let other = [("rows", Value::Integer(1))];
        let (other_keyed, other_unkeyed) = (run(42, &other), run(0, &other));
        assert_eq!(head(&other_keyed, small), head(&other_unkeyed, small));
        assert_ne!(head(&other_keyed, small), anew);
        assert_eq!(head(&keyed, small), anew);
        // A run with neither tools nor data has no head sections.
        let mut bare = run(43, &[]);
        bare.tools = RVec::new();
        assert!(head(&bare, small).is_empty());
    }

    #[test]
    fn parameter_names_are_borrowed_from_the_signature_they_were_read_in() {
        let run = run(44, &[]);
        let tools = read_tools(&run);
        let names: Vec<&str> = tools
            .iter()
            .map(|(i, _, _)| run.tools[*i].name.as_str())
            .collect();
        assert_eq!(names, ["add", "now", "search"]);
        let signature = run.tools[1].signature.as_ref().unwrap().as_str();
        let params: Vec<&str> = tools[0].1.iter().map(|r| &signature[r.clone()]).collect();
        assert_eq!(params, ["a", "b"]);
        assert_eq!(tools[0].2, "int");
        assert!(tools[1].1.is_empty());
    }
}
