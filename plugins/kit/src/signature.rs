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
    param: impl FnMut(&'s str),
) -> String {
    let Some(text) = signature.map(str::trim) else {
        return "any".into();
    };
    let rest = match text.strip_prefix('(') {
        Some(inner) => match matching_paren(inner) {
            Some(close) => {
                split_params(&inner[..close], param);
                &inner[close + 1..]
            }
            None => {
                split_params(inner, param);
                ""
            }
        },
        None => text,
    };
    let rest = rest.trim();
    let rest = rest.strip_prefix("->").unwrap_or(rest);
    // Leaving out an ASCII byte keeps UTF-8 valid.
    let rest = rest.trim();
    // Copied piece by piece between the colons, each piece text as it is.
    let mut returns = String::with_capacity(rest.len());
    for piece in rest.split(':') {
        returns.push_str(piece);
    }
    if let std::borrow::Cow::Owned(one_line) = crate::one_line(&returns) {
        returns = one_line;
    }
    if returns.is_empty() {
        "any".into()
    } else {
        returns
    }
}

/// The byte index of the `)` closing a list whose `(` was just consumed. Brackets are ASCII,
/// and no byte of a non-ASCII character is: the text is read byte by byte.
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

/// Hands the name of each parameter of `list` to `param`, in order.
fn split_params<'s>(list: &'s str, mut param: impl FnMut(&'s str)) {
    let mut depth = 0usize;
    let mut start = 0;
    let mut push = |entry: &'s str| {
        // The first word: what `split_whitespace` would give first, without its iterator.
        let entry = entry.trim_start();
        let name = &entry[..entry.find(char::is_whitespace).unwrap_or(entry.len())];
        if !name.is_empty() {
            param(name);
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

    #[test]
    fn missing_signature_or_return_is_any() {
        let none = parse_tool_signature(None);
        assert_eq!((none.params, none.returns), (vec![], "any".to_string()));
        assert_eq!(parse("(id :int)"), (vec!["id".into()], "any".into()));
    }
}
