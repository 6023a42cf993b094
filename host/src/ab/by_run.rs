//! A corpus billed by several profiles, priced run by run: each run is priced by the profile
//! its usage names and by no other of those billed, so that the column of a profile holds
//! its own runs, its ratio to the baseline compares them, and the columns add up to what the
//! corpus was billed as. The profiles no run was billed by (what-if columns) still price
//! every run.
//!
//! The column `as-billed` adds them up: each run at the prices it was billed at. It is the
//! cost column of such a corpus.
//!
//! A column belongs to the billed profile whose name it is, or extends with keys
//! (`deepseek@hits=none`, `anthropic@breakpoints=auto`), the longest such name when several
//! match (`anthropic@model=claude-haiku-4-5@breakpoints=auto` is Haiku's, not `anthropic`'s).

use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use crate::ab::bill::billed_by_turn;
use crate::pricing::{Pricing, ProfileInfo};
use crate::recording::Recording;

/// The column of a corpus priced run by run that adds up the billed profiles' columns.
pub const AS_BILLED: &str = "as-billed";

/// The column [`AS_BILLED`] of `pricing`, and those of the billed profiles `names`, it adds
/// up.
pub(crate) fn summed(pricing: &[Pricing], names: &[String]) -> Option<(usize, Vec<usize>)> {
    let slot = pricing.iter().position(|p| p.name == AS_BILLED)?;
    let columns = pricing
        .iter()
        .enumerate()
        .filter(|(_, p)| names.contains(&p.name))
        .map(|(i, _)| i)
        .collect();
    Some((slot, columns))
}

/// Per column of `pricing`, whether it prices some runs only: it belongs to one of the billed
/// profiles `names`, or is [`AS_BILLED`].
pub(crate) fn partial_columns(pricing: &[Pricing], names: &[String]) -> Vec<bool> {
    pricing
        .iter()
        .map(|p| !names.is_empty() && (p.name == AS_BILLED || owner(names, &p.name).is_some()))
        .collect()
}

/// How the parts merged so far (`sum`) and the next one (`part`, read from `file`; the first
/// when `first`) were priced run by run: refused when they differ.
pub(crate) fn merged(
    sum: Option<PricedByRun>,
    part: Option<&PricedByRun>,
    first: bool,
    file: &std::path::Path,
) -> Result<Option<PricedByRun>, crate::Error> {
    let refused = |why: &str| crate::Error::MergeRefused {
        reason: format!("{} {why}", file.display()),
    };
    match (sum, part) {
        (None, None) => Ok(None),
        (Some(sum), Some(more)) => sum
            .merged(more)
            .map(Some)
            .ok_or_else(|| refused("was priced run by run by other profiles than the parts before it")),
        (None, Some(part)) if first => Ok(Some(part.clone())),
        _ => Err(refused(
            "and the parts before it differ in whether each run is priced by the profile it was billed by",
        )),
    }
}

/// Whether the recordings `judged` is judged on put any token in the column `own`: a corpus
/// priced run by run leaves a billed profile's column empty on the runs of another.
pub(crate) fn priced_any(judged: &crate::ab::Judged, own: usize) -> bool {
    judged
        .baseline
        .cache
        .get(own)
        .is_none_or(|c| c.read.saturating_add(c.written).saturating_add(c.plain) > 0)
}

/// How the runs of a corpus priced run by run were priced: reported under the tables.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PricedByRun {
    /// Each billed profile and how many runs it priced.
    pub profiles: Vec<(String, usize)>,
    /// The runs no billed profile priced (their usage names another profile, or none), in
    /// corpus order: they count in no column of a billed profile.
    pub unpriced: Vec<Unpriced>,
    /// The runs whose calls were billed under several of the profiles, in corpus order: each
    /// turn is priced by its own call's profile, and the run counts in each of them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub split: Vec<Split>,
}

/// A run of a corpus priced run by run whose calls were billed under several profiles.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Split {
    /// Its position in the corpus.
    pub position: usize,
    pub run: String,
    /// Each profile and how many of the run's turns it priced, in the order of its calls.
    pub turns: Vec<(String, usize)>,
}

/// A run of a corpus priced run by run that no billed profile priced.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Unpriced {
    /// Its position in the corpus.
    pub position: usize,
    pub run: String,
    /// The profile its usage names, when it names one.
    pub billed: Option<String>,
}

/// Per billed profile, the runs it priced; the runs none priced; the runs several did.
type Tally = (Vec<usize>, Vec<(usize, String, Option<String>)>, Vec<Split>);

/// How one run is priced, run by run: per turn, the billed profile of its call.
#[derive(Clone, Debug, Default)]
pub(super) struct RunPricing {
    owner: Vec<Option<usize>>,
    columns: Vec<Option<usize>>,
    slot: Option<usize>,
    /// Per turn, the billed profile that prices it; empty when none does (the run is in the
    /// what-if columns only).
    turns: Vec<usize>,
}

impl RunPricing {
    /// Whether the prompt before turn `turn` is left out of `column`: a billed profile's column
    /// other than the one that priced the turn's call, or [`AS_BILLED`] (it takes that one's
    /// costs).
    pub fn skipped(&self, column: usize, turn: usize) -> bool {
        let own = self.turns.get(turn).copied();
        let owner = self.owner.get(column).copied().flatten();
        (owner.is_some() && owner != own) || Some(column) == self.slot
    }

    /// The column [`AS_BILLED`] takes the costs of turn `turn` from, the billed profile's.
    pub fn as_billed(&self, turn: usize) -> Option<(usize, usize)> {
        let own = *self.turns.get(turn)?;
        self.slot.zip(self.columns.get(own).copied().flatten())
    }
}

/// The billed profiles and, per column, the one it belongs to; the tally as runs are read.
pub(super) struct ByRun {
    names: Vec<String>,
    owner: Vec<Option<usize>>,
    /// The column of each billed profile, and [`AS_BILLED`]'s.
    columns: Vec<Option<usize>>,
    slot: Option<usize>,
    configured: Vec<Pricing>,
    info: Vec<ProfileInfo>,
    tally: Mutex<Tally>,
}

impl ByRun {
    /// The pricing run by run of the profiles `names` among `columns`; `None` when `names` is
    /// empty (every run priced by every profile).
    pub fn new(
        names: &[String],
        columns: &[Pricing],
        configured: Vec<Pricing>,
        info: Vec<ProfileInfo>,
    ) -> Option<ByRun> {
        if names.is_empty() {
            return None;
        }
        let owner = columns.iter().map(|c| owner(names, &c.name)).collect();
        let column = |name: &str| columns.iter().position(|c| c.name == name);
        Some(ByRun {
            names: names.to_vec(),
            owner,
            columns: names.iter().map(|n| column(n)).collect(),
            slot: column(AS_BILLED),
            configured,
            info,
            tally: Mutex::new((vec![0; names.len()], Vec::new(), Vec::new())),
        })
    }

    /// How `recording` (the `index`th of the corpus) is priced: each turn in the column of the
    /// billed profile that priced its call, and in [`AS_BILLED`]; left out of the other billed
    /// profiles' columns.
    pub fn run(&self, index: usize, recording: &Recording) -> RunPricing {
        let named = billed_by_turn(recording, &self.configured, &self.info);
        let owners: Option<Vec<usize>> = named.as_ref().and_then(|turns| {
            turns
                .iter()
                .map(|n| self.names.iter().position(|name| name == n))
                .collect()
        });
        let mut tally = self.tally.lock().expect("no panic holds it");
        match &owners {
            Some(owners) => {
                let mut calls: Vec<(usize, usize)> = Vec::new();
                for &own in owners {
                    match calls.iter_mut().find(|(p, _)| *p == own) {
                        Some((_, turns)) => *turns += 1,
                        None => calls.push((own, 1)),
                    }
                }
                for &(own, _) in &calls {
                    tally.0[own] += 1;
                }
                if calls.len() > 1 {
                    let calls = calls
                        .iter()
                        .map(|&(own, turns)| (self.names[own].clone(), turns))
                        .collect();
                    tally.2.push(Split {
                        position: index,
                        run: recording.label().display().to_string(),
                        turns: calls,
                    });
                }
            }
            None => tally.1.push((
                index,
                recording.label().display().to_string(),
                named.and_then(|turns| turns.first().cloned()),
            )),
        }
        RunPricing {
            owner: self.owner.clone(),
            columns: self.columns.clone(),
            slot: self.slot,
            turns: owners.unwrap_or_default(),
        }
    }

    /// What the runs were priced by, the unpriced ones in corpus order.
    pub fn finish(self) -> PricedByRun {
        let (counts, mut unpriced, mut split) = self.tally.into_inner().expect("no panic holds it");
        unpriced.sort_by_key(|(index, _, _)| *index);
        split.sort_by_key(|s| s.position);
        PricedByRun {
            profiles: self.names.into_iter().zip(counts).collect(),
            split,
            unpriced: unpriced
                .into_iter()
                .map(|(position, run, billed)| Unpriced {
                    position,
                    run,
                    billed,
                })
                .collect(),
        }
    }
}

/// The billed profile column `column` belongs to: the longest of `names` it is or extends
/// with keys.
fn owner(names: &[String], column: &str) -> Option<usize> {
    names
        .iter()
        .enumerate()
        .filter(|(_, n)| {
            column == n.as_str()
                || column
                    .strip_prefix(n.as_str())
                    .is_some_and(|rest| rest.starts_with('@'))
        })
        .max_by_key(|(_, n)| n.len())
        .map(|(i, _)| i)
}

impl PricedByRun {
    /// Adds the runs of another part of the same corpus: the counts summed, the unpriced runs
    /// in corpus order. `None` when the parts were not priced by the same profiles.
    pub fn merged(mut self, other: &PricedByRun) -> Option<PricedByRun> {
        if self.profiles.len() != other.profiles.len() {
            return None;
        }
        for ((name, runs), (other_name, more)) in self.profiles.iter_mut().zip(&other.profiles) {
            if name != other_name {
                return None;
            }
            *runs = runs.checked_add(*more)?;
        }
        self.unpriced.extend(other.unpriced.iter().cloned());
        self.unpriced.sort_by_key(|u| u.position);
        self.split.extend(other.split.iter().cloned());
        self.split.sort_by_key(|s| s.position);
        Some(self)
    }

    /// The lines under the tables: what each billed profile priced, and the runs none did.
    pub fn note(&self) -> String {
        let priced: Vec<String> = self
            .profiles
            .iter()
            .map(|(name, runs)| format!("{name} {runs}"))
            .collect();
        let mut out = format!(
            "priced run by run: each run by the profile its usage names, in that profile's column only (runs: {})\n",
            priced.join(", ")
        );
        if !self.unpriced.is_empty() {
            out.push_str(&format!(
                "  {} run(s) priced by none of them, in the what-if columns only:\n",
                self.unpriced.len()
            ));
            for Unpriced { run, billed, .. } in self.unpriced.iter().take(5) {
                let why = match billed {
                    Some(name) => format!("billed under {name} (`--pricing {name}` prices it)"),
                    None => "no usage names its provider".to_owned(),
                };
                out.push_str(&format!("    {run}: {why}\n"));
            }
            if self.unpriced.len() > 5 {
                out.push_str(&format!("    and {} more\n", self.unpriced.len() - 5));
            }
        }
        if !self.split.is_empty() {
            out.push_str(&format!(
                "  {} run(s) billed under several of them, priced call by call (each turn by its call's profile, the run in each column):\n",
                self.split.len()
            ));
            for Split { run, turns, .. } in self.split.iter().take(5) {
                let turns: Vec<String> = turns
                    .iter()
                    .map(|(name, turns)| format!("{name} {turns} turn(s)"))
                    .collect();
                out.push_str(&format!("    {run}: {}\n", turns.join(", ")));
            }
            if self.split.len() > 5 {
                out.push_str(&format!("    and {} more\n", self.split.len() - 5));
            }
        }
        out
    }

    /// What a verdict under the column of `name` says of its runs (short, long), when it
    /// belongs to a billed profile.
    pub fn qualifier(&self, name: &str) -> Option<(String, String)> {
        let runs = self.runs_of(name)?;
        let short = match runs {
            1 => "its 1 billed run".to_owned(),
            _ => format!("its {runs} billed runs"),
        };
        let long = match runs {
            1 => "on the 1 run billed under it (priced run by run)".to_owned(),
            _ => format!("on the {runs} runs billed under it (priced run by run)"),
        };
        Some((short, long))
    }

    /// How many runs the column of `name` holds, when it belongs to a billed profile.
    pub fn runs_of(&self, name: &str) -> Option<usize> {
        let names: Vec<String> = self.profiles.iter().map(|(n, _)| n.clone()).collect();
        owner(&names, name).map(|i| self.profiles[i].1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn a_column_belongs_to_the_longest_billed_name_it_extends_with_keys() {
        let billed = names(&["anthropic", "anthropic@model=claude-haiku-4-5", "deepseek"]);
        assert_eq!(owner(&billed, "anthropic"), Some(0));
        assert_eq!(owner(&billed, "anthropic@breakpoints=auto"), Some(0));
        assert_eq!(owner(&billed, "anthropic@model=claude-haiku-4-5"), Some(1));
        assert_eq!(
            owner(&billed, "anthropic@model=claude-haiku-4-5@breakpoints=auto"),
            Some(1)
        );
        assert_eq!(owner(&billed, "deepseek@hits=none"), Some(2));
        // A name that merely starts alike is another profile: a what-if column.
        assert_eq!(owner(&billed, "deepseek-reasoner"), None);
        assert_eq!(owner(&billed, "openrouter-deepseek"), None);
        assert_eq!(owner(&billed, "gemini"), None);
    }

    #[test]
    fn the_note_names_what_each_profile_priced_and_the_runs_none_did() {
        let priced = PricedByRun {
            profiles: vec![("anthropic".into(), 3), ("deepseek".into(), 8)],
            unpriced: vec![
                Unpriced {
                    position: 0,
                    run: "a.json".into(),
                    billed: Some("gemini".into()),
                },
                Unpriced {
                    position: 4,
                    run: "b.json".into(),
                    billed: None,
                },
            ],
            split: vec![Split {
                position: 3,
                run: "routed.json".into(),
                turns: vec![("deepseek".into(), 10), ("anthropic".into(), 6)],
            }],
        };
        let note = priced.note();
        assert!(note.contains("(runs: anthropic 3, deepseek 8)"), "{note}");
        assert!(note.contains("2 run(s) priced by none of them"), "{note}");
        assert!(
            note.contains("a.json: billed under gemini (`--pricing gemini` prices it)"),
            "{note}"
        );
        assert!(
            note.contains("b.json: no usage names its provider"),
            "{note}"
        );
        assert!(
            note.contains("1 run(s) billed under several of them, priced call by call"),
            "{note}"
        );
        assert!(
            note.contains("    routed.json: deepseek 10 turn(s), anthropic 6 turn(s)\n"),
            "{note}"
        );
        assert_eq!(priced.runs_of("deepseek@hits=none"), Some(8));
        assert_eq!(priced.runs_of("gemini"), None);
        // Parts add up, their unpriced runs in corpus order.
        let other = PricedByRun {
            profiles: vec![("anthropic".into(), 1), ("deepseek".into(), 0)],
            unpriced: vec![Unpriced {
                position: 2,
                run: "c.json".into(),
                billed: None,
            }],
            split: vec![Split {
                position: 1,
                run: "first.json".into(),
                turns: vec![("anthropic".into(), 1), ("deepseek".into(), 1)],
            }],
        };
        let merged = priced.clone().merged(&other).unwrap();
        assert_eq!(
            merged.profiles,
            [("anthropic".to_owned(), 4), ("deepseek".to_owned(), 8)]
        );
        let runs: Vec<&str> = merged.unpriced.iter().map(|u| u.run.as_str()).collect();
        assert_eq!(runs, ["a.json", "c.json", "b.json"]);
        let split: Vec<&str> = merged.split.iter().map(|s| s.run.as_str()).collect();
        assert_eq!(split, ["first.json", "routed.json"]);
        let renamed = PricedByRun {
            profiles: vec![("gemini".into(), 1), ("deepseek".into(), 0)],
            ..other
        };
        assert_eq!(priced.merged(&renamed), None);
    }

    #[test]
    fn each_turn_is_priced_in_the_column_of_its_calls_profile() {
        // Columns: anthropic, anthropic@breakpoints=auto, deepseek, gemini (what-if), as-billed.
        let pricing = RunPricing {
            owner: vec![Some(0), Some(0), Some(1), None, None],
            columns: vec![Some(0), Some(2)],
            slot: Some(4),
            turns: vec![1, 1, 0],
        };
        let left_out =
            |turn: usize| -> Vec<bool> { (0..5).map(|c| pricing.skipped(c, turn)).collect() };
        assert_eq!(left_out(0), [true, true, false, false, true]);
        assert_eq!(left_out(2), [false, false, true, false, true]);
        assert_eq!(pricing.as_billed(0), Some((4, 2)));
        assert_eq!(pricing.as_billed(2), Some((4, 0)));
        // A run no billed profile priced is in the what-if columns only.
        let unpriced = RunPricing {
            turns: Vec::new(),
            ..pricing
        };
        let left_out: Vec<bool> = (0..5).map(|c| unpriced.skipped(c, 0)).collect();
        assert_eq!(left_out, [true, true, true, false, true]);
        assert_eq!(unpriced.as_billed(0), None);
    }
}
