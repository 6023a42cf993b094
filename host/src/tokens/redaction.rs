//! Redaction markers: some logs are published with every text replaced by a marker of its
//! length (`[REDACTED_TEXT len=N sha=…]`, `[REDACTED_OUTPUT len=N sha=…]`). The text is gone,
//! but its length is stated, so a marker is counted as a text of that length would count:
//! [`CHARS_PER_TOKEN`] characters a token. The figure is an estimate, and every count that
//! meets a marker says so where it is shown (the import's summary names the markers).

/// Characters a token of the redacted texts is taken to hold, when a marker is counted as the
/// text it stands for: `o200k_base` counts 3.6 to 3.8 characters a token in the tool results
/// and messages of unredacted real runs (Claude Code, mini-swe-agent and OpenHands logs, 4.1
/// million characters; the manual's page on recordings).
pub const CHARS_PER_TOKEN: f64 = 3.7;

/// The length a whole redaction marker (`[REDACTED_<KIND> len=N sha=…]`) stands for; none for
/// a text that is not one.
pub fn marker(text: &str) -> Option<u64> {
    let inner = text.strip_prefix("[REDACTED_")?.strip_suffix(']')?;
    if inner.contains(']') {
        return None;
    }
    let (kind, rest) = inner.split_once(" len=")?;
    if kind.is_empty() || !kind.bytes().all(|b| b.is_ascii_uppercase() || b == b'_') {
        return None;
    }
    rest.split(' ').next()?.parse().ok()
}

/// The tokens a text of `len` characters is taken to count.
pub fn tokens_of(len: u64) -> usize {
    let tokens = (len as f64 / CHARS_PER_TOKEN).ceil();
    usize::try_from(tokens as u64).unwrap_or(usize::MAX)
}

/// Whether `text` may hold a marker: whether it holds the start of one (searched with a
/// finder built once, as every new line counted is searched).
pub(super) fn may_hold_one(text: &str) -> bool {
    static START: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"[REDACTED_"));
    START.find(text.as_bytes()).is_some()
}

/// The markers within `text`, in order: (start, end, stated length), byte offsets.
pub(super) fn markers_in(text: &str) -> Vec<(usize, usize, u64)> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find("[REDACTED_") {
        let start = from + at;
        let Some(close) = text[start..].find(']') else {
            break;
        };
        let end = start + close + 1;
        match marker(&text[start..end]) {
            Some(len) => {
                found.push((start, end, len));
                from = end;
            }
            None => from = start + 1,
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_marker_states_its_length() {
        assert_eq!(
            marker("[REDACTED_TEXT len=13131 sha=036b7e47]"),
            Some(13131)
        );
        assert_eq!(marker("[REDACTED_OUTPUT len=0 sha=e3b0c442]"), Some(0));
        assert_eq!(marker("[REDACTED_TEXT] len=3"), None);
        assert_eq!(marker("[REDACTED_text len=3 sha=0]"), None);
        assert_eq!(marker("[REDACTED_TEXT len=-3 sha=0]"), None);
        assert_eq!(marker("a text"), None);
    }

    #[test]
    fn markers_are_found_inside_a_text_and_nothing_else_is() {
        let text = "exec [REDACTED_ARGUMENTS len=153 sha=2329] and [REDACTED_ no] [REDACTED_TEXT len=9 sha=1]";
        let found = markers_in(text);
        assert_eq!(found.len(), 2);
        assert_eq!(
            &text[found[0].0..found[0].1],
            "[REDACTED_ARGUMENTS len=153 sha=2329]"
        );
        assert_eq!(found[0].2, 153);
        assert_eq!(found[1].2, 9);
        assert!(markers_in("plain [text] here").is_empty());
    }

    #[test]
    fn a_marker_counts_as_its_length_would() {
        assert_eq!(tokens_of(0), 0);
        assert_eq!(tokens_of(1), 1);
        assert_eq!(tokens_of(37), 10);
        assert_eq!(tokens_of(38), 11);
        assert!(tokens_of(u64::MAX) > 1 << 60);
    }

    #[test]
    fn the_counter_counts_a_marker_as_the_text_it_stands_for() {
        use crate::tokens::{Counter, Tokenizer};
        let mut counter = Counter::new(Tokenizer::O200kBase);
        assert_eq!(counter.text("[REDACTED_OUTPUT len=370 sha=1]"), 100);
        let plain = Tokenizer::O200kBase.count("ls -la\n");
        assert_eq!(
            counter.text("ls -la\n[REDACTED_OUTPUT len=370 sha=1]"),
            plain + 100
        );
        // Not a marker: counted as it is written.
        let text = "[REDACTED_OUTPUT size=370]";
        assert_eq!(counter.text(text), Tokenizer::O200kBase.count(text));
    }
}
