//! `o200k_base`'s pretokenization of an ASCII text, written out: the same pieces as the
//! encoding's regular expression cuts (tested against it), without a regex search per piece.
//!
//! A count cuts each new line of a prompt into pieces before it looks each piece up; the
//! regex search that cuts them costs hundreds of instructions per byte, most of it per piece
//! (a search set up, a cache taken from a pool), and the pieces are a few bytes long. Most
//! of what agents send is ASCII, for which the pattern's classes are a handful of byte
//! ranges. A text with any other byte is cut by the regex ([`super::Tokenizer::split`]).
//!
//! The pattern (`bpe-openai`'s, which rewrites tiktoken's look-ahead `\s+(?!\S)` as a match
//! of `\s+\s` that gives its last character back), tried in this order at each place:
//!
//! 1. `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?`
//! 2. `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?`
//! 3. `\p{N}{1,3}`
//! 4. ` ?[^\s\p{L}\p{N}]+[\r\n/]*`
//! 5. `\s*[\r\n]+`
//! 6. `\s+$`
//! 7. `\s+\s`, its last character given back
//! 8. `\s+`
//!
//! In ASCII a letter is `A-Z` (upper) or `a-z` (lower), a number `0-9`, and `\s` the six bytes
//! tab, line feed, vertical tab, form feed, carriage return and space (Unicode's White_Space;
//! the separators 0x1C-0x1F are not): every other byte is of none of the classes.

/// What a byte is to the pattern.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Upper,
    Lower,
    Digit,
    /// `\r` or `\n`.
    Break,
    /// Whitespace that is not a line break.
    Space,
    /// Neither a letter, a number nor whitespace.
    Other,
}

fn class(byte: u8) -> Class {
    match byte {
        b'A'..=b'Z' => Class::Upper,
        b'a'..=b'z' => Class::Lower,
        b'0'..=b'9' => Class::Digit,
        b'\r' | b'\n' => Class::Break,
        b'\t' | 0x0B | 0x0C | b' ' => Class::Space,
        _ => Class::Other,
    }
}

fn is_letter(byte: u8) -> bool {
    byte.is_ascii_alphabetic()
}

fn is_space(byte: u8) -> bool {
    matches!(class(byte), Class::Break | Class::Space)
}

/// The pieces `o200k_base` cuts the ASCII `text` into, in order.
pub(super) fn o200k_ascii(text: &str) -> impl Iterator<Item = &str> {
    debug_assert!(text.is_ascii());
    let bytes = text.as_bytes();
    let mut at = 0;
    std::iter::from_fn(move || {
        (at < bytes.len()).then(|| {
            let end = piece_end(bytes, at);
            let piece = &text[at..end];
            at = end;
            piece
        })
    })
}

/// Where the piece that starts at `at` ends.
fn piece_end(bytes: &[u8], at: usize) -> usize {
    let byte_at = |i: usize| bytes.get(i).copied();
    let run = |from: usize, keep: &dyn Fn(u8) -> bool| {
        from + bytes[from..].iter().take_while(|&&b| keep(b)).count()
    };
    let first = class(bytes[at]);
    // 1 and 2: letters, after at most one byte that is neither a line break, a letter nor a
    // number. Upper then lower (1); else upper alone (2), as the lower run is then empty.
    let letters = match first {
        Class::Upper | Class::Lower => Some(at),
        Class::Space | Class::Other if byte_at(at + 1).is_some_and(is_letter) => Some(at + 1),
        _ => None,
    };
    if let Some(start) = letters {
        let upper = run(start, &|b| b.is_ascii_uppercase());
        let lower = run(upper, &|b| b.is_ascii_lowercase());
        return contraction_end(bytes, lower);
    }
    match first {
        Class::Digit => at + (run(at, &|b| b.is_ascii_digit()) - at).min(3),
        // 4: an optional space, then bytes of no class, then line breaks and slashes.
        Class::Other => run(run(at, &|b| class(b) == Class::Other), &|b| {
            matches!(b, b'\r' | b'\n' | b'/')
        }),
        Class::Space
            if bytes[at] == b' ' && byte_at(at + 1).is_some_and(|b| class(b) == Class::Other) =>
        {
            run(run(at + 1, &|b| class(b) == Class::Other), &|b| {
                matches!(b, b'\r' | b'\n' | b'/')
            })
        }
        _ => {
            let end = run(at, &is_space);
            match bytes[at..end]
                .iter()
                .rposition(|&b| class(b) == Class::Break)
            {
                // 5: whitespace up to its last line break.
                Some(last) => at + last + 1,
                // 6: whitespace to the end of the text.
                None if end == bytes.len() => end,
                // 7: whitespace but its last byte, which may start the next piece.
                None if end - at >= 2 => end - 1,
                // 8: one whitespace byte.
                None => end,
            }
        }
    }
}

/// Where a run of letters that ends at `end` ends with its contraction (`'s`, `'t`, `'re`,
/// `'ve`, `'m`, `'ll` or `'d`, in either case), if one follows.
fn contraction_end(bytes: &[u8], end: usize) -> usize {
    if bytes.get(end) != Some(&b'\'') {
        return end;
    }
    let lower = |i: usize| bytes.get(i).map(u8::to_ascii_lowercase);
    match (lower(end + 1), lower(end + 2)) {
        (Some(b's' | b't' | b'm' | b'd'), _) => end + 2,
        (Some(b'r' | b'v'), Some(b'e')) | (Some(b'l'), Some(b'l')) => end + 3,
        _ => end,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn by_regex(text: &str) -> Vec<&str> {
        bpe_openai::o200k_base().split(text).collect()
    }

    fn written_out(text: &str) -> Vec<&str> {
        o200k_ascii(text).collect()
    }

    #[test]
    fn known_texts_are_cut_as_the_regex_cuts_them() {
        for text in [
            "",
            "Hello, world!",
            "  indented  twice\n\n\tthen a tab",
            "don't WE'LL they'RE I'm it'S you'd a'x 'sup",
            "HELLO's helloWorld ABc (paren ((double 12345 x1y2",
            "path/to/file.rs:12:3\r\n// comment\n/",
            " ( \t( trailing   ",
            "\x0b\x0c\x1c\x1f\x7f\x00 mixed \x1cX",
            "end with newline then spaces\n   ",
        ] {
            assert_eq!(written_out(text), by_regex(text), "{text:?}");
        }
    }

    /// Every text of up to four bytes drawn from one byte of each kind the pattern tells
    /// apart, the letters of the contractions among them.
    #[test]
    fn every_short_text_of_the_bytes_that_matter_is_cut_as_the_regex_cuts_it() {
        let alphabet = b"aAsSrReElLdD9 \t\n\r\x0b'./(\x1c";
        let mut text = Vec::new();
        fn each(alphabet: &[u8], text: &mut Vec<u8>, left: usize) {
            let s = std::str::from_utf8(text).unwrap();
            assert_eq!(written_out(s), by_regex(s), "{s:?}");
            if left == 0 {
                return;
            }
            for &b in alphabet {
                text.push(b);
                each(alphabet, text, left - 1);
                text.pop();
            }
        }
        each(alphabet, &mut text, 4);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn ascii_texts_are_cut_as_the_regex_cuts_them(text in "[ -~\t\n\r\x0b\x0c\x00\x1c]{0,80}") {
            prop_assert_eq!(written_out(&text), by_regex(&text));
        }

        #[test]
        fn texts_like_code_are_cut_as_the_regex_cuts_them(
            text in "([a-zA-Z]{1,6}|[0-9]{1,5}|'[sStTmMdDlLrRvVeE]{0,2}|[ \t]{1,3}|[\r\n]{1,2}|[.,:;(){}/\\-]{1,3}){0,20}"
        ) {
            prop_assert_eq!(written_out(&text), by_regex(&text));
        }
    }
}
