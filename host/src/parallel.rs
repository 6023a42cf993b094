//! Work on a stream of items over rayon's pool, each result taken in the order of the items.
//!
//! The items are started one after the other as long as those started and not yet taken stay
//! within a [`Window`], and each result is taken as soon as it and those before it are done. A
//! long item holds back only the taking, not the work on those after it: no core waits for the
//! slowest item of a batch, as it would if the items were worked on a batch at a time.

use std::collections::VecDeque;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::mpsc;

/// How much is started and not yet taken, at most: `count` items, and `weight` of their weight
/// (an item heavier than that is started alone). What is held does not grow with the stream.
#[derive(Clone, Copy, Debug)]
pub struct Window {
    pub count: usize,
    pub weight: u64,
}

/// Whether to go on taking results.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    Continue,
    /// Start no more items: those started are finished and their results dropped.
    Stop,
}

/// Runs `work` on each item of `items` on rayon's pool (the calling thread only starts and
/// takes) and hands each item with its result to `take`, in the order of `items`. An error of
/// `items` or of `take` ends the run with it once the items started are finished (their results
/// are dropped); so does [`Next::Stop`], without an error. A panic in `work` is resumed on the
/// calling thread when its result would be taken. Called on a thread of rayon's pool, it works
/// on the items there, one after the other.
pub fn in_order<I, R, E>(
    items: impl Iterator<Item = Result<I, E>>,
    window: Window,
    weight: impl Fn(&I) -> u64,
    work: impl Fn(&I) -> R + Sync,
    mut take: impl FnMut(I, R) -> Result<Next, E>,
) -> Result<(), E>
where
    I: Send,
    R: Send,
{
    let mut items = items.fuse();
    // On a thread of the pool, waiting for a result could wait for itself (a pool of one
    // thread): the items are worked on here, one after the other.
    if rayon::current_thread_index().is_some() {
        for item in items {
            let item = item?;
            let result = work(&item);
            if take(item, result)? == Next::Stop {
                break;
            }
        }
        return Ok(());
    }
    let work = &work;
    rayon::in_place_scope(|scope| {
        type Done<I, R> = (I, std::thread::Result<R>);
        let (sender, done) = mpsc::channel::<(usize, Done<I, R>)>();
        // Per item started and not taken, from the first: its weight, and its result once done.
        let mut started: VecDeque<(u64, Option<Done<I, R>>)> = VecDeque::new();
        let (mut first, mut held, mut listed) = (0usize, 0u64, true);
        loop {
            // What is done is taken first, so that the room it leaves is filled at once.
            while started.front().is_some_and(|(_, done)| done.is_some()) {
                let (w, done) = started.pop_front().expect("a first item");
                let (item, result) = done.expect("a result");
                first += 1;
                held = held.saturating_sub(w);
                let result = result.unwrap_or_else(|panic| resume_unwind(panic));
                if take(item, result)? == Next::Stop {
                    return Ok(());
                }
            }
            while listed
                && started.len() < window.count.max(1)
                && (started.is_empty() || held < window.weight)
            {
                let Some(item) = items.next() else {
                    listed = false;
                    break;
                };
                let item = item?;
                let w = weight(&item);
                held = held.saturating_add(w);
                let (index, sender) = (first + started.len(), sender.clone());
                started.push_back((w, None));
                scope.spawn(move |_| {
                    let result = catch_unwind(AssertUnwindSafe(|| work(&item)));
                    // The receiver is gone only when the run ended first: the result is dropped.
                    let _ = sender.send((index, (item, result)));
                });
            }
            if started.is_empty() {
                return Ok(());
            }
            // Each item started sends its result: this one holds a sender, so none is lost.
            let (index, result) = done.recv().expect("a sender is held");
            started[index - first].1 = Some(result);
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn window(count: usize, weight: u64) -> Window {
        Window { count, weight }
    }

    /// The items [`in_order`] takes of `items`, each its own result and weighing `weight`,
    /// with what `next` answers to each; and how the run ended.
    fn took(
        items: impl Iterator<Item = Result<u64, String>>,
        window: Window,
        weight: u64,
        next: impl Fn(u64) -> Result<Next, String>,
    ) -> (Result<(), String>, Vec<u64>) {
        let mut taken = Vec::new();
        let ended = in_order(
            items,
            window,
            |_| weight,
            |&i| i,
            |i, _| {
                taken.push(i);
                next(i)
            },
        );
        (ended, taken)
    }

    #[test]
    fn results_are_taken_in_the_order_of_the_items_whatever_order_they_finish_in() {
        let items = (0..200u64).map(Ok::<_, String>);
        let mut taken = Vec::new();
        in_order(
            items,
            window(7, 1000),
            |&i| i,
            |&i| {
                // Early items take longest.
                std::thread::sleep(std::time::Duration::from_micros((200 - i) * 20));
                i * 2
            },
            |i, r| {
                taken.push((i, r));
                Ok(Next::Continue)
            },
        )
        .unwrap();
        assert_eq!(taken, (0..200).map(|i| (i, i * 2)).collect::<Vec<_>>());
    }

    #[test]
    fn no_more_than_the_window_is_started_and_not_taken() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let started = AtomicUsize::new(0);
        let taken = AtomicUsize::new(0);
        let most = AtomicUsize::new(0);
        let items = (0..100u64).map(|i| {
            let now = started.fetch_add(1, Ordering::SeqCst) + 1 - taken.load(Ordering::SeqCst);
            most.fetch_max(now, Ordering::SeqCst);
            Ok::<_, String>(i)
        });
        // Every item weighs 10: a weight of 35 lets four be held (the fourth starts at 30).
        in_order(
            items,
            window(50, 35),
            |_| 10,
            |&i| i,
            |_, _| {
                taken.fetch_add(1, Ordering::SeqCst);
                Ok(Next::Continue)
            },
        )
        .unwrap();
        assert_eq!(taken.load(Ordering::SeqCst), 100);
        assert_eq!(most.load(Ordering::SeqCst), 4);
        // An item heavier than the window is started alone.
        let heavy = took((0..3).map(Ok), window(50, 5), 10, |_| Ok(Next::Continue));
        assert_eq!(heavy, (Ok(()), vec![0, 1, 2]));
    }

    #[test]
    fn an_error_or_a_stop_ends_the_run_and_nothing_after_it_is_taken() {
        let items = (0..50u64).map(|i| match i {
            30 => Err(format!("item {i}")),
            i => Ok(i),
        });
        let (ended, taken) = took(items, window(4, 100), 1, |_| Ok(Next::Continue));
        assert_eq!(ended, Err("item 30".to_owned()));
        assert!(taken.len() <= 30 && taken.iter().copied().eq(0..taken.len() as u64));

        let (ended, taken) = took((0..50).map(Ok), window(4, 100), 1, |i| match i {
            9 => Err(format!("took {i}")),
            _ => Ok(Next::Continue),
        });
        assert_eq!(ended, Err("took 9".to_owned()));
        assert_eq!(taken, (0..10).collect::<Vec<_>>());

        let stopped = took((0..50).map(Ok), window(4, 100), 1, |i| {
            Ok(if i == 5 { Next::Stop } else { Next::Continue })
        });
        assert_eq!(stopped, (Ok(()), (0..6).collect::<Vec<_>>()));
    }

    #[test]
    fn on_a_thread_of_a_pool_of_one_the_items_are_worked_on_in_place() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let taken = pool.install(|| {
            let mut taken = Vec::new();
            in_order(
                (0..20u64).map(Ok::<_, String>),
                window(4, 100),
                |_| 1,
                |&i| (i, rayon::current_thread_index()),
                |i, r| {
                    taken.push((i, r));
                    Ok(Next::Continue)
                },
            )
            .unwrap();
            taken
        });
        let expected: Vec<_> = (0..20).map(|i| (i, (i, Some(0)))).collect();
        assert_eq!(taken, expected);
    }

    #[test]
    fn a_panic_in_the_work_reaches_the_caller() {
        let caught = std::panic::catch_unwind(|| {
            in_order(
                (0..20u64).map(Ok::<_, String>),
                window(4, 100),
                |_| 1,
                |&i| {
                    assert_ne!(i, 11, "item eleven");
                    i
                },
                |_, _| Ok(Next::Continue),
            )
        });
        let panic = caught.unwrap_err();
        let message = panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap();
        assert!(message.contains("item eleven"), "{message}");
    }
}
