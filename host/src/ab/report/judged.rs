//! What a verdict is judged on, said under it: the strategies judged on some of the recordings
//! only, and the runs whose as-sent baseline is rebuilt from their log.

use crate::ab::Ab;

/// The strategies judged on some of the recordings only, each with on how many and why not on
/// the others; empty when there are none.
pub(super) fn partly_judged(ab: &Ab) -> String {
    let all = ab.recordings();
    let lines: Vec<String> = ab
        .variants
        .iter()
        .zip(ab.judged())
        .zip(&ab.lacking)
        .filter(|((_, j), _)| j.recordings > 0 && j.recordings < all)
        .map(|((v, j), lacking)| {
            let why = match lacking.recordings {
                0 => "the baseline is not judged on the others".to_owned(),
                n => format!(
                    "{n} lack {}, which its prompts are made from",
                    lacking.kinds.join(", ")
                ),
            };
            format!(
                "  {}: {} of {all} recordings ({why})\n",
                v.label, j.recordings
            )
        })
        .collect();
    if lines.is_empty() {
        return String::new();
    }
    format!(
        "judged on some recordings only (its verdict, ratios and requirements are taken on them, against the baseline on the same recordings):\n{}",
        lines.concat()
    )
}

/// The note naming the runs whose as-sent baseline is rebuilt from their log, with the prefix
/// inferred for each (`unknown`: what follows for a run whose prefix is unknown); empty when
/// there are none.
pub fn rebuilt_note(rebuilt: &[crate::ab::RebuiltRun], unknown: &str) -> String {
    if rebuilt.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "note: the as-sent baseline is rebuilt from the conversation each log holds (its requests were not recorded); the system prompt and tool schemas it does not hold are a prefix inferred from the first call's bill, in every prompt of the run in place of a system prompt:\n",
    );
    for run in rebuilt {
        match run.inferred_prefix_tokens {
            Some(n) => out.push_str(&format!("  {}: inferred prefix of {n} tokens\n", run.recording)),
            None => out.push_str(&format!(
                "  {}: prefix unknown (no usage on the first call, or a bill smaller than the conversation): {unknown}\n",
                run.recording
            )),
        }
    }
    out
}
