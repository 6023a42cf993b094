//! What a [`Counter`](super::Counter) made of each message text of a run, found by a hash of
//! the whole text taken once per message of a request ([`Known::text_hash`]): a new message
//! (a single message that grows every turn) is hashed once for both formats and both of its
//! lookups, not once per map and per block.
//!
//! [`Known::text_hash`]: super::recent::Known::text_hash

use std::hash::{Hash, Hasher};
use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHasher};

use crate::message::Text;

/// The hash of a whole text, as a block's text is hashed into a cache key: a block that is
/// its message's whole text takes it as it is.
pub(super) fn text_hash(text: &str) -> u64 {
    let mut hash = FxHasher::default();
    text.hash(&mut hash);
    hash.finish()
}

/// Values by message text, looked up by [`text_hash`] and compared whole. The values of a
/// hash are held in place while there is one (most hashes).
pub(super) struct ByText<V> {
    by_hash: FxHashMap<u64, smallvec::SmallVec<[(Text, V); 1]>>,
}

impl<V> Default for ByText<V> {
    fn default() -> Self {
        ByText {
            by_hash: FxHashMap::default(),
        }
    }
}

impl<V> ByText<V> {
    /// The value kept for `text` (of hash `hash`) that `fits`.
    pub fn get(&self, hash: u64, text: &Text, fits: impl Fn(&V) -> bool) -> Option<&V> {
        self.by_hash
            .get(&hash)?
            .iter()
            .find(|(kept, value)| (Arc::ptr_eq(kept, text) || **kept == **text) && fits(value))
            .map(|(_, value)| value)
    }

    pub fn insert(&mut self, hash: u64, text: Text, value: V) {
        self.by_hash.entry(hash).or_default().push((text, value));
    }

    pub fn clear(&mut self) {
        self.by_hash.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_is_found_by_its_bytes_and_what_it_fits() {
        let mut kept = ByText::default();
        let a: Text = Arc::new("some text".into());
        kept.insert(text_hash(&a), a.clone(), 1);
        kept.insert(text_hash(&a), a.clone(), 2);
        // Another allocation of the same text is found; a value that does not fit is not.
        let again: Text = Arc::new("some text".into());
        assert_eq!(kept.get(text_hash(&again), &again, |_| true), Some(&1));
        assert_eq!(kept.get(text_hash(&again), &again, |v| *v == 2), Some(&2));
        assert_eq!(kept.get(text_hash(&again), &again, |v| *v == 3), None);
        // Another text under the same hash is not taken for it.
        let other: Text = Arc::new("other text".into());
        assert_eq!(kept.get(text_hash(&a), &other, |_| true), None);
        kept.clear();
        assert_eq!(kept.get(text_hash(&a), &a, |_| true), None);
    }

    #[test]
    fn a_whole_text_hashes_as_a_block_of_it_does() {
        let text = "a block\n\nanother";
        let mut hash = FxHasher::default();
        text[..].hash(&mut hash);
        assert_eq!(text_hash(text), hash.finish());
    }
}
