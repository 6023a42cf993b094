//! Counts carried from one request to the next: the messages of the requests counted last, with
//! what was counted of each.
//!
//! The requests of a run repeat the messages of the one before (an agent appends to its
//! conversation; a strategy's prompts keep their system prompt and history). A request that
//! starts with the messages of one counted before takes their counts: each such message is
//! compared with the one kept (as it was made, a comparison takes no more than making it took),
//! never hashed, cut into lines or looked up again, and only the messages after the shared
//! start are counted. The counts are those the message's text gives whatever came before it,
//! so a request counts the same whether or not it follows another.
//!
//! A request's blocks are carried the same way: each message kept holds where the blocks of
//! the request it was counted in stood at its end, in each format ([`After`]), and the slot
//! holds those blocks; a request that repeats the messages takes its blocks up to there
//! from the slot, and walks only the messages after them.

use std::sync::Arc;

use rustc_hash::FxHasher;

use super::anthropic::SentBlocks;
use super::openai::BlockEnds;
use crate::cache::CacheBlock;
use crate::message::RenderedMessage;

/// A message of a request counted recently, with what has been counted of it so far.
pub(super) struct Known {
    pub message: RenderedMessage,
    /// Its tokens in OpenAI's chat format: overhead, role and content.
    pub chat: Option<usize>,
    /// Where its cache blocks end in OpenAI's chat format.
    pub ends: Option<Arc<BlockEnds>>,
    /// Its blocks as Anthropic's body sends them.
    pub sent: Option<Arc<SentBlocks>>,
    /// [`by_text::text_hash`](super::by_text::text_hash) of its text, once taken.
    hash: Option<u64>,
    /// Where the blocks of the request it was counted in stood at its end, per [`Format`]:
    /// valid while the messages before it are those they were counted with (a slot keeps
    /// only the messages that lead the request it is taken for), and, being set for every
    /// message of a request, set for every message before it too.
    pub after: [Option<After>; 2],
}

impl Known {
    /// The hash of its text, taken once for every lookup of it in either format.
    pub fn text_hash(&mut self) -> u64 {
        *self
            .hash
            .get_or_insert_with(|| super::by_text::text_hash(&self.message.content))
    }
}

/// The two ways a request's blocks are counted ([`Known::after`], [`Recent::blocks`]).
#[derive(Clone, Copy)]
pub(super) enum Format {
    /// OpenAI's chat body ([`Counter::blocks`](super::Counter::blocks)).
    Chat = 0,
    /// Anthropic's content blocks ([`Counter::request_sent`](super::Counter::request_sent)).
    Sent = 1,
}

/// How many of `known`'s leading messages have their [`Known::after`] in `format` (every one
/// before the last that has it has it too).
pub(super) fn counted(known: &[Known], format: Format) -> usize {
    known
        .iter()
        .rposition(|k| k.after[format as usize].is_some())
        .map_or(0, |last| last + 1)
}

/// Where a request's blocks stand at the end of one of its messages: what the blocks of the
/// messages after it start from.
#[derive(Clone)]
pub(super) struct After {
    /// The request's blocks up to here, as many.
    pub blocks: usize,
    /// Its tokens up to here.
    pub tokens: usize,
    /// The key of its prefix up to here, being hashed.
    pub key: FxHasher,
    /// Its messages sent up to here.
    pub messages: usize,
}

impl After {
    /// Where the blocks stand after those of `blocks`, which end at `tokens`, with `key` and
    /// `messages` sent.
    pub fn at(blocks: &[CacheBlock], tokens: usize, key: &FxHasher, messages: usize) -> After {
        After {
            blocks: blocks.len(),
            tokens,
            key: key.clone(),
            messages,
        }
    }
}

/// The messages of the last two sequences of requests counted: a run's prompts follow each other
/// in one, and the requests it alternates with (the full history the trigger measures before a
/// strategy's prompt, a model call before a prompt) in the other.
#[derive(Default)]
pub(super) struct Recent {
    slots: [Vec<Known>; 2],
    /// Per slot and [`Format`]: the blocks of the request its messages' [`Known::after`] were
    /// counted in.
    blocks: [[Vec<CacheBlock>; 2]; 2],
    /// The slot taken last.
    last: usize,
}

impl Recent {
    /// The messages of `messages` with what is known of them, to be given back with
    /// [`Recent::put`]: a slot's leading messages equal to the first ones of `messages` keep
    /// their counts, the rest are `messages` with nothing counted yet.
    ///
    /// The slot taken is the one `messages` continues (all its messages lead `messages`), the
    /// longest such; else an empty one; else the one sharing the most leading messages, the one
    /// taken longer ago when both share as many.
    pub fn take(&mut self, messages: &[RenderedMessage]) -> Vec<Known> {
        // The slot taken last is looked at first: when `messages` continue it and the other
        // cannot be continued further (it is no longer, or longer than `messages`), it is the
        // one, and the other is not compared (the requests of one prompt, counted in turn,
        // take the same slot; the other holds another variant's, mostly equal, messages).
        let last = self.last;
        let n_last = shared(&mut self.slots[last], messages);
        let other_len = self.slots[1 - last].len();
        if n_last == self.slots[last].len()
            && n_last > 0
            && (other_len <= n_last || other_len > messages.len())
        {
            return self.take_slot(last, n_last, messages);
        }
        let mut n = [0; 2];
        n[last] = n_last;
        n[1 - last] = shared(&mut self.slots[1 - last], messages);
        let continued = |i: usize| n[i] == self.slots[i].len() && n[i] > 0;
        let slot = match (continued(0), continued(1)) {
            (true, true) => usize::from(n[1] > n[0]),
            (true, false) => 0,
            (false, true) => 1,
            (false, false) => match self.slots.iter().position(Vec::is_empty) {
                Some(empty) => empty,
                None if n[0] == n[1] => 1 - self.last,
                None => usize::from(n[1] > n[0]),
            },
        };
        self.take_slot(slot, n[slot], messages)
    }

    /// Slot `slot`, whose first `shared` messages lead `messages`, made `messages`.
    fn take_slot(
        &mut self,
        slot: usize,
        shared: usize,
        messages: &[RenderedMessage],
    ) -> Vec<Known> {
        self.last = slot;
        let mut known = std::mem::take(&mut self.slots[slot]);
        known.truncate(shared);
        known.extend(messages[shared..].iter().map(|message| Known {
            message: message.clone(),
            chat: None,
            ends: None,
            sent: None,
            hash: None,
            after: [None, None],
        }));
        known
    }

    /// The blocks of the slot taken last in `format`: those its messages' [`Known::after`]
    /// count, to be replaced by the blocks of the request they are taken for.
    pub fn blocks(&mut self, format: Format) -> &mut Vec<CacheBlock> {
        &mut self.blocks[self.last][format as usize]
    }

    /// Where the blocks of a request made of `known` (as [`Recent::take`] gave them) stand at
    /// the start of message `from`, whose messages before it have their [`Known::after`] in
    /// `format`: those blocks, taken from the slot, and where they end.
    pub fn resume(
        &mut self,
        known: &[Known],
        format: Format,
        from: usize,
    ) -> (Vec<CacheBlock>, After) {
        let kept = &self.blocks[self.last][format as usize];
        let mut blocks = Vec::with_capacity(kept.len().max(known.len()));
        let after = match from.checked_sub(1) {
            Some(last) => {
                let after = known[last].after[format as usize]
                    .clone()
                    .expect("set for every message before `from`");
                blocks.extend_from_slice(&kept[..after.blocks]);
                after
            }
            None => After::at(&[], 0, &FxHasher::default(), 0),
        };
        (blocks, after)
    }

    /// Gives back the messages [`Recent::take`] gave, with what was counted of them.
    pub fn put(&mut self, known: Vec<Known>) {
        self.slots[self.last] = known;
    }
}

/// How many leading messages of `slot` are those of `messages`. A message kept that equals
/// its counterpart in another allocation (the same text rendered by another strategy, or
/// before) takes the counterpart's text and blocks: compared again, they are the same
/// allocation, and the comparison does not read them.
fn shared(slot: &mut [Known], messages: &[RenderedMessage]) -> usize {
    let mut n = 0;
    for (known, message) in slot.iter_mut().zip(messages) {
        if known.message != *message {
            break;
        }
        if !Arc::ptr_eq(&known.message.content, &message.content) {
            known.message.content = message.content.clone();
        }
        if !Arc::ptr_eq(&known.message.blocks, &message.blocks) {
            known.message.blocks = message.blocks.clone();
        }
        n += 1;
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptc_plugin_api::Role;

    fn messages(texts: &[&str]) -> Vec<RenderedMessage> {
        texts
            .iter()
            .map(|t| RenderedMessage::plain(Role::User, *t))
            .collect()
    }

    /// Takes `texts`, marks every message counted, gives them back; returns how many of them
    /// were already counted.
    fn count(recent: &mut Recent, texts: &[&str]) -> usize {
        let mut known = recent.take(&messages(texts));
        let texts_kept: Vec<&str> = known.iter().map(|k| k.message.content.as_str()).collect();
        assert_eq!(texts_kept, texts);
        let counted = known.iter().filter(|k| k.chat.is_some()).count();
        assert!(known[..counted].iter().all(|k| k.chat.is_some()));
        for k in &mut known {
            k.chat = Some(1);
        }
        recent.put(known);
        counted
    }

    #[test]
    fn a_request_takes_the_counts_of_the_messages_it_repeats() {
        let mut recent = Recent::default();
        assert_eq!(count(&mut recent, &["s", "a"]), 0);
        assert_eq!(count(&mut recent, &["s", "a", "b"]), 2);
        // Another sequence (a trigger's full history) keeps the first one's counts.
        assert_eq!(count(&mut recent, &["s", "x"]), 0);
        assert_eq!(count(&mut recent, &["s", "a", "b", "c"]), 3);
        assert_eq!(count(&mut recent, &["s", "x", "y"]), 2);
        // A message changed counts again from where it changed, a changed layout too.
        assert_eq!(count(&mut recent, &["s", "a", "B", "c", "d"]), 2);
        let mut known = recent.take(&messages(&["s", "a"]));
        assert_eq!(known.len(), 2);
        known[1].message.blocks = Vec::new().into();
        recent.put(known);
        assert_eq!(count(&mut recent, &["s", "a"]), 1);
    }

    #[test]
    fn a_message_kept_takes_the_text_of_its_equal_counterpart() {
        let mut recent = Recent::default();
        let first = messages(&["s", "a"]);
        let known = recent.take(&first);
        recent.put(known);
        // The same texts in other allocations: counted already, and kept as these.
        let again = messages(&["s", "a", "b"]);
        let known = recent.take(&again);
        for (known, message) in known.iter().zip(&again) {
            assert!(Arc::ptr_eq(&known.message.content, &message.content));
            assert!(Arc::ptr_eq(&known.message.blocks, &message.blocks));
        }
        recent.put(known);
        // Another text of the same length is not taken for one.
        let other = messages(&["s", "c"]);
        let known = recent.take(&other);
        assert_eq!(&*known[1].message.content, "c");
    }
}
