//! The token-threshold trigger (`[compression] compress_above_tokens`): the full history is sent
//! while that prompt stays at or under the threshold, the configured strategy once it would
//! exceed it.

use crate::recording::{Recording, SentMessages};
use crate::render::RenderError;
use crate::render::{Prompt, RenderedCall, Renderer, SectionCache};
use crate::tokens::Counter;

/// The name of the baseline that sends what the agent sent: the requests a recording holds.
pub const AS_SENT: &str = "as-sent";

/// Where a variant's prompts come from: the requests a recording holds, or a strategy.
pub enum Prompter<'a> {
    /// The requests the recording holds, as the agent sent them ([`AS_SENT`]).
    AsSent,
    /// A strategy's renderer (with the full history while it is small enough, when the trigger
    /// is on), boxed: it is much larger than the other.
    Strategy(Box<Rendering<'a>>),
}

/// Renders prompts through a strategy, or through the full history while it is small enough.
pub struct Rendering<'a> {
    pub strategy: Renderer<'a>,
    /// The full-history renderer and the threshold, when the trigger is on.
    pub threshold: Option<(Renderer<'a>, usize)>,
}

impl<'a> From<Rendering<'a>> for Prompter<'a> {
    fn from(rendering: Rendering<'a>) -> Prompter<'a> {
        Prompter::Strategy(Box::new(rendering))
    }
}

/// The section caches of one run: one per renderer of a [`Rendering`]; and the messages of
/// its last request as sent.
#[derive(Default)]
pub struct RunCache<'r> {
    strategy: SectionCache<'r>,
    full_history: SectionCache<'r>,
    sent: SentMessages<'r>,
}

impl<'a> Prompter<'a> {
    /// The prompt after the first `turns` turns, and the strategy call's duration in
    /// nanoseconds (0 for the recorded requests).
    pub fn render(
        &self,
        recording: &Recording,
        turns: usize,
        counter: &mut Counter,
    ) -> Result<(Prompt, u64), RenderError> {
        self.render_cached(recording, turns, counter, &mut RunCache::default())
    }

    /// [`Prompter::render`], reusing the sections rendered for the run's
    /// earlier prompts.
    pub fn render_cached<'r>(
        &self,
        recording: &'r Recording,
        turns: usize,
        counter: &mut Counter,
        cache: &mut RunCache<'r>,
    ) -> Result<(Prompt, u64), RenderError> {
        match self {
            Prompter::AsSent => Ok((as_sent_after(recording, turns, &mut cache.sent)?, 0)),
            Prompter::Strategy(rendering) => {
                rendering.render_cached(recording, turns, counter, cache)
            }
        }
    }

    /// The model calls made before `prompt` is sent, besides it ([`Rendering::model_calls`]);
    /// none for the recorded requests.
    pub fn model_calls(
        &self,
        recording: &Recording,
        turns: usize,
        prompt: &Prompt,
    ) -> Result<Vec<RenderedCall>, RenderError> {
        match self {
            Prompter::AsSent => Ok(Vec::new()),
            Prompter::Strategy(rendering) => rendering.model_calls(recording, turns, prompt),
        }
    }
}

impl<'a> Rendering<'a> {
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

    /// [`Rendering::render`] for one of many prompts of a run, reusing the sections rendered
    /// for its earlier prompts.
    pub fn render_cached<'r>(
        &self,
        recording: &'r Recording,
        turns: usize,
        counter: &mut Counter,
        cache: &mut RunCache<'r>,
    ) -> Result<(Prompt, u64), RenderError> {
        if let Some((full, limit)) = &self.threshold {
            let (prompt, nanos) = timed(full, recording, turns, &mut cache.full_history)?;
            if counter.prompt(&prompt.messages) + prompt.prefix_tokens <= *limit {
                return Ok((prompt, nanos));
            }
        }
        timed(&self.strategy, recording, turns, &mut cache.strategy)
    }

    /// The model calls made before `prompt` (the one [`Rendering::render`] gave after the
    /// first `turns` turns) is sent, besides it: the strategy's, when its renderer made the
    /// prompt; none for the full history under the threshold.
    pub fn model_calls(
        &self,
        recording: &Recording,
        turns: usize,
        prompt: &Prompt,
    ) -> Result<Vec<RenderedCall>, RenderError> {
        if prompt.strategy != self.strategy.strategy().name {
            return Ok(Vec::new());
        }
        self.strategy.model_calls(recording, turns)
    }

    /// The renderer whose prompt [`Rendering::render`] sends after the first `turns` turns:
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

/// [`as_sent_after`] with no request made before.
#[cfg(test)]
pub(crate) fn as_sent(recording: &Recording, turns: usize) -> Result<Prompt, RenderError> {
    as_sent_made(recording, turns, None)
}

/// The request the agent sent after the first `turns` turns (the one for turn `turns + 1`),
/// as a prompt ([`crate::recording::Request::prompt_messages`]). A request rebuilt from a log
/// that did not record it is sent with its inferred prefix; one whose prefix could not be
/// inferred is refused: its as-sent size is not known. The messages it sends again from the
/// request `sent` made last are taken from there
/// ([`crate::recording::Request::prompt_messages_after`]).
pub(crate) fn as_sent_after<'r>(
    recording: &'r Recording,
    turns: usize,
    sent: &mut SentMessages<'r>,
) -> Result<Prompt, RenderError> {
    as_sent_made(recording, turns, Some(sent))
}

fn as_sent_made<'r>(
    recording: &'r Recording,
    turns: usize,
    sent: Option<&mut SentMessages<'r>>,
) -> Result<Prompt, RenderError> {
    let Some(Some(request)) = recording.requests.get(turns) else {
        return Err(RenderError::NoRequest {
            path: recording.path.clone(),
            turn: turns + 1,
        });
    };
    let prefix_tokens = match (request.rebuilt, request.inferred_prefix_tokens) {
        (false, _) => 0,
        (true, Some(n)) => usize::try_from(n).unwrap_or(usize::MAX),
        (true, None) => {
            return Err(RenderError::UnknownPrefix {
                path: recording.path.clone(),
                turn: turns + 1,
            })
        }
    };
    Ok(Prompt {
        strategy: AS_SENT.to_owned(),
        turns,
        messages: match sent {
            Some(sent) => request.prompt_messages_after(sent),
            None => request.prompt_messages(),
        },
        stats: ptc_plugin_api::Stats::default(),
        prefix_tokens,
    })
}

fn timed<'r>(
    renderer: &Renderer<'_>,
    recording: &'r Recording,
    turns: usize,
    cache: &mut SectionCache<'r>,
) -> Result<(Prompt, u64), RenderError> {
    let start = std::time::Instant::now();
    let output = renderer.output(recording, turns)?;
    let nanos = start.elapsed().as_nanos() as u64;
    let messages = renderer.messages_cached(&output, Some(cache))?;
    let stats = output.stats;
    cache.keep(output);
    let mut prompt = Prompt {
        strategy: renderer.strategy().name.clone(),
        turns,
        messages,
        stats,
        prefix_tokens: 0,
    };
    in_place_of_system_prompt(&mut prompt, recording);
    Ok((prompt, nanos))
}

/// A strategy's prompt for another agent's run, whose log kept no system prompt: the system
/// messages left empty (the run has no system prompt text to show, and ptc's own never stands
/// in for it) are left out, and the run's inferred prefix takes their place, so that the
/// strategy is compared with the as-sent baseline on the same prefix. A run whose prefix is
/// unknown is rendered without one, and `ptc ab` does not judge strategies on it (it lacks
/// `system_prompt`).
pub(crate) fn in_place_of_system_prompt(prompt: &mut Prompt, recording: &Recording) {
    if !recording.run.system_prompt.is_empty() || !recording.is_another_agents() {
        return;
    }
    prompt
        .messages
        .retain(|m| m.role != ptc_plugin_api::Role::System || !m.content.trim().is_empty());
    if let Some(n) = recording.inferred_prefix {
        prompt.prefix_tokens = usize::try_from(n).unwrap_or(usize::MAX);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recording::RecordingDefaults;

    fn recording(json: &str) -> Recording {
        let defaults = RecordingDefaults {
            max_turns: 5,
            system_prompt: "s".into(),
            max_recording_bytes: crate::recording::DEFAULT_MAX_RECORDING_BYTES,
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

    /// A run's requests made one after the other are those made on their own, breakpoints
    /// included; a message a request sends again in its place is the text made before, shared,
    /// unless the model's shape changes how it reads.
    #[test]
    fn requests_made_after_the_one_before_are_those_made_alone_sharing_what_they_repeat() {
        let run = recording(
            r#"{"mission": "m", "turns": [
              {"number": 1, "success": true, "request": {"system": "SYS", "tools": "[T]",
                "messages": [{"role": "user", "content": "task"}]}},
              {"number": 2, "success": true, "request": {"system": "SYS", "tools": "[T]",
                "repeats": 1, "messages": [
                {"role": "assistant", "content": "plan", "tool_calls": [{"id": "c1", "name": "run", "arguments": "{\"p\":1}"}]},
                {"role": "tool", "tool_call_id": "c1", "content": "ok"}]}},
              {"number": 3, "success": true, "request": {"system": "SYS", "tools": "[T]",
                "messages": [{"role": "user", "content": "task"},
                {"role": "assistant", "content": "plan", "tool_calls": [{"id": "c1", "name": "run", "arguments": "{\"p\":1}"}]},
                {"role": "tool", "tool_call_id": "c1", "content": "ok"}]}},
              {"number": 4, "success": true, "request": {"system": "SYS 2", "tools": "[T]",
                "repeats": 3, "messages": [{"role": "user", "content": "more"}]}},
              {"number": 5, "success": true, "request": {"model": "claude-sonnet-4-5",
                "system": "SYS 2", "tools": "[T]", "repeats": 4,
                "messages": [{"role": "assistant", "content": "done"}]}}
            ]}"#,
        );
        let mut sent = SentMessages::default();
        let mut before: Option<Prompt> = None;
        let mut shared = Vec::new();
        for turns in 0..5 {
            let alone = as_sent(&run, turns);
            let after = as_sent_after(&run, turns, &mut sent);
            let (alone, after) = match (alone, after) {
                (Ok(alone), Ok(after)) => (alone, after),
                (Err(a), Err(b)) => {
                    assert_eq!(a.to_string(), b.to_string());
                    continue;
                }
                other => panic!("turn {turns}: {:?}", other.0.map(|p| p.messages)),
            };
            assert_eq!(after.messages, alone.messages, "turn {turns}");
            for (m, message) in after.messages.iter().enumerate() {
                let same = before
                    .as_ref()
                    .and_then(|b| b.messages.get(m))
                    .is_some_and(|b| std::sync::Arc::ptr_eq(&b.content, &message.content));
                if same {
                    shared.push((turns, m));
                }
            }
            before = Some(after);
        }
        // Turn 2 repeats the system message and `task`; turn 3 writes its messages anew (the
        // same text, made again), not its system message; turn 4 repeats turn 3's messages,
        // not its system message, changed; turn 5, sent to a Claude model, which reads tool
        // blocks otherwise, only its system message.
        assert_eq!(
            shared,
            [(1, 0), (1, 1), (2, 0), (3, 1), (3, 2), (3, 3), (4, 0)]
        );
    }
}
