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
        .filter(|e| is_kind(e, Kind::Dir))
        .map(|e| e.path())
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
        .map(|e| (e.path(), e))
        .filter(|(p, e)| extensions.iter().any(|ext| is_ext(p, ext)) && is_kind(e, Kind::File))
        .map(|(p, _)| p)
        .collect();
    files.sort();
    Ok(files)
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    File,
    Dir,
}

/// Whether the entry is a file (or a folder), a link followed to what it names: known from
/// the directory's listing where the file system gives the entry's type there, so that a
/// directory of 10,000 runs is not asked 10,000 times for each file's metadata.
fn is_kind(entry: &std::fs::DirEntry, kind: Kind) -> bool {
    match entry.file_type() {
        Ok(t) if t.is_file() => kind == Kind::File,
        Ok(t) if t.is_dir() => kind == Kind::Dir,
        // A link, or a type the listing does not give: what the path names.
        _ => match kind {
            Kind::File => entry.path().is_file(),
            Kind::Dir => entry.path().is_dir(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Files and folders are told from the listing's entry types; a link counts as what it
    /// names (a file, a folder, or nothing when it names nothing), as it did when every entry
    /// was looked up by its path.
    #[cfg(unix)]
    #[test]
    fn links_count_as_what_they_name_and_hidden_folders_are_passed_over() {
        use std::os::unix::fs::symlink;
        let root = tempfile::tempdir().unwrap();
        let (dir, elsewhere) = (root.path().join("corpus"), root.path().join("elsewhere"));
        for folder in [&dir, &elsewhere, &dir.join("b"), &dir.join(".git")] {
            std::fs::create_dir_all(folder).unwrap();
        }
        for file in [
            dir.join("a.json"),
            dir.join("notes.txt"),
            dir.join("b/c.jsonl"),
            dir.join(".git/d.json"),
            elsewhere.join("e.json"),
            elsewhere.join("f.json"),
        ] {
            std::fs::write(file, "{}").unwrap();
        }
        symlink(elsewhere.join("e.json"), dir.join("linked.json")).unwrap();
        symlink(root.path().join("missing.json"), dir.join("dangling.json")).unwrap();
        symlink(&elsewhere, dir.join("z-linked-folder")).unwrap();
        // A folder whose name ends as a run's does is no file.
        std::fs::create_dir(dir.join("folder.json")).unwrap();

        let found = files_under(&dir, &["json", "jsonl"]).unwrap();
        let names: Vec<_> = found
            .iter()
            .map(|p| p.strip_prefix(&dir).unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            names,
            [
                "a.json",
                "linked.json",
                "b/c.jsonl",
                "z-linked-folder/e.json",
                "z-linked-folder/f.json"
            ]
        );
    }
}
