//! What a strategy returns: messages made of content blocks, blocks made of sections. The
//! strategy decides what is shown and computes the values (type labels, samples cut to limits,
//! ...); each section names the template that decides how it looks. The host renders the
//! sections through its templates and joins the non-empty ones of a message with one blank
//! line. The blocks and their cache breakpoints tell a client where a provider's prompt cache
//! may end: they change the price of a prompt, never its text.

use abi_stable::std_types::{RStr, RString, RVec, Tuple2};
use abi_stable::StableAbi;

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
#[repr(u8)]
#[derive(StableAbi, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Field {
    Text(RString),
    Integer(i64),
    Boolean(bool),
    List(RVec<Field>),
    Record(RVec<Tuple2<FieldName, Field>>),
}

impl From<&str> for Field {
    fn from(text: &str) -> Field {
        Field::Text(text.into())
    }
}

impl From<String> for Field {
    fn from(text: String) -> Field {
        Field::Text(text.into())
    }
}

impl From<RString> for Field {
    fn from(text: RString) -> Field {
        Field::Text(text)
    }
}

impl From<bool> for Field {
    fn from(b: bool) -> Field {
        Field::Boolean(b)
    }
}

impl From<i64> for Field {
    fn from(i: i64) -> Field {
        Field::Integer(i)
    }
}

impl From<usize> for Field {
    fn from(i: usize) -> Field {
        Field::Integer(i64::try_from(i).unwrap_or(i64::MAX))
    }
}

impl From<u32> for Field {
    fn from(i: u32) -> Field {
        Field::Integer(i.into())
    }
}

impl From<Vec<Field>> for Field {
    fn from(items: Vec<Field>) -> Field {
        Field::List(items.into())
    }
}

impl From<Vec<String>> for Field {
    fn from(items: Vec<String>) -> Field {
        Field::List(items.into_iter().map(Field::from).collect())
    }
}

impl From<Record> for Field {
    fn from(record: Record) -> Field {
        Field::Record(record.0)
    }
}

/// Builds a [`Field::Record`]: named fields, in order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Record(pub RVec<Tuple2<FieldName, Field>>);

impl Record {
    pub fn new() -> Record {
        Record::default()
    }

    /// Adds a field.
    pub fn with(mut self, name: &'static str, value: impl Into<Field>) -> Record {
        self.0.push(Tuple2(RStr::from_str(name), value.into()));
        self
    }
}

/// One part of a message, rendered by the template it names.
#[repr(C)]
#[derive(StableAbi, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Section {
    /// One of the strategy's templates (`tool_calls`).
    pub template: RStr<'static>,
    pub fields: RVec<Tuple2<FieldName, Field>>,
}

impl Section {
    pub fn new(template: &'static str) -> Section {
        Section {
            template: RStr::from_str(template),
            fields: RVec::new(),
        }
    }

    /// Adds a field for the template.
    pub fn with(mut self, name: &'static str, value: impl Into<Field>) -> Section {
        self.fields.push(Tuple2(RStr::from_str(name), value.into()));
        self
    }
}

/// A content block of a message: some of its sections, rendered and joined as a message's are.
///
/// A provider's prompt cache can only end at a block boundary (Anthropic's rule), so the blocks
/// decide what can be read from the cache, not only the text: a stable prefix that grows must
/// grow by new blocks, never by a longer block.
#[repr(C)]
#[derive(StableAbi, Clone, Debug, PartialEq)]
pub struct Block {
    pub sections: RVec<Section>,
    /// A cache breakpoint: the client should ask the provider to cache the prompt up to and
    /// including this block (Anthropic's `cache_control`). At most four per prompt.
    pub cache_breakpoint: bool,
}

impl Block {
    /// A block without a cache breakpoint.
    pub fn new(sections: Vec<Section>) -> Block {
        Block {
            sections: sections.into(),
            cache_breakpoint: false,
        }
    }

    /// The block with a cache breakpoint.
    pub fn cached(mut self) -> Block {
        self.cache_breakpoint = true;
        self
    }
}

/// A chat message: content blocks made of sections. Its text is its non-empty sections,
/// rendered and joined by one blank line, whatever blocks they are in; a block whose sections
/// all render empty is left out of the message (its breakpoint, if any, moves to the block
/// before it, which ends the same prefix).
#[repr(C)]
#[derive(StableAbi, Clone, Debug, PartialEq)]
pub struct Message {
    pub role: Role,
    pub blocks: RVec<Block>,
}

impl Message {
    /// A message of one block, without a cache breakpoint.
    pub fn new(role: Role, sections: Vec<Section>) -> Message {
        Message::of_blocks(role, vec![Block::new(sections)])
    }

    pub fn of_blocks(role: Role, blocks: Vec<Block>) -> Message {
        Message {
            role,
            blocks: blocks.into(),
        }
    }

    /// The message with a cache breakpoint on its last block.
    pub fn cached(mut self) -> Message {
        self.set_cache_breakpoint();
        self
    }

    /// Puts a cache breakpoint on the message's last block.
    pub fn set_cache_breakpoint(&mut self) {
        if let Some(last) = self.blocks.last_mut() {
            last.cache_breakpoint = true;
        }
    }

    /// Every section of the message, block after block.
    pub fn sections(&self) -> impl Iterator<Item = &Section> {
        self.blocks.iter().flat_map(|b| b.sections.iter())
    }

    /// The message's sections, block after block, its blocks given up.
    pub fn into_sections(self) -> Vec<Section> {
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
pub struct Output {
    pub messages: RVec<Message>,
    pub stats: Stats,
}

/// A model call a strategy makes besides sending its prompt, to build that prompt: a
/// compaction's summarizer. The host prices it like a prompt (its request through the
/// provider's cache, its response as output tokens); offline, the response is the text the
/// strategy puts in the prompt in its place.
#[repr(C)]
#[derive(StableAbi, Clone, Debug, PartialEq)]
pub struct ModelCall {
    /// The request as sent: messages of blocks of sections, rendered through the templates as
    /// a prompt's are.
    pub request: RVec<Message>,
    /// What the model answers, as sections (rendered the same way): its tokens are the call's
    /// output.
    pub response: RVec<Section>,
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
