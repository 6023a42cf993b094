//! The token-threshold trigger (`[compression] compress_above_tokens`): the full history is sent
//! while that prompt stays at or under the threshold, the configured strategy once it would
//! exceed it.

use crate::recording::Recording;
use crate::render::RenderError;
use crate::render::{Prompt, RenderedCall, Renderer, SectionCache};
use crate::tokens::Counter;

/// The name of the baseline that sends what the agent sent: the requests a recording holds.
pub const AS_SENT: &str = "as-sent";

/// Renders prompts through a strategy, or through the full history while it is small enough;
/// or, for [`AS_SENT`], gives the requests the recording holds, as sent.
pub struct Prompter<'a> {
    pub strategy: Renderer<'a>,
    /// The full-history renderer and the threshold, when the trigger is on.
    pub threshold: Option<(Renderer<'a>, usize)>,
    /// The prompts are the recorded requests (`strategy` only names the run's renderer).
    pub as_sent: bool,
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
        if self.as_sent {
            return Ok((as_sent(recording, turns)?, 0));
        }
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
    /// The model calls made before `prompt` (the one [`Prompter::render`] gave after the first
    /// `turns` turns) is sent, besides it: the strategy's, when its renderer made the prompt;
    /// none for the recorded requests or the full history under the threshold.
    pub fn model_calls(
        &self,
        recording: &Recording,
        turns: usize,
        prompt: &Prompt,
    ) -> Result<Vec<RenderedCall>, RenderError> {
        if self.as_sent || prompt.strategy != self.strategy.strategy().name {
            return Ok(Vec::new());
        }
        self.strategy.model_calls(recording, turns)
    }

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

/// The request the agent sent after the first `turns` turns (the one for turn `turns + 1`),
/// as a prompt: the tool definitions and the system prompt as the system message's blocks,
/// then each message as sent, a tool call as its name and arguments after the text. A `tool`
/// message is sent as the user's. A recording does not say where the agent asked for caching,
/// so the breakpoints are where a client that caches the conversation puts them: on the last
/// block of the system prompt and on the last block of the request.
pub(crate) fn as_sent(recording: &Recording, turns: usize) -> Result<Prompt, RenderError> {
    use ptc_plugin_api::{Role, Stats};

    use crate::render::{BlockSpan, RenderedMessage};

    let Some(Some(request)) = recording.requests.get(turns) else {
        return Err(RenderError::NoRequest {
            path: recording.path.clone(),
            turn: turns + 1,
        });
    };
    let mut messages = Vec::with_capacity(request.len() + 1);
    let system_blocks: Vec<&str> = request
        .tools
        .iter()
        .chain(&request.system)
        .map(String::as_str)
        .filter(|b| !b.is_empty())
        .collect();
    if !system_blocks.is_empty() {
        messages.push(of_blocks(Role::System, &system_blocks));
    }
    for message in request.messages() {
        let role = match message.role.as_str() {
            "system" => Role::System,
            "assistant" => Role::Assistant,
            _ => Role::User,
        };
        let mut content = message.content.clone();
        for call in &message.tool_calls {
            if !content.is_empty() {
                content.push('\n');
            }
            content.push_str(&call.name);
            content.push(' ');
            content.push_str(&call.arguments);
        }
        messages.push(RenderedMessage::plain(role, content));
    }
    let system = messages.iter().rposition(|m| m.role == Role::System);
    let last = messages.iter().rposition(|m| !m.blocks.is_empty());
    for i in system.into_iter().chain(last) {
        if let Some(block) = messages[i].blocks.last_mut() {
            block.cache_breakpoint = true;
        }
    }
    return Ok(Prompt {
        strategy: AS_SENT.to_owned(),
        turns,
        messages,
        stats: Stats::default(),
    });

    /// A message of `blocks`, one blank line between two.
    fn of_blocks(role: Role, blocks: &[&str]) -> RenderedMessage {
        let mut content = String::new();
        let mut spans = Vec::with_capacity(blocks.len());
        for block in blocks {
            if !content.is_empty() {
                content.push_str("\n\n");
            }
            let start = content.len();
            content.push_str(block);
            spans.push(BlockSpan {
                start,
                end: content.len(),
                cache_breakpoint: false,
            });
        }
        RenderedMessage {
            role,
            content,
            blocks: spans,
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recording::RecordingDefaults;

    fn recording(json: &str) -> Recording {
        let defaults = RecordingDefaults {
            max_turns: 5,
            system_prompt: "s".into(),
        };
        Recording::parse(json.as_bytes(), "r.json".as_ref(), &defaults).unwrap()
    }

    #[test]
    fn as_sent_gives_the_recorded_request_of_the_next_turn() {
        let run = recording(
            r#"{"mission": "m", "turns": [
              {"number": 1, "success": true, "request": {"system": "SYS", "tools": "[T]",
                "messages": [{"role": "user", "content": "task"}]}},
              {"number": 2, "success": true, "request": {"messages": [
                {"role": "user", "content": "task"},
                {"role": "assistant", "content": "plan", "tool_calls": [{"name": "run", "arguments": "{\"p\":1}"}]},
                {"role": "tool", "tool_call_id": "c1", "content": "ok"}]}}
            ]}"#,
        );
        let first = as_sent(&run, 0).unwrap();
        assert_eq!(first.strategy, AS_SENT);
        let texts: Vec<(&str, &str)> = first
            .messages
            .iter()
            .map(|m| (m.role.as_str(), m.content.as_str()))
            .collect();
        assert_eq!(texts, [("system", "[T]\n\nSYS"), ("user", "task")]);
        assert_eq!(
            first.messages[0].blocks.len(),
            2,
            "tools and system: two blocks"
        );
        let second = as_sent(&run, 1).unwrap();
        let texts: Vec<(&str, &str)> = second
            .messages
            .iter()
            .map(|m| (m.role.as_str(), m.content.as_str()))
            .collect();
        assert_eq!(
            texts,
            [
                ("user", "task"),
                ("assistant", "plan\nrun {\"p\":1}"),
                ("user", "ok")
            ]
        );
        // Breakpoints where automatic caching puts them: the end of the system prompt (when
        // there is one) and the end of the request.
        let marks = |prompt: &Prompt| -> Vec<(usize, usize)> {
            let mut marks = Vec::new();
            for (m, message) in prompt.messages.iter().enumerate() {
                for (b, block) in message.blocks.iter().enumerate() {
                    if block.cache_breakpoint {
                        marks.push((m, b));
                    }
                }
            }
            marks
        };
        assert_eq!(marks(&first), [(0, 1), (1, 0)]);
        assert_eq!(marks(&second), [(2, 0)]);
        let err = as_sent(&run, 2).unwrap_err().to_string();
        assert!(
            err.starts_with("no request is recorded for turn 3"),
            "{err}"
        );
    }
}
