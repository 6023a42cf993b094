//! A rendered chat message: its role, its text and the content blocks a prompt cache sees,
//! with the breakpoints the strategy put on them. The renderer makes them; token counting and
//! the cost simulation read them.

use std::sync::Arc;

use ptc_plugin_api::Role;

pub mod wire;

/// The text of a message, shared. The `String` a message is rendered into is kept as it is,
/// behind the count: an `Arc<str>` would be a second allocation and a copy of every new text
/// (3.5% of W5's CPU, whose tool outputs run to many kilobytes).
pub type Text = Arc<String>;

/// A chat message with its text and its content blocks.
#[derive(Clone, Debug, Eq)]
pub struct RenderedMessage {
    pub role: Role,
    /// The text, shared: a message a run's next prompt repeats is the same text, not a copy,
    /// and comparing it with itself does not read it.
    pub content: Text,
    /// The content blocks, in order: byte ranges of `content`, one blank line between two.
    /// A message whose content is empty has none.
    pub blocks: Arc<[BlockSpan]>,
}

/// Equal messages: the same role, text and blocks. A text is compared whole only when it is
/// not the same one (shared) and its length and last byte are those of the other: the
/// messages of a run's prompts compared in turn are mostly either shared or of different
/// lengths, or of one length (a template's) and different ends.
impl PartialEq for RenderedMessage {
    fn eq(&self, other: &RenderedMessage) -> bool {
        self.same_text(other)
            && (Arc::ptr_eq(&self.blocks, &other.blocks) || self.blocks == other.blocks)
    }
}

/// One content block of a [`RenderedMessage`]: `content[start..end]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockSpan {
    pub start: usize,
    pub end: usize,
    /// The strategy put a cache breakpoint on this block.
    pub cache_breakpoint: bool,
}

impl RenderedMessage {
    /// The same role and text, its blocks aside. A text shared between the two is not read:
    /// `Arc`'s own `==` compares the bytes even of one text with itself.
    pub fn same_text(&self, other: &RenderedMessage) -> bool {
        let (a, b) = (self.content.as_bytes(), other.content.as_bytes());
        self.role == other.role
            && (Arc::ptr_eq(&self.content, &other.content)
                || (a.len() == b.len() && a.last() == b.last() && a == b))
    }

    /// A message of one block without a breakpoint (or none, when `content` is empty).
    pub fn plain(role: Role, content: impl Into<String>) -> RenderedMessage {
        let content: Text = Arc::new(content.into());
        let blocks: Arc<[BlockSpan]> = if content.is_empty() {
            Arc::new([])
        } else {
            Arc::new([BlockSpan {
                start: 0,
                end: content.len(),
                cache_breakpoint: false,
            }])
        };
        RenderedMessage {
            role,
            content,
            blocks,
        }
    }

    /// Puts a cache breakpoint on the last block, if there is one; whether there is.
    pub fn mark_last_block(&mut self) -> bool {
        let mut blocks = self.blocks.to_vec();
        let Some(last) = blocks.last_mut() else {
            return false;
        };
        last.cache_breakpoint = true;
        self.blocks = blocks.into();
        true
    }

    /// Whether its blocks are the byte ranges `spans`, in order.
    pub fn laid_out_as(&self, spans: &[(usize, usize)]) -> bool {
        spans.len() == self.blocks.len()
            && spans
                .iter()
                .zip(self.blocks.iter())
                .all(|(&(start, end), b)| start == b.start && end == b.end)
    }

    /// The text of each block, with whether it carries a cache breakpoint.
    pub fn block_texts(&self) -> impl Iterator<Item = (&str, bool)> {
        self.blocks
            .iter()
            .map(|b| (&self.content[b.start..b.end], b.cache_breakpoint))
    }
}

/// A message of `blocks` (text, breakpoint), joined by a blank line as the renderer joins them:
/// the messages of the tests of token counting and request bodies.
#[cfg(test)]
pub(crate) fn message_of_blocks(role: Role, blocks: &[(&str, bool)]) -> RenderedMessage {
    let mut content = String::new();
    let mut spans = Vec::with_capacity(blocks.len());
    for (text, cache_breakpoint) in blocks {
        if !content.is_empty() {
            content.push_str("\n\n");
        }
        let start = content.len();
        content.push_str(text);
        spans.push(BlockSpan {
            start,
            end: content.len(),
            cache_breakpoint: *cache_breakpoint,
        });
    }
    RenderedMessage {
        role,
        content: content.into(),
        blocks: spans.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_equal_by_role_text_and_blocks_shared_or_not() {
        let user = |text: &str| RenderedMessage::plain(Role::User, text);
        let shared = user("(def x 1) ;; 12");
        assert_eq!(shared, shared.clone());
        // The same text in another allocation.
        assert_eq!(shared, user("(def x 1) ;; 12"));
        // One length and one last byte, another text.
        assert_ne!(shared, user("(def y 1) ;; 12"));
        assert_ne!(shared, user("(def x 1) ;; 13"));
        assert_ne!(shared, user("(def x 1) ;; 1"));
        assert_ne!(
            shared,
            RenderedMessage::plain(Role::Assistant, "(def x 1) ;; 12")
        );
        let mut split = user("(def x 1) ;; 12");
        assert!(split.mark_last_block());
        assert_ne!(shared, split);
        assert_eq!(user(""), user(""));
        assert_ne!(user(""), user(" "));
        // Laid out as the byte ranges of its blocks.
        assert!(shared.laid_out_as(&[(0, 15)]));
        assert!(!shared.laid_out_as(&[(0, 14)]));
        assert!(!shared.laid_out_as(&[(0, 15), (15, 15)]));
        assert!(user("").laid_out_as(&[]));
    }
}
