//! The token-threshold trigger (`[compression] compress_above_tokens`): the full history is sent
//! while that prompt stays at or under the threshold, the configured strategy once it would
//! exceed it.

use crate::recording::Recording;
use crate::render::{Prompt, Renderer};
use crate::tokens::Counter;
use crate::Error;

/// Renders prompts through a strategy, or through the full history while it is small enough.
pub struct Prompter<'a> {
    pub strategy: Renderer<'a>,
    /// The full-history renderer and the threshold, when the trigger is on.
    pub threshold: Option<(Renderer<'a>, usize)>,
}

impl<'a> Prompter<'a> {
    /// The prompt after the first `turns` turns, and the strategy call's duration in
    /// nanoseconds.
    pub fn render(
        &self,
        recording: &Recording,
        turns: usize,
        counter: &mut Counter,
    ) -> Result<(Prompt, u64), Error> {
        if let Some((full, limit)) = &self.threshold {
            let (prompt, nanos) = timed(full, recording, turns)?;
            if counter.prompt(&prompt.messages) <= *limit {
                return Ok((prompt, nanos));
            }
        }
        timed(&self.strategy, recording, turns)
    }
}

fn timed(
    renderer: &Renderer<'_>,
    recording: &Recording,
    turns: usize,
) -> Result<(Prompt, u64), Error> {
    let start = std::time::Instant::now();
    let output = renderer.output(recording, turns)?;
    let nanos = start.elapsed().as_nanos() as u64;
    let messages = renderer.messages(&output)?;
    Ok((
        Prompt {
            strategy: renderer.strategy().name.clone(),
            turns,
            messages,
            stats: output.stats,
        },
        nanos,
    ))
}
