//! A run's observations, kept while the run renders.
//!
//! Every prompt of a transcript shows the observations of the turns before it, and each was
//! cut to its cap again for every prompt: the program's value copied out of its kept sample,
//! every character of it and of the prints counted, the section built, then compared by the
//! host with the previous prompt's and dropped. A turn of a run with a key
//! ([`Run::key`](ptc_plugin_api::Run)) lives at one address while the run renders (its turns do
//! not move), so its observation is kept on the thread by that address and the cap until a
//! render of another run starts ([`crate::kept`]), as a shared message (its texts and its list
//! of prints `Field::Shared` fields): every prompt of the run hands the host the same message,
//! which it knows by its address. A run without a key builds it every time. The observation is
//! the same either way (tested).

use std::cell::RefCell;

use ptc_plugin_api::{Message, Run, Turn};

use super::{observation_of, Observation};
use crate::kept::{shared_section, ByRun};

thread_local! {
    /// By the turn's address and the cap: its observation, its fields shared.
    static KEPT: RefCell<ByRun<(usize, usize), Observation<'static>>> = RefCell::default();
}

/// [`observation_of`] a turn of `run`, the run being rendered on this thread: cut once per
/// run, turn and cap. `turn` must be the run's (borrowed from its turns), not one built for
/// the render.
pub(super) fn observation<'r>(run: &'r Run, turn: &'r Turn, cap: usize) -> Observation<'r> {
    let key = (std::ptr::from_ref(turn) as usize, cap);
    let kept = KEPT.with(|kept| {
        kept.borrow_mut()
            .get(key, || shared(observation_of(run, turn, cap)))
    });
    kept.unwrap_or_else(|| observation_of(run, turn, cap))
}

/// The characters of `turn`'s response, counted once per run.
pub(super) fn response_chars(turn: &Turn) -> usize {
    let count = || turn.raw_response.chars().count();
    let kept = RESPONSE_CHARS.with(|kept| {
        kept.borrow_mut()
            .get(std::ptr::from_ref(turn) as usize, count)
    });
    kept.unwrap_or_else(count)
}

thread_local! {
    /// By the turn's address: the characters of its response.
    static RESPONSE_CHARS: RefCell<ByRun<usize, usize>> = RefCell::default();
}

/// `observation` with its texts and lists shared fields, in a message shared by the prompts
/// that show it.
fn shared(observation: Observation<'_>) -> Observation<'static> {
    let role = observation.message.role;
    let sections = observation.message.into_sections();
    Observation {
        message: Message::new(role, sections.into_iter().map(shared_section).collect()).shared(),
        shown_chars: observation.shown_chars,
        omitted_chars: observation.omitted_chars,
        prints_dropped: observation.prints_dropped,
    }
}

#[cfg(test)]
mod tests {
    use abi_stable::std_types::RVec;
    use ptc_plugin_api::{
        Message, OptionSpec, Options, Output, RenderError, Role, Run, Strategy, Turn, Value,
    };

    use crate::kept::testing::{self, run};

    /// Every turn's response, then every turn's observation at two caps, in one message.
    struct Observes;

    impl Strategy for Observes {
        const NAME: &'static str = "observes";
        const DESCRIPTION: &'static str = "test";
        fn options() -> Vec<OptionSpec> {
            Vec::new()
        }
        fn templates() -> Vec<(&'static str, &'static str)> {
            Vec::new()
        }
        fn render<'r>(
            run: &'r Run,
            turns: &'r [Turn],
            _options: &Options,
        ) -> Result<Output<'r>, RenderError> {
            let responses = turns
                .iter()
                .flat_map(|t| super::super::response(t).into_sections());
            let observations = [12, 5]
                .into_iter()
                .flat_map(|cap| {
                    turns
                        .iter()
                        .map(move |t| super::super::observation(run, t, cap))
                })
                .map(|observation| observation.section().clone());
            let sections = responses.chain(observations).collect();
            Ok(Output {
                messages: vec![Message::new(Role::User, sections)].into(),
                stats: Default::default(),
            })
        }
    }

    /// A turn that prints, one whose value passes the caps, one that fails; from `seed`.
    fn turns(seed: usize) -> Vec<Turn> {
        let turn = |number: u32, result: Value, prints: &[&str], error: Option<&str>| Turn {
            number,
            raw_response: format!("Turn {number}, seed {seed}:\n```\n(x {number})\n```").into(),
            program: abi_stable::std_types::ROption::RSome(
                match number {
                    2 => "(other)".to_owned(),
                    _ => format!("(x {number})"),
                }
                .into(),
            ),
            success: error.is_none(),
            result,
            error: error
                .map(|message| ptc_plugin_api::TurnError {
                    reason: "eval_error".into(),
                    message: abi_stable::std_types::ROption::RSome(message.into()),
                })
                .into(),
            prints: prints.iter().map(|p| (*p).into()).collect(),
            tool_calls: RVec::new(),
            memory: RVec::new(),
            defined: RVec::new(),
        };
        vec![
            turn(1, Value::Integer(seed as i64), &["one", "twó"], None),
            turn(2, Value::string(&"é".repeat(seed + 9)), &["three"], None),
            turn(3, Value::Nil, &[], Some(&"boom ".repeat(seed))),
        ]
    }

    /// Every prompt of `run` over `turns`, rendered through [`Observes`].
    fn outputs<'r>(run: &'r Run, turns: &'r [Turn]) -> Vec<Output<'r>> {
        testing::outputs::<Observes>(run, turns)
    }

    /// Whether the prompts of `run` over `turns` are those of a run without a key over them.
    fn as_cut_anew(run: &Run, turns: &[Turn]) -> bool {
        testing::as_made_anew::<Observes>(run, turns)
    }

    #[test]
    fn observations_kept_for_a_run_are_those_cut_anew() {
        let (first, second) = (turns(1), turns(4));
        let anew = format!("{:?}", outputs(&run(0), &first)[3]);
        assert!(anew.contains(r#"Tuple2("omitted", Integer(5))"#), "{anew}");
        assert!(
            anew.contains(r#"Tuple2("program", Text("(other)"))"#),
            "{anew}"
        );
        assert!(!anew.contains("Shared"), "{anew}");
        // Each run's prompts twice, and the runs in turn: the same as cut anew, at each cap.
        for _ in 0..2 {
            assert!(as_cut_anew(&run(7), &first));
            assert!(as_cut_anew(&run(7), &first));
            assert!(as_cut_anew(&run(8), &second));
        }
        // Kept, the next prompt of the run hands over the same fields.
        let keyed = run(7);
        let kept = outputs(&keyed, &first);
        let field = |k: usize, section: usize, name: &str| {
            let section = &kept[k].messages[0].blocks[0].sections[section];
            &section.fields.iter().find(|f| f.0 == name).unwrap().1
        };
        // Prompt 2 shows 2 responses then observations; prompt 3 shows 3 responses first.
        assert!(field(2, 2, "prints").same_shared(field(3, 3, "prints")));
        assert!(field(2, 0, "raw_response").same_shared(field(3, 0, "raw_response")));
        assert!(field(2, 1, "program").same_shared(field(3, 1, "program")));
        // Another run's turns where the first run's were, once those are gone: their own.
        drop(kept);
        drop(first);
        assert!(as_cut_anew(&run(9), &turns(2)));
    }
}
