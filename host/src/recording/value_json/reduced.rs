//! Each turn of a recording writes its whole memory again, most of it as the turn before
//! did, and serde_json has to go through every byte of an entry to find where it ends, even
//! when [`super::repeated`] then takes its value from the turn before. [`reduce`] finds the
//! entries of `data` and of each `memory` first, following strings and brackets, and compares
//! each with the previous object's entry of the same name as bytes: an entry whose text starts
//! with that text, followed by the end of the entry (`,` or `}`), is that text. When some entry
//! repeats one before it, the recording is read from a copy in which the value of every entry
//! of these objects is written `0` ([`Reduced::text`]); the reading takes the text of each of
//! these `0`s from [`Replaced::text_of`] and goes on as with any entry (compared with the entry
//! before, read if it differs). An entry that repeats is then not gone through at all, and one
//! that changed is gone through once, as it is read, rather than a first time to find its end.
//!
//! [`reduce`] checks nothing as JSON: it follows strings and brackets to find the objects.
//! The copy is checked as JSON as it is read, every text that changed is read whole (its end
//! included) from its own text, and every text that repeats is, byte for byte, the text of an
//! entry before it, checked where it is written out. A text not laid out as a recording is not
//! reduced; a recording whose copy fails to read is read from its own text.

use std::ops::Range;

use rustc_hash::FxHashMap;

/// A recording's text with the values of the entries of its objects of named values written
/// `0`, and what each was.
pub(crate) struct Reduced {
    /// The text to read.
    pub text: Vec<u8>,
    pub replaced: Replaced,
}

/// The values [`Reduced::text`] writes `0`: every entry of `data` and of each `memory`.
pub(crate) struct Replaced {
    /// Where [`Reduced::text`] starts in memory (its buffer does not move with it).
    base: usize,
    /// The replaced values, by where their `0` is in the text: the range of their own text in
    /// `texts`. In the order of the text.
    spans: Vec<(usize, Range<usize>)>,
    /// The replaced values' texts, one after the other.
    texts: String,
}

impl Replaced {
    /// The text of the value replaced by `written`, when `written` is one of the `0`s of
    /// [`Reduced::text`] (a slice of it, as the reader lends it).
    pub fn text_of(&self, written: &str) -> Option<&str> {
        if written != "0" {
            return None;
        }
        let at = (written.as_ptr() as usize).checked_sub(self.base)?;
        let i = self.spans.binary_search_by_key(&at, |(at, _)| *at).ok()?;
        Some(&self.texts[self.spans[i].1.clone()])
    }
}

/// The recording `bytes` with the entries of its objects of named values written `0`; `None`
/// when none repeats the previous such object's entry of its name, or when its text is not
/// laid out as a recording is (then it is read as it is).
pub(crate) fn reduce(bytes: &[u8]) -> Option<Reduced> {
    // Without two memories there is nothing to repeat: a recording of an agent without one
    // is not gone through.
    let mut memories = memchr::memmem::find_iter(bytes, b"\"memory\"");
    memories.next()?;
    memories.next()?;
    let mut walk = Walk {
        b: bytes,
        i: 0,
        previous: FxHashMap::default(),
        entries: Vec::new(),
        repeated: false,
    };
    walk.recording()?;
    if !walk.repeated {
        return None;
    }
    let mut reduced = Vec::with_capacity(bytes.len());
    let mut spans = Vec::with_capacity(walk.entries.len());
    let mut texts = Vec::with_capacity(walk.entries.iter().map(|span| span.len()).sum());
    let mut from = 0;
    for span in walk.entries {
        reduced.extend_from_slice(&bytes[from..span.start]);
        let start = texts.len();
        texts.extend_from_slice(&bytes[span.clone()]);
        spans.push((reduced.len(), start..texts.len()));
        reduced.push(b'0');
        from = span.end;
    }
    reduced.extend_from_slice(&bytes[from..]);
    let base = reduced.as_ptr() as usize;
    // The rest of the text is checked as it is read.
    let texts = String::from_utf8(texts).ok()?;
    Some(Reduced {
        text: reduced,
        replaced: Replaced { base, spans, texts },
    })
}

/// Goes through a recording's text, finding the values of its objects of named values and
/// whether any repeats the entry before it.
struct Walk<'a> {
    b: &'a [u8],
    i: usize,
    /// The previous object of named values: the text of each entry, by its name as written.
    previous: FxHashMap<&'a [u8], &'a [u8]>,
    /// The values of the entries of objects of named values, in order.
    entries: Vec<Range<usize>>,
    /// Whether an entry repeats the previous object's entry of its name.
    repeated: bool,
}

impl<'a> Walk<'a> {
    /// The recording: an object whose `data` and whose turns' `memory` are objects of named
    /// values.
    fn recording(&mut self) -> Option<()> {
        self.object(|walk, key| match key {
            b"data" => walk.named(),
            b"turns" => walk.turns(),
            _ => walk.value(),
        })?;
        self.space();
        (self.i == self.b.len()).then_some(())
    }

    fn turns(&mut self) -> Option<()> {
        self.array(|walk| {
            if walk.peek()? != b'{' {
                return walk.value();
            }
            walk.object(|walk, key| match key {
                b"memory" => walk.named(),
                _ => walk.value(),
            })
        })
    }

    /// An object of named values: the value of each entry is noted, and whether it repeats the
    /// previous such object's entry of the same name, followed by the end of the entry (then it
    /// is not gone through); the object is then the previous one.
    fn named(&mut self) -> Option<()> {
        if self.peek()? != b'{' {
            return self.value();
        }
        let mut entries = FxHashMap::default();
        self.object(|walk, key| {
            let start = walk.i;
            match walk.previous.get(key).copied() {
                Some(before) if walk.repeats(start, before) => {
                    walk.i = start + before.len();
                    walk.repeated = true;
                }
                _ => walk.value()?,
            }
            walk.entries.push(start..walk.i);
            entries.insert(key, &walk.b[start..walk.i]);
            Some(())
        })?;
        self.previous = entries;
        Some(())
    }

    /// Whether the text at `at` is `before` followed by the end of an entry.
    fn repeats(&self, at: usize, before: &[u8]) -> bool {
        let Some(rest) = self.b[at..].strip_prefix(before) else {
            return false;
        };
        let end = rest.iter().find(|&&b| !is_space(b));
        matches!(end, Some(b',' | b'}'))
    }

    /// An object, each entry's value gone through by `entry` (given its name as written),
    /// which starts at the value.
    fn object(&mut self, mut entry: impl FnMut(&mut Self, &'a [u8]) -> Option<()>) -> Option<()> {
        self.items(b'{', b'}', |walk| {
            let key = walk.string()?;
            walk.space();
            walk.expect(b':')?;
            walk.space();
            entry(walk, &walk.b[key])
        })
    }

    /// An array, each element gone through by `element`, which starts at the element.
    fn array(&mut self, element: impl FnMut(&mut Self) -> Option<()>) -> Option<()> {
        self.items(b'[', b']', element)
    }

    /// What `open` and `close` enclose, items separated by commas, each gone through by
    /// `item`, which starts at the item.
    fn items(
        &mut self,
        open: u8,
        close: u8,
        mut item: impl FnMut(&mut Self) -> Option<()>,
    ) -> Option<()> {
        self.expect(open)?;
        self.space();
        if self.peek()? == close {
            self.i += 1;
            return Some(());
        }
        loop {
            self.space();
            item(self)?;
            self.space();
            match self.next()? {
                b',' => {}
                b if b == close => return Some(()),
                _ => return None,
            }
        }
    }

    /// Any value: a string, a container (to its closing bracket, as JSON nests them) or
    /// anything else (to the next byte that ends a value).
    fn value(&mut self) -> Option<()> {
        match self.peek()? {
            b'"' => self.string().map(drop),
            open @ (b'{' | b'[') => {
                // In JSON, brackets of the other kind nest inside: only this kind is counted.
                let close = if open == b'{' { b'}' } else { b']' };
                let mut depth = 0usize;
                loop {
                    self.i += memchr::memchr3(b'"', open, close, &self.b[self.i..])?;
                    match self.b[self.i] {
                        b'"' => {
                            self.string()?;
                            continue;
                        }
                        b if b == open => depth += 1,
                        _ => {
                            depth -= 1;
                            if depth == 0 {
                                self.i += 1;
                                return Some(());
                            }
                        }
                    }
                    self.i += 1;
                }
            }
            _ => {
                let start = self.i;
                while let Some(b) = self.peek() {
                    if matches!(b, b',' | b'}' | b']') || is_space(b) {
                        break;
                    }
                    self.i += 1;
                }
                (self.i > start).then_some(())
            }
        }
    }

    /// A string: what is between its quotes, as written.
    fn string(&mut self) -> Option<Range<usize>> {
        self.expect(b'"')?;
        let start = self.i;
        loop {
            let at = self.i + memchr::memchr2(b'"', b'\\', &self.b[self.i..])?;
            if self.b[at] == b'"' {
                self.i = at + 1;
                return Some(start..at);
            }
            self.i = at + 2;
        }
    }

    fn space(&mut self) {
        while self.peek().is_some_and(is_space) {
            self.i += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn next(&mut self) -> Option<u8> {
        let b = self.peek()?;
        self.i += 1;
        Some(b)
    }

    fn expect(&mut self, b: u8) -> Option<()> {
        (self.next()? == b).then_some(())
    }
}

/// Whether `b` is whitespace between JSON tokens.
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\n' | b'\r' | b'\t')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recording::value_json::NamedValues;

    fn replaced(text: &str) -> Vec<String> {
        let Some(reduced) = reduce(text.as_bytes()) else {
            return Vec::new();
        };
        let replaced = &reduced.replaced;
        replaced
            .spans
            .iter()
            .map(|(at, _)| {
                let written = std::str::from_utf8(&reduced.text[*at..*at + 1]).unwrap();
                replaced.text_of(written).unwrap().to_owned()
            })
            .collect()
    }

    #[test]
    fn every_entry_is_replaced_when_one_is_written_again_as_before() {
        let text = r#"{"data": {"a": [1, "x]"]}, "turns": [
            {"memory": {"a": [1, "x]"], "n": 1, "s": "q\"}"}},
            {"program": "{", "memory": {"s": "q\"}", "n": 12, "a": [1, "x]"] }},
            {"memory": {"n": 12.5, "a": [1, "x]"],"s":"q\"}"}}
        ]}"#;
        let (a, s) = (r#"[1, "x]"]"#, r#""q\"}""#);
        assert_eq!(replaced(text), [a, a, "1", s, s, "12", a, "12.5", a, s]);
        let reduced = reduce(text.as_bytes()).unwrap();
        // What is read instead: the same text but for the values replaced.
        let read: serde_json::Value = serde_json::from_slice(&reduced.text).unwrap();
        assert_eq!(read["turns"][0]["program"], serde_json::Value::Null);
        assert_eq!(read["turns"][1]["program"], "{");
        for turn in 0..3 {
            for name in ["a", "n", "s"] {
                assert_eq!(read["turns"][turn]["memory"][name], 0, "{turn} {name}");
            }
        }
    }

    /// A changed entry that the walk takes for a value but that is not JSON: the copy is read,
    /// that entry read from its text fails, and the recording is an error where it is wrong.
    /// One whose string is not UTF-8: the recording is not reduced, and is an error there too.
    #[test]
    fn a_changed_entry_that_is_not_json_is_an_error_at_its_place() {
        let recording = |b: &[u8]| {
            let mut text = br#"{"mission": "m", "data": {}, "turns": [
            {"number": 1, "memory": {"a": [1, 2], "b": 1}, "success": true},
            {"number": 2, "memory": {"a": [1, 2], "b": "#
                .to_vec();
            text.extend_from_slice(b);
            text.extend_from_slice(b"}, \"success\": true}]}");
            text
        };
        let defaults = crate::recording::RecordingDefaults {
            max_turns: 50,
            system_prompt: String::new(),
            max_recording_bytes: crate::recording::DEFAULT_MAX_RECORDING_BYTES,
        };
        let read = |text: &[u8]| {
            crate::recording::Recording::parse(text, std::path::Path::new("r.json"), &defaults)
                .map(drop)
        };
        assert!(read(&recording(b"[1]")).is_ok());
        for (bad, reduced) in [(&b"[1, }]"[..], true), (b"\"\xff\"", false)] {
            let text = recording(bad);
            assert_eq!(reduce(&text).is_some(), reduced);
            let err = read(&text).unwrap_err().to_string();
            assert!(err.contains("r.json:3:"), "{err}");
        }
    }

    #[test]
    fn a_text_not_laid_out_as_a_recording_is_not_reduced() {
        for text in [
            r#"{"turns": [{"memory": {"a": 1}}, {"memory": {"a": 1}}]"#,
            r#"{"turns": [{"memory": {"a": 1}}, {"memory": {"a": 1}}]} x"#,
            r#"{"turns": [{"memory": {"a": 1}}, {"memory": {"a" 1}}]}"#,
            r#"[{"memory": {"a": 1}}, {"memory": {"a": 1}}]"#,
            r#"{"turns": [{"memory": {"a": 1}}, {"memory": {"b": 1}}]}"#,
            r#"{"turns": [{"memory": {"a": 1}}, {"memory": {"a": 12}}]}"#,
            r#"{"turns": [{"memory": {"a": 1}}], "memory": {"a": 1}}"#,
        ] {
            assert!(reduce(text.as_bytes()).is_none(), "{text}");
        }
    }

    /// Values whose texts start alike, hold brackets and quotes in strings, or nest.
    const VALUES: [&str; 12] = [
        "1",
        "12",
        "12.5",
        "-0",
        "true",
        "null",
        r#""x""#,
        r#""x\"}""#,
        r#""é]""#,
        r#"[1, "]"]"#,
        r#"{"k": [1, {"$set": [2]}], "}": "{"}"#,
        r#"{"$kw": "kw"}"#,
    ];

    proptest::proptest! {
        /// Memories whose entries repeat, change, move and come and go, written with varied
        /// space: what the recording reads is what each object reads alone.
        #[test]
        fn a_recording_reads_as_its_objects_read_alone(
            objects in proptest::collection::vec(
                proptest::collection::vec((0..4usize, 0..VALUES.len(), 0..3usize), 0..6),
                1..7,
            ),
        ) {
            const NAMES: [&str; 4] = ["a", "b", "ab", "a\\u0062"];
            const SPACE: [&str; 3] = ["", " ", "\n  "];
            let texts: Vec<String> = objects
                .iter()
                .map(|entries| {
                    let entries: Vec<String> = entries
                        .iter()
                        .map(|&(name, value, space)| {
                            let space = SPACE[space];
                            format!("{space}\"{}\"{space}:{space}{}{space}", NAMES[name], VALUES[value])
                        })
                        .collect();
                    format!("{{{}}}", entries.join(","))
                })
                .collect();
            let turns: Vec<String> = texts[1..]
                .iter()
                .enumerate()
                .map(|(i, memory)| format!(r#"{{"number": {}, "memory": {memory}, "success": true}}"#, i + 1))
                .collect();
            let recording = format!(
                r#"{{"mission": "m", "data": {}, "turns": [{}]}}"#,
                texts[0],
                turns.join(", ")
            );
            let alone: Result<Vec<NamedValues>, _> =
                serde_json::from_str(&format!("[{}]", texts.join(",")));
            let defaults = crate::recording::RecordingDefaults {
                max_turns: 50,
                system_prompt: String::new(),
                max_recording_bytes: crate::recording::DEFAULT_MAX_RECORDING_BYTES,
            };
            let read = crate::recording::Recording::parse(
                recording.as_bytes(),
                std::path::Path::new("r.json"),
                &defaults,
            );
            match (alone, read) {
                (Ok(alone), Ok(read)) => {
                    for (turn, alone) in read.turns.iter().zip(&alone[1..]) {
                        let memory: Vec<(&str, &ptc_plugin_api::Value)> =
                            turn.memory.iter().map(|e| (e.0.as_str(), &*e.1)).collect();
                        let alone: Vec<(&str, &ptc_plugin_api::Value)> =
                            alone.0.iter().map(|(n, v)| (n.as_str(), &**v)).collect();
                        proptest::prop_assert_eq!(memory, alone);
                    }
                }
                (Err(_), Err(_)) => {}
                (alone, read) => proptest::prop_assert!(
                    false,
                    "alone: {:?}, in the recording: {:?}",
                    alone.map(drop),
                    read.map(drop).map_err(|e| e.to_string())
                ),
            }
        }
    }
}
