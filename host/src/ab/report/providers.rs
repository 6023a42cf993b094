//! Which pricing profiles are one provider's: a verdict is given per provider, among the
//! profile and its variants.

use crate::ab::plan::NO_HITS;
use crate::pricing::Pricing;

/// The profile a verdict judges `name` under: its name without the keys that are the client's
/// choice (placement, TTL) or the other end of its range (`anthropic@breakpoints=auto` and
/// `anthropic@cache_ttl=1h` are `anthropic`'s; `anthropic@model=claude-haiku-4-5` is a profile
/// of its own, judged on its own).
pub fn family(name: &str) -> String {
    let mut parts = name.split('@');
    let mut family = parts.next().unwrap_or(name).to_owned();
    for part in parts {
        let choice = ["breakpoints=", "cache_ttl=", "hits="];
        if !choice.iter().any(|key| part.starts_with(key)) {
            family.push('@');
            family.push_str(part);
        }
    }
    family
}

/// Whether `profile` is a profile's other end with no cache hit (`gemini@hits=none`), or a
/// placement known only in hindsight (`breakpoints=planned`, `bound`): neither is a choice a
/// verdict names.
pub fn is_no_hits(profile: &Pricing) -> bool {
    profile.name.ends_with(&format!("@{NO_HITS}")) || (profile.in_hindsight())
}
