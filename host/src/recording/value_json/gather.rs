//! The elements of a list or the entries of a map being read, gathered on a stack of the
//! thread and then moved to a list of their number: one allocation of the right size and one
//! copy per list, where a list grown from empty reallocates as it doubles, and a map's entries
//! gathered in place were moved one by one, each by a call to `memcpy` (the manual's
//! `docs/src/reference/performance.md`, "A shared message's lists kept in place").
//!
//! A list nested in one being read is gathered above it on the same stack, and taken off it
//! before the outer list goes on.

use std::cell::RefCell;
use std::thread::LocalKey;

use ptc_plugin_api::Value;

/// Room a stack keeps between two lists at most (in elements): a very long list is not held
/// by the thread after it is read.
const KEPT_ROOM: usize = 4096;

thread_local! {
    /// The elements of the lists being read. Its first element is never taken: a list is
    /// split off above it, by one copy (`Vec::split_off` at 0 would hand the whole stack
    /// over).
    static ITEMS: RefCell<Vec<Value>> = RefCell::new(vec![Value::Nil]);
    /// The entries of the maps being read, likewise.
    static ENTRIES: RefCell<Vec<(Value, Value)>> = RefCell::new(vec![(Value::Nil, Value::Nil)]);
}

/// The elements `next` reads, in order, until it reads none; its first error, the elements
/// read before it dropped.
pub(super) fn items<E>(next: impl FnMut() -> Result<Option<Value>, E>) -> Result<Vec<Value>, E> {
    gather(&ITEMS, next)
}

/// The entries `next` reads, in order, until it reads none; its first error, the entries read
/// before it dropped.
pub(super) fn entries<E>(
    next: impl FnMut() -> Result<Option<(Value, Value)>, E>,
) -> Result<Vec<(Value, Value)>, E> {
    gather(&ENTRIES, next)
}

fn gather<T, E>(
    stack: &'static LocalKey<RefCell<Vec<T>>>,
    mut next: impl FnMut() -> Result<Option<T>, E>,
) -> Result<Vec<T>, E> {
    // The stack is looked up once per list: a list read within `next` borrows it only while
    // it pushes or splits off, as this one does.
    stack.with(|stack| {
        let start = stack.borrow().len();
        loop {
            match next() {
                Ok(Some(item)) => stack.borrow_mut().push(item),
                Ok(None) => break,
                Err(err) => {
                    stack.borrow_mut().truncate(start);
                    return Err(err);
                }
            }
        }
        let mut stack = stack.borrow_mut();
        let gathered = stack.split_off(start);
        if stack.capacity() > KEPT_ROOM && stack.len() < KEPT_ROOM / 2 {
            stack.shrink_to(KEPT_ROOM / 2);
        }
        Ok(gathered)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numbers(n: i64) -> Vec<Value> {
        (0..n).map(Value::Integer).collect()
    }

    #[test]
    fn nested_lists_are_gathered_apart_and_each_to_its_size() {
        let mut inner = None;
        let mut read = 0;
        let outer = items::<()>(|| {
            read += 1;
            if read == 3 {
                // A list read while the outer one is: gathered above it.
                let mut n = 0;
                inner = Some(
                    items::<()>(|| {
                        n += 1;
                        Ok((n <= 3).then(|| Value::Integer(10 + n)))
                    })
                    .unwrap(),
                );
            }
            Ok((read <= 5).then(|| Value::Integer(read)))
        })
        .unwrap();
        assert_eq!(outer, numbers(6)[1..]);
        let inner = inner.unwrap();
        assert_eq!(inner, [11, 12, 13].map(Value::Integer));
        assert_eq!((outer.capacity(), inner.capacity()), (5, 3));
        ITEMS.with_borrow(|stack| assert_eq!(stack.as_slice(), [Value::Nil]));
    }

    #[test]
    fn an_error_drops_what_was_gathered_and_leaves_the_outer_list_as_it_was() {
        let mut read = 0;
        let outer = entries::<&str>(|| {
            read += 1;
            if read == 2 {
                let mut n = 0;
                let inner = entries(|| {
                    n += 1;
                    match n {
                        1 => Ok(Some((Value::Nil, Value::Nil))),
                        _ => Err("bad"),
                    }
                });
                assert_eq!(inner, Err("bad"));
            }
            Ok((read <= 3).then(|| (Value::Integer(read), Value::Nil)))
        });
        let keys: Vec<_> = outer.unwrap().into_iter().map(|e| e.0).collect();
        assert_eq!(keys, numbers(4)[1..]);
        ENTRIES.with_borrow(|stack| assert_eq!(stack.len(), 1));
    }

    #[test]
    fn a_long_list_leaves_no_more_than_the_kept_room() {
        let mut n = 0;
        let long = items::<()>(|| {
            n += 1;
            Ok((n <= 10 * KEPT_ROOM as i64).then(|| Value::Integer(n)))
        })
        .unwrap();
        assert_eq!(long.len(), 10 * KEPT_ROOM);
        ITEMS.with_borrow(|stack| assert!(stack.capacity() <= KEPT_ROOM));
        assert!(items::<()>(|| Ok(None)).unwrap().is_empty());
    }
}
