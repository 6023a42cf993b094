//! Places in a recording's JSON text: where each value, object member and array element starts,
//! read from the text itself (a parsed JSON value keeps no position), and the line and column of
//! a byte offset. The text is valid JSON (checked before it is scanned); on anything else the
//! scanner stops at the end of the text rather than panic.

/// What a JSON value is, from its first bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Null,
    Boolean,
    Integer,
    Float,
    String,
    Array,
    Object,
}

/// A member of an object: its key (or why the key cannot be read) and where key and value are.
pub(super) struct Member {
    pub key: Result<String, String>,
    pub key_at: usize,
    pub value_at: usize,
}

/// A JSON text, scanned without building its values.
#[derive(Clone, Copy)]
pub(super) struct Text<'a> {
    pub bytes: &'a [u8],
}

impl<'a> Text<'a> {
    fn byte(&self, i: usize) -> u8 {
        self.bytes.get(i).copied().unwrap_or(0)
    }

    /// The first byte at or after `i` that is not whitespace.
    pub fn skip_ws(&self, mut i: usize) -> usize {
        while matches!(self.byte(i), b' ' | b'\t' | b'\n' | b'\r') {
            i += 1;
        }
        i
    }

    pub fn kind(&self, at: usize) -> Kind {
        match self.byte(at) {
            b'n' => Kind::Null,
            b't' | b'f' => Kind::Boolean,
            b'"' => Kind::String,
            b'[' => Kind::Array,
            b'{' => Kind::Object,
            _ if self
                .slice(at)
                .iter()
                .any(|b| matches!(b, b'.' | b'e' | b'E')) =>
            {
                Kind::Float
            }
            _ => Kind::Integer,
        }
    }

    /// The text of the value that starts at `at`.
    pub fn slice(&self, at: usize) -> &'a [u8] {
        &self.bytes[at.min(self.bytes.len())..self.end(at)]
    }

    /// One past the end of the value that starts at `at`.
    pub fn end(&self, at: usize) -> usize {
        let len = self.bytes.len();
        match self.byte(at) {
            b'"' => self.string_end(at),
            b'{' | b'[' => {
                let mut depth = 0usize;
                let mut i = at;
                while i < len {
                    match self.bytes[i] {
                        b'"' => {
                            i = self.string_end(i);
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth -= 1;
                            if depth == 0 {
                                return i + 1;
                            }
                        }
                        _ => {}
                    }
                    i += 1;
                }
                len
            }
            _ => {
                let mut i = at;
                while i < len
                    && !matches!(
                        self.bytes[i],
                        b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'
                    )
                {
                    i += 1;
                }
                i
            }
        }
    }

    /// One past the closing quote of the string that starts at `at`.
    fn string_end(&self, at: usize) -> usize {
        let mut i = at + 1;
        while i < self.bytes.len() {
            match self.bytes[i] {
                b'\\' => i += 2,
                b'"' => return i + 1,
                _ => i += 1,
            }
        }
        self.bytes.len()
    }

    /// The members of the object that starts at `at`, in the order written.
    pub fn members(&self, at: usize) -> Vec<Member> {
        let mut members = Vec::new();
        let mut i = self.skip_ws(at + 1);
        while self.byte(i) == b'"' {
            let key_end = self.string_end(i);
            let key = serde_json::from_slice::<String>(&self.bytes[i..key_end])
                .map_err(|e| format!("the key cannot be read: {}", strip_place(&e)));
            let colon = self.skip_ws(key_end);
            let value_at = self.skip_ws(colon + 1);
            members.push(Member {
                key,
                key_at: i,
                value_at,
            });
            i = self.skip_ws(self.end(value_at));
            if self.byte(i) != b',' {
                break;
            }
            i = self.skip_ws(i + 1);
        }
        members
    }

    /// Where each element of the array that starts at `at` starts.
    pub fn elements(&self, at: usize) -> Vec<usize> {
        let mut elements = Vec::new();
        let mut i = self.skip_ws(at + 1);
        while i < self.bytes.len() && self.byte(i) != b']' {
            elements.push(i);
            i = self.skip_ws(self.end(i));
            if self.byte(i) != b',' {
                break;
            }
            i = self.skip_ws(i + 1);
        }
        elements
    }
}

/// serde_json's message without the ` at line L column C` it ends with.
pub(super) fn strip_place(err: &serde_json::Error) -> String {
    let text = err.to_string();
    let place = format!(" at line {} column {}", err.line(), err.column());
    text.strip_suffix(&place).unwrap_or(&text).to_owned()
}

/// Line and column (both from 1, the column in bytes as serde_json counts it) of byte offsets
/// in a text.
pub(super) struct Lines {
    /// Where each line after the first starts.
    starts: Vec<usize>,
}

impl Lines {
    pub fn new(bytes: &[u8]) -> Lines {
        Lines {
            starts: memchr::memchr_iter(b'\n', bytes).map(|i| i + 1).collect(),
        }
    }

    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let line = self.starts.partition_point(|&start| start <= offset);
        let start = if line == 0 { 0 } else { self.starts[line - 1] };
        (line + 1, offset - start + 1)
    }

    /// The offset of `column` on `line` (as serde_json gives them).
    pub fn offset(&self, line: usize, column: usize) -> usize {
        let start = match line {
            0 | 1 => 0,
            n => self.starts.get(n - 2).copied().unwrap_or(0),
        };
        start + column.saturating_sub(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_and_elements_are_found_in_the_text() {
        let json = br#"{"a": [1, "x]", {"b": null}], "c\"d": {"e": 1.5} }"#;
        let text = Text { bytes: json };
        let members = text.members(0);
        assert_eq!(members.len(), 2);
        assert_eq!(members[0].key.as_deref(), Ok("a"));
        assert_eq!(members[1].key.as_deref(), Ok("c\"d"));
        assert_eq!(text.slice(members[1].value_at), br#"{"e": 1.5}"#);
        let elements = text.elements(members[0].value_at);
        let kinds: Vec<Kind> = elements.iter().map(|&i| text.kind(i)).collect();
        assert_eq!(kinds, [Kind::Integer, Kind::String, Kind::Object]);
        assert_eq!(text.slice(elements[1]), br#""x]""#);
        assert!(Text { bytes: b"{}" }.members(0).is_empty());
        assert!(Text { bytes: b"[ ]" }.elements(0).is_empty());
        // Cut text ends the scan, no panic.
        assert_eq!(
            Text {
                bytes: br#"{"a": [1, "#
            }
            .members(0)
            .len(),
            1
        );
    }

    #[test]
    fn offsets_map_to_lines_and_columns() {
        let lines = Lines::new(b"ab\ncd\n\nef");
        assert_eq!(lines.line_col(0), (1, 1));
        assert_eq!(lines.line_col(4), (2, 2));
        assert_eq!(lines.line_col(6), (3, 1));
        assert_eq!(lines.line_col(8), (4, 2));
        assert_eq!(lines.offset(2, 2), 4);
        assert_eq!(lines.offset(1, 1), 0);
    }
}
