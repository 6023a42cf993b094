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

use crate::ab::partial::{self, CheckedRows, Fingerprint, Part, RowPart, RowReader};
use crate::ab::retention::Retention;
use crate::ab::shard::{identity_of_label, Shard};
use crate::ab::summary::{CacheTokens, Totals};
use crate::ab::{Ab, BadRecording, BadRecordings, RunDetail, Variant};
use crate::cache::Pricing;
use crate::hash::fnv1a64;
use crate::tokens::Tokenizer;
use crate::Error;

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
        let part = partial::read(&file, rows.is_some())?;
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
    let pricing: Vec<Pricing> = print.pricing.iter().map(Pricing::from).collect();
    let variants: Vec<Variant> = print
        .variants
        .iter()
        .map(|v| Variant {
            label: v.label.clone(),
            strategy: v.strategy.clone(),
            options: v.asked.clone(),
        })
        .collect();
    if let Some(each) = rows.as_mut() {
        let mut each = |run: RunDetail| each(run, &variants, &pricing);
        merge_rows(&parts, &print, corpus, &pricing, &mut each)?;
    }
    let mut totals = Totals::new(print.variants.len(), pricing.len());
    let mut bad = Vec::new();
    for (file, part) in parts {
        totals
            .merge(&Totals {
                recordings: part.recordings,
                summaries: part.summaries.iter().map(|s| s.summary()).collect(),
                turns: part.turns,
                first_failure: part
                    .summaries
                    .iter()
                    .map(|s| s.first_error_position)
                    .collect(),
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
    totals.price(&pricing);
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
    let tokenizer = crate::ab::tokenizer_named(&print.tokenizer)?;
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
        },
        sources: held,
        corpus,
        shards,
        missing,
        missing_count,
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
        each(row.detail(pricing))?;
        *current = fitting(file, reader, check, print, corpus)?;
        if let Some(row) = current {
            next.push(Reverse((row.position, i)));
        }
    }
    Ok(())
}

/// The next row of `reader`, refused unless it fits the fingerprint, the corpus and what
/// `check` has seen; after the last, the rows' sums are checked against the part's.
fn fitting(
    file: &Path,
    reader: &mut RowReader,
    check: &mut RowCheck,
    print: &Fingerprint,
    corpus: usize,
) -> Result<Option<RowPart>, Error> {
    let at = reader.read();
    let row = reader.next_row()?;
    let refuse = |reason: String| Error::PartialInconsistent {
        path: file.to_owned(),
        reason,
    };
    match &row {
        Some(row) => {
            if row.variant >= print.variants.len()
                || row.position >= corpus
                || row
                    .prompts
                    .iter()
                    .any(|p| p.cache.len() != print.pricing.len())
            {
                return Err(refuse(format!(
                    "runs[{at}] does not fit the fingerprint and corpus"
                )));
            }
            check.row(at, row).map_err(refuse)?;
        }
        None => check.finish().map_err(refuse)?,
    }
    Ok(row)
}

/// What the rows of one variant of a part add up to.
#[derive(Clone, Default)]
struct RowSums {
    rows: usize,
    prompts: usize,
    tokens: usize,
    max_tokens: usize,
    failed: usize,
    cache: Vec<CacheTokens>,
    retention: Retention,
}

/// The rows of a part, checked one at a time as they are read: each belongs to the part's
/// shard, comes after the one before it in corpus order (and, for one recording, in variant
/// order), bills each of its prompts' tokens once under every profile and shows no more
/// facts than there are; once the last is read, the rows of every variant add up to the
/// part's sums.
struct RowCheck<'a> {
    part: &'a Part<CheckedRows>,
    /// The position, variant and recording of the row before.
    last: Option<(usize, usize, String)>,
    /// Per variant.
    sums: Vec<RowSums>,
}

impl<'a> RowCheck<'a> {
    fn new(_file: &Path, part: &'a Part<CheckedRows>) -> RowCheck<'a> {
        RowCheck {
            part,
            last: None,
            sums: vec![RowSums::default(); part.summaries.len()],
        }
    }

    /// Checks row `at` and adds it up.
    fn row(&mut self, at: usize, row: &RowPart) -> Result<(), String> {
        let shard = self.part.shard;
        if let Some((position, variant, recording)) = &self.last {
            if (row.position, row.variant) <= (*position, *variant) {
                return Err(format!(
                    "runs[{at}] (position {}, strategy {}) comes after position {position}, strategy {variant}: rows are in corpus order, each once",
                    row.position, row.variant
                ));
            }
            if row.position == *position && row.recording != *recording {
                return Err(format!(
                    "runs[{at}].recording is `{}` where the row before, of the same position, is `{recording}`",
                    row.recording
                ));
            }
        }
        let identity = identity_of_label(&row.recording);
        if !shard.holds(&identity) {
            let index = (fnv1a64(identity.as_bytes()) % shard.count as u64) as usize;
            return Err(format!(
                "runs[{at}].recording: `{}` belongs to shard {}, not {shard}",
                row.recording,
                Shard {
                    index,
                    count: shard.count
                }
            ));
        }
        let sums = &mut self.sums[row.variant];
        let overflow = |field: &str| format!("runs[{at}].{field}: the sum of the rows overflows");
        sums.rows += 1;
        sums.prompts = sums
            .prompts
            .checked_add(row.prompts.len())
            .ok_or_else(|| overflow("prompts"))?;
        sums.failed += usize::from(row.error.is_some());
        sums.cache
            .resize(self.part.fingerprint.pricing.len(), CacheTokens::default());
        for (j, prompt) in row.prompts.iter().enumerate() {
            let place = format!("runs[{at}].prompts[{j}]");
            if let Some((i, billed)) = prompt
                .cache
                .iter()
                .enumerate()
                .find(|(_, c)| c.total() != Some(prompt.tokens))
            {
                return Err(format!(
                    "{place}.tokens: {} tokens, but cache[{i}] bills {}",
                    prompt.tokens,
                    billed.read as u128 + billed.written as u128 + billed.plain as u128
                ));
            }
            if prompt.shared > prompt.tokens {
                return Err(format!(
                    "{place}.shared: {} shared of {} tokens",
                    prompt.shared, prompt.tokens
                ));
            }
            shares_fit(&prompt.retention, &format!("{place}.retention"))?;
            sums.tokens = sums
                .tokens
                .checked_add(prompt.tokens)
                .ok_or_else(|| overflow(&format!("prompts[{j}].tokens")))?;
            sums.max_tokens = sums.max_tokens.max(prompt.tokens);
            for (total, more) in sums.cache.iter_mut().zip(&prompt.cache) {
                *total = total
                    .checked_add(*more)
                    .ok_or_else(|| overflow(&format!("prompts[{j}].cache")))?;
            }
            sums.retention = sums
                .retention
                .checked_add(&prompt.retention)
                .ok_or_else(|| overflow(&format!("prompts[{j}].retention")))?;
        }
        self.last = Some((row.position, row.variant, row.recording.clone()));
        Ok(())
    }

    /// Once the last row is read: the rows of every variant add up to the part's sums.
    fn finish(&self) -> Result<(), String> {
        let profiles = self.part.fingerprint.pricing.len();
        for (v, (rows, summary)) in self.sums.iter().zip(&self.part.summaries).enumerate() {
            let place = format!("summaries[{v}]");
            if rows.rows != self.part.recordings {
                return Err(format!(
                    "runs: {} rows of {place} (strategy {}) for {} recordings measured",
                    rows.rows, self.part.fingerprint.variants[v].label, self.part.recordings
                ));
            }
            let mut cache = summary.cache.clone();
            cache.resize(profiles, CacheTokens::default());
            let mut row_cache = rows.cache.clone();
            row_cache.resize(profiles, CacheTokens::default());
            for (field, sum, of_rows) in [
                ("prompts", summary.prompts, rows.prompts),
                ("tokens", summary.tokens, rows.tokens),
                ("max_tokens", summary.max_tokens, rows.max_tokens),
                ("failed", summary.failed, rows.failed),
            ] {
                if sum != of_rows {
                    return Err(format!("{place}.{field} is {sum}, the rows' is {of_rows}"));
                }
            }
            if cache != row_cache {
                return Err(format!("{place}.cache is not the sum of the rows'"));
            }
            if summary.retention != rows.retention {
                return Err(format!("{place}.retention is not the sum of the rows'"));
            }
        }
        Ok(())
    }
}

/// Refuses a retention that shows more facts of a category than there are.
fn shares_fit(retention: &Retention, place: &str) -> Result<(), String> {
    match retention
        .shares()
        .into_iter()
        .find(|(_, share)| share.visible > share.total)
    {
        Some((name, share)) => Err(format!(
            "{place}.{name}: {} shown of {}",
            share.visible, share.total
        )),
        None => Ok(()),
    }
}

/// Refuses a part whose figures do not fit its own fingerprint and corpus, so that nothing
/// downstream indexes out of range.
fn check(path: &Path, part: &Part<CheckedRows>) -> Result<(), Error> {
    let bad = |reason: String| {
        Err(Error::PartialInconsistent {
            path: path.to_owned(),
            reason,
        })
    };
    let print = &part.fingerprint;
    let version = env!("CARGO_PKG_VERSION");
    if print.ptc != version {
        return Err(Error::PartialVersion {
            path: path.to_owned(),
            found: print.ptc.clone(),
            expected: version,
        });
    }
    let (variants, profiles, corpus) = (
        print.variants.len(),
        print.pricing.len(),
        part.corpus.recordings,
    );
    if part.shard.count == 0 || part.shard.index >= part.shard.count {
        return bad(format!("shard {} is not K/N with 0 <= K < N", part.shard));
    }
    if variants == 0 || print.baseline >= variants {
        return bad(format!(
            "baseline {} of {variants} strategies",
            print.baseline
        ));
    }
    if profiles == 0 || print.primary_pricing >= profiles {
        return bad(format!(
            "primary pricing {} of {profiles} profiles",
            print.primary_pricing
        ));
    }
    if Tokenizer::from_name(&print.tokenizer).is_none() {
        return bad(format!("unknown tokenizer `{}`", print.tokenizer));
    }
    if part.summaries.len() != variants || part.turns.len() != variants {
        return bad(format!(
            "{} summaries and {} per-turn series for {variants} strategies",
            part.summaries.len(),
            part.turns.len()
        ));
    }
    let labels = print.variants.iter().map(|v| v.label.as_str());
    if let Some((i, j)) = twice(labels) {
        return bad(format!(
            "fingerprint.variants[{j}].label: `{}` is the label of fingerprint.variants[{i}] too",
            print.variants[j].label
        ));
    }
    if let Some((i, j)) = twice(print.pricing.iter().map(|p| p.name.as_str())) {
        return bad(format!(
            "fingerprint.pricing[{j}].name: `{}` is the name of fingerprint.pricing[{i}] too",
            print.pricing[j].name
        ));
    }
    if part.recordings.checked_add(part.bad_recordings.len()) != Some(part.sources)
        || part.sources > corpus
    {
        return bad(format!(
            "{} recordings measured and {} unreadable of {} in the shard, {corpus} in the corpus",
            part.recordings,
            part.bad_recordings.len(),
            part.sources
        ));
    }
    for (v, s) in part.summaries.iter().enumerate() {
        if s.cache.len() > profiles || s.first_error_position.is_some_and(|p| p >= corpus) {
            return bad(format!(
                "summaries[{v}] does not fit the fingerprint and corpus"
            ));
        }
    }
    if let Some(b) = part.bad_recordings.iter().find(|b| b.position >= corpus) {
        return bad(format!(
            "bad recording at position {} of {corpus}",
            b.position
        ));
    }
    for (v, (s, turns)) in part.summaries.iter().zip(&part.turns).enumerate() {
        summary_fits(s, turns, part.recordings, print.primary_pricing).map_err(|reason| {
            Error::PartialInconsistent {
                path: path.to_owned(),
                reason: format!("summaries[{v}]{reason}"),
            }
        })?;
    }
    Ok(())
}

/// The indexes of the first name of `names` seen before, and of its first occurrence.
fn twice<'a>(names: impl Iterator<Item = &'a str>) -> Option<(usize, usize)> {
    let mut seen = BTreeMap::new();
    for (j, name) in names.enumerate() {
        if let Some(&i) = seen.get(name) {
            return Some((i, j));
        }
        seen.insert(name, j);
    }
    None
}

/// Refuses the sums of a variant over `recordings` that no measure gives: every profile bills
/// each token once, the cached tokens are those the primary profile read, no share is above
/// its whole, and the per-turn sums add up to the variant's (each turn reached by at least one
/// of the recordings, and by no more than the turn before). The reason starts with the place
/// after `summaries[v]`.
fn summary_fits(
    s: &crate::ab::partial::SummaryPart,
    turns: &[crate::ab::summary::TurnSum],
    recordings: usize,
    primary: usize,
) -> Result<(), String> {
    let profiles_billed = s.cache.len();
    if let Some((i, c)) = s
        .cache
        .iter()
        .enumerate()
        .find(|(_, c)| c.total() != Some(s.tokens))
    {
        return Err(format!(
            ".tokens: {} tokens, but cache[{i}] bills {}",
            s.tokens,
            c.read as u128 + c.written as u128 + c.plain as u128
        ));
    }
    if profiles_billed == 0 && s.tokens > 0 {
        return Err(format!(
            ".tokens: {} tokens that no profile bills",
            s.tokens
        ));
    }
    if s.max_tokens > s.tokens
        || (s.prompts == 0 && s.tokens > 0)
        || s.max_tokens
            .checked_mul(s.prompts)
            .is_some_and(|most| most < s.tokens)
    {
        return Err(format!(
            ".max_tokens: {} at most of {} prompts for {} tokens",
            s.max_tokens, s.prompts, s.tokens
        ));
    }
    let read = s.cache.get(primary).map_or(0, |c| c.read);
    if s.cached_tokens > s.tokens || s.cached_tokens != read {
        return Err(format!(
            ".cached_tokens: {} cached of {} tokens, {read} read from the primary profile's cache",
            s.cached_tokens, s.tokens
        ));
    }
    shares_fit(&s.retention, ".retention")?;
    if s.failed > recordings || s.first_error.is_some() != (s.failed > 0) {
        return Err(format!(".failed: {} of {recordings} recordings", s.failed));
    }
    let mut tokens = 0usize;
    let mut cache = CacheTokens::default();
    let mut reach = recordings;
    for (k, turn) in turns.iter().enumerate() {
        if turn.recordings == 0 || turn.recordings > reach {
            return Err(format!(
                ": turns[{k}].recordings is {} after {reach}",
                turn.recordings
            ));
        }
        reach = turn.recordings;
        if turn.cache.total() != Some(turn.tokens) {
            return Err(format!(": turns[{k}].tokens are not those its cache bills"));
        }
        tokens = tokens
            .checked_add(turn.tokens)
            .ok_or_else(|| format!(": turns[{k}].tokens: the sum overflows"))?;
        cache = cache
            .checked_add(turn.cache)
            .ok_or_else(|| format!(": turns[{k}].cache: the sum overflows"))?;
    }
    if tokens != s.tokens || cache != s.cache.get(primary).copied().unwrap_or_default() {
        return Err(format!(
            ".tokens: {} tokens, the turns sum {tokens}",
            s.tokens
        ));
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
        };
        let mut totals = Totals::new(2, 1);
        totals.merge(&part(usize::MAX - 10, 1)).unwrap();
        assert_eq!(
            totals.merge(&part(11, 1)),
            Err("summaries[1].tokens".to_owned())
        );
        let mut totals = Totals::new(2, 1);
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
