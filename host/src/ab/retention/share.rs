//! What one prompt retains of a run's facts, per category: how many of them there are and how
//! many the prompt shows.

/// Visible / total facts of one category.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Share {
    pub visible: usize,
    pub total: usize,
}

impl Share {
    pub(super) fn count(&mut self, visible: bool) {
        self.total += 1;
        self.visible += usize::from(visible);
    }

    pub fn add(&mut self, other: Share) {
        self.visible += other.visible;
        self.total += other.total;
    }

    /// `self + other`, `None` when a sum does not fit.
    pub fn checked_add(self, other: Share) -> Option<Share> {
        Some(Share {
            visible: self.visible.checked_add(other.visible)?,
            total: self.total.checked_add(other.total)?,
        })
    }

    /// visible / total, `None` when there was nothing to retain.
    pub fn ratio(self) -> Option<f64> {
        (self.total > 0).then(|| self.visible as f64 / self.total as f64)
    }
}

/// Retention of one prompt, per category.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Retention {
    pub symbols: Share,
    pub tool_calls: Share,
    pub printed_lines: Share,
    pub error: Share,
    pub used_next: Share,
    /// Absent from parts written before it was measured: nothing to retain there.
    #[serde(default)]
    pub evidence: Share,
    /// The prompts whose next action cites evidence, and those that show all of it.
    #[serde(default)]
    pub cited_actions: Share,
}

impl Retention {
    pub fn add(&mut self, other: &Retention) {
        self.symbols.add(other.symbols);
        self.tool_calls.add(other.tool_calls);
        self.printed_lines.add(other.printed_lines);
        self.error.add(other.error);
        self.used_next.add(other.used_next);
        self.evidence.add(other.evidence);
        self.cited_actions.add(other.cited_actions);
    }
}

impl Retention {
    /// `self + other`, `None` when a sum does not fit.
    pub fn checked_add(&self, other: &Retention) -> Option<Retention> {
        Some(Retention {
            symbols: self.symbols.checked_add(other.symbols)?,
            tool_calls: self.tool_calls.checked_add(other.tool_calls)?,
            printed_lines: self.printed_lines.checked_add(other.printed_lines)?,
            error: self.error.checked_add(other.error)?,
            used_next: self.used_next.checked_add(other.used_next)?,
            evidence: self.evidence.checked_add(other.evidence)?,
            cited_actions: self.cited_actions.checked_add(other.cited_actions)?,
        })
    }

    /// The categories with their names, as a part names them.
    pub fn shares(&self) -> [(&'static str, Share); 7] {
        [
            ("symbols", self.symbols),
            ("tool_calls", self.tool_calls),
            ("printed_lines", self.printed_lines),
            ("error", self.error),
            ("used_next", self.used_next),
            ("evidence", self.evidence),
            ("cited_actions", self.cited_actions),
        ]
    }
}
