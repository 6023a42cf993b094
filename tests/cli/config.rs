//! Configuration layering: built-in defaults, then `ptc.toml` or `--config`, then `--set`.

use crate::support::{example, messages, Scratch};

fn output_lines(scratch: &Scratch, extra: &[&str]) -> usize {
    let render = scratch.render_json(&example("tool-actions.json"), 4, extra);
    let user = &messages(&render)[1].1;
    let output = user
        .split(";; Output:\n")
        .nth(1)
        .expect("an output section");
    output.split("\n\n").next().unwrap().lines().count()
}

#[test]
fn working_directory_file_then_config_flag_then_set() {
    let scratch = Scratch::new();
    let default = output_lines(&scratch, &[]);
    assert!(default > 2, "the example prints more than two lines");
    scratch.write(
        "ptc.toml",
        "[plugins]\ndirectories = [\"plugins\"]\nnext_to_executable = false\n[compression]\nprintln_limit = 2\n",
    );
    assert_eq!(output_lines(&scratch, &[]), 2);
    assert_eq!(output_lines(&scratch, &["--set", "println_limit=1"]), 1);
    assert_eq!(
        output_lines(
            &scratch,
            &["--set", "strategies.single-user-coalesced.println_limit=1"]
        ),
        1
    );
    let other = scratch.write(
        "other/custom.toml",
        "[plugins]\ndirectories = [\"../plugins\"]\nnext_to_executable = false\n[strategies.single-user-coalesced]\nprintln_limit = 1\n",
    );
    assert_eq!(
        output_lines(&scratch, &["--config", other.to_str().unwrap()]),
        1
    );
}

#[test]
fn unknown_keys_and_bad_values_name_the_key_and_the_file() {
    let scratch = Scratch::new();
    let recording = example("tool-actions.json");
    let recording = recording.to_str().unwrap();
    let err = scratch
        .ptc(["render", recording, "--set", "println_limt=3"])
        .bad_input();
    assert!(
        err.contains("unknown key `println_limt` in --set println_limt=3"),
        "{err}"
    );
    let err = scratch
        .ptc(["render", recording, "--set", "compression.println_limit=-1"])
        .bad_input();
    assert!(err.contains("bad value for `compression.println_limit` in --set compression.println_limit=-1: expected a non-negative integer, found the integer -1"), "{err}");
    scratch.write("bad.toml", "[compression]\nstrategy = 3\n");
    let err = scratch
        .ptc(["render", recording, "--config", "bad.toml"])
        .bad_input();
    assert!(
        err.contains("bad value for `compression.strategy` in bad.toml"),
        "{err}"
    );
    scratch.write(
        "typo.toml",
        "[strategies.single-user-coalesced]\nprintln_limti = 3\n",
    );
    let err = scratch
        .ptc(["render", recording, "--config", "typo.toml"])
        .bad_input();
    assert!(
        err.contains("unknown key `strategies.single-user-coalesced.println_limti` in typo.toml"),
        "{err}"
    );
    scratch.write("broken.toml", "[compression\n");
    let err = scratch
        .ptc(["render", recording, "--config", "broken.toml"])
        .bad_input();
    assert!(
        err.contains("invalid configuration broken.toml:1:"),
        "{err}"
    );
    let err = scratch
        .ptc(["render", recording, "--config", "missing.toml"])
        .bad_input();
    assert!(
        err.contains("cannot read configuration missing.toml"),
        "{err}"
    );
}

#[test]
fn the_strategy_is_chosen_in_the_configuration() {
    let scratch = Scratch::new();
    let render = scratch.render_json(
        &example("tool-actions.json"),
        1,
        &["--set", "strategy=turn-count"],
    );
    assert_eq!(render["strategy"], "turn-count");
    let err = scratch
        .ptc([
            "render",
            example("tool-actions.json").to_str().unwrap(),
            "--set",
            "enabled=false",
        ])
        .bad_input();
    assert!(err.contains("unknown strategy `full-history`"), "{err}");
}

#[test]
fn a_pricing_profile_is_complete_once_every_layer_is_applied() {
    let scratch = Scratch::new();
    let recording = example("tool-actions.json");
    let recording = recording.to_str().unwrap();
    let partial = scratch.write(
        "partial.toml",
        "[plugins]\ndirectories = [\"plugins\"]\nnext_to_executable = false\n[pricing.mine]\ninput_per_mtok = 1\ncache_read_per_mtok = 0.1\ncache_write_per_mtok = 1.25\nmin_cacheable_tokens = 1024\n",
    );
    let partial = partial.to_str().unwrap();
    let render = |extra: &[&str]| {
        let mut args = vec!["render", recording, "--config", partial];
        args.extend(extra);
        scratch.ptc(args)
    };
    render(&["--set", "pricing.mine.cache_step_tokens=1"]).ok();
    let err = render(&[]).bad_input();
    assert!(
        err.contains(&format!("bad value for `pricing.mine.cache_step_tokens` in {partial}:4:10: expected a value (every key of [pricing.mine] is required)")),
        "{err}"
    );
    let err = render(&["--set", "pricing.mine.cache_step_tokens=-1"]).bad_input();
    assert!(
        err.contains("in --set pricing.mine.cache_step_tokens=-1: expected a non-negative number"),
        "{err}"
    );
}
