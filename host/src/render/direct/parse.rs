//! A template's nodes from its tokens: the tags, prints and expressions run directly, with
//! each path's first name resolved against the loops around it; `None` for anything else.

use super::filter::{self, Filter};
use super::lex::Token;

#[derive(Debug)]
pub(super) enum Node {
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
pub(super) enum Expr {
    Path(Path),
    Int(i64),
    Str(String),
    Bool(bool),
    Not(Path),
    Defined(Path, bool),
    Compare(Op, Box<Expr>, Box<Expr>),
    /// A path through a filter ([`filter`]).
    Filtered(Path, Filter),
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
}

/// A path with its first name looked up when the template is compiled: the loops enclosing a
/// node are known then, so a render reads a loop's item by its depth instead of searching the
/// loops by name for every value it prints.
#[derive(Debug)]
pub(super) struct Path {
    pub(super) root: Root,
    /// The first name as written.
    pub(super) first: String,
    /// The names after the first: fields of records.
    pub(super) rest: Vec<String>,
}

/// Where the first name of a [`Path`] points.
#[derive(Debug)]
pub(super) enum Root {
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
pub(super) enum LoopAttr {
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
    pub(super) fn is_bare(&self) -> bool {
        self.rest.is_empty()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Op {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

/// The nodes of a whole template, or `None` when it uses anything left to tera or a block is
/// left open or closed twice.
pub(super) fn nodes(tokens: Vec<Token<'_>>) -> Option<Vec<Node>> {
    let mut parser = Parser {
        tokens: tokens.into_iter().peekable(),
        loops: Vec::new(),
    };
    let (nodes, end) = parser.nodes()?;
    if end.is_some() {
        return None;
    }
    Some(nodes)
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
                        [Word::Path(path)] if !is_reserved(path) => {
                            Expr::Path(Path::resolve(path, &self.loops))
                        }
                        [Word::Str(s)] => Expr::Str(s.clone()),
                        [Word::Int(i)] => Expr::Int(*i),
                        [Word::Filtered(path, f)] if !is_reserved(path) => {
                            Expr::Filtered(Path::resolve(path, &self.loops), f.clone())
                        }
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
                                        && plain_path(list)
                                        && !is_reserved(list) =>
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
    /// A path and the one filter after it.
    Filtered(Vec<String>, Filter),
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
/// string literals, comparison operators and a path's filter run directly ([`filter`]).
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
        } else if b == b'|' {
            let (f, used) = filter::read(&body[i + 1..])?;
            let Some(Word::Path(path)) = words.pop() else {
                return None;
            };
            words.push(Word::Filtered(path, f));
            i += 1 + used;
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
            Word::Filtered(p, Filter::Length) if !is_reserved(p) => {
                Some(Expr::Filtered(Path::resolve(p, loops), Filter::Length))
            }
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
