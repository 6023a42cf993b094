//! What a turn changed in the `user/` namespace.

use abi_stable::std_types::RVec;
use ptc_plugin_api::{same_value, Memory, Turn, Value};
use rustc_hash::FxHashMap;

/// The entries of `after` that `before` does not hold with the same value: the symbols a turn
/// defined or redefined, in `after`'s order.
pub fn defined_since<'a>(before: &Memory, after: &'a Memory) -> Vec<(&'a str, &'a Value)> {
    defined_indices(before, after)
        .map(|i| (after[i].0.as_str(), &*after[i].1))
        .collect()
}

/// Fills [`Turn::defined`] for every turn of a run, in order: the entries of its memory that
/// are [`defined_since`] the memory of the last successful turn before it, nothing for a
/// failed turn. The host calls it once when it reads a recording; each memory is compared
/// once, whatever number of prompts are rendered from the run afterwards.
pub fn mark_defined(turns: &mut [Turn]) {
    let mut last_success: Option<usize> = None;
    for i in 0..turns.len() {
        let (earlier, rest) = turns.split_at_mut(i);
        let turn = &mut rest[0];
        turn.defined = if turn.success {
            let before = last_success.map_or(&[][..], |b| &earlier[b].memory[..]);
            last_success = Some(i);
            defined_indices(before, &turn.memory)
                .map(|i| i as u32)
                .collect()
        } else {
            RVec::new()
        };
    }
}

/// The indices of the entries of `after` that `before` does not hold with the same value. An
/// entry the turn left alone is the same allocation as before, and compared as such.
fn defined_indices<'a>(before: &'a Memory, after: &'a Memory) -> impl Iterator<Item = usize> + 'a {
    // Memories mostly keep their order: each entry of `after` is looked for first where the
    // previous one was found in `before`, plus one, and only then by name. A name inserted
    // among the others costs one search, and the entries after it line up again.
    let mut by_name: Option<FxHashMap<&str, usize>> = None;
    let mut next = 0;
    after.iter().enumerate().filter_map(move |(at, entry)| {
        let found = match before.get(next) {
            Some(b) if b.0 == entry.0 => Some(next),
            _ => by_name
                .get_or_insert_with(|| {
                    before
                        .iter()
                        .enumerate()
                        .map(|(i, b)| (b.0.as_str(), i))
                        .collect()
                })
                .get(entry.0.as_str())
                .copied(),
        };
        let defined = match found {
            Some(i) => {
                next = i + 1;
                !same_value(&before[i].1, &entry.1)
            }
            None => true,
        };
        defined.then_some(at)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use abi_stable::std_types::{RArc, ROption, RString, RVec, Tuple2};
    use proptest::prelude::*;

    type Entry = Tuple2<RString, RArc<Value>>;

    fn memory(entries: &[(&str, i64)]) -> Vec<Entry> {
        entries
            .iter()
            .map(|(n, v)| Tuple2((*n).into(), RArc::new(Value::Integer(*v))))
            .collect()
    }

    #[test]
    fn defined_since_finds_new_and_changed_names() {
        let before = memory(&[("a", 1), ("b", 2)]);
        let after = memory(&[("b", 2), ("a", 5), ("c", 3)]);
        let names: Vec<&str> = defined_since(&before, &after)
            .into_iter()
            .map(|(n, _)| n)
            .collect();
        assert_eq!(names, ["a", "c"]);
        assert!(defined_since(&after, &after).is_empty());
    }

    #[test]
    fn a_name_inserted_among_the_others_is_the_only_one_defined() {
        let before = memory(&[("a", 1), ("c", 3), ("d", 4)]);
        let after = memory(&[("a", 1), ("b", 2), ("c", 3), ("d", 5)]);
        let names: Vec<&str> = defined_since(&before, &after)
            .into_iter()
            .map(|(n, _)| n)
            .collect();
        assert_eq!(names, ["b", "d"]);
    }

    /// The definition itself: an entry of `after` is defined when no entry of `before` has its
    /// name and its value.
    fn defined_since_by_search<'a>(
        before: &Memory,
        after: &'a Memory,
    ) -> Vec<(&'a str, &'a Value)> {
        after
            .iter()
            .filter(|e| !before.iter().any(|b| b.0 == e.0 && *b.1 == *e.1))
            .map(|e| (e.0.as_str(), &*e.1))
            .collect()
    }

    /// A memory of unique names from a small pool, with values from a small range, so that
    /// two memories share names and values often. Each value is an allocation of its own.
    fn any_memory() -> impl Strategy<Value = Vec<Entry>> {
        proptest::collection::vec((0..12u8, 0..3i64), 0..12).prop_map(|entries| {
            let mut seen = std::collections::HashSet::new();
            entries
                .into_iter()
                .filter(|(name, _)| seen.insert(*name))
                .map(|(name, value)| {
                    Tuple2(format!("n{name}").into(), RArc::new(Value::Integer(value)))
                })
                .collect()
        })
    }

    /// A change a turn makes to a memory.
    #[derive(Clone, Debug)]
    enum Edit {
        Insert(usize, u8, i64),
        Remove(usize),
        Set(usize, i64),
        Swap(usize, usize),
    }

    fn any_edit() -> impl Strategy<Value = Edit> {
        prop_oneof![
            (0..16usize, 0..16u8, 0..3i64)
                .prop_map(|(at, name, value)| Edit::Insert(at, name, value)),
            (0..16usize).prop_map(Edit::Remove),
            (0..16usize, 0..3i64).prop_map(|(at, value)| Edit::Set(at, value)),
            (0..16usize, 0..16usize).prop_map(|(i, j)| Edit::Swap(i, j)),
        ]
    }

    /// `memory` after `edits`, an inserted name dropped when the memory already holds it. The
    /// entries left alone share their values with `memory`, as a recording read by the host
    /// does; a value set is a new allocation, which may hold the value it replaces.
    fn edited(memory: &[Entry], edits: &[Edit]) -> Vec<Entry> {
        let mut out = memory.to_vec();
        for edit in edits {
            let len = out.len();
            match *edit {
                Edit::Insert(at, name, value) => {
                    let name: RString = format!("n{name}").into();
                    if !out.iter().any(|e| e.0 == name) {
                        out.insert(at.min(len), Tuple2(name, RArc::new(Value::Integer(value))));
                    }
                }
                Edit::Remove(at) if at < len => {
                    out.remove(at);
                }
                Edit::Set(at, value) if at < len => out[at].1 = RArc::new(Value::Integer(value)),
                Edit::Swap(i, j) if i < len && j < len => out.swap(i, j),
                _ => {}
            }
        }
        out
    }

    fn turn(number: u32, success: bool, memory: Vec<Entry>) -> Turn {
        Turn {
            number,
            raw_response: "".into(),
            program: ROption::RNone,
            success,
            result: Value::Nil,
            error: ROption::RNone,
            prints: RVec::new(),
            tool_calls: RVec::new(),
            memory: memory.into(),
            defined: RVec::new(),
        }
    }

    proptest! {
        #[test]
        fn defined_since_is_what_a_search_by_name_finds(
            before in any_memory(),
            after in any_memory(),
            edits in proptest::collection::vec(any_edit(), 0..6),
        ) {
            prop_assert_eq!(defined_since(&before, &after), defined_since_by_search(&before, &after));
            let changed = edited(&before, &edits);
            prop_assert_eq!(defined_since(&before, &changed), defined_since_by_search(&before, &changed));
        }

        #[test]
        fn each_turn_is_compared_with_the_last_successful_one(
            start in any_memory(),
            steps in proptest::collection::vec(
                (proptest::collection::vec(any_edit(), 0..4), any::<bool>()),
                0..8,
            ),
        ) {
            let mut memory = start;
            let mut turns = Vec::new();
            for (i, (edits, success)) in steps.iter().enumerate() {
                memory = edited(&memory, edits);
                turns.push(turn(i as u32 + 1, *success, memory.clone()));
            }
            let mut expected = Vec::new();
            for (i, t) in turns.iter().enumerate() {
                let before = turns[..i].iter().rev().find(|t| t.success).map_or(&[][..], |t| &t.memory[..]);
                let defined = if t.success { defined_since_by_search(before, &t.memory) } else { Vec::new() };
                expected.push(defined.into_iter().map(|(n, v)| (n.to_owned(), v.clone())).collect::<Vec<_>>());
            }
            mark_defined(&mut turns);
            let marked: Vec<Vec<(String, Value)>> = turns
                .iter()
                .map(|t| t.defined_entries().map(|(n, v)| (n.to_owned(), v.clone())).collect())
                .collect();
            prop_assert_eq!(marked, expected);
            // Marking again (a recording read twice) changes nothing.
            let once = turns.clone();
            mark_defined(&mut turns);
            prop_assert_eq!(turns, once);
        }
    }
}
