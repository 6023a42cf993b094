//! The recording of an agent whose log holds a transcript (tool calls and their results, not
//! PTC-Lisp turns), as the transcript importers (Codex CLI, Gemini CLI) finish it.

use serde_json::Value as Json;

use super::{Imported, Losses};
use crate::recording::ReadError;

/// The recording of an agent whose log holds a transcript (not PTC-Lisp turns): its mission,
/// turn budget, tools by name, turns and system prompt, with `lacks` completed by what the
/// log has not (the timestamps when no turn has one, the system prompt).
pub(in crate::recording::import) fn transcript_recording(
    mission: String,
    max_turns: u32,
    tools: &[String],
    turns: Vec<Json>,
    mut lacks: Vec<crate::recording::format::Lack>,
    system: Option<&str>,
    version: u64,
) -> Result<Imported, ReadError> {
    if !turns.iter().any(|t| t.get("started_at").is_some()) {
        lacks.push(crate::recording::format::Lack::Timestamps);
    }
    // A run whose requests are rebuilt with an inferred prefix knows its system prompt's size,
    // which is all a measurement takes (`rebuild`); one without still lacks it.
    let inferred = turns
        .iter()
        .any(|t| t["request"].get("inferred_prefix_tokens").is_some());
    let lacks_it = lacks.contains(&crate::recording::format::Lack::SystemPrompt);
    if system.is_none() && !inferred && !lacks_it {
        lacks.push(crate::recording::format::Lack::SystemPrompt);
    }
    let count = turns.len();
    let mut recording = serde_json::json!({
        "mission": mission,
        "literal_mission": true,
        "max_turns": max_turns,
        "tools": tools.iter().map(|name| serde_json::json!({"name": name})).collect::<Vec<_>>(),
        "turns": turns,
        "lacks": lacks,
    });
    if let Some(system) = system {
        recording["system_prompt"] = serde_json::json!(system);
    }
    Ok(Imported {
        json: recording,
        text: String::new(),
        turns: count,
        losses: Losses::default(),
        version,
        default_max_turns: false,
        part: None,
    })
}
