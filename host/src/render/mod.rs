//! Rendering a prompt: a strategy's output (messages of sections) turned into chat messages by
//! the strategy's templates.

mod direct;
mod error;
pub mod explain;
mod filters;
pub mod fuzz;
mod growth;
pub mod request;
mod section_cache;
mod template_error;
pub mod templates;
pub mod trigger;

use ptc_plugin_api::{Options, Output, Section, Stats};
use serde::Serialize;

use crate::cache::MAX_BREAKPOINTS;
pub use crate::message::{BlockSpan, RenderedMessage};
use crate::plugins::LoadedStrategy;
use crate::recording::Recording;
pub use crate::render::error::RenderError;
pub use crate::render::section_cache::SectionCache;
use crate::render::templates::{TemplateError, Templates};

/// The prompt sent before turn `turns + 1`.
#[derive(Clone, Debug, PartialEq)]
pub struct Prompt {
    pub strategy: String,
    /// How many recorded turns it was rendered from.
    pub turns: usize,
    pub messages: Vec<RenderedMessage>,
    pub stats: Stats,
    /// Tokens sent before the messages that the recording does not hold: the inferred prefix
    /// of a run whose requests are rebuilt from its log (its system prompt and tool schemas,
    /// known by size only). Counted and cached as one leading system block; 0 for none.
    pub prefix_tokens: usize,
}

/// A model call a strategy makes besides its prompt (a compaction's summarizer), rendered: its
/// request's messages and its response's text.
#[derive(Clone, Debug, PartialEq)]
pub struct RenderedCall {
    pub request: Vec<RenderedMessage>,
    pub response: String,
}

/// A strategy with its resolved options and its templates: renders prompts.
pub struct Renderer<'a> {
    strategy: &'a LoadedStrategy,
    options: Options,
    templates: Templates,
}

impl<'a> Renderer<'a> {
    pub fn new(
        strategy: &'a LoadedStrategy,
        options: Options,
        templates: Templates,
    ) -> Renderer<'a> {
        Renderer {
            strategy,
            options,
            templates,
        }
    }

    pub fn strategy(&self) -> &LoadedStrategy {
        self.strategy
    }

    pub fn options(&self) -> &Options {
        &self.options
    }

    pub fn templates(&self) -> &Templates {
        &self.templates
    }

    /// The strategy's output for the prompt after the first `turns` turns, before templates.
    pub fn output<'r>(
        &self,
        recording: &'r Recording,
        turns: usize,
    ) -> Result<Output<'r>, RenderError> {
        if turns > recording.turns.len() {
            return Err(RenderError::TurnsOutOfRange {
                path: recording.path.clone(),
                asked: turns,
                recorded: recording.turns.len(),
            });
        }
        self.strategy
            .render(&recording.run, &recording.turns[..turns], &self.options)
            .map_err(|source| RenderError::Strategy {
                strategy: self.strategy.name.clone(),
                file: self.strategy.file.clone(),
                source,
            })
    }

    /// Appends one section's text to `text`. A section naming a template the strategy does not
    /// provide is the strategy's failure, reported with its file.
    pub(super) fn append_section(
        &self,
        section: &Section,
        scratch: &mut Vec<u8>,
        text: &mut String,
    ) -> Result<(), RenderError> {
        self.templates
            .append_section(section, scratch, text)
            .map_err(|source| match source {
                TemplateError::Missing { .. } => RenderError::StrategyTemplate {
                    strategy: self.strategy.name.clone(),
                    file: self.strategy.file.clone(),
                    source: Box::new(source),
                },
                other => other.into(),
            })
    }

    /// The model calls the strategy makes before sending the prompt after the first `turns`
    /// turns, besides it, rendered through the templates as prompts are (the response's
    /// sections joined by a blank line).
    pub fn model_calls(
        &self,
        recording: &Recording,
        turns: usize,
    ) -> Result<Vec<RenderedCall>, RenderError> {
        let turns = &recording.turns[..turns.min(recording.turns.len())];
        let calls = self
            .strategy
            .model_calls(&recording.run, turns, &self.options)
            .map_err(|source| RenderError::Strategy {
                strategy: self.strategy.name.clone(),
                file: self.strategy.file.clone(),
                source,
            })?;
        let mut scratch = Vec::new();
        calls
            .into_iter()
            .map(|call| {
                let request = self.messages(&Output {
                    messages: call.request,
                    stats: Stats::default(),
                })?;
                let mut response = String::new();
                for section in call.response.iter() {
                    let mark = response.len();
                    if !response.is_empty() {
                        response.push_str("\n\n");
                    }
                    let start = response.len();
                    self.append_section(section, &mut scratch, &mut response)?;
                    if response.len() == start {
                        response.truncate(mark);
                    }
                }
                Ok(RenderedCall { request, response })
            })
            .collect()
    }

    /// The prompt sent before turn `turns + 1` of `recording`.
    pub fn render(&self, recording: &Recording, turns: usize) -> Result<Prompt, RenderError> {
        let output = self.output(recording, turns)?;
        let mut prompt = Prompt {
            strategy: self.strategy.name.clone(),
            turns,
            messages: self.messages(&output)?,
            stats: output.stats,
            prefix_tokens: 0,
        };
        trigger::in_place_of_system_prompt(&mut prompt, recording);
        Ok(prompt)
    }

    /// The messages of `output`: each one's sections rendered, the empty ones left out, the
    /// others joined by one blank line.
    pub fn messages(&self, output: &Output) -> Result<Vec<RenderedMessage>, RenderError> {
        self.messages_cached(output, None)
    }

    /// [`Renderer::messages`], reusing the text of sections rendered before from `cache`.
    ///
    /// A block whose sections all render empty is left out; its cache breakpoint moves to the
    /// block before it (in this message or an earlier one), which ends the same prefix. More
    /// than [`MAX_BREAKPOINTS`] breakpoints are the strategy's failure.
    pub fn messages_cached<'r>(
        &self,
        output: &Output<'r>,
        mut cache: Option<&mut SectionCache<'r>>,
    ) -> Result<Vec<RenderedMessage>, RenderError> {
        let mut messages: Vec<RenderedMessage> = Vec::with_capacity(output.messages.len());
        let mut breakpoints = 0;
        let mut scratch = Vec::new();
        if let Some(cache) = cache.as_deref_mut() {
            cache.start();
        }
        for (at, message) in output.messages.iter().enumerate() {
            // A message the last prompt had at its place is its text again.
            let repeated = cache.as_deref().and_then(|c| c.repeated(at, message));
            if let Some(repeated) = repeated {
                breakpoints += message.blocks.iter().filter(|b| b.cache_breakpoint).count();
                if let Some(cache) = cache.as_deref_mut() {
                    cache.again(repeated.clone());
                }
                messages.push(repeated);
                continue;
            }
            // Whether an empty block of this message moved its breakpoint to an earlier one.
            let mut marked_before = false;
            let mut content = String::with_capacity(text_size_hint(message));
            // Held in place, then shared: one allocation of the blocks' size.
            let mut blocks = smallvec::SmallVec::<[BlockSpan; 4]>::new();
            for block in message.blocks.iter() {
                let before = content.len();
                for section in block.sections.iter() {
                    // Each section's text follows a blank line, unless it is the first text of
                    // the message; a section that renders to nothing leaves no trace.
                    let mark = content.len();
                    if !content.is_empty() {
                        content.push_str("\n\n");
                    }
                    let start = content.len();
                    match cache.as_deref_mut() {
                        Some(cache) => cache.append(section, &mut content, |text| {
                            self.append_section(section, &mut scratch, text)
                        })?,
                        None => self.append_section(section, &mut scratch, &mut content)?,
                    }
                    if content.len() == start {
                        content.truncate(mark);
                    }
                }
                breakpoints += usize::from(block.cache_breakpoint);
                if content.len() > before {
                    // The separator before the block's text belongs to no block.
                    let start = if before == 0 { 0 } else { before + 2 };
                    blocks.push(BlockSpan {
                        start,
                        end: content.len(),
                        cache_breakpoint: block.cache_breakpoint,
                    });
                } else if block.cache_breakpoint {
                    // An empty block ends the prefix the block before it ends.
                    match blocks.last_mut() {
                        Some(before) => before.cache_breakpoint = true,
                        None => {
                            marked_before = messages.iter_mut().rev().any(|m| m.mark_last_block());
                        }
                    }
                }
            }
            let rendered = RenderedMessage {
                role: message.role,
                content: content.into(),
                blocks: std::sync::Arc::from(&blocks[..]),
            };
            if let Some(cache) = cache.as_deref_mut() {
                cache.rendered(message, (!marked_before).then(|| rendered.clone()));
            }
            messages.push(rendered);
        }
        if breakpoints > MAX_BREAKPOINTS {
            return Err(RenderError::Strategy {
                strategy: self.strategy.name.clone(),
                file: self.strategy.file.clone(),
                source: ptc_plugin_api::RenderError::input(&format!(
                    "the prompt has {breakpoints} cache breakpoints; a provider accepts at most {MAX_BREAKPOINTS}"
                )),
            });
        }
        Ok(messages)
    }
}

/// A first guess at the length of `message`'s text, so that it is mostly written into one
/// allocation instead of one that doubles as it grows. Cheap rather than exact (its fields are
/// looked at three levels deep, no further): the text of its fields, a quarter more for what
/// the templates write around them, and a line's worth for each section.
fn text_size_hint(message: &ptc_plugin_api::Message) -> usize {
    use ptc_plugin_api::Field;
    const LINE: usize = 64;
    let leaf = |field: &Field| match field.resolve() {
        Field::Text(text) => text.len(),
        _ => 4,
    };
    let item = |field: &Field| match field.resolve() {
        Field::Record(fields) => fields.iter().map(|f| leaf(&f.1)).sum(),
        other => leaf(other),
    };
    let mut size = 0;
    let mut sections = 0;
    for block in message.blocks.iter() {
        for section in block.sections.iter() {
            sections += 1;
            for field in section.fields.iter() {
                size += match field.1.resolve() {
                    Field::List(items) => items.iter().map(item).sum(),
                    other => item(other),
                };
            }
        }
    }
    size + size / 4 + LINE * sections
}

/// A prompt as programs read it (`ptc render --format json`, `ptc serve`): exactly `strategy`,
/// `turns`, `messages`, `stats`, in that order.
#[derive(Serialize)]
pub struct PromptView<'a> {
    pub strategy: &'a str,
    pub turns: usize,
    pub messages: Vec<MessageView<'a>>,
    pub stats: StatsView,
}

#[derive(Serialize)]
pub struct MessageView<'a> {
    pub role: &'static str,
    pub content: &'a str,
}

/// The strategy used when `[compression] enabled = false`, and below `compress_above_tokens`.
pub const UNCOMPRESSED_STRATEGY: &str = "full-history";

/// The statistics as programs and templates read them: `ptc render --format json`, `ptc serve`
/// and the host's templates all serialize [`Stats`] through this view, followed by `enabled`:
/// whether the prompt was compressed, that is rendered by a strategy other than
/// `full-history` (false for `full-history`, and for a prompt below `compress_above_tokens`).
#[derive(Clone, Copy, Serialize)]
pub struct StatsView {
    #[serde(flatten, with = "StatsFields")]
    pub stats: Stats,
    pub enabled: bool,
}

impl StatsView {
    /// The statistics of `prompt`.
    pub fn of(prompt: &Prompt) -> StatsView {
        StatsView {
            stats: prompt.stats,
            enabled: prompt.strategy != UNCOMPRESSED_STRATEGY,
        }
    }
}

/// The JSON names of [`Stats`]' fields, in this order.
#[derive(Serialize)]
#[serde(remote = "Stats")]
struct StatsFields {
    turns_compressed: u64,
    tool_calls_total: u64,
    tool_calls_shown: u64,
    tool_calls_dropped: u64,
    printlns_total: u64,
    printlns_shown: u64,
    printlns_dropped: u64,
    error_turns_collapsed: u64,
}

impl<'a> From<&'a Prompt> for PromptView<'a> {
    fn from(prompt: &'a Prompt) -> PromptView<'a> {
        PromptView {
            strategy: &prompt.strategy,
            turns: prompt.turns,
            messages: prompt
                .messages
                .iter()
                .map(|m| MessageView {
                    role: m.role.as_str(),
                    content: &m.content,
                })
                .collect(),
            stats: StatsView::of(prompt),
        }
    }
}

#[cfg(test)]
mod tests;
