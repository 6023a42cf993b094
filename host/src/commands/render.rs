//! `ptc render`: the prompt a recorded run sends before a turn, as text, as JSON, or as the
//! body of a request to a provider's API.

use std::path::Path;

use crate::commands::ab::tokenizer;
use crate::commands::args::{ConfigArgs, RecordingArgs};
use crate::commands::Context;
use crate::host::Host;
use crate::output::write_out;
use crate::output::{pretty, prompt_json, prompt_text};
use crate::recording::corpus;
use crate::render::request::{self, Placement, RenderFormat, RequestArgs, Ttl};
use crate::tokens::Counter;
use crate::Error;
use std::io::Write;
use std::path::PathBuf;

/// Render the prompt a recorded run sends before a turn
///
/// The prompt for turn K+1 is rendered from the first K recorded turns (default: all of
/// them, i.e. the prompt after the last recorded turn).
///
/// `--format anthropic` and `--format openai` print a request body to send as it is
/// (`curl https://api.anthropic.com/v1/messages ... -d @body.json`). Anthropic: the system
/// messages' blocks in `system`, every other message's blocks as text blocks, and
/// `cache_control` on the blocks --cache-placement chooses (at most 4). OpenAI: one string
/// per message; OpenAI caches prompt prefixes without markers. Both leave out blank blocks
/// and messages and keep consecutive messages of one role as they are.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A recording: a JSON file (see the README for the format)
    recording: PathBuf,
    /// Number of recorded turns to render from (0 = the first prompt)
    #[arg(long, value_name = "K")]
    turns: Option<usize>,
    /// The strategy [default: [compression] strategy of the configuration]
    #[arg(long, value_name = "NAME")]
    strategy: Option<String>,
    /// What to print
    #[arg(long, value_enum, default_value_t = RenderFormat::Text)]
    format: RenderFormat,
    /// The request's model (anthropic, openai)
    /// [default: claude-sonnet-4-5 for anthropic, gpt-5 for openai]
    #[arg(long, value_name = "NAME", help_heading = "Request options")]
    model: Option<String>,
    /// The reply's token limit: `max_tokens` (anthropic, which requires it) or
    /// `max_completion_tokens` (openai, left out when not given) [default: 4096 for anthropic]
    #[arg(long, value_name = "N", help_heading = "Request options",
          value_parser = clap::value_parser!(u32).range(1..))]
    max_tokens: Option<u32>,
    /// Which blocks carry a `cache_control` breakpoint (anthropic) [default: strategy]
    #[arg(
        long,
        value_enum,
        value_name = "POLICY",
        help_heading = "Request options"
    )]
    cache_placement: Option<Placement>,
    /// How long the cache keeps what a breakpoint writes (anthropic): 1h adds
    /// `"ttl": "1h"` to every `cache_control` [default: 5m]
    #[arg(long, value_enum, value_name = "TTL", help_heading = "Request options")]
    cache_ttl: Option<Ttl>,
    #[command(flatten)]
    config: ConfigArgs,
    #[command(flatten)]
    limits: RecordingArgs,
}

/// `ptc render`.
pub fn exec(args: Args, context: &Context, out: &mut dyn Write) -> Result<(), Error> {
    let host = context.with_strategies(&args.config, Some(&args.limits))?;
    let request = RequestArgs {
        model: args.model,
        max_tokens: args.max_tokens,
        placement: args.cache_placement,
        ttl: args.cache_ttl,
    };
    let text = render(
        &host,
        &args.recording,
        args.turns,
        args.strategy.as_deref(),
        args.format,
        &request,
    )?;
    write_out(out, &text)
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
