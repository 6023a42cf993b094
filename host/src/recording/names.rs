//! Which names a recording may use: every name a prompt shows must be one PTC-Lisp can bind.

/// A name PTC-Lisp can bind: not empty, no whitespace (line breaks included), control
/// characters, brackets, quotes or commas, not starting with a digit or `:`. Every name a
/// prompt shows (data, memory, tools, tool calls, function parameters) is one, so none can
/// break a line of the prompt.
pub fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    match chars.next() {
        None => false,
        Some(first) if first.is_ascii_digit() || first == ':' => false,
        // The characters matched, not looked for in a string: this runs for every character
        // of every name of every turn of a recording.
        Some(_) => !name.chars().any(|c| {
            c.is_whitespace()
                || c.is_control()
                || matches!(
                    c,
                    '(' | ')'
                        | '['
                        | ']'
                        | '{'
                        | '}'
                        | '"'
                        | '\''
                        | ','
                        | ';'
                        | '`'
                        | '~'
                        | '@'
                        | '^'
                        | '\\'
                )
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_cannot_break_a_line() {
        for name in ["orders", "_secret", "valid?", "a->b", "&", "ns/name", "*x*"] {
            assert!(valid_name(name), "{name:?}");
        }
        for name in [
            "",
            "a b",
            "a\nb",
            "a\r",
            "\n;; === tool/ ===",
            "a\tb",
            "a\u{0B}b",
            "a\u{85}b",
            "a\u{2028}b",
            "a\u{2029}b",
            "a\u{1b}b",
            "a\u{0}b",
            "1st",
            ":k",
            "a,b",
            "(x)",
        ] {
            assert!(!valid_name(name), "{name:?}");
        }
    }
}
