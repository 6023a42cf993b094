//! The files of a directory and of its folders, as a corpus or an import reads them.

use std::path::{Path, PathBuf};

use super::corpus::is_ext;
use super::ReadError;

/// How deep [`files_under`] looks into folders: bounds a loop of linked folders.
const MAX_DEPTH: usize = 16;

/// Every file under `dir` whose name ends in one of `extensions`: those directly in it sorted
/// by name, then those of each folder in it, folders sorted by name (an agent's sessions kept
/// by date, `sessions/2026/02/23/rollout-*.jsonl`). Hidden folders (`.git`) are passed over;
/// a folder that cannot be read, below `dir`, too.
pub fn files_under(dir: &Path, extensions: &[&str]) -> Result<Vec<PathBuf>, ReadError> {
    let mut files = files_in(dir, extensions)?;
    walk(dir, extensions, 1, &mut files);
    Ok(files)
}

fn walk(dir: &Path, extensions: &[&str], depth: usize, files: &mut Vec<PathBuf>) {
    if depth > MAX_DEPTH {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut folders: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    folders.sort();
    for folder in folders {
        if let Ok(found) = files_in(&folder, extensions) {
            files.extend(found);
            walk(&folder, extensions, depth + 1, files);
        }
    }
}

/// Every file directly in `dir` whose name ends in one of `extensions`, sorted by name.
pub fn files_in(dir: &Path, extensions: &[&str]) -> Result<Vec<PathBuf>, ReadError> {
    let entries = std::fs::read_dir(dir).map_err(|source| ReadError::Input {
        path: dir.to_owned(),
        source,
    })?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file() && extensions.iter().any(|ext| is_ext(p, ext)))
        .collect();
    files.sort();
    Ok(files)
}
