//! What ptc's compression strategies share, so that a value, a tool or a coalesced history reads
//! the same whichever strategy shows it.
//!
//! - [`to_clojure`] and [`type_label`]: values in Clojure syntax cut to [`Limits`], and their
//!   type labels; [`sanitize_doc`], [`one_line`] and [`cap_chars`] for docstrings, signatures
//!   and printed text.
//! - [`is_private_name`] and [`is_private_key`]: names and map keys starting with `_` are
//!   private; their values are never shown (a `[Hidden]` line, or the entry left out).
//! - [`parse_tool_signature`]: a tool's parameter names and return type.
//! - [`map_from`], [`set_from`] and [`canonical_cmp`]: the canonical order of map entries and
//!   set elements, which the host guarantees to every strategy.
//! - [`defined_since`]: the symbols a turn defined or redefined; [`mark_defined`] records them
//!   in each turn of a run once, for every strategy that shows them.
//! - [`shared_limit_options`]: the limits most strategies declare, set for all of them by the
//!   host's `[compression]` table.
//! - [`coalesce`]: the coalesced view of a history (`tool/`, `data/`, `user/`, tool calls,
//!   output, the latest error, the turns left) with its templates, which live in
//!   `templates/coalesce/` and are compiled into every strategy that uses them.
//! - [`ByRun`]: what a strategy makes of a run's turns (a message, a section), kept on the
//!   thread while the run renders, so that every prompt of the run hands the host the same one;
//!   [`turn_message`] keeps a turn's message so.
//! - [`transcript`]: the tool-call transcript (each turn's response, then the observation of
//!   running its program, capped), which the strategies that clear, trim or compact it share,
//!   and the estimate of a prompt's size they act on.
//!
//! The contract between host and plugins is `ptc-plugin-api`; this crate is built on it and
//! never the other way round.

pub mod coalesce;
mod format;
mod kept;
mod memory;
mod options;
mod signature;
pub mod transcript;
mod value;

pub use format::{
    cap_chars, is_line_break, is_plain_keyword, is_private_key, is_private_name, one_line,
    push_text, sanitize_doc, to_clojure, to_clojure_full, type_label, write_float, write_value,
    Limits,
};
pub use kept::{turn_message, ByRun};
pub use memory::{defined_since, mark_defined};
pub use options::shared_limit_options;
pub use signature::{parse_tool_signature, ToolSignature};
pub use value::{canonical_cmp, map_from, set_from};
