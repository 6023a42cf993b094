//! The progress bar of a comparison on stderr: the recordings done of all, and the time left.

use std::io::IsTerminal;

/// What the progress bar shows.
const PROGRESS: &str = "{bar:30} {pos}/{len} recordings, {elapsed} elapsed, about {eta} left";

/// The progress bar of `len` recordings.
pub(super) fn bar(len: usize) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new(len as u64);
    if let Ok(style) = indicatif::ProgressStyle::with_template(PROGRESS) {
        bar.set_style(style);
    }
    bar
}

/// A bar for a corpus of `count()` recordings where stderr is a terminal and output is not
/// quiet, and for more than one recording; else a hidden one. `count` is called only when a
/// bar can be shown: it lists the corpus once more (the listing only, nothing is parsed).
pub(super) fn for_corpus(count: impl FnOnce() -> usize) -> indicatif::ProgressBar {
    if std::io::stderr().is_terminal() && !crate::output::quiet() {
        let count = count();
        if count > 1 {
            return bar(count);
        }
    }
    indicatif::ProgressBar::hidden()
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use super::*;

    /// A terminal that keeps what is written to it.
    #[derive(Debug, Default)]
    struct Screen(Arc<Mutex<String>>);

    impl indicatif::TermLike for Screen {
        fn width(&self) -> u16 {
            120
        }
        fn move_cursor_up(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_down(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_right(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_left(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn write_line(&self, s: &str) -> std::io::Result<()> {
            self.write_str(&format!("{s}\n"))
        }
        fn write_str(&self, s: &str) -> std::io::Result<()> {
            self.0.lock().unwrap().push_str(s);
            Ok(())
        }
        fn clear_line(&self) -> std::io::Result<()> {
            Ok(())
        }
        fn flush(&self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn the_progress_bar_counts_recordings_and_shows_the_time_left() {
        let screen = Screen::default();
        let written = Arc::clone(&screen.0);
        let bar = bar(35);
        bar.set_draw_target(indicatif::ProgressDrawTarget::term_like(Box::new(screen)));
        bar.inc(7);
        bar.tick();
        let text = written.lock().unwrap().clone();
        assert!(
            text.contains(" 7/35 recordings, 0s elapsed, about "),
            "{text:?}"
        );
        assert!(text.trim_end().ends_with(" left"), "{text:?}");
    }
}
