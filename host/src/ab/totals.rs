//! Every run added up per variant ([`Totals`]), and the figures of each variant and of the
//! baseline on the recordings it is judged on ([`Judged`]).

use crate::ab::measure::{DroppedAction, DRILL_DOWN};
use crate::ab::summary::{Summary, TurnSum};
use crate::ab::RunMeasure;
use crate::pricing::Pricing;

/// A variant's figures over the recordings it is judged on where the baseline is judged too,
/// and the baseline's over the same recordings: what its ratios to the baseline and the
/// verdict compare, so that both sides of a ratio sum the same runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Judged {
    /// The recordings both are judged on.
    pub recordings: usize,
    /// The variant's figures over them.
    pub summary: Summary,
    /// The baseline's figures over them.
    pub baseline: Summary,
}

impl Judged {
    fn new(profiles: usize) -> Judged {
        let empty = Summary {
            costs: vec![0.0; profiles],
            ..Summary::default()
        };
        Judged {
            recordings: 0,
            summary: empty.clone(),
            baseline: empty,
        }
    }

    /// Adds `other`'s sums (see [`Summary::merge`]).
    fn merge(&mut self, other: &Judged) -> Result<(), String> {
        let recordings = self
            .recordings
            .checked_add(other.recordings)
            .ok_or("recordings")?;
        let (mut summary, mut baseline) = (self.summary.clone(), self.baseline.clone());
        summary
            .merge(&other.summary)
            .map_err(|field| format!("summary.{field}"))?;
        baseline
            .merge(&other.baseline)
            .map_err(|field| format!("baseline.{field}"))?;
        *self = Judged {
            recordings,
            summary,
            baseline,
        };
        Ok(())
    }
}

/// Every run added up per variant: its [`Summary`] and its per-turn sums. Its size depends on
/// the variants and the longest recording, never on the number of recordings.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Totals {
    /// Recordings measured.
    pub recordings: usize,
    /// One per variant, in variant order.
    pub summaries: Vec<Summary>,
    /// Per variant, per turn index.
    pub turns: Vec<Vec<TurnSum>>,
    /// Per variant, the index (as given to [`Totals::add`]) of the recording its
    /// `first_error` comes from.
    pub first_failure: Vec<Option<usize>>,
    /// The baseline's index among the variants.
    pub baseline: usize,
    /// Per variant: its figures and the baseline's on the recordings it is judged on.
    pub judged: Vec<Judged>,
    /// Per variant, the first actions whose cited literals its prompts dropped, in corpus
    /// order, at most [`DRILL_DOWN`].
    pub dropped: Vec<Vec<DroppedAction>>,
    /// The recordings with an action that cites evidence; `None` after a merge of parts
    /// written before they counted them.
    pub cited_runs: Option<usize>,
}

impl Totals {
    pub(super) fn new(variants: usize, profiles: usize, baseline: usize) -> Totals {
        Totals {
            baseline,
            judged: vec![Judged::new(profiles); variants],
            recordings: 0,
            summaries: vec![
                Summary {
                    costs: vec![0.0; profiles],
                    ..Summary::default()
                };
                variants
            ],
            turns: vec![Vec::new(); variants],
            first_failure: vec![None; variants],
            dropped: vec![Vec::new(); variants],
            cited_runs: Some(0),
        }
    }

    /// Adds the runs of recording `index`, one per variant. Called in recording order.
    pub(super) fn add(&mut self, index: usize, runs: &[RunMeasure]) {
        self.recordings += 1;
        if runs
            .iter()
            .any(|r| r.totals.retention.cited_actions.total > 0)
        {
            self.cited_runs = self.cited_runs.map(|n| n + 1);
        }
        let baseline = runs.iter().find(|r| r.variant == self.baseline);
        for run in runs {
            if let Some(base) = baseline.filter(|b| b.judged && run.judged) {
                let judged = &mut self.judged[run.variant];
                judged.recordings += 1;
                judged
                    .summary
                    .merge(&run.totals)
                    .expect("the sums of measured prompts fit");
                judged
                    .baseline
                    .merge(&base.totals)
                    .expect("the sums of measured prompts fit");
            }
            if let Some(dropped) = self.dropped.get_mut(run.variant) {
                let room = DRILL_DOWN.saturating_sub(dropped.len());
                dropped.extend(run.dropped.iter().take(room).map(|a| DroppedAction {
                    position: index,
                    ..a.clone()
                }));
            }
            if run.totals.first_error.is_some() && self.first_failure[run.variant].is_none() {
                self.first_failure[run.variant] = Some(index);
            }
            self.summaries[run.variant]
                .merge(&run.totals)
                .expect("the sums of measured prompts fit");
            let series = &mut self.turns[run.variant];
            if series.len() < run.by_turn.len() {
                series.resize(run.by_turn.len(), TurnSum::default());
            }
            for (sum, (tokens, cache)) in series.iter_mut().zip(&run.by_turn) {
                sum.tokens += tokens;
                sum.cache += *cache;
                sum.recordings += 1;
            }
        }
    }

    /// Adds the totals of other recordings, whose indexes are in the same numbering: each
    /// variant's first error is the one of the lowest index, as one run over all of them finds.
    /// A sum that does not fit is an error naming its place (`summaries[1].tokens`); `self` is
    /// then only partly added to and must not be used.
    pub(super) fn merge(&mut self, other: &Totals) -> Result<(), String> {
        self.recordings = self
            .recordings
            .checked_add(other.recordings)
            .ok_or("recordings")?;
        self.cited_runs = self
            .cited_runs
            .zip(other.cited_runs)
            .and_then(|(a, b)| a.checked_add(b));
        for (v, more) in other.summaries.iter().enumerate() {
            let summary = &mut self.summaries[v];
            let first = summary.first_error.take();
            summary
                .merge(more)
                .map_err(|field| format!("summaries[{v}].{field}"))?;
            summary.first_error = first;
            let (mine, theirs) = (self.first_failure[v], other.first_failure[v]);
            if theirs.is_some() && (mine.is_none() || theirs < mine) {
                summary.first_error.clone_from(&more.first_error);
                self.first_failure[v] = theirs;
            }
        }
        for (v, (judged, more)) in self.judged.iter_mut().zip(&other.judged).enumerate() {
            judged
                .merge(more)
                .map_err(|field| format!("judged[{v}].{field}"))?;
        }
        // Each side holds its first actions in corpus order: the first of both are among them.
        for (mine, theirs) in self.dropped.iter_mut().zip(&other.dropped) {
            mine.extend(theirs.iter().cloned());
            mine.sort_by_key(|a| (a.position, a.turn));
            mine.truncate(DRILL_DOWN);
        }
        for (v, (series, more)) in self.turns.iter_mut().zip(&other.turns).enumerate() {
            if series.len() < more.len() {
                series.resize(more.len(), TurnSum::default());
            }
            for (k, (sum, add)) in series.iter_mut().zip(more).enumerate() {
                let place = |field: &str| format!("turns[{v}][{k}].{field}");
                sum.tokens = sum
                    .tokens
                    .checked_add(add.tokens)
                    .ok_or_else(|| place("tokens"))?;
                sum.cache = sum
                    .cache
                    .checked_add(add.cache)
                    .ok_or_else(|| place("cache"))?;
                sum.recordings = sum
                    .recordings
                    .checked_add(add.recordings)
                    .ok_or_else(|| place("recordings"))?;
            }
        }
        Ok(())
    }

    /// Prices every summary's costs from its summed tokens: called once everything is added.
    /// A corpus priced run by run (`by_run`, the billed profiles) has its `as-billed`
    /// column add up theirs.
    pub(super) fn price(&mut self, pricing: &[Pricing], by_run: &[String]) {
        let summed = crate::ab::by_run::summed(pricing, by_run);
        let all = self.summaries.iter_mut().chain(
            self.judged
                .iter_mut()
                .flat_map(|j| [&mut j.summary, &mut j.baseline]),
        );
        for summary in all {
            summary.price_summed(pricing, summed.as_ref());
        }
    }
}
