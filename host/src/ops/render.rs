//! Rendering the prompt a recorded run sends before a turn (`ptc render`, and each request of
//! `ptc serve`): the prompt itself, or the body of a request to a provider's API; and each
//! section of it explained (`ptc render --explain`).

use std::path::PathBuf;

use serde::Serialize;

use crate::host::Host;
use crate::recording::Recording;
use crate::render::explain::Explained;
use crate::render::request::{
    self, AnthropicRequest, OpenAiRequest, RenderFormat, RequestArgs, RequestOptions,
};
use crate::render::trigger::{Prompter, AS_SENT};
use crate::render::{Prompt, RenderError};
use crate::tokens::Counter;
use crate::Error;

/// The prompt to render: of which recording, before which turn, through which strategy, and
/// in which form.
#[derive(Clone, Debug)]
pub struct RenderOptions {
    /// The recording file.
    pub recording: PathBuf,
    /// The number of recorded turns to render from; none: all of them (the prompt after the
    /// last recorded turn).
    pub turns: Option<usize>,
    /// The strategy; none: `[compression] strategy` of the configuration.
    pub strategy: Option<String>,
    pub format: RenderFormat,
    /// The request's options as asked, each checked against `format` (`--model` means nothing
    /// to a prompt printed as text).
    pub request: RequestArgs,
}

/// A rendered prompt, with what its request body is made of.
pub struct Rendered {
    pub prompt: Prompt,
    pub format: RenderFormat,
    pub request: RequestOptions,
}

/// The body of a request to a provider's API, as it is sent.
#[derive(Serialize)]
#[serde(untagged)]
pub enum RequestBody<'a> {
    Anthropic(AnthropicRequest<'a>),
    OpenAi(OpenAiRequest<'a>),
}

impl Rendered {
    /// The request body of the format asked for; none for a prompt printed as text or JSON.
    pub fn request_body(&self) -> Result<Option<RequestBody<'_>>, RenderError> {
        Ok(match self.format {
            RenderFormat::Anthropic => Some(RequestBody::Anthropic(request::anthropic(
                &self.prompt,
                &self.request,
            )?)),
            RenderFormat::OpenAi => Some(RequestBody::OpenAi(request::openai(
                &self.prompt,
                &self.request,
            ))),
            RenderFormat::Json | RenderFormat::Text => None,
        })
    }
}

/// A run's prompts explained section by section.
pub struct Explanation {
    /// The recording's name.
    pub recording: String,
    /// The recorded turns the prompt is rendered from: it is sent before turn `turns + 1`.
    pub turns: usize,
    /// The strategy that rendered it (the full history while a trigger keeps it).
    pub strategy: String,
    pub sections: Vec<Explained>,
}

/// The one recording `path` names ([`Host::recording`]); when no such file exists and it names
/// a bundled run (`failure-recovery.json`, from any directory), that run, said on stderr.
pub fn recording_named(host: &Host, path: &std::path::Path) -> Result<Recording, Error> {
    let recording = host.recording(path)?;
    if crate::recording::bundled::named(path).is_some() {
        crate::output::note(format_args!(
            "note: no file {}: the bundled {}",
            path.display(),
            recording.path.display()
        ));
    }
    Ok(recording)
}

/// The prompt `options` asks for, read from its recording.
pub fn render(host: &Host, options: &RenderOptions) -> Result<Rendered, Error> {
    let request = options
        .request
        .for_format(options.format, |name| {
            format!("--{}", name.replace('_', "-"))
        })
        .map_err(Error::Usage)?;
    let prompter = host.prompter_or_as_sent(options.strategy.as_deref())?;
    let recording = recording_named(host, &options.recording)?;
    let mut counter = Counter::new(host.tokenizer(None)?);
    Ok(render_recording(
        &prompter,
        &recording,
        options.turns,
        options.format,
        request,
        &mut counter,
    )?)
}

/// The prompt of a recording already read, through a prompter already made (`ptc serve`
/// keeps them from one request to the next).
pub fn render_recording(
    prompter: &Prompter,
    recording: &Recording,
    turns: Option<usize>,
    format: RenderFormat,
    request: RequestOptions,
    counter: &mut Counter,
) -> Result<Rendered, RenderError> {
    let turns = turns.unwrap_or(recording.turns.len());
    let (prompt, _) = prompter.render(recording, turns, counter)?;
    Ok(Rendered {
        prompt,
        format,
        request,
    })
}

/// Each section of the prompt `options` asks for (its format aside): the strategy that emitted
/// it, its template and where that was loaded from, its fields and its text.
pub fn explain(host: &Host, options: &RenderOptions) -> Result<Explanation, Error> {
    if options.strategy.as_deref() == Some(AS_SENT) {
        return Err(Error::Usage(format!(
            "{AS_SENT} sends the recorded requests: they have no sections or templates to explain"
        )));
    }
    let prompter = host.prompter(options.strategy.as_deref())?;
    let recording = recording_named(host, &options.recording)?;
    let turns = options.turns.unwrap_or(recording.turns.len());
    let mut counter = Counter::new(host.tokenizer(None)?);
    let renderer = prompter.chosen(&recording, turns, &mut counter)?;
    let output = renderer.output(&recording, turns)?;
    Ok(Explanation {
        recording: recording.path.display().to_string(),
        turns,
        strategy: renderer.strategy().name.clone(),
        sections: renderer.explain(&output)?,
    })
}
