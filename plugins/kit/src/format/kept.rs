//! What is printed of a run's values, kept while the run renders.
//!
//! The prompts of a run show the same values again and again: every earlier tool call's
//! arguments in the coalesced view's `;; Tool calls made:`, the latest memory's samples in
//! `user/` while no turn redefines them. Printing a value walks it, escapes its strings and
//! formats its numbers, for every prompt of every strategy. A value of a run with a key
//! ([`Run::key`](ptc_plugin_api::Run)) lives at one address while the run renders (its
//! turns do not move), so what it printed as, with each limits, is kept on the thread by that
//! address until a render of another run starts ([`crate::kept`]); a render of a run without
//! a key prints every time. The text is the same either way (tested).
//!
//! A sample kept is a [`Field::Shared`] text: the prompts that show it hand the host the same
//! field, which it knows by its address ([`Printing::sample_field`]), instead of a copy of the
//! text that it would hash and compare again.

use std::cell::RefCell;

use ptc_plugin_api::{rendering_run, showing_private, Field, Value};

use super::{to_clojure_shown, Limits};
use crate::kept::ByRun;

thread_local! {
    /// By the value's address and the limits it was printed with: its text, shared.
    static KEPT: RefCell<ByRun<(usize, Limits), Field<'static>>> = RefCell::default();
}

/// [`to_clojure`](super::to_clojure) of a value of the run being rendered on this thread: printed once per run,
/// value and limits. `value` must be the run's (borrowed from its data or its turns), not
/// one built for the render.
pub(crate) fn sample_of_run(value: &Value, limits: Limits) -> String {
    let printing = Printing::now();
    match printing.kept(value, limits) {
        Some(sample) => match sample.resolve() {
            Field::Text(text) => text.as_str().to_owned(),
            other => unreachable!("a sample is a text: {other:?}"),
        },
        None => printing.print(value, limits),
    }
}

/// What printing a run's value depends on besides the value: the run being rendered on this
/// thread ([`rendering_run`]) and whether private values are shown ([`showing_private`]).
/// Read once for the values of a section: in a dylib each read of a thread's value is a call.
#[derive(Clone, Copy)]
pub(crate) struct Printing {
    run: u64,
    private: bool,
}

impl Printing {
    /// As the render running on this thread sets them.
    pub(crate) fn now() -> Printing {
        Printing {
            run: rendering_run(),
            private: showing_private(),
        }
    }

    /// [`sample_of_run`] as a field: the same shared field for every prompt of the run (a
    /// text of its own for a run without a key).
    pub(crate) fn sample_field(self, value: &Value, limits: Limits) -> Field<'static> {
        self.kept(value, limits)
            .unwrap_or_else(|| Field::from(self.print(value, limits)))
    }

    /// `value` printed as the render shows it.
    fn print(self, value: &Value, limits: Limits) -> String {
        to_clojure_shown(value, limits, self.private)
    }

    /// The sample of `value` kept for the run being rendered, printed first when none is; none
    /// for a run without a key (without reading the thread's list).
    fn kept(self, value: &Value, limits: Limits) -> Option<Field<'static>> {
        if self.run == 0 {
            return None;
        }
        let key = (std::ptr::from_ref(value) as usize, limits);
        KEPT.with(|kept| {
            kept.borrow_mut().get_in(self.run, self.private, key, || {
                Field::shared(Field::from(self.print(value, limits)))
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use abi_stable::std_types::{RArc, ROption, RVec, Tuple2};
    use ptc_plugin_api::{
        Message, OptionSpec, Options, Output, RenderError, Role, Run, Strategy, ToolCall, Turn,
        Value,
    };

    use crate::coalesce::{self, tool_calls_section, user_section};
    use crate::kept::testing::{self, run};

    /// Shows the last turn's memory with samples, and every call with its arguments and result,
    /// through the kit's sections.
    struct Shows;

    impl Strategy for Shows {
        const NAME: &'static str = "shows";
        const DESCRIPTION: &'static str = "test";
        fn options() -> Vec<OptionSpec> {
            coalesce::options()
        }
        fn templates() -> Vec<(&'static str, &'static str)> {
            Vec::new()
        }
        fn render<'r>(
            _run: &'r Run,
            turns: &'r [Turn],
            options: &Options,
        ) -> Result<Output<'r>, RenderError> {
            let settings = coalesce::settings_with_defaults(options)?;
            let memory: Vec<(&str, &Value)> = turns
                .last()
                .map(|t| t.memory.iter().map(|e| (e.0.as_str(), &*e.1)).collect())
                .unwrap_or_default();
            let calls: Vec<&ToolCall> = turns.iter().flat_map(|t| t.tool_calls.iter()).collect();
            let sections = vec![
                user_section(&memory, false, settings.sample),
                tool_calls_section(&calls, &settings, true),
            ];
            Ok(Output {
                messages: vec![Message::new(Role::User, sections)].into(),
                stats: Default::default(),
            })
        }
    }

    /// Turns whose memory and calls hold values built from `seed`.
    fn turns(seed: i64) -> Vec<Turn> {
        (0..4)
            .map(|n| {
                let list = Value::List((0..n + seed).map(Value::Integer).collect());
                let text = Value::string(&"é\"x".repeat((n + seed) as usize));
                Turn {
                    number: n as u32 + 1,
                    raw_response: "".into(),
                    program: ROption::RNone,
                    success: true,
                    result: Value::Nil,
                    error: ROption::RNone,
                    prints: RVec::new(),
                    tool_calls: vec![ToolCall {
                        name: "search".into(),
                        args: text.clone(),
                        result: list.clone(),
                    }]
                    .into(),
                    memory: vec![
                        Tuple2("a".into(), RArc::new(list)),
                        Tuple2("b".into(), RArc::new(text)),
                    ]
                    .into(),
                    defined: RVec::new(),
                }
            })
            .collect()
    }

    /// Every prompt of `run` over `turns`, rendered through [`Shows`].
    fn outputs<'r>(run: &'r Run, turns: &'r [Turn]) -> Vec<Output<'r>> {
        testing::outputs::<Shows>(run, turns)
    }

    /// [`outputs`] as text, for a run without a key (whose samples are not shared).
    fn prompts(run: &Run, turns: &[Turn]) -> Vec<String> {
        assert_eq!(run.key, 0);
        let outputs = outputs(run, turns);
        outputs.iter().map(|output| format!("{output:?}")).collect()
    }

    /// Whether the prompts of `run` over `turns` are those of a run without a key over them:
    /// the same texts, a sample shared or not.
    fn as_printed_anew(run: &Run, turns: &[Turn]) -> bool {
        testing::as_made_anew::<Shows>(run, turns)
    }

    /// Samples kept for a run follow whether the render shows private values: each render,
    /// hiding them or showing them in turn, prints as a run without a key does, and only the
    /// renders that show them print the private entries.
    #[test]
    fn samples_kept_follow_whether_private_values_are_shown() {
        use abi_stable::std_types::{RResult, RSlice};
        use ptc_plugin_api::{module_for, OptionValue, SHOW_PRIVATE};
        let secret = crate::map_from(vec![
            (Value::keyword("_secret"), Value::Integer(41)),
            (Value::keyword("shown"), Value::Integer(1)),
        ])
        .unwrap();
        let mut turns = turns(1);
        turns[0].tool_calls = vec![ToolCall {
            name: "search".into(),
            args: secret.clone(),
            result: secret.clone(),
        }]
        .into();
        turns[0].memory = vec![Tuple2("m".into(), RArc::new(secret))].into();
        let render = module_for::<Shows>("0").render();
        let (keyed, unkeyed) = (run(11), run(0));
        let hidden = Options::default();
        let shown = Options::from_pairs([(SHOW_PRIVATE.to_owned(), OptionValue::Boolean(true))]);
        for (options, shows) in [
            (&hidden, false),
            (&shown, true),
            (&hidden, false),
            (&shown, true),
        ] {
            let [kept, anew] = [&keyed, &unkeyed].map(|run| {
                match render(run, RSlice::from_slice(&turns[..1]), options) {
                    RResult::ROk(output) => output,
                    RResult::RErr(err) => panic!("{err:?}"),
                }
            });
            // Equal outputs: a sample kept is shared, one printed anew is not.
            assert_eq!(kept, anew);
            let kept = format!("{kept:?}");
            assert_eq!(kept.contains(":_secret 41"), shows, "{kept}");
            assert!(kept.contains(":shown 1"), "{kept}");
        }
    }

    #[test]
    fn samples_kept_for_a_run_are_those_printed_anew() {
        let (first, second) = (turns(1), turns(5));
        let anew = (prompts(&run(0), &first), prompts(&run(0), &second));
        let sample = r#"Tuple2("sample", Text("[0 1]"))"#;
        assert!(anew.0[2].contains(sample), "{}", anew.0[2]);
        assert_ne!(anew.0, anew.1);
        // Each run's prompts twice, and the runs in turn: the same text as printed anew.
        for _ in 0..2 {
            assert!(as_printed_anew(&run(7), &first));
            assert!(as_printed_anew(&run(7), &first));
            assert!(as_printed_anew(&run(8), &second));
        }
        // A sample kept is shared: the next prompt of the run hands over the same field.
        let (keyed, shared) = (run(7), r#"Tuple2("sample", Shared(Text("[0 1]")))"#);
        let kept = format!("{:?}", outputs(&keyed, &first)[2]);
        assert!(kept.contains(shared), "{kept}");
        // Another run's values where the first run's were, once those are gone: its own.
        drop(first);
        let third = turns(2);
        assert!(as_printed_anew(&run(9), &third));
        assert_eq!(
            ptc_plugin_api::rendering_run(),
            0,
            "set back after each render"
        );
    }
}
