//! The strategy family over the bundled examples: every strategy renders every example at every
//! turn, the last prompt of each example is a snapshot, rolling-window's limits equal the
//! strategies they should, and each strategy's README example is what `ptc render` prints.

use std::path::Path;

use crate::support::{
    all_strategies, conversation, example, in_process_host, repo, strategy_names, EXAMPLES,
    STRATEGIES,
};

fn turns_in(path: &Path) -> usize {
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    json["turns"].as_array().map_or(0, Vec::len)
}

#[test]
fn strategies_lists_every_bundled_strategy_loaded_from_dylibs() {
    let list = all_strategies()
        .ptc(["strategies", "--format", "json"])
        .json();
    let mut names = strategy_names(&list);
    names.sort_unstable();
    let mut expected: Vec<&str> = STRATEGIES.iter().map(|(n, _)| *n).collect();
    expected.sort_unstable();
    assert_eq!(names, expected);
    for s in list.as_array().unwrap() {
        assert!(s["file"]
            .as_str()
            .unwrap()
            .ends_with(std::env::consts::DLL_SUFFIX));
    }
}

/// The strategy commands use when none is named is marked, in text and JSON, and follows
/// `[compression] strategy`.
#[test]
fn strategies_marks_the_default() {
    let scratch = all_strategies();
    let text = scratch.ptc(["strategies"]).ok();
    // as-sent is named as every command takes it, though no plugin holds it.
    assert!(
        text.contains("\nas-sent (built in, no plugin)\n    The requests the agent sent"),
        "{text}"
    );
    let marked: Vec<&str> = text.lines().filter(|l| l.ends_with(" (default)")).collect();
    assert_eq!(marked.len(), 1, "{text}");
    assert!(marked[0].starts_with("single-user-coalesced "), "{text}");
    let list = scratch
        .ptc([
            "strategies",
            "--format",
            "json",
            "--set",
            "compression.strategy=delta-log",
        ])
        .json();
    let defaults: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["default"] == true)
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(defaults, ["delta-log"]);
}

/// Rendered in this process through the same dylibs the binary loads: what is tested is every
/// strategy on every prefix, not the command line (the snapshots test that).
#[test]
fn every_strategy_renders_every_example_at_every_turn_with_mission_and_turns() {
    let host = in_process_host(&[]);
    for (strategy, _) in STRATEGIES.iter() {
        let renderer = host.renderer(Some(strategy)).unwrap();
        for file in EXAMPLES {
            let recording = host.load_recording(&example(file)).unwrap();
            let mission_start = renderer.render(&recording, 0).unwrap().messages[1]
                .content
                .lines()
                .next()
                .unwrap()
                .to_owned();
            for k in 0..=recording.turns.len() {
                let prompt = renderer.render(&recording, k).unwrap();
                assert_eq!(prompt.strategy, *strategy);
                let messages = &prompt.messages;
                assert_eq!(messages[0].role.as_str(), "system", "{strategy} {file} {k}");
                assert!(
                    messages[1].content.starts_with(&mission_start),
                    "{strategy} {file} {k}: mission kept"
                );
                let last = &messages.last().unwrap().content;
                assert!(
                    last.contains("Turns left: ")
                        || last.contains("FINAL TURN")
                        || last.contains(" of "),
                    "{strategy} {file} {k}: no turns indicator in {last}"
                );
            }
        }
    }
}

#[test]
fn last_prompt_of_every_example_per_strategy() {
    for (strategy, _) in STRATEGIES
        .iter()
        .filter(|(s, _)| *s != "single-user-coalesced")
    {
        for file in EXAMPLES {
            let path = example(file);
            let render =
                all_strategies().render_json(&path, turns_in(&path), &["--strategy", strategy]);
            let name = format!("{strategy}__{}", file.trim_end_matches(".json"));
            insta::assert_snapshot!(name, conversation(&render));
        }
    }
}

#[test]
fn rolling_window_limits_equal_single_user_coalesced_and_full_history() {
    for file in EXAMPLES {
        let path = example(file);
        for k in 0..=turns_in(&path) {
            let render = |args: &[&str]| all_strategies().render_json(&path, k, args);
            let zero = render(&["--strategy", "rolling-window", "--set", "window=0"]);
            let suc = render(&["--strategy", "single-user-coalesced"]);
            assert_eq!(zero["messages"], suc["messages"], "{file} {k}: window 0");
            assert_eq!(zero["stats"], suc["stats"], "{file} {k}: window 0");
            let all = render(&["--strategy", "rolling-window", "--set", "window=99"]);
            let full = render(&["--strategy", "full-history"]);
            assert_eq!(all["messages"], full["messages"], "{file} {k}: window 99");
            // The same figures; only `enabled` differs (full-history is compression off).
            let mut full_stats = full["stats"].clone();
            full_stats["enabled"] = true.into();
            assert_eq!(all["stats"], full_stats, "{file} {k}: window 99");
        }
    }
}

/// Each plugin README holds an example:
/// `<!-- example: ptc render examples/recordings/X.json --turns K --strategy S -->` followed by
/// a ````text block with what that command renders after the system prompt. Set
/// `PTC_UPDATE_READMES=1` to rewrite the blocks after an intended change.
#[test]
fn readme_examples_are_current() {
    const MARK: &str = "<!-- example: ptc ";
    for (strategy, _) in STRATEGIES.iter() {
        let readme_path = repo().join("plugins").join(strategy).join("README.md");
        let readme = std::fs::read_to_string(&readme_path).unwrap();
        let start = readme
            .find(MARK)
            .unwrap_or_else(|| panic!("{strategy}: README has no example"));
        let args_end = readme[start..].find(" -->").unwrap() + start;
        let args: Vec<String> = readme[start + MARK.len()..args_end]
            .split_whitespace()
            .map(|a| match a.strip_prefix("examples/") {
                Some(rest) => repo().join("examples").join(rest).display().to_string(),
                None => a.to_owned(),
            })
            .chain(["--format".into(), "json".into()])
            .collect();
        let render = all_strategies().ptc(&args).json();
        let expected = conversation(&render);
        // A four-backtick fence: the example itself holds ```clojure fences.
        let fence_start =
            readme[args_end..].find("````text\n").unwrap() + args_end + "````text\n".len();
        let fence_end = if readme[fence_start..].starts_with("````\n") {
            fence_start
        } else {
            readme[fence_start..].find("\n````\n").unwrap() + fence_start + 1
        };
        let shown = &readme[fence_start..fence_end];
        if shown != expected {
            if std::env::var_os("PTC_UPDATE_READMES").is_some() {
                let updated = format!(
                    "{}{}{}",
                    &readme[..fence_start],
                    expected,
                    &readme[fence_end..]
                );
                std::fs::write(&readme_path, updated).unwrap();
            } else {
                panic!("{strategy}: README example is stale (PTC_UPDATE_READMES=1 cargo test rewrites it)");
            }
        }
    }
}

/// A bundled strategy is its folder under `plugins/` plus one line in the host's
/// dev-dependencies (so that `cargo test` builds its dylib); the fuzz crate, which links every
/// strategy, must list it too. Forgetting either fails here, naming the file to edit.
#[test]
fn every_strategy_folder_is_listed_where_it_must_be() {
    let host = std::fs::read_to_string(repo().join("host/Cargo.toml")).unwrap();
    let fuzz = std::fs::read_to_string(repo().join("host/fuzz/Cargo.toml")).unwrap();
    let linked = std::fs::read_to_string(repo().join("host/fuzz/fuzz_targets/linked.rs")).unwrap();
    for (name, krate) in STRATEGIES.iter() {
        let line = |up: &str| format!("{krate} = {{ path = \"{up}plugins/{name}\" }}");
        assert!(
            host.contains(&line("../")),
            "host/Cargo.toml: add `{}` to [dev-dependencies]",
            line("../")
        );
        assert!(
            fuzz.contains(&line("../../")),
            "host/fuzz/Cargo.toml: add `{}`",
            line("../../")
        );
        let call = format!("{}::ptc_strategy_root_module()", krate.replace('-', "_"));
        assert!(
            linked.contains(&call),
            "host/fuzz/fuzz_targets/linked.rs: add `{call}`"
        );
    }
}

/// With `max_turns = 1` the first prompt is the only one sent; rendering after
/// that turn is allowed and, like every render after the last turn, ends with the FINAL TURN
/// line. No strategy falls back to another view, so the JSON names the strategy that wrote the
/// text.
#[test]
fn after_the_only_turn_of_a_single_shot_run_every_strategy_shows_the_final_turn() {
    let path = example("single-shot.json");
    for (strategy, _) in STRATEGIES.iter() {
        let render = all_strategies().render_json(&path, 1, &["--strategy", strategy]);
        assert_eq!(render["strategy"], *strategy);
        let text = conversation(&render);
        assert!(!text.contains("Turn 2 of 1"), "{strategy}:\n{text}");
        let messages = crate::support::messages(&render);
        let last = &messages.last().unwrap().1;
        assert_eq!(
            last.lines().last(),
            Some("FINAL TURN - you must call (return result) or (fail reason) now."),
            "{strategy}:\n{text}"
        );
    }
}
