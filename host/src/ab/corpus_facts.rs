//! What a run learns of its corpus besides the measures: the recordings that could not be read
//! ([`BadRecordings`]), those that lack what a strategy's prompts are made from ([`Lacking`]),
//! and those whose as-sent baseline is rebuilt from their log ([`RebuiltRun`]).

use crate::ab::spool::Spool;
use crate::Error;

/// A recording whose requests were not recorded but rebuilt from the conversation its log
/// holds: its as-sent baseline and every strategy's prompt lead with a prefix inferred from
/// the bill in place of the system prompt and tool schemas the log does not hold.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RebuiltRun {
    /// What it is called (its name, else where it is).
    pub recording: String,
    /// The inferred prefix in tokens; `None` when it could not be inferred (no usage on the
    /// first call, or a bill smaller than the conversation): then no prompt of the run has
    /// its real size, and nothing is judged on it.
    pub inferred_prefix_tokens: Option<u64>,
}

/// The recordings of a corpus that lack data a variant's prompts are made from.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lacking {
    /// How many.
    pub recordings: usize,
    /// What they lack, as a recording's `lacks` names it, in name order.
    pub kinds: Vec<String>,
}

impl Lacking {
    /// What the recordings lack, of the `read` of a corpus, or `None` when none of them lacks
    /// anything a variant needs: `3 of 8 recording(s) lack requests, which its prompts are made
    /// from`.
    pub fn reason(&self, read: usize) -> Option<String> {
        (self.recordings > 0).then(|| {
            format!(
                "{} of {read} recording(s) lack {}, which its prompts are made from",
                self.recordings,
                self.kinds.join(", ")
            )
        })
    }

    /// Why a variant is not judged at all on a corpus of `read` recordings, when it is judged
    /// (with the baseline) on none: a variant judged on some is judged on those alone.
    pub fn unjudged(&self, judged: usize, read: usize) -> Option<String> {
        if read == 0 || judged > 0 {
            return None;
        }
        Some(self.reason(read).unwrap_or_else(|| {
            "the baseline is not judged on the recordings it is judged on".to_owned()
        }))
    }

    /// `self` and `more`, the recordings of two parts of a corpus.
    pub fn merged(&self, more: &Lacking) -> Lacking {
        let mut kinds: Vec<String> = self.kinds.iter().chain(&more.kinds).cloned().collect();
        kinds.sort();
        kinds.dedup();
        Lacking {
            recordings: self.recordings.saturating_add(more.recordings),
            kinds,
        }
    }
}

/// A recording that could not be read.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct BadRecording {
    /// Its position in the corpus.
    pub index: usize,
    /// Where it is: the file, `file:line` for a JSONL line.
    pub label: String,
    /// Why it could not be read.
    pub error: String,
}

/// The recordings that could not be read, in corpus order: the first one held, every one
/// spooled (a corpus may be unreadable as a whole, a million times over).
#[derive(Default)]
pub struct BadRecordings {
    first: Option<BadRecording>,
    spool: Spool,
}

impl BadRecordings {
    /// Adds the next one, in corpus order.
    pub fn push(&mut self, bad: BadRecording) -> Result<(), Error> {
        let mut line = serde_json::to_string(&bad).expect("a bad recording serializes");
        line.push('\n');
        self.spool.push(&line)?;
        self.first.get_or_insert(bad);
        Ok(())
    }

    pub fn len(&self) -> usize {
        self.spool.len()
    }

    pub fn is_empty(&self) -> bool {
        self.spool.is_empty()
    }

    pub fn first(&self) -> Option<&BadRecording> {
        self.first.as_ref()
    }

    /// Every one, in corpus order.
    pub fn iter(&mut self) -> Result<impl Iterator<Item = Result<BadRecording, Error>>, Error> {
        Ok(self.spool.lines()?.map(|line| {
            let line = line?;
            Ok(serde_json::from_str(&line).expect("a bad recording spooled reads back"))
        }))
    }
}
