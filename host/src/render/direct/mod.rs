//! Templates run directly on a strategy's fields: the common part of tera's language, for the
//! sections of a prompt, without turning the fields into tera values first.
//!
//! Every template stays a tera template and tera stays the reference: a template is compiled
//! here only when it uses nothing but text, comments, `{{ path }}`, `{% if %}` (`elif`, `else`)
//! on paths, `not path`, `path is [not] defined`, comparisons of paths and literals joined by
//! `and` and `or`, `{% for x in path %}` with `loop.index`, `loop.index0`, `loop.first` and
//! `loop.last`, `{% include "name" %}` outside loops, a path's `join(sep="...")`,
//! `default(value="...")` or `length` ([`filter`]); whitespace control (`{%-`, `-%}`, ...)
//! as tera applies it. Anything else (other filters, functions, `set`, macros, inheritance, ...) and
//! the template is left to tera. A render that meets what tera might treat otherwise or report
//! as an error (an undefined variable printed or looped over, a list printed, a comparison
//! between different types, an attribute of something that is not a record, ...) gives up
//! ([`Bail`]) before the caller keeps anything of it, and the caller renders the section with
//! tera, which gives the text or the error. So a section's text is the same either way, which
//! the tests check on every bundled template and the `template_diff` fuzz target on generated
//! ones.
//!
//! The stages: [`lex`] cuts the source into text, prints, tags and comments and applies the
//! whitespace control; [`parse`] builds the nodes; [`eval`] runs them on the fields.

mod eval;
mod filter;
mod lex;
mod parse;
#[cfg(test)]
mod tests;

use abi_stable::std_types::Tuple2;
use ptc_plugin_api::{Field, FieldName};
use rustc_hash::FxHashMap;

/// The render met something it leaves to tera.
#[derive(Debug, PartialEq, Eq)]
pub struct Bail;

/// A compiled template.
#[derive(Debug)]
pub struct Program {
    nodes: Vec<parse::Node>,
}

/// The template compiled, or `None` when it uses anything this module leaves to tera.
pub fn compile(source: &str) -> Option<Program> {
    let tokens = lex::trim_whitespace(lex::tokenize(source)?);
    let nodes = parse::nodes(tokens)?;
    Some(Program { nodes })
}

/// Renders `program` with `fields` and appends its text to `out`; `programs` are the other
/// compiled templates of its set, for `include`. On [`Bail`], `out` may hold part of the text:
/// the caller cuts it back.
pub fn render(
    program: &Program,
    programs: &FxHashMap<String, Program>,
    fields: &[Tuple2<FieldName, Field>],
    out: &mut String,
) -> Result<(), Bail> {
    eval::render(program, programs, fields, out)
}
