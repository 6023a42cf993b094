//! Evaluates PTC-Lisp programs, one per input line, and prints what each did as one JSON line:
//! `cargo run -p ptc-lisp --example eval < programs.jsonl`.
//!
//! Each input line is a JSON object `{"id": ..., "program": "..."}`, and for a program of a
//! recorded run also `"run"`, `"preludes"` and `"calls"` (see `ptc_lisp::differential`): the
//! programs of one run share memory, in order, and their capability calls are answered from
//! the recording. Each output line is `{"id", "status": "ok" | "return" | "fail" | "error",
//! "value": pr-str of the value (or of what `return`/`fail` carried), "error": the error kind,
//! "prints": the lines printed, "calls": the capability calls made}`.
//!
//! `cargo run -p ptc-lisp --example eval -- --runs LOG...` prints instead the program lines of
//! Kernel inspection logs: every program an agent sent, in order, with the preludes and the
//! recorded calls. The differential check against ptc_runner's own interpreter
//! (`.ci/lisp-differential`) feeds the same lines to both.

use std::io::{BufRead, Write};

use ptc_lisp::differential::{program_lines, Runner};
use ptc_lisp::replay::load_inspection;
use ptc_lisp::Budget;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut out = std::io::stdout().lock();
    if args.first().map(String::as_str) == Some("--runs") {
        for path in &args[1..] {
            let text =
                std::fs::read_to_string(path).unwrap_or_else(|e| fail(&format!("{path}: {e}")));
            let run = load_inspection(&text).unwrap_or_else(|e| fail(&format!("{path}: {e}")));
            let name = std::path::Path::new(path)
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| n.split('.').next())
                .unwrap_or(path);
            for line in program_lines(name, &run) {
                writeln!(out, "{line}").unwrap_or_else(|e| fail(&format!("stdout: {e}")));
            }
        }
        return;
    }
    let mut runner = Runner::default();
    for (n, line) in std::io::stdin().lock().lines().enumerate() {
        let line = line.unwrap_or_else(|e| fail(&format!("stdin: {e}")));
        if line.trim().is_empty() {
            continue;
        }
        let record = serde_json::from_str(&line)
            .map_err(|e| e.to_string())
            .and_then(|input| runner.eval_line(&input, Budget::default()))
            .unwrap_or_else(|e| fail(&format!("stdin line {}: {e}", n + 1)));
        writeln!(out, "{record}").unwrap_or_else(|e| fail(&format!("stdout: {e}")));
    }
}

fn fail(message: &str) -> ! {
    eprintln!("{message}");
    std::process::exit(2);
}
