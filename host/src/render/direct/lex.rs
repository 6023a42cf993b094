//! Cutting a template's source into text, prints, tags and comments, and the whitespace that
//! tera's whitespace control removes from the text.

/// A piece of a template's source.
#[derive(Debug)]
pub(super) enum Token<'a> {
    Text(&'a str),
    /// `{{ ... }}`, with whether it trims the text before and after it.
    Print(&'a str, bool, bool),
    /// `{% ... %}`.
    Tag(&'a str, bool, bool),
    /// `{# ... #}`.
    Comment(bool, bool),
}

/// Splits `source` into text, prints, tags and comments.
pub(super) fn tokenize(source: &str) -> Option<Vec<Token<'_>>> {
    let mut tokens = Vec::new();
    let mut rest = source;
    while !rest.is_empty() {
        let open = next_open(rest);
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

/// Where the first `{{`, `{%` or `{#` of `text` starts, or its length: each `{` is looked at
/// once, where a search for each of the three would read the rest of a long template again
/// for every tag.
pub(super) fn next_open(text: &str) -> usize {
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(i) = memchr::memchr(b'{', &bytes[from..]) {
        let at = from + i;
        if matches!(bytes.get(at + 1), Some(b'{' | b'%' | b'#')) {
            return at;
        }
        from = at + 1;
    }
    text.len()
}

/// Where `close` ends a tag's body, outside string literals. Compared as bytes: the body may
/// hold characters of several bytes, and `i` may be inside one.
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
            None if bytes[i..].starts_with(close.as_bytes()) => return Some(i),
            None => {}
        }
        i += 1;
    }
    None
}

/// Text with the whitespace tera's whitespace control removes (tera's lexer: a text loses its
/// leading whitespace after a tag or print ending with `-`, or a comment ending with `-`, until
/// a tag or print without it; its trailing whitespace before one starting with `-`).
pub(super) fn trim_whitespace(tokens: Vec<Token<'_>>) -> Vec<Token<'_>> {
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
