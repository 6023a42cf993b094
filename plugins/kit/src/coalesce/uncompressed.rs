//! The conversation without compression, as `full-history` sends it and as other strategies
//! show the turns they keep whole: after the first prompt, each turn's response as the
//! assistant's message and its prints or error as the user's feedback. Each message is one
//! block; the prompt is append-only, so its last block carries the cache breakpoint.

use std::cell::RefCell;

use ptc_plugin_api::{Field, Message, Output, Role, Run, Section, Turn};

use super::history::shown_whole;
use super::Settings;
use crate::kept::{shared_section, ByRun};

/// The prompt without compression: system, the first user message, then per turn the
/// assistant's response and the user feedback. Nothing is compressed: every tool
/// call and print of a successful turn counts as shown.
pub fn uncompressed<'r>(run: &'r Run, turns: &'r [Turn], settings: &Settings) -> Output<'r> {
    let mut messages = Vec::with_capacity(2 + 2 * turns.len());
    messages.extend(super::head(run, settings));
    for turn in turns {
        messages.extend(exchange(run, turn));
    }
    // Append-only: the whole prompt is the next one's prefix.
    if let Some(last) = messages.last_mut() {
        last.set_cache_breakpoint();
    }
    Output {
        messages: messages.into(),
        stats: shown_whole(turns),
    }
}

/// A turn as the conversation without compression shows it: the assistant's whole response,
/// then the user's feedback.
///
/// Every prompt shows every earlier turn again: while a run with a key renders, each of the two
/// messages is made once per turn and shared by the prompts that show it, its texts shared
/// fields ([`crate::kept`]).
pub fn exchange<'r>(run: &'r Run, turn: &'r Turn) -> [Message<'r>; 2] {
    let made = || {
        let feedback = Message::new(Role::User, vec![feedback_section(run, turn)]);
        [response(turn), feedback]
    };
    let kept = EXCHANGES.with(|kept| {
        kept.borrow_mut()
            .get(std::ptr::from_ref(turn) as usize, || {
                let section = shared_section(feedback_section(run, turn));
                [
                    response(turn).shared(),
                    Message::new(Role::User, vec![section]).shared(),
                ]
            })
    });
    kept.unwrap_or_else(made)
}

/// The assistant's message of a turn: its whole response, and the program the turn ran when
/// the response does not hold it. A model that writes its program in its text (a PTC-Lisp
/// block, a shell block) sends it in the response; a model that calls tools sends text beside
/// its calls, and an imported run keeps the calls as the turn's program (`program`, empty when
/// the response holds it; `tools`, the names of the tools the turn called, each once).
///
/// Every prompt shows every earlier turn's response again: while a run with a key renders,
/// the message is made once per turn and shared by the prompts that show it, its texts shared
/// fields ([`crate::kept`]).
pub fn response(turn: &Turn) -> Message<'_> {
    let message = || Message::new(Role::Assistant, vec![response_section(turn)]);
    let kept = RESPONSES.with(|kept| {
        kept.borrow_mut()
            .get(std::ptr::from_ref(turn) as usize, || {
                let section = shared_section(response_section(turn));
                Message::new(Role::Assistant, vec![section]).shared()
            })
    });
    kept.unwrap_or_else(message)
}

thread_local! {
    /// By the turn's address: its response's message, shared.
    static RESPONSES: RefCell<ByRun<usize, Message<'static>>> = RefCell::default();
    /// By the turn's address: its response's message and its feedback's, shared.
    static EXCHANGES: RefCell<ByRun<usize, [Message<'static>; 2]>> = RefCell::default();
}

/// The section of [`response`], made anew.
fn response_section(turn: &Turn) -> Section<'_> {
    let response = turn.raw_response.as_str();
    let program = turn
        .program
        .as_ref()
        .map(|p| p.as_str().trim())
        .filter(|p| !p.is_empty() && !holds(response.as_bytes(), p.as_bytes()))
        .unwrap_or("");
    let mut tools: Vec<String> = Vec::new();
    if !program.is_empty() {
        for call in turn.tool_calls.iter() {
            if !tools.iter().any(|t| t == call.name.as_str()) {
                tools.push(call.name.to_string());
            }
        }
    }
    Section::with_capacity("assistant", 3)
        .with("raw_response", response)
        .with("program", program)
        .with("tools", tools)
}

/// Whether `text` holds `part`, as `memchr::memmem::find` tells, without building a searcher:
/// every prompt shows every earlier turn again, so this runs once per turn and prompt, and
/// building the two-way searcher for a long program cost more than the search. The places
/// where `part`'s first byte occurs are compared whole, each first on its first 8 bytes, from
/// the last one back: a response that holds its program most often ends with it. A text where
/// `part` nearly matches often would make that quadratic: past comparisons worth four times
/// the text's length, the two-way search decides what is left, in linear time.
pub(crate) fn holds(text: &[u8], part: &[u8]) -> bool {
    const HEAD: usize = 8;
    let Some(&first) = part.first() else {
        return true;
    };
    let Some(last_start) = text.len().checked_sub(part.len()) else {
        return false;
    };
    let head = &part[..part.len().min(HEAD)];
    let mut budget = text.len().saturating_mul(4);
    for at in memchr::memrchr_iter(first, &text[..=last_start]) {
        let window = &text[at..at + part.len()];
        budget = budget.saturating_sub(head.len());
        if window[..head.len()] == *head {
            if window == part {
                return true;
            }
            budget = budget.saturating_sub(part.len());
        }
        if budget == 0 {
            // What is left: the places before `at`.
            return memchr::memmem::find(&text[..at + part.len() - 1], part).is_some();
        }
    }
    false
}

/// What the user says after a turn without compression: its prints, or its error, and the
/// number of the turn about to run.
pub fn feedback_section<'r>(run: &'r Run, turn: &'r Turn) -> Section<'r> {
    let prints: Vec<Field> = turn.prints.iter().map(|p| p.as_str().into()).collect();
    let error = turn.error_text().unwrap_or("error");
    Section::with_capacity("feedback", 5)
        .with("failed", !turn.success)
        .with("prints", prints)
        .with("error", error)
        .with("next_turn", turn.number + 1)
        .with("max_turns", run.max_turns)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::holds;

    fn reference(text: &[u8], part: &[u8]) -> bool {
        memchr::memmem::find(text, part).is_some()
    }

    #[test]
    fn near_matches_past_the_budget_are_left_to_the_two_way_search() {
        // Every place starts like the part: the budget runs out after a few places.
        let part = format!("{}b", "a".repeat(50));
        for (text, found) in [
            ("a".repeat(400), false),
            (format!("{}{part}", "a".repeat(400)), true),
            (format!("{part}{}", "a".repeat(400)), true),
            (format!("{}{part}a", "a".repeat(60)), true),
        ] {
            assert_eq!(holds(text.as_bytes(), part.as_bytes()), found, "{text}");
            assert_eq!(reference(text.as_bytes(), part.as_bytes()), found);
        }
        assert!(holds(b"any", b""));
        assert!(!holds(b"", b"a"));
        assert!(!holds(b"ab", b"abc"));
    }

    proptest! {
        /// Two letters make near matches common, and texts long enough to run out of budget.
        #[test]
        fn holds_as_the_two_way_search_tells(
            text in "[ab]{0,400}",
            part in "[ab]{0,40}",
            prefix in "[ab]{0,300}",
        ) {
            prop_assert_eq!(
                holds(text.as_bytes(), part.as_bytes()),
                reference(text.as_bytes(), part.as_bytes())
            );
            let with = format!("{prefix}{part}{text}");
            prop_assert_eq!(
                holds(with.as_bytes(), part.as_bytes()),
                reference(with.as_bytes(), part.as_bytes())
            );
        }
    }
}
