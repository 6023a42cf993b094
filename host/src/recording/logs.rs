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
/// A file that is neither a log of a known format nor mentions a recording's keys is one run
/// that cannot be read, saying which formats there are (not a warning per line of it).
pub(crate) fn runs(path: &Path, defaults: &RecordingDefaults) -> Option<Vec<Source>> {
    let start = start_of(path)?;
    if has_key(&start, "mission") && (has_key(&start, "turns") || start.len() >= START) {
        return None;
    }
    let Some(format) = Format::detect(path) else {
        if has_key(&start, "mission") || has_key(&start, "turns") {
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

/// How much of a file is looked at for a recording's keys.
const START: usize = 8 << 10;

/// The file's first 8 KiB as text (a recording holds `mission` and `turns` as keys there), or
/// `None` when it cannot be read: then it is read as a recording, which says why it cannot.
fn start_of(path: &Path) -> Option<String> {
    let mut prefix = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(START as u64).read_to_end(&mut prefix))
        .ok()?;
    Some(String::from_utf8_lossy(&prefix).into_owned())
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
