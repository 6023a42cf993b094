//! "Did you mean ...?": the known name closest to one the user misspelt, for every error about
//! an unknown name (strategy, option, configuration key, pricing profile, tokenizer).

/// The known name closest to `typed`, when it is close enough to be a likely misspelling: at
/// most a third of its length apart (at least one edit), counting a swap of two neighbouring
/// characters as one edit.
///
/// The work is bounded by the known names, whatever the length of `typed`: a known name whose
/// length differs from it by more than the edits allowed cannot be close enough and is never
/// measured, so a name typed much longer than every known one gets no suggestion at once.
pub fn closest<'a>(typed: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    closest_by(typed, known, strsim::damerau_levenshtein)
}

/// [`closest`] with the edit distance `distance`, called only on names that could be close
/// enough.
fn closest_by<'a>(
    typed: &str,
    known: impl IntoIterator<Item = &'a str>,
    distance: impl Fn(&str, &str) -> usize,
) -> Option<&'a str> {
    let known: Vec<&'a str> = known.into_iter().collect();
    let longest = known.iter().map(|name| name.len()).max()?;
    // A name of more than 3/2 of the longest's characters (plus one) is farther from each
    // than a third of its length: not counted, as its bytes bound its characters.
    if typed.len() > longest.saturating_mul(2).saturating_add(2) {
        let chars = typed.chars().take(longest * 2 + 3).count();
        if chars > longest * 3 / 2 + 1 {
            return None;
        }
    }
    let length = typed.chars().count();
    let limit = (length / 3).max(1);
    known
        .into_iter()
        .filter(|name| name.chars().count().abs_diff(length) <= limit)
        .map(|name| (distance(typed, name), name))
        .filter(|&(distance, _)| distance <= limit)
        .min_by_key(|&(distance, _)| distance)
        .map(|(_, name)| name)
}

/// `; did you mean `name`?` for the known name closest to `typed`, or nothing: the last words
/// of an error message about an unknown name.
pub fn did_you_mean<'a>(typed: &str, known: impl IntoIterator<Item = &'a str>) -> String {
    closest(typed, known)
        .map(|name| format!("; did you mean `{name}`?"))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_the_closest_name_only_when_close() {
        let strategies = ["delta-log", "single-user-coalesced", "rolling-window"];
        assert_eq!(
            closest("single-user-coalesed", strategies),
            Some("single-user-coalesced")
        );
        assert_eq!(closest("delta-lgo", strategies), Some("delta-log"));
        assert_eq!(closest("something-else", strategies), None);
        assert_eq!(
            closest("windw", ["window", "println_limit"]),
            Some("window")
        );
        assert_eq!(closest("x", ["y"]), Some("y"));
        assert_eq!(closest("o200", ["o200k_base", "cl100k_base"]), None);
        assert_eq!(
            did_you_mean("anthropc", ["anthropic", "openai"]),
            "; did you mean `anthropic`?"
        );
        assert_eq!(did_you_mean("zzz", ["anthropic"]), "");
    }

    #[test]
    fn a_name_far_longer_than_every_known_one_is_never_measured() {
        let never = |_: &str, _: &str| -> usize { panic!("the edit distance was computed") };
        let known = ["delta-log", "single-user-coalesced", "rolling-window"];
        for typed in [
            "x".repeat(1 << 20),
            "é".repeat(1 << 20),
            "single-user-coalesced-and-more-words".into(),
        ] {
            assert_eq!(closest_by(&typed, known, never), None);
        }
        assert_eq!(closest(&"x".repeat(1 << 20), known), None);
        assert_eq!(closest_by("x", [], never), None);
    }
}
