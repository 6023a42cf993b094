//! How much of the bill is placement: for each profile asked for with `breakpoints=planned`,
//! every strategy's cost with its own breakpoints (the strategy's, or the agent's for the
//! as-sent baseline), the automatic ones, the planned ones and the bound beneath any.

use serde_json::{json, Value as Json};

use super::{Row, Table, BASELINE_MARK};
use crate::ab::Ab;
use crate::cache::Placement;

/// The profiles of one planned comparison, as indices of [`Ab::pricing`].
struct Group {
    /// The profile with the strategy's breakpoints (its name without `breakpoints=planned`).
    own: String,
    columns: [Option<usize>; 4],
}

const COLUMNS: [&str; 4] = ["own $", "auto $", "planned $", "bound $"];

fn groups(ab: &Ab) -> Vec<Group> {
    let find = |name: &str| ab.pricing.iter().position(|p| p.name == name);
    ab.pricing
        .iter()
        .enumerate()
        .filter(|(_, p)| p.placement == Placement::Planned && p.caching.has_breakpoints())
        .map(|(planned, p)| {
            let own: Vec<&str> = p
                .name
                .split('@')
                .filter(|part| *part != "breakpoints=planned")
                .collect();
            let own = own.join("@");
            let bound = p.name.replace("breakpoints=planned", "breakpoints=bound");
            Group {
                columns: [
                    find(&own),
                    find(&format!("{own}@breakpoints=auto")),
                    Some(planned),
                    find(&bound),
                ],
                own,
            }
        })
        .collect()
}

/// The share of `own`'s bill the planned breakpoints save, and how far planned can be above
/// the optimum (planned over the bound, less one).
fn shares(costs: [Option<f64>; 4]) -> (Option<f64>, Option<f64>) {
    let [own, _, planned, bound] = costs;
    let placement = own.zip(planned).filter(|(o, _)| *o > 0.0);
    let gap = planned.zip(bound).filter(|(_, b)| *b > 0.0);
    (
        placement.map(|(o, p)| 1.0 - p / o),
        gap.map(|(p, b)| p / b - 1.0),
    )
}

/// Per strategy, its cost under each column of `group`: none where the column is not priced
/// or the strategy rendered nothing.
fn costs(ab: &Ab, group: &Group) -> Vec<[Option<f64>; 4]> {
    ab.summaries()
        .iter()
        .map(|s| {
            group
                .columns
                .map(|c| c.filter(|_| s.prompts > 0).map(|c| s.costs[c]))
        })
        .collect()
}

/// The headings and tables, one per planned profile; empty when none was asked for.
pub(super) fn tables(ab: &Ab) -> Vec<(String, Table)> {
    let percent =
        |x: Option<f64>| x.map_or_else(|| "n/a".to_owned(), |x| format!("{:.1}%", 100.0 * x));
    groups(ab)
        .iter()
        .map(|group| {
            let rows = ab
                .variants
                .iter()
                .zip(costs(ab, group))
                .enumerate()
                .map(|(v, (variant, costs))| {
                    let (placement, gap) = shares(costs);
                    let mut cells = vec![variant.label.clone()];
                    cells.extend(
                        costs.map(|c| c.map_or_else(|| "n/a".to_owned(), |c| format!("{c:.4}"))),
                    );
                    cells.extend([percent(placement), percent(gap)]);
                    Row {
                        mark: if v == ab.baseline { BASELINE_MARK.to_owned() } else { String::new() },
                        baseline: v == ab.baseline,
                        verdict: false,
                        cells,
                    }
                })
                .collect();
            let mut header = vec!["strategy".to_owned()];
            header.extend(COLUMNS.map(str::to_owned));
            header.extend(["placement".to_owned(), "gap".to_owned()]);
            let heading = format!(
                "\nplacement under {}: the cost with the strategy's own breakpoints (the agent's for as-sent), the automatic ones, the planned ones (the cheapest found knowing the whole run) and the least any placement could cost\n",
                group.own
            );
            let table = Table {
                header,
                group: None,
                rows,
                legend: vec![
                    "placement: the share of the own breakpoints' cost that the planned ones save; gap: planned over the bound, the most by which planned can miss the cheapest placement".to_owned(),
                ],
            };
            (heading, table)
        })
        .collect()
}

/// The same as JSON: per planned profile, each strategy's costs and shares.
pub(super) fn json(ab: &Ab) -> Option<Json> {
    let groups = groups(ab);
    if groups.is_empty() {
        return None;
    }
    let name = |c: Option<usize>| c.map(|c| ab.pricing[c].name.clone());
    Some(
        groups
            .iter()
            .map(|group| {
                let [own, auto, planned, bound] = group.columns;
                json!({
                    "own": name(own), "auto": name(auto), "planned": name(planned), "bound": name(bound),
                    "strategies": ab.variants.iter().zip(costs(ab, group)).map(|(v, costs)| {
                        let (placement, gap) = shares(costs);
                        json!({
                            "strategy": v.label,
                            "own": costs[0], "auto": costs[1], "planned": costs[2], "bound": costs[3],
                            "placement_share": placement, "gap": gap,
                        })
                    }).collect::<Vec<_>>(),
                })
            })
            .collect(),
    )
}
