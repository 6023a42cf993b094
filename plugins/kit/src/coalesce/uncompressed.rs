//! The conversation without compression, as `full-history` sends it and as other strategies
//! show the turns they keep whole: after the first prompt, each turn's response as the
//! assistant's message and its prints or error as the user's feedback. Each message is one
//! block; the prompt is append-only, so its last block carries the cache breakpoint.

use ptc_plugin_api::{Field, Message, Output, Role, Run, Section, Turn};

use super::history::shown_whole;
use super::{system_message, user_message, Settings};

/// The prompt without compression: system, the first user message, then per turn the
/// assistant's response and the user feedback. Nothing is compressed: every tool
/// call and print of a successful turn counts as shown.
pub fn uncompressed(run: &Run, turns: &[Turn], settings: &Settings) -> Output {
    let (first, _) = user_message(run, &[], settings);
    let mut messages = vec![system_message(run), first];
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
pub fn exchange(run: &Run, turn: &Turn) -> [Message; 2] {
    [
        response(turn),
        Message::new(Role::User, vec![feedback_section(run, turn)]),
    ]
}

/// The assistant's message of a turn: its whole response, and the program the turn ran when
/// the response does not hold it. A model that writes its program in its text (a PTC-Lisp
/// block, a shell block) sends it in the response; a model that calls tools sends text beside
/// its calls, and an imported run keeps the calls as the turn's program (`program`, empty when
/// the response holds it; `tools`, the names of the tools the turn called, each once).
pub fn response(turn: &Turn) -> Message {
    let response = turn.raw_response.as_str();
    let program = turn
        .program
        .as_ref()
        .map(|p| p.as_str().trim())
        .filter(|p| {
            !p.is_empty() && memchr::memmem::find(response.as_bytes(), p.as_bytes()).is_none()
        })
        .unwrap_or("");
    let mut tools: Vec<String> = Vec::new();
    if !program.is_empty() {
        for call in turn.tool_calls.iter() {
            if !tools.iter().any(|t| t == call.name.as_str()) {
                tools.push(call.name.to_string());
            }
        }
    }
    Message::new(
        Role::Assistant,
        vec![Section::new("assistant")
            .with("raw_response", response)
            .with("program", program)
            .with("tools", tools)],
    )
}

/// What the user says after a turn without compression: its prints, or its error, and the
/// number of the turn about to run.
pub fn feedback_section(run: &Run, turn: &Turn) -> Section {
    let prints: Vec<Field> = turn.prints.iter().map(|p| p.as_str().into()).collect();
    let error = turn.error_text().unwrap_or("error");
    Section::new("feedback")
        .with("failed", !turn.success)
        .with("prints", prints)
        .with("error", error)
        .with("next_turn", turn.number + 1)
        .with("max_turns", run.max_turns)
}
