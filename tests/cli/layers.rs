//! The library's modules form layers: each top-level module of `host/src` imports only modules
//! of a lower layer, so a reader can start at the bottom and never meet a name from above.
//! This test reads the sources (without their test items, wherever they are) and checks it,
//! with the rules that keep the shape: a command imports no other command (what two commands
//! share is an operation, in `ops`), and no source file passes the size a reader takes in at
//! once.
//!
//! An import is any path `crate::NAME...` (also inside `use crate::{a, b::c}` groups); a name
//! the crate root re-exports (`crate::Error`) counts as an import of the module it comes from.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::support::repo;

/// The layers, lowest first. A module may import the modules of the layers before its own.
const LAYERS: &[&[&str]] = &[
    // Shared basics: no import of another module.
    &["cache", "hash", "parallel", "suggest"],
    &["pricing"],
    &["message"],
    &["tokens"],
    // Recordings, then what is configured and loaded.
    &["recording"],
    &["plugins"],
    &["config"],
    // Prompts from recordings through strategies and templates.
    &["render"],
    // The error of the layers above, wrapping the errors of the layers below.
    &["error"],
    &["host"],
    &["output"],
    // What uses the host: comparing strategies.
    &["ab"],
    // The operations the commands are thin over.
    &["ops"],
    // Serving requests, each rendered by an operation.
    &["serve"],
    // The command line.
    &["commands"],
    &["cli"],
];

/// The text of `file` without its comments, the contents of its literals and its test items:
/// every item marked `#[cfg(test)]`, wherever it stands (a `mod tests;` line, a module, a
/// function).
fn code(file: &Path) -> String {
    strip_test_items(&strip_comments(&std::fs::read_to_string(file).unwrap()))
}

/// `text` without comments (`//`, `/* */`), its string and character literals emptied (`""`,
/// `' '`), so that no brace or quote inside them is taken for code.
fn strip_comments(text: &str) -> String {
    blank_out(text, false)
}

/// `text` with every character of its comments and literals replaced by `x`, line breaks
/// kept: the lines of `text`, none of whose braces or quotes hide in a comment or a literal.
fn mask_comments(text: &str) -> String {
    blank_out(text, true)
}

/// [`strip_comments`] (`keep_lines` false) or [`mask_comments`] (true).
fn blank_out(text: &str, keep_lines: bool) -> String {
    let masked = |out: &mut String, skipped: &str| {
        if keep_lines {
            out.extend(skipped.chars().map(|c| if c == '\n' { c } else { 'x' }));
        }
    };
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        let rest = &text[i..];
        let (len, empty) = if rest.starts_with("//") {
            (rest.find('\n').unwrap_or(rest.len()), "")
        } else if rest.starts_with("/*") {
            (rest.find("*/").map_or(rest.len(), |end| end + 2), "")
        } else if let Some(hashes) = raw_string_start(rest) {
            // r"...", r#"..."#: up to the quote followed by as many hashes.
            let close = format!("\"{}", "#".repeat(hashes));
            let body = &rest[hashes + 2..];
            let len = hashes
                + 2
                + body
                    .find(&close)
                    .map_or(body.len(), |end| end + close.len());
            (len, "\"\"")
        } else if rest.starts_with('"') {
            let mut j = 1;
            while j < rest.len() && rest.as_bytes()[j] != b'"' {
                j += if rest.as_bytes()[j] == b'\\' { 2 } else { 1 };
            }
            ((j + 1).min(rest.len()), "\"\"")
        } else if let Some(len) = char_literal(rest) {
            (len, "' '")
        } else {
            (0, "")
        };
        if len > 0 {
            if keep_lines {
                masked(&mut out, &rest[..len]);
            } else {
                out.push_str(empty);
            }
            i += len;
        } else {
            let c = rest.chars().next().unwrap();
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// The number of `#` of a raw string literal starting `text`, if one does (`r"`, `r#"`, `br"`
/// is read from its `r`).
fn raw_string_start(text: &str) -> Option<usize> {
    let after = text.strip_prefix('r')?;
    let hashes = after.len() - after.trim_start_matches('#').len();
    after[hashes..].starts_with('"').then_some(hashes)
}

/// The length of a character literal starting `text` (`'x'`, `'\n'`, `'\u{1F600}'`); `None`
/// for a lifetime or a label (`'a`).
fn char_literal(text: &str) -> Option<usize> {
    let after = text.strip_prefix('\'')?;
    if after.starts_with('\\') {
        return after.find('\'').map(|end| end + 2).filter(|&len| len <= 12);
    }
    let c = after.chars().next()?;
    after[c.len_utf8()..]
        .starts_with('\'')
        .then_some(c.len_utf8() + 2)
}

/// `code` (from [`strip_comments`]) without the items marked `#[cfg(test)]` (or
/// `#[cfg(all(test, ...))]`): from the
/// attribute to the item's `;`, or to the brace that closes its body.
fn strip_test_items(code: &str) -> String {
    const MARK: &str = "#[cfg(";
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    while let Some(at) = rest.find(MARK) {
        let condition = &rest[at + MARK.len()..];
        if !(condition.starts_with("test)]") || condition.starts_with("all(test")) {
            out.push_str(&rest[..at + MARK.len()]);
            rest = condition;
            continue;
        }
        out.push_str(&rest[..at]);
        rest = &condition[condition.find(']').map_or(condition.len(), |end| end + 1)..];
        let mut depth = 0usize;
        let mut end = rest.len();
        for (i, c) in rest.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        end = i + 1;
                        break;
                    }
                }
                ';' if depth == 0 => {
                    end = i + 1;
                    break;
                }
                _ => {}
            }
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
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

#[test]
fn test_items_are_left_out_wherever_they_stand() {
    let code = strip_test_items(&strip_comments(
        "use crate::a;\n#[cfg(test)]\nmod tests;\nuse crate::b;\n#[cfg(all(test, unix))]\nmod unix { use crate::x; }\n#[cfg(feature = \"f\")]\nuse crate::f;\n#[cfg(test)]\nmod more {\n    use crate::c;\n    fn f() { let s = \"}\"; let c = '}'; let r = r#\"\"}\"#; }\n    fn g<'a>(x: &'a str) {}\n}\nuse crate::d; /* use crate::e; */\n",
    ));
    assert_eq!(
        crate_paths(&code),
        ["a", "b", "f", "d"].map(String::from).into_iter().collect()
    );
    let code = strip_comments("let url = \"https://x\"; // crate::gone\nuse crate::kept;");
    assert_eq!(
        crate_paths(&code),
        ["kept"].map(String::from).into_iter().collect()
    );
}

/// The command modules of `host/src/commands`: each file or folder is one command (its
/// subcommands inside it), but `mod.rs` and `args.rs`, which every command shares.
fn commands() -> BTreeMap<String, PathBuf> {
    let dir = repo().join("host/src/commands");
    let mut commands = BTreeMap::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_str().unwrap().to_owned();
        let source = path.is_dir() || path.extension().is_some_and(|e| e == "rs");
        if source && name != "mod" && name != "args" {
            commands.insert(name, path);
        }
    }
    commands
}

#[test]
fn no_command_imports_another() {
    let commands = commands();
    assert!(commands.contains_key("ab") && commands.contains_key("bill"));
    let mut wrong = Vec::new();
    for (name, path) in &commands {
        for file in rust_files(path) {
            let code = code(&file);
            for (at, _) in code.match_indices("crate::commands::") {
                let used = identifier(&code[at + "crate::commands::".len()..]);
                if used != "args" && used != "Context" && used != name {
                    wrong.push(format!("{} imports the command {used}", file.display()));
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "what two commands share is an operation (host/src/ops):\n{}",
        wrong.join("\n")
    );
}

/// A file's lines outside its test items, blank lines and comments included.
fn code_lines(file: &Path) -> usize {
    strip_test_items(&mask_comments(&std::fs::read_to_string(file).unwrap()))
        .lines()
        .count()
}

#[test]
fn comments_and_literals_are_lines_but_hide_no_brace() {
    let text = "/// a }\nfn f() {\n    let s = \"{\n\n}\"; // }\n}\n";
    assert_eq!(
        mask_comments(text),
        "xxxxxxx\nfn f() {\n    let s = xx\n\nxx; xxxx\n}\n"
    );
    let test_module = format!("{text}#[cfg(test)]\nmod t {{\n    /* }} */\n    fn g() {{}}\n}}\n");
    assert_eq!(
        strip_test_items(&mask_comments(&test_module)),
        mask_comments(text) + "\n"
    );
}

#[test]
fn no_source_file_passes_450_code_lines() {
    const MOST: usize = 450;
    let mut long = Vec::new();
    for dir in ["host/src", "plugins"] {
        for file in rust_files(&repo().join(dir)) {
            let lines = code_lines(&file);
            if lines > MOST {
                long.push(format!("{}: {lines}", file.display()));
            }
        }
    }
    assert!(
        long.is_empty(),
        "split these files (at most {MOST} lines, tests left out):\n{}",
        long.join("\n")
    );
}
