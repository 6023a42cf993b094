//! Running a template's nodes on a section's fields, as tera would, giving up ([`Bail`]) on
//! anything tera might read otherwise.

use abi_stable::std_types::Tuple2;
use ptc_plugin_api::{Field, FieldName};
use rustc_hash::FxHashMap;

use super::filter::Filter;
use super::parse::{Expr, LoopAttr, Node, Op, Path, Root};
use super::{Bail, Program};
use crate::render::growth::MAX_GROWTH;
use ptc_strategy_kit::push_text;

/// A value met while rendering.
#[derive(Clone, Copy)]
enum Val<'a> {
    Field(&'a Field<'a>),
    Int(i64),
    Str(&'a str),
    Bool(bool),
    /// A record's missing field, which tera reads as undefined.
    Missing,
}

/// A loop being run.
struct Loop<'a> {
    var: &'a str,
    item: &'a Field<'a>,
    index: usize,
    len: usize,
}

struct Run<'a, 'f> {
    programs: &'a FxHashMap<String, Program>,
    fields: &'f [Tuple2<FieldName, Field<'f>>],
    loops: Vec<Loop<'f>>,
    out: &'a mut String,
    /// The length past which `out` has grown by more than [`MAX_GROWTH`].
    limit: usize,
}

/// [`super::render`]: `program` run with `fields`, its text appended to `out`.
pub(super) fn render(
    program: &Program,
    programs: &FxHashMap<String, Program>,
    fields: &[Tuple2<FieldName, Field<'_>>],
    out: &mut String,
) -> Result<(), Bail> {
    let limit = out.len().saturating_add(MAX_GROWTH);
    let mut run = Run {
        programs,
        fields,
        loops: Vec::new(),
        out,
        limit,
    };
    run.nodes(&program.nodes)
}

impl<'a, 'f> Run<'a, 'f>
where
    'a: 'f,
{
    fn nodes(&mut self, nodes: &'a [Node]) -> Result<(), Bail> {
        for node in nodes {
            match node {
                Node::Text(text) => self.write(text)?,
                Node::Print(Expr::Filtered(path, filter)) => self.print_filtered(path, filter)?,
                // Most prints are of a path: read without the call to `eval`.
                Node::Print(Expr::Path(path)) => {
                    let value = self.path(path)?;
                    self.print(value)?;
                }
                Node::Print(expr) => {
                    let value = self.eval(expr)?;
                    self.print(value)?;
                }
                Node::If {
                    branches,
                    otherwise,
                } => {
                    let mut taken = None;
                    for (condition, body) in branches {
                        if self.truthy(condition)? {
                            taken = Some(body);
                            break;
                        }
                    }
                    let body = taken.unwrap_or(otherwise);
                    if !body.is_empty() {
                        self.nodes(body)?;
                    }
                }
                Node::For { var, list, body } => {
                    let Val::Field(Field::List(items)) = self.path(list)? else {
                        return Err(Bail);
                    };
                    let Some((first, _)) = items.split_first() else {
                        continue;
                    };
                    // One entry for the whole loop, moved on to each item in turn.
                    self.loops.push(Loop {
                        var,
                        item: first.resolve(),
                        index: 0,
                        len: items.len(),
                    });
                    let depth = self.loops.len() - 1;
                    let mut done = Ok(());
                    for (index, item) in items.iter().enumerate() {
                        let current = &mut self.loops[depth];
                        current.item = item.resolve();
                        current.index = index;
                        done = self.nodes(body);
                        if done.is_err() {
                            break;
                        }
                    }
                    self.loops.pop();
                    done?;
                }
                Node::Include(name) => {
                    let program = self.programs.get(name).ok_or(Bail)?;
                    self.nodes(&program.nodes)?;
                }
            }
        }
        Ok(())
    }

    /// Appends `text`, giving up past [`MAX_GROWTH`] bytes (tera then decides whether the
    /// values given allow that much).
    fn write(&mut self, text: &str) -> Result<(), Bail> {
        if self.out.len() + text.len() > self.limit {
            return Err(Bail);
        }
        push_text(self.out, text);
        Ok(())
    }

    /// Prints `value`: a text as it is, an integer in decimal, a boolean as `true` or `false`;
    /// anything else gives up.
    #[inline(always)]
    fn print(&mut self, value: Val<'_>) -> Result<(), Bail> {
        match value {
            Val::Field(Field::Text(text)) => self.write(text),
            Val::Str(text) => self.write(text),
            Val::Field(Field::Integer(i)) => self.write_int(*i),
            Val::Int(i) => self.write_int(i),
            Val::Field(Field::Boolean(b)) => self.write(bool_text(*b)),
            Val::Bool(b) => self.write(bool_text(b)),
            _ => Err(Bail),
        }
    }

    fn write_int(&mut self, i: i64) -> Result<(), Bail> {
        self.write(itoa::Buffer::new().format(i))
    }

    /// Prints `path` through `filter`: a list of texts joined, a text as it is (what tera's
    /// `default` gives a defined value), a list's length; anything else gives up.
    #[inline(never)]
    fn print_filtered(&mut self, path: &'a Path, filter: &'a Filter) -> Result<(), Bail> {
        match (filter, self.path(path)?) {
            (Filter::Join(sep), Val::Field(Field::List(items))) => {
                for (i, item) in items.iter().enumerate() {
                    let Field::Text(text) = item.resolve() else {
                        return Err(Bail);
                    };
                    if i > 0 {
                        self.write(sep)?;
                    }
                    self.write(text)?;
                }
                Ok(())
            }
            (Filter::Default(_), Val::Field(Field::Text(text))) => self.write(text),
            (Filter::Length, value) => self.write_int(length(value)?),
            _ => Err(Bail),
        }
    }

    /// The value at `path`: a loop's variable or `loop`, else a field of the section, then
    /// fields of records (of two of the same name, the last, as tera reads them). An undefined
    /// name gives up; a record's missing field is
    /// [`Val::Missing`], and anything read from it gives up.
    #[inline(always)]
    fn path(&self, path: &'a Path) -> Result<Val<'f>, Bail> {
        let mut value = match path.root {
            Root::Item(depth) => Val::Field(self.loops.get(depth).ok_or(Bail)?.item),
            Root::Loop(attr) => {
                let l = self.loops.last().ok_or(Bail)?;
                return Ok(match attr.ok_or(Bail)? {
                    LoopAttr::Index => Val::Int(l.index as i64 + 1),
                    LoopAttr::Index0 => Val::Int(l.index as i64),
                    LoopAttr::First => Val::Bool(l.index == 0),
                    LoopAttr::Last => Val::Bool(l.index + 1 == l.len),
                });
            }
            Root::Field => {
                let field = self
                    .fields
                    .iter()
                    .rfind(|f| same_name(f.0.as_str(), &path.first));
                Val::Field(field.ok_or(Bail)?.1.resolve())
            }
        };
        for name in &path.rest {
            value = match value {
                Val::Field(Field::Record(fields)) => fields
                    .iter()
                    .rfind(|f| same_name(f.0.as_str(), name))
                    .map_or(Val::Missing, |f| Val::Field(f.1.resolve())),
                _ => return Err(Bail),
            };
        }
        Ok(value)
    }

    #[inline]
    fn eval(&self, expr: &'a Expr) -> Result<Val<'f>, Bail> {
        Ok(match expr {
            Expr::Path(path) => self.path(path)?,
            Expr::Int(i) => Val::Int(*i),
            Expr::Str(s) => Val::Str(s),
            Expr::Bool(b) => Val::Bool(*b),
            Expr::Filtered(path, filter) => self.filtered(path, filter)?,
            _ => Val::Bool(self.truthy(expr)?),
        })
    }

    /// `path` through `filter` in a condition: a list's length; any other filter gives up.
    #[inline(never)]
    fn filtered(&self, path: &'a Path, filter: &'a Filter) -> Result<Val<'f>, Bail> {
        match filter {
            Filter::Length => Ok(Val::Int(length(self.path(path)?)?)),
            Filter::Join(_) | Filter::Default(_) => Err(Bail),
        }
    }

    fn truthy(&self, expr: &'a Expr) -> Result<bool, Bail> {
        Ok(match expr {
            Expr::Path(path) => truth(self.path(path)?),
            Expr::Not(path) => !truth(self.path(path)?),
            Expr::Defined(path, defined) => {
                let found = match self.path(path) {
                    Ok(Val::Missing) => false,
                    Ok(_) => true,
                    // An undefined name is not defined, if it is a bare name.
                    Err(Bail) if path.is_bare() && first_is_undefined(self, &path.first) => false,
                    Err(bail) => return Err(bail),
                };
                found == *defined
            }
            Expr::Compare(op, a, b) => {
                let (a, b) = (self.eval(a)?, self.eval(b)?);
                compare(*op, a, b)?
            }
            Expr::And(a, b) => self.truthy(a)? && self.truthy(b)?,
            Expr::Or(a, b) => self.truthy(a)? || self.truthy(b)?,
            other => truth(self.eval(other)?),
        })
    }
}

/// Whether two names are the same. Names are short, and a call to `memcmp` for each field
/// looked at costs more than the comparison: one of 4 to 16 bytes compares two words that
/// cover it (overlapping when it is shorter than both), a shorter one byte by byte.
#[inline]
fn same_name(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let n = a.len();
    if n != b.len() {
        return false;
    }
    let word = |s: &[u8], at: usize| u64::from_ne_bytes(s[at..at + 8].try_into().unwrap());
    let half = |s: &[u8], at: usize| u32::from_ne_bytes(s[at..at + 4].try_into().unwrap());
    match n {
        8..=16 => word(a, 0) == word(b, 0) && word(a, n - 8) == word(b, n - 8),
        4..=7 => half(a, 0) == half(b, 0) && half(a, n - 4) == half(b, n - 4),
        0..=3 => a.iter().zip(b).all(|(x, y)| x == y),
        _ => a == b,
    }
}

/// Whether `name` names nothing: no loop variable, not `loop` inside a loop, no field.
fn first_is_undefined(run: &Run<'_, '_>, name: &str) -> bool {
    let in_loop = !run.loops.is_empty();
    let named = run.loops.iter().any(|l| l.var == name)
        || (name == "loop" && in_loop)
        || run.fields.iter().any(|f| f.0.as_str() == name);
    !named
}

/// The number of items of a list, as tera's `length` gives it; the length of anything else
/// (a text's, counted as tera's features decide) is left to tera.
fn length(value: Val<'_>) -> Result<i64, Bail> {
    match value {
        Val::Field(Field::List(items)) => i64::try_from(items.len()).map_err(|_| Bail),
        _ => Err(Bail),
    }
}

fn bool_text(b: bool) -> &'static str {
    if b {
        "true"
    } else {
        "false"
    }
}

/// Tera's truthiness.
fn truth(value: Val<'_>) -> bool {
    match value {
        Val::Field(Field::Text(s)) => !s.is_empty(),
        Val::Str(s) => !s.is_empty(),
        Val::Field(Field::Integer(i)) => *i != 0,
        Val::Int(i) => i != 0,
        Val::Field(Field::Boolean(b)) => *b,
        Val::Bool(b) => b,
        Val::Field(Field::List(items)) => !items.is_empty(),
        Val::Field(Field::Record(fields)) => !fields.is_empty(),
        Val::Field(Field::Shared(shared)) => truth(Val::Field(shared)),
        Val::Missing => false,
    }
}

/// A comparison of two integers, two strings or two booleans (equality only for these);
/// anything else is left to tera.
fn compare<'v>(op: Op, a: Val<'v>, b: Val<'v>) -> Result<bool, Bail> {
    let int = |v: Val<'_>| match v {
        Val::Field(Field::Integer(i)) => Some(*i),
        Val::Int(i) => Some(i),
        _ => None,
    };
    let text = |v: Val<'v>| -> Option<&'v str> {
        match v {
            Val::Field(Field::Text(s)) => Some(s.as_str()),
            Val::Str(s) => Some(s),
            _ => None,
        }
    };
    let boolean = |v: Val<'_>| match v {
        Val::Field(Field::Boolean(b)) => Some(*b),
        Val::Bool(b) => Some(b),
        _ => None,
    };
    let ordering = if let (Some(a), Some(b)) = (int(a), int(b)) {
        a.cmp(&b)
    } else if let (Some(a), Some(b), Op::Eq | Op::Ne) = (text(a), text(b), op) {
        a.cmp(b)
    } else if let (Some(a), Some(b), Op::Eq | Op::Ne) = (boolean(a), boolean(b), op) {
        a.cmp(&b)
    } else {
        return Err(Bail);
    };
    use std::cmp::Ordering::*;
    Ok(match op {
        Op::Eq => ordering == Equal,
        Op::Ne => ordering != Equal,
        Op::Lt => ordering == Less,
        Op::Le => ordering != Greater,
        Op::Gt => ordering == Greater,
        Op::Ge => ordering != Less,
    })
}

#[cfg(test)]
mod tests {
    use super::same_name;

    /// Names of every length up to past the longest compared by words: the same name is the
    /// same, and a name that differs in any one byte, or in its length, is not.
    #[test]
    fn names_are_the_same_only_when_every_byte_is() {
        let source = "abcdefghijklmnopqrstuvwxyz0123";
        for n in 0..=source.len() {
            let name = &source[..n];
            // A copy elsewhere in memory: the comparison reads bytes, not addresses.
            let copy: String = name.chars().collect();
            assert!(same_name(name, &copy), "{name:?}");
            if n > 0 {
                assert!(!same_name(name, &source[..n - 1]), "{name:?}");
            }
            for at in 0..n {
                let mut other = name.as_bytes().to_vec();
                other[at] = b'_';
                let other = String::from_utf8(other).unwrap();
                assert!(!same_name(name, &other), "{name:?} and {other:?}");
            }
        }
    }
}
