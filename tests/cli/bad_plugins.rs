//! Plugins that must not take ptc down, built for real: a strategy compiled against a changed
//! copy of ptc-plugin-api (a field's type, an added enum variant, a bumped `ABI_VERSION`), a
//! cdylib without a root module, and a strategy that panics, names a template it does not have
//! or reads options wrongly. Each is reported naming its file and the cause; the other
//! strategies keep loading and working; `ptc ab` reports it as failed and completes the others.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use serde_json::Value as Json;

use crate::support::{
    bundled, example, repo, set_mode, strategy_names, Run, Scratch, SUC, TURN_COUNT,
};

/// A copy of `plugin-api/` with `(file, from, to)` replacements, and a strategy built on it.
struct Case {
    /// The strategy's crate and name.
    name: &'static str,
    patches: &'static [(&'static str, &'static str, &'static str)],
}

const CASES: &[Case] = &[
    Case {
        name: "unchanged",
        patches: &[],
    },
    Case {
        name: "field-type-changed",
        patches: &[(
            "src/output.rs",
            "pub turns_compressed: u64,",
            "pub turns_compressed: u32,",
        )],
    },
    Case {
        name: "variant-added",
        patches: &[(
            "src/output.rs",
            "    Panic,\n}",
            "    Panic,\n    /// Added by the test.\n    Timeout,\n}",
        )],
    },
    Case {
        name: "abi-version-bumped",
        patches: &[(
            "src/module.rs",
            "pub const ABI_VERSION: u32 = 2;",
            "pub const ABI_VERSION: u32 = 3;",
        )],
    },
    Case {
        name: "api-version-changed",
        // A version abi_stable's header check lets through (a 0.3 host takes a 0.9 library) but
        // the types' layouts refuse.
        patches: &[(
            "Cargo.toml",
            "version.workspace = true",
            "version = \"0.9.9\"",
        )],
    },
];

/// The strategy built against a plugin-api with another `ABI_VERSION`.
pub const BUMPED_ABI: &str = "abi-version-bumped";

/// The built bad plugin `name` (a case, or `no-root-module`).
pub fn bad_plugin(name: &str) -> PathBuf {
    built().join(dylib_name(name))
}

/// The changed plugins, the control and `no-root-module`, built once per test run into
/// `target/bad-plugins/target` (kept between runs, so only the first build compiles).
fn built() -> &'static Path {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(build)
}

fn build() -> PathBuf {
    let root = repo().join("target/bad-plugins");
    let target = root.join("target");
    let fixtures = repo().join("tests/fixtures/bad-plugins");
    let lock = std::fs::read(repo().join("Cargo.lock")).unwrap();
    for case in CASES {
        let ws = root.join(case.name);
        // Cargo names a workspace member's artifacts after its path in the workspace: each
        // copy has its own, or the copies would overwrite one another in the shared target.
        let api = format!("plugin-api-{}", case.name);
        let mut members = vec![api.clone(), "strategy".to_owned()];
        // The contract refers to no file outside its crate: a copy of its folder builds.
        for entry in walk(&repo().join("plugin-api")) {
            let relative = entry.strip_prefix(repo().join("plugin-api")).unwrap();
            write_if_changed(
                &ws.join(&api).join(relative),
                &std::fs::read(&entry).unwrap(),
            );
        }
        for (file, from, to) in case.patches {
            let path = ws.join(&api).join(file);
            let text = std::fs::read_to_string(&path).unwrap();
            assert!(
                text.contains(from),
                "{}: plugin-api/{file} no longer contains {from:?}; update the patch",
                case.name
            );
            write_if_changed(&path, text.replacen(from, to, 1).as_bytes());
        }
        write_if_changed(
            &ws.join("strategy/Cargo.toml"),
            format!(
                "[package]\nname = \"{}\"\nversion = \"0.1.0\"\nedition = \"2021\"\npublish = false\n\n\
                 [lib]\ncrate-type = [\"cdylib\"]\n\n[dependencies]\n\
                 ptc-plugin-api = {{ path = \"../{api}\" }}\nabi_stable.workspace = true\n",
                case.name
            )
            .as_bytes(),
        );
        write_if_changed(
            &ws.join("strategy/src/lib.rs"),
            &std::fs::read(fixtures.join("strategy.rs")).unwrap(),
        );
        if case.patches.is_empty() {
            members.push("no-root-module".to_owned());
            write_if_changed(
                &ws.join("no-root-module/Cargo.toml"),
                b"[package]\nname = \"no-root-module\"\nversion = \"0.1.0\"\nedition = \"2021\"\npublish = false\n\n[lib]\ncrate-type = [\"cdylib\"]\n",
            );
            write_if_changed(
                &ws.join("no-root-module/src/lib.rs"),
                &std::fs::read(fixtures.join("no_root_module.rs")).unwrap(),
            );
        }
        write_if_changed(
            &ws.join("Cargo.toml"),
            format!(
                "[workspace]\nresolver = \"2\"\nmembers = {members:?}\n\n\
                 [workspace.package]\nversion = \"{}\"\nedition = \"2021\"\n\
                 license = \"MIT OR Apache-2.0\"\nrust-version = \"1.85\"\n\n\
                 [workspace.dependencies]\nabi_stable = \"0.11.3\"\n",
                env!("CARGO_PKG_VERSION")
            )
            .as_bytes(),
        );
        if !ws.join("Cargo.lock").exists() {
            std::fs::write(ws.join("Cargo.lock"), &lock).unwrap();
        }
        let output = Command::new(env!("CARGO"))
            .args(["build", "--offline", "--quiet", "--manifest-path"])
            .arg(ws.join("Cargo.toml"))
            .env("CARGO_TARGET_DIR", &target)
            .output()
            .expect("cargo runs");
        assert!(
            output.status.success(),
            "building {} failed:\n{}",
            case.name,
            String::from_utf8_lossy(&output.stderr)
        );
    }
    target.join("debug")
}

/// Every file under `dir`.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

/// Writes `bytes` unless the file holds them already, so that cargo sees nothing new.
fn write_if_changed(path: &Path, bytes: &[u8]) {
    if std::fs::read(path).ok().as_deref() == Some(bytes) {
        return;
    }
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

fn dylib_name(name: &str) -> String {
    format!(
        "{}{}{}",
        std::env::consts::DLL_PREFIX,
        name.replace('-', "_"),
        std::env::consts::DLL_SUFFIX
    )
}

/// A scratch directory with single-user-coalesced, full-history, turn-count, and every built
/// bad plugin and the control.
fn scratch_with_bad_plugins() -> Scratch {
    let scratch = Scratch::with_plugins(&[SUC, "ptc-strategy-full-history", TURN_COUNT]);
    let dir = built();
    for name in CASES
        .iter()
        .map(|c| c.name)
        .chain(std::iter::once("no-root-module"))
    {
        let to = scratch.plugins().join(dylib_name(name));
        std::fs::copy(dir.join(dylib_name(name)), &to).unwrap();
        set_mode(&to, 0o755);
    }
    scratch
}

/// The stderr line about `file`.
fn line_about<'a>(stderr: &'a str, file: &str) -> &'a str {
    let lines: Vec<&str> = stderr.lines().filter(|l| l.contains(file)).collect();
    assert_eq!(lines.len(), 1, "one line about {file}:\n{stderr}");
    lines[0]
}

const HOST: &str = concat!(
    "this host has ptc-plugin-api ",
    env!("CARGO_PKG_VERSION"),
    " (ABI version 2)"
);

#[test]
fn plugins_built_against_another_plugin_api_are_skipped_with_one_line_each() {
    let scratch = scratch_with_bad_plugins();
    let run = scratch.ptc(["strategies", "--format", "json"]);
    let stderr = run.stderr.clone();
    let list = run.json();
    let names = strategy_names(&list);
    assert_eq!(
        names,
        [
            "full-history",
            "single-user-coalesced",
            "turn-count",
            "unchanged"
        ],
        "the control, built the same way from an unchanged copy, loads:\n{stderr}"
    );
    assert!(!stderr.contains('\0'));
    assert_eq!(stderr.lines().count(), 5, "{stderr}");
    let version = env!("CARGO_PKG_VERSION");

    let field = line_about(&stderr, &dylib_name("field-type-changed"));
    assert!(field.starts_with("warning: skipping plugin "), "{field}");
    assert!(
        field.contains(&format!(
            ": built for ptc-plugin-api {version} (ABI version 2), {HOST}: their types differ; first difference: "
        )),
        "{field}"
    );
    assert!(
        field.contains(
            "first difference: at `Stats.turns_compressed` (u32): mismatched type, this host has u64, the plugin u32;"
        ),
        "{field}"
    );
    assert!(field.ends_with("; rebuild the plugin against this host's ptc-plugin-api"));
    assert!(field.len() < 600, "one short line: {field}");

    let variant = line_about(&stderr, &dylib_name("variant-added"));
    assert!(
        variant.contains(&format!(
            ": built for ptc-plugin-api {version} (ABI version 2), {HOST}: their types differ; first difference: "
        )),
        "{variant}"
    );
    assert!(
        variant.contains(
            "first difference: at `RenderError.kind` (ErrorKind): too many variants, this host has 3, the plugin 4;"
        ),
        "{variant}"
    );
    assert!(variant.len() < 600, "one short line: {variant}");

    let abi = line_about(&stderr, &dylib_name("abi-version-bumped"));
    assert!(
        abi.contains(&format!(
            ": built for ptc-plugin-api {version} (ABI version 3), {HOST}: the plugin speaks ABI version 3, this host 2; rebuild"
        )),
        "{abi}"
    );

    let api = line_about(&stderr, &dylib_name("api-version-changed"));
    assert!(
        api.ends_with(&format!(
            ": built for ptc-plugin-api 0.9.9 (ABI version 2), {HOST}: the plugin's ptc-plugin-api version cannot be loaded by this host's; rebuild the plugin against this host's ptc-plugin-api"
        )),
        "each version named once, on its own side: {api}"
    );

    let none = line_about(&stderr, &dylib_name("no-root-module"));
    assert!(
        none.ends_with("no-root-module.so: not a ptc strategy plugin (it exports no root module)")
            || none.ends_with(&format!(
                "{}: not a ptc strategy plugin (it exports no root module)",
                dylib_name("no-root-module")
            )),
        "{none}"
    );
}

#[test]
fn the_other_strategies_render_beside_bad_plugins() {
    let scratch = scratch_with_bad_plugins();
    let run = scratch.ptc([
        "render",
        example("tool-actions.json").to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(run.stderr.lines().count(), 5, "{}", run.stderr);
    let render = run.json();
    assert_eq!(render["strategy"], "single-user-coalesced");
    assert!(render["messages"][1]["content"]
        .as_str()
        .unwrap()
        .contains(";; Tool calls made:"));
    let control = scratch.render_json(
        &example("tool-actions.json"),
        2,
        &["--strategy", "unchanged"],
    );
    assert_eq!(control["messages"][0]["content"], "2 turn(s)");
}

#[test]
fn asking_for_a_bad_plugin_is_an_error_naming_its_file() {
    let scratch = scratch_with_bad_plugins();
    let recording = example("tool-actions.json");
    for (name, cause) in [
        (
            "field-type-changed",
            "their types differ; first difference: ",
        ),
        ("variant-added", "their types differ; first difference: "),
        (
            "abi-version-bumped",
            "the plugin speaks ABI version 3, this host 2",
        ),
        ("no-root-module", "not a ptc strategy plugin"),
    ] {
        let err = scratch
            .ptc(["render", recording.to_str().unwrap(), "--strategy", name])
            .bad_input();
        assert!(
            err.starts_with(&format!(
                "error: strategy `{name}` is not loaded: skipping plugin "
            )) && err.contains(&dylib_name(name))
                && err.contains(cause),
            "{err}"
        );
    }
}

fn ab_json(scratch: &Scratch, strategies: &str) -> (Json, String) {
    let run = scratch.ptc([
        "ab",
        "--strategies",
        strategies,
        "--format",
        "json",
        "--no-timing",
    ]);
    let stderr = run.stderr.clone();
    (run.json(), stderr)
}

/// The summary of `label` in `ptc ab --format json`.
fn summary<'a>(json: &'a Json, label: &str) -> &'a Json {
    json["strategies"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["label"] == label)
        .unwrap_or_else(|| panic!("no {label} in {json}"))
}

#[test]
fn ab_reports_an_unloadable_plugin_as_failed_and_completes_the_others() {
    let scratch = scratch_with_bad_plugins();
    let (recordings, prompts) = bundled();
    let (json, stderr) = ab_json(
        &scratch,
        "single-user-coalesced,field-type-changed,no-root-module",
    );
    assert_eq!(summary(&json, "single-user-coalesced")["prompts"], prompts);
    assert_eq!(summary(&json, "single-user-coalesced")["failed"], 0);
    for (name, cause) in [
        ("field-type-changed", "their types differ"),
        ("no-root-module", "not a ptc strategy plugin"),
    ] {
        let s = summary(&json, name);
        assert_eq!(s["prompts"], 0);
        assert_eq!(s["tokens_vs_baseline"], Json::Null, "not 0x: {s}");
        assert_eq!(s["failed"], recordings);
        let reason = s["first_error"].as_str().unwrap();
        assert!(
            reason.starts_with(&format!(
                "strategy `{name}` is not loaded: skipping plugin "
            )) && reason.contains(&dylib_name(name))
                && reason.contains(cause),
            "{reason}"
        );
        assert!(
            stderr.contains(&format!(
                "warning: strategy {name} failed on {recordings} recording(s); first: strategy `{name}` is not loaded"
            )),
            "{stderr}"
        );
    }
    let table = scratch
        .ptc(["ab", "--strategies", "single-user-coalesced,variant-added"])
        .ok();
    let row = table
        .lines()
        .find(|l| l.trim_start().starts_with("variant-added (failed on"))
        .unwrap_or_else(|| panic!("{table}"));
    assert!(row.contains(" n/a ") && !row.contains("0.00x"), "{row}");
    assert!(
        table.contains(&format!("variant-added (failed on {recordings})"))
            && table.contains("variant-added failed on")
            && table.contains("their types differ"),
        "{table}"
    );
}

#[test]
fn ab_exits_2_when_every_strategy_asked_for_fails() {
    let scratch = scratch_with_bad_plugins();
    let err = scratch
        .ptc([
            "ab",
            "--strategies",
            "abi-version-bumped,turn-count@template=nope",
        ])
        .bad_input();
    assert!(
        err.starts_with("error: no strategy asked for could be compared: abi-version-bumped failed: strategy `abi-version-bumped` is not loaded: skipping plugin ")
            && err.contains("; turn-count@template=nope failed: ")
            && err.contains("asked for template `nope`"),
        "{err}"
    );
}

/// `ptc render` through turn-count with `--set OPTION=VALUE`: exit 2, one error line naming
/// the strategy and its file, no crash.
fn misbehaving(scratch: &Scratch, set: &str) -> String {
    let run: Run = scratch.ptc([
        "render",
        example("tool-actions.json").to_str().unwrap(),
        "--strategy",
        "turn-count",
        "--set",
        set,
    ]);
    assert_eq!(run.code, 2, "{run:?}");
    assert_eq!(run.stdout, "");
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "one line: {}", run.stderr);
    let file = dylib_name("ptc-strategy-turn-count");
    assert!(
        lines[0].starts_with("error: strategy `turn-count` (") && lines[0].contains(&file),
        "{}",
        lines[0]
    );
    lines[0].to_owned()
}

#[test]
fn a_strategy_that_panics_names_where_and_the_others_keep_working() {
    let scratch = Scratch::with_plugins(&[SUC, "ptc-strategy-full-history", TURN_COUNT]);
    let err = misbehaving(&scratch, "panic_after=0");
    assert!(
        err.contains(") failed: the strategy panicked at ")
            && err.contains("src/lib.rs:")
            && err.ends_with(": turn-count was told to panic after 0 turn(s)"),
        "{err}"
    );
    // A panic in a later turn, in the middle of an A/B run of several strategies.
    let (json, stderr) = ab_json(&scratch, "single-user-coalesced,turn-count@panic_after=1");
    let (_, prompts) = bundled();
    assert_eq!(summary(&json, "single-user-coalesced")["prompts"], prompts);
    let failed = summary(&json, "turn-count@panic_after=1");
    assert!(failed["failed"].as_u64().unwrap() > 0, "{failed}");
    assert!(
        failed["first_error"]
            .as_str()
            .unwrap()
            .contains("the strategy panicked at "),
        "{failed}"
    );
    assert!(
        stderr.contains("warning: strategy turn-count@panic_after=1 failed on"),
        "{stderr}"
    );
    assert!(!stderr.contains("thread '"), "no panic message: {stderr}");
}

#[test]
fn a_strategy_asking_for_a_template_it_lacks_is_an_error() {
    let scratch = Scratch::with_plugins(&[SUC, TURN_COUNT]);
    let err = misbehaving(&scratch, "template=nope");
    assert!(
        err.ends_with(
            ") failed: strategy `turn-count` asked for template `nope`, which it does not provide (it has: count)"
        ),
        "{err}"
    );
    scratch.render_json(&example("tool-actions.json"), 1, &[]);
}

#[test]
fn a_strategy_reading_an_option_wrongly_is_an_error() {
    let scratch = Scratch::with_plugins(&[SUC, TURN_COUNT]);
    let err = misbehaving(&scratch, "read_option=label");
    assert!(
        err.ends_with(
            ") failed: option `label`: expected a non-negative integer, found \"Turns so far\""
        ),
        "{err}"
    );
    let err = misbehaving(&scratch, "read_option=nope");
    assert!(err.contains(") failed: option `nope`: "), "{err}");
    scratch.render_json(&example("tool-actions.json"), 1, &[]);
}

#[test]
fn a_strategy_that_ends_the_process_is_named_and_ptc_never_exits_0() {
    let scratch = Scratch::with_plugins(&[TURN_COUNT]);
    let file = dylib_name("ptc-strategy-turn-count");
    for (end, code) in [("exit", 2), ("abort", -1), ("double-panic", -1)] {
        let run: Run = scratch.ptc([
            "render",
            example("tool-actions.json").to_str().unwrap(),
            "--strategy",
            "turn-count",
            "--set",
            &format!("end={end}"),
        ]);
        // An abort ends the process by SIGABRT, which has no exit code.
        assert_eq!(run.code, code, "{end}: {run:?}");
        assert_eq!(run.stdout, "", "{end}");
        let line = run
            .stderr
            .lines()
            .find(|l| l.starts_with("error: strategy `turn-count` ("))
            .unwrap_or_else(|| panic!("{end}: no line names the strategy: {}", run.stderr));
        assert!(
            line.contains(&file)
                && line.ends_with(
                    ") ended the process while ptc was running it: nothing more was written"
                ),
            "{end}: {line}"
        );
    }
}
