//! The promise of the authoring kit, end to end: a strategy scaffolded outside the workspace,
//! tested with cargo, built and installed by `ptc plugins install`, listed, used by `render` and
//! `ab` with its options from `ptc.toml`.

use std::path::PathBuf;
use std::process::Command;

use crate::support::{example, ptc_command, repo, strategy_names, Scratch};

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
    let status = Command::new(env!("CARGO"))
        .args(["test", "--offline", "--quiet", "--manifest-path"])
        .arg(dir.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", &target)
        .status()
        .expect("cargo runs");
    assert!(status.success(), "cargo test failed");
    // `ptc plugins install DIR` builds it (release) and copies it into the user plugin
    // directory. ptc runs with a home of its own: cargo gets the real one's toolchain.
    let home = PathBuf::from(std::env::var_os("HOME").expect("HOME"));
    let home_of = |var: &str, default: &str| {
        std::env::var_os(var).map_or_else(|| home.join(default), PathBuf::from)
    };
    // Building runs the crate's code: without --yes (and no terminal to ask on) it is refused.
    let refused = scratch
        .run(
            ptc_command(scratch.path())
                .args(["plugins", "install"])
                .arg(&dir),
        )
        .bad_input();
    assert!(
        refused.contains("runs the crate's build scripts and procedural macros as you; pass --yes"),
        "{refused}"
    );
    let installed = scratch
        .run(
            ptc_command(scratch.path())
                .args(["plugins", "install", "--yes"])
                .arg(&dir)
                .env("CARGO", env!("CARGO"))
                .env("CARGO_HOME", home_of("CARGO_HOME", ".cargo"))
                .env("RUSTUP_HOME", home_of("RUSTUP_HOME", ".rustup"))
                .env("CARGO_TARGET_DIR", &target)
                .env("CARGO_NET_OFFLINE", "true"),
        )
        .ok();
    let dylib = format!(
        "{}ptc_strategy_my_strategy{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    );
    let file = scratch.user_plugins().join(&dylib);
    assert_eq!(
        installed,
        format!("installed my-strategy 0.1.0: {}\n", file.display())
    );
    assert_eq!(
        std::fs::read(&file).unwrap(),
        std::fs::read(target.join("release").join(&dylib)).unwrap()
    );
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
