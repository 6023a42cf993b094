//! What a turn changed in the `user/` namespace.

use ptc_plugin_api::{Memory, Value};

/// The entries of `after` that `before` does not hold with the same value: the symbols a turn
/// defined or redefined, in `after`'s order.
pub fn defined_since<'a>(before: &Memory, after: &'a Memory) -> Vec<(&'a str, &'a Value)> {
    // Memories mostly grow at the end: look at the same position first, then search.
    let mut by_name: Option<std::collections::HashMap<&str, &Value>> = None;
    after
        .iter()
        .enumerate()
        .filter(|(i, entry)| {
            let previous = match before.get(*i) {
                Some(b) if b.0 == entry.0 => Some(&b.1),
                _ => by_name
                    .get_or_insert_with(|| before.iter().map(|b| (b.0.as_str(), &b.1)).collect())
                    .get(entry.0.as_str())
                    .copied(),
            };
            previous != Some(&entry.1)
        })
        .map(|(_, entry)| (entry.0.as_str(), &entry.1))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use abi_stable::std_types::{RString, Tuple2};

    fn memory(entries: &[(&str, i64)]) -> Vec<Tuple2<RString, Value>> {
        entries
            .iter()
            .map(|(n, v)| Tuple2((*n).into(), Value::Integer(*v)))
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
}
