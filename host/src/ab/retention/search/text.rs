//! The text of a run's next prompt, written over the previous prompt's text from where the
//! two first differ.
//!
//! A prompt's text is its messages joined by line breaks. The prompts of a run mostly repeat
//! the start of the one before, often as the same messages: joining each prompt anew copied
//! the whole of it, and finding the start it shares with the one before read the whole of it
//! again. Written over the previous text, a prompt copies only what follows the start it
//! shares, and compares only what follows the messages it repeats.

use super::Search;
use crate::tokens::common_prefix;

impl Search<'_> {
    /// `messages` joined by line breaks, written over the text searched last
    /// ([`Search::text`], which this takes) from the first character where the two differ;
    /// with the bytes both start with, as [`Search::start`] counts them. The first `lead`
    /// messages must be those the text searched last was joined from, the same texts: they
    /// are neither compared nor copied.
    pub(in crate::ab::retention) fn next_text(
        &mut self,
        messages: &[&str],
        lead: usize,
    ) -> (String, usize) {
        let mut text = std::mem::take(&mut self.previous);
        let lead = lead.min(messages.len());
        // Where the line break before message `lead` is: the texts agree up to there (one
        // that ends after message `lead - 1` has no line break there).
        let at = match lead {
            0 => 0,
            _ => messages[..lead].iter().map(|m| m.len() + 1).sum::<usize>() - 1,
        };
        debug_assert_eq!(
            text.get(..at),
            Some(
                &*joined_from(messages, 0)
                    .take((2 * lead).saturating_sub(1))
                    .collect::<String>()
            ),
            "the text searched last starts with the first `lead` messages"
        );
        let mut common = at;
        for piece in joined_from(messages, lead) {
            let same = common_prefix(&text[common..], piece).len();
            common += same;
            if same < piece.len() {
                break;
            }
        }
        let len = messages
            .iter()
            .map(|m| m.len() + 1)
            .sum::<usize>()
            .saturating_sub(1);
        text.truncate(common);
        text.reserve(len - common);
        // `common` is a character boundary of both texts: their bytes before it are the same.
        let mut start = at;
        for piece in joined_from(messages, lead) {
            let end = start + piece.len();
            if end > common {
                text.push_str(&piece[common.saturating_sub(start)..]);
            }
            start = end;
        }
        (text, common)
    }
}

/// The pieces of `messages` joined by line breaks from message `from` on: the line break
/// before each message but the first of all, then the message.
fn joined_from<'a>(messages: &'a [&'a str], from: usize) -> impl Iterator<Item = &'a str> + 'a {
    messages
        .iter()
        .enumerate()
        .skip(from)
        .flat_map(|(i, &message)| (i > 0).then_some("\n").into_iter().chain([message]))
}
