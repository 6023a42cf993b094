//! A PTC-Lisp value as the Kernel agent prints it (`pr-str`: `{"k" [1 2.5 :kw nil]}`), read
//! back into the recording's typed JSON (`value_json`): strings, integers, floats, booleans,
//! nil, vectors and lists, maps (string keys as object keys, keyword keys as `":name"`, any
//! other key through `$map`), keywords (`$kw`) and sets (`$set`). Text that ends inside a value
//! is [`Stop::Cut`]; a form this reader does not know (a symbol, a function, `##Inf`) is
//! [`Stop::Unknown`]: neither is ever taken for a value.

use serde_json::{json, Map, Value as Json};

use crate::recording::value_json::MAX_DEPTH;

/// Why a printed value was not read.
#[derive(Debug, PartialEq)]
pub enum Stop {
    /// The text ends inside the value.
    Cut,
    /// A form this reader does not know, or nesting deeper than a recording's values.
    Unknown,
}

/// The value printed at the start of `text`, and the bytes it takes.
pub fn read(text: &str) -> Result<(Json, usize), Stop> {
    let mut reader = Reader {
        text: text.as_bytes(),
        at: 0,
    };
    let value = reader.value(0)?;
    Ok((value, reader.at))
}

struct Reader<'a> {
    text: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn skip_space(&mut self) {
        while self
            .text
            .get(self.at)
            .is_some_and(|b| b.is_ascii_whitespace() || *b == b',')
        {
            self.at += 1;
        }
    }

    fn value(&mut self, depth: usize) -> Result<Json, Stop> {
        if depth > MAX_DEPTH {
            return Err(Stop::Unknown);
        }
        self.skip_space();
        let Some(&first) = self.text.get(self.at) else {
            return Err(Stop::Cut);
        };
        match first {
            b'"' => self.string().map(Json::String),
            b'[' | b'(' => {
                let close = if first == b'[' { b']' } else { b')' };
                self.at += 1;
                Ok(Json::Array(self.items(close, depth)?))
            }
            b'{' => {
                self.at += 1;
                let items = self.items(b'}', depth)?;
                if items.len() % 2 != 0 {
                    return Err(Stop::Unknown);
                }
                Ok(map(items))
            }
            b'#' if self.text.get(self.at + 1) == Some(&b'{') => {
                self.at += 2;
                Ok(json!({"$set": self.items(b'}', depth)?}))
            }
            _ => self.atom(),
        }
    }

    /// The values up to `close`, which is passed.
    fn items(&mut self, close: u8, depth: usize) -> Result<Vec<Json>, Stop> {
        let mut items = Vec::new();
        loop {
            self.skip_space();
            match self.text.get(self.at) {
                None => return Err(Stop::Cut),
                Some(&b) if b == close => {
                    self.at += 1;
                    return Ok(items);
                }
                Some(b')' | b']' | b'}') => return Err(Stop::Unknown),
                Some(_) => items.push(self.value(depth + 1)?),
            }
        }
    }

    fn string(&mut self) -> Result<String, Stop> {
        self.at += 1;
        let mut bytes = Vec::new();
        loop {
            let Some(&b) = self.text.get(self.at) else {
                return Err(Stop::Cut);
            };
            self.at += 1;
            match b {
                b'"' => return String::from_utf8(bytes).map_err(|_| Stop::Unknown),
                b'\\' => {
                    let Some(&e) = self.text.get(self.at) else {
                        return Err(Stop::Cut);
                    };
                    self.at += 1;
                    match e {
                        b'n' => bytes.push(b'\n'),
                        b't' => bytes.push(b'\t'),
                        b'r' => bytes.push(b'\r'),
                        b'"' | b'\\' => bytes.push(e),
                        b'u' => {
                            let hex = self.text.get(self.at..self.at + 4).ok_or(Stop::Cut)?;
                            self.at += 4;
                            let code = std::str::from_utf8(hex)
                                .ok()
                                .and_then(|h| u32::from_str_radix(h, 16).ok())
                                .and_then(char::from_u32)
                                .ok_or(Stop::Unknown)?;
                            bytes.extend_from_slice(code.encode_utf8(&mut [0; 4]).as_bytes());
                        }
                        _ => return Err(Stop::Unknown),
                    }
                }
                _ => bytes.push(b),
            }
        }
    }

    /// A number, a keyword, `nil`, `true` or `false`.
    fn atom(&mut self) -> Result<Json, Stop> {
        let start = self.at;
        while self.text.get(self.at).is_some_and(|b| {
            !b.is_ascii_whitespace()
                && !matches!(b, b',' | b'(' | b')' | b'[' | b']' | b'{' | b'}' | b'"')
        }) {
            self.at += 1;
        }
        // An atom at the very end of the text may go on past it.
        if self.at == self.text.len() {
            return Err(Stop::Cut);
        }
        let word = std::str::from_utf8(&self.text[start..self.at]).map_err(|_| Stop::Unknown)?;
        match word {
            "nil" => return Ok(Json::Null),
            "true" => return Ok(Json::Bool(true)),
            "false" => return Ok(Json::Bool(false)),
            _ => {}
        }
        if let Some(name) = word.strip_prefix(':').filter(|n| !n.is_empty()) {
            return Ok(json!({"$kw": name}));
        }
        let digits = word.strip_prefix('-').unwrap_or(word);
        if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
            return word
                .parse::<i64>()
                .map(Json::from)
                .map_err(|_| Stop::Unknown);
        }
        let float = digits.starts_with(|c: char| c.is_ascii_digit())
            && digits
                .bytes()
                .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'-' | b'+'));
        match word.parse::<f64>() {
            Ok(f) if float && f.is_finite() => serde_json::Number::from_f64(f)
                .map(Json::Number)
                .ok_or(Stop::Unknown),
            _ => Err(Stop::Unknown),
        }
    }
}

/// A map of `items` (key, value, key, value...): a JSON object when every key is a string
/// (not one that would read as a keyword or a tag) or a keyword, else `$map` pairs.
fn map(items: Vec<Json>) -> Json {
    let key = |k: &Json| match k {
        Json::String(s) if !s.starts_with(':') && !s.starts_with('$') => Some(s.clone()),
        Json::Object(o) if o.len() == 1 => o.get("$kw")?.as_str().map(|n| format!(":{n}")),
        _ => None,
    };
    let keys: Option<Vec<String>> = items.iter().step_by(2).map(key).collect();
    match keys {
        Some(keys) if keys.len() == keys.iter().collect::<std::collections::HashSet<_>>().len() => {
            let mut object = Map::new();
            for (k, v) in keys.into_iter().zip(items.into_iter().skip(1).step_by(2)) {
                object.insert(k, v);
            }
            Json::Object(object)
        }
        _ => {
            let mut pairs = Vec::new();
            let mut items = items.into_iter();
            while let (Some(k), Some(v)) = (items.next(), items.next()) {
                pairs.push(json!([k, v]));
            }
            json!({ "$map": pairs })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printed_values_read_back_typed() {
        let (v, n) = read(r#"{"a" [1 -2 2.5 nil true] :k "x\"y\n" "b" #{:s}} tail"#).unwrap();
        assert_eq!(
            v,
            json!({"a": [1, -2, 2.5, null, true], ":k": "x\"y\n", "b": {"$set": [{"$kw": "s"}]}})
        );
        assert_eq!(n, 47);
        assert_eq!(read("nil\n").unwrap().0, Json::Null);
        assert_eq!(read("(1 2)\n").unwrap().0, json!([1, 2]));
        assert_eq!(
            read("{1 \"one\"}\n").unwrap().0,
            json!({"$map": [[1, "one"]]})
        );
        assert_eq!(
            read("{\":x\" 1}\n").unwrap().0,
            json!({"$map": [[":x", 1]]})
        );
    }

    #[test]
    fn a_cut_or_unknown_value_is_never_one() {
        assert_eq!(read(r#"{"a" [1 2"#), Err(Stop::Cut));
        assert_eq!(read(r#""open string"#), Err(Stop::Cut));
        assert_eq!(read("12"), Err(Stop::Cut), "a number at the end may go on");
        assert_eq!(read("some-symbol "), Err(Stop::Unknown));
        assert_eq!(read("##Inf "), Err(Stop::Unknown));
        assert_eq!(read("{1} "), Err(Stop::Unknown));
        assert_eq!(read("99999999999999999999 "), Err(Stop::Unknown));
        assert_eq!(read(&"[".repeat(10_000)), Err(Stop::Unknown));
        assert_eq!(read("[1 2}"), Err(Stop::Unknown));
    }
}
