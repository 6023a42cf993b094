//! The library's modules form layers: each top-level module of `host/src` imports only modules
//! of a lower layer, so a reader can start at the bottom and never meet a name from above.
//! This test reads the sources (outside their tests) and checks it.
//!
//! An import is any path `crate::NAME...` (also inside `use crate::{a, b::c}` groups); a name
//! the crate root re-exports (`crate::Error`) counts as an import of the module it comes from.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::support::repo;

/// The layers, lowest first. A module may import the modules of the layers before its own.
const LAYERS: &[&[&str]] = &[
    // Shared basics: no import of another module.
    &["cache", "hash", "suggest"],
    &["pricing"],
    &["message"],
    &["tokens"],
    // Recordings, then what is configured and loaded.
    &["recording"],
    &["config", "plugins"],
    // Prompts from recordings through strategies and templates.
    &["render"],
    // The error of the layers above, wrapping the errors of the layers below.
    &["error"],
    &["host"],
    &["output"],
    // What uses the host: comparing strategies, serving requests.
    &["ab"],
    &["serve"],
    // The command line.
    &["commands"],
    &["cli"],
];

/// The text of `file` before its tests, without comments.
fn code(file: &Path) -> String {
    let text = std::fs::read_to_string(file).unwrap();
    let text = match text.find("#[cfg(test)]") {
        Some(at) => &text[..at],
        None => &text[..],
    };
    text.lines()
        .map(|line| match line.find("//") {
            Some(at) => &line[..at],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn rust_files(path: &Path) -> Vec<PathBuf> {
    if path.is_file() {
        return vec![path.to_owned()];
    }
    let mut files = Vec::new();
    for entry in std::fs::read_dir(path).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs")
            && path.file_name().is_some_and(|n| n != "tests.rs")
        {
            files.push(path);
        }
    }
    files
}

fn identifier(text: &str) -> &str {
    let end = text
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(text.len());
    &text[..end]
}

/// The first names of the paths after each `crate::` in `code`.
fn crate_paths(code: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for (at, _) in code.match_indices("crate::") {
        let rest = &code[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // The top-level entries of the group, up to its closing brace.
            let mut depth = 1;
            let mut entry_start = 0;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 1 => {
                        names.insert(identifier(group[entry_start..i].trim()).to_owned());
                        entry_start = i + 1;
                    }
                    _ => {}
                }
                if depth == 0 {
                    names.insert(identifier(group[entry_start..i].trim()).to_owned());
                    break;
                }
            }
        } else {
            names.insert(identifier(rest).to_owned());
        }
    }
    names.remove("");
    names
}

/// The names the crate root re-exports, by the module they come from.
fn reexports(lib: &str) -> BTreeMap<String, String> {
    let mut from = BTreeMap::new();
    for statement in lib.split(';') {
        let Some(used) = statement.trim().strip_prefix("pub use ") else {
            continue;
        };
        let module = identifier(used).to_owned();
        let last = used.rsplit("::").next().unwrap_or_default();
        for name in last.trim_matches(|c| c == '{' || c == '}').split(',') {
            let name = name.trim();
            let name = name.rsplit(" as ").next().unwrap_or(name).trim();
            if !name.is_empty() {
                from.insert(name.to_owned(), module.clone());
            }
        }
    }
    from
}

/// Each top-level module and the modules it imports.
fn imports() -> BTreeMap<String, BTreeSet<String>> {
    let src = repo().join("host/src");
    let lib = code(&src.join("lib.rs"));
    let reexported = reexports(&lib);
    let mut modules = BTreeMap::new();
    for entry in std::fs::read_dir(&src).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_str().unwrap().to_owned();
        let source = path.is_dir() || path.extension().is_some_and(|e| e == "rs");
        if name == "lib" || name == "main" || !source {
            continue;
        }
        modules.insert(name, path);
    }
    let mut graph = BTreeMap::new();
    for (name, path) in &modules {
        let mut uses = BTreeSet::new();
        for file in rust_files(path) {
            for used in crate_paths(&code(&file)) {
                let module = match reexported.get(&used) {
                    Some(module) if !modules.contains_key(&used) => module.clone(),
                    _ => used,
                };
                if module != *name && modules.contains_key(&module) {
                    uses.insert(module);
                }
            }
        }
        graph.insert(name.clone(), uses);
    }
    graph
}

#[test]
fn every_module_imports_only_the_layers_below_it() {
    let graph = imports();
    let layer_of = |module: &str| LAYERS.iter().position(|layer| layer.contains(&module));
    let mut wrong = Vec::new();
    for (module, uses) in &graph {
        let Some(own) = layer_of(module) else {
            wrong.push(format!("{module} is in no layer: add it to LAYERS"));
            continue;
        };
        for used in uses {
            match layer_of(used) {
                Some(layer) if layer < own => {}
                _ => wrong.push(format!("{module} imports {used}, which is not below it")),
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // Every layer names modules that exist, so the list stays the map of the sources.
    for module in LAYERS.iter().flat_map(|layer| layer.iter()) {
        assert!(
            graph.contains_key(*module),
            "LAYERS names {module}, which is gone"
        );
    }
}

#[test]
fn the_import_reader_sees_groups_and_reexports() {
    let found = crate_paths("use crate::{a::B, c, d::{e, f}};\nlet x = crate::g::h();");
    assert_eq!(
        found,
        ["a", "c", "d", "g"].map(String::from).into_iter().collect()
    );
    let from = reexports("pub use error::Error;\npub use host::{Host, UNCOMPRESSED as U};");
    assert_eq!(from["Error"], "error");
    assert_eq!(from["U"], "host");
    assert_eq!(from["Host"], "host");
}
