//! The `tool/` and `data/` sections every prompt of a run starts with, built once per run.
//!
//! Each prompt of a run starts with the same head, and building it read every tool's signature,
//! sorted the tools and the data by name and printed a sample of every input, again for every
//! prompt; the host then compared the head with the previous prompt's, field by field, and
//! dropped it. The head's two fields (the tool list, the input list) are instead built once,
//! their text copied out of the run, and kept ([`Head`]) under the run's key ([`Run::key`],
//! which the host never gives two runs) and the limits they were read with, on the thread that
//! rendered them: every prompt of the run hands the host the same [`Field::Shared`] fields,
//! which it knows by their address. A run without a key (0) is read every time, its names
//! borrowed from the run. The sections read the same either way (tested).

use std::borrow::Cow;
use std::cell::RefCell;

use abi_stable::std_types::RVec;
use ptc_plugin_api::{showing_private, Field, Run, Section, Tool};

use super::sections::{record, section};
use crate::signature::read_tool_signature;
use crate::{is_private_name, to_clojure, type_label, Limits};

/// The head of a run's prompts: its fields, shared by every prompt of the run.
pub(super) struct Head {
    key: u64,
    sample: Limits,
    /// Whether private values were shown when it was read.
    private_shown: bool,
    /// How many tools and inputs the run has: a run that does not match is read again.
    sizes: (usize, usize),
    /// The `tools` field of `tool/`, shared.
    tools: Field<'static>,
    /// The `entries` field of `data/`, shared.
    data: Field<'static>,
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
            tools: Field::shared(tools_field(run)),
            data: Field::shared(data_field(run, sample)),
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

    /// The head's sections, as [`read_tools_section`] and [`read_data_section`] give them.
    fn push<'r>(&self, run: &Run, sections: &mut Vec<Section<'r>>) {
        if !run.tools.is_empty() {
            sections.push(section("tools", 1).with("tools", self.tools.clone()));
        }
        if !run.data.is_empty() {
            sections.push(section("data", 1).with("entries", self.data.clone()));
        }
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
        match kept.as_ref().filter(|head| head.is_of(run, sample)) {
            Some(head) => head.push(run, sections),
            None => {
                let head = Head::of(run, sample);
                head.push(run, sections);
                *kept = Some(head);
            }
        }
    });
}

/// `tool/` read from `run` as it is built, for a run whose head is not kept: every tool with its
/// parameter names and return type, sorted by name.
pub(super) fn read_tools_section(run: &Run) -> Section<'_> {
    section("tools", 1).with("tools", tools_field(run))
}

/// `data/` read from `run` as it is built, for a run whose head is not kept: every input with
/// its type and a sample cut to `sample`, sorted by name; a private input has `hidden` (true)
/// instead of a sample.
pub(super) fn read_data_section(run: &Run, sample: Limits) -> Section<'_> {
    section("data", 1).with("entries", data_field(run, sample))
}

/// The tools of `run`, sorted by name, each with its parameter names (borrowed from its
/// signature) and return type.
fn tools_field(run: &Run) -> Field<'_> {
    let mut tools: Vec<&Tool> = run.tools.iter().collect();
    tools.sort_by(|a, b| a.name.as_str().cmp(b.name.as_str()));
    let mut fields = RVec::with_capacity(tools.len());
    for tool in tools {
        let mut params = RVec::new();
        let signature = tool.signature.as_ref().map(|s| s.as_str()).into();
        let returns = read_tool_signature(signature, |name| params.push(Field::from(name)));
        fields.push(tool_record(tool, params, returns));
    }
    Field::List(fields)
}

/// The inputs of `run`, sorted by name, each with its type and a sample cut to `sample`.
fn data_field(run: &Run, sample: Limits) -> Field<'_> {
    let mut data: Vec<_> = run.data.iter().collect();
    data.sort_by(|a, b| a.0.as_str().cmp(b.0.as_str()));
    let mut entries = RVec::with_capacity(data.len());
    for entry in data {
        let shown = (!is_private_name(&entry.0)).then(|| to_clojure(&entry.1, sample));
        entries.push(data_record(&entry.0, type_label(&entry.1), shown));
    }
    Field::List(entries)
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
        assert_eq!(anew[0], read_tools_section(&unkeyed));
        assert_eq!(anew[1], read_data_section(&unkeyed, small));
        // Read, then kept: the second prompt of the run gives the same sections, made of the
        // same shared fields (one allocation each); a run without a key shares nothing.
        let keyed = run(41, &data);
        let (first, second) = (head(&keyed, small), head(&keyed, small));
        assert_eq!(first, anew);
        assert_eq!(second, anew);
        for (a, b) in first.iter().zip(&second) {
            assert!(a.fields[0].1.same_shared(&b.fields[0].1), "{a:?}");
        }
        assert!(!anew[0].fields[0]
            .1
            .same_shared(&head(&unkeyed, small)[0].fields[0].1));
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
    fn a_run_without_a_key_lends_its_names_and_a_kept_head_copies_them() {
        let run = run(0, &[]);
        let section = read_tools_section(&run);
        let Field::List(tools) = &section.fields[0].1 else {
            panic!("{section:?}")
        };
        let text = |field: &Field| match field.resolve() {
            Field::Text(text) => (text.as_str().to_owned(), text.as_ptr()),
            other => panic!("{other:?}"),
        };
        let Field::Record(add) = &tools[0] else {
            panic!("{:?}", tools[0])
        };
        assert_eq!(
            text(&add[0].1),
            ("add".to_owned(), run.tools[1].name.as_ptr())
        );
        let Field::List(params) = &add[1].1 else {
            panic!("{add:?}")
        };
        let signature = run.tools[1].signature.as_ref().unwrap().as_str();
        let names: Vec<_> = params.iter().map(text).collect();
        assert_eq!(names[0], ("a".to_owned(), signature[3..].as_ptr()));
        assert_eq!(names[1].0, "b");
        assert_eq!(text(&add[2].1).0, "int");
        // Kept, the same names are copies: the head outlives no run it borrowed from.
        let keyed = Run {
            key: 45,
            ..run.clone()
        };
        let kept = head(&keyed, Limits::NONE);
        assert_eq!(kept[0], section);
        let Field::List(tools) = kept[0].fields[0].1.resolve() else {
            panic!("{kept:?}")
        };
        let Field::Record(add) = &tools[0] else {
            panic!("{:?}", tools[0])
        };
        assert_ne!(text(&add[0].1).1, keyed.tools[1].name.as_ptr());
    }
}
