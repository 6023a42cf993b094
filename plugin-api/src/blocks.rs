//! A message's blocks: built for one prompt, or built once and shared by every prompt that
//! shows the message.
//!
//! The prompts of a run show the same messages again and again (every earlier turn of a full
//! history, the head of every prompt). A strategy that builds such a message once per run and
//! hands each prompt a clone of it ([`Message::shared`](crate::Message::shared), then
//! `clone`) gives the host one allocation it knows by its address: the host neither compares
//! nor hashes what the blocks hold when it meets them again, wherever they stand in the
//! prompt, and dropping a prompt drops a count, not the message.

use std::fmt;
use std::ops::Deref;

use abi_stable::std_types::{RArc, RVec};
use abi_stable::StableAbi;

use crate::output::Block;

/// The blocks of a [`Message`](crate::Message). They read as a slice of blocks either way;
/// shared ones own their text.
#[repr(u8)]
#[derive(StableAbi, Clone)]
pub enum Blocks<'a> {
    /// Blocks built for this prompt; they may borrow text from the run and its turns.
    Own(RVec<Block<'a>>),
    /// Blocks built once and handed to several prompts: each holds a count of one allocation.
    Shared(RArc<RVec<Block<'static>>>),
}

impl<'a> Blocks<'a> {
    /// `blocks`, their borrowed text copied, as one allocation to be handed to several prompts:
    /// clone the result for each.
    pub fn shared<'b>(blocks: impl IntoIterator<Item = Block<'b>>) -> Blocks<'a> {
        Blocks::Shared(RArc::new(
            blocks.into_iter().map(Block::into_owned).collect(),
        ))
    }

    /// The blocks, to be changed: shared ones are copied first (the other prompts that hold
    /// them keep them as they were).
    pub fn to_mut(&mut self) -> &mut RVec<Block<'a>> {
        if let Blocks::Shared(shared) = self {
            let own: RVec<Block<'a>> = shared.iter().cloned().collect();
            *self = Blocks::Own(own);
        }
        match self {
            Blocks::Own(own) => own,
            Blocks::Shared(_) => unreachable!("made its own above"),
        }
    }

    /// The blocks, given up (shared ones copied unless this was their last holder).
    pub fn into_vec(self) -> RVec<Block<'a>> {
        match self {
            Blocks::Own(own) => own,
            Blocks::Shared(shared) => match RArc::try_unwrap(shared) {
                Ok(own) => own.into_iter().collect(),
                Err(shared) => shared.iter().cloned().collect(),
            },
        }
    }

    /// Whether `self` and `other` are the same shared blocks (one allocation): then they are
    /// equal without a look at what they hold.
    #[inline]
    pub fn same_shared(&self, other: &Blocks<'_>) -> bool {
        match (self, other) {
            (Blocks::Shared(a), Blocks::Shared(b)) => std::ptr::eq::<RVec<Block<'_>>>(&**a, &**b),
            _ => false,
        }
    }

    /// The address of shared blocks, which is theirs while any holder keeps them; `None` for
    /// blocks of one prompt.
    #[inline]
    pub fn shared_address(&self) -> Option<usize> {
        match self {
            Blocks::Shared(shared) => Some(std::ptr::from_ref::<RVec<Block<'_>>>(shared).addr()),
            Blocks::Own(_) => None,
        }
    }
}

impl<'a> Deref for Blocks<'a> {
    type Target = [Block<'a>];

    #[inline]
    fn deref(&self) -> &[Block<'a>] {
        match self {
            Blocks::Own(own) => own,
            Blocks::Shared(shared) => shared.as_slice(),
        }
    }
}

impl Default for Blocks<'_> {
    fn default() -> Self {
        Blocks::Own(RVec::new())
    }
}

impl<'a> From<RVec<Block<'a>>> for Blocks<'a> {
    fn from(blocks: RVec<Block<'a>>) -> Blocks<'a> {
        Blocks::Own(blocks)
    }
}

impl<'a> From<Vec<Block<'a>>> for Blocks<'a> {
    fn from(blocks: Vec<Block<'a>>) -> Blocks<'a> {
        Blocks::Own(blocks.into())
    }
}

impl<'a> IntoIterator for Blocks<'a> {
    type Item = Block<'a>;
    type IntoIter = abi_stable::std_types::vec::IntoIter<Block<'a>>;

    fn into_iter(self) -> Self::IntoIter {
        self.into_vec().into_iter()
    }
}

impl PartialEq for Blocks<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.same_shared(other) || **self == **other
    }
}

impl fmt::Debug for Blocks<'_> {
    /// As the list of blocks, shared or not.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

#[cfg(test)]
mod tests {
    use abi_stable::std_types::RCow;

    use super::*;
    use crate::{Field, Message, Role, Section};

    fn block(text: &str) -> Block<'_> {
        Block::new(vec![Section::new("t").with("text", text)])
    }

    #[test]
    fn shared_blocks_read_as_the_blocks_they_hold_their_text_copied() {
        let run_text = String::from("printed");
        let own = Message::new(Role::User, vec![Section::new("t").with("text", &*run_text)]);
        let shared = own.clone().shared();
        assert_eq!(shared, own);
        assert_eq!(own, shared);
        assert_eq!(format!("{shared:?}"), format!("{own:?}"));
        let Field::Text(RCow::Owned(text)) = shared.blocks[0].sections[0].fields[0].1.resolve()
        else {
            panic!("borrowed: {shared:?}")
        };
        assert_eq!(text.as_str(), "printed");
        // A clone is the same allocation; another sharing of equal blocks is equal, not the
        // same allocation; blocks of one prompt are never the same allocation.
        assert!(shared.blocks.same_shared(&shared.clone().blocks));
        assert_eq!(
            shared.blocks.shared_address(),
            shared.clone().blocks.shared_address()
        );
        let again = own.clone().shared();
        assert!(!shared.blocks.same_shared(&again.blocks) && shared == again);
        assert!(!own.blocks.same_shared(&own.blocks) && own.blocks.shared_address().is_none());
        assert_ne!(shared, Message::new(Role::User, vec![]).shared());
    }

    #[test]
    fn changing_shared_blocks_changes_a_copy() {
        let shared = Blocks::shared(vec![block("a"), block("b")]);
        let mut changed = shared.clone();
        changed.to_mut()[1].cache_breakpoint = true;
        assert!(changed[1].cache_breakpoint && !shared[1].cache_breakpoint);
        assert!(!changed.same_shared(&shared));
        let mut message = Message {
            role: Role::Assistant,
            blocks: shared.clone(),
        };
        message.set_cache_breakpoint();
        assert!(message.blocks[1].cache_breakpoint && !shared[1].cache_breakpoint);
        // Given up: a copy while another holds them, the blocks themselves for the last.
        let held = shared.clone();
        assert_eq!(shared.into_vec().as_slice(), &*held);
        assert_eq!(held.clone().into_iter().count(), 2);
        assert_eq!(Blocks::from(vec![block("c")]).into_vec().len(), 1);
    }
}
