//! Agents' logs found in a corpus. A file that is a recording, or a JSONL corpus of them, is
//! read as one; a file that is the log of a format `ptc import` reads is imported when it is
//! listed, and each of its runs is a recording named after the log (and which of its runs it
//! is). A log that cannot be imported is one recording that cannot be read, with the reason.

use std::io::Read;
use std::path::Path;
use std::sync::Arc;

use crate::recording::corpus::Source;
use crate::recording::format::RECORDING_KEYS;
use crate::recording::import::{read_log, Format, Supplied};
use crate::recording::RecordingDefaults;

/// Whether a file found in a directory holds no run ptc reads and is passed over: ptc_runner's
/// canonical trace, whose run is in the inspection artifact the run wrote. Named on the command
/// line, it is still a file that cannot be read, saying why.
pub use crate::recording::import::canonical_trace::{
    is_canonical_trace as passed_over, passed_over_note,
};

/// The note saying which files found in the directories of `paths` hold no run and are passed
/// over when the corpus is read with its logs (`Listing::reading_logs`), and where their
/// runs are; none when there are none.
pub fn passed_over_in(paths: &[std::path::PathBuf]) -> Option<String> {
    let files: Vec<std::path::PathBuf> = paths
        .iter()
        .filter(|path| path.is_dir())
        .filter_map(|dir| crate::recording::corpus::files_under(dir, &["json", "jsonl"]).ok())
        .flatten()
        .filter(|file| passed_over(file))
        .collect();
    passed_over_note(&files)
}

/// The runs of the log at `path`, or `None` when `path` is a recording or a corpus of them.
/// A JSONL file that is neither a log of a known format nor a corpus of recordings (its first
/// line is an object with neither `mission` nor `turns`) is one run that cannot be read, saying
/// which formats there are: not a warning per line of it.
/// Its runs are named after `shown` in place of the log's file name, when given (a name that
/// tells it from the corpus' other files of the same name).
pub(crate) fn runs(
    path: &Path,
    defaults: &RecordingDefaults,
    shown: Option<&str>,
) -> Option<Vec<Source>> {
    if looks_like_a_recording(path) {
        return None;
    }
    let Some(format) = Format::detect(path) else {
        if !first_line_is_no_recording(path) {
            return None;
        }
        let error = match read_log(path, None, defaults, &Supplied::default()) {
            Err(_) if passed_over(path) => passed_over_note(&[path.to_owned()])
                .unwrap_or_default()
                .replacen(" passed over: ", " holds no run: ", 1),
            Err(error) => error.to_string(),
            Ok(_) => return None,
        };
        return Some(vec![Source::Log {
            name: Arc::from(path.display().to_string()),
            run: Err(Arc::from(error)),
        }]);
    };
    let runs = match read_log(path, Some(format), defaults, &Supplied::default()) {
        Ok((_, mut imported)) => {
            if let Some(shown) = shown {
                crate::recording::import::name_after(&mut imported, path, shown);
            }
            imported
                .into_iter()
                .map(|run| Source::Log {
                    name: Arc::from(run.json["name"].as_str().unwrap_or_default()),
                    run: Ok(Arc::from(run.text)),
                })
                .collect()
        }
        Err(error) => vec![Source::Log {
            name: Arc::from(path.display().to_string()),
            run: Err(Arc::from(error.to_string())),
        }],
    };
    Some(runs)
}

/// Whether the file's first 8 KiB hold the keys every recording has (`mission` and `turns`,
/// as keys: not inside a string, where their quotes would be escaped), or, in a longer file
/// whose first 8 KiB do not (a large `data` written first), whether its top level has
/// `mission` after none but a recording's keys ([`mission_at_top_level`]).
fn looks_like_a_recording(path: &Path) -> bool {
    // Room for the whole prefix: read in one call, not in reads of 32 bytes and up.
    let mut prefix = Vec::with_capacity(8 << 10);
    let Ok(mut file) = std::fs::File::open(path) else {
        return false;
    };
    if (&mut file).take(8 << 10).read_to_end(&mut prefix).is_err() {
        return false;
    }
    if has_key(&prefix, "mission") && (has_key(&prefix, "turns") || prefix.len() == 8 << 10) {
        return true;
    }
    prefix.len() == 8 << 10 && prefix.trim_ascii_start().starts_with(b"{") && {
        // The first MiB, read on from the prefix into room for it, as much of it as the file
        // holds: what a read error leaves is read as it is.
        let mut json = prefix;
        let size = file.metadata().map_or(0, |m| m.len()).min(1 << 20);
        json.reserve_exact((size as usize).saturating_sub(json.len()));
        let _ = file.take((1 << 20) - (8 << 10)).read_to_end(&mut json);
        mission_at_top_level(&json)
    }
}

/// Whether the JSON object `json` holds has `mission` at its top level, read key by key while
/// every key before it is a recording's ([`RECORDING_KEYS`]): their values are checked and
/// passed over, never built, and the first other key, or the end of what `json` gives, says no.
/// A log never starts with a recording's keys, and a log of JSON lines that holds `mission`
/// holds it deeper than the top level.
fn mission_at_top_level(json: &[u8]) -> bool {
    use serde::de::{Deserializer, Error, IgnoredAny, MapAccess, Visitor};
    struct TopKeys<'a>(&'a std::cell::Cell<bool>);
    impl<'de> Visitor<'de> for TopKeys<'_> {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            while let Some(key) = map.next_key::<String>()? {
                if key == "mission" {
                    self.0.set(true);
                    // Read no further: the error ends the reading, the answer is kept.
                    return Err(A::Error::custom("found"));
                }
                if !RECORDING_KEYS.contains(&key.as_str()) {
                    return Err(A::Error::custom("not a recording's key"));
                }
                map.next_value::<IgnoredAny>()?;
            }
            Ok(())
        }
    }
    let found = std::cell::Cell::new(false);
    let _ = serde_json::Deserializer::from_slice(json).deserialize_map(TopKeys(&found));
    found.get()
}

/// Whether `path` is a JSONL file whose first line (within 1 MiB) is a JSON object with neither
/// of a recording's `mission` and `turns` at its top level.
fn first_line_is_no_recording(path: &Path) -> bool {
    crate::recording::import::first_line_object(path)
        .is_some_and(|first| first.get("mission").is_none() && first.get("turns").is_none())
}

/// Whether `text` holds `"key"` followed by a colon (after any whitespace), its first quote
/// not escaped. `text` is read as UTF-8, a byte that is not read as a character that is none
/// of these; only the characters after a match are decoded, and only past ASCII whitespace.
fn has_key(text: &[u8], key: &str) -> bool {
    let quoted = format!("\"{key}\"");
    memchr::memmem::find_iter(text, quoted.as_bytes()).any(|at| {
        let escaped = at > 0 && text[at - 1] == b'\\';
        !escaped && colon_after_whitespace(&text[at + quoted.len()..])
    })
}

/// Whether `text`, its leading whitespace left out, starts with a colon.
fn colon_after_whitespace(text: &[u8]) -> bool {
    let ascii = text
        .iter()
        .take_while(|b| b.is_ascii_whitespace() || **b == 0x0b);
    let rest = &text[ascii.count()..];
    match rest.first() {
        Some(b) if b.is_ascii() => *b == b':',
        Some(_) => String::from_utf8_lossy(rest).trim_start().starts_with(':'),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mission_is_found_at_the_top_level_after_a_recordings_keys_only() {
        let yes = |json: &str| mission_at_top_level(json.as_bytes());
        assert!(yes(
            r#"{"data": {"x": [1, {"mission": 2}]}, "tools": [], "mission": "m"}"#
        ));
        assert!(yes(r#"{"mission": "m", "turns": []}"#));
        // Deeper than the top level, after another key, past what is given, or no object.
        assert!(!yes(r#"{"data": {"mission": "m"}}"#));
        assert!(!yes(r#"{"info": {}, "mission": "m"}"#));
        assert!(!yes(r#"{"record_type": "x", "payload": {"mission": "m"}}"#));
        assert!(!yes(r#"{"data": {"big": "#));
        assert!(!yes(r#"{"data": [1,, 2], "mission": "m"}"#));
        assert!(!yes(r#"["mission"]"#));
    }

    #[test]
    fn the_keys_of_a_recording_are_those_its_schema_names() {
        let schema = crate::recording::format::schema();
        let mut named: Vec<&str> = schema["properties"]
            .as_object()
            .expect("the schema names the recording's keys")
            .keys()
            .map(String::as_str)
            .collect();
        let mut keys = RECORDING_KEYS.to_vec();
        named.sort_unstable();
        keys.sort_unstable();
        assert_eq!(keys, named);
    }

    #[test]
    fn a_key_is_told_from_the_same_word_in_a_string() {
        let has = |text: &str| has_key(text.as_bytes(), "turns");
        assert!(has(r#"{"mission": "x", "turns": []}"#));
        assert!(has("{\n  \"turns\" : []"));
        assert!(has("{\"turns\"\u{a0}\u{3000}: []"));
        assert!(has("{\"turns\"\u{b}\u{c}\r: []"));
        assert!(!has(r#"{"text": "the \"turns\": 3"}"#));
        assert!(!has(r#"{"turns_left": 3}"#));
        assert!(!has("{\"turns\" \u{e9}: []"));
        assert!(!has("{\"turns\" "));
        // A byte that is no character stands for one that is neither whitespace nor a colon.
        assert!(!has_key(b"{\"turns\" \xff: []", "turns"));
        assert!(has_key(b"\xff{\"turns\": []", "turns"));
    }

    proptest::proptest! {
        /// The bytes say what their text, bad bytes replaced, says.
        #[test]
        fn a_key_is_found_in_bytes_as_in_their_text(
            pieces in proptest::collection::vec(
                proptest::sample::select(vec![
                    &b"\"turns\""[..], b"\"", b"\\", b":", b" ", b"\n", b"\x0b", b"\x1c",
                    "\u{a0}".as_bytes(), "\u{3000}".as_bytes(), "\u{e9}".as_bytes(), b"\xff",
                    b"\xe3\x80", b"turns", b"x",
                ]),
                0..12,
            )
        ) {
            let bytes = pieces.concat();
            let text = String::from_utf8_lossy(&bytes);
            let quoted = "\"turns\"";
            let in_text = text.match_indices(quoted).any(|(at, _)| {
                !text[..at].ends_with('\\')
                    && text[at + quoted.len()..].trim_start().starts_with(':')
            });
            proptest::prop_assert_eq!(has_key(&bytes, "turns"), in_text);
        }
    }
}
