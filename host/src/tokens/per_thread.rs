//! A [`Counter`] per thread of the pool that measures recordings, kept for the whole corpus:
//! the lines and pieces counted for one recording are known to the next one the thread
//! measures, wherever in the corpus it comes.

use std::sync::Mutex;

use super::{Counter, Tokenizer};

/// One counter per thread of rayon's pool, made when the thread first needs it.
pub struct Counters {
    tokenizer: Tokenizer,
    /// Indexed by [`rayon::current_thread_index`]; the last one for a thread outside the pool.
    slots: Vec<Mutex<Option<Counter>>>,
}

impl Counters {
    pub fn new(tokenizer: Tokenizer) -> Counters {
        Counters {
            tokenizer,
            slots: (0..=rayon::current_num_threads())
                .map(|_| Mutex::new(None))
                .collect(),
        }
    }

    /// Calls `f` with the current thread's counter. A thread that finds its counter in use (a
    /// second thread outside the pool, or a task nested in `f` on the same thread) counts with
    /// a new one: the counts are the same, only what is remembered differs.
    pub fn with<R>(&self, f: impl FnOnce(&mut Counter) -> R) -> R {
        let last = self.slots.len() - 1;
        let slot = rayon::current_thread_index().map_or(last, |i| i.min(last));
        match self.slots[slot].try_lock() {
            Ok(mut counter) => f(counter.get_or_insert_with(|| Counter::new(self.tokenizer))),
            Err(_) => f(&mut Counter::new(self.tokenizer)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thread_keeps_its_counter_and_a_nested_call_gets_another() {
        let counters = Counters::new(Tokenizer::O200kBase);
        let first = counters.with(|counter| counter.text("Hello, world!"));
        assert_eq!(first, 4);
        // The same thread's counter remembers the text; a call nested in it counts anew, and
        // counts the same.
        counters.with(|outer| {
            assert!(outer.seen.contains_key("Hello, world!"));
            let inner = counters.with(|inner| {
                assert!(!inner.seen.contains_key("Hello, world!"));
                inner.text("Hello, world!")
            });
            assert_eq!(inner, 4);
        });
    }
}
