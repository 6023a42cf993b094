//! Ready-to-send request bodies: a rendered prompt as an Anthropic Messages API request (text
//! blocks, `cache_control` on the blocks a [`Placement`] chooses; `auto` is Anthropic's automatic
//! caching, one top-level `cache_control`) or as an OpenAI Chat Completions request (one string
//! per message, cached without markers; with `--cache-placement strategy`, the strategy's
//! breakpoints as GPT-5.6 and later take them: a message with one is sent as text parts cut
//! after each marked block, the part that ends a marked block carrying
//! `prompt_cache_breakpoint`, and `prompt_cache_options` asks for `explicit` mode so that only
//! those are written; the parts put together are the message's text).
//!
//! What the bodies leave out and change because the APIs require it (blank blocks and
//! messages, a prefill's trailing whitespace) is defined once, in [`wire`], where the token
//! counts read it too. Anthropic has no `system` role among its messages: every system
//! message's blocks go to the top-level `system` array, in order (as Anthropic's own OpenAI
//! compatibility layer does).
//!
//! Consecutive messages of one role are kept as they are: both APIs accept them (Anthropic
//! merges them into one turn), and keeping them keeps the blocks the strategy laid out.
//!
//! [`Placement`] and [`Ttl`] are the ones `ptc ab`'s pricing profiles simulate, so that what
//! a request asks for is what the cost simulation priced.

use clap::ValueEnum;
use ptc_plugin_api::Role;
use serde::Serialize;

pub use crate::cache::{Placement, Ttl};
use crate::message::{wire, RenderedMessage};
use crate::render::Prompt;
use crate::render::RenderError;

/// The model of an Anthropic request when none is given: Claude Sonnet 4.5's alias.
pub const DEFAULT_ANTHROPIC_MODEL: &str = "claude-sonnet-4-5";
/// The model of an OpenAI request when none is given (the `openai` pricing profile's).
pub const DEFAULT_OPENAI_MODEL: &str = "gpt-5";
/// `max_tokens` of an Anthropic request when none is given (the API requires one).
pub const DEFAULT_MAX_TOKENS: u32 = 4096;

/// What a request body takes beyond the prompt.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RequestOptions {
    /// [default: [`DEFAULT_ANTHROPIC_MODEL`] or [`DEFAULT_OPENAI_MODEL`]]
    pub model: Option<String>,
    /// Anthropic's `max_tokens` [default: [`DEFAULT_MAX_TOKENS`]]; OpenAI's
    /// `max_completion_tokens`, left out when not given.
    pub max_tokens: Option<u32>,
    /// Where the breakpoints go. OpenAI: `auto` (the default there) sends no marker, `strategy`
    /// the strategy's (GPT-5.6 and later), `none` asks for explicit mode with no breakpoint.
    pub placement: Placement,
    /// Anthropic only: `5m` or `1h`.
    pub ttl: Ttl,
}

/// What `ptc render` prints, and what a `ptc serve` request asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum RenderFormat {
    /// For people: the messages under `=== role ===` headings, then the statistics
    Text,
    /// For programs: {"strategy", "turns", "messages": [{"role", "content"}], "stats"}
    Json,
    /// An Anthropic Messages API request body, ready to POST to /v1/messages
    Anthropic,
    /// An OpenAI Chat Completions request body, ready to POST to /v1/chat/completions
    #[value(name = "openai")]
    OpenAi,
}

impl RenderFormat {
    pub fn as_str(self) -> &'static str {
        match self {
            RenderFormat::Text => "text",
            RenderFormat::Json => "json",
            RenderFormat::Anthropic => "anthropic",
            RenderFormat::OpenAi => "openai",
        }
    }
}

/// The request options as given: `None` for one not given, so that one given for a format
/// that has no use for it is an error rather than silently ignored.
#[derive(Clone, Debug, Default)]
pub struct RequestArgs {
    pub model: Option<String>,
    pub max_tokens: Option<u32>,
    pub placement: Option<Placement>,
    pub ttl: Option<Ttl>,
}

impl RequestArgs {
    /// The options for `format`, or which one it takes no use of. `spell` gives an option's
    /// name as the caller's user writes it (`--cache-ttl`, `"cache_ttl"`).
    pub fn for_format(
        &self,
        format: RenderFormat,
        spell: impl Fn(&str) -> String,
    ) -> Result<RequestOptions, String> {
        let given = [
            ("model", self.model.is_some()),
            ("max_tokens", self.max_tokens.is_some()),
            ("cache_placement", self.placement.is_some()),
            ("cache_ttl", self.ttl.is_some()),
        ];
        let used: &[&str] = match format {
            RenderFormat::Text | RenderFormat::Json => &[],
            RenderFormat::OpenAi => &["model", "max_tokens", "cache_placement"],
            RenderFormat::Anthropic => &["model", "max_tokens", "cache_placement", "cache_ttl"],
        };
        if let Some((name, _)) = given
            .iter()
            .find(|(name, given)| *given && !used.contains(name))
        {
            let takes = if *name == "cache_ttl" {
                "anthropic"
            } else {
                "anthropic and openai"
            };
            return Err(format!(
                "{} applies to the {takes} format{}, not to {}",
                spell(name),
                if takes.contains(' ') { "s" } else { "" },
                format.as_str()
            ));
        }
        let ttl = self.ttl.unwrap_or_default();
        if !matches!(ttl, Ttl::FiveMinutes | Ttl::OneHour) {
            return Err(format!(
                "{} of an Anthropic request is 5m or 1h, not {}",
                spell("cache_ttl"),
                ttl.as_str()
            ));
        }
        let placement = match (format, self.placement) {
            (_, Some(placement)) if placement.in_hindsight() => {
                return Err(format!(
                    "{} `{placement}` is priced once a whole run is known; a request takes \
                     strategy, auto or none",
                    spell("cache_placement")
                ))
            }
            (_, Some(placement)) => placement,
            (RenderFormat::OpenAi, None) => Placement::Auto,
            (_, None) => Placement::default(),
        };
        Ok(RequestOptions {
            model: self.model.clone(),
            max_tokens: self.max_tokens,
            placement,
            ttl,
        })
    }
}

/// A Messages API request body (`POST /v1/messages`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AnthropicRequest<'a> {
    pub model: String,
    pub max_tokens: u32,
    /// Automatic caching (`auto`): the breakpoint goes on the last cacheable block.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_control: Option<CacheControl>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub system: Vec<TextBlock<'a>>,
    pub messages: Vec<AnthropicMessage<'a>>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AnthropicMessage<'a> {
    pub role: &'static str,
    pub content: Vec<TextBlock<'a>>,
}

/// `{"type": "text", "text": ..., "cache_control": ...}`
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TextBlock<'a> {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub text: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_control: Option<CacheControl>,
}

/// `{"type": "ephemeral"}`, with `"ttl": "1h"` for the one-hour cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct CacheControl {
    #[serde(rename = "type")]
    pub kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ttl: Option<&'static str>,
}

/// A Chat Completions request body (`POST /v1/chat/completions`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OpenAiRequest<'a> {
    pub model: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_completion_tokens: Option<u32>,
    pub messages: Vec<OpenAiMessage<'a>>,
    /// `{"mode": "explicit"}` when the request places its own breakpoints (GPT-5.6 and later).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt_cache_options: Option<CacheMode>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OpenAiMessage<'a> {
    pub role: &'static str,
    pub content: OpenAiContent<'a>,
}

/// A message's content: its text, or text parts when one of them ends a breakpoint.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum OpenAiContent<'a> {
    Text(&'a str),
    Parts(Vec<OpenAiPart<'a>>),
}

impl OpenAiContent<'_> {
    /// The text sent: the parts put together.
    pub fn text(&self) -> String {
        match self {
            OpenAiContent::Text(text) => (*text).to_owned(),
            OpenAiContent::Parts(parts) => parts.iter().map(|p| p.text).collect(),
        }
    }
}

/// `{"type": "text", "text": ..., "prompt_cache_breakpoint": {"mode": "explicit"}}`
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OpenAiPart<'a> {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub text: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt_cache_breakpoint: Option<CacheMode>,
}

/// `{"mode": "explicit"}`
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct CacheMode {
    pub mode: &'static str,
}

const EXPLICIT: CacheMode = CacheMode { mode: "explicit" };

/// A message as a request sends it: its role and the blocks [`wire::anthropic_blocks`] sends,
/// each with whether it carries a breakpoint.
struct Sent<'a> {
    role: Role,
    blocks: Vec<(&'a str, bool)>,
}

/// The messages of `prompt` as an Anthropic body sends them ([`wire::anthropic_blocks`]).
fn sent(prompt: &Prompt) -> Vec<Sent<'_>> {
    let mut sent: Vec<Sent<'_>> = Vec::with_capacity(prompt.messages.len());
    for block in wire::anthropic_blocks(&prompt.messages) {
        if block.first {
            sent.push(Sent {
                role: block.role,
                blocks: Vec::new(),
            });
        }
        let message = sent
            .last_mut()
            .expect("a message is opened by its first block");
        message.blocks.push((block.text, block.breakpoint));
    }
    sent
}

/// `prompt` as an Anthropic Messages API request body. A prompt without a user or assistant
/// message cannot be one (the API needs at least one message).
pub fn anthropic<'a>(
    prompt: &'a Prompt,
    options: &RequestOptions,
) -> Result<AnthropicRequest<'a>, RenderError> {
    let cache_control = CacheControl {
        kind: "ephemeral",
        ttl: (options.ttl == Ttl::OneHour).then_some("1h"),
    };
    let block = |(text, breakpoint): (&'a str, bool)| TextBlock {
        kind: "text",
        text,
        cache_control: breakpoint.then_some(cache_control),
    };
    let mut system = Vec::new();
    let mut messages = Vec::new();
    for message in sent(prompt) {
        let blocks = message.blocks.into_iter().map(block);
        match message.role {
            Role::System => system.extend(blocks),
            Role::User | Role::Assistant => messages.push(AnthropicMessage {
                role: message.role.as_str(),
                content: blocks.collect(),
            }),
        }
    }
    if messages.is_empty() {
        return Err(RenderError::NoConversation {
            strategy: prompt.strategy.clone(),
        });
    }
    match options.placement {
        Placement::Strategy => {}
        Placement::None | Placement::Auto | Placement::Planned | Placement::Bound => {
            let every = system
                .iter_mut()
                .chain(messages.iter_mut().flat_map(|m| &mut m.content));
            for block in every {
                block.cache_control = None;
            }
        }
    }
    Ok(AnthropicRequest {
        model: options
            .model
            .clone()
            .unwrap_or_else(|| DEFAULT_ANTHROPIC_MODEL.to_owned()),
        max_tokens: options.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS),
        // Automatic caching: one breakpoint, which Anthropic puts on the last block.
        cache_control: (options.placement == Placement::Auto).then_some(cache_control),
        system,
        messages,
    })
}

/// `prompt` as an OpenAI Chat Completions request body: each message's text as it is, the
/// blank messages left out; with the `strategy` placement, the strategy's breakpoints on the
/// messages that are not the assistant's (the latest four: the most a request writes).
pub fn openai<'a>(prompt: &'a Prompt, options: &RequestOptions) -> OpenAiRequest<'a> {
    let sent: Vec<&RenderedMessage> = wire::openai_messages(&prompt.messages).collect();
    // (message, block) of each breakpoint written.
    let mut marks: Vec<(usize, usize)> = Vec::new();
    if options.placement == Placement::Strategy {
        for (m, message) in sent.iter().enumerate() {
            if message.role == Role::Assistant {
                continue;
            }
            let marked = message
                .blocks
                .iter()
                .enumerate()
                .filter(|(_, b)| b.cache_breakpoint);
            marks.extend(marked.map(|(b, _)| (m, b)));
        }
        let over = marks.len().saturating_sub(crate::cache::MAX_BREAKPOINTS);
        marks.drain(..over);
    }
    let messages = sent
        .iter()
        .enumerate()
        .map(|(m, message)| {
            let ends: Vec<usize> = marks
                .iter()
                .filter(|(at, _)| *at == m)
                .map(|&(_, b)| b)
                .collect();
            OpenAiMessage {
                role: message.role.as_str(),
                content: if ends.is_empty() {
                    OpenAiContent::Text(&message.content)
                } else {
                    OpenAiContent::Parts(parts(message, &ends))
                },
            }
        })
        .collect();
    OpenAiRequest {
        model: options
            .model
            .clone()
            .unwrap_or_else(|| DEFAULT_OPENAI_MODEL.to_owned()),
        max_completion_tokens: options.max_tokens,
        messages,
        prompt_cache_options: (options.placement != Placement::Auto).then_some(EXPLICIT),
    }
}

/// `message`'s text cut after each block of `marked` (with the blank line that follows it, as
/// ptc counts a block's tokens), each cut carrying a breakpoint; the rest a last part.
fn parts<'a>(message: &'a RenderedMessage, marked: &[usize]) -> Vec<OpenAiPart<'a>> {
    let content = &*message.content;
    let mut parts = Vec::with_capacity(marked.len() + 1);
    let mut from = 0;
    for &b in marked {
        let to = message
            .blocks
            .get(b + 1)
            .map_or(content.len(), |next| next.start);
        parts.push(OpenAiPart {
            kind: "text",
            text: &content[from..to],
            prompt_cache_breakpoint: Some(EXPLICIT),
        });
        from = to;
    }
    if from < content.len() {
        parts.push(OpenAiPart {
            kind: "text",
            text: &content[from..],
            prompt_cache_breakpoint: None,
        });
    }
    parts
}

#[cfg(test)]
mod tests {
    use ptc_plugin_api::Stats;
    use serde_json::{json, Value as Json};

    use super::*;
    use crate::message::message_of_blocks as message;
    use crate::render::RenderedMessage;

    /// OpenAI's default: no breakpoint marked (the provider's automatic one).
    fn unmarked() -> RequestOptions {
        RequestOptions {
            placement: Placement::Auto,
            ..RequestOptions::default()
        }
    }

    fn prompt(messages: Vec<RenderedMessage>) -> Prompt {
        Prompt {
            strategy: "test".into(),
            turns: 1,
            messages,
            stats: Stats::default(),
            prefix_tokens: 0,
        }
    }

    /// A prompt of a system message of two blocks, then user / assistant / user, the strategy
    /// marking the first system block and the first user message.
    fn conversation() -> Prompt {
        prompt(vec![
            message(Role::System, &[("rules", true), ("tools", false)]),
            message(Role::User, &[("mission", true), ("data", false)]),
            message(Role::Assistant, &[("(program)", false)]),
            message(Role::User, &[("result", false), ("turns left", false)]),
        ])
    }

    fn anthropic_json(prompt: &Prompt, placement: Placement, ttl: Ttl) -> Json {
        let options = RequestOptions {
            placement,
            ttl,
            ..RequestOptions::default()
        };
        serde_json::to_value(anthropic(prompt, &options).unwrap()).unwrap()
    }

    /// (message index, or -1 for `system`; block index) of every block with a breakpoint.
    fn marked(body: &Json) -> Vec<(i64, usize)> {
        let mut found = Vec::new();
        let system = body.get("system").and_then(Json::as_array);
        for (j, block) in system.into_iter().flatten().enumerate() {
            if block.get("cache_control").is_some() {
                found.push((-1, j));
            }
        }
        for (i, message) in body["messages"].as_array().unwrap().iter().enumerate() {
            for (j, block) in message["content"].as_array().unwrap().iter().enumerate() {
                if block.get("cache_control").is_some() {
                    found.push((i as i64, j));
                }
            }
        }
        found
    }

    #[test]
    fn the_strategy_placement_keeps_the_strategys_marks() {
        let body = anthropic_json(&conversation(), Placement::Strategy, Ttl::FiveMinutes);
        assert_eq!(
            body,
            json!({
                "model": "claude-sonnet-4-5",
                "max_tokens": 4096,
                "system": [
                    {"type": "text", "text": "rules", "cache_control": {"type": "ephemeral"}},
                    {"type": "text", "text": "tools"},
                ],
                "messages": [
                    {"role": "user", "content": [
                        {"type": "text", "text": "mission", "cache_control": {"type": "ephemeral"}},
                        {"type": "text", "text": "data"},
                    ]},
                    {"role": "assistant", "content": [{"type": "text", "text": "(program)"}]},
                    {"role": "user", "content": [
                        {"type": "text", "text": "result"},
                        {"type": "text", "text": "turns left"},
                    ]},
                ],
            })
        );
    }

    #[test]
    fn auto_is_one_top_level_cache_control_and_no_block_marks() {
        let body = anthropic_json(&conversation(), Placement::Auto, Ttl::FiveMinutes);
        assert_eq!(marked(&body), []);
        assert_eq!(body["cache_control"], json!({"type": "ephemeral"}));
        let body = anthropic_json(&conversation(), Placement::Auto, Ttl::OneHour);
        assert_eq!(
            body["cache_control"],
            json!({"type": "ephemeral", "ttl": "1h"})
        );
        // The other placements have none at the top level.
        for placement in [Placement::Strategy, Placement::None] {
            let body = anthropic_json(&conversation(), placement, Ttl::FiveMinutes);
            assert!(body.get("cache_control").is_none(), "{body}");
        }
    }

    #[test]
    fn none_marks_nothing() {
        let body = anthropic_json(&conversation(), Placement::None, Ttl::OneHour);
        assert_eq!(marked(&body), []);
        assert!(!body.to_string().contains("cache_control"));
    }

    #[test]
    fn the_ttl_is_written_for_one_hour_only() {
        let body = anthropic_json(&conversation(), Placement::Strategy, Ttl::OneHour);
        assert_eq!(
            body["system"][0]["cache_control"],
            json!({"type": "ephemeral", "ttl": "1h"})
        );
        assert_eq!(
            body["messages"][0]["content"][0]["cache_control"],
            json!({"type": "ephemeral", "ttl": "1h"})
        );
        let body = anthropic_json(&conversation(), Placement::Auto, Ttl::FiveMinutes);
        assert_eq!(body["cache_control"], json!({"type": "ephemeral"}));
        assert!(!body.to_string().contains("ttl"));
    }

    #[test]
    fn blank_blocks_and_messages_are_left_out_and_their_marks_move_back() {
        let prompt = prompt(vec![
            message(Role::System, &[("rules", false)]),
            message(Role::User, &[("  \n", true)]),
            message(
                Role::User,
                &[("mission", false), ("\n", true), ("data", false)],
            ),
            message(Role::User, &[]),
            message(Role::Assistant, &[("(program)  \n", false)]),
        ]);
        let body = anthropic_json(&prompt, Placement::Strategy, Ttl::FiveMinutes);
        let roles: Vec<&str> = body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["role"].as_str().unwrap())
            .collect();
        assert_eq!(roles, ["user", "assistant"]);
        assert_eq!(marked(&body), [(-1, 0), (0, 0)]);
        assert_eq!(body["messages"][0]["content"][1]["text"], "data");
        // A final assistant message loses its trailing whitespace.
        assert_eq!(body["messages"][1]["content"][0]["text"], "(program)");
        let openai = serde_json::to_value(openai(&prompt, &unmarked())).unwrap();
        assert_eq!(
            openai,
            json!({"model": "gpt-5", "messages": [
                {"role": "system", "content": "rules"},
                {"role": "user", "content": "mission\n\n\n\n\ndata"},
                {"role": "assistant", "content": "(program)  \n"},
            ]})
        );
    }

    #[test]
    fn a_prompt_of_system_messages_only_is_no_anthropic_request() {
        let prompt = prompt(vec![message(Role::System, &[("rules", true)])]);
        let err = anthropic(&prompt, &RequestOptions::default()).unwrap_err();
        assert!(
            err.to_string().contains("no user or assistant message"),
            "{err}"
        );
    }

    #[test]
    fn the_model_and_max_tokens_are_the_options_or_the_defaults() {
        let options = RequestOptions {
            model: Some("claude-opus-4-1".into()),
            max_tokens: Some(100),
            ..RequestOptions::default()
        };
        let prompt = conversation();
        let body = anthropic(&prompt, &options).unwrap();
        assert_eq!(
            (body.model.as_str(), body.max_tokens),
            ("claude-opus-4-1", 100)
        );
        let body = openai(&prompt, &options);
        assert_eq!(
            (body.model.as_str(), body.max_completion_tokens),
            ("claude-opus-4-1", Some(100))
        );
        let body = serde_json::to_value(openai(&conversation(), &unmarked())).unwrap();
        assert_eq!(body["model"], "gpt-5");
        assert!(body.get("max_completion_tokens").is_none());
    }

    #[test]
    fn openai_sends_each_message_as_its_text() {
        let prompt = conversation();
        let body = openai(&prompt, &unmarked());
        let sent: Vec<(&str, String)> = body
            .messages
            .iter()
            .map(|m| (m.role, m.content.text()))
            .collect();
        let rendered: Vec<(&str, String)> = prompt
            .messages
            .iter()
            .map(|m| (m.role.as_str(), m.content.to_string()))
            .collect();
        assert_eq!(sent, rendered);
    }

    #[test]
    fn openai_with_the_strategys_breakpoints_cuts_parts_after_the_marked_blocks() {
        let options = RequestOptions {
            placement: Placement::Strategy,
            ..RequestOptions::default()
        };
        // A mark on the assistant's message is not sent: the API takes none there.
        let mut convo = conversation();
        convo.messages[2] = message(Role::Assistant, &[("(program)", true)]);
        let body = serde_json::to_value(openai(&convo, &options)).unwrap();
        let mark = json!({"mode": "explicit"});
        assert_eq!(
            body,
            json!({"model": "gpt-5", "prompt_cache_options": mark, "messages": [
                {"role": "system", "content": [
                    {"type": "text", "text": "rules\n\n", "prompt_cache_breakpoint": mark},
                    {"type": "text", "text": "tools"},
                ]},
                {"role": "user", "content": [
                    {"type": "text", "text": "mission\n\n", "prompt_cache_breakpoint": mark},
                    {"type": "text", "text": "data"},
                ]},
                {"role": "assistant", "content": "(program)"},
                {"role": "user", "content": "result\n\nturns left"},
            ]})
        );
        // The parts put together are the message's text.
        let sent = openai(&convo, &options);
        for (sent, rendered) in sent.messages.iter().zip(&convo.messages) {
            assert_eq!(sent.content.text(), rendered.content.as_str());
        }
        // Five marks: the latest four are sent; a mark on a message's last block ends it.
        let five = prompt(vec![
            message(Role::System, &[("a", true)]),
            message(Role::User, &[("b", true), ("c", true)]),
            message(Role::User, &[("d", true)]),
            message(Role::User, &[("e", true)]),
        ]);
        let body = serde_json::to_value(openai(&five, &options)).unwrap();
        assert_eq!(body["messages"][0]["content"], "a");
        assert_eq!(
            body["messages"][1]["content"],
            json!([
                {"type": "text", "text": "b\n\n", "prompt_cache_breakpoint": mark},
                {"type": "text", "text": "c", "prompt_cache_breakpoint": mark},
            ])
        );
        assert_eq!(
            body["messages"][3]["content"],
            json!([{"type": "text", "text": "e", "prompt_cache_breakpoint": mark}])
        );
        // `none`: explicit mode and no breakpoint, nothing cached; `auto`: neither.
        let none = RequestOptions {
            placement: Placement::None,
            ..RequestOptions::default()
        };
        let body = serde_json::to_value(openai(&conversation(), &none)).unwrap();
        assert_eq!(body["prompt_cache_options"], mark);
        assert!(!body.to_string().contains("prompt_cache_breakpoint"));
        let body = serde_json::to_value(openai(&conversation(), &unmarked())).unwrap();
        assert!(!body.to_string().contains("prompt_cache"), "{body}");
    }

    #[test]
    fn request_options_are_checked_per_format() {
        let spell = |name: &str| format!("--{}", name.replace('_', "-"));
        let args = |placement, ttl| RequestArgs {
            placement,
            ttl,
            ..RequestArgs::default()
        };
        // OpenAI takes a placement (default `auto`) and no TTL.
        let openai = args(None, None)
            .for_format(RenderFormat::OpenAi, spell)
            .unwrap();
        assert_eq!(openai.placement, Placement::Auto);
        let err = args(None, Some(Ttl::OneHour))
            .for_format(RenderFormat::OpenAi, spell)
            .unwrap_err();
        assert_eq!(
            err,
            "--cache-ttl applies to the anthropic format, not to openai"
        );
        // A placement priced in hindsight is no request's.
        let err = args(Some(Placement::Planned), None)
            .for_format(RenderFormat::Anthropic, spell)
            .unwrap_err();
        assert_eq!(
            err,
            "--cache-placement `planned` is priced once a whole run is known; a request takes \
             strategy, auto or none"
        );
        // Anthropic's TTL is 5m or 1h.
        let err = args(None, Some(Ttl::ThirtyMinutes))
            .for_format(RenderFormat::Anthropic, spell)
            .unwrap_err();
        assert_eq!(
            err,
            "--cache-ttl of an Anthropic request is 5m or 1h, not 30m"
        );
        let anthropic = args(None, None)
            .for_format(RenderFormat::Anthropic, spell)
            .unwrap();
        assert_eq!(
            (anthropic.placement, anthropic.ttl),
            (Placement::Strategy, Ttl::FiveMinutes)
        );
    }

    #[test]
    fn names_parse() {
        assert_eq!("auto".parse(), Ok(Placement::Auto));
        assert_eq!("none".parse(), Ok(Placement::None));
        assert_eq!("strategy".parse(), Ok(Placement::Strategy));
        assert!("Auto"
            .parse::<Placement>()
            .unwrap_err()
            .contains("strategy, auto, none, planned or bound"));
        assert_eq!("1h".parse(), Ok(Ttl::OneHour));
        assert_eq!("5m".parse(), Ok(Ttl::FiveMinutes));
        assert!("60m"
            .parse::<Ttl>()
            .unwrap_err()
            .contains("5m, 30m, 1h, 24h or unstated"));
    }
}
