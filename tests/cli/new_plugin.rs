//! The promise of the authoring kit, end to end: a strategy scaffolded outside the workspace,
//! built with cargo, dropped into a plugin directory, listed, used by `render` and `ab` with its
//! options from `ptc.toml`.

use std::process::Command;

use crate::support::{example, repo, set_mode, strategy_names, Scratch};

#[test]
fn a_scaffolded_strategy_builds_drops_in_and_works() {
    let scratch = Scratch::with_plugins(&["ptc-strategy-full-history"]);
    let dir = scratch.path().join("my-strategy");
    let out = scratch
        .ptc(["new-plugin", "my-strategy", "--path", dir.to_str().unwrap()])
        .ok();
    assert!(out.starts_with("created "), "{out}");
    // Its own target directory: the outer `cargo test` holds the workspace's.
    let target = repo().join("target/scaffold");
    for args in [
        &["test", "--offline", "--quiet"][..],
        &["build", "--offline", "--quiet"][..],
    ] {
        let status = Command::new(env!("CARGO"))
            .args(args)
            .arg("--manifest-path")
            .arg(dir.join("Cargo.toml"))
            .env("CARGO_TARGET_DIR", &target)
            .status()
            .expect("cargo runs");
        assert!(status.success(), "cargo {args:?} failed");
    }
    let dylib = format!(
        "{}ptc_strategy_my_strategy{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    );
    std::fs::copy(
        target.join("debug").join(&dylib),
        scratch.plugins().join(&dylib),
    )
    .unwrap();
    set_mode(&scratch.plugins().join(&dylib), 0o755);
    scratch.write(
        "ptc.toml",
        "[plugins]\ndirectories = [\"plugins\"]\nnext_to_executable = false\n\n[strategies.my-strategy]\nmax_lines = 1\n",
    );

    let list = scratch.ptc(["strategies", "--format", "json"]).json();
    let names = strategy_names(&list);
    assert_eq!(names, ["full-history", "my-strategy"]);

    let render = scratch.render_json(
        &example("tool-actions.json"),
        1,
        &["--strategy", "my-strategy"],
    );
    let user = render["messages"][1]["content"].as_str().unwrap();
    assert!(
        user.contains("Tools: lookup-customer, get-order,"),
        "{user}"
    );
    assert!(
        user.contains("Your last program printed:\n1042 Anna Müller :gold ORD-88213 :delayed shipped 2025-03-03\n\nTurns left: 5"),
        "max_lines = 1 from ptc.toml: {user}"
    );
    let ab = scratch
        .ptc(["ab", "--strategies", "my-strategy", "--no-timing"])
        .ok();
    assert!(
        ab.lines()
            .any(|l| l.trim_start_matches(['*', ' ']).starts_with("my-strategy ")),
        "{ab}"
    );
}
