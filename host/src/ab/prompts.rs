//! The prompts the HTML report shows side by side: every prompt of the first recordings through
//! every variant, rendered again after the run (so that the run itself never holds a prompt's
//! text) and only when a report is asked for. Their lines are stored once per recording and
//! each prompt is a list of line numbers, so the prompts of one run, which repeat each other,
//! take little room. What is kept is bounded: [`PROMPT_RECORDINGS`] recordings, and
//! [`PROMPT_BYTES`] of distinct text and [`PROMPT_LINES`] line references in all; a recording
//! that would pass a bound is left out whole, and counted.

use rustc_hash::FxHashMap;
use serde_json::{json, Value as Json};

use crate::ab::{prompter_for, Ab};
use crate::host::Host;
use crate::recording::corpus::Source;
use crate::render::trigger::RunCache;
use crate::render::Prompt;
use crate::tokens::Counter;
use crate::Error;

/// The report holds the prompts of at most this many recordings, the first ones read.
pub const PROMPT_RECORDINGS: usize = 50;
/// Distinct prompt text, in bytes, over every recording kept.
pub const PROMPT_BYTES: usize = 8 << 20;
/// Line references (one per line of every prompt), over every recording kept.
pub const PROMPT_LINES: usize = 2_000_000;

/// The prompts of one recording through every variant.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RecordingPrompts {
    /// As the other outputs name the recording.
    pub name: String,
    /// Its turns: the prompts are those sent before turn 1 .. turns.
    pub turns: usize,
    /// Its distinct lines, in the order they first appear.
    pub lines: Vec<String>,
    /// Per variant, in variant order: each prompt as line numbers into `lines`.
    pub prompts: Vec<Vec<Vec<u32>>>,
    /// Per variant: why it rendered no more prompts than it has.
    pub errors: Vec<Option<String>>,
}

/// The prompts of the recordings the report shows, and how many were left out.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PromptLog {
    pub recordings: Vec<RecordingPrompts>,
    /// Recordings measured but not kept: past [`PROMPT_RECORDINGS`] or over a size bound.
    pub left_out: usize,
}

/// How much a [`PromptLog`] may still take.
#[derive(Clone, Copy, Debug)]
struct Budget {
    bytes: usize,
    lines: usize,
}

/// A recording's prompts being gathered: its lines, with their numbers.
#[derive(Default)]
struct Interner {
    numbers: FxHashMap<String, u32>,
    lines: Vec<String>,
    bytes: usize,
    references: usize,
}

impl Interner {
    /// The prompt as line numbers: `=== role ===`, then its content, per message.
    fn prompt(&mut self, prompt: &Prompt) -> Vec<u32> {
        let mut numbers = Vec::new();
        for message in &prompt.messages {
            let head = format!("=== {} ===", message.role.as_str());
            numbers.push(self.number(&head));
            for line in message.content.split('\n') {
                numbers.push(self.number(line));
            }
        }
        self.references += numbers.len();
        numbers
    }

    fn number(&mut self, line: &str) -> u32 {
        if let Some(&n) = self.numbers.get(line) {
            return n;
        }
        let n = self.lines.len() as u32;
        self.bytes += line.len();
        self.lines.push(line.to_owned());
        self.numbers.insert(line.to_owned(), n);
        n
    }

    fn within(&self, budget: Budget) -> bool {
        self.bytes <= budget.bytes && self.references <= budget.lines
    }
}

impl PromptLog {
    /// Renders the prompts of the recordings of `sources` (with their corpus positions) that
    /// `ab` measured, in order, until a bound is reached; `bad` holds the positions of those it
    /// could not read, in increasing order.
    pub fn collect(
        host: &Host,
        ab: &Ab,
        sources: &mut dyn Iterator<Item = Result<(usize, Source), Error>>,
        bad: &mut dyn Iterator<Item = usize>,
    ) -> PromptLog {
        let mut log = PromptLog::default();
        let mut budget = Budget {
            bytes: PROMPT_BYTES,
            lines: PROMPT_LINES,
        };
        let Ok(defaults) = host.recording_defaults() else {
            log.left_out = ab.recordings();
            return log;
        };
        let prompters: Vec<Result<_, String>> = ab
            .variants
            .iter()
            .map(|v| prompter_for(host, v).map_err(|e| e.to_string()))
            .collect();
        let mut bad = bad.peekable();
        for (position, source) in sources.map_while(Result::ok) {
            while bad.next_if(|&b| b < position).is_some() {}
            if bad.next_if_eq(&position).is_some() {
                continue;
            }
            if log.recordings.len() == PROMPT_RECORDINGS {
                log.left_out += 1;
                continue;
            }
            let Ok(recording) = source.load(&defaults) else {
                log.left_out += 1;
                continue;
            };
            let mut interner = Interner::default();
            let mut counter = Counter::new(ab.tokenizer);
            let mut kept = RecordingPrompts {
                name: recording.label().display().to_string(),
                turns: recording.turns.len(),
                ..RecordingPrompts::default()
            };
            let mut fits = true;
            'variants: for prompter in &prompters {
                let mut prompts = Vec::new();
                let mut error = None;
                match prompter {
                    Err(reason) => error = Some(reason.clone()),
                    Ok(prompter) => {
                        let mut cache = RunCache::default();
                        for turns in 0..recording.turns.len() {
                            match prompter.render_cached(
                                &recording,
                                turns,
                                &mut counter,
                                &mut cache,
                            ) {
                                Ok((prompt, _)) => prompts.push(interner.prompt(&prompt)),
                                Err(e) => {
                                    error = Some(e.to_string());
                                    break;
                                }
                            }
                            if !interner.within(budget) {
                                fits = false;
                                break 'variants;
                            }
                        }
                    }
                }
                kept.prompts.push(prompts);
                kept.errors.push(error);
            }
            if !fits {
                log.left_out += 1;
                continue;
            }
            budget.bytes -= interner.bytes;
            budget.lines -= interner.references;
            kept.lines = interner.lines;
            log.recordings.push(kept);
        }
        log
    }

    /// The log as the report's script reads it: `strategies` (labels), `recordings` (`name`,
    /// `turns`, `lines`, `prompts`, `errors`) and `left_out`.
    pub fn to_json(&self, ab: &Ab) -> Json {
        json!({
            "strategies": ab.variants.iter().map(|v| v.label.clone()).collect::<Vec<_>>(),
            "baseline": ab.baseline,
            "recordings": self.recordings.iter().map(|r| json!({
                "name": r.name,
                "turns": r.turns,
                "lines": r.lines,
                "prompts": r.prompts,
                "errors": r.errors,
            })).collect::<Vec<_>>(),
            "left_out": self.left_out,
        })
    }
}

/// JSON that can sit inside a `<script>` element: every `<`, `>` and `&` written as a `\u`
/// escape (they only ever occur inside strings), so that no `</script` or `<!--` can end or
/// change the element.
pub fn script_json(value: &Json) -> String {
    let text = value.to_string();
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_json_cannot_end_its_element_and_reads_back_the_same() {
        let value = json!({"line": "</script><!-- a & b --> </SCRIPT", "n": [1, 2]});
        let text = script_json(&value);
        assert!(!text.contains('<') && !text.contains('>') && !text.contains('&'));
        assert!(!text.to_lowercase().contains("</script"));
        assert_eq!(serde_json::from_str::<Json>(&text).unwrap(), value);
    }

    #[test]
    fn lines_are_stored_once_and_prompts_are_line_numbers() {
        let mut interner = Interner::default();
        let message = |content: &str| crate::render::RenderedMessage {
            role: ptc_plugin_api::Role::User,
            content: std::sync::Arc::new(content.into()),
            blocks: Vec::new().into(),
        };
        let prompt = |contents: &[&str]| Prompt {
            strategy: "s".into(),
            turns: 0,
            messages: contents.iter().map(|c| message(c)).collect(),
            stats: Default::default(),
            prefix_tokens: 0,
        };
        assert_eq!(interner.prompt(&prompt(&["a\nb"])), [0, 1, 2]);
        assert_eq!(
            interner.prompt(&prompt(&["a\nb", "b\nc"])),
            [0, 1, 2, 0, 2, 3]
        );
        assert_eq!(interner.lines, ["=== user ===", "a", "b", "c"]);
        assert_eq!(interner.references, 9);
        assert_eq!(interner.bytes, "=== user ===abc".len());
        assert!(interner.within(Budget {
            bytes: 15,
            lines: 9
        }));
        assert!(!interner.within(Budget {
            bytes: 14,
            lines: 9
        }));
        assert!(!interner.within(Budget {
            bytes: 15,
            lines: 8
        }));
    }
}
