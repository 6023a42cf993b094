//! `ptc new-plugin NAME`: a strategy crate to start from, outside this workspace: Cargo.toml
//! depending on this checkout's ptc-plugin-api, a small but real strategy, its templates, a
//! README and a test.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::output::write_out;
use crate::Error;

/// Start a strategy of your own: a crate with a small real strategy, its templates, a README
/// and a test, depending on this checkout's ptc-plugin-api
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The strategy's name (kebab-case); the crate is ptc-strategy-NAME
    name: String,
    /// Where to create it [default: ./NAME]
    #[arg(long, value_name = "DIR")]
    path: Option<PathBuf>,
    /// The ptc-plugin-api to depend on [default: the one of the checkout ptc was built from]
    #[arg(long, value_name = "DIR")]
    api_path: Option<PathBuf>,
}

/// `ptc new-plugin`.
pub fn exec(args: Args, out: &mut dyn Write) -> Result<(), Error> {
    write_out(out, &new_plugin(&args.name, args.path, args.api_path)?)
}

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

/// `path` as a TOML string, quoted and escaped; `flag` names where it came from when it cannot
/// be one (it is not UTF-8).
fn toml_path(path: &Path, flag: &str) -> Result<String, Error> {
    let Some(text) = path.to_str() else {
        return Err(Error::Usage(format!(
            "{flag} {}: a path in Cargo.toml must be UTF-8",
            path.display()
        )));
    };
    Ok(toml::Value::String(text.to_owned()).to_string())
}

/// `path` as seen from the directory `from` (which exists): `../ptc/plugin-api`; `path` as
/// given when the two have nothing in common but the root, or either cannot be resolved.
fn relative_to(path: &Path, from: &Path) -> PathBuf {
    let absolute = |p: &Path| -> Option<PathBuf> {
        let p = match p.is_absolute() {
            true => p.to_owned(),
            false => std::env::current_dir().ok()?.join(p),
        };
        // The contract's folder may not exist yet: resolve what does.
        Some(p.canonicalize().unwrap_or(p))
    };
    let (Some(target), Some(base)) = (absolute(path), from.canonicalize().ok()) else {
        return path.to_owned();
    };
    let (target, base): (Vec<_>, Vec<_>) =
        (target.components().collect(), base.components().collect());
    let common = target.iter().zip(&base).take_while(|(a, b)| a == b).count();
    if common < 2 {
        return path.to_owned();
    }
    let mut relative: PathBuf = base[common..].iter().map(|_| "..").collect();
    relative.extend(&target[common..]);
    relative
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
        return Err(Error::NotEmpty {
            path: dir.to_owned(),
        });
    }
    std::fs::create_dir_all(dir).map_err(|source| Error::WriteFile {
        path: dir.to_owned(),
        source,
    })?;
    // Written relative to the crate: the checkout and the crate can move together, and no
    // machine's absolute path is written into a crate that may be shared.
    let api_path = relative_to(api_path, dir);
    let api = toml_path(&api_path, "--api-path")?;
    // The kit sits beside the contract in a checkout: <root>/plugin-api, <root>/plugins/kit.
    let kit_path = toml_path(
        &api_path
            .parent()
            .unwrap_or(Path::new(".."))
            .join("plugins")
            .join("kit"),
        "--api-path",
    )?;
    let krate = format!("ptc-strategy-{name}");
    let lib = krate.replace('-', "_");
    let mut written = Vec::new();
    for (file, text) in FILES {
        let text = text
            .replace("@CRATE@", &krate)
            .replace("@LIB@", &lib)
            .replace("@NAME@", name)
            .replace("@API_PATH@", &api)
            .replace("@KIT_PATH@", &kit_path);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_api_path_is_written_as_a_toml_string() {
        let dir = tempfile::tempdir().unwrap();
        let api = dir.path().join("odd \"name\" \\ here").join("plugin-api");
        let krate = dir.path().join("my-strategy");
        scaffold("my-strategy", &krate, &api).unwrap();
        let manifest = std::fs::read_to_string(krate.join("Cargo.toml")).unwrap();
        let parsed: toml::Table = toml::from_str(&manifest).expect("a valid Cargo.toml");
        let path = |dep: &str| {
            parsed["dependencies"][dep]["path"]
                .as_str()
                .unwrap()
                .to_owned()
        };
        // Relative to the crate, so that neither names this machine's folders.
        assert_eq!(path("ptc-plugin-api"), "../odd \"name\" \\ here/plugin-api");
        assert_eq!(
            path("ptc-strategy-kit"),
            "../odd \"name\" \\ here/plugins/kit"
        );
    }

    #[test]
    fn the_api_path_is_relative_to_the_crate_wherever_it_is() {
        let dir = tempfile::tempdir().unwrap();
        let checkout = dir.path().join("src/ptc");
        std::fs::create_dir_all(checkout.join("plugin-api")).unwrap();
        let krate = dir.path().join("work/strategies/mine");
        scaffold("mine", &krate, &checkout.join("plugin-api")).unwrap();
        let manifest = std::fs::read_to_string(krate.join("Cargo.toml")).unwrap();
        assert!(
            manifest.contains(r#"ptc-plugin-api = { path = "../../../src/ptc/plugin-api" }"#),
            "{manifest}"
        );
        assert!(
            manifest.contains(r#"ptc-strategy-kit = { path = "../../../src/ptc/plugins/kit" }"#),
            "{manifest}"
        );
        assert!(
            !manifest.contains(dir.path().to_str().unwrap()),
            "{manifest}"
        );
    }

    #[test]
    fn a_non_empty_directory_is_refused_without_naming_a_missing_flag() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("notes.txt"), "mine").unwrap();
        let err = scaffold("my-strategy", dir.path(), Path::new("/api"))
            .unwrap_err()
            .to_string();
        assert!(!err.contains("--force"), "{err}");
        assert!(err.contains("is not empty"), "{err}");
        assert_eq!(
            std::fs::read_to_string(dir.path().join("notes.txt")).unwrap(),
            "mine"
        );
    }
}
