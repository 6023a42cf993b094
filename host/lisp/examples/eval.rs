//! Evaluates PTC-Lisp programs, one per input line, and prints what each did as one JSON line:
//! `cargo run -p ptc-lisp --example eval < programs.jsonl`.
//!
//! Each input line is a JSON object `{"id": ..., "program": "..."}`; each output line is
//! `{"id", "status": "ok" | "return" | "fail" | "error", "value": pr-str of the value (or of
//! what `return`/`fail` carried), "error": the error kind, "prints": the lines printed}`. Every
//! program runs in a fresh interpreter on the default budget; a capability call is refused.
//! The differential check against ptc_runner's own interpreter (`.ci/lisp-differential`) feeds
//! the same lines to both.

use std::io::{BufRead, Write};

use ptc_lisp::{pr_str, Budget, Capabilities, Interp, LispError, Outcome, Value};

struct NoCapabilities;

impl Capabilities for NoCapabilities {
    fn call(&mut self, name: &str, _args: serde_json::Value) -> Result<Value, LispError> {
        Err(LispError::new(
            "unknown_tool",
            format!("no capability answers {name}"),
        ))
    }
}

fn main() {
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    for (n, line) in stdin.lock().lines().enumerate() {
        let line = line.unwrap_or_else(|e| fail(&format!("stdin: {e}")));
        if line.trim().is_empty() {
            continue;
        }
        let input: serde_json::Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| fail(&format!("stdin line {}: {e}", n + 1)));
        let Some(program) = input.get("program").and_then(|p| p.as_str()) else {
            fail(&format!("stdin line {}: no \"program\" string", n + 1))
        };
        let turn = Interp::new().run(program, Budget::default(), Box::new(NoCapabilities));
        let (status, value, error) = match &turn.outcome {
            Outcome::Value(v) => ("ok", Some(pr_str(v)), None),
            Outcome::Return(v) => ("return", Some(pr_str(v)), None),
            Outcome::Fail(v) => ("fail", Some(pr_str(v)), None),
            Outcome::Error(e) => ("error", None, Some(e.kind.clone())),
        };
        let record = serde_json::json!({
            "id": input.get("id").cloned().unwrap_or(serde_json::Value::Null),
            "status": status,
            "value": value,
            "error": error,
            "prints": turn.prints,
        });
        writeln!(out, "{record}").unwrap_or_else(|e| fail(&format!("stdout: {e}")));
    }
}

fn fail(message: &str) -> ! {
    eprintln!("{message}");
    std::process::exit(2);
}
