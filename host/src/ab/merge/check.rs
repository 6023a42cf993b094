//! What a part must hold for the merge to trust it: every figure one a measure can give (no
//! sum overflowing, no share above its whole, every token of a profile's count billed once),
//! names unique, and the rows adding up to their part's sums, each in its shard and in corpus
//! order.

use std::collections::BTreeMap;
use std::path::Path;

use crate::ab::partial::{CheckedRows, Fingerprint, Part, RowPart, RowReader, SummaryPart};
use crate::ab::retention::Retention;
use crate::ab::shard::{identity_of_label, Shard};
use crate::ab::summary::CacheTokens;
use crate::hash::fnv1a64;
use crate::tokens::{Counting, Tokenizer};
use crate::Error;

use super::sums::summary_fits;

/// The next row of `reader`, refused unless it fits the fingerprint, the corpus and what
/// `check` has seen; after the last, the rows' sums are checked against the part's.
pub(super) fn fitting(
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

/// How each profile of `print` counts tokens: in the request format of its provider.
pub(super) fn countings(print: &Fingerprint) -> Vec<Counting> {
    print
        .pricing
        .iter()
        .map(|p| Counting::of(p.caching))
        .collect()
}

/// Per profile of a part, whether it prices some runs only: a corpus priced run by run
/// prices each run by the billed profile its usage names alone (and `as-billed` adds them up).
pub(super) fn partial(print: &Fingerprint) -> Vec<bool> {
    crate::ab::by_run::partial_columns(&print.pricing, &print.by_run)
}

/// The first profile of `cache` that does not bill the tokens of its count, with what it
/// bills. Each profile bills the request as its provider's format counts it: one that counts
/// as the primary profile (`primary`) does bills `tokens`, the primary count; every other one
/// bills what the first profile of its count that prices every run bills. A profile that
/// prices some runs only (`partial`) bills at most that.
pub(super) fn misbilled<'c>(
    cache: &'c [CacheTokens],
    tokens: usize,
    countings: &[Counting],
    partial: &[bool],
    primary: usize,
) -> Option<(usize, &'c CacheTokens)> {
    let primary = countings.get(primary).copied();
    let some_only = |i: usize| partial.get(i).copied().unwrap_or(false);
    cache.iter().enumerate().find(|&(i, c)| {
        let counting = countings.get(i).copied();
        let expected = if counting == primary {
            Some(tokens)
        } else {
            let first = (0..countings.len())
                .find(|&k| Some(countings[k]) == counting && !some_only(k))
                .unwrap_or(i);
            cache.get(first).and_then(|c| c.total())
        };
        match (c.total(), expected) {
            (Some(total), Some(expected)) if some_only(i) => total > expected,
            (total, expected) => total.is_none() || total != expected,
        }
    })
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
pub(super) struct RowCheck<'a> {
    part: &'a Part<CheckedRows>,
    /// The position, variant and recording of the row before.
    last: Option<(usize, usize, String)>,
    /// Per variant.
    sums: Vec<RowSums>,
}

impl<'a> RowCheck<'a> {
    pub(super) fn new(_file: &Path, part: &'a Part<CheckedRows>) -> RowCheck<'a> {
        RowCheck {
            part,
            last: None,
            sums: vec![RowSums::default(); part.summaries.len()],
        }
    }

    /// Checks row `at` and adds it up.
    pub(super) fn row(&mut self, at: usize, row: &RowPart) -> Result<(), String> {
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
        let identity = identity_of_label(row.place.as_ref().unwrap_or(&row.recording));
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
            let print = &self.part.fingerprint;
            if let Some((i, billed)) = misbilled(
                &prompt.cache,
                prompt.tokens,
                &countings(print),
                &partial(print),
                print.primary_pricing,
            ) {
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
    pub(super) fn finish(&self) -> Result<(), String> {
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
pub(super) fn shares_fit(retention: &Retention, place: &str) -> Result<(), String> {
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
pub(super) fn check(path: &Path, part: &Part<CheckedRows>) -> Result<(), Error> {
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
    if !part.judged.is_empty() && part.judged.len() != variants {
        return bad(format!(
            "{} judged sums for {variants} strategies",
            part.judged.len()
        ));
    }
    for (v, j) in part.judged.iter().enumerate() {
        // Sums over some of the part's recordings: never more than the sums over all of them.
        let within = |judged: &SummaryPart, all: &SummaryPart| {
            judged.prompts <= all.prompts
                && judged.tokens <= all.tokens
                && judged.cache.len() <= profiles
        };
        if j.recordings > part.recordings
            || !within(&j.summary, &part.summaries[v])
            || !within(&j.baseline, &part.summaries[print.baseline])
        {
            return bad(format!(
                "judged[{v}] is not a sum over some of the part's recordings"
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
        summary_fits(s, turns, part.recordings, print).map_err(|reason| {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn billed(read: usize, written: usize, plain: usize) -> CacheTokens {
        CacheTokens {
            read,
            written,
            plain,
            ..CacheTokens::default()
        }
    }

    /// Each profile bills its own count: the primary's (Anthropic's blocks here) the prompt's
    /// tokens, the others (OpenAI's chat format) what the first of their count bills.
    #[test]
    fn each_profile_bills_the_tokens_of_its_count() {
        use Counting::{AnthropicBlocks as A, OpenAiChat as O};
        let countings = [A, O, A, O];
        let good = [
            billed(60, 30, 10),
            billed(0, 0, 110),
            billed(0, 0, 100),
            billed(100, 0, 10),
        ];
        assert_eq!(misbilled(&good, 100, &countings, &[], 0), None);
        // Another count than the primary's bills what the first profile of that count bills.
        let mut bad = good;
        bad[3] = billed(100, 0, 11);
        assert_eq!(misbilled(&bad, 100, &countings, &[], 0), Some((3, &bad[3])));
        // A profile of the primary's count bills the prompt's tokens.
        let mut bad = good;
        bad[2] = billed(0, 0, 110);
        assert_eq!(misbilled(&bad, 100, &countings, &[], 0), Some((2, &bad[2])));
        // With the implicit profile primary, the prompt's tokens are its count.
        assert_eq!(misbilled(&good, 110, &countings, &[], 1), None);
        assert_eq!(
            misbilled(&good, 100, &countings, &[], 1),
            Some((1, &good[1]))
        );
    }
}
