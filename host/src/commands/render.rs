//! `ptc render`: the prompt a recorded run sends before a turn, as text, as JSON, or as the
//! body of a request to a provider's API.

use std::io::Write;
use std::path::PathBuf;

use crate::commands::args::{ConfigArgs, RecordingArgs};
use crate::commands::Context;
use crate::host::Host;
use crate::ops::{self, Explanation, RenderOptions, Rendered};
use crate::output::{escape_controls, pretty, prompt_json, prompt_text, terminal, write_out};
use crate::render::request::{Placement, RenderFormat, RequestArgs, Ttl};
use crate::render::templates::Origin;
use crate::Error;

/// Render the prompt a recorded run sends before a turn
///
/// The prompt for turn K+1 is rendered from the first K recorded turns (default: all of
/// them, i.e. the prompt after the last recorded turn).
///
/// `--format anthropic` and `--format openai` print a request body to send as it is
/// (`curl https://api.anthropic.com/v1/messages ... -d @body.json`). Anthropic: the system
/// messages' blocks in `system`, every other message's blocks as text blocks, and
/// `cache_control` on the blocks --cache-placement chooses (at most 4), or with `auto` one
/// top-level `cache_control` (automatic caching). OpenAI: one string per message, cached
/// without markers; with `--cache-placement strategy` (GPT-5.6 and later) the strategy's
/// breakpoints as `prompt_cache_breakpoint` on text parts and `prompt_cache_options` in
/// explicit mode. Both leave out blank blocks and messages and keep consecutive messages of
/// one role as they are.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A recording: a JSON file (see the README for the format)
    recording: PathBuf,
    /// Number of recorded turns to render from (0 = the first prompt)
    #[arg(long, value_name = "K")]
    turns: Option<usize>,
    /// The strategy, or `as-sent` for the request the agent sent (a recording that holds its
    /// requests) [default: [compression] strategy of the configuration]
    #[arg(long, value_name = "NAME")]
    strategy: Option<String>,
    /// What to print
    #[arg(long, value_enum, default_value_t = RenderFormat::Text)]
    format: RenderFormat,
    /// Instead of the prompt, each of its sections: the strategy that emitted it, its template
    /// and where that was loaded from (your file, or built in), the fields it received and the
    /// text it gave
    #[arg(long, conflicts_with = "format")]
    explain: bool,
    /// For debugging only: show private values (names and map keys starting with `_`, private
    /// `data/` entries) instead of hiding them. The prompts printed are then not what the agent
    /// sees: ptc hides private values from every prompt it renders
    #[arg(long)]
    show_private: bool,
    /// The request's model (anthropic, openai)
    /// [default: claude-sonnet-4-5 for anthropic, gpt-5 for openai]
    #[arg(long, value_name = "NAME", help_heading = "Request options")]
    model: Option<String>,
    /// The reply's token limit: `max_tokens` (anthropic, which requires it) or
    /// `max_completion_tokens` (openai, left out when not given) [default: 4096 for anthropic]
    #[arg(long, value_name = "N", help_heading = "Request options",
          value_parser = clap::value_parser!(u32).range(1..))]
    max_tokens: Option<u32>,
    /// Where the breakpoints go: anthropic's `cache_control` [default: strategy]; openai's
    /// `prompt_cache_breakpoint`, GPT-5.6 and later [default: auto, no marker]
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
    let host = context
        .with_strategies(&args.config, Some(&args.limits))?
        .showing_private(args.show_private);
    let options = RenderOptions {
        recording: args.recording,
        turns: args.turns,
        strategy: args.strategy,
        format: args.format,
        request: RequestArgs {
            model: args.model,
            max_tokens: args.max_tokens,
            placement: args.cache_placement,
            ttl: args.cache_ttl,
        },
    };
    let text = if args.explain {
        explained(&ops::explain(&host, &options)?)
    } else {
        shown(&host, &ops::render(&host, &options)?)?
    };
    write_out(out, &text)
}

/// The prompt as `ptc render` prints it in its format. On a terminal, recorded text cannot
/// move the cursor or retitle the window.
fn shown(host: &Host, rendered: &Rendered) -> Result<String, Error> {
    if let Some(body) = rendered.request_body()? {
        return Ok(pretty(&body));
    }
    Ok(match rendered.format {
        RenderFormat::Json => prompt_json(&rendered.prompt),
        RenderFormat::Text if terminal() => {
            escape_controls(&prompt_text(host, &rendered.prompt)?).into_owned()
        }
        _ => prompt_text(host, &rendered.prompt)?,
    })
}

/// `ptc render --explain`: each section of the prompt with its strategy, template, origin,
/// fields and text. On a terminal, the control characters of recorded text are escaped.
fn explained(explanation: &Explanation) -> String {
    let shown = |text: &str| -> String {
        let text = if terminal() {
            escape_controls(text).into_owned()
        } else {
            text.to_owned()
        };
        text.lines()
            .map(|line| match line {
                "" => "\n".to_owned(),
                line => format!("    {line}\n"),
            })
            .collect()
    };
    let sections = &explanation.sections;
    let mut text = format!(
        "The prompt before turn {} of {}, by strategy `{}`: {} section(s)\n",
        explanation.turns + 1,
        explanation.recording,
        explanation.strategy,
        sections.len()
    );
    for (i, section) in sections.iter().enumerate() {
        let origin = match &section.origin {
            Origin::BuiltIn => "built in".to_owned(),
            Origin::File(path) => format!("your file {}", path.display()),
            Origin::Missing => "not a template of the strategy".to_owned(),
        };
        text.push_str(&format!(
            "\n=== section {} · message {} ({}), block {}{} ===\n",
            i + 1,
            section.message,
            section.role.as_str(),
            section.block,
            if section.cache_breakpoint {
                ", cache breakpoint after it"
            } else {
                ""
            }
        ));
        text.push_str(&format!(
            "strategy: {}\ntemplate: {} ({origin})\nfields:\n{}text:\n{}",
            section.strategy,
            section.template,
            shown(&section.fields),
            if section.text.is_empty() {
                "    (empty: nothing in the prompt)\n".to_owned()
            } else {
                shown(&section.text)
            }
        ));
    }
    text
}
