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

use crate::ab::bill::billed_profile;
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

/// The billed profiles and, per column, the one it belongs to; the tally as runs are read.
pub(super) struct ByRun {
    names: Vec<String>,
    owner: Vec<Option<usize>>,
    /// The column of each billed profile, and [`AS_BILLED`]'s.
    columns: Vec<Option<usize>>,
    slot: Option<usize>,
    configured: Vec<Pricing>,
    info: Vec<ProfileInfo>,
    tally: Mutex<(Vec<usize>, Vec<(usize, String, Option<String>)>)>,
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
            tally: Mutex::new((vec![0; names.len()], Vec::new())),
        })
    }

    /// Per column, whether `recording` (the `index`th of the corpus) is left out of it (the
    /// columns of the billed profiles other than its own, and [`AS_BILLED`]), and the column
    /// [`AS_BILLED`] takes its costs from.
    pub fn skip(&self, index: usize, recording: &Recording) -> (Vec<bool>, Option<(usize, usize)>) {
        let named = billed_profile(recording, &self.configured, &self.info);
        let own = named
            .as_deref()
            .and_then(|n| self.names.iter().position(|name| name == n));
        let mut tally = self.tally.lock().expect("no panic holds it");
        match own {
            Some(own) => tally.0[own] += 1,
            None => tally
                .1
                .push((index, recording.label().display().to_string(), named)),
        }
        let skip = self
            .owner
            .iter()
            .enumerate()
            .map(|(i, o)| (o.is_some() && *o != own) || Some(i) == self.slot)
            .collect();
        let copy = self.slot.zip(own.and_then(|own| self.columns[own]));
        (skip, copy)
    }

    /// What the runs were priced by, the unpriced ones in corpus order.
    pub fn finish(self) -> PricedByRun {
        let (counts, mut unpriced) = self.tally.into_inner().expect("no panic holds it");
        unpriced.sort_by_key(|(index, _, _)| *index);
        PricedByRun {
            profiles: self.names.into_iter().zip(counts).collect(),
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
        Some((
            short,
            format!("on the {runs} runs billed under it (priced run by run)"),
        ))
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
        };
        let merged = priced.clone().merged(&other).unwrap();
        assert_eq!(
            merged.profiles,
            [("anthropic".to_owned(), 4), ("deepseek".to_owned(), 8)]
        );
        let runs: Vec<&str> = merged.unpriced.iter().map(|u| u.run.as_str()).collect();
        assert_eq!(runs, ["a.json", "c.json", "b.json"]);
        let renamed = PricedByRun {
            profiles: vec![("gemini".into(), 1), ("deepseek".into(), 0)],
            ..other
        };
        assert_eq!(priced.merged(&renamed), None);
    }
}
