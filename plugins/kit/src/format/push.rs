//! Appending the short texts a prompt is mostly written from.

/// Appends `text` to `out`, as `out.push_str(text)` does. Most of what a template or a value
/// printer writes is a few bytes long (a name, a separator, a line's opening); a text of up to
/// 16 bytes is copied by two loads and two stores that cover it instead of a call to `memcpy`,
/// which costs more than such a copy. Longer texts are handed to `push_str`.
#[inline(always)]
pub fn push_text(out: &mut String, text: &str) {
    let n = text.len();
    if n > 16 {
        out.push_str(text);
        return;
    }
    out.reserve(n);
    // SAFETY: `reserve` left room for at least `n` bytes after the `len` in use, and each branch
    // reads only within `text` (n bytes) and writes only within `len..len + n`: two words of 8
    // (or 4) bytes, the first at the start and the second ending at the end, which overlap when
    // `n` is under 16 (or 8), or for one to three bytes the first, middle and last byte. Every
    // byte of `len..len + n` is thus written with the byte of `text` at the same place, so the
    // string then ends with `text`, valid UTF-8 as it is, and `len + n` bytes are initialized.
    unsafe {
        let bytes = out.as_mut_vec();
        let len = bytes.len();
        let src = text.as_ptr();
        let dst = bytes.as_mut_ptr().add(len);
        if n >= 8 {
            let head = src.cast::<u64>().read_unaligned();
            let tail = src.add(n - 8).cast::<u64>().read_unaligned();
            dst.cast::<u64>().write_unaligned(head);
            dst.add(n - 8).cast::<u64>().write_unaligned(tail);
        } else if n >= 4 {
            let head = src.cast::<u32>().read_unaligned();
            let tail = src.add(n - 4).cast::<u32>().read_unaligned();
            dst.cast::<u32>().write_unaligned(head);
            dst.add(n - 4).cast::<u32>().write_unaligned(tail);
        } else if n > 0 {
            *dst = *src;
            *dst.add(n / 2) = *src.add(n / 2);
            *dst.add(n - 1) = *src.add(n - 1);
        }
        bytes.set_len(len + n);
    }
}

#[cfg(test)]
mod tests {
    use super::push_text;

    /// Every length up to past the longest copied inline, of ASCII and of characters of two to
    /// four bytes, appended to strings empty, short and at their capacity: what `push_str` gives.
    #[test]
    fn a_text_of_any_length_is_appended_as_push_str_appends_it() {
        let source = "abcdefghij0123456789é€😀ABCDEFGHIJKLMNOPQRSTUVWXYZ";
        let texts: Vec<&str> = (0..=source.len())
            .filter(|&i| source.is_char_boundary(i))
            .flat_map(|start| {
                (start..=source.len())
                    .filter(move |&end| source.is_char_boundary(end) && end - start <= 24)
                    .map(move |end| &source[start..end])
            })
            .collect();
        assert!(texts.iter().any(|t| t.len() == 16) && texts.iter().any(|t| t.len() == 17));
        for before in ["", "x", "a prefix of some length"] {
            for text in &texts {
                let mut tight = String::with_capacity(before.len());
                tight.push_str(before);
                let mut roomy = String::with_capacity(64);
                roomy.push_str(before);
                let mut expected = before.to_owned();
                expected.push_str(text);
                push_text(&mut tight, text);
                push_text(&mut roomy, text);
                assert_eq!(tight, expected, "{text:?} after {before:?}");
                assert_eq!(roomy, expected, "{text:?} after {before:?}");
            }
        }
    }

    /// Texts appended one after another, each copied over the spare bytes the last left.
    #[test]
    fn texts_appended_in_turn_keep_every_byte() {
        let mut out = String::new();
        let mut expected = String::new();
        for (i, text) in [
            "ab",
            "",
            "c",
            "defg",
            "hijklmn",
            "é",
            "0123456789abcdef",
            "xyz",
        ]
        .iter()
        .cycle()
        .take(200)
        .enumerate()
        {
            push_text(&mut out, text);
            expected.push_str(text);
            assert_eq!(out, expected, "after {i} texts");
        }
    }
}
