//! What a strategy makes of a run's turns, kept while the run renders.
//!
//! A run's prompts show the same turns again and again. A turn of a run with a key
//! ([`Run::key`](ptc_plugin_api::Run)) lives at one address while the run renders (its turns
//! do not move), so what is made of it can be kept on the thread by that address until a
//! render of another run starts ([`rendering_run`]), or one that shows private values where
//! the last did not ([`showing_private`]). A run without a key makes it every time.

use std::cell::RefCell;
use std::hash::Hash;
use std::thread::LocalKey;

use ptc_plugin_api::{rendering_run, showing_private, Field, Message, Section, Turn};
use rustc_hash::FxHashMap;

/// What was made during the renders of one run, by key: a strategy keeps one in a
/// `thread_local!` and asks it for what it makes of a turn ([`ByRun::get`]), keyed by the
/// turn's address and whatever else the thing depends on (the settings, a cap).
pub struct ByRun<K, V> {
    /// The run's key: 0 while nothing is kept.
    run: u64,
    /// Whether private values were shown when it was made.
    private_shown: bool,
    entries: FxHashMap<K, V>,
}

impl<K, V> Default for ByRun<K, V> {
    fn default() -> Self {
        ByRun {
            run: 0,
            private_shown: false,
            entries: FxHashMap::default(),
        }
    }
}

impl<K: Hash + Eq, V: Clone> ByRun<K, V> {
    /// The entry `key` of the run being rendered, made first by `make` when there is none;
    /// `None` when the run has no key (nothing is kept for it).
    pub fn get(&mut self, key: K, make: impl FnOnce() -> V) -> Option<V> {
        self.get_in(rendering_run(), showing_private(), key, make)
    }

    /// [`ByRun::get`] for a caller that read [`rendering_run`] and [`showing_private`] already
    /// (once for many entries: each read of a thread's value costs a call in a dylib).
    pub(crate) fn get_in(
        &mut self,
        run: u64,
        private_shown: bool,
        key: K,
        make: impl FnOnce() -> V,
    ) -> Option<V> {
        if run == 0 {
            return None;
        }
        if self.run != run || self.private_shown != private_shown {
            self.entries.clear();
            self.run = run;
            self.private_shown = private_shown;
        }
        Some(self.entries.entry(key).or_insert_with(make).clone())
    }
}

/// The message `made` makes of `turn`, one of the run's turns: while a run with a key renders,
/// made once per turn, kept in `kept` and shared by the prompts that show it; made anew for a
/// run without a key.
pub fn turn_message<'r>(
    kept: &'static LocalKey<RefCell<ByRun<usize, Message<'static>>>>,
    turn: &Turn,
    made: impl Fn() -> Message<'r>,
) -> Message<'r> {
    let message = kept.with(|kept| {
        kept.borrow_mut()
            .get(std::ptr::from_ref(turn) as usize, || made().shared())
    });
    message.unwrap_or_else(made)
}

/// `section` with its texts and lists shared fields (its numbers and flags as they are): a copy
/// of it is a count more on each, and the host knows each by its address.
pub(crate) fn shared_section(section: Section<'_>) -> Section<'static> {
    // Into the list's own allocation: a field and its shared copy are laid out alike.
    let fields = ptc_plugin_api::map_list(section.fields, |field| {
        let value = match field.1 {
            value @ (Field::Integer(_) | Field::Boolean(_) | Field::Shared(_)) => {
                value.into_owned()
            }
            value => Field::shared(value),
        };
        abi_stable::std_types::Tuple2(field.0, value)
    });
    Section {
        template: section.template,
        fields,
    }
}

/// What the tests of kept things share: a run with a key or without, and every prompt of it
/// rendered through a strategy as the host renders a plugin's.
#[cfg(test)]
pub(crate) mod testing {
    use abi_stable::std_types::{ROption, RResult, RSlice, RVec};
    use ptc_plugin_api::{module_for, Options, Output, Run, Strategy, Turn};

    /// A run of key `key` (0: nothing kept for it).
    pub(crate) fn run(key: u64) -> Run {
        Run {
            mission: "m".into(),
            system_prompt: "s".into(),
            tools: RVec::new(),
            data: RVec::new(),
            max_turns: 9,
            signature: ROption::RNone,
            key,
        }
    }

    /// Every prompt of `run` over `turns` through `S`, rendered as the host renders a plugin's.
    pub(crate) fn outputs<'r, S: Strategy>(run: &'r Run, turns: &'r [Turn]) -> Vec<Output<'r>> {
        let render = module_for::<S>("0").render();
        let options = Options::default();
        (0..=turns.len())
            .map(
                |k| match render(run, RSlice::from_slice(&turns[..k]), &options) {
                    RResult::ROk(output) => output,
                    RResult::RErr(err) => panic!("{err:?}"),
                },
            )
            .collect()
    }

    /// Whether the prompts of `run` over `turns` through `S` are those of a run without a key
    /// over them: the same, what is kept shared or not.
    pub(crate) fn as_made_anew<S: Strategy>(run: &Run, turns: &[Turn]) -> bool {
        let unkeyed = Run {
            key: 0,
            ..run.clone()
        };
        let (kept, anew) = (outputs::<S>(run, turns), outputs::<S>(&unkeyed, turns));
        kept == anew
    }
}
