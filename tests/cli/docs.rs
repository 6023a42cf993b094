//! The documentation's internal links lead somewhere: every relative Markdown link of the manual
//! (`docs/src`), `README.md`, `CONTRIBUTING.md` and `CHANGELOG.md` names a file that exists, and
//! a link to a heading (`page.md#anchor`) names a heading of that page, by the slug mdBook and
//! GitHub give it. Offline: links with a scheme (`https://...`) are not followed.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::support::repo;

/// The Markdown files whose links are checked.
fn documents(root: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for name in ["README.md", "CONTRIBUTING.md", "CHANGELOG.md"] {
        let path = root.join(name);
        if path.exists() {
            files.push(path);
        }
    }
    let mut pending = vec![root.join("docs/src")];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.filter_map(Result::ok) {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// The lines of a Markdown text outside fenced code blocks, each with its 1-based number.
fn prose_lines(text: &str) -> Vec<(usize, &str)> {
    let mut fence: Option<(char, usize)> = None;
    let mut lines = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        let marker = trimmed.chars().next().filter(|c| *c == '`' || *c == '~');
        let run = marker.map_or(0, |c| trimmed.chars().take_while(|x| *x == c).count());
        match fence {
            Some((c, n)) => {
                if marker == Some(c) && run >= n && trimmed[run..].trim().is_empty() {
                    fence = None;
                }
            }
            None if run >= 3 => fence = Some((marker.unwrap(), run)),
            None => lines.push((index + 1, line)),
        }
    }
    lines
}

/// `line` without its inline code spans (`` `x` ``, ``` ``x`` ```), which hold no links.
fn without_code_spans(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(start) = rest.find('`') {
        out.push_str(&rest[..start]);
        let ticks = rest[start..].chars().take_while(|c| *c == '`').count();
        let after = &rest[start + ticks..];
        let closing = "`".repeat(ticks);
        match after.find(&closing) {
            Some(end) => rest = &after[end + ticks..],
            None => {
                out.push_str(&rest[start..start + ticks]);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The targets of the inline links and images of one line of prose: `[text](target)`.
fn link_targets(line: &str) -> Vec<String> {
    let line = without_code_spans(line);
    let mut targets = Vec::new();
    let mut rest = line.as_str();
    while let Some(at) = rest.find("](") {
        let after = &rest[at + 2..];
        let Some(end) = after.find(')') else { break };
        let target = after[..end].split_whitespace().next().unwrap_or("");
        targets.push(target.trim_matches(['<', '>']).to_string());
        rest = &after[end..];
    }
    targets
}

/// A heading's anchor as mdBook (and GitHub) make it: the heading's text without Markdown
/// marks, lower case, letters, digits, `_` and `-` kept, whitespace made `-`, the rest dropped.
fn slug(heading: &str) -> String {
    let text = heading
        .trim_start_matches('#')
        .trim()
        .trim_end_matches('#')
        .trim();
    // A link in a heading counts by its text only.
    let mut plain = String::new();
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        plain.push_str(&rest[..open]);
        let inner = &rest[open + 1..];
        match inner.find("](").zip(inner.find(')')) {
            Some((close, end)) if close < end => {
                plain.push_str(&inner[..close]);
                rest = &inner[end + 1..];
            }
            _ => {
                plain.push('[');
                rest = inner;
            }
        }
    }
    plain.push_str(rest);
    plain
        .chars()
        .filter_map(|c| {
            if c.is_alphanumeric() || c == '_' || c == '-' {
                Some(c.to_lowercase().next().unwrap_or(c))
            } else if c.is_whitespace() {
                Some('-')
            } else {
                None
            }
        })
        .collect()
}

/// The text of a page as the book shows it: each `{{#include FILE}}` line replaced by that file.
fn expanded(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .map(|line| {
            let included = line
                .trim()
                .strip_prefix("{{#include ")
                .and_then(|rest| rest.strip_suffix("}}"));
            match included {
                Some(file) => std::fs::read_to_string(path.parent().unwrap().join(file.trim()))
                    .unwrap_or_default(),
                None => line.to_string(),
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The anchors of a page's headings; a repeated heading's second anchor ends in `-1`, its third
/// in `-2`, as mdBook numbers them.
fn anchors(path: &Path) -> Vec<String> {
    let text = expanded(path);
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut anchors = Vec::new();
    for (_, line) in prose_lines(&text) {
        let hashes = line.chars().take_while(|c| *c == '#').count();
        if (1..=6).contains(&hashes) && line[hashes..].starts_with(' ') {
            let base = slug(&without_code_spans_keeping_text(line));
            let count = seen.entry(base.clone()).or_insert(0);
            anchors.push(if *count == 0 {
                base.clone()
            } else {
                format!("{base}-{count}")
            });
            *count += 1;
        }
    }
    anchors
}

/// `line` with the backticks of its code spans removed and their text kept, as a heading
/// shows them.
fn without_code_spans_keeping_text(line: &str) -> String {
    line.replace('`', "")
}

/// Every broken relative link of the documents under `root`, as `file:line: why`.
fn broken_links(root: &Path) -> Vec<String> {
    let mut broken = Vec::new();
    let mut page_anchors: HashMap<PathBuf, Vec<String>> = HashMap::new();
    for file in documents(root) {
        let text = std::fs::read_to_string(&file).unwrap();
        let shown = file
            .strip_prefix(root)
            .unwrap_or(&file)
            .display()
            .to_string();
        for (number, line) in prose_lines(&text) {
            for target in link_targets(line) {
                if target.is_empty() || target.contains("://") || target.starts_with("mailto:") {
                    continue;
                }
                let (path, anchor) = match target.split_once('#') {
                    Some((path, anchor)) => (path, Some(anchor)),
                    None => (target.as_str(), None),
                };
                let destination = if path.is_empty() {
                    file.clone()
                } else {
                    file.parent().unwrap().join(path)
                };
                if !destination.exists() {
                    broken.push(format!("{shown}:{number}: `{target}`: no file {path}"));
                    continue;
                }
                let Some(anchor) = anchor else { continue };
                if destination.extension().is_none_or(|e| e != "md") {
                    continue;
                }
                let known = page_anchors
                    .entry(destination.canonicalize().unwrap())
                    .or_insert_with(|| anchors(&destination));
                if !known.iter().any(|a| a == anchor) {
                    broken.push(format!(
                        "{shown}:{number}: `{target}`: no heading #{anchor} in {}; it has: {}",
                        if path.is_empty() { &shown } else { path },
                        known.join(", ")
                    ));
                }
            }
        }
    }
    broken
}

#[test]
fn the_documentation_has_no_broken_internal_links() {
    let broken = broken_links(&repo());
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn every_page_of_the_summary_exists() {
    let summary = std::fs::read_to_string(repo().join("docs/src/SUMMARY.md")).unwrap();
    let pages: Vec<String> = prose_lines(&summary)
        .into_iter()
        .flat_map(|(_, line)| link_targets(line))
        .collect();
    assert!(pages.len() > 10, "{pages:?}");
    for page in pages {
        assert!(
            repo().join("docs/src").join(&page).is_file(),
            "SUMMARY.md lists {page}, which does not exist"
        );
    }
}

/// The check finds a missing file, a missing heading and a link to a heading of its own page,
/// and ignores links in code and to other sites.
#[test]
fn the_link_check_reports_what_is_broken() {
    let root = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(root.path().join("docs/src/guide")).unwrap();
    std::fs::write(
        root.path().join("README.md"),
        "# ptc\n\n## Quick start: `ptc ab`\n\n[ok](docs/src/guide/a.md#the-page) \
         [ok](#quick-start-ptc-ab) [ok](https://example.org/x.md#y)\n\
         [gone](docs/src/guide/missing.md) [bad anchor](docs/src/guide/a.md#nope) \
         [here](#nowhere) `[code](nothing.md)`\n\n```\n[fenced](nothing.md)\n```\n",
    )
    .unwrap();
    std::fs::write(
        root.path().join("docs/src/guide/a.md"),
        "# The page\n\n```sh\n# not a heading\n```\n\n## Again\n\n## Again\n\n\
         [ok](a.md#again-1) [up](../../../README.md) [bad](a.md#not-a-heading)\n",
    )
    .unwrap();
    let broken = broken_links(root.path());
    let reported: Vec<&str> = broken
        .iter()
        .map(|b| b.split(": ").nth(1).unwrap())
        .collect();
    assert_eq!(
        reported,
        [
            "`docs/src/guide/missing.md`",
            "`docs/src/guide/a.md#nope`",
            "`#nowhere`",
            "`a.md#not-a-heading`",
        ],
        "{broken:#?}"
    );
}
