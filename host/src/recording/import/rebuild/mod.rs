//! The requests of a log that did not record them, rebuilt from the conversation it holds
//! (Claude Code's messages, OpenHands' events, ATIF's steps, Codex's response items): each call's request is the
//! messages sent before its response, marked `rebuilt`, written with `repeats` so that a run's
//! requests take the size of its conversation.
//!
//! What the log does not hold (the agent's system prompt and tool schemas) is never filled
//! with text: it is a prefix known by its size alone, inferred from the bill. The first call's
//! billed prompt (uncached input, cache reads and cache writes) less ptc's count of the
//! conversation that call sent is the prefix, in every request of the run. ptc counts it as
//! `ptc ab` and `ptc bill` do (`o200k_base`; Anthropic's content blocks for a Claude model or
//! an `anthropic` bill, OpenAI's chat messages otherwise). With no usage on the first call,
//! or a bill smaller than the conversation, the prefix is unknown: the requests are kept, and
//! the recording still lacks `requests` and `system_prompt`.

pub(super) mod claude_code;
pub(super) mod codex;
pub(super) mod openhands;

use std::ops::Range;

use serde_json::Value as Json;

use crate::recording::format::{Lack, RequestJson, RequestMessageJson};
use crate::tokens::{Counter, Counting, Tokenizer};

/// Sets the `request` of each of `turns`: turn `i` sent the first `sent_before[i]` of
/// `messages` (a conversation that only grows). Infers the prefix from the first turn's usage
/// and takes `requests` and `system_prompt` out of `lacks` when it is known.
pub(super) fn rebuild_requests(
    turns: &mut [Json],
    messages: &[RequestMessageJson],
    sent_before: &[usize],
    model: Option<&str>,
    lacks: &mut Vec<Lack>,
) {
    // A conversation only grows: a count smaller than the one before repeats them all.
    let mut before = 0;
    let sent: Vec<Range<usize>> = sent_before
        .iter()
        .map(|&sent| {
            before = sent.clamp(before, messages.len());
            0..before
        })
        .collect();
    rebuild_ranges(turns, messages, &sent, model, lacks);
}

/// Sets the `request` of each of `turns`: turn `i` sent `messages[sent[i]]`. A request that
/// begins where the previous one began and sends at least as much repeats it; one that begins
/// elsewhere (a history compacted into a summary) repeats nothing. Infers the prefix from the
/// first turn's usage and takes `requests` and `system_prompt` out of `lacks` when it is known.
pub(super) fn rebuild_ranges(
    turns: &mut [Json],
    messages: &[RequestMessageJson],
    sent: &[Range<usize>],
    model: Option<&str>,
    lacks: &mut Vec<Lack>,
) {
    let clamp = |range: &Range<usize>| {
        let end = range.end.min(messages.len());
        range.start.min(end)..end
    };
    let Some(first) = sent.first().map(clamp) else {
        return;
    };
    let prefix = turns
        .first()
        .and_then(|turn| inferred_prefix(&turn["usage"], &messages[first]));
    let mut previous: Option<Range<usize>> = None;
    for (turn, range) in turns.iter_mut().zip(sent) {
        let range = clamp(range);
        let repeats = match &previous {
            Some(p) if p.start == range.start && p.end <= range.end => p.len(),
            _ => 0,
        };
        let request = RequestJson {
            model: model.map(str::to_owned),
            system: None,
            repeats,
            messages: messages[range.start + repeats..range.end].to_vec(),
            tools: None,
            rebuilt: true,
            inferred_prefix_tokens: prefix,
        };
        turn["request"] = serde_json::to_value(request).expect("a request serializes");
        previous = Some(range);
    }
    if prefix.is_some() {
        lacks.retain(|l| !matches!(l, Lack::Requests | Lack::SystemPrompt));
    } else {
        for lack in [Lack::Requests, Lack::SystemPrompt] {
            if !lacks.contains(&lack) {
                lacks.push(lack);
            }
        }
    }
}

/// The first call's billed prompt less ptc's count of the `conversation` it sent; none without
/// usage, or when the bill is smaller than the conversation.
fn inferred_prefix(usage: &Json, conversation: &[RequestMessageJson]) -> Option<u64> {
    let input = usage["input"].as_u64()?;
    let billed = [
        usage["cache_read"].as_u64().unwrap_or(0),
        usage["cache_write_5m"].as_u64().unwrap_or(0),
        usage["cache_write_1h"].as_u64().unwrap_or(0),
    ]
    .iter()
    .try_fold(input, |sum, n| sum.checked_add(*n))?;
    let anthropic = usage["provider"] == "anthropic"
        || usage["model"]
            .as_str()
            .is_some_and(|m| m.to_ascii_lowercase().contains("claude"));
    let counting = if anthropic {
        Counting::AnthropicBlocks
    } else {
        Counting::OpenAiChat
    };
    let request = RequestJson {
        model: None,
        system: None,
        repeats: 0,
        messages: conversation.to_vec(),
        tools: None,
        rebuilt: true,
        inferred_prefix_tokens: None,
    };
    let counted =
        Counter::new(Tokenizer::O200kBase).prompt_as(counting, &request.prompt_messages());
    billed.checked_sub(counted as u64)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn user(text: &str) -> RequestMessageJson {
        RequestMessageJson {
            role: "user".into(),
            content: text.into(),
            tool_calls: Vec::new(),
            tool_call_id: None,
            reasoning: None,
        }
    }

    #[test]
    fn the_prefix_is_the_first_bill_less_the_conversation_and_leads_every_request() {
        let messages = [user("Fix the failing test."), user("done")];
        let mut turns = vec![
            json!({"usage": {"input": 4, "cache_write_5m": 10_000, "provider": "anthropic"}}),
            json!({}),
        ];
        let mut lacks = vec![Lack::Requests, Lack::SystemPrompt, Lack::MaxTurns];
        rebuild_requests(&mut turns, &messages, &[1, 2], None, &mut lacks);
        let prefix = turns[0]["request"]["inferred_prefix_tokens"]
            .as_u64()
            .unwrap();
        assert!(prefix > 9_990 && prefix < 10_004, "{prefix}");
        assert_eq!(turns[1]["request"]["inferred_prefix_tokens"], prefix);
        assert_eq!(turns[1]["request"]["repeats"], 1);
        assert_eq!(turns[0]["request"]["rebuilt"], true);
        assert_eq!(lacks, [Lack::MaxTurns]);
    }

    #[test]
    fn a_request_after_a_compaction_repeats_nothing_of_the_one_before() {
        let messages = [user("a"), user("b"), user("summary"), user("c")];
        let mut turns = vec![json!({}), json!({}), json!({}), json!({})];
        let sent = [0..1, 0..2, 2..3, 2..4];
        rebuild_ranges(&mut turns, &messages, &sent, None, &mut Vec::new());
        let repeats: Vec<u64> = turns
            .iter()
            .map(|t| t["request"]["repeats"].as_u64().unwrap_or(0))
            .collect();
        assert_eq!(repeats, [0, 1, 0, 1]);
        assert_eq!(turns[2]["request"]["messages"][0]["content"], "summary");
        assert_eq!(turns[3]["request"]["messages"][0]["content"], "c");
    }

    #[test]
    fn a_bill_smaller_than_the_conversation_leaves_the_prefix_unknown() {
        let messages = [user(&"many words ".repeat(200))];
        let mut turns = vec![json!({"usage": {"input": 5, "provider": "anthropic"}})];
        let mut lacks = vec![Lack::MaxTurns];
        rebuild_requests(&mut turns, &messages, &[1], None, &mut lacks);
        assert!(turns[0]["request"].get("inferred_prefix_tokens").is_none());
        assert_eq!(turns[0]["request"]["rebuilt"], true);
        assert_eq!(lacks, [Lack::MaxTurns, Lack::Requests, Lack::SystemPrompt]);
    }

    #[test]
    fn no_usage_on_the_first_call_leaves_the_prefix_unknown() {
        let mut turns = vec![json!({}), json!({"usage": {"input": 50_000}})];
        let mut lacks = Vec::new();
        rebuild_requests(
            &mut turns,
            &[user("a"), user("b")],
            &[1, 2],
            None,
            &mut lacks,
        );
        assert!(turns[1]["request"].get("inferred_prefix_tokens").is_none());
        assert!(lacks.contains(&Lack::Requests));
    }
}
