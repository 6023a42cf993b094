//! How commands hand their results over: the text-or-JSON choice, pretty JSON, a rendered
//! prompt as text or JSON, whether stdout gets colour, and files written atomically.

use std::io::{IsTerminal, Write};
use std::path::Path;

use clap::ValueEnum;
use serde::Serialize;

use crate::host::Host;
use crate::render::{Prompt, PromptView};
use crate::Error;

/// Output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// For people
    Text,
    /// For programs
    Json,
}

/// Whether stdout gets ANSI colour: it is a terminal and `NO_COLOR` is not set.
pub fn colour() -> bool {
    std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none()
}

/// `value` as indented JSON, ending with a newline.
pub fn pretty<T: Serialize>(value: &T) -> String {
    let mut text = serde_json::to_string_pretty(value).expect("JSON output serializes");
    text.push('\n');
    text
}

/// A rendered prompt as JSON: strategy, messages and statistics.
pub fn prompt_json(prompt: &Prompt) -> String {
    pretty(&PromptView::from(prompt))
}

/// A rendered prompt through the host's `text_output` template.
pub fn prompt_text(host: &Host, prompt: &Prompt) -> Result<String, Error> {
    let context = tera::Context::from_serialize(&PromptView::from(prompt))
        .expect("a struct serializes to a context");
    Ok(host.host_templates()?.render("text_output", &context)?)
}

/// Writes `text` to `out` and flushes it.
pub fn write_out(out: &mut dyn Write, text: &str) -> Result<(), Error> {
    out.write_all(text.as_bytes()).map_err(Error::Output)?;
    out.flush().map_err(Error::Output)
}

/// Writes `bytes` to `path` through a temporary file in the same directory, so that a failed
/// run never leaves half a file.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    let fail = |source| Error::WriteFile {
        path: path.to_owned(),
        source,
    };
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temporary = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    std::fs::write(&temporary, bytes).map_err(fail)?;
    std::fs::rename(&temporary, path).map_err(|e| {
        let _ = std::fs::remove_file(&temporary);
        fail(e)
    })
}
