//! `ptc serve --stdio`: strategies for agents written in any language, one JSON request per line
//! on stdin, one JSON response per line on stdout.
//!
//! Request: `{"id": any, "recording": RECORDING, "turns": K, "strategy": NAME, "options": {...}}`
//! where RECORDING is the recording format with the turns so far, and `turns` (default: all),
//! `strategy` (default: the configured one) and `options` (the strategy's options) are optional.
//! Response: `{"id", "strategy", "turns", "messages": [{"role", "content"}], "stats": {...}}`, or
//! `{"id", "error": {"code", "message"}}` with code `bad_request`, `bad_recording`,
//! `unknown_strategy` or `render_failed`. A bad request gets an error response; the server goes
//! on with the next line.

use std::collections::HashMap;
use std::io::{BufRead, Write};

use serde_json::{json, Value as Json};

use crate::ab::tokens::{Counter, Tokenizer};
use crate::config::Config;
use crate::host::Host;
use crate::recording::Recording;
use crate::render::trigger::Prompter;
use crate::render::PromptView;
use crate::Error;

/// Answers requests from `input` on `output` until `input` ends.
pub fn serve(host: &Host, input: impl BufRead, mut output: impl Write) -> Result<(), Error> {
    let defaults = host.recording_defaults()?;
    let tokenizer =
        Tokenizer::from_name(host.config().ab_tokenizer()).unwrap_or(Tokenizer::O200kBase);
    let mut prompters: HashMap<String, Prompter<'_>> = HashMap::new();
    for line in input.lines() {
        let line = line.map_err(Error::Output)?;
        if line.trim().is_empty() {
            continue;
        }
        let response = answer(host, &line, &defaults, tokenizer, &mut prompters);
        let mut text = serde_json::to_string(&response).expect("JSON serializes");
        text.push('\n');
        output.write_all(text.as_bytes()).map_err(Error::Output)?;
        output.flush().map_err(Error::Output)?;
    }
    Ok(())
}

fn failure(id: &Json, code: &str, message: impl std::fmt::Display) -> Json {
    json!({"id": id, "error": {"code": code, "message": message.to_string()}})
}

fn answer<'h>(
    host: &'h Host,
    line: &str,
    defaults: &crate::recording::RecordingDefaults,
    tokenizer: Tokenizer,
    prompters: &mut HashMap<String, Prompter<'h>>,
) -> Json {
    let request: Json = match serde_json::from_str(line) {
        Ok(Json::Object(map)) => Json::Object(map),
        Ok(_) => return failure(&Json::Null, "bad_request", "a request is a JSON object"),
        Err(e) => return failure(&Json::Null, "bad_request", format!("not JSON: {e}")),
    };
    let id = request.get("id").cloned().unwrap_or(Json::Null);
    let Some(recording) = request.get("recording") else {
        return failure(&id, "bad_request", "missing \"recording\"");
    };
    let bytes = serde_json::to_vec(recording).expect("JSON serializes");
    let recording = match Recording::parse(&bytes, "request".as_ref(), defaults) {
        Ok(r) => r,
        Err(e) => return failure(&id, "bad_recording", e),
    };
    let strategy = request
        .get("strategy")
        .and_then(Json::as_str)
        .map(str::to_owned)
        .unwrap_or_else(|| host.config().strategy().to_owned());
    let options = request.get("options").cloned().unwrap_or(json!({}));
    let key = format!("{strategy}\u{0}{options}");
    if !prompters.contains_key(&key) {
        match prompter(host, &strategy, &options) {
            Ok(p) => {
                prompters.insert(key.clone(), p);
            }
            Err(e @ (Error::UnknownStrategy { .. } | Error::StrategyNotLoaded { .. })) => {
                return failure(&id, "unknown_strategy", e)
            }
            Err(e) => return failure(&id, "bad_request", e),
        }
    }
    let turns = match request.get("turns") {
        None | Some(Json::Null) => recording.turns.len(),
        Some(k) => match k.as_u64() {
            Some(k) => k as usize,
            None => {
                return failure(
                    &id,
                    "bad_request",
                    "\"turns\" must be a non-negative integer",
                )
            }
        },
    };
    let mut counter = Counter::new(tokenizer);
    match prompters[&key].render(&recording, turns, &mut counter) {
        Ok((prompt, _)) => {
            let mut response = serde_json::to_value(PromptView::from(&prompt)).expect("JSON");
            response["id"] = id;
            response
        }
        Err(e @ Error::TurnsOutOfRange { .. }) => failure(&id, "bad_request", e),
        Err(e) => failure(&id, "render_failed", e),
    }
}

/// A prompter for `strategy` with the request's `options` set for it.
fn prompter<'h>(host: &'h Host, strategy: &str, options: &Json) -> Result<Prompter<'h>, Error> {
    let mut config: Config = host.config().clone();
    if let Json::Object(options) = options {
        for (name, value) in options {
            let literal = match value {
                Json::String(s) => format!("{s:?}"),
                other => other.to_string(),
            };
            config.layer_set(&format!("strategies.{strategy}.{name}={literal}"))?;
        }
    } else if !options.is_null() {
        return Err(Error::Usage(format!(
            "\"options\" must be an object, not {options}"
        )));
    }
    let threshold = config.compress_above_tokens();
    host.prompter_with(Some(strategy), &config, threshold)
}
