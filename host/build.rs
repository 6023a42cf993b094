//! Compiles the bundled example recordings into the binary: `ptc ab` without arguments runs on
//! them wherever it is started.

use std::path::Path;

fn main() {
    let mut out = String::new();
    embed(
        &mut out,
        "examples/recordings",
        "The bundled example recordings: (file name, JSON).",
        "EXAMPLES",
    );
    embed(
        &mut out,
        "examples/realruns",
        "The bundled real runs: (path from the repository's root, JSON).",
        "REAL_RUNS",
    );
    let out_dir = std::env::var("OUT_DIR").unwrap();
    std::fs::write(Path::new(&out_dir).join("examples.rs"), out).unwrap();
}

/// Adds `pub const NAME` to `out`: the `.json` files of `folder` (from the repository's root),
/// sorted, named by their file name (the examples) or their path (the real runs).
fn embed(out: &mut String, folder: &str, doc: &str, name: &str) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(folder);
    // Relative to the package, as the files below: a copy of a built checkout (a CI cache, a
    // `cp -a`) finds the build up to date instead of running this script and rebuilding.
    println!("cargo:rerun-if-changed=../{folder}");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "json"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    out.push_str(&format!(
        "/// {doc}\npub const {name}: &[(&str, &str)] = &[\n"
    ));
    for path in files {
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        let from_package = format!("/../{folder}/{file}");
        let label = if name == "EXAMPLES" {
            file
        } else {
            format!("{folder}/{file}")
        };
        out.push_str(&format!(
            "    ({label:?}, include_str!(concat!(env!(\"CARGO_MANIFEST_DIR\"), {from_package:?}))),\n"
        ));
    }
    out.push_str("];\n");
}
