//! The runs bundled with ptc (compiled in), named from any directory by their file name.

use std::path::Path;

use crate::recording::corpus::Source;

/// The bundled recording `path` names when there is no such file: an example by its file name
/// (`failure-recovery.json`) or its path in the repository (`examples/recordings/...`), a
/// bundled real run by its path (`examples/realruns/...`). A file of that name wins.
pub fn named(path: &Path) -> Option<Source> {
    if path.exists() {
        return None;
    }
    let text = path.to_str()?;
    let text = text.strip_prefix("./").unwrap_or(text);
    let example = crate::examples::EXAMPLES.iter().find(|(name, _)| {
        text == *name || text.strip_prefix("examples/recordings/") == Some(*name)
    });
    let real = || {
        crate::examples::REAL_RUNS
            .iter()
            .find(|(name, _)| text == *name)
    };
    example
        .or_else(real)
        .map(|&(name, json)| Source::Embedded { name, json })
}
