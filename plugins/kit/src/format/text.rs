//! Free text made fit for a prompt's lines: docstrings for a `;` comment, return types and
//! parameters on one line, printed lines cut to a number of characters.

/// A docstring made safe for a `;` comment line: every `;` removed,
/// every line break turned into one space (see [`one_line`]).
pub fn sanitize_doc(doc: &str) -> String {
    if !doc.contains(';') {
        return one_line(doc).into_owned();
    }
    // One pass: `;` left out first, so that a `\r;\n` is one line break, as in `one_line`.
    if doc.is_ascii() {
        // The runs between the bytes that matter are copied whole.
        let special = |b: &u8| matches!(b, b';' | b'\n' | b'\r' | 0x0B | 0x0C);
        let mut out = String::with_capacity(doc.len());
        let mut after_cr = false;
        let mut rest = doc;
        // Cut at ASCII bytes only: every piece is text as it is.
        while let Some(at) = rest.as_bytes().iter().position(special) {
            if at > 0 {
                out.push_str(&rest[..at]);
                after_cr = false;
            }
            match rest.as_bytes()[at] {
                b';' => {}
                b'\n' if after_cr => after_cr = false,
                b'\r' => {
                    out.push(' ');
                    after_cr = true;
                }
                _ => {
                    out.push(' ');
                    after_cr = false;
                }
            }
            rest = &rest[at + 1..];
        }
        out.push_str(rest);
        return out;
    }
    let mut out = String::with_capacity(doc.len());
    let mut chars = doc.chars().filter(|&c| c != ';').peekable();
    while let Some(c) = chars.next() {
        if c == '\r' && chars.peek() == Some(&'\n') {
            chars.next();
        }
        out.push(if is_line_break(c) { ' ' } else { c });
    }
    out
}

/// The bytes every line break starts with ([`one_line`]), as a table.
const MAY_BREAK: [bool; 256] = {
    let mut table = [false; 256];
    table[b'\n' as usize] = true;
    table[b'\r' as usize] = true;
    table[0x0B] = true;
    table[0x0C] = true;
    table[0xC2] = true;
    table[0xE2] = true;
    table
};

/// A character that ends a line for some reader: `\n`, `\r`, vertical tab, form feed, next
/// line (U+0085), line and paragraph separators (U+2028, U+2029).
pub fn is_line_break(c: char) -> bool {
    matches!(
        c,
        '\n' | '\r' | '\u{0B}' | '\u{0C}' | '\u{85}' | '\u{2028}' | '\u{2029}'
    )
}

/// `text` on one line: every line break (`\r\n` counting as one, see [`is_line_break`]) turned
/// into one space. For the free text a recording gives beside its values (return types in
/// signatures, function parameters), which must not start a line of the prompt.
pub fn one_line(text: &str) -> std::borrow::Cow<'_, str> {
    // Every line break starts with one of these bytes (U+0085 with 0xC2, U+2028 and U+2029
    // with 0xE2): text without them is returned as it is without decoding it.
    if !text.as_bytes().iter().any(|&b| MAY_BREAK[usize::from(b)]) || !text.contains(is_line_break)
    {
        return text.into();
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\r' && chars.peek() == Some(&'\n') {
            chars.next();
        }
        out.push(if is_line_break(c) { ' ' } else { c });
    }
    out.into()
}

/// `text` cut to `limit` characters with `...` appended when it was longer (println entries
/// are cut this way to `println_char_limit`).
pub fn cap_chars(text: &str, limit: usize) -> std::borrow::Cow<'_, str> {
    // No more characters than bytes.
    if text.len() <= limit {
        return text.into();
    }
    // The first `limit` bytes all ASCII: they are the first `limit` characters.
    let cut = match text.as_bytes()[..limit].is_ascii() {
        true => Some(limit),
        false => text.char_indices().nth(limit).map(|(byte, _)| byte),
    };
    match cut {
        Some(byte) => [&text[..byte], "..."].concat().into(),
        None => text.into(),
    }
}
