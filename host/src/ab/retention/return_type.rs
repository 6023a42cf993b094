//! The keys a tool's return type names: a program reads `:page` from the result of a tool
//! whose signature says `-> {page :int}`, so a prompt that shows that return type shows the
//! keyword (the used-next category; see the parent module).

use ptc_plugin_api::Run;
use ptc_strategy_kit::parse_tool_signature;
use rustc_hash::FxHashMap;

use super::is_fact_name;

/// Per bare key of the return type of one of `run`'s tools (private tools left out): the
/// texts that show that return type.
pub(super) fn return_keys(run: &Run) -> FxHashMap<&str, Vec<String>> {
    let mut keys: FxHashMap<&str, Vec<String>> = FxHashMap::default();
    for tool in run.tools.iter().filter(|t| is_fact_name(&t.name)) {
        let Some(signature) = tool.signature.as_ref().into_option() else {
            continue;
        };
        let Some((_, written)) = signature.split_once("->") else {
            continue;
        };
        let written = written.trim();
        let printed = parse_tool_signature(Some(signature.as_str())).returns;
        for key in bare_keys(written).into_iter().filter(|k| is_fact_name(k)) {
            let shown = keys.entry(key).or_default();
            for text in [written, printed.as_str()] {
                if !text.is_empty() && !shown.iter().any(|s| s == text) {
                    shown.push(text.to_owned());
                }
            }
        }
    }
    keys
}

/// The keys of the maps a return type describes (`{page int, items [{id :string}]}`: `page`,
/// `items`, `id`): at any depth, the first word of each entry of a `{...}`, a leading `:`
/// left out.
fn bare_keys(returns: &str) -> Vec<&str> {
    let mut keys = Vec::new();
    // The brackets open at this point, and whether the next word starts an entry of a map.
    let mut open: Vec<char> = Vec::new();
    let mut entry = false;
    let mut at = 0;
    let bytes = returns.as_bytes();
    while at < bytes.len() {
        let c = bytes[at] as char;
        match c {
            '{' | '[' | '(' => {
                open.push(c);
                entry = c == '{';
                at += 1;
            }
            '}' | ']' | ')' => {
                open.pop();
                entry = false;
                at += 1;
            }
            ',' => {
                entry = open.last() == Some(&'{');
                at += 1;
            }
            c if c.is_whitespace() => at += 1,
            _ => {
                let end = returns[at..]
                    .find(|c: char| c.is_whitespace() || "{}[](),".contains(c))
                    .map_or(returns.len(), |i| at + i);
                if entry {
                    let word = returns[at..end].trim_start_matches(':');
                    if !word.is_empty() {
                        keys.push(word);
                    }
                    entry = false;
                }
                at = end;
            }
        }
    }
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bare_keys_of_a_return_type_are_found_at_any_depth() {
        assert_eq!(
            bare_keys("{page int, total_pages int}"),
            ["page", "total_pages"]
        );
        assert_eq!(
            bare_keys("[{id :string, items [{sku :string}], meta {a :int}}]"),
            ["id", "items", "sku", "meta", "a"]
        );
        assert_eq!(bare_keys(":nil"), Vec::<&str>::new());
        assert_eq!(bare_keys("[:string]"), Vec::<&str>::new());
        assert_eq!(bare_keys("{:k :int,, }"), ["k"]);
        assert_eq!(bare_keys("{unclosed"), ["unclosed"]);
    }
}
