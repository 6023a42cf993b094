//! The filters run directly: `join(sep="...")` on a list of texts, `default(value="...")` on a
//! text and `length` of a list, one filter after a path. They are the ones the bundled
//! templates call on every turn (a response's tools, a program, the names a masked turn
//! defined). Any other filter, a second filter, an argument that is not a plain string literal,
//! and the template is left to tera; a value the filter is not run on here (a list holding
//! anything but texts, an undefined name, the length of a text) gives up at render time
//! ([`super::Bail`]), and tera renders the section.

/// A filter applied to a path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Filter {
    /// `join(sep="...")`: the texts of a list, with the separator between them.
    Join(String),
    /// `default(value="...")`: a text as it is (tera gives the default only to an undefined
    /// value, which is left to tera here).
    Default(String),
    /// `length`: the number of items of a list.
    Length,
}

/// The filter written at the start of `body` (just after its `|`), and the bytes it takes;
/// `None` for any other filter or a form of its arguments not run directly.
pub(super) fn read(body: &str) -> Option<(Filter, usize)> {
    let bytes = body.as_bytes();
    let mut i = skip_space(bytes, 0);
    let name_start = i;
    while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
        i += 1;
    }
    let name = &body[name_start..i];
    let after_name = skip_space(bytes, i);
    if bytes.get(after_name) != Some(&b'(') {
        return (name == "length").then_some((Filter::Length, i));
    }
    // One keyword argument, a string literal without escapes: `(key="text")`.
    let mut j = skip_space(bytes, after_name + 1);
    let key_start = j;
    while j < bytes.len() && (bytes[j].is_ascii_alphanumeric() || bytes[j] == b'_') {
        j += 1;
    }
    let key = &body[key_start..j];
    j = skip_space(bytes, j);
    if bytes.get(j) != Some(&b'=') {
        return None;
    }
    j = skip_space(bytes, j + 1);
    if bytes.get(j) != Some(&b'"') {
        return None;
    }
    let close = body[j + 1..].find('"')? + j + 1;
    let text = &body[j + 1..close];
    if text.contains('\\') {
        return None;
    }
    let end = skip_space(bytes, close + 1);
    if bytes.get(end) != Some(&b')') {
        return None;
    }
    let filter = match (name, key) {
        ("join", "sep") => Filter::Join(text.to_owned()),
        ("default", "value") => Filter::Default(text.to_owned()),
        _ => return None,
    };
    Some((filter, end + 1))
}

fn skip_space(bytes: &[u8], mut i: usize) -> usize {
    while i < bytes.len() && bytes[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_three_filters_and_nothing_else() {
        assert_eq!(read(" length"), Some((Filter::Length, 7)));
        assert_eq!(read("length > 0"), Some((Filter::Length, 6)));
        assert_eq!(
            read(" join(sep=\", \") }"),
            Some((Filter::Join(", ".into()), 15))
        );
        assert_eq!(
            read("default( value = \"x y\" )"),
            Some((Filter::Default("x y".into()), 24))
        );
        for other in [
            " upper",
            " length()",
            " join",
            " join(\", \")",
            " join(sep=\"a\\nb\")",
            " join(sep=x)",
            " join(sep=\"a\", b=\"c\")",
            " default(value=1)",
            " default(val=\"x\")",
            " pad(width=8)",
            " join(sep=\"x\"",
        ] {
            assert_eq!(read(other), None, "{other}");
        }
    }
}
