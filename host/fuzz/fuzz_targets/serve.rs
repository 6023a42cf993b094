//! `ptc serve --stdio` on arbitrary bytes: every request line gets exactly one answer line,
//! a JSON object with an `id`, and the server goes on; it never panics or stops early. The
//! request limit is small so that over-long lines are exercised too.
#![no_main]

#[path = "linked.rs"]
mod linked;

use libfuzzer_sys::fuzz_target;
use ptc::{Config, Host};

/// The limit given to the server, as `--max-request-bytes`.
const LIMIT: usize = 4096;

/// How many answers the server owes for `data`: one per line, except lines that are valid
/// UTF-8 and blank (over-long lines are answered whatever they hold).
fn owed(data: &[u8]) -> usize {
    let mut lines: Vec<&[u8]> = data.split(|&b| b == b'\n').collect();
    if lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    lines
        .iter()
        .filter(|line| {
            line.len() > LIMIT
                || std::str::from_utf8(line).map_or(true, |text| !text.trim().is_empty())
        })
        .count()
}

fuzz_target!(|data: &[u8]| {
    let mut config = Config::defaults();
    for set in [
        "plugins.next_to_executable=false",
        "templates.directory=/nonexistent/ptc-fuzz-templates",
    ] {
        config.layer_set(set).expect("a valid --set");
    }
    let host = Host::with_strategies(config, linked::loaded());
    let mut output = Vec::new();
    ptc::serve::serve(&host, data, &mut output, LIMIT).expect("the server answers every line");
    let text = std::str::from_utf8(&output).expect("answers are UTF-8");
    let answers: Vec<&str> = text.lines().collect();
    assert_eq!(answers.len(), owed(data), "one answer per request line");
    for answer in answers {
        let value: serde_json::Value = serde_json::from_str(answer).expect("an answer is JSON");
        assert!(
            value.get("id").is_some(),
            "every answer has an id: {answer}"
        );
    }
});
