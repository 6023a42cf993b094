//! Regular expressions (`#"..."`, `re-pattern`, `re-find`, ...) as ptc_runner runs them, on a
//! linear-time engine: no backtracking, so no pattern and input can make a match run long.
//! The bounds are ptc_runner's: a pattern of at most 256 bytes, an input read up to its first
//! 32,768 bytes. Backreferences and lookaround, which need backtracking, are refused.

use regex::{Captures, Regex, RegexBuilder};

use crate::value::{LispError, Value};

const MAX_PATTERN_BYTES: usize = 256;
const MAX_INPUT_BYTES: usize = 32_768;
/// Largest compiled program and lazy-DFA cache a pattern may take, in bytes.
const MAX_COMPILED_BYTES: usize = 1 << 20;

/// A compiled pattern: as written, for finding, and anchored at both ends, for `re-matches`.
pub struct Pattern {
    pub source: String,
    re: Regex,
    anchored: Regex,
}

fn build(source: &str) -> Result<Regex, regex::Error> {
    RegexBuilder::new(source)
        .size_limit(MAX_COMPILED_BYTES)
        .dfa_size_limit(MAX_COMPILED_BYTES)
        .build()
}

impl Pattern {
    /// Compiles `source`; an error of kind `kind` names the pattern and the cause.
    pub fn new(source: &str, kind: &str) -> Result<Pattern, LispError> {
        let refuse =
            |why: String| LispError::new(kind, format!("invalid regex #\"{source}\": {why}"));
        if source.len() > MAX_PATTERN_BYTES {
            return Err(refuse(format!("longer than {MAX_PATTERN_BYTES} bytes")));
        }
        let re = build(source).map_err(|e| refuse(first_line(&e.to_string())))?;
        let anchored =
            build(&format!(r"\A(?:{source})\z")).map_err(|e| refuse(first_line(&e.to_string())))?;
        Ok(Pattern {
            source: source.to_string(),
            re,
            anchored,
        })
    }

    /// `re-find`: the first match, or with groups `[match group...]`; nil for none.
    pub fn find(&self, s: &str) -> Value {
        self.re
            .captures(input(s))
            .map_or(Value::Nil, |c| match_value(&c))
    }

    /// `re-matches`: as `find`, when the whole input matches.
    pub fn matches(&self, s: &str) -> Value {
        self.anchored
            .captures(input(s))
            .map_or(Value::Nil, |c| match_value(&c))
    }

    /// `re-seq`: every match, in order.
    pub fn seq(&self, s: &str) -> Vec<Value> {
        self.all(input(s)).iter().map(match_value).collect()
    }

    /// `re-split` and `split` with a pattern: the text between matches, with every group of
    /// each match (empty when it took no part), trailing empty parts kept, and no empty match
    /// where the previous one ended (as Erlang's `re:split` splits).
    pub fn split(&self, s: &str) -> Vec<Value> {
        let s = input(s);
        let mut out = Vec::new();
        let mut last = 0;
        for c in self.all(s) {
            let m = c.get(0).expect("group 0 always matches");
            if m.is_empty() && m.start() == last {
                continue;
            }
            out.push(Value::str(&s[last..m.start()]));
            out.extend((1..c.len()).map(|i| Value::str(c.get(i).map_or("", |g| g.as_str()))));
            last = m.end();
        }
        out.push(Value::str(&s[last..]));
        out
    }

    /// `replace` with a pattern: every match replaced; in `with`, `&` and `\0` stand for the
    /// match, `\N` for group N, `\&` and `\\` for `&` and `\` (Erlang's `re:replace`).
    pub fn replace(&self, s: &str, with: &str) -> String {
        let s = input(s);
        let mut out = String::new();
        let mut last = 0;
        for c in self.all(s) {
            let m = c.get(0).expect("group 0 always matches");
            out.push_str(&s[last..m.start()]);
            let mut chars = with.chars().peekable();
            while let Some(ch) = chars.next() {
                match ch {
                    '&' => out.push_str(m.as_str()),
                    '\\' if chars.peek().is_some_and(char::is_ascii_digit) => {
                        let mut n = 0usize;
                        while let Some(d) = chars.peek().and_then(|d| d.to_digit(10)) {
                            n = n.saturating_mul(10).saturating_add(d as usize);
                            chars.next();
                        }
                        out.push_str(c.get(n).map_or("", |g| g.as_str()));
                    }
                    '\\' if matches!(chars.peek(), Some('&' | '\\')) => {
                        out.extend(chars.next());
                    }
                    other => out.push(other),
                }
            }
            last = m.end();
        }
        out.push_str(&s[last..]);
        out
    }
}

impl Pattern {
    /// Every match in order, as Erlang's `re` finds them: after an empty match the search
    /// goes on one character later, and an empty match may follow a non-empty one.
    fn all<'s>(&self, s: &'s str) -> Vec<Captures<'s>> {
        let mut out = Vec::new();
        let mut pos = 0;
        while let Some(c) = self.re.captures_at(s, pos) {
            let m = c.get(0).expect("group 0 always matches");
            pos = if m.is_empty() {
                match s[m.end()..].chars().next() {
                    Some(ch) => m.end() + ch.len_utf8(),
                    None => usize::MAX,
                }
            } else {
                m.end()
            };
            out.push(c);
            if pos > s.len() {
                break;
            }
        }
        out
    }
}

fn first_line(s: &str) -> String {
    s.lines()
        .filter(|l| l.trim_start().starts_with("error:"))
        .map(|l| l.trim().to_string())
        .next()
        .unwrap_or_else(|| s.lines().last().unwrap_or("").trim().to_string())
}

/// The input as ptc_runner reads it: its first 32,768 bytes (cut back to a whole character).
fn input(s: &str) -> &str {
    if s.len() <= MAX_INPUT_BYTES {
        return s;
    }
    let mut end = MAX_INPUT_BYTES;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// The match and its groups up to the last that took part; an earlier group that did not take
/// part is the empty string, as Erlang's `re` reports it.
fn groups(c: &Captures) -> Vec<Value> {
    let last = (0..c.len())
        .rev()
        .find(|&i| c.get(i).is_some())
        .unwrap_or(0);
    (0..=last)
        .map(|i| Value::str(c.get(i).map_or("", |g| g.as_str())))
        .collect()
}

fn match_value(c: &Captures) -> Value {
    let mut g = groups(c);
    if g.len() == 1 {
        g.pop().unwrap_or(Value::Nil)
    } else {
        Value::vector(g)
    }
}
