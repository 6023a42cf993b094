//! Merging the parts of a split run (`ptc ab merge`) into the results one run over the whole
//! corpus gives: the parts must come from one split (the same number of shards, each once,
//! none missing unless allowed), of one corpus, measured with one fingerprint. Sums are added,
//! each variant's first error is the one of the lowest corpus position, the recordings that
//! could not be read and the rows are put back in corpus order, and costs are priced from the
//! summed tokens, so the result is the same, byte for byte, as one run's.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};
use std::path::{Path, PathBuf};

use serde_json::Value as Json;

use crate::ab::partial::{self, CheckedRows, Fingerprint, Part, RowReader};
use crate::ab::shard::Shard;
use crate::ab::totals::{Judged, Totals};
use crate::ab::{Ab, BadRecording, BadRecordings, RunDetail, Summary, Variant};
use crate::pricing::Pricing;
use crate::Error;

mod check;
mod sums;

use check::{check, fitting, RowCheck};

/// The merged results, and what they cover.
pub struct Merged {
    pub ab: Ab,
    /// Recordings of the parts merged (the whole corpus when no shard is missing).
    pub sources: usize,
    /// Recordings of the whole corpus.
    pub corpus: usize,
    /// The number of shards of the split.
    pub shards: usize,
    /// The first few shards no part holds (only with `allow_missing`), at most
    /// [`NAMED_MISSING`].
    pub missing: Vec<usize>,
    /// How many shards no part holds.
    pub missing_count: usize,
    /// The profiles the shards were asked to price ([`crate::ab::AbPlan::asked_pricing`]).
    pub asked_pricing: Vec<String>,
}

/// How many missing shards a refusal or a warning names; the others are counted.
pub const NAMED_MISSING: usize = 5;

/// The missing shards `first` (the first few) of `count` missing of a split in `shards`:
/// `1/9, 4/9` or, when there are more than those named, `1/9, 2/9, ... and 3 more`.
pub fn missing_shards(first: &[usize], count: usize, shards: usize) -> String {
    let names: Vec<String> = first
        .iter()
        .map(|&index| {
            Shard {
                index,
                count: shards,
            }
            .to_string()
        })
        .collect();
    let mut text = names.join(", ");
    if count > first.len() {
        text.push_str(&format!(" and {} more", count - first.len()));
    }
    text
}

/// The part files `paths` name: a file, or every `.json` file directly in a directory, sorted
/// by name.
pub fn part_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, Error> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            let found = crate::recording::corpus::files_in(path, &["json"])?;
            if found.is_empty() {
                return Err(Error::MergeRefused {
                    reason: format!("no part in {} (no .json file)", path.display()),
                });
            }
            files.extend(found);
        } else {
            files.push(path.clone());
        }
    }
    Ok(files)
}

/// What takes the rows of a merge: each with the variants and pricing profiles of the parts.
pub type RowSink<'a> = dyn FnMut(RunDetail, &[Variant], &[Pricing]) -> Result<(), Error> + 'a;

/// Reads and merges the parts in `paths` (files or directories). With `rows`, every prompt's
/// row is handed to it in corpus order, as one run makes them: the rows of the parts are read
/// side by side, one at a time each, so nothing per recording is held but the recordings that
/// could not be read.
pub fn merge(
    paths: &[PathBuf],
    mut rows: Option<&mut RowSink<'_>>,
    allow_missing: bool,
) -> Result<Merged, Error> {
    let files = part_files(paths)?;
    let mut parts: Vec<(PathBuf, Part<CheckedRows>)> = Vec::with_capacity(files.len());
    let mut by_shard: BTreeMap<usize, PathBuf> = BTreeMap::new();
    for file in files {
        // Every part is read and checked whole, rows included, whatever is printed.
        let part = partial::read(&file, true)?;
        check(&file, &part)?;
        if let Some((first_file, first)) = parts.first() {
            agree(first_file, first, &file, &part)?;
        }
        if let Some(other) = by_shard.insert(part.shard.index, file.clone()) {
            return Err(Error::MergeRefused {
                reason: format!(
                    "{} and {} are both shard {}",
                    other.display(),
                    file.display(),
                    part.shard
                ),
            });
        }
        parts.push((file, part));
    }
    let Some((_, first)) = parts.first() else {
        return Err(Error::MergeRefused {
            reason: "no part given".into(),
        });
    };
    let shards = first.shard.count;
    // Every part's index is below the count, and no two are equal: what is missing is
    // counted, and only the first few are looked for (among the first indexes past the parts').
    let missing_count = shards - by_shard.len();
    let missing: Vec<usize> = (0..shards)
        .filter(|k| !by_shard.contains_key(k))
        .take(NAMED_MISSING)
        .collect();
    if missing_count > 0 && !allow_missing {
        return Err(Error::MergeRefused {
            reason: format!(
                "shard {} missing (--allow-missing merges the parts given)",
                missing_shards(&missing, missing_count, shards)
            ),
        });
    }
    let held = parts
        .iter()
        .fold(0usize, |sum, (_, part)| sum.saturating_add(part.sources));
    if held > first.corpus.recordings {
        return Err(Error::MergeRefused {
            reason: format!(
                "the parts hold {held} recordings of a corpus of {}",
                first.corpus.recordings
            ),
        });
    }
    let print = first.fingerprint.clone();
    let corpus = first.corpus.recordings;
    let pricing: Vec<Pricing> = print.pricing.clone();
    let variants: Vec<Variant> = print
        .variants
        .iter()
        .map(|v| Variant {
            label: v.label.clone(),
            strategy: v.strategy.clone(),
            options: v.asked.clone(),
        })
        .collect();
    let mut each = |run: RunDetail| match rows.as_mut() {
        Some(each) => each(run, &variants, &pricing),
        None => Ok(()),
    };
    merge_rows(&parts, &print, corpus, &pricing, &mut each)?;
    let mut totals = Totals::new(print.variants.len(), pricing.len(), print.baseline);
    let mut bad = Vec::new();
    let mut timed = 0;
    let mut lacking = vec![crate::ab::Lacking::default(); print.variants.len()];
    let mut rebuilt: Vec<crate::ab::RebuiltRun> = Vec::new();
    let mut by_run: Option<crate::ab::PricedByRun> = None;
    for (index, (file, part)) in parts.into_iter().enumerate() {
        // What its recordings lack: one entry per variant at most, each about no more
        // recordings than the part holds, with what they lack named when there are some.
        let bad_lack = part.lacking.iter().position(|l| {
            l.recordings > part.recordings || (l.recordings == 0) != l.kinds.is_empty()
        });
        if part.lacking.len() > print.variants.len() || bad_lack.is_some() {
            return Err(Error::PartialInconsistent {
                path: file.clone(),
                reason: format!(
                    "lacking{} does not fit its {} variants and {} recordings",
                    bad_lack.map_or(String::new(), |i| format!("[{i}]")),
                    print.variants.len(),
                    part.recordings
                ),
            });
        }
        if part.timed_recordings > part.recordings {
            return Err(Error::PartialInconsistent {
                path: file.clone(),
                reason: format!(
                    "timed_recordings: {} of {} recordings",
                    part.timed_recordings, part.recordings
                ),
            });
        }
        timed += part.timed_recordings;
        for (sum, more) in lacking.iter_mut().zip(&part.lacking) {
            *sum = sum.merged(more);
        }
        rebuilt.extend(part.rebuilt.iter().cloned());
        by_run = crate::ab::by_run::merged(by_run, part.by_run.as_ref(), index == 0, &file)?;
        let summaries: Vec<Summary> = part.summaries.iter().map(|s| s.summary()).collect();
        // Not written: every variant is judged on every recording of the part.
        let judged = match part.judged.is_empty() {
            true => summaries
                .iter()
                .map(|s| Judged {
                    recordings: part.recordings,
                    summary: s.clone(),
                    baseline: summaries[print.baseline].clone(),
                })
                .collect(),
            false => part
                .judged
                .iter()
                .map(|j| Judged {
                    recordings: j.recordings,
                    summary: j.summary.summary(),
                    baseline: j.baseline.summary(),
                })
                .collect(),
        };
        totals
            .merge(&Totals {
                recordings: part.recordings,
                baseline: print.baseline,
                judged,
                summaries,
                turns: part.turns,
                first_failure: part
                    .summaries
                    .iter()
                    .map(|s| s.first_error_position)
                    .collect(),
                dropped: part.dropped,
                cited_runs: part.cited_runs,
            })
            .map_err(|place| Error::MergeRefused {
                reason: format!(
                    "{place} of {} does not fit in a sum with the parts before it",
                    file.display()
                ),
            })?;
        bad.extend(part.bad_recordings.into_iter().map(|b| BadRecording {
            index: b.position,
            label: b.recording,
            error: b.error,
        }));
    }
    totals.price(&pricing, &print.by_run);
    // Every price is finite and not negative, and every cost of a row or a turn is at most
    // the cost of its variant's sums: checking these checks them all.
    for (v, summary) in totals.summaries.iter().enumerate() {
        if let Some((i, cost)) = summary
            .costs
            .iter()
            .enumerate()
            .find(|(_, cost)| !cost.is_finite())
        {
            return Err(Error::MergeRefused {
                reason: format!(
                    "the cost of strategy {} under pricing {} is not a finite number ({cost}): fingerprint.pricing[{i}] prices too high for summaries[{v}]",
                    variants[v].label, pricing[i].name
                ),
            });
        }
    }
    bad.sort_by_key(|b| b.index);
    let mut bad_recordings = BadRecordings::default();
    for b in bad {
        bad_recordings.push(b)?;
    }
    let tokenizer = crate::host::tokenizer_named(&print.tokenizer)?;
    let recordings = totals.recordings;
    let unjudged = lacking
        .iter()
        .zip(&totals.judged)
        .map(|(l, judged)| l.unjudged(judged.recordings, recordings))
        .collect();
    Ok(Merged {
        ab: Ab {
            variants,
            baseline: print.baseline,
            pricing,
            primary_pricing: print.primary_pricing,
            tokenizer,
            totals,
            runs: Vec::new(),
            baseline_added: print.baseline_added,
            bad_recordings,
            // Parts do not say: `ptc bill` compares the corpus with its bill.
            billed_recordings: 0,
            timed_recordings: Some(timed),
            unjudged,
            lacking,
            requirements: crate::ab::report::Requirements::default(),
            billed: Default::default(),
            // In the order one run lists them.
            rebuilt: {
                rebuilt.sort_by(|a, b| a.recording.cmp(&b.recording));
                rebuilt
            },
            by_run,
        },
        sources: held,
        corpus,
        shards,
        missing,
        missing_count,
        asked_pricing: print.asked_pricing.clone(),
    })
}

/// Hands the rows of every part to `each` in corpus order. Each part lists its rows in corpus
/// order and no two parts share a recording, so taking the row of the lowest position among
/// the parts' next rows (ties are rows of one recording, in one part) gives the order of one
/// run. Each row is checked as it is read ([`RowCheck`]).
fn merge_rows(
    parts: &[(PathBuf, Part<CheckedRows>)],
    print: &Fingerprint,
    corpus: usize,
    pricing: &[Pricing],
    each: &mut dyn FnMut(RunDetail) -> Result<(), Error>,
) -> Result<(), Error> {
    let mut readers = Vec::with_capacity(parts.len());
    let mut next = BinaryHeap::new();
    for (i, (file, part)) in parts.iter().enumerate() {
        let mut reader = RowReader::open(file, part.runs.count)?;
        let mut check = RowCheck::new(file, part);
        let row = fitting(file, &mut reader, &mut check, print, corpus)?;
        if let Some(row) = &row {
            next.push(Reverse((row.position, i)));
        }
        readers.push((file, reader, check, row));
    }
    while let Some(Reverse((_, i))) = next.pop() {
        let (file, reader, check, current) = &mut readers[i];
        let row = current.take().expect("a part in the heap has a row");
        each(row.detail(pricing, &print.by_run))?;
        *current = fitting(file, reader, check, print, corpus)?;
        if let Some(row) = current {
            next.push(Reverse((row.position, i)));
        }
    }
    Ok(())
}

/// Refuses `part` unless it comes from the split, the corpus and the settings of `first`.
fn agree(
    first_path: &Path,
    first: &Part<CheckedRows>,
    path: &Path,
    part: &Part<CheckedRows>,
) -> Result<(), Error> {
    let refuse = |what: String| {
        Err(Error::MergeRefused {
            reason: format!("{} and {} {what}", first_path.display(), path.display()),
        })
    };
    if first.shard.count != part.shard.count {
        return refuse(format!(
            "come from different splits (shard {} and shard {})",
            first.shard, part.shard
        ));
    }
    if first.corpus.recordings == part.corpus.recordings
        && first.corpus.identities == part.corpus.identities
        && first.corpus.contents != part.corpus.contents
    {
        let hash = |h: &str| match h {
            "" => "none: written before parts kept it".to_owned(),
            h => h.to_owned(),
        };
        return Err(Error::MergeRefused {
            reason: format!(
                "{} was run on other contents of the corpus than {}: the same {} recordings, \
                 but their bytes differ (contents {} and {}); measure every shard of the \
                 corpus as it is now",
                path.display(),
                first_path.display(),
                part.corpus.recordings,
                hash(&part.corpus.contents),
                hash(&first.corpus.contents),
            ),
        });
    }
    if first.corpus != part.corpus {
        return refuse(format!(
            "were run on different corpora ({} and {} recordings, identities {} and {})",
            first.corpus.recordings,
            part.corpus.recordings,
            first.corpus.identities,
            part.corpus.identities
        ));
    }
    if first.fingerprint != part.fingerprint {
        let (a, b) = (
            serde_json::to_value(&first.fingerprint).expect("a fingerprint serializes"),
            serde_json::to_value(&part.fingerprint).expect("a fingerprint serializes"),
        );
        let (place, x, y) = difference(&a, &b, "fingerprint".into())
            .unwrap_or_else(|| ("fingerprint".into(), a.to_string(), b.to_string()));
        return refuse(format!(
            "were measured with different settings: {place} is {x} and {y}"
        ));
    }
    Ok(())
}

/// The first place where `a` and `b` differ (keys in name order), with both values there.
fn difference(a: &Json, b: &Json, at: String) -> Option<(String, String, String)> {
    match (a, b) {
        (Json::Object(x), Json::Object(y)) => {
            for (key, value) in x {
                match y.get(key) {
                    Some(other) => {
                        if let Some(found) = difference(value, other, format!("{at}.{key}")) {
                            return Some(found);
                        }
                    }
                    None => {
                        return Some((format!("{at}.{key}"), value.to_string(), "absent".into()))
                    }
                }
            }
            y.keys()
                .find(|key| !x.contains_key(*key))
                .map(|key| (format!("{at}.{key}"), "absent".into(), y[key].to_string()))
        }
        (Json::Array(x), Json::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (u, v))| difference(u, v, format!("{at}[{i}]"))),
        _ => (a != b).then(|| (at, a.to_string(), b.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn missing_shards_are_named_up_to_a_few_and_counted() {
        assert_eq!(missing_shards(&[2], 1, 3), "2/3");
        assert_eq!(missing_shards(&[0, 2], 2, 3), "0/3, 2/3");
        assert_eq!(
            missing_shards(&[0, 1, 2, 3, 4], usize::MAX, usize::MAX),
            format!(
                "0/{m}, 1/{m}, 2/{m}, 3/{m}, 4/{m} and {} more",
                usize::MAX - 5,
                m = usize::MAX
            )
        );
    }

    #[test]
    fn sums_that_do_not_fit_are_refused_naming_their_place() {
        let part = |tokens: usize, recordings: usize| Totals {
            recordings,
            summaries: vec![
                crate::ab::Summary::default(),
                crate::ab::Summary {
                    tokens,
                    ..crate::ab::Summary::default()
                },
            ],
            turns: vec![Vec::new(), Vec::new()],
            first_failure: vec![None, None],
            baseline: 0,
            judged: Vec::new(),
            dropped: Vec::new(),
            cited_runs: None,
        };
        let mut totals = Totals::new(2, 1, 0);
        totals.merge(&part(usize::MAX - 10, 1)).unwrap();
        assert_eq!(
            totals.merge(&part(11, 1)),
            Err("summaries[1].tokens".to_owned())
        );
        let mut totals = Totals::new(2, 1, 0);
        totals.merge(&part(1, usize::MAX)).unwrap();
        assert_eq!(totals.merge(&part(1, 1)), Err("recordings".to_owned()));
    }

    #[test]
    fn the_first_difference_is_named_by_its_place() {
        let a = json!({"variants": [{"options": {"x": 1, "y": 2}}], "tokenizer": "o200k_base"});
        let b = json!({"variants": [{"options": {"x": 1, "y": 3}}], "tokenizer": "o200k_base"});
        assert_eq!(
            difference(&a, &b, "fingerprint".into()),
            Some((
                "fingerprint.variants[0].options.y".into(),
                "2".into(),
                "3".into()
            ))
        );
        let c = json!({"variants": [{"options": {"x": 1}}, {}], "tokenizer": "o200k_base"});
        assert_eq!(
            difference(&a, &c, "f".into()).map(|d| d.0),
            Some("f.variants".into()),
            "lists of different lengths differ as a whole"
        );
        let d = json!({"variants": [{"options": {"x": 1, "y": 2}}]});
        assert_eq!(
            difference(&a, &d, "f".into()),
            Some((
                "f.tokenizer".into(),
                "\"o200k_base\"".into(),
                "absent".into()
            ))
        );
        assert_eq!(difference(&a, &a, "f".into()), None);
    }
}
