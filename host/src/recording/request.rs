//! A request as sent, held in memory: its messages are shared with the requests before it.
//!
//! An agent appends to its conversation, so each request sends again most of the previous
//! one's messages (a recording says how many with `repeats`). Copying them into every request
//! would take memory in the square of the turns; instead each request is a view of the first
//! `len` messages of a chain: the messages it adds, after a view of the previous request's.
//! A run's requests then take the memory of the messages the recording holds, whatever their
//! number, and each request still gives its messages in order, as sent.

use std::sync::Arc;

use crate::recording::format::{RequestJson, RequestMessageJson as RequestMessage};

/// Messages one run's requests may send in all, each counting again the messages it repeats:
/// what `ptc ab` counts for one recording. Past it, a run is refused before it is measured,
/// in a time linear in its file: `ab` renders every prompt whole, so its time grows with this
/// count (a strategy that sends the whole history returns every message again each turn).
/// 4,000 turns that each add two messages to the conversation send 16,000,000, measured in
/// about a minute of CPU with the full history; 4,472 such turns reach the limit.
pub const MAX_SENT_MESSAGES: usize = 20_000_000;

/// The first turn of `requests` at which the messages sent so far pass
/// [`MAX_SENT_MESSAGES`], with how many they are then.
pub fn over_sent_messages(requests: &[Option<Request>]) -> Option<(usize, usize)> {
    let mut sent = 0usize;
    for (i, request) in requests.iter().enumerate() {
        sent = sent.saturating_add(request.as_ref().map_or(0, Request::len));
        if sent > MAX_SENT_MESSAGES {
            return Some((i, sent));
        }
    }
    None
}

/// A request to a model as the agent sent it, as a recording holds it in memory.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    /// The model asked for, as the agent named it.
    pub model: Option<String>,
    /// The system prompt, when it was sent apart from the messages.
    pub system: Option<String>,
    /// The tool definitions, as the JSON text sent.
    pub tools: Option<String>,
    /// Rebuilt from the conversation the log holds, not recorded as sent.
    pub rebuilt: bool,
    /// The size, in tokens, of what the agent sent before the messages and the log does not
    /// hold (its system prompt and tool schemas), inferred from the bill.
    pub inferred_prefix_tokens: Option<u64>,
    messages: Messages,
}

/// The messages of a request: the first `len` messages of a chain of shared parts.
#[derive(Clone, Default)]
struct Messages {
    last: Option<Arc<Part>>,
    len: usize,
}

/// One part of a chain: a view of the messages before it, then its own.
struct Part {
    before: Messages,
    own: Vec<RequestMessage>,
}

impl Request {
    /// The request `json` describes, its `repeats` first messages taken (shared, not copied)
    /// from `previous`, the request of the turn before. The rules of a recording have checked
    /// that `previous` sent that many; were it not so, fewer would be taken.
    pub(super) fn new(json: RequestJson, previous: Option<&Request>) -> Request {
        let before = match previous {
            Some(previous) if json.repeats > 0 => previous.messages.first(json.repeats),
            _ => Messages::default(),
        };
        let messages = if json.messages.is_empty() {
            before
        } else {
            let len = before.len + json.messages.len();
            Messages {
                last: Some(Arc::new(Part {
                    before,
                    own: json.messages,
                })),
                len,
            }
        };
        Request {
            model: json.model,
            system: json.system,
            tools: json.tools,
            rebuilt: json.rebuilt,
            inferred_prefix_tokens: json.inferred_prefix_tokens,
            messages,
        }
    }

    /// How many messages the request sends.
    pub fn len(&self) -> usize {
        self.messages.len
    }

    /// Whether the request sends no message.
    pub fn is_empty(&self) -> bool {
        self.messages.len == 0
    }

    /// The messages the request sends, in order.
    pub fn messages(&self) -> impl Iterator<Item = &RequestMessage> + '_ {
        self.messages.slices().into_iter().flatten()
    }
}

impl Messages {
    /// The first `n` of these messages (all of them when there are fewer).
    fn first(&self, n: usize) -> Messages {
        Messages {
            last: self.last.clone(),
            len: n.min(self.len),
        }
    }

    /// The messages as slices of the parts, in order; a part that gives none is skipped, so
    /// there are never more slices than parts holding messages.
    fn slices(&self) -> Vec<&[RequestMessage]> {
        let mut slices = Vec::new();
        let mut part = self.last.as_deref();
        let mut len = self.len;
        while let Some(p) = part {
            if len > p.before.len {
                slices.push(&p.own[..len - p.before.len]);
                len = p.before.len;
            }
            if len == 0 {
                break;
            }
            part = p.before.last.as_deref();
        }
        slices.reverse();
        slices
    }
}

impl PartialEq for Messages {
    fn eq(&self, other: &Messages) -> bool {
        self.len == other.len && self.slices().concat() == other.slices().concat()
    }
}

impl std::fmt::Debug for Messages {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.slices().into_iter().flatten())
            .finish()
    }
}

impl Drop for Part {
    /// A chain is dropped part by part, not by recursion: a run of many thousands of turns
    /// makes a chain as long, deeper than a thread's stack can recurse.
    fn drop(&mut self) {
        let mut next = self.before.last.take();
        while let Some(part) = next {
            next = match Arc::try_unwrap(part) {
                Ok(mut part) => part.before.last.take(),
                Err(_) => None,
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(repeats: usize, contents: &[&str]) -> RequestJson {
        RequestJson {
            model: None,
            system: None,
            rebuilt: false,
            inferred_prefix_tokens: None,
            repeats,
            messages: contents
                .iter()
                .map(|c| RequestMessage {
                    role: "user".into(),
                    content: (*c).into(),
                    tool_calls: Vec::new(),
                    tool_call_id: None,
                    reasoning: None,
                })
                .collect(),
            tools: None,
        }
    }

    fn contents(request: &Request) -> Vec<&str> {
        request.messages().map(|m| m.content.as_str()).collect()
    }

    #[test]
    fn a_request_gives_the_messages_it_repeats_then_its_own_in_order() {
        let first = Request::new(json(0, &["a", "b"]), None);
        let second = Request::new(json(2, &["c"]), Some(&first));
        let third = Request::new(json(1, &["d", "e"]), Some(&second));
        let fourth = Request::new(json(3, &[]), Some(&third));
        assert_eq!(contents(&first), ["a", "b"]);
        assert_eq!(contents(&second), ["a", "b", "c"]);
        assert_eq!(contents(&third), ["a", "d", "e"]);
        assert_eq!(contents(&fourth), ["a", "d", "e"]);
        assert_eq!((fourth.len(), fourth.is_empty()), (3, false));
        assert_eq!(third, fourth);
        assert_ne!(second, third);
    }

    #[test]
    fn repeated_messages_are_shared_not_copied() {
        let first = Request::new(json(0, &["a", "b"]), None);
        let second = Request::new(json(2, &["c"]), Some(&first));
        let a = |r: &Request| r.messages().next().unwrap() as *const RequestMessage;
        assert_eq!(a(&first), a(&second));
    }

    #[test]
    fn a_chain_of_many_thousand_requests_is_dropped_without_overflowing_the_stack() {
        // Run on a thread with a small stack, where dropping by recursion would overflow.
        std::thread::Builder::new()
            .stack_size(64 << 10)
            .spawn(|| {
                let mut request = Request::new(json(0, &["m"]), None);
                for _ in 0..200_000 {
                    let repeats = request.len();
                    request = Request::new(json(repeats, &["m"]), Some(&request));
                }
                assert_eq!(request.len(), 200_001);
                drop(request);
            })
            .unwrap()
            .join()
            .unwrap();
    }
}
