//! Tool signatures in PTC-Lisp signature syntax, reduced to what a `tool/` line shows:
//! the parameter names and the return type without colons.

/// A tool signature as the `tool/` namespace shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolSignature {
    /// Parameter names, in order.
    pub params: Vec<String>,
    /// The return type with every `:` removed (`[:string]` -> `[string]`) and every line break
    /// turned into a space; `any` when absent.
    pub returns: String,
}

/// Parses `(name :type, name :type) -> return`.
///
/// The parameter list is optional; it is split on commas outside brackets and the first word of
/// each entry is the parameter's name. The return type is the text after `->`, trimmed, with
/// every `:` removed and every line break turned into a space. `None` (no signature) means no
/// parameters and `any`.
///
/// ```
/// use ptc_strategy_kit::parse_tool_signature;
/// let sig = parse_tool_signature(Some("(query :string, limit :int) -> [{id :int}]"));
/// assert_eq!(sig.params, ["query", "limit"]);
/// assert_eq!(sig.returns, "[{id int}]");
/// ```
pub fn parse_tool_signature(signature: Option<&str>) -> ToolSignature {
    let mut params = Vec::new();
    let returns = read_tool_signature(signature, |name| params.push(name.to_owned()));
    ToolSignature { params, returns }
}

/// [`parse_tool_signature`] handing each parameter name to `param` as it is found, so that a
/// caller keeps the names in what it builds instead of a list of its own; returns the return
/// type.
pub(crate) fn read_tool_signature<'s>(
    signature: Option<&'s str>,
    mut param: impl FnMut(&'s str),
) -> String {
    let Some(text) = signature.map(str::trim) else {
        return "any".into();
    };
    let rest = match text.strip_prefix('(') {
        Some(inner) => match split_params(inner, &mut param) {
            Some(close) => &inner[close + 1..],
            None => "",
        },
        None => text,
    };
    let rest = rest.trim();
    let rest = rest.strip_prefix("->").unwrap_or(rest);
    // Leaving out an ASCII byte keeps UTF-8 valid.
    let rest = rest.trim();
    // Copied piece by piece between the colons (`str::replace` and `split` cost more).
    let mut returns = String::with_capacity(rest.len());
    let mut from = 0;
    for colon in memchr::memchr_iter(b':', rest.as_bytes()) {
        returns.push_str(&rest[from..colon]);
        from = colon + 1;
    }
    returns.push_str(&rest[from..]);
    if let std::borrow::Cow::Owned(one_line) = crate::one_line(&returns) {
        returns = one_line;
    }
    if returns.is_empty() {
        "any".into()
    } else {
        returns
    }
}

/// Hands the name of each parameter of the list whose `(` was just consumed to `param`, in
/// order, and gives the byte index of the `)` that closes it, if one does: one pass over the
/// list, split on commas outside brackets. Brackets are ASCII, and no byte of a non-ASCII
/// character is: the text is read byte by byte.
fn split_params<'s>(list: &'s str, param: &mut impl FnMut(&'s str)) -> Option<usize> {
    let mut depth = 0usize;
    let mut start = 0;
    for (i, b) in list.bytes().enumerate() {
        match b {
            b'(' | b'[' | b'{' => depth += 1,
            b')' if depth == 0 => {
                first_word(&list[start..i], param);
                return Some(i);
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            b',' if depth == 0 => {
                first_word(&list[start..i], param);
                start = i + 1;
            }
            _ => {}
        }
    }
    first_word(&list[start..], param);
    None
}

/// Hands the first word of `entry` (what `split_whitespace` would give first), if it has one,
/// to `param`. ASCII is read byte by byte; from the first non-ASCII byte on, characters.
fn first_word<'s>(entry: &'s str, param: &mut impl FnMut(&'s str)) {
    let entry = entry.trim_start();
    let mut end = entry.len();
    for (i, b) in entry.bytes().enumerate() {
        // The ASCII characters `char::is_whitespace` takes: tab to carriage return, space.
        if matches!(b, b'\t'..=b'\r' | b' ') {
            end = i;
            break;
        }
        if !b.is_ascii() {
            end = i + entry[i..]
                .find(char::is_whitespace)
                .unwrap_or(entry.len() - i);
            break;
        }
    }
    if end > 0 {
        param(&entry[..end]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> (Vec<String>, String) {
        let sig = parse_tool_signature(Some(s));
        (sig.params, sig.returns)
    }

    #[test]
    fn params_and_return_type() {
        assert_eq!(
            parse("(customer_id :int, status :keyword, limit :int) -> [{id :int, amount :float}]"),
            (
                vec!["customer_id".into(), "status".into(), "limit".into()],
                "[{id int, amount float}]".into()
            )
        );
    }

    #[test]
    fn return_type_only() {
        assert_eq!(parse("-> :map"), (vec![], "map".into()));
        assert_eq!(parse("() -> :string?"), (vec![], "string?".into()));
    }

    #[test]
    fn nested_commas_do_not_split_params() {
        assert_eq!(
            parse("(opts {limit :int, offset :int}, q :string) -> {score :float}"),
            (vec!["opts".into(), "q".into()], "{score float}".into())
        );
    }

    #[test]
    fn return_types_stay_on_one_line() {
        assert_eq!(
            parse("(q :string) -> :map\n;; === tool/ ===\r\ntool/x() -> :nil"),
            (
                vec!["q".into()],
                "map ;; === tool/ === tool/x() -> nil".into()
            )
        );
    }

    /// The reading before it was one pass: the closing parenthesis found first, then the list
    /// split, each name the first of `split_whitespace`, the return type copied between colons.
    fn reference(signature: &str) -> (Vec<String>, String) {
        fn matching_paren(text: &str) -> Option<usize> {
            let mut depth = 0usize;
            for (i, b) in text.bytes().enumerate() {
                match b {
                    b'(' | b'[' | b'{' => depth += 1,
                    b')' if depth == 0 => return Some(i),
                    b')' | b']' | b'}' => depth = depth.saturating_sub(1),
                    _ => {}
                }
            }
            None
        }
        fn split(list: &str, params: &mut Vec<String>) {
            let mut depth = 0usize;
            let mut start = 0;
            let mut push = |entry: &str| {
                if let Some(name) = entry.split_whitespace().next() {
                    params.push(name.to_owned());
                }
            };
            for (i, b) in list.bytes().enumerate() {
                match b {
                    b'(' | b'[' | b'{' => depth += 1,
                    b')' | b']' | b'}' => depth = depth.saturating_sub(1),
                    b',' if depth == 0 => {
                        push(&list[start..i]);
                        start = i + 1;
                    }
                    _ => {}
                }
            }
            push(&list[start..]);
        }
        let mut params = Vec::new();
        let text = signature.trim();
        let rest = match text.strip_prefix('(') {
            Some(inner) => match matching_paren(inner) {
                Some(close) => {
                    split(&inner[..close], &mut params);
                    &inner[close + 1..]
                }
                None => {
                    split(inner, &mut params);
                    ""
                }
            },
            None => text,
        };
        let rest = rest.trim();
        let rest = rest.strip_prefix("->").unwrap_or(rest).trim();
        let returns: String = crate::one_line(&rest.split(':').collect::<String>()).into();
        let returns = if returns.is_empty() {
            "any".into()
        } else {
            returns
        };
        (params, returns)
    }

    #[test]
    fn every_short_signature_reads_as_the_reading_in_two_passes_did() {
        // Every text of up to 5 characters over the characters the reading tells apart.
        let alphabet = [
            '(', ')', '[', '{', '}', ',', ':', '-', '>', 'a', ' ', '\u{0B}', '\u{A0}',
        ];
        let mut texts = vec![String::new()];
        let mut checked = 0;
        for _ in 0..5 {
            let mut longer = Vec::new();
            for text in &texts {
                for c in alphabet {
                    let mut t = text.clone();
                    t.push(c);
                    assert_eq!(parse(&t), reference(&t), "{t:?}");
                    checked += 1;
                    longer.push(t);
                }
            }
            texts = longer;
        }
        assert_eq!(checked, (1..=5).map(|n| 13usize.pow(n)).sum::<usize>());
    }

    #[test]
    fn missing_signature_or_return_is_any() {
        let none = parse_tool_signature(None);
        assert_eq!((none.params, none.returns), (vec![], "any".to_string()));
        assert_eq!(parse("(id :int)"), (vec!["id".into()], "any".into()));
    }
}
