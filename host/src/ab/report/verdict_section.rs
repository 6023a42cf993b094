//! The verdict under the tables for people: one short line per provider and the strategies
//! that fail a requirement; with `--explain` each verdict in full, the strategies judged on
//! some recordings only and why, and the actions whose cited literals are dropped. As
//! markdown every list is a list.

use super::verdict::{line, not_met, short, verdicts};
use super::View;
use crate::ab::Ab;

/// Every verdict, under a heading, then the strategies that do not meet the requirements and
/// why, and what `view` asks for besides; as markdown lists when `markdown`.
pub fn section(ab: &Ab, view: &View, markdown: bool) -> String {
    let text = text(ab, view);
    match markdown {
        true => as_markdown(&text),
        false => text,
    }
}

fn text(ab: &Ab, view: &View) -> String {
    let requirements = &ab.requirements;
    let mut out = if requirements.0.is_empty() {
        String::from("\nverdict: per provider, the cheapest strategy (nothing required)\n")
    } else {
        format!(
            "\nverdict: per provider, the cheapest strategy that keeps {} (--require {})\n",
            requirements.text(),
            requirements.written()
        )
    };
    let none_judged = (0..ab.variants.len())
        .filter(|&v| v != ab.baseline)
        .all(|v| ab.unjudged.get(v).is_some_and(Option::is_some));
    if none_judged && ab.variants.len() > 1 {
        out.push_str(&format!(
            "  no strategy but the baseline can be judged on these recordings (below): {} stands\n",
            ab.variants[ab.baseline].label
        ));
    } else {
        for verdict in verdicts(ab) {
            if !view.shows_verdict(ab, &verdict.provider) {
                continue;
            }
            let said = match view.explain {
                true => line(ab, &verdict),
                false => short(ab, &verdict),
            };
            out.push_str(&format!("  {said}\n"));
        }
    }
    if view.explain {
        if let Some(over) = super::drill::cited_over(ab, ab.summaries()) {
            out.push_str(&format!("  (the literals the next actions cite: {over})\n"));
        }
    }
    let unmet: Vec<String> = ab
        .variants
        .iter()
        .zip(ab.judged())
        .filter(|(_, j)| j.recordings > 0)
        .filter_map(|(v, j)| {
            Some(format!(
                "  {}: {}\n",
                v.label,
                not_met(&j.summary, requirements)?
            ))
        })
        .collect();
    if !unmet.is_empty() {
        out.push_str("not recommended, failing a requirement:\n");
        out.extend(unmet);
    }
    let unjudged: Vec<String> = ab
        .variants
        .iter()
        .zip(&ab.unjudged)
        .filter_map(|(v, why)| Some(format!("  {}: {}\n", v.label, why.as_ref()?)))
        .collect();
    if !unjudged.is_empty() {
        out.push_str(
            "not judged (their prompts would not be what the agent's were; their rows are lower bounds):\n",
        );
        out.extend(unjudged);
        out.push_str(&replay_hint(ab));
    }
    if view.explain {
        out.push_str(&super::judged::partly_judged(ab));
        out.push_str(&super::drill::section(ab, ab.summaries()));
    } else {
        out.push_str(&more(ab));
    }
    out.push_str(&super::judged::rebuilt_note(
        &ab.rebuilt,
        "nothing is judged on it",
    ));
    out
}

/// How to record the memory a strategy is not judged without, when that is what some lack:
/// ptc_runner Kernel runs imported with `--replay` hold it; empty otherwise.
fn replay_hint(ab: &Ab) -> String {
    let lacks_memory =
        ab.unjudged.iter().zip(&ab.lacking).any(|(why, lacking)| {
            why.is_some() && lacking.kinds.iter().any(|k| k == "memory_values")
        });
    if !lacks_memory {
        return String::new();
    }
    "  (memory_values: `ptc import --replay` records it for ptc_runner Kernel runs whose programs replay)\n".to_owned()
}

/// What `--explain` adds, in one line: empty when it adds nothing but the verdicts in full.
fn more(ab: &Ab) -> String {
    let all = ab.recordings();
    let partly = ab
        .judged()
        .iter()
        .filter(|j| j.recordings > 0 && j.recordings < all)
        .count();
    let mut what = vec!["each verdict in full".to_owned()];
    if partly > 0 {
        what.push(format!(
            "why {partly} strategies are judged on some recordings only"
        ));
    }
    if super::drill::cited_over(ab, ab.summaries()).is_some() {
        what.push("the actions whose cited literals each strategy drops".to_owned());
    }
    format!("--explain: {}\n", what.join(", "))
}

/// The section as markdown: a line indented by two a list item, by four an item of the list
/// under it, any other a paragraph of its own.
fn as_markdown(text: &str) -> String {
    let mut out = String::new();
    let mut in_list = false;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("    ") {
            out.push_str(&format!("  - {rest}\n"));
            in_list = true;
        } else if let Some(rest) = line.strip_prefix("  ") {
            out.push_str(&format!("- {rest}\n"));
            in_list = true;
        } else if line.is_empty() {
            out.push('\n');
            in_list = false;
        } else {
            if in_list {
                out.push('\n');
            }
            out.push_str(&format!("{line}\n\n"));
            in_list = false;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::as_markdown;

    #[test]
    fn markdown_makes_every_indented_line_a_list_item_apart_from_its_heading() {
        let text = "\nverdict: per provider\n  a: x 0.90x\n  b: y 0.80x\nnot recommended:\n  c: error 28%\n    run.json turn 2\n";
        assert_eq!(
            as_markdown(text),
            "\nverdict: per provider\n\n- a: x 0.90x\n- b: y 0.80x\n\nnot recommended:\n\n- c: error 28%\n  - run.json turn 2\n"
        );
    }
}
