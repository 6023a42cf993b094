//! Templates run directly on a strategy's fields: the common part of tera's language, for the
//! sections of a prompt, without turning the fields into tera values first.
//!
//! Every template stays a tera template and tera stays the reference: a template is compiled
//! here only when it uses nothing but text, comments, `{{ path }}`, `{% if %}` (`elif`, `else`)
//! on paths, `not path`, `path is [not] defined`, comparisons of paths and literals joined by
//! `and` and `or`, `{% for x in path %}` with `loop.index`, `loop.index0`, `loop.first` and
//! `loop.last`, and `{% include "name" %}` outside loops; whitespace control (`{%-`, `-%}`, ...)
//! as tera applies it. Anything else (filters, functions, `set`, macros, inheritance, ...) and
//! the template is left to tera. A render that meets what tera might treat otherwise or report
//! as an error (an undefined variable printed or looped over, a list printed, a comparison
//! between different types, an attribute of something that is not a record, ...) gives up
//! ([`Bail`]) before the caller keeps anything of it, and the caller renders the section with
//! tera, which gives the text or the error. So a section's text is the same either way, which
//! the tests check on every bundled template.

use abi_stable::std_types::Tuple2;
use ptc_plugin_api::{Field, FieldName};
use rustc_hash::FxHashMap;

use super::templates::MAX_GROWTH;

/// The render met something it leaves to tera.
#[derive(Debug, PartialEq, Eq)]
pub struct Bail;

/// A compiled template.
#[derive(Debug)]
pub struct Program {
    nodes: Vec<Node>,
}

#[derive(Debug)]
enum Node {
    Text(String),
    Print(Expr),
    If {
        branches: Vec<(Expr, Vec<Node>)>,
        otherwise: Vec<Node>,
    },
    For {
        var: String,
        list: Path,
        body: Vec<Node>,
    },
    Include(String),
}

#[derive(Debug)]
enum Expr {
    Path(Path),
    Int(i64),
    Str(String),
    Bool(bool),
    Not(Path),
    Defined(Path, bool),
    Compare(Op, Box<Expr>, Box<Expr>),
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
}

/// A path with its first name looked up when the template is compiled: the loops enclosing a
/// node are known then, so a render reads a loop's item by its depth instead of searching the
/// loops by name for every value it prints.
#[derive(Debug)]
struct Path {
    root: Root,
    /// The first name as written.
    first: String,
    /// The names after the first: fields of records.
    rest: Vec<String>,
}

/// Where the first name of a [`Path`] points.
#[derive(Debug)]
enum Root {
    /// The item of the enclosing loop at this depth (0 for the outermost) whose variable it is.
    Item(usize),
    /// `loop` (no loop variable has that name): an attribute of the innermost loop, `None`
    /// when the path names none it knows.
    Loop(Option<LoopAttr>),
    /// A field of the section.
    Field,
}

/// What `loop.<attr>` reads.
#[derive(Clone, Copy, Debug)]
enum LoopAttr {
    Index,
    Index0,
    First,
    Last,
}

impl Path {
    /// `names` (a plain path) as seen inside the loops whose variables are `loops`, outermost
    /// first: the innermost loop whose variable it names, else `loop`, else a field.
    fn resolve(names: &[String], loops: &[String]) -> Path {
        let (first, rest) = names.split_first().expect("a path has a first name");
        let root = if let Some(depth) = loops.iter().rposition(|var| var == first) {
            Root::Item(depth)
        } else if first == "loop" {
            Root::Loop(match rest {
                [attr] => match attr.as_str() {
                    "index" => Some(LoopAttr::Index),
                    "index0" => Some(LoopAttr::Index0),
                    "first" => Some(LoopAttr::First),
                    "last" => Some(LoopAttr::Last),
                    _ => None,
                },
                _ => None,
            })
        } else {
            Root::Field
        };
        Path {
            root,
            first: first.clone(),
            rest: rest.to_vec(),
        }
    }

    /// A bare name, without fields after it.
    fn is_bare(&self) -> bool {
        self.rest.is_empty()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

// ---------------------------------------------------------------------------------------------
// Compiling
// ---------------------------------------------------------------------------------------------

/// A piece of a template's source.
#[derive(Debug)]
enum Token<'a> {
    Text(&'a str),
    /// `{{ ... }}`, with whether it trims the text before and after it.
    Print(&'a str, bool, bool),
    /// `{% ... %}`.
    Tag(&'a str, bool, bool),
    /// `{# ... #}`.
    Comment(bool, bool),
}

/// The template compiled, or `None` when it uses anything this module leaves to tera.
pub fn compile(source: &str) -> Option<Program> {
    let tokens = tokenize(source)?;
    let tokens = trim_whitespace(tokens);
    let mut parser = Parser {
        tokens: tokens.into_iter().peekable(),
        loops: Vec::new(),
    };
    let (nodes, end) = parser.nodes()?;
    if end.is_some() {
        return None;
    }
    Some(Program { nodes })
}

/// Splits `source` into text, prints, tags and comments.
fn tokenize(source: &str) -> Option<Vec<Token<'_>>> {
    let mut tokens = Vec::new();
    let mut rest = source;
    while !rest.is_empty() {
        let open = ["{{", "{%", "{#"]
            .iter()
            .filter_map(|d| rest.find(d))
            .min()
            .unwrap_or(rest.len());
        if open > 0 {
            tokens.push(Token::Text(&rest[..open]));
        }
        rest = &rest[open..];
        if rest.is_empty() {
            break;
        }
        let kind = rest.as_bytes()[1];
        let body = &rest[2..];
        let left = body.starts_with('-');
        let body = if left { &body[1..] } else { body };
        if kind == b'#' {
            let end = body.find("#}")?;
            let right = body[..end].ends_with('-');
            tokens.push(Token::Comment(left, right));
            rest = &body[end + 2..];
            continue;
        }
        let close = if kind == b'{' { "}}" } else { "%}" };
        let end = tag_end(body, close)?;
        let inner = &body[..end];
        let right = inner.ends_with('-');
        let inner = if right {
            &inner[..inner.len() - 1]
        } else {
            inner
        };
        tokens.push(if kind == b'{' {
            Token::Print(inner, left, right)
        } else {
            Token::Tag(inner, left, right)
        });
        rest = &body[end + close.len()..];
    }
    Some(tokens)
}

/// Where `close` ends a tag's body, outside string literals.
fn tag_end(body: &str, close: &str) -> Option<usize> {
    let bytes = body.as_bytes();
    let mut quote = None;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match quote {
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None if matches!(b, b'"' | b'\'' | b'`') => quote = Some(b),
            None if body[i..].starts_with(close) => return Some(i),
            None => {}
        }
        i += 1;
    }
    None
}

/// Text with the whitespace tera's whitespace control removes (tera's lexer: a text loses its
/// leading whitespace after a tag or print ending with `-`, or a comment ending with `-`, until
/// a tag or print without it; its trailing whitespace before one starting with `-`).
fn trim_whitespace(tokens: Vec<Token<'_>>) -> Vec<Token<'_>> {
    let mut out = Vec::with_capacity(tokens.len());
    let mut trim_start = false;
    for i in 0..tokens.len() {
        match tokens[i] {
            Token::Text(mut text) => {
                if trim_start {
                    trim_start = false;
                    text = text.trim_start();
                }
                let next_trims = matches!(
                    tokens.get(i + 1),
                    Some(
                        Token::Print(_, true, _) | Token::Tag(_, true, _) | Token::Comment(true, _)
                    )
                );
                if next_trims {
                    text = text.trim_end();
                }
                if !text.is_empty() {
                    out.push(Token::Text(text));
                }
            }
            Token::Print(_, _, right) | Token::Tag(_, _, right) => {
                trim_start = right;
                out.push(match tokens[i] {
                    Token::Print(s, l, r) => Token::Print(s, l, r),
                    Token::Tag(s, l, r) => Token::Tag(s, l, r),
                    _ => unreachable!(),
                });
            }
            Token::Comment(_, right) => {
                if right {
                    trim_start = true;
                }
            }
        }
    }
    out
}

/// How a block of nodes ended.
#[derive(Debug)]
enum End {
    Elif(Expr),
    Else,
    /// `endif`.
    If,
    /// `endfor`.
    For,
}

struct Parser<'a> {
    tokens: std::iter::Peekable<std::vec::IntoIter<Token<'a>>>,
    /// The variables of the loops enclosing the current node, outermost first.
    loops: Vec<String>,
}

impl Parser<'_> {
    /// Nodes up to the end of the template or the tag that ends their block.
    fn nodes(&mut self) -> Option<(Vec<Node>, Option<End>)> {
        let mut nodes = Vec::new();
        while let Some(token) = self.tokens.next() {
            match token {
                Token::Text(text) => match nodes.last_mut() {
                    Some(Node::Text(before)) => before.push_str(text),
                    _ => nodes.push(Node::Text(text.to_owned())),
                },
                Token::Print(body, _, _) => {
                    let words = words(body)?;
                    let expr = match words.as_slice() {
                        [Word::Path(path)] => Expr::Path(Path::resolve(path, &self.loops)),
                        [Word::Str(s)] => Expr::Str(s.clone()),
                        [Word::Int(i)] => Expr::Int(*i),
                        _ => return None,
                    };
                    nodes.push(Node::Print(expr));
                }
                Token::Tag(body, _, _) => {
                    let words = words(body)?;
                    match words.first()? {
                        Word::Path(p) if p.len() == 1 => match p[0].as_str() {
                            "if" => {
                                let first = condition(&words[1..], &self.loops)?;
                                nodes.push(self.if_node(first)?)
                            }
                            "elif" => {
                                let next = condition(&words[1..], &self.loops)?;
                                return Some((nodes, Some(End::Elif(next))));
                            }
                            "else" if words.len() == 1 => return Some((nodes, Some(End::Else))),
                            "endif" if words.len() == 1 => return Some((nodes, Some(End::If))),
                            "endfor" if words.len() == 1 => return Some((nodes, Some(End::For))),
                            "for" => match words.as_slice() {
                                [_, Word::Path(var), Word::Path(kw), Word::Path(list)]
                                    if var.len() == 1
                                        && kw.len() == 1
                                        && kw[0] == "in"
                                        && var[0] != "loop"
                                        && plain_path(list) =>
                                {
                                    // The list is read outside the loop it starts.
                                    let list = Path::resolve(list, &self.loops);
                                    self.loops.push(var[0].clone());
                                    let (body, end) = self.nodes()?;
                                    self.loops.pop();
                                    if !matches!(end, Some(End::For)) {
                                        return None;
                                    }
                                    nodes.push(Node::For {
                                        var: var[0].clone(),
                                        list,
                                        body,
                                    });
                                }
                                _ => return None,
                            },
                            "include" if self.loops.is_empty() => match words.as_slice() {
                                [_, Word::Str(name)] => nodes.push(Node::Include(name.clone())),
                                _ => return None,
                            },
                            _ => return None,
                        },
                        _ => return None,
                    }
                }
                Token::Comment(..) => {}
            }
        }
        Some((nodes, None))
    }

    /// The rest of an `if` whose first condition is `first`.
    fn if_node(&mut self, first: Expr) -> Option<Node> {
        let mut branches = Vec::new();
        let mut condition = first;
        loop {
            let (body, end) = self.nodes()?;
            branches.push((condition, body));
            match end? {
                End::Elif(next) => condition = next,
                End::Else => {
                    let (otherwise, end) = self.nodes()?;
                    if !matches!(end, Some(End::If)) {
                        return None;
                    }
                    return Some(Node::If {
                        branches,
                        otherwise,
                    });
                }
                End::If => {
                    return Some(Node::If {
                        branches,
                        otherwise: Vec::new(),
                    })
                }
                End::For => return None,
            }
        }
    }
}

/// A word of a tag or print.
#[derive(Clone, Debug)]
enum Word {
    /// A name or a dotted path (`loop.last`); keywords are paths of one name.
    Path(Vec<String>),
    Int(i64),
    Str(String),
    Op(Op),
}

/// A path this module resolves: names only, none of tera's magic variables.
fn plain_path(path: &[String]) -> bool {
    !path.is_empty()
        && path.iter().all(|name| {
            let mut chars = name.chars();
            chars
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
        && !path[0].starts_with("__")
}

/// The words of a tag or print, or `None` for anything but names, paths, integers, plain
/// string literals and comparison operators.
fn words(body: &str) -> Option<Vec<Word>> {
    let mut words = Vec::new();
    let bytes = body.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b.is_ascii_whitespace() {
            i += 1;
        } else if b.is_ascii_alphabetic() || b == b'_' {
            let start = i;
            while i < bytes.len()
                && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_' || bytes[i] == b'.')
            {
                i += 1;
            }
            let path: Vec<String> = body[start..i].split('.').map(str::to_owned).collect();
            if !plain_path(&path) {
                return None;
            }
            words.push(Word::Path(path));
        } else if b.is_ascii_digit() {
            let start = i;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            if i < bytes.len() && (bytes[i] == b'.' || bytes[i].is_ascii_alphabetic()) {
                return None;
            }
            words.push(Word::Int(body[start..i].parse().ok()?));
        } else if b == b'"' {
            let end = body[i + 1..].find('"')? + i + 1;
            let text = &body[i + 1..end];
            if text.contains('\\') {
                return None;
            }
            words.push(Word::Str(text.to_owned()));
            i = end + 1;
        } else {
            let two = body.get(i..i + 2);
            let (op, len) = match (two, b) {
                (Some("=="), _) => (Op::Eq, 2),
                (Some("!="), _) => (Op::Ne, 2),
                (Some("<="), _) => (Op::Le, 2),
                (Some(">="), _) => (Op::Ge, 2),
                (_, b'<') => (Op::Lt, 1),
                (_, b'>') => (Op::Gt, 1),
                _ => return None,
            };
            words.push(Word::Op(op));
            i += len;
        }
    }
    Some(words)
}

/// A condition: comparisons, tests and `not path`, joined by `and` and `or` (`and` binding
/// tighter).
fn condition(words: &[Word], loops: &[String]) -> Option<Expr> {
    let is_keyword = |w: &Word, k: &str| matches!(w, Word::Path(p) if p.len() == 1 && p[0] == k);
    if let Some(at) = words.iter().rposition(|w| is_keyword(w, "or")) {
        return Some(Expr::Or(
            Box::new(condition(&words[..at], loops)?),
            Box::new(condition(&words[at + 1..], loops)?),
        ));
    }
    if let Some(at) = words.iter().rposition(|w| is_keyword(w, "and")) {
        return Some(Expr::And(
            Box::new(condition(&words[..at], loops)?),
            Box::new(condition(&words[at + 1..], loops)?),
        ));
    }
    let operand = |w: &Word| -> Option<Expr> {
        match w {
            Word::Path(p) if p.len() == 1 && p[0] == "true" => Some(Expr::Bool(true)),
            Word::Path(p) if p.len() == 1 && p[0] == "false" => Some(Expr::Bool(false)),
            Word::Path(p) if !is_reserved(p) => Some(Expr::Path(Path::resolve(p, loops))),
            Word::Int(i) => Some(Expr::Int(*i)),
            Word::Str(s) => Some(Expr::Str(s.clone())),
            _ => None,
        }
    };
    match words {
        [w] => operand(w),
        [not, Word::Path(p)] if is_keyword(not, "not") && !is_reserved(p) => {
            Some(Expr::Not(Path::resolve(p, loops)))
        }
        [Word::Path(p), is, defined] if is_keyword(is, "is") && is_keyword(defined, "defined") => {
            (!is_reserved(p)).then(|| Expr::Defined(Path::resolve(p, loops), true))
        }
        [Word::Path(p), is, not, defined]
            if is_keyword(is, "is") && is_keyword(not, "not") && is_keyword(defined, "defined") =>
        {
            (!is_reserved(p)).then(|| Expr::Defined(Path::resolve(p, loops), false))
        }
        [a, Word::Op(op), b] => Some(Expr::Compare(
            *op,
            Box::new(operand(a)?),
            Box::new(operand(b)?),
        )),
        _ => None,
    }
}

/// A keyword of tera's expressions, never a variable here.
fn is_reserved(path: &[String]) -> bool {
    path.len() == 1
        && matches!(
            path[0].as_str(),
            "and"
                | "or"
                | "not"
                | "is"
                | "in"
                | "true"
                | "false"
                | "none"
                | "None"
                | "True"
                | "False"
        )
}

// ---------------------------------------------------------------------------------------------
// Rendering
// ---------------------------------------------------------------------------------------------

/// A value met while rendering.
#[derive(Clone, Copy)]
enum Val<'a> {
    Field(&'a Field),
    Int(i64),
    Str(&'a str),
    Bool(bool),
    /// A record's missing field, which tera reads as undefined.
    Missing,
}

/// A loop being run.
struct Loop<'a> {
    var: &'a str,
    item: &'a Field,
    index: usize,
    len: usize,
}

struct Run<'a, 'f> {
    programs: &'a FxHashMap<String, Program>,
    fields: &'f [Tuple2<FieldName, Field>],
    loops: Vec<Loop<'f>>,
    out: &'a mut String,
    start: usize,
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
    let start = out.len();
    let mut run = Run {
        programs,
        fields,
        loops: Vec::new(),
        out,
        start,
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
                Node::Print(expr) => match self.eval(expr)? {
                    Val::Field(Field::Text(text)) => self.write(text)?,
                    Val::Str(text) => self.write(text)?,
                    Val::Field(Field::Integer(i)) => self.write_int(*i)?,
                    Val::Int(i) => self.write_int(i)?,
                    Val::Field(Field::Boolean(b)) => self.write(bool_text(*b))?,
                    Val::Bool(b) => self.write(bool_text(b))?,
                    _ => return Err(Bail),
                },
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
                    self.nodes(taken.unwrap_or(otherwise))?;
                }
                Node::For { var, list, body } => {
                    let Val::Field(Field::List(items)) = self.path(list)? else {
                        return Err(Bail);
                    };
                    let len = items.len();
                    for (index, item) in items.iter().enumerate() {
                        self.loops.push(Loop {
                            var,
                            item,
                            index,
                            len,
                        });
                        let done = self.nodes(body);
                        self.loops.pop();
                        done?;
                    }
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
        if self.out.len() - self.start + text.len() > MAX_GROWTH {
            return Err(Bail);
        }
        self.out.push_str(text);
        Ok(())
    }

    fn write_int(&mut self, i: i64) -> Result<(), Bail> {
        self.write(itoa::Buffer::new().format(i))
    }

    /// The value at `path`: a loop's variable or `loop`, else a field of the section, then
    /// fields of records. An undefined name gives up; a record's missing field is
    /// [`Val::Missing`], and anything read from it gives up.
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
                    .find(|f| same_name(f.0.as_str(), &path.first));
                Val::Field(&field.ok_or(Bail)?.1)
            }
        };
        for name in &path.rest {
            value = match value {
                Val::Field(Field::Record(fields)) => fields
                    .iter()
                    .find(|f| same_name(f.0.as_str(), name))
                    .map_or(Val::Missing, |f| Val::Field(&f.1)),
                _ => return Err(Bail),
            };
        }
        Ok(value)
    }

    fn eval(&self, expr: &'a Expr) -> Result<Val<'f>, Bail> {
        Ok(match expr {
            Expr::Path(path) => self.path(path)?,
            Expr::Int(i) => Val::Int(*i),
            Expr::Str(s) => Val::Str(s),
            Expr::Bool(b) => Val::Bool(*b),
            _ => Val::Bool(self.truthy(expr)?),
        })
    }

    fn truthy(&self, expr: &'a Expr) -> Result<bool, Bail> {
        Ok(match expr {
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

/// Whether two names are the same, compared byte by byte: names are short, and a call to
/// `memcmp` for each field looked at costs more than the comparison.
fn same_name(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).all(|(x, y)| x == y)
}

/// Whether `name` names nothing: no loop variable, not `loop` inside a loop, no field.
fn first_is_undefined(run: &Run<'_, '_>, name: &str) -> bool {
    let in_loop = !run.loops.is_empty();
    let named = run.loops.iter().any(|l| l.var == name)
        || (name == "loop" && in_loop)
        || run.fields.iter().any(|f| f.0.as_str() == name);
    !named
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
    use std::path::{Path, PathBuf};

    use ptc_plugin_api::{Options, Record, Section};

    use super::*;
    use crate::recording::{Recording, RecordingDefaults};
    use crate::render::templates::Templates;

    fn templates_dir() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../templates")
    }

    /// The templates of `dir` under `templates/`, by name.
    fn bundled(dir: &str) -> Vec<(String, String)> {
        let mut set: Vec<_> = std::fs::read_dir(templates_dir().join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .map(|p| {
                let name = p.file_stem().unwrap().to_string_lossy().into_owned();
                (name, std::fs::read_to_string(&p).unwrap())
            })
            .collect();
        set.sort();
        set
    }

    /// The section rendered directly (`None` when it is left to tera) and through tera.
    fn both(templates: &Templates, section: &Section) -> (Option<Result<String, Bail>>, String) {
        let direct = templates.direct.get(section.template.as_str()).map(|p| {
            let mut text = String::new();
            render(p, &templates.direct, &section.fields, &mut text).map(|()| {
                if text.ends_with('\n') {
                    text.pop();
                }
                text
            })
        });
        let mut tera = String::new();
        let tera = match templates.append_with_tera(section, &mut Vec::new(), &mut tera) {
            Ok(()) => tera,
            Err(err) => format!("error: {err}"),
        };
        (direct, tera)
    }

    /// Checks that the section reads the same directly as through tera, when it is rendered
    /// directly; returns whether it was.
    fn same(templates: &Templates, section: &Section) -> bool {
        match both(templates, section) {
            (Some(Ok(direct)), tera) => {
                assert_eq!(direct, tera, "{section:?}");
                true
            }
            (Some(Err(Bail)), _) | (None, _) => false,
        }
    }

    fn set(sources: &[(&str, &str)]) -> Templates {
        let sources: Vec<(String, String)> = sources
            .iter()
            .map(|(n, s)| (n.to_string(), s.to_string()))
            .collect();
        Templates::load("t", &sources, |_| Vec::new()).unwrap()
    }

    #[test]
    fn bundled_templates_run_directly_unless_they_call_filters() {
        for dir in [
            "coalesce",
            "aggressive",
            "delta-log",
            "per-turn-summary",
            "observation-masking",
        ] {
            for (name, source) in bundled(dir) {
                let filters = source.contains('|');
                assert_eq!(
                    compile(&source).is_some(),
                    !filters,
                    "{dir}/{name} should {}run directly",
                    if filters { "not " } else { "" }
                );
            }
        }
    }

    #[test]
    fn whitespace_control_conditions_and_loops_read_as_tera_reads_them() {
        let items: Vec<Field> = ["a", "", "c d"].iter().map(|s| (*s).into()).collect();
        let records: Vec<Field> = (0..3)
            .map(|i| {
                let r = Record::new()
                    .with("name", format!("n{i}"))
                    .with("n", i as i64);
                if i == 1 {
                    r.with("doc", "").into()
                } else {
                    r.with("flag", i == 2).into()
                }
            })
            .collect();
        let fields = Section::new("x")
            .with("items", items)
            .with("records", records)
            .with("empty", Vec::<Field>::new())
            .with("n", 3i64)
            .with("m", -12i64)
            .with("t", "text")
            .with("yes", true)
            .with("no", false);
        let sources = [
            "a {{ t }}  \n  {%- if yes %} b {% endif -%}  \n c\n",
            "{#- comment -#}\n  x {# plain #}  y {#- left #}  z {# right -#}  w\n",
            "{% for i in items -%}\n [{{ i }}]{% if not loop.last %},{% endif %}\n{% endfor -%}\nend",
            "{% for r in records %}{{ loop.index }}/{{ loop.index0 }}{% if loop.first %}F{% endif %}:{{ r.name }}{% if r.doc is defined %} doc{% elif r.flag %} flag{% else %} none{% endif %}\n{% endfor %}",
            "{% for r in records %}{% for i in items %}{{ r.n }}{{ i }}{% endfor %};{% endfor %}",
            "{% if n == 3 and m < 0 %}A{% endif %}{% if n != 3 or m >= n %}B{% endif %}{% if n != 3 or m <= n %}b{% endif %}{% if n > 4 %}C{% elif n <= 3 %}D{% endif %}",
            "{% if t == \"text\" %}eq{% endif %}{% if t != \"x\" %}ne{% endif %}{% if yes == true %}T{% endif %}",
            "{% if missing is defined %}def{% else %}undef{% endif %}{% if t is not defined %}!{% endif %}{% if items %}I{% endif %}{% if empty %}E{% endif %}",
            "{{ n }} {{ m }} {{ yes }} {{ no }} {{ 42 }} {{ \"lit\" }}",
            "{% for r in records -%}\n    {{- r.name -}}\n  {% endfor %}",
            "  {%- for i in empty %}never{% endfor -%}  \n\n",
            "{% include \"x2\" %} and {%- include \"x2\" -%} .",
        ];
        for source in sources {
            let templates = set(&[("x", source), ("x2", "[{{ n }}]\n")]);
            assert!(templates.direct.contains_key("x"), "{source}");
            assert!(same(&templates, &fields), "gave up: {source}");
        }
    }

    #[test]
    fn what_tera_might_read_otherwise_is_left_to_it() {
        let fields = Section::new("x")
            .with("items", vec![Field::from("a")])
            .with("n", 3i64)
            .with("t", "text");
        let gives_up = [
            "{{ missing }}",
            "{{ items }}",
            "{% for i in t %}{{ i }}{% endfor %}",
            "{% for i in missing %}{% endfor %}",
            "{{ t.x }}",
            "{% if n == \"3\" %}{% endif %}",
            "{% if t > \"a\" %}{% endif %}",
            "{% if missing %}{% endif %}",
            "{{ n.x.y }}",
        ];
        for source in gives_up {
            let templates = set(&[("x", source)]);
            let (direct, _) = both(&templates, &fields);
            assert_eq!(direct, Some(Err(Bail)), "{source}");
            // The section still renders (or fails) as tera says.
            let mut text = String::new();
            let via_host = templates.append_section(&fields, &mut Vec::new(), &mut text);
            let (_, tera) = both(&templates, &fields);
            match via_host {
                Ok(()) => assert_eq!(text, tera, "{source}"),
                Err(err) => assert_eq!(format!("error: {err}"), tera, "{source}"),
            }
        }
        let not_compiled = [
            "{{ t | upper }}",
            "{% set a = 1 %}",
            "{% for k, v in m %}{% endfor %}",
            "{% for i in items %}{% include \"x\" %}{% endfor %}",
            "{% raw %}{{ x }}{% endraw %}",
            "{{ a + 1 }}",
            "{{ __tera_context }}",
            "{% if not a is defined %}{% endif %}",
            "{% for i in items %}{% else %}{% endfor %}",
            "{% if a %}",
            "{{ \"a\\\"b\" }}",
            "{{ 1.5 }}",
            "{% if m > -1 %}{% endif %}",
        ];
        for source in not_compiled {
            assert!(compile(source).is_none(), "{source}");
        }
    }

    /// The coalesced view and the conversation without compression, for every prefix of every
    /// example recording, read the same directly as through tera.
    #[test]
    fn the_coalesced_sections_of_the_examples_read_as_through_tera() {
        use ptc_strategy_kit::coalesce;
        let templates = Templates::load(
            "coalesce",
            &coalesce::TEMPLATES
                .iter()
                .map(|(n, s)| (n.to_string(), s.to_string()))
                .collect::<Vec<_>>(),
            |_| Vec::new(),
        )
        .unwrap();
        let defaults = RecordingDefaults {
            max_turns: 10,
            system_prompt: "system".into(),
        };
        let settings = coalesce::settings_with_defaults(&Options::default()).unwrap();
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/recordings");
        let mut direct = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().and_then(|e| e.to_str()) != Some("json") {
                continue;
            }
            let bytes = std::fs::read(&path).unwrap();
            let Ok(recording) = Recording::parse(&bytes, &path, &defaults) else {
                continue;
            };
            for k in 0..=recording.turns.len() {
                let turns = &recording.turns[..k];
                let (user, _) = coalesce::user_message(&recording.run, turns, &settings);
                let uncompressed = coalesce::uncompressed(&recording.run, turns, &settings);
                let messages = uncompressed.messages.into_iter().chain([user]);
                for message in messages {
                    for section in message.sections() {
                        direct += usize::from(same(&templates, section));
                    }
                }
            }
        }
        assert!(direct > 100, "only {direct} sections ran directly");
    }

    /// A template of the part of tera run directly: text, prints, conditions and loops, with
    /// and without whitespace control, nested.
    fn any_template() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let text = prop_oneof![
            Just("a".to_owned()),
            Just(" ".to_owned()),
            Just("\n".to_owned()),
            Just("  \n ".to_owned()),
            Just("x y\n\n".to_owned()),
            Just("{# c #}".to_owned()),
            Just(" {#- c -#} ".to_owned()),
        ];
        let value = prop_oneof![
            Just("s"),
            Just("n"),
            Just("b"),
            Just("e"),
            Just("r.name"),
            Just("missing"),
            Just("items"),
            Just("r.missing"),
            Just("\"lit\""),
            Just("7"),
        ];
        let print = (value, any::<bool>(), any::<bool>()).prop_map(|(v, l, r)| {
            format!(
                "{{{{{} {v} {}}}}}",
                if l { "-" } else { "" },
                if r { "-" } else { "" }
            )
        });
        let leaf = prop_oneof![text, print];
        leaf.prop_recursive(3, 24, 4, |inner| {
            let condition = prop_oneof![
                Just("s"),
                Just("not b"),
                Just("n == 3"),
                Just("n < 2 or b"),
                Just("s == \"x\" and n >= 1"),
                Just("e != \"\""),
                Just("missing is defined"),
                Just("r.name is not defined"),
                Just("items"),
                Just("missing"),
                Just("s > 1"),
            ];
            let body = proptest::collection::vec(inner, 0..4).prop_map(|parts| parts.concat());
            let trim = any::<bool>();
            prop_oneof![
                (condition, body.clone(), body.clone(), trim).prop_map(|(c, yes, no, t)| {
                    let d = if t { "-" } else { "" };
                    format!("{{%{d} if {c} {d}%}}{yes}{{% else %}}{no}{{%{d} endif {d}%}}")
                }),
                (body.clone(), trim).prop_map(|(b, t)| {
                    let d = if t { "-" } else { "" };
                    format!(
                        "{{% for i in items {d}%}}{{{{ i }}}}{b}{{% if loop.last %}}.{{% elif loop.first %}}{{{{ loop.index }}}}{{% endif %}}{{%{d} endfor %}}"
                    )
                }),
                proptest::collection::vec(body, 1..3).prop_map(|parts| parts.concat()),
            ]
        })
    }

    /// Any template of the part run directly, on fields of every kind, reads as tera reads it
    /// whenever it is run directly (and most are).
    #[test]
    fn any_template_run_directly_reads_as_through_tera() {
        use proptest::prelude::*;
        use proptest::test_runner::{Config, TestRunner};
        let fields = (
            proptest::sample::select(vec!["", "x", "a b"]),
            0i64..5,
            any::<bool>(),
            proptest::collection::vec(proptest::sample::select(vec!["", "p", "q r"]), 0..3),
        );
        let mut runner = TestRunner::new(Config {
            cases: 4096,
            ..Config::default()
        });
        let (ran, direct) = (std::cell::Cell::new(0), std::cell::Cell::new(0));
        runner
            .run(&(any_template(), fields), |(source, (s, n, b, items))| {
                let items: Vec<Field> = items.into_iter().map(Field::from).collect();
                let fields = Section::new("x")
                    .with("s", s)
                    .with("n", n)
                    .with("b", b)
                    .with("e", "")
                    .with("items", items)
                    .with("r", Record::new().with("name", "nm"));
                let templates = set(&[("x", source.as_str())]);
                ran.set(ran.get() + 1);
                direct.set(direct.get() + usize::from(same(&templates, &fields)));
                Ok(())
            })
            .unwrap();
        assert!(
            direct.get() * 4 > ran.get(),
            "only {} of {} templates ran directly",
            direct.get(),
            ran.get()
        );
    }
}
