//! The first line of a JSONL log, read for the keys the formats are told by
//! ([`super::Format::detect`]): only those keys' values are built, the others are checked and
//! passed over, so that a large one-line file (a recording written on one line) is not built
//! whole only to learn that it is no log.

use std::fmt;

use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::Value as Json;

/// The top-level keys whose values the detectors of the JSONL formats read.
const KEYS: &[&str] = &[
    "record_type",
    "correlation",
    "type",
    "parentUuid",
    "sessionId",
    "leafUuid",
    "messageId",
    "payload",
    "timestamp",
    "event",
];

/// The line `text` as a JSON object holding only the [`KEYS`] it has (the last of a key
/// written twice, as serde_json keeps it), or `None` when it is no JSON object.
pub(super) fn read(text: &str) -> Option<Json> {
    serde_json::from_str::<FirstRecord>(text)
        .ok()
        .map(|record| Json::Object(record.0))
}

struct FirstRecord(serde_json::Map<String, Json>);

impl<'de> Deserialize<'de> for FirstRecord {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeysVisitor;
        impl<'de> Visitor<'de> for KeysVisitor {
            type Value = FirstRecord;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<FirstRecord, A::Error> {
                let mut kept = serde_json::Map::new();
                while let Some(key) = map.next_key::<String>()? {
                    if KEYS.contains(&key.as_str()) {
                        let value = map.next_value::<Json>()?;
                        kept.insert(key, value);
                    } else {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                Ok(FirstRecord(kept))
            }
        }
        deserializer.deserialize_map(KeysVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_keys_of_the_formats_are_kept_with_their_values() {
        let line = r#"{"data": {"big": [1, 2, 3]}, "type": "user", "sessionId": "s", "type": "assistant", "payload": {"a": [1]}}"#;
        let kept = read(line).unwrap();
        assert_eq!(
            kept,
            serde_json::json!({"type": "assistant", "sessionId": "s", "payload": {"a": [1]}})
        );
        // Every detector reads the same from it as from the whole line.
        let whole: Json = serde_json::from_str(line).unwrap();
        for key in KEYS {
            assert_eq!(kept.get(*key), whole.get(*key), "{key}");
        }
    }

    #[test]
    fn a_line_that_is_no_json_object_is_none_as_before() {
        for line in ["[1, 2]", "\"text\"", "{\"type\": ", "{} trailing", "3"] {
            let object = serde_json::from_str::<Json>(line)
                .ok()
                .filter(Json::is_object);
            assert!(object.is_none() && read(line).is_none(), "{line}");
        }
    }
}
