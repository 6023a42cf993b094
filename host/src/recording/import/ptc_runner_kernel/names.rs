//! The names the Kernel agent's programs call its tools by. The artifact names a capability
//! call by the capability (`evidence.list_sources`); a program calls the prelude function
//! that wraps it (`incident.evidence/list-sources`), which the `prelude-source` records hold:
//! `(ns incident.evidence …) … (defn list-sources … (tool/evidence.list_sources …))`.

use std::collections::HashMap;

/// A function of a prelude that calls one capability: its name as programs call it, and its
/// `:signature` when it has one.
#[derive(Clone, Debug, PartialEq)]
pub struct Wrapper {
    pub name: String,
    pub signature: Option<String>,
}

/// Capability -> the one public prelude function that calls it directly, over `sources` (the
/// prelude sources). A capability that several functions call, or none, is not in it: its
/// calls keep the capability's name.
pub fn wrappers<'a>(sources: impl Iterator<Item = &'a str>) -> HashMap<String, Wrapper> {
    let mut found: HashMap<String, Vec<Wrapper>> = HashMap::new();
    for source in sources {
        let Some(namespace) = form_name(source, "(ns ") else {
            continue;
        };
        // Top-level forms start a line with `(`.
        let mut starts: Vec<usize> = source.match_indices("\n(").map(|(at, _)| at + 1).collect();
        if source.starts_with('(') {
            starts.insert(0, 0);
        }
        for (i, &start) in starts.iter().enumerate() {
            let end = starts.get(i + 1).copied().unwrap_or(source.len());
            let form = &source[start..end];
            let Some(name) = form_name(form, "(defn ") else {
                continue;
            };
            let mut called: Vec<&str> = form
                .match_indices("(tool/")
                .map(|(at, _)| &form[at + "(tool/".len()..])
                .map(|rest| {
                    let end = rest
                        .find(|c: char| c.is_whitespace() || c == ')' || c == '(')
                        .unwrap_or(rest.len());
                    &rest[..end]
                })
                .filter(|c| !c.is_empty())
                .collect();
            called.sort_unstable();
            called.dedup();
            if let [capability] = called.as_slice() {
                found
                    .entry((*capability).to_owned())
                    .or_default()
                    .push(Wrapper {
                        name: format!("{namespace}/{name}"),
                        signature: signature(form),
                    });
            }
        }
    }
    found
        .into_iter()
        .filter_map(|(capability, mut by)| (by.len() == 1).then(|| (capability, by.remove(0))))
        .collect()
}

/// The symbol after `head` at the start of `form`.
fn form_name(form: &str, head: &str) -> Option<String> {
    let rest = form.trim_start().strip_prefix(head)?;
    let name: String = rest
        .trim_start()
        .chars()
        .take_while(|c| !c.is_whitespace() && !matches!(c, '(' | ')' | '[' | '{' | '"'))
        .collect();
    (!name.is_empty()).then_some(name)
}

/// The `{:signature "…"}` of a definition, when written as one string without escapes.
fn signature(form: &str) -> Option<String> {
    let rest = &form[form.find(":signature")? + ":signature".len()..];
    let rest = rest.trim_start().strip_prefix('"')?;
    let text = &rest[..rest.find('"')?];
    (!text.contains('\\')).then(|| text.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_capability_is_named_by_the_one_function_that_wraps_it() {
        let prelude = "(ns incident.evidence\n  \"Doc.\")\n\n(defn- unwrap [r] r)\n\n(defn list-sources\n  \"List.\"\n  {:signature\n   \"(incident_id :string) -> {sources [:map]}\"}\n  [incident-id]\n  (unwrap (tool/evidence.list_sources {\"incident_id\" incident-id})))\n\n(defn get-record [i e]\n  (unwrap\n    (tool/evidence.get {\"incident_id\" i})))\n\n(defn fetch-again [i e] (tool/evidence.get {}))\n\n(defn both [] (tool/a) (tool/b))\n";
        let names = wrappers([prelude, "(no namespace)"].into_iter());
        assert_eq!(
            names["evidence.list_sources"],
            Wrapper {
                name: "incident.evidence/list-sources".into(),
                signature: Some("(incident_id :string) -> {sources [:map]}".into()),
            }
        );
        assert!(!names.contains_key("evidence.get"), "two functions call it");
        assert!(!names.contains_key("a") && !names.contains_key("b"));
    }
}
