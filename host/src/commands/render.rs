//! `ptc render`: the prompt a recorded run sends before a turn, as text or JSON.

use std::path::Path;

use crate::ab::tokens::Counter;
use crate::commands::ab::tokenizer;
use crate::host::Host;
use crate::output::{prompt_json, prompt_text, Format};
use crate::recording::corpus;
use crate::Error;

/// Renders the prompt for turn `turns + 1` (default: after the last recorded turn) through
/// `strategy` (default: the configured one).
pub fn render(
    host: &Host,
    path: &Path,
    turns: Option<usize>,
    strategy: Option<&str>,
    format: Format,
) -> Result<String, Error> {
    let prompter = host.prompter(strategy)?;
    let recording = corpus::single(path)?.load(&host.recording_defaults()?)?;
    let turns = turns.unwrap_or(recording.turns.len());
    let tokenizer = tokenizer(host, None)?;
    let (prompt, _) = prompter.render(&recording, turns, &mut Counter::new(tokenizer))?;
    match format {
        Format::Json => Ok(prompt_json(&prompt)),
        Format::Text => prompt_text(host, &prompt),
    }
}
