//! `ptc init`: the default configuration and every default template (the host's, the shared
//! sections under `coalesce/`, each loaded strategy's own) written where users edit them: the
//! missing ones are written and the existing ones listed as skipped, unless forced.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::commands::args::ConfigArgs;
use crate::commands::Context;
use crate::host::Host;
use crate::output::{write_atomically, write_out};
use crate::Error;

/// Write the default ptc.toml and every default template into DIR, to start editing them
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Where to write [default: the working directory]
    dir: Option<PathBuf>,
    /// Overwrite files that exist
    #[arg(long)]
    force: bool,
    #[command(flatten)]
    config: ConfigArgs,
}

/// `ptc init`.
pub fn exec(args: Args, context: &Context, out: &mut dyn Write) -> Result<(), Error> {
    let host = context.with_strategies(&args.config, None)?;
    write_out(out, &init(&host, args.dir.as_deref(), args.force)?)
}

/// Writes `ptc.toml` and `templates/` into `dir` (default: the working directory): every file
/// that does not exist yet, or every file with `force`. Says what it wrote and lists what it
/// skipped.
pub fn init(host: &Host, dir: Option<&Path>, force: bool) -> Result<String, Error> {
    let dir = dir.unwrap_or(Path::new("."));
    let mut files: Vec<(PathBuf, String)> = vec![(
        dir.join(crate::CONFIG_FILE_NAME),
        crate::DEFAULT_CONFIG.to_owned(),
    )];
    let templates = dir.join("templates");
    for (name, text) in crate::render::templates::host_defaults() {
        files.push((templates.join(format!("{name}.tera")), text.to_owned()));
    }
    // A section the strategy shares with the kit goes to coalesce/ once, where editing it
    // changes every strategy that shows it; the strategy's own templates to its own folder.
    let shared = || {
        ptc_strategy_kit::coalesce::TEMPLATES
            .iter()
            .chain(ptc_strategy_kit::transcript::TEMPLATES)
    };
    for strategy in host.plugins().strategies() {
        for (name, text) in &strategy.templates {
            let folder = if shared().any(|s| *s == (name.as_str(), text.as_str())) {
                crate::host::SHARED_TEMPLATES_DIR
            } else {
                &strategy.name
            };
            let path = templates.join(folder).join(format!("{name}.tera"));
            if !files.iter().any(|(known, _)| *known == path) {
                files.push((path, text.clone()));
            }
        }
    }
    let (skipped, files): (Vec<_>, Vec<_>) = files
        .into_iter()
        .partition(|(path, _)| !force && path.exists());
    for (path, text) in &files {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|source| Error::WriteFile {
                path: parent.to_owned(),
                source,
            })?;
        }
        write_atomically(path, text.as_bytes())?;
    }
    let mut text = format!("wrote {} files into {}\n", files.len(), dir.display());
    if !skipped.is_empty() {
        text.push_str(&format!(
            "skipped {} files that exist (--force overwrites them):\n",
            skipped.len()
        ));
        for (path, _) in &skipped {
            text.push_str(&format!("  {}\n", path.display()));
        }
    }
    Ok(text)
}
