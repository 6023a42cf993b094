//! The token-threshold trigger (`[compression] compress_above_tokens`): the full history is sent
//! while that prompt stays at or under the threshold, the configured strategy once it would
//! exceed it.

use crate::recording::Recording;
use crate::render::RenderError;
use crate::render::{Prompt, Renderer, SectionCache};
use crate::tokens::Counter;

/// Renders prompts through a strategy, or through the full history while it is small enough.
pub struct Prompter<'a> {
    pub strategy: Renderer<'a>,
    /// The full-history renderer and the threshold, when the trigger is on.
    pub threshold: Option<(Renderer<'a>, usize)>,
}

/// The section caches of one run: one per renderer of a [`Prompter`].
#[derive(Default)]
pub struct RunCache {
    strategy: SectionCache,
    full_history: SectionCache,
}

impl<'a> Prompter<'a> {
    /// The prompt after the first `turns` turns, and the strategy call's duration in
    /// nanoseconds.
    pub fn render(
        &self,
        recording: &Recording,
        turns: usize,
        counter: &mut Counter,
    ) -> Result<(Prompt, u64), RenderError> {
        self.render_cached(recording, turns, counter, &mut RunCache::default())
    }

    /// [`Prompter::render`] for one of many prompts of a run, reusing the sections rendered
    /// for its earlier prompts.
    pub fn render_cached(
        &self,
        recording: &Recording,
        turns: usize,
        counter: &mut Counter,
        cache: &mut RunCache,
    ) -> Result<(Prompt, u64), RenderError> {
        if let Some((full, limit)) = &self.threshold {
            let (prompt, nanos) = timed(full, recording, turns, &mut cache.full_history)?;
            if counter.prompt(&prompt.messages) <= *limit {
                return Ok((prompt, nanos));
            }
        }
        timed(&self.strategy, recording, turns, &mut cache.strategy)
    }
}

impl<'a> Prompter<'a> {
    /// The renderer whose prompt [`Prompter::render`] sends after the first `turns` turns:
    /// the full history while it stays under the threshold, else the strategy.
    pub fn chosen(
        &self,
        recording: &Recording,
        turns: usize,
        counter: &mut Counter,
    ) -> Result<&Renderer<'a>, RenderError> {
        if let Some((full, limit)) = &self.threshold {
            let prompt = full.render(recording, turns)?;
            if counter.prompt(&prompt.messages) <= *limit {
                return Ok(full);
            }
        }
        Ok(&self.strategy)
    }
}

fn timed(
    renderer: &Renderer<'_>,
    recording: &Recording,
    turns: usize,
    cache: &mut SectionCache,
) -> Result<(Prompt, u64), RenderError> {
    let start = std::time::Instant::now();
    let output = renderer.output(recording, turns)?;
    let nanos = start.elapsed().as_nanos() as u64;
    let messages = renderer.messages_cached(&output, Some(cache))?;
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
