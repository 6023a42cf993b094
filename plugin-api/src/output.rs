//! What a strategy returns: messages made of content blocks, blocks made of sections. The
//! strategy decides what is shown and computes the values (type labels, samples cut to limits,
//! ...); each section names the template that decides how it looks. The host renders the
//! sections through its templates and joins the non-empty ones of a message with one blank
//! line. The blocks and their cache breakpoints tell a client where a provider's prompt cache
//! may end: they change the price of a prompt, never its text.

use std::borrow::Cow;

use abi_stable::std_types::{RArc, RCow, RCowStr, RStr, RString, RVec, Tuple2};
use abi_stable::StableAbi;

use crate::blocks::Blocks;

/// Who a message is from.
#[repr(u8)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    System,
    User,
    Assistant,
}

impl Role {
    /// `system`, `user` or `assistant`, as chat APIs spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }
}

/// The name of a field as templates see it. Field names are the plugin's static strings: they
/// live as long as the plugin, which is never unloaded.
pub type FieldName = RStr<'static>;

/// A value handed to a template: text and numbers the strategy computed, never whole data.
///
/// Text borrows from the run and its turns when it is shown as they hold it (a name, a
/// mission, a printed line): a render's fields live as long as what they were rendered from,
/// and only text the strategy built (a sample, a label) is allocated. Two texts are equal when
/// they read the same, borrowed or not.
///
/// A field every prompt of a run shows the same (a run's tools and data) may be built once and
/// handed to each prompt [`Field::Shared`]: the host then knows it by its address, and neither
/// compares nor hashes what it holds when it meets it again. A shared field reads, renders,
/// compares and hashes as the field it holds.
#[repr(u8)]
#[derive(StableAbi, Clone, Debug)]
pub enum Field<'a> {
    Text(RCowStr<'a>),
    Integer(i64),
    Boolean(bool),
    List(RVec<Field<'a>>),
    Record(RVec<Tuple2<FieldName, Field<'a>>>),
    /// A field built once and shared by the prompts that show it; it owns its text (or
    /// borrows the plugin's own constants). Build one with [`Field::shared`].
    Shared(RArc<Field<'static>>),
}

impl<'a> Field<'a> {
    /// Text that lives as long as the plugin (a label, padding): borrowed, never copied.
    pub const fn text_static(text: &'static str) -> Field<'a> {
        Field::Text(RCow::Borrowed(RStr::from_str(text)))
    }

    /// `field`, its text copied where it borrows, to be handed to several prompts: clone the
    /// result for each (a clone is the same allocation).
    pub fn shared(field: Field<'_>) -> Field<'a> {
        Field::Shared(RArc::new(field.into_owned()))
    }

    /// `self`, its borrowed text copied: a field that borrows nothing from the run.
    pub fn into_owned(self) -> Field<'static> {
        match self {
            Field::Text(RCow::Borrowed(text)) => Field::Text(RCow::Owned(text.into())),
            Field::Text(RCow::Owned(text)) => Field::Text(RCow::Owned(text)),
            Field::Integer(i) => Field::Integer(i),
            Field::Boolean(b) => Field::Boolean(b),
            Field::List(items) => Field::List(map_list(items, Field::into_owned)),
            Field::Record(fields) => Field::Record(map_list(fields, |Tuple2(name, field)| {
                Tuple2(name, field.into_owned())
            })),
            Field::Shared(shared) => Field::Shared(shared),
        }
    }

    /// The field this one is: the one it holds, for a shared field.
    #[inline]
    pub fn resolve(&self) -> &Field<'a> {
        match self {
            Field::Shared(inner) => inner.resolve(),
            field => field,
        }
    }

    /// Whether `self` and `other` are the same shared field (one allocation): then they are
    /// equal without a look at what they hold.
    #[inline]
    pub fn same_shared(&self, other: &Field<'_>) -> bool {
        match (self, other) {
            (Field::Shared(a), Field::Shared(b)) => std::ptr::eq::<Field<'_>>(&**a, &**b),
            _ => false,
        }
    }
}

/// `list` with `f` applied to each element, collected into the list's own allocation when
/// `A` and `B` are laid out alike (a field and its copy that owns its text are): Rust collects
/// a `Vec`'s elements in place then, and a list made in the library that calls this is a
/// `Vec` without a copy. Making a message to share copied every list of it once more before
/// (W3: 1.2% of the time in building the copies, more in freeing the lists they were made
/// from).
pub fn map_list<A, B>(list: RVec<A>, f: impl FnMut(A) -> B) -> RVec<B> {
    list.into_vec()
        .into_iter()
        .map(f)
        .collect::<Vec<B>>()
        .into()
}

impl PartialEq for Field<'_> {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Field::Text(a), Field::Text(b)) => a == b,
            (Field::Integer(a), Field::Integer(b)) => a == b,
            (Field::Boolean(a), Field::Boolean(b)) => a == b,
            (Field::List(a), Field::List(b)) => a == b,
            (Field::Record(a), Field::Record(b)) => a == b,
            (Field::Shared(_), _) | (_, Field::Shared(_)) => {
                self.same_shared(other) || self.resolve() == other.resolve()
            }
            _ => false,
        }
    }
}

impl Eq for Field<'_> {}

impl std::hash::Hash for Field<'_> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        match self.resolve() {
            Field::Text(text) => (0u8, text.as_str()).hash(state),
            Field::Integer(i) => (1u8, i).hash(state),
            Field::Boolean(b) => (2u8, b).hash(state),
            Field::List(items) => (3u8, items.as_slice()).hash(state),
            Field::Record(fields) => (4u8, fields.as_slice()).hash(state),
            Field::Shared(_) => unreachable!("a resolved field is not shared"),
        }
    }
}

impl<'a> From<&'a str> for Field<'a> {
    fn from(text: &'a str) -> Field<'a> {
        Field::Text(RCow::Borrowed(text.into()))
    }
}

impl<'a> From<&'a RString> for Field<'a> {
    fn from(text: &'a RString) -> Field<'a> {
        Field::Text(RCow::Borrowed(text.as_rstr()))
    }
}

impl<'a> From<Cow<'a, str>> for Field<'a> {
    fn from(text: Cow<'a, str>) -> Field<'a> {
        match text {
            Cow::Borrowed(text) => text.into(),
            Cow::Owned(text) => text.into(),
        }
    }
}

impl<'a> From<String> for Field<'a> {
    fn from(text: String) -> Field<'a> {
        Field::Text(RCow::Owned(text.into()))
    }
}

impl<'a> From<RString> for Field<'a> {
    fn from(text: RString) -> Field<'a> {
        Field::Text(RCow::Owned(text))
    }
}

impl<'a> From<bool> for Field<'a> {
    fn from(b: bool) -> Field<'a> {
        Field::Boolean(b)
    }
}

impl<'a> From<i64> for Field<'a> {
    fn from(i: i64) -> Field<'a> {
        Field::Integer(i)
    }
}

impl<'a> From<usize> for Field<'a> {
    fn from(i: usize) -> Field<'a> {
        Field::Integer(i64::try_from(i).unwrap_or(i64::MAX))
    }
}

impl<'a> From<u32> for Field<'a> {
    fn from(i: u32) -> Field<'a> {
        Field::Integer(i.into())
    }
}

impl<'a> From<Vec<Field<'a>>> for Field<'a> {
    fn from(items: Vec<Field<'a>>) -> Field<'a> {
        Field::List(items.into())
    }
}

impl<'a> From<Vec<String>> for Field<'a> {
    fn from(items: Vec<String>) -> Field<'a> {
        Field::List(items.into_iter().map(Field::from).collect())
    }
}

impl<'a> From<Record<'a>> for Field<'a> {
    fn from(record: Record<'a>) -> Field<'a> {
        Field::Record(record.0)
    }
}

/// Builds a [`Field::Record`]: named fields, in order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Record<'a>(pub RVec<Tuple2<FieldName, Field<'a>>>);

impl<'a> Record<'a> {
    pub fn new() -> Record<'a> {
        Record::default()
    }

    /// Adds a field.
    pub fn with(mut self, name: &'static str, value: impl Into<Field<'a>>) -> Record<'a> {
        self.0.push(Tuple2(RStr::from_str(name), value.into()));
        self
    }
}

/// One part of a message, rendered by the template it names.
#[repr(C)]
#[derive(StableAbi, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Section<'a> {
    /// One of the strategy's templates (`tool_calls`).
    pub template: RStr<'static>,
    pub fields: RVec<Tuple2<FieldName, Field<'a>>>,
}

impl<'a> Section<'a> {
    pub fn new(template: &'static str) -> Section<'a> {
        Section {
            template: RStr::from_str(template),
            fields: RVec::new(),
        }
    }

    /// [`Section::new`] with room for `fields` fields: a section of more than four is built
    /// without growing its list.
    pub fn with_capacity(template: &'static str, fields: usize) -> Section<'a> {
        Section {
            template: RStr::from_str(template),
            fields: RVec::with_capacity(fields),
        }
    }

    /// Adds a field for the template.
    pub fn with(mut self, name: &'static str, value: impl Into<Field<'a>>) -> Section<'a> {
        self.fields.push(Tuple2(RStr::from_str(name), value.into()));
        self
    }

    /// `self`, its borrowed text copied ([`Field::into_owned`]).
    pub fn into_owned(self) -> Section<'static> {
        Section {
            template: self.template,
            fields: map_list(self.fields, |Tuple2(name, field)| {
                Tuple2(name, field.into_owned())
            }),
        }
    }
}

/// A content block of a message: some of its sections, rendered and joined as a message's are.
///
/// A provider's prompt cache can only end at a block boundary (Anthropic's rule), so the blocks
/// decide what can be read from the cache, not only the text: a stable prefix that grows must
/// grow by new blocks, never by a longer block.
#[repr(C)]
#[derive(StableAbi, Clone, Debug, PartialEq)]
pub struct Block<'a> {
    pub sections: RVec<Section<'a>>,
    /// A cache breakpoint: the client should ask the provider to cache the prompt up to and
    /// including this block (Anthropic's `cache_control`). At most four per prompt.
    pub cache_breakpoint: bool,
}

impl<'a> Block<'a> {
    /// A block without a cache breakpoint.
    pub fn new(sections: Vec<Section<'a>>) -> Block<'a> {
        Block {
            sections: sections.into(),
            cache_breakpoint: false,
        }
    }

    /// The block with a cache breakpoint.
    pub fn cached(mut self) -> Block<'a> {
        self.cache_breakpoint = true;
        self
    }

    /// `self`, its borrowed text copied ([`Field::into_owned`]).
    pub fn into_owned(self) -> Block<'static> {
        Block {
            sections: map_list(self.sections, Section::into_owned),
            cache_breakpoint: self.cache_breakpoint,
        }
    }
}

/// A chat message: content blocks made of sections. Its text is its non-empty sections,
/// rendered and joined by one blank line, whatever blocks they are in; a block whose sections
/// all render empty is left out of the message (its breakpoint, if any, moves to the block
/// before it, which ends the same prefix).
#[repr(C)]
#[derive(StableAbi, Clone, Debug, PartialEq)]
pub struct Message<'a> {
    pub role: Role,
    /// Its blocks: built for this prompt, or shared by every prompt that shows the message
    /// ([`Message::shared`]).
    pub blocks: Blocks<'a>,
}

impl<'a> Message<'a> {
    /// A message of one block, without a cache breakpoint.
    pub fn new(role: Role, sections: Vec<Section<'a>>) -> Message<'a> {
        Message::of_blocks(role, vec![Block::new(sections)])
    }

    pub fn of_blocks(role: Role, blocks: Vec<Block<'a>>) -> Message<'a> {
        Message {
            role,
            blocks: blocks.into(),
        }
    }

    /// The message with a cache breakpoint on its last block.
    pub fn cached(mut self) -> Message<'a> {
        self.set_cache_breakpoint();
        self
    }

    /// Puts a cache breakpoint on the message's last block (on a copy of shared blocks that
    /// lack it).
    pub fn set_cache_breakpoint(&mut self) {
        if self
            .blocks
            .last()
            .is_some_and(|last| !last.cache_breakpoint)
        {
            if let Some(last) = self.blocks.to_mut().last_mut() {
                last.cache_breakpoint = true;
            }
        }
    }

    /// The message, its blocks built once to be handed to several prompts (their borrowed
    /// text copied): clone the result for each. The host knows shared blocks by their address
    /// ([`Blocks`]).
    pub fn shared<'b>(self) -> Message<'b> {
        Message {
            role: self.role,
            blocks: match self.blocks {
                Blocks::Shared(shared) => Blocks::Shared(shared),
                Blocks::Own(own) => Blocks::Shared(RArc::new(map_list(own, Block::into_owned))),
            },
        }
    }

    /// Every section of the message, block after block.
    pub fn sections(&self) -> impl Iterator<Item = &Section<'a>> {
        self.blocks.iter().flat_map(|b| b.sections.iter())
    }

    /// The message's sections, block after block, its blocks given up.
    pub fn into_sections(self) -> Vec<Section<'a>> {
        self.blocks
            .into_iter()
            .flat_map(|b| b.sections.into_iter())
            .collect()
    }
}

/// What a render kept and dropped (the guide's "Compression Statistics").
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Turns in the rendered history (failed ones included).
    pub turns_compressed: u64,
    pub tool_calls_total: u64,
    pub tool_calls_shown: u64,
    pub tool_calls_dropped: u64,
    pub printlns_total: u64,
    pub printlns_shown: u64,
    pub printlns_dropped: u64,
    /// Failed turns not shown.
    pub error_turns_collapsed: u64,
}

impl std::ops::AddAssign for Stats {
    /// Adds `more` field by field (a strategy that renders its history in parts adds up the
    /// statistics of the parts).
    fn add_assign(&mut self, more: Stats) {
        // Destructured without `..`, so that a field added to `Stats` must be added here too.
        let Stats {
            turns_compressed,
            tool_calls_total,
            tool_calls_shown,
            tool_calls_dropped,
            printlns_total,
            printlns_shown,
            printlns_dropped,
            error_turns_collapsed,
        } = more;
        self.turns_compressed += turns_compressed;
        self.tool_calls_total += tool_calls_total;
        self.tool_calls_shown += tool_calls_shown;
        self.tool_calls_dropped += tool_calls_dropped;
        self.printlns_total += printlns_total;
        self.printlns_shown += printlns_shown;
        self.printlns_dropped += printlns_dropped;
        self.error_turns_collapsed += error_turns_collapsed;
    }
}

/// A strategy's render: the messages of the next prompt and its statistics.
#[repr(C)]
#[derive(StableAbi, Clone, Debug, PartialEq)]
pub struct Output<'a> {
    pub messages: RVec<Message<'a>>,
    pub stats: Stats,
}

/// A model call a strategy makes besides sending its prompt, to build that prompt: a
/// compaction's summarizer. The host prices it like a prompt (its request through the
/// provider's cache, its response as output tokens); offline, the response is the text the
/// strategy puts in the prompt in its place.
#[repr(C)]
#[derive(StableAbi, Clone, Debug, PartialEq)]
pub struct ModelCall<'a> {
    /// The request as sent: messages of blocks of sections, rendered through the templates as
    /// a prompt's are.
    pub request: RVec<Message<'a>>,
    /// What the model answers, as sections (rendered the same way): its tokens are the call's
    /// output.
    pub response: RVec<Section<'a>>,
}

/// What went wrong in a strategy.
#[repr(u8)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// An option has a value the strategy cannot use.
    Option,
    /// The run or its turns cannot be rendered by this strategy.
    Input,
    /// The strategy panicked; the panic was caught at the boundary.
    Panic,
}

/// A strategy's error, carried across the boundary.
#[repr(C)]
#[derive(StableAbi, Clone, Debug, PartialEq, Eq)]
pub struct RenderError {
    pub kind: ErrorKind,
    pub message: RString,
}

impl RenderError {
    /// An option error: `option `name`: problem`.
    pub fn option(name: &str, problem: &str) -> RenderError {
        RenderError {
            kind: ErrorKind::Option,
            message: format!("option `{name}`: {problem}").into(),
        }
    }

    pub fn input(message: &str) -> RenderError {
        RenderError {
            kind: ErrorKind::Input,
            message: message.into(),
        }
    }
}

impl std::fmt::Display for RenderError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for RenderError {}

#[cfg(test)]
mod tests {
    use std::hash::BuildHasher;

    use super::*;

    #[test]
    fn text_given_as_a_str_is_borrowed_and_reads_as_the_same_text_owned() {
        let run_text = String::from("the mission");
        let borrowed = Field::from(run_text.as_str());
        let Field::Text(RCow::Borrowed(text)) = &borrowed else {
            panic!("copied: {borrowed:?}")
        };
        assert_eq!(text.as_ptr(), run_text.as_ptr(), "no copy of the text");
        assert!(matches!(
            Field::from(std::borrow::Cow::Borrowed("x")),
            Field::Text(RCow::Borrowed(_))
        ));
        let owned = Field::from(run_text.clone());
        assert!(matches!(owned, Field::Text(RCow::Owned(_))));
        assert_eq!(borrowed, owned);
        let state = std::hash::RandomState::new();
        assert_eq!(state.hash_one(&borrowed), state.hash_one(&owned));
        assert_eq!(Field::text_static("  "), Field::from("  ".to_owned()));
    }

    #[test]
    fn a_shared_field_is_the_field_it_holds_its_text_copied() {
        let run_text = String::from("search");
        let field = Field::from(vec![
            Field::from(run_text.as_str()),
            Record::new().with("n", 3i64).with("on", true).into(),
        ]);
        let shared = Field::shared(field.clone());
        let Field::List(items) = shared.resolve() else {
            panic!("{shared:?}")
        };
        let Field::Text(RCow::Owned(text)) = &items[0] else {
            panic!("borrowed: {items:?}")
        };
        assert_eq!(text.as_str(), "search");
        assert_eq!(shared, field);
        assert_eq!(field, shared);
        let state = std::hash::RandomState::new();
        assert_eq!(state.hash_one(&shared), state.hash_one(&field));
        // A clone is the same allocation; another sharing of equal content is equal, not the
        // same allocation; a field that differs is not equal.
        assert!(shared.same_shared(&shared.clone()));
        let again = Field::shared(field.clone());
        assert!(!shared.same_shared(&again) && shared == again);
        assert!(!shared.same_shared(&field) && !field.same_shared(&field));
        assert_ne!(
            shared,
            Field::shared(Field::from(vec![Field::from("search")]))
        );
        assert_ne!(Field::from(1i64), Field::from(true));
        // Shared within shared reads as the innermost field.
        assert_eq!(Field::shared(shared.clone()).resolve(), field.resolve());
    }

    #[test]
    fn a_copy_that_owns_its_text_keeps_the_lists_it_was_made_of() {
        let run_text = String::from("search");
        let items = RVec::from(vec![Field::from(run_text.as_str()), Field::from(2i64)]);
        let section = Section::new("t").with("items", Field::List(items));
        let copy = section.clone();
        let fields = copy.fields.as_ptr() as usize;
        let Field::List(items) = &copy.fields[0].1 else {
            panic!("{copy:?}")
        };
        let list = items.as_ptr() as usize;
        let owned = copy.into_owned();
        assert_eq!(owned, section);
        assert_eq!(owned.fields.as_ptr() as usize, fields);
        let Field::List(items) = &owned.fields[0].1 else {
            panic!("{owned:?}")
        };
        assert_eq!(items.as_ptr() as usize, list);
        assert!(matches!(&items[0], Field::Text(RCow::Owned(text)) if text == "search"));
    }
}
