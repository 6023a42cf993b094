//! `ptc new-plugin NAME`: a strategy crate to start from, outside this workspace: Cargo.toml
//! depending on this checkout's ptc-plugin-api, a small but real strategy, its templates, a
//! README and a test.

use std::path::{Path, PathBuf};

use crate::Error;

const FILES: &[(&str, &str)] = &[
    ("Cargo.toml", include_str!("scaffold/Cargo.toml.txt")),
    ("src/lib.rs", include_str!("scaffold/lib.rs.txt")),
    (
        "templates/prompt.tera",
        include_str!("scaffold/prompt.tera.txt"),
    ),
    (
        "templates/system.tera",
        include_str!("scaffold/system.tera.txt"),
    ),
    ("README.md", include_str!("scaffold/README.md.txt")),
];

/// `ptc new-plugin`: the crate of strategy `name` in `path` (default: `./NAME`), depending on
/// the plugin-api at `api_path` (default: the checkout ptc was built from); returns what to do
/// next.
pub fn new_plugin(
    name: &str,
    path: Option<PathBuf>,
    api_path: Option<PathBuf>,
) -> Result<String, Error> {
    let dir = path.unwrap_or_else(|| PathBuf::from(name));
    let Some(api) = api_path.or_else(default_api_path) else {
        return Err(Error::Usage(
            "the ptc-plugin-api checkout ptc was built from is gone; pass --api-path DIR".into(),
        ));
    };
    let files = scaffold(name, &dir, &api)?;
    Ok(format!(
        "created {} ({} files); build it with `cargo build --release --manifest-path {}/Cargo.toml`\n",
        dir.display(),
        files.len(),
        dir.display()
    ))
}

/// The plugin-api of the checkout this ptc was built from, when it is still there.
pub fn default_api_path() -> Option<PathBuf> {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../plugin-api")
        .canonicalize()
        .ok()
}

/// Writes the crate of strategy `name` into `dir`; returns the files written.
pub fn scaffold(name: &str, dir: &Path, api_path: &Path) -> Result<Vec<PathBuf>, Error> {
    let kebab = !name.is_empty()
        && name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    if !kebab {
        return Err(Error::Usage(format!(
            "bad strategy name `{name}`: a strategy name is kebab-case (lowercase letters, digits and `-`, starting with a letter)"
        )));
    }
    if dir.exists()
        && std::fs::read_dir(dir)
            .map(|mut d| d.next().is_some())
            .unwrap_or(true)
    {
        return Err(Error::Exists {
            path: dir.to_owned(),
        });
    }
    // The kit sits beside the contract in a checkout: <root>/plugin-api, <root>/plugins/kit.
    let kit_path = api_path
        .parent()
        .unwrap_or(Path::new(".."))
        .join("plugins")
        .join("kit");
    let krate = format!("ptc-strategy-{name}");
    let lib = krate.replace('-', "_");
    let mut written = Vec::new();
    for (file, text) in FILES {
        let text = text
            .replace("@CRATE@", &krate)
            .replace("@LIB@", &lib)
            .replace("@NAME@", name)
            .replace("@API_PATH@", &api_path.display().to_string())
            .replace("@KIT_PATH@", &kit_path.display().to_string());
        let path = dir.join(file);
        let parent = path.parent().expect("files are in the crate");
        std::fs::create_dir_all(parent).map_err(|source| Error::WriteFile {
            path: parent.to_owned(),
            source,
        })?;
        std::fs::write(&path, text).map_err(|source| Error::WriteFile {
            path: path.clone(),
            source,
        })?;
        written.push(path);
    }
    Ok(written)
}
