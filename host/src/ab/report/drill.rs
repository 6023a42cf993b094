//! The drill-down a user reads before trusting a cheaper strategy: per strategy, the first
//! actions whose cited literals (the evidence measure) its prompts dropped, and over how many
//! actions and runs the evidence figure was taken.

use super::requirement::MIN_EVIDENCE;
use crate::ab::{Ab, DroppedAction, Summary, DRILL_DOWN};

/// The literals of an action shown, the rest counted.
const SHOWN: usize = 3;
/// The characters of a literal shown.
const WIDTH: usize = 40;

/// Over what the evidence figures were taken, in words: `cited by 52 of 244 actions, in 5 of
/// 5 runs`; `None` when no action cites anything.
pub fn cited_over(ab: &Ab, summaries: &[Summary]) -> Option<String> {
    let base = summaries.get(ab.baseline)?;
    let cited = base.retention.cited_actions.total;
    if cited == 0 {
        return None;
    }
    let runs = match ab.cited_runs() {
        Some(runs) => format!(", in {runs} of {} runs", ab.recordings()),
        None => String::new(),
    };
    let few = match base.retention.evidence.total {
        n if n < MIN_EVIDENCE => format!(
            "; {n} literal(s) in all, too few to judge (a requirement on evidence needs {MIN_EVIDENCE})"
        ),
        _ => String::new(),
    };
    Some(format!(
        "cited by {cited} of {} actions{runs}{few}",
        base.prompts
    ))
}

/// A literal as the drill-down shows it: between backticks, cut to [`WIDTH`] characters.
fn shown(literal: &str) -> String {
    let mut chars = literal.chars();
    let cut: String = chars.by_ref().take(WIDTH).collect();
    let more = if chars.next().is_some() { "…" } else { "" };
    format!("`{cut}{more}`")
}

/// One dropped action in words: `run.json turn 7 drops `src/a.py`, `214` (2 of 3 cited)`.
pub fn action_text(a: &DroppedAction) -> String {
    let mut literals: Vec<String> = a.dropped.iter().take(SHOWN).map(|l| shown(l)).collect();
    if a.dropped.len() > SHOWN {
        literals.push(format!("{} more", a.dropped.len() - SHOWN));
    }
    format!(
        "{} turn {} drops {} ({} of {} cited)",
        a.recording.display(),
        a.turn,
        literals.join(", "),
        a.dropped.len(),
        a.cited
    )
}

/// Per strategy that drops some cited literals: how many of the actions that cite evidence
/// lose some of it, and the first of them in words.
pub fn per_strategy(ab: &Ab, summaries: &[Summary]) -> Vec<(String, Vec<String>)> {
    ab.variants
        .iter()
        .enumerate()
        .filter_map(|(v, variant)| {
            let actions = summaries.get(v)?.retention.cited_actions;
            (actions.visible < actions.total).then(|| {
                let head = format!(
                    "{}: {} of the {} actions that cite evidence lose some of it",
                    variant.label,
                    actions.total - actions.visible,
                    actions.total
                );
                (
                    head,
                    ab.dropped_actions(v).iter().map(action_text).collect(),
                )
            })
        })
        .collect()
}

/// The drill-down section of the text report ([`per_strategy`]); empty when no strategy
/// drops a cited literal.
pub fn section(ab: &Ab, summaries: &[Summary]) -> String {
    let strategies = per_strategy(ab, summaries);
    if strategies.is_empty() {
        return String::new();
    }
    let mut out = format!(
        "actions whose cited literals a strategy's prompt drops, the first {DRILL_DOWN} per strategy:\n"
    );
    for (head, actions) in strategies {
        out.push_str(&format!("  {head}\n"));
        for action in actions {
            out.push_str(&format!("    {action}\n"));
        }
    }
    out
}
