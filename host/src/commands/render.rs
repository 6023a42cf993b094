//! `ptc render`: the prompt a recorded run sends before a turn, as text, as JSON, or as the
//! body of a request to a provider's API.

use std::path::Path;

use clap::ValueEnum;

use crate::ab::tokens::Counter;
use crate::commands::ab::tokenizer;
use crate::host::Host;
use crate::output::{pretty, prompt_json, prompt_text};
use crate::recording::corpus;
use crate::render::request::{self, Placement, RequestOptions, Ttl};
use crate::Error;

/// What `ptc render` prints.
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
            RenderFormat::OpenAi => &["model", "max_tokens"],
            RenderFormat::Anthropic => &["model", "max_tokens", "cache_placement", "cache_ttl"],
        };
        if let Some((name, _)) = given
            .iter()
            .find(|(name, given)| *given && !used.contains(name))
        {
            let takes = if name.starts_with("cache") {
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
        Ok(RequestOptions {
            model: self.model.clone(),
            max_tokens: self.max_tokens,
            placement: self.placement.unwrap_or_default(),
            ttl: self.ttl.unwrap_or_default(),
        })
    }
}

/// Renders the prompt for turn `turns + 1` (default: after the last recorded turn) through
/// `strategy` (default: the configured one).
pub fn render(
    host: &Host,
    path: &Path,
    turns: Option<usize>,
    strategy: Option<&str>,
    format: RenderFormat,
    request_args: &RequestArgs,
) -> Result<String, Error> {
    let options = request_args
        .for_format(format, |name| format!("--{}", name.replace('_', "-")))
        .map_err(Error::Usage)?;
    let prompter = host.prompter(strategy)?;
    let recording = corpus::single(path)?.load(&host.recording_defaults()?)?;
    let turns = turns.unwrap_or(recording.turns.len());
    let tokenizer = tokenizer(host, None)?;
    let (prompt, _) = prompter.render(&recording, turns, &mut Counter::new(tokenizer))?;
    match format {
        RenderFormat::Json => Ok(prompt_json(&prompt)),
        RenderFormat::Text => prompt_text(host, &prompt),
        RenderFormat::Anthropic => Ok(pretty(&request::anthropic(&prompt, &options)?)),
        RenderFormat::OpenAi => Ok(pretty(&request::openai(&prompt, &options))),
    }
}
