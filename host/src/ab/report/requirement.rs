//! What the verdict requires of a strategy before it recommends it: a share of each retention
//! measure named (`--require symbols,error,used-next=95%`, or `[ab] require`), summed over every
//! prompt of every recording, and every recording rendered. A measure with nothing to retain
//! (no error in any recording, say) is met.

use crate::ab::retention::{Retention, Share};
use crate::ab::Summary;

/// A retention measure, as a requirement names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Measure {
    Symbols,
    ToolCalls,
    PrintedLines,
    Error,
    UsedNext,
    Evidence,
}

/// Every measure: its name on the command line (also a column of the table), the other names
/// it accepts, and its key in `--format json`.
const MEASURES: [(Measure, &str, &[&str], &str); 6] = [
    (Measure::Symbols, "symbols", &[], "symbols"),
    (
        Measure::ToolCalls,
        "calls",
        &["tool-calls", "tool_calls"],
        "tool_calls",
    ),
    (
        Measure::PrintedLines,
        "prints",
        &["printed-lines", "printed_lines"],
        "printed_lines",
    ),
    (Measure::Error, "error", &[], "error"),
    (Measure::UsedNext, "used-next", &["used_next"], "used_next"),
    (Measure::Evidence, "evidence", &[], "evidence"),
];

impl Measure {
    /// Every measure, in the order of the table's columns.
    pub const ALL: [Measure; 6] = [
        Measure::Symbols,
        Measure::ToolCalls,
        Measure::PrintedLines,
        Measure::Error,
        Measure::UsedNext,
        Measure::Evidence,
    ];

    fn entry(self) -> &'static (Measure, &'static str, &'static [&'static str], &'static str) {
        MEASURES
            .iter()
            .find(|m| m.0 == self)
            .expect("every measure is listed")
    }

    /// Its name in `--require`: `symbols`, `calls`, `prints`, `error`, `used-next`, `evidence`.
    pub fn name(self) -> &'static str {
        self.entry().1
    }

    /// Its key in `--format json`'s retention.
    pub fn key(self) -> &'static str {
        self.entry().3
    }

    /// Its share in `r`.
    pub fn share(self, r: &Retention) -> Share {
        match self {
            Measure::Symbols => r.symbols,
            Measure::ToolCalls => r.tool_calls,
            Measure::PrintedLines => r.printed_lines,
            Measure::Error => r.error,
            Measure::UsedNext => r.used_next,
            Measure::Evidence => r.evidence,
        }
    }

    /// What it counts, in words: `every symbol` (all of it) or `95% of symbols`.
    pub fn kept(self, percent: f64) -> String {
        let all = percent >= 100.0;
        let what = match (self, all) {
            (Measure::Symbols, true) => "every symbol",
            (Measure::Symbols, false) => "of symbols",
            (Measure::ToolCalls, true) => "every tool call",
            (Measure::ToolCalls, false) => "of tool calls",
            (Measure::PrintedLines, true) => "every printed line",
            (Measure::PrintedLines, false) => "of printed lines",
            (Measure::Error, true) => "the latest error",
            (Measure::Error, false) => "of latest errors",
            (Measure::UsedNext, true) => "every name the next program uses",
            (Measure::UsedNext, false) => "of the names the next program uses",
            (Measure::Evidence, true) => "every literal the next action cites",
            (Measure::Evidence, false) => "of the literals the next action cites",
        };
        if all {
            what.to_owned()
        } else {
            format!("{} {what}", percent_text(percent))
        }
    }
}

/// A percentage as the output writes it: `95%`, `99.5%`.
fn percent_text(percent: f64) -> String {
    format!("{}%", (percent * 100.0).round() / 100.0)
}

/// One requirement: at least `percent` of `measure`'s facts shown.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Requirement {
    pub measure: Measure,
    /// From 0 to 100.
    pub percent: f64,
}

/// The fewest literals cited over a corpus that an evidence requirement judges: most actions
/// cite nothing, and a share of fewer is one action's chance, not a strategy's.
pub const MIN_EVIDENCE: usize = 5;

impl Requirement {
    /// Whether `share` meets it; nothing to retain meets any requirement, and evidence of
    /// fewer than [`MIN_EVIDENCE`] literals is too little to judge.
    pub fn met_by(self, share: Share) -> bool {
        let judged = match self.measure {
            Measure::Evidence => MIN_EVIDENCE,
            _ => 1,
        };
        share.total < judged || share.visible as f64 * 100.0 >= self.percent * share.total as f64
    }

    /// As it is written: `error`, `used-next=95%`.
    pub fn written(self) -> String {
        if self.percent >= 100.0 {
            self.measure.name().to_owned()
        } else {
            format!("{}={}", self.measure.name(), percent_text(self.percent))
        }
    }
}

/// What the verdict requires: the requirements, in the order given, each measure once.
#[derive(Clone, Debug, PartialEq)]
pub struct Requirements(pub Vec<Requirement>);

impl Default for Requirements {
    /// Every symbol, the latest error and 90% of the literals the next actions cite:
    /// `symbols,error,evidence=90%` (the share `ptc.toml` argues).
    fn default() -> Requirements {
        Requirements(vec![
            Requirement {
                measure: Measure::Symbols,
                percent: 100.0,
            },
            Requirement {
                measure: Measure::Error,
                percent: 100.0,
            },
            Requirement {
                measure: Measure::Evidence,
                percent: 90.0,
            },
        ])
    }
}

/// A requirement that could not be read: the item, and why.
#[derive(Debug, PartialEq)]
pub struct BadRequirement {
    pub item: String,
    pub reason: String,
}

impl std::fmt::Display for BadRequirement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "bad requirement `{}`: {}", self.item, self.reason)
    }
}

impl Requirements {
    /// Reads `items` (`symbols`, `used-next=95%`, `evidence=90`); empty items are skipped, so
    /// an empty list requires nothing. A measure named twice keeps the last requirement.
    pub fn parse<'a>(
        items: impl IntoIterator<Item = &'a str>,
    ) -> Result<Requirements, BadRequirement> {
        let mut out: Vec<Requirement> = Vec::new();
        for item in items.into_iter().map(str::trim).filter(|i| !i.is_empty()) {
            let bad = |reason: String| BadRequirement {
                item: item.to_owned(),
                reason,
            };
            let (name, percent) = match item.split_once('=') {
                Some((name, percent)) => (name.trim(), Some(percent.trim())),
                None => (item, None),
            };
            let measure = MEASURES
                .iter()
                .find(|m| m.1 == name || m.2.contains(&name))
                .map(|m| m.0)
                .ok_or_else(|| {
                    let names: Vec<&str> = MEASURES.iter().map(|m| m.1).collect();
                    let hint = crate::suggest::closest(name, names.iter().copied())
                        .map(|n| format!(" (did you mean `{n}`?)"))
                        .unwrap_or_default();
                    bad(format!(
                        "unknown measure `{name}`{hint}; the measures are {}",
                        names.join(", ")
                    ))
                })?;
            let percent = match percent {
                None => 100.0,
                Some(text) => {
                    let number = text.strip_suffix('%').unwrap_or(text).trim();
                    match number.parse::<f64>() {
                        Ok(p) if p.is_finite() && (0.0..=100.0).contains(&p) => p,
                        _ => {
                            return Err(bad(format!(
                                "`{text}` is not a percentage: write a number from 0 to 100, with or without `%` (`{name}=95%`)"
                            )))
                        }
                    }
                }
            };
            out.retain(|r| r.measure != measure);
            out.push(Requirement { measure, percent });
        }
        Ok(Requirements(out))
    }

    /// The requirements `s` does not meet.
    pub fn unmet(&self, s: &Summary) -> Vec<Requirement> {
        self.0
            .iter()
            .copied()
            .filter(|r| !r.met_by(r.measure.share(&s.retention)))
            .collect()
    }

    /// Whether a strategy qualifies: it rendered every recording and meets every requirement.
    pub fn met_by(&self, s: &Summary) -> bool {
        s.prompts > 0 && s.failed == 0 && self.unmet(s).is_empty()
    }

    /// What they ask, in words: `every symbol, the latest error and 90% of the literals the
    /// next action cites`; `nothing` when empty.
    pub fn text(&self) -> String {
        let parts: Vec<String> = self.0.iter().map(|r| r.measure.kept(r.percent)).collect();
        match parts.as_slice() {
            [] => "nothing".to_owned(),
            [one] => one.clone(),
            [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
        }
    }

    /// As they are written: `symbols,error,used-next=95%`.
    pub fn written(&self) -> String {
        let items: Vec<String> = self.0.iter().map(|r| r.written()).collect();
        items.join(",")
    }

    /// Whether `measure` is required at 100%.
    pub fn requires_all(&self, measure: Measure) -> bool {
        self.0
            .iter()
            .any(|r| r.measure == measure && r.percent >= 100.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn share(visible: usize, total: usize) -> Share {
        Share { visible, total }
    }

    #[test]
    fn requirements_read_names_and_percentages() {
        let r =
            Requirements::parse("symbols, error,used-next=95%,evidence=90.5,calls=0".split(','))
                .unwrap();
        assert_eq!(
            r.written(),
            "symbols,error,used-next=95%,evidence=90.5%,calls=0%"
        );
        assert_eq!(
            r.text(),
            "every symbol, the latest error, 95% of the names the next program uses, 90.5% of the literals the next action cites and 0% of tool calls"
        );
        assert_eq!(Requirements::parse(["", " "]).unwrap().0, []);
        assert_eq!(Requirements::parse([]).unwrap().text(), "nothing");
        // Names of the JSON keys are accepted; a measure named twice keeps the last.
        let r = Requirements::parse(["used_next=50", "tool_calls", "used-next"]).unwrap();
        assert_eq!(r.written(), "calls,used-next");
        assert_eq!(
            Requirements::default().written(),
            "symbols,error,evidence=90%"
        );
        assert_eq!(
            Requirements::default().text(),
            "every symbol, the latest error and 90% of the literals the next action cites"
        );
    }

    #[test]
    fn bad_requirements_say_what_is_wrong() {
        let err = Requirements::parse(["symbols", "used-nxt=95%"]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "bad requirement `used-nxt=95%`: unknown measure `used-nxt` (did you mean `used-next`?); the measures are symbols, calls, prints, error, used-next, evidence"
        );
        for bad in [
            "error=abc",
            "error=101%",
            "error=-1",
            "error=",
            "error=NaN",
            "error=95%%",
        ] {
            let err = Requirements::parse([bad]).unwrap_err();
            assert!(
                err.reason
                    .contains("is not a percentage: write a number from 0 to 100"),
                "{bad}: {err}"
            );
        }
    }

    #[test]
    fn a_requirement_is_met_at_its_share_or_with_nothing_to_retain() {
        let at = |percent| Requirement {
            measure: Measure::UsedNext,
            percent,
        };
        assert!(at(95.0).met_by(share(95, 100)));
        assert!(!at(95.0).met_by(share(94, 100)));
        assert!(at(100.0).met_by(share(3, 3)));
        assert!(!at(100.0).met_by(share(999, 1000)));
        assert!(at(100.0).met_by(share(0, 0)));
        assert!(at(0.0).met_by(share(0, 10)));
    }
}
