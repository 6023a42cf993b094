//! Agents' logs found in a corpus. A file that is a recording, or a JSONL corpus of them, is
//! read as one; a file that is the log of a format `ptc import` reads is imported when it is
//! listed, and each of its runs is a recording named after the log (and which of its runs it
//! is). A log that cannot be imported is one recording that cannot be read, with the reason.

use std::io::Read;
use std::path::Path;
use std::sync::Arc;

use crate::recording::corpus::Source;
use crate::recording::import::{read_log, Format, Supplied};
use crate::recording::RecordingDefaults;

/// The runs of the log at `path`, or `None` when `path` is a recording or a corpus of them.
/// A JSONL file that is neither a log of a known format nor a corpus of recordings (its first
/// line is an object with neither `mission` nor `turns`) is one run that cannot be read, saying
/// which formats there are: not a warning per line of it.
pub(crate) fn runs(path: &Path, defaults: &RecordingDefaults) -> Option<Vec<Source>> {
    if looks_like_a_recording(path) {
        return None;
    }
    let Some(format) = Format::detect(path) else {
        if !first_line_is_no_recording(path) {
            return None;
        }
        let error = match read_log(path, None, defaults, &Supplied::default()) {
            Err(error) => error.to_string(),
            Ok(_) => return None,
        };
        return Some(vec![Source::Log {
            name: Arc::from(path.display().to_string()),
            run: Err(Arc::from(error)),
        }]);
    };
    let runs = match read_log(path, Some(format), defaults, &Supplied::default()) {
        Ok((_, imported)) => imported
            .into_iter()
            .map(|run| Source::Log {
                name: Arc::from(run.json["name"].as_str().unwrap_or_default()),
                run: Ok(Arc::from(run.json.to_string())),
            })
            .collect(),
        Err(error) => vec![Source::Log {
            name: Arc::from(path.display().to_string()),
            run: Err(Arc::from(error.to_string())),
        }],
    };
    Some(runs)
}

/// Whether the file's first 8 KiB hold the keys every recording has (`mission` and `turns`,
/// as keys: not inside a string, where their quotes would be escaped).
fn looks_like_a_recording(path: &Path) -> bool {
    let mut prefix = Vec::new();
    let read = std::fs::File::open(path).and_then(|f| f.take(8 << 10).read_to_end(&mut prefix));
    if read.is_err() {
        return false;
    }
    let text = String::from_utf8_lossy(&prefix);
    has_key(&text, "mission") && (has_key(&text, "turns") || prefix.len() == 8 << 10)
}

/// Whether `path` is a JSONL file whose first line (within 1 MiB) is a JSON object with neither
/// of a recording's `mission` and `turns` at its top level.
fn first_line_is_no_recording(path: &Path) -> bool {
    use std::io::BufRead;
    if path.extension().and_then(|e| e.to_str()) != Some("jsonl") {
        return false;
    }
    let Ok(file) = std::fs::File::open(path) else {
        return false;
    };
    let mut line = Vec::new();
    let read = std::io::BufReader::new(file.take(1 << 20)).read_until(b'\n', &mut line);
    if read.is_err() || line.last() != Some(&b'\n') {
        return false;
    }
    match serde_json::from_slice::<serde_json::Value>(&line) {
        Ok(serde_json::Value::Object(object)) => {
            !object.contains_key("mission") && !object.contains_key("turns")
        }
        _ => false,
    }
}

/// Whether `text` holds `"key"` followed by a colon, its first quote not escaped.
fn has_key(text: &str, key: &str) -> bool {
    let quoted = format!("\"{key}\"");
    text.match_indices(&quoted).any(|(at, _)| {
        let escaped = text[..at].ends_with('\\');
        let after = text[at + quoted.len()..].trim_start();
        !escaped && after.starts_with(':')
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_told_from_the_same_word_in_a_string() {
        assert!(has_key(r#"{"mission": "x", "turns": []}"#, "turns"));
        assert!(has_key("{\n  \"turns\" : []", "turns"));
        assert!(!has_key(r#"{"text": "the \"turns\": 3"}"#, "turns"));
        assert!(!has_key(r#"{"turns_left": 3}"#, "turns"));
    }
}
