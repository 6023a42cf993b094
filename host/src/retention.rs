//! Retention: of the facts the history so far holds, the share that is visible in a prompt's
//! text. Computed from the recording and the text alone, the same way for every strategy,
//! third-party plugins included.
//!
//! The facts of the first `k` turns, and when each counts as visible:
//! - **symbols**: the names defined in the memory of the last successful turn; visible when the
//!   name appears as a whole word;
//! - **tool calls**: every call made (failed turns included: their side effects happened);
//!   visible when the tool's name appears followed, within 400 characters, by each of its
//!   scalar argument values (strings by their first 40 characters up to a line break, quote or
//!   backslash; numbers, keywords, booleans as printed);
//! - **printed lines**: every non-empty line printed (failed turns included), by its first 60
//!   characters;
//! - **error**: the message (or reason) of the latest failed turn, by its first line, up to 80
//!   characters.

use memchr::memmem;
use ptc_plugin_api::{to_clojure_full, Turn, Value};

/// Visible / total facts of one category.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Share {
    pub visible: usize,
    pub total: usize,
}

impl Share {
    fn count(&mut self, visible: bool) {
        self.total += 1;
        self.visible += usize::from(visible);
    }

    pub fn add(&mut self, other: Share) {
        self.visible += other.visible;
        self.total += other.total;
    }

    /// visible / total, `None` when there was nothing to retain.
    pub fn ratio(self) -> Option<f64> {
        (self.total > 0).then(|| self.visible as f64 / self.total as f64)
    }
}

/// Retention of one prompt, per category.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Retention {
    pub symbols: Share,
    pub tool_calls: Share,
    pub printed_lines: Share,
    pub error: Share,
}

impl Retention {
    pub fn add(&mut self, other: &Retention) {
        self.symbols.add(other.symbols);
        self.tool_calls.add(other.tool_calls);
        self.printed_lines.add(other.printed_lines);
        self.error.add(other.error);
    }
}

/// What of the first `turns` is visible in `text`.
pub fn retention(turns: &[Turn], text: &str) -> Retention {
    let mut r = Retention::default();
    if let Some(last) = turns.iter().rev().find(|t| t.success) {
        for entry in last.memory.iter() {
            r.symbols.count(contains_word(text, &entry.0));
        }
    }
    for turn in turns {
        for call in turn.tool_calls.iter() {
            r.tool_calls
                .count(call_visible(text, &call.name, &call.args));
        }
        for print in turn.prints.iter() {
            for line in print.lines().map(str::trim).filter(|l| !l.is_empty()) {
                r.printed_lines
                    .count(contains(text, prefix_chars(line, 60)));
            }
        }
    }
    if let Some(failed) = turns.iter().rev().find(|t| !t.success) {
        let message = failed.error.as_ref().into_option().map_or("", |e| e.text());
        let first = message.lines().next().unwrap_or("").trim();
        if !first.is_empty() {
            r.error.count(contains(text, prefix_chars(first, 80)));
        }
    }
    r
}

/// Substring search (SIMD, much faster than `str::contains` on prompt-sized texts).
fn contains(text: &str, needle: &str) -> bool {
    memmem::find(text.as_bytes(), needle.as_bytes()).is_some()
}

fn prefix_chars(text: &str, n: usize) -> &str {
    text.char_indices().nth(n).map_or(text, |(i, _)| &text[..i])
}

fn is_symbol_char(c: char) -> bool {
    c.is_alphanumeric() || "-_?!*<>=/.+'".contains(c)
}

fn contains_word(text: &str, word: &str) -> bool {
    if word.is_empty() {
        return false;
    }
    memmem::find_iter(text.as_bytes(), word.as_bytes()).any(|i| {
        let before = text[..i].chars().next_back();
        let after = text[i + word.len()..].chars().next();
        !before.is_some_and(is_symbol_char) && !after.is_some_and(is_symbol_char)
    })
}

fn call_visible(text: &str, name: &str, args: &Value) -> bool {
    let needles = arg_needles(args);
    memmem::find_iter(text.as_bytes(), name.as_bytes()).any(|i| {
        let window_end = text[i..]
            .char_indices()
            .nth(400)
            .map_or(text.len(), |(j, _)| i + j);
        let window = &text[i..window_end];
        needles.iter().all(|n| contains(window, n))
    })
}

/// The scalar argument values a call must show, as text.
fn arg_needles(args: &Value) -> Vec<String> {
    let values: Vec<&Value> = match args {
        Value::Map(entries) => entries.iter().map(|e| &e.1).collect(),
        Value::List(items) => items.iter().collect(),
        Value::Nil => Vec::new(),
        other => vec![other],
    };
    values
        .into_iter()
        .filter_map(|v| match v {
            Value::String(s) => {
                let cut = s.find(['\n', '"', '\\']).map_or(s.as_str(), |i| &s[..i]);
                let cut = prefix_chars(cut, 40);
                (!cut.is_empty()).then(|| cut.to_owned())
            }
            Value::Integer(_) | Value::Float(_) | Value::Keyword(_) | Value::Boolean(_) => {
                Some(to_clojure_full(v))
            }
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_match_whole_symbols_only() {
        assert!(contains_word("orders ; = list[3]", "orders"));
        assert!(!contains_word("big-orders ; = list[3]", "orders"));
        assert!(!contains_word("orders2", "orders"));
    }

    #[test]
    fn calls_need_their_name_and_scalar_arguments_nearby() {
        let args = Value::map_from(vec![
            (Value::keyword("to"), Value::string("ada@example.com")),
            (Value::keyword("n"), Value::Integer(5)),
        ])
        .unwrap();
        assert!(call_visible(
            ";   send({:n 5 :to \"ada@example.com\"})",
            "send",
            &args
        ));
        assert!(call_visible(
            "(tool/send {:to \"ada@example.com\"\n :n 5})",
            "send",
            &args
        ));
        assert!(!call_visible(";   send({:n 5})", "send", &args));
    }
}
