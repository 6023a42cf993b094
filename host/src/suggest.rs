//! "Did you mean ...?": the known name closest to one the user misspelt, for every error about
//! an unknown name (strategy, option, configuration key, pricing profile, tokenizer).

/// The known name closest to `typed`, when it is close enough to be a likely misspelling: at
/// most a third of its length apart (at least one edit), counting a swap of two neighbouring
/// characters as one edit.
pub fn closest<'a>(typed: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = (typed.chars().count() / 3).max(1);
    known
        .into_iter()
        .map(|name| (strsim::damerau_levenshtein(typed, name), name))
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
}
