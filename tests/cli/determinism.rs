//! The same input gives the same bytes: across runs, whatever the order plugins load in (the
//! thread count is covered in `ab.rs`).

use crate::support::{example, set_mode, Scratch, EXAMPLES, STRATEGIES};

/// A scratch directory with the bundled strategies split over two plugin directories, and one
/// configuration per order of those directories.
fn split_plugins() -> Scratch {
    let scratch = Scratch::with_plugins(&[]);
    for dir in ["first", "second"] {
        std::fs::create_dir(scratch.path().join(dir)).unwrap();
        set_mode(&scratch.path().join(dir), 0o755);
    }
    for (i, (_, krate)) in STRATEGIES.iter().enumerate() {
        let dir = if i % 2 == 0 { "first" } else { "second" };
        scratch.install_in(&scratch.path().join(dir), krate);
    }
    for (name, dirs) in [
        ("forward.toml", r#"["first", "second"]"#),
        ("backward.toml", r#"["second", "first"]"#),
    ] {
        scratch.write(
            name,
            format!("[plugins]\ndirectories = {dirs}\nnext_to_executable = false\n"),
        );
    }
    scratch
}

#[test]
fn output_is_identical_whatever_the_plugin_load_order() {
    let scratch = split_plugins();
    let run = |config: &str, args: &[&str]| {
        let mut all = vec!["--config", config];
        all.extend_from_slice(args);
        scratch.ptc(all).ok()
    };
    let listing = run("forward.toml", &["strategies"]);
    assert_eq!(listing, run("backward.toml", &["strategies"]));
    for (name, _) in STRATEGIES.iter() {
        assert!(listing.contains(name), "{name} is not loaded:\n{listing}");
    }

    let ab = ["ab", "--no-timing", "--format", "json"];
    let forward = run("forward.toml", &ab);
    assert_eq!(forward, run("backward.toml", &ab));
    // And from one run to the next.
    assert_eq!(forward, run("forward.toml", &ab));
    let report: serde_json::Value = serde_json::from_str(&forward).unwrap();
    assert_eq!(
        report["strategies"].as_array().unwrap().len(),
        STRATEGIES.len()
    );

    // Every render, in this process, through hosts that discovered the plugins in either order.
    let host = |config: &str| {
        let config = ptc::Config::load(Some(&scratch.path().join(config)), &[]).unwrap();
        ptc::Host::new(config)
    };
    let (forward, backward) = (host("forward.toml"), host("backward.toml"));
    assert!(forward.plugin_warnings().is_empty() && backward.plugin_warnings().is_empty());
    for file in EXAMPLES {
        let recording = forward.load_recording(&example(file)).unwrap();
        for (strategy, _) in STRATEGIES.iter() {
            let (one, other) = (
                forward.renderer(Some(strategy)).unwrap(),
                backward.renderer(Some(strategy)).unwrap(),
            );
            for k in 0..=recording.turns.len() {
                assert_eq!(
                    one.render(&recording, k).unwrap(),
                    other.render(&recording, k).unwrap(),
                    "{strategy} on {file} after {k} turns"
                );
            }
        }
    }
}
