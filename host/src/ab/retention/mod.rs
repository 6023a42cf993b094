//! Retention: of the facts the history so far holds, the share that is visible in a prompt's
//! text. Computed from the recording and the text alone, the same way for every strategy,
//! third-party plugins included.
//!
//! The facts of the first `k` turns, and when each counts as visible:
//! - **symbols**: the names defined in the memory of the last successful turn, private ones
//!   (starting with `_`) left out; visible when the name appears as a whole word;
//! - **tool calls**: every call made (failed turns included: their side effects happened);
//!   visible when the tool's name appears followed, within 400 characters, by each of its
//!   scalar argument values (strings by their first 40 characters up to a line break, quote or
//!   backslash; numbers, keywords, booleans as printed); an argument under a private key (one
//!   starting with `_`) is never shown, so it is not a fact;
//! - **printed lines**: every non-empty line printed (failed turns included), by its first 60
//!   characters;
//! - **error**: the message (or reason) of the latest failed turn, by its first line, up to 80
//!   characters;
//! - **used next**: the names that the program of turn `k + 1` uses (the next program the
//!   recording holds: the prompt rendered after `k` turns is the one that program answered;
//!   nothing when that turn has no program) and that the history of the first `k` turns holds,
//!   each distinct name once. The program is read by [`reader`] (strings, comments and forms
//!   discarded with `#_` are skipped; the name a `def`/`defn` defines is not a use); then
//!   - a symbol `user/x`, or a bare `x`, is a fact when `x` is a name of the memory of the last
//!     successful turn of the `k`; visible when `x` appears as a whole word;
//!   - a symbol `data/x`, or a bare `x` that is no such name, is a fact when `x` is a key of the
//!     run's data; visible when `data/x` appears as a whole word;
//!   - a symbol `tool/x`, or a bare `x` that is neither, is a fact when `x` is one of the run's
//!     tools; visible when `tool/x` or `x` appears as a whole word. A bare `x` that is both a
//!     data key and a tool is ambiguous (the interpreter refuses it) and no fact;
//!   - a keyword `:x` is a fact when the history's values hold it: a keyword value or map key,
//!     at any depth, of the run's data, of the memory of that last successful turn, or of the
//!     result, the tool-call arguments or the tool-call results of any of the `k` turns;
//!     visible when `:x` appears as a whole word. Printed text and earlier programs are not
//!     values: a keyword only they hold is no fact.
//!
//!   There is no scope analysis: a local binding that shadows a memory name counts as a use of
//!   it. Private names (those starting with `_`) are never facts: memory names, data keys, tools and
//!   keywords starting with `_`, nor what a value holds under a private key. A keyword `:x` is
//!   also visible when the prompt shows, as a whole word, the return type of one of the run's
//!   tools that has `x` as a bare key of a map (`-> {page :int, total-pages :int}` shows `:page`
//!   and `:total-pages`), written as the signature has it after `->` or as the strategies print
//!   it (the `:`s left out: `{page int, total-pages int}`);
//! - **evidence**: the literals that the program of turn `k + 1` uses and that the result of a
//!   tool call of the first `k` turns held, each distinct literal once. A literal is a string
//!   of at least 3 characters with no `\` (so no escape and no line break), or an integer
//!   written as at least 3 digits with no sign and no leading zero; the reader finds them as
//!   it finds names (comments, discarded forms, regexes and characters are not literals). It
//!   is a fact when some tool call result of the `k` turns holds it whole, as a string or an
//!   integer equal to it, value or map key at any depth (not under a private key); it is
//!   visible when its text (a string's characters, an integer's digits) appears as a whole
//!   word. A prompt that no longer shows the id or digest a tool returned, and the next program
//!   copies, has lost that evidence. That is the rule of a PTC-Lisp run: one that recorded a
//!   program, each program starting, after blanks and `;` comments, with `(`. On any other
//!   run ([`cited`]) the action of turn `k + 1` is the strings and integers of its tool
//!   calls' arguments, at any depth and not under a private key (the program when it recorded
//!   no call), and its literals are each such text that is one line of 3 to 80 characters,
//!   whole; each string between two `"` or two `'` on one line, of 3 to 80 characters; and
//!   each word (a run of letters, digits and `_./-`, a leading `-` or `./` and a trailing `.`,
//!   `/` or `-` left out) of at least 3 characters that holds a digit, one of `_./`, or a
//!   capital letter after its first; none holds a `\`. A literal is a fact when the
//!   observations of the `k` turns (the strings and integers their tool calls returned, not
//!   under a private key, what they printed, their errors) hold it as a whole word of plain
//!   text (no letter, digit or `_` touching it) and neither the mission nor the system
//!   prompt (with the tools' names, signatures and descriptions) does; it is visible when it
//!   appears as such a word. Such a run has no used-next facts (it uses no PTC-Lisp name),
//!   and a run whose log lacks its tool results has no evidence ([`Facts::without_evidence`]).
//!   **Cited actions** count, per prompt with evidence, one action, shown when all of its
//!   evidence is.
//!
//! A whole word is an occurrence of the needle that no symbol character (a letter, a digit or
//! one of `-_?!*<>=/.+'`) touches on either side; the other needles match anywhere.

mod cited;
mod reader;
mod return_type;
mod search;
mod share;
#[cfg(test)]
mod tests;
mod used_next;

use ptc_plugin_api::{Run, Turn, Value};
use ptc_strategy_kit::{is_private_key, is_private_name, to_clojure_full};

pub use search::Search;
#[cfg(test)]
use search::{call_visible, contains_word, window_end};
use search::{Finder, Match, Needles, Places};
pub use share::{Retention, Share};
use used_next::used_next;

/// The facts of a recording, prepared once and checked against many prompts.
pub struct Facts {
    /// Per turn: the names of its memory when it succeeded, as places in `names`.
    memories: Vec<Option<Vec<usize>>>,
    /// Every name the memories hold, each once: a memory repeats the names of the one before.
    names: Vec<Finder<'static>>,
    /// (turn index, call) in order.
    calls: Vec<(usize, CallFact)>,
    /// (turn index, printed line) in order.
    lines: Vec<(usize, Finder<'static>)>,
    /// Per number of turns `k`: how many of `lines` the first `k` turns printed (read for
    /// every prompt, where a search of `lines` would read a finder's worth of memory per
    /// step).
    lines_before: Vec<usize>,
    /// Per turn: its error's first line when it failed.
    errors: Vec<Option<Finder<'static>>>,
    /// Per turn `k`: the names its program uses that the first `k` turns hold, each as the
    /// needles any of which shows it.
    used_next: used_next::PerPrompt,
    /// Per turn `k`: the literals its action takes from the observations of the first `k`
    /// turns, each as its needle.
    evidence: used_next::PerPrompt,
    /// How a prompt shows a literal of `evidence`: as a whole word of a program (a PTC-Lisp
    /// run) or of plain text (any other agent's).
    evidence_match: Match,
    /// Every needle above but the calls', found together in each prompt.
    needles: Needles,
    /// Per place in `names`, then per entry of `lines`: the needle's number among `needles`
    /// ([`NO_NUMBER`]: none), so that a prompt's check of each (every name and printed line
    /// of the run, in every prompt) reads where it was found without looking the number up.
    name_ids: Vec<u32>,
    line_ids: Vec<u32>,
    /// Per call, the numbers of its values among `needles`.
    call_ids: Vec<Vec<Option<usize>>>,
}

/// The number of a needle that is not among those found together.
const NO_NUMBER: u32 = u32::MAX;

/// Bytes of the shortest value of a call found with the other needles.
const CALL_VALUE_FOUND_TOGETHER: usize = 4;

struct CallFact {
    name: Finder<'static>,
    needles: Vec<Finder<'static>>,
}

fn finder(needle: &str) -> Finder<'static> {
    Finder::new(needle.as_bytes()).into_owned()
}

/// The finders of one run's needles, each built once and copied where the needle repeats (a
/// tool called turn after turn, a name its programs use in every turn): building a finder
/// costs several times copying one. Each copy holds its own bytes, as [`Needles`] needs.
#[derive(Default)]
struct Finders(rustc_hash::FxHashMap<Box<str>, Finder<'static>>);

impl Finders {
    fn of(&mut self, needle: &str) -> Finder<'static> {
        match self.0.get(needle) {
            Some(found) => found.clone(),
            None => {
                let found = finder(needle);
                self.0.insert(needle.into(), found.clone());
                found
            }
        }
    }
}

impl Facts {
    /// The facts of a run whose turns are as the host reads them (each with its `defined`).
    pub fn of(run: &Run, turns: &[Turn]) -> Facts {
        // Another agent's actions use no PTC-Lisp name; their evidence is read from text, and
        // their programs are not read as PTC-Lisp.
        let (used, evidence, evidence_match) = match cited::is_lisp(turns) {
            true => {
                let (used, evidence) = used_next(run, turns);
                (used, evidence, Match::Word)
            }
            false => (Vec::new(), cited::cited(run, turns), Match::Text),
        };
        let mut facts = Facts {
            memories: Vec::with_capacity(turns.len()),
            names: Vec::new(),
            calls: Vec::new(),
            lines: Vec::new(),
            lines_before: Vec::with_capacity(turns.len() + 1),
            errors: Vec::with_capacity(turns.len()),
            used_next: used,
            evidence,
            evidence_match,
            needles: Needles::default(),
            name_ids: Vec::new(),
            line_ids: Vec::new(),
            call_ids: Vec::new(),
        };
        let mut named: rustc_hash::FxHashMap<&str, usize> = Default::default();
        let mut finders = Finders::default();
        for (i, turn) in turns.iter().enumerate() {
            facts.lines_before.push(facts.lines.len());
            facts.memories.push(turn.success.then(|| {
                turn.memory
                    .iter()
                    .filter(|e| is_fact_name(&e.0))
                    .map(|e| {
                        *named.entry(e.0.as_str()).or_insert_with(|| {
                            facts.names.push(finder(&e.0));
                            facts.names.len() - 1
                        })
                    })
                    .collect()
            }));
            for call in turn.tool_calls.iter() {
                let fact = CallFact {
                    name: finders.of(&call.name),
                    needles: arg_needles(&call.args)
                        .iter()
                        .map(|n| finders.of(n))
                        .collect(),
                };
                facts.calls.push((i, fact));
            }
            for print in turn.prints.iter() {
                for line in print.lines().map(str::trim).filter(|l| !l.is_empty()) {
                    facts.lines.push((i, finders.of(prefix_chars(line, 60))));
                }
            }
            let error = (!turn.success)
                .then(|| turn.error_text().unwrap_or(""))
                .map(|m| m.lines().next().unwrap_or("").trim())
                .filter(|first| !first.is_empty())
                .map(|first| finders.of(prefix_chars(first, 80)));
            facts.errors.push(error);
        }
        facts.lines_before.push(facts.lines.len());
        facts.find_together();
        facts
    }

    /// The same facts with no evidence: for a run whose log lacks the results of its tool
    /// calls, what its actions took from them cannot be told.
    pub fn without_evidence(mut self) -> Facts {
        self.evidence.clear();
        self.find_together();
        self
    }

    /// Prepares the needles found together, and the numbers of the names', the lines' and
    /// the calls' values.
    fn find_together(&mut self) {
        self.needles = self.all_needles();
        let number = |needle| match self.needles.id(needle) {
            // Fewer than `u32::MAX` needles are found together ([`Needles::new`]).
            Some(id) => u32::try_from(id).unwrap_or(NO_NUMBER),
            None => NO_NUMBER,
        };
        self.name_ids = self.names.iter().map(number).collect();
        self.line_ids = self.lines.iter().map(|(_, l)| number(l)).collect();
        self.call_ids = self
            .calls
            .iter()
            .map(|(_, call)| call.needles.iter().map(|n| self.needles.id(n)).collect())
            .collect();
    }

    /// Every needle of the facts, to be found together: the calls' values too, but the shortest
    /// (where each first occurs tells which of the windows of a call's name can show it), not
    /// their names.
    fn all_needles(&self) -> Needles {
        Needles::new(
            self.names
                .iter()
                .chain(self.lines.iter().map(|(_, line)| line))
                .chain(self.errors.iter().flatten())
                .chain(self.used_next.iter().flatten().flatten())
                .chain(self.evidence.iter().flatten().flatten())
                .chain(
                    self.calls
                        .iter()
                        .flat_map(|(_, call)| &call.needles)
                        .filter(|n| {
                            // A short value (a number) occurs all over a prompt, and tells little.
                            n.needle().len() >= CALL_VALUE_FOUND_TOGETHER
                        }),
                ),
        )
    }

    /// What of the first `turns` turns is visible in `text`.
    pub fn retention(&self, turns: usize, text: &str) -> Retention {
        self.retention_after(turns, text.to_owned(), &[text], &mut Search::default())
    }

    /// [`Facts::retention`] for the next prompt of a run, reusing what `search` found in the
    /// prompts before it (see [`Search`]); `text` is the prompt's `messages` joined by line
    /// breaks, and `search` keeps it for the prompt after it.
    pub fn retention_after<'f>(
        &'f self,
        turns: usize,
        text: String,
        messages: &[&str],
        search: &mut Search<'f>,
    ) -> Retention {
        search.start_with(&text, messages, &self.needles);
        let r = self.visible(turns, &text, search);
        search.finish(text);
        r
    }

    /// [`Facts::retention_after`] for a prompt whose text is `messages` joined by line
    /// breaks, written over the previous prompt's ([`Search::next_text`]): its first `lead`
    /// messages are those of the previous prompt, the same texts.
    pub fn retention_next<'f>(
        &'f self,
        turns: usize,
        messages: &[&str],
        lead: usize,
        search: &mut Search<'f>,
    ) -> Retention {
        let (text, common) = search.next_text(messages, lead);
        search.start_together(&text, messages, &self.needles, common);
        let r = self.visible(turns, &text, search);
        search.finish(text);
        r
    }

    /// What of the first `turns` turns `search` finds in `text`.
    fn visible<'f>(&'f self, turns: usize, text: &str, search: &mut Search<'f>) -> Retention {
        let mut r = Retention::default();
        if let Some(Some(names)) = self.memories[..turns].iter().rev().find(|m| m.is_some()) {
            let ids = names.iter().map(|&name| self.name_ids[name]);
            let alone = search.count_numbered(&mut r.symbols, ids, Match::Word, &self.needles);
            for i in alone {
                let name = &self.names[names[i]];
                r.symbols.count(search.find(text, name, Match::Word));
            }
        }
        // Calls repeat their names and values: each distinct one is found once per text.
        let mut places = Places::default();
        for (i, (_, call)) in self
            .calls
            .iter()
            .take_while(|(t, _)| *t < turns)
            .enumerate()
        {
            let numbered = (&self.call_ids[i][..], &self.needles);
            r.tool_calls
                .count(search.call_visible(i, text, call, Some(numbered), &mut places));
        }
        let lines = self.lines_before[turns];
        let (shares, ids) = (&mut r.printed_lines, &self.line_ids);
        let alone = search.count_growing(shares, ids, lines, Match::Anywhere, &self.needles);
        for i in alone {
            let line = &self.lines[i].1;
            r.printed_lines
                .count(search.find(text, line, Match::Anywhere));
        }
        if let Some(failed) = self.errors[..turns].iter().rev().position(Option::is_some) {
            let error = self.errors[turns - 1 - failed]
                .as_ref()
                .expect("a failed turn");
            r.error.count(search.find(text, error, Match::Anywhere));
        }
        for needles in self.used_next.get(turns).into_iter().flatten() {
            r.used_next.count(
                needles
                    .iter()
                    .any(|needle| search.find(text, needle, Match::Word)),
            );
        }
        for needles in self.evidence.get(turns).into_iter().flatten() {
            r.evidence.count(
                needles
                    .iter()
                    .any(|needle| search.find(text, needle, self.evidence_match)),
            );
        }
        if r.evidence.total > 0 {
            r.cited_actions
                .count(r.evidence.visible == r.evidence.total);
        }
        r
    }

    /// The literals the action after the first `turns` turns cites that `text` does not show,
    /// in the order the action cites them.
    pub fn dropped(&self, turns: usize, text: &str) -> Vec<String> {
        let mut search = Search::default();
        search.start_with(text, &[text], &self.needles);
        self.dropped_where(turns, |needle| {
            search.find(text, needle, self.evidence_match)
        })
    }

    /// [`Facts::dropped`] from the prompt `search` searched last ([`Facts::retention_after`]),
    /// with what it found there.
    pub fn dropped_last(&self, turns: usize, search: &Search<'_>) -> Vec<String> {
        let how = self.evidence_match;
        let mut needles = self.evidence.get(turns).into_iter().flatten().flatten();
        if !needles.all(|needle| search.found_last(needle, how).is_some()) {
            return self.dropped(turns, search.text());
        }
        self.dropped_where(turns, |needle| search.found_last(needle, how) == Some(true))
    }

    /// The literals the action after the first `turns` turns cites of which `shown` shows
    /// no needle.
    fn dropped_where<'f>(
        &'f self,
        turns: usize,
        mut shown: impl FnMut(&'f Finder<'static>) -> bool,
    ) -> Vec<String> {
        self.evidence
            .get(turns)
            .into_iter()
            .flatten()
            .filter(|needles| !needles.iter().any(&mut shown))
            .map(|needles| String::from_utf8_lossy(needles[0].needle()).into_owned())
            .collect()
    }
}

/// A name that can be a fact: not empty, not private.
fn is_fact_name(name: &str) -> bool {
    !name.is_empty() && !is_private_name(name)
}

fn prefix_chars(text: &str, n: usize) -> &str {
    text.char_indices().nth(n).map_or(text, |(i, _)| &text[..i])
}

/// The scalar argument values a call must show, as text; private entries are never shown.
fn arg_needles(args: &Value) -> Vec<String> {
    let values: Vec<&Value> = match args {
        Value::Map(entries) => entries
            .iter()
            .filter(|e| !is_private_key(&e.0))
            .map(|e| &e.1)
            .collect(),
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
