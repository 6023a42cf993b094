//! The evidence of a run whose actions are not PTC-Lisp programs (shell commands, tool calls
//! with JSON arguments, edits): per prompt, the literals the next action takes from earlier
//! observations (see the parent module for the exact rule).

use ptc_plugin_api::{Run, Turn, Value};
use ptc_strategy_kit::is_private_key;
use rustc_hash::FxHashMap;

use super::search::{find_text_word, is_text_word};
use super::used_next::PerPrompt;
use super::{finder, prefix_chars};

/// The longest quoted string or argument value that counts whole, in characters.
const LONGEST: usize = 80;

/// Whether the run's actions are PTC-Lisp programs: it recorded at least one program, and each
/// starts, after blanks and `;` comments, with `(`.
pub(super) fn is_lisp(turns: &[Turn]) -> bool {
    let mut programs = turns
        .iter()
        .filter_map(|t| t.program.as_ref().into_option());
    let lisp = |program: &str| {
        let mut rest = program.trim_start();
        while let Some(comment) = rest.strip_prefix(';') {
            rest = comment.split_once('\n').map_or("", |c| c.1).trim_start();
        }
        rest.starts_with('(')
    };
    let mut any = false;
    programs.all(|p| {
        any = true;
        lisp(p)
    }) && any
}

/// The texts of the action of `turn`: the string arguments of its tool calls, at any depth
/// (not under a private key), and their integers; the program when it recorded no call.
fn action(turn: &Turn, texts: &mut Vec<String>) {
    if turn.tool_calls.is_empty() {
        texts.extend(turn.program.as_ref().into_option().map(|p| p.to_string()));
        return;
    }
    for call in turn.tool_calls.iter() {
        let mut stack = vec![&call.args];
        while let Some(value) = stack.pop() {
            match value {
                Value::String(s) => texts.push(s.to_string()),
                Value::Integer(i) => texts.push(i.to_string()),
                Value::List(items) | Value::Set(items) => stack.extend(items.iter().rev()),
                Value::Map(entries) => stack.extend(
                    entries
                        .iter()
                        .rev()
                        .filter(|e| !is_private_key(&e.0))
                        .map(|e| &e.1),
                ),
                _ => {}
            }
        }
    }
}

/// Appends to `out` the literals of one text of an action, in order: the text itself when it
/// is a short line, its quoted strings, and its words that look like a path, a file name, an
/// identifier or a number.
pub(super) fn literals(text: &str, out: &mut Vec<String>) {
    let mut push = |s: &str| {
        let s = s.trim();
        let chars = s.chars().count();
        if (3..=LONGEST).contains(&chars) && !s.contains('\\') && !out.iter().any(|o| o == s) {
            out.push(s.to_owned());
        }
    };
    if !text.contains('\n') {
        push(text);
    }
    for line in text.lines() {
        let mut rest = line;
        while let Some(open) = rest.find(['"', '\'']) {
            let quote = rest[open..].chars().next().expect("a quote");
            let after = &rest[open + 1..];
            match after.find(quote) {
                Some(close) => {
                    push(&after[..close]);
                    rest = &after[close + 1..];
                }
                None => break,
            }
        }
    }
    for word in text.split(|c: char| !is_word_char(c)) {
        let word = word.trim_start_matches('-');
        let word = word.strip_prefix("./").unwrap_or(word);
        let word = word.trim_end_matches(['.', '/', '-']);
        if looks_cited(word) {
            push(word);
        }
    }
}

/// A character of a word of an action: a letter, a digit or one of `_./-`.
fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '.' | '/' | '-')
}

/// A word that looks like a path, a file name, an identifier or a number: at least 3
/// characters, holding a digit, a `_`, `.` or `/`, or a capital letter after its first.
fn looks_cited(word: &str) -> bool {
    word.chars().count() >= 3
        && (word.contains(|c: char| c.is_ascii_digit() || matches!(c, '_' | '.' | '/'))
            || word.chars().skip(1).any(char::is_uppercase))
}

/// The observations of `turn`: the strings its tool calls returned (at any depth, not under a
/// private key), what it printed, and its error.
fn observations(turn: &Turn, out: &mut String) {
    for call in turn.tool_calls.iter() {
        let mut stack = vec![&call.result];
        while let Some(value) = stack.pop() {
            match value {
                Value::String(s) => {
                    out.push_str(s);
                    out.push('\n');
                }
                Value::Integer(i) => {
                    out.push_str(&i.to_string());
                    out.push('\n');
                }
                Value::List(items) | Value::Set(items) => stack.extend(items.iter().rev()),
                Value::Map(entries) => {
                    for entry in entries.iter().rev().filter(|e| !is_private_key(&e.0)) {
                        stack.push(&entry.1);
                        stack.push(&entry.0);
                    }
                }
                _ => {}
            }
        }
    }
    for print in turn.prints.iter() {
        out.push_str(print);
        out.push('\n');
    }
    if let Some(error) = turn.error_text() {
        out.push_str(error);
        out.push('\n');
    }
}

/// Per turn `k`: the literals the action of turn `k + 1` takes from the observations of the
/// first `k` turns and that neither the mission nor the system prompt (its tools' names,
/// signatures and descriptions included) holds, each distinct literal once, as its needle.
pub(super) fn cited(run: &Run, turns: &[Turn]) -> PerPrompt {
    let mut given = format!("{}\n{}\n", run.mission, run.system_prompt);
    for tool in run.tools.iter() {
        given.push_str(&tool.name);
        for text in [&tool.signature, &tool.description] {
            if let Some(text) = text.as_ref().into_option() {
                given.push('\n');
                given.push_str(text);
            }
        }
        given.push('\n');
    }
    // Every observation in order, and where each turn's end.
    let mut observed = String::new();
    let mut ends = Vec::with_capacity(turns.len());
    for turn in turns {
        observations(turn, &mut observed);
        ends.push(observed.len());
    }
    // Each turn's literals, and each distinct literal once.
    let candidates: Vec<Vec<String>> = turns
        .iter()
        .map(|turn| {
            let mut texts = Vec::new();
            action(turn, &mut texts);
            let mut candidates = Vec::new();
            for text in &texts {
                literals(text, &mut candidates);
            }
            candidates
        })
        .collect();
    let mut ids: FxHashMap<&str, usize> = FxHashMap::default();
    let mut distinct: Vec<&str> = Vec::new();
    for literal in candidates.iter().flatten() {
        ids.entry(literal).or_insert_with(|| {
            distinct.push(literal);
            distinct.len() - 1
        });
    }
    // Per literal: where it first ends as a whole word of the observations, if it is not given.
    let [given, observed] = first_words(&distinct, [&given, &observed]);
    let first = |literal: &str| {
        let id = ids[literal];
        given[id].is_none().then_some(observed[id]).flatten()
    };
    candidates
        .iter()
        .enumerate()
        .map(|(k, candidates)| {
            let seen = k.checked_sub(1).map_or(0, |last| ends[last]);
            candidates
                .iter()
                .filter(|literal| first(literal).is_some_and(|end| end <= seen))
                .map(|literal| vec![finder(prefix_chars(literal, LONGEST))])
                .collect()
        })
        .collect()
}

/// Per text of `texts`, per literal of `literals`: where it first ends in the text as a whole
/// word (no letter, digit or `_` on either side). One pass over each text finds every literal:
/// a run's literals are many (every path, name and number its actions hold), and so are its
/// observations.
fn first_words<const N: usize>(literals: &[&str], texts: [&str; N]) -> [Vec<Option<usize>>; N] {
    let automaton = aho_corasick::AhoCorasick::builder()
        .match_kind(aho_corasick::MatchKind::Standard)
        .build(literals);
    texts.map(|text| {
        let mut firsts = vec![None; literals.len()];
        let Ok(automaton) = &automaton else {
            // Too many to build one automaton of: one by one.
            for (first, literal) in firsts.iter_mut().zip(literals) {
                *first = find_text_word(text, &finder(literal), 0).map(|at| at + literal.len());
            }
            return firsts;
        };
        let mut left = literals.len();
        for found in automaton.find_overlapping_iter(text) {
            let id = found.pattern().as_usize();
            let (literal, at) = (literals[id], found.start());
            // A literal's occurrences come in order: the first that stands as a word is its
            // first.
            if firsts[id].is_none() && is_text_word(text, at, at + literal.len()) {
                firsts[id] = Some(at + literal.len());
                left -= 1;
                if left == 0 {
                    break;
                }
            }
        }
        firsts
    })
}

#[cfg(test)]
mod tests;
