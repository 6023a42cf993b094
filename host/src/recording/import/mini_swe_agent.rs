//! `ptc import --from mini-swe-agent`: a recording from a mini-swe-agent trajectory
//! (`*.traj.json`), in either of its formats: `trajectory_format` `mini-swe-agent-1.1`, whose
//! model runs its shell commands through tool calls (one `bash` tool) or, with a text-based
//! model, in a fenced block (```` ```mswea_bash_command ````) the agent parses into
//! `extra.actions`; and the older `mini-swe-agent-1` (or a bare list of messages), whose model
//! writes exactly one ```` ```bash ```` block and gets its output back in a `user` message
//! (`<returncode>N</returncode><output>…</output>`).
//!
//! The file is one JSON object: `{trajectory_format, instance_id, info{config{agent{step_limit},
//! model{model_name}}}, messages[]}`. `messages[0]` is the system prompt, the first `user`
//! message the task. Each `assistant` message is one call to the model, so one turn:
//!
//! - the program is its shell commands, one per line: those of its `bash` tool calls, else its
//!   `extra.actions`, else (format 1) its one `bash` block; the raw response is its text, after
//!   its `reasoning_content` when the model gave one;
//! - the tool calls are those commands, each with, as its result, the message answering it (the
//!   `tool` message of its call, else the next `user` message), a command that failed (a
//!   return code not 0) as `{output, exit_status}`; each output is one printed entry, failed
//!   or not;
//! - the turn failed when a command's return code (`extra.returncode`, else the
//!   `<returncode>` of the answer) is not 0 (its output is the error), or when the response
//!   gave no command, or format 1's more than one (the `user` message after it says why);
//! - `request` is every message before it, as sent: DeepSeek's `reasoning_content` with its
//!   assistant message (litellm sends it back, and the bill counts it); another provider's is
//!   left out, and the recording lacks `sent_reasoning` (the log cannot tell); `usage` is `extra.response.usage` in ptc's
//!   convention: DeepSeek's `prompt_cache_hit_tokens` are the cache reads and its
//!   `prompt_cache_miss_tokens` the rest (other providers: `prompt_tokens` holds the reads,
//!   `cache_read_input_tokens` or else `prompt_tokens_details.cached_tokens`, and Anthropic's
//!   writes, `cache_creation_input_tokens`, counted as 5 minutes); no cost is kept, because
//!   `extra.cost` is litellm's computation at list price, not a bill;
//! - `started_at` is `extra.timestamp`, when the response arrived (the log's only time of a
//!   call).
//!
//! A trajectory keeps no PTC-Lisp memory and no program value: the recording says it lacks them.

use std::path::Path;

use serde_json::{json, Value as Json};

use super::counts::{count, CountError};
use super::{
    bad, read_json, request_message, turn_budget, ImportError, Imported, Losses, Supplied,
};
use crate::recording::format::{Lack, RequestJson, RequestToolCallJson};
use crate::recording::{ReadError, RecordingDefaults};

/// The trajectory formats read.
pub(super) const TRAJECTORY_FORMATS: &str =
    "mini-swe-agent-1.1, with tool calls or text actions, and mini-swe-agent-1, with bash blocks";

/// Whether a file whose first and last few KiB are `prefix` and `suffix` is a mini-swe-agent
/// trajectory: one JSON object naming its `trajectory_format` (written first or last).
pub(super) fn detect(prefix: &str, suffix: &str) -> bool {
    let names =
        |text: &str| text.contains("\"trajectory_format\"") && text.contains("\"mini-swe-agent");
    prefix.trim_start().starts_with('{') && (names(prefix) || names(suffix))
}

/// Whether the file at `path`, opening with `prefix`, is a trajectory of format 1 saved as the
/// bare list of its messages: a `*.traj.json` file holding a JSON array of role messages.
pub(super) fn detect_bare(path: &Path, prefix: &str) -> bool {
    let named = path
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.ends_with(".traj.json"));
    let Some(rest) = prefix.trim_start().strip_prefix('[') else {
        return false;
    };
    let rest = rest.trim_start();
    named && rest.starts_with('{') && prefix.contains("\"role\"")
}

/// Reads the trajectory at `path` and builds the recording of its run.
pub fn mini_swe_agent(
    path: &Path,
    defaults: &RecordingDefaults,
    supplied: &Supplied,
) -> Result<Imported, ReadError> {
    let trajectory = read_json(path, defaults.max_recording_bytes)?;
    // Format 1 was also saved as the bare list of messages.
    let (text_blocks, messages) = match &trajectory {
        Json::Array(messages) => (true, messages),
        _ => {
            let format = &trajectory["trajectory_format"];
            if format != "mini-swe-agent-1.1" && format != "mini-swe-agent-1" {
                return Err(bad(
                    path,
                    None,
                    ImportError::TrajectoryFormat {
                        found: format.clone(),
                    },
                ));
            }
            let Some(messages) = trajectory["messages"].as_array() else {
                return Err(bad(path, None, ImportError::NoMessages));
            };
            (format == "mini-swe-agent-1", messages)
        }
    };
    let model = trajectory["info"]["config"]["model"]["model_name"]
        .as_str()
        .map(str::to_owned);
    let provider = model
        .as_deref()
        .and_then(|m| m.split_once('/'))
        .map(|(provider, _)| provider.to_owned());
    let mission = match &supplied.mission {
        Some(mission) => mission.clone(),
        None => messages
            .iter()
            .find(|m| m["role"] == "user")
            .and_then(|m| text(&m["content"]))
            .ok_or_else(|| {
                bad(
                    path,
                    None,
                    ImportError::NoMission {
                        looked_for: "the first user message".into(),
                    },
                )
            })?,
    };
    // A shell agent has no `user/` namespace and its commands return no value: an empty memory
    // and a nil result are what happened, not something the log lost.
    let mut lacks = Vec::new();
    // The reasoning of an assistant message is in the messages the agent hands litellm, which
    // sends DeepSeek's back (its bill counts it); what another provider got, the log cannot
    // tell: its requests leave the reasoning out, and the recording says so.
    let reasoning_sent = provider.as_deref() == Some("deepseek");
    let gave_reasoning = messages
        .iter()
        .any(|m| m["role"] == "assistant" && m["reasoning_content"].is_string());
    if gave_reasoning && !reasoning_sent {
        lacks.push(Lack::SentReasoning);
    }
    let mut turns = Vec::new();
    // The messages the previous request sent: every request sends them again first (the
    // trajectory is the conversation), so it is written as the ones it adds.
    let mut sent = 0;
    for (at, message) in messages.iter().enumerate() {
        if message["role"] != "assistant" {
            continue;
        }
        let number = turns.len() + 1;
        let (calls, answers) = commands(messages, at, text_blocks);
        let mut commands = Vec::new();
        let mut tool_calls = Vec::new();
        let mut prints = Vec::new();
        let mut failed: Option<String> = None;
        for ((name, command), answer) in calls.iter().zip(answers) {
            let output = answer.and_then(|m| text(&m["content"])).unwrap_or_default();
            let code = answer.and_then(|m| {
                m["extra"]["returncode"]
                    .as_i64()
                    .or_else(|| return_code(&text(&m["content"])?))
            });
            let failing = code.filter(|&c| c != 0);
            if failing.is_some() && failed.is_none() {
                failed = Some(output.clone());
            }
            commands.push(command.clone());
            prints.push(output.clone());
            // A command that failed keeps its output and its exit status.
            let result = match failing {
                Some(status) => json!({"output": output, "exit_status": status}),
                None => json!(output),
            };
            tool_calls.push(json!({
                "name": name,
                "args": {"command": command},
                "result": result,
            }));
        }
        let mut raw = String::new();
        if let Some(reasoning) = message["reasoning_content"].as_str() {
            raw.push_str(reasoning);
            raw.push_str("\n\n");
        }
        raw.push_str(&text(&message["content"]).unwrap_or_default());
        let error = if calls.is_empty() {
            let why = messages
                .get(at + 1)
                .filter(|m| m["role"] == "user")
                .and_then(|m| text(&m["content"]))
                .unwrap_or_else(|| "the response gave no command".to_owned());
            Some(json!({"reason": "format_error", "message": why}))
        } else {
            failed.map(|output| json!({"reason": "exit_status", "message": output}))
        };
        let mut turn = json!({
            "number": number,
            "raw_response": raw,
            "program": if commands.is_empty() { Json::Null } else { json!(commands.join("\n")) },
            "success": error.is_none(),
            "prints": prints,
            "tool_calls": tool_calls,
            "request": request(sent, &messages[sent..at], model.clone(), reasoning_sent),
        });
        if let Some(error) = error {
            turn["error"] = error;
        }
        if let Some(at) = message["extra"]["timestamp"].as_f64().filter(|t| *t >= 0.0) {
            turn["started_at"] = json!(at);
        }
        let usage = usage(
            &message["extra"]["response"]["usage"],
            &format!("messages[{at}].extra.response.usage"),
            provider.as_deref(),
            model.as_deref(),
        )
        .map_err(|e| bad(path, None, e.into()))?;
        match usage {
            Some(usage) => turn["usage"] = usage,
            None => {
                if !lacks.contains(&Lack::Usage) {
                    lacks.push(Lack::Usage);
                }
            }
        }
        turns.push(turn);
        sent = at;
    }
    if turns.is_empty() {
        return Err(bad(
            path,
            None,
            ImportError::NoResponse {
                looked_for: "an `assistant` message",
            },
        ));
    }
    let count = turns.len();
    let step_limit = trajectory["info"]["config"]["agent"]["step_limit"]
        .as_u64()
        .filter(|&n| n > 0)
        .and_then(|n| u32::try_from(n).ok());
    let max_turns = turn_budget(supplied.max_turns.or(step_limit), count, &mut lacks);
    let mut recording = json!({
        "mission": mission,
        "literal_mission": true,
        "max_turns": max_turns,
        "tools": [{"name": "bash", "description": "Run a shell command"}],
        "turns": turns,
        "lacks": lacks,
    });
    if let Some(system) = messages
        .first()
        .filter(|m| m["role"] == "system")
        .and_then(|m| text(&m["content"]))
    {
        recording["system_prompt"] = json!(system);
    }
    Ok(Imported {
        json: recording,
        text: String::new(),
        turns: count,
        losses: Losses::default(),
        version: 1,
        default_max_turns: false,
        part: None,
    })
}

/// The commands of the response `messages[at]`, each with the tool it went through, and the
/// message answering each (none when the trajectory holds none). `text_blocks`: the format
/// whose model writes one ```` ```bash ```` block, more or fewer being a format error.
fn commands(
    messages: &[Json],
    at: usize,
    text_blocks: bool,
) -> (Vec<(String, String)>, Vec<Option<&Json>>) {
    let message = &messages[at];
    let after = &messages[at + 1..];
    if let Some(calls) = message["tool_calls"].as_array().filter(|c| !c.is_empty()) {
        let replies: Vec<&Json> = after.iter().take_while(|m| m["role"] == "tool").collect();
        return calls
            .iter()
            .map(|call| {
                let arguments: Json = call["function"]["arguments"]
                    .as_str()
                    .and_then(|a| serde_json::from_str(a).ok())
                    .unwrap_or(Json::Null);
                let name = call["function"]["name"]
                    .as_str()
                    .unwrap_or("bash")
                    .to_owned();
                let command = arguments["command"].as_str().unwrap_or("").to_owned();
                let id = call["id"].as_str();
                let answer = replies
                    .iter()
                    .copied()
                    .find(|m| m["tool_call_id"].as_str() == id);
                ((name, command), answer)
            })
            .unzip();
    }
    let commands: Vec<String> = match message["extra"]["actions"].as_array() {
        Some(actions) => actions
            .iter()
            .filter_map(|a| a["command"].as_str().map(str::to_owned))
            .collect(),
        None if text_blocks => {
            let blocks = bash_blocks(&text(&message["content"]).unwrap_or_default());
            if blocks.len() == 1 {
                blocks
            } else {
                Vec::new()
            }
        }
        None => Vec::new(),
    };
    // A text action's output comes back in the `user` (or `tool`) messages after it.
    let replies: Vec<&Json> = after
        .iter()
        .take_while(|m| m["role"] == "user" || m["role"] == "tool")
        .collect();
    commands
        .into_iter()
        .enumerate()
        .map(|(i, command)| (("bash".to_owned(), command), replies.get(i).copied()))
        .unzip()
}

/// The contents of the ```` ```bash ```` (or ```` ```mswea_bash_command ````) blocks of a text.
fn bash_blocks(text: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find("```") {
        let after = &rest[open + 3..];
        let Some(newline) = after.find('\n') else {
            break;
        };
        let tag = after[..newline].trim();
        let body = &after[newline + 1..];
        // The closing fence starts a line: the block's text is what comes before that line.
        let (close, end) = match body.find("\n```") {
            Some(close) => (close, close + 4),
            None if body.starts_with("```") => (0, 3),
            None => break,
        };
        if tag == "bash" || tag == "mswea_bash_command" {
            blocks.push(body[..close].to_owned());
        }
        rest = &body[end..];
    }
    blocks
}

/// A message's text: a string as it is, or its text parts one after the other (as a client
/// marking a cache breakpoint sends them, `[{"type": "text", "text": …, "cache_control": …}]`,
/// and as the request holds them); none for anything else.
fn text(content: &Json) -> Option<String> {
    match content {
        Json::String(text) => Some(text.clone()),
        Json::Array(parts) if parts.iter().all(|p| p["text"].is_string()) => {
            Some(parts.iter().filter_map(|p| p["text"].as_str()).collect())
        }
        _ => None,
    }
}

/// The `<returncode>N</returncode>` of an observation's text.
fn return_code(text: &str) -> Option<i64> {
    let start = text.find("<returncode>")? + "<returncode>".len();
    let end = text[start..].find("</returncode>")? + start;
    text[start..end].trim().parse().ok()
}

/// The messages sent before a response, as sent: the `repeats` the previous request sent,
/// then `added` (with the reasoning of each assistant message when `reasoning_sent`).
fn request(repeats: usize, added: &[Json], model: Option<String>, reasoning_sent: bool) -> Json {
    // A tool call as litellm gives it: `{id, function{name, arguments}}`, the arguments as text.
    let messages = added
        .iter()
        .map(|m| {
            let mut message = request_message(m, |c| RequestToolCallJson {
                id: c["id"].as_str().map(str::to_owned),
                name: c["function"]["name"].as_str().unwrap_or("").to_owned(),
                arguments: c["function"]["arguments"].as_str().unwrap_or("").to_owned(),
            });
            if reasoning_sent && m["role"] == "assistant" {
                message.reasoning = m["reasoning_content"].as_str().map(str::to_owned);
            }
            message
        })
        .collect();
    serde_json::to_value(RequestJson {
        repeats,
        model,
        system: None,
        messages,
        tools: None,
        rebuilt: false,
        inferred_prefix_tokens: None,
    })
    .expect("a request serializes")
}

/// litellm's usage of one response in ptc's convention (`at`: where the trajectory holds it);
/// none without token counts; an error naming the field when a count is not one.
fn usage(
    usage: &Json,
    at: &str,
    provider: Option<&str>,
    model: Option<&str>,
) -> Result<Option<Json>, CountError> {
    let number = |name: &str| count(&usage[name], &format!("{at}.{name}"));
    let Some(prompt) = number("prompt_tokens")? else {
        return Ok(None);
    };
    let mut out = match (
        number("prompt_cache_hit_tokens")?,
        number("prompt_cache_miss_tokens")?,
    ) {
        // DeepSeek: hit + miss = prompt.
        (Some(hit), Some(miss)) if hit.checked_add(miss) == Some(prompt) => json!({
            "input": miss,
            "cache_read": hit,
            "output": number("completion_tokens")?.unwrap_or(0),
        }),
        // OpenAI's cached tokens, Anthropic's reads and writes.
        _ => match super::litellm_usage(usage, at)? {
            Some(usage) => usage,
            None => return Ok(None),
        },
    };
    if let Some(provider) = provider {
        out["provider"] = json!(provider);
    }
    if let Some(model) = model {
        out["model"] = json!(model);
    }
    Ok(Some(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deepseek_hits_are_the_cache_reads_and_no_cost_is_kept() {
        let u = usage(
            &json!({"prompt_tokens": 1995, "completion_tokens": 93, "prompt_cache_hit_tokens": 320, "prompt_cache_miss_tokens": 1675, "prompt_tokens_details": {"cached_tokens": 320}}),
            "u",
            Some("deepseek"),
            None,
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            (u["input"].as_u64(), u["cache_read"].as_u64()),
            (Some(1675), Some(320))
        );
        assert!(u.get("cost_usd").is_none());
        let other = usage(
            &json!({"prompt_tokens": 100, "prompt_tokens_details": {"cached_tokens": 64}}),
            "u",
            None,
            None,
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            (other["input"].as_u64(), other["cache_read"].as_u64()),
            (Some(36), Some(64))
        );
        assert!(usage(
            &json!({"prompt_tokens": 10, "prompt_tokens_details": {"cached_tokens": 11}}),
            "u",
            None,
            None
        )
        .is_err());
        // Anthropic through litellm: `prompt_tokens` holds the reads and the writes, which
        // are kept apart (a write with no TTL given counts as 5 minutes).
        let claude = usage(
            &json!({"prompt_tokens": 5000, "completion_tokens": 80, "prompt_tokens_details": {"cached_tokens": 3000}, "cache_read_input_tokens": 3000, "cache_creation_input_tokens": 1900}),
            "u",
            Some("anthropic"),
            Some("claude-sonnet-4-5"),
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            (
                claude["input"].as_u64(),
                claude["cache_read"].as_u64(),
                claude["cache_write_5m"].as_u64()
            ),
            (Some(100), Some(3000), Some(1900))
        );
        // An older litellm left the writes out of `prompt_tokens`: reads + writes are more
        // than it, so it holds the uncached input and the reads only.
        let older = usage(
            &json!({"prompt_tokens": 3100, "completion_tokens": 80, "cache_read_input_tokens": 3000, "cache_creation_input_tokens": 1900}),
            "u",
            Some("anthropic"),
            None,
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            (
                older["input"].as_u64(),
                older["cache_read"].as_u64(),
                older["cache_write_5m"].as_u64()
            ),
            (Some(100), Some(3000), Some(1900))
        );
    }

    #[test]
    fn text_actions_are_read_from_their_fenced_blocks_and_return_codes() {
        assert_eq!(
            bash_blocks("THOUGHT: look.\n\n```bash\nls -la\n```\nthen\n```python\nx\n```"),
            vec!["ls -la".to_owned()]
        );
        assert_eq!(
            bash_blocks("```mswea_bash_command\ncd a &&\n  make\n```"),
            vec!["cd a &&\n  make".to_owned()]
        );
        assert_eq!(bash_blocks("```bash\na\n```\n```bash\nb\n```").len(), 2);
        assert!(bash_blocks("no block, or one ```bash\nnever closed").is_empty());
        assert_eq!(
            return_code("<returncode>-1</returncode>\n<output>"),
            Some(-1)
        );
        assert_eq!(return_code("<output>no code</output>"), None);
    }
}
