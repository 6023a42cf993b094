use std::path::PathBuf;

use ptc_plugin_api::{OptionSpec, OptionValue};
use ptc_strategy_kit::shared_limit_options;

use super::schema::Schema;
use super::*;

fn layered(text: &str) -> Result<Config, ConfigError> {
    let mut config = Config::defaults();
    config.layer_text(
        text,
        Origin {
            name: "user.toml".into(),
            dir: PathBuf::from("/cfg"),
        },
    )?;
    Ok(config)
}

fn error(text: &str) -> String {
    layered(text).unwrap_err().to_string()
}

#[test]
fn the_built_in_file_sets_every_key() {
    let table: toml::Table = toml::from_str(DEFAULT_CONFIG).unwrap();
    let schema = Schema::read(&table).unwrap();
    assert!(schema.strategies.is_empty());
    // Its own deserializer reads the file the same way.
    let direct: Schema = toml::from_str(DEFAULT_CONFIG).unwrap();
    assert_eq!(
        direct.compression.shared_limits(),
        schema.compression.shared_limits()
    );
    assert_eq!(direct.pricing.len(), schema.pricing.len());
    assert_eq!(Config::defaults().pricing_profiles().unwrap().len(), 12);
}

#[test]
fn built_in_defaults_match_the_shared_limits() {
    let config = Config::defaults();
    assert_eq!(config.strategy(), "single-user-coalesced");
    assert!(config.compression_enabled());
    assert_eq!(config.max_turns(), 5);
    assert_eq!(config.compress_above_tokens(), None);
    let limits = config.typed.compression.shared_limits();
    let specs = shared_limit_options();
    assert_eq!(limits.len(), specs.len());
    for (spec, (name, value)) in specs.iter().zip(limits) {
        assert_eq!(spec.name.as_str(), name);
        assert_eq!(
            spec.default,
            OptionValue::Integer(value),
            "{name} in ptc.toml"
        );
    }
}

#[test]
fn layers_override_and_name_their_origin() {
    let config = layered("[compression]\nprintln_limit = 5\n").unwrap();
    let specs = shared_limit_options();
    let options = config.strategy_options("s", &specs).unwrap();
    assert_eq!(options.count("println_limit").unwrap(), 5);
    assert_eq!(options.count("tool_call_limit").unwrap(), 20);
    assert_eq!(config.place("compression.println_limit"), "user.toml:2:1");
    let line = 1 + DEFAULT_CONFIG
        .lines()
        .position(|l| l.starts_with("tool_call_limit = "))
        .unwrap();
    assert_eq!(
        config.place("compression.tool_call_limit"),
        format!("the built-in defaults:{line}:1")
    );
}

#[test]
fn errors_name_key_and_file() {
    let err = error("[compression]\nprintln_limt = 5\n");
    assert!(
        err.starts_with("unknown key `compression.println_limt` in user.toml:2:1 (the [compression] keys are strategy, enabled, max_turns"),
        "{err}"
    );
    assert_eq!(
        error("[compression]\nprintln_limit = \"many\"\n"),
        "bad value for `compression.println_limit` in user.toml:2:1: expected a non-negative integer, found the string \"many\""
    );
    let err = error("[compression\n");
    assert!(
        err.starts_with("invalid configuration user.toml:1:"),
        "{err}"
    );
    assert_eq!(
        error("[compresion]\nx = 1\n"),
        "unknown key `compresion` in user.toml:1:2 (the sections are compression, plugins, templates, ab, pricing, strategies); did you mean `compression`?"
    );
}

#[test]
fn values_are_checked() {
    let cases = [
        (
            "compression.max_turns = 0",
            "expected an integer from 1 to 4294967295, found the integer 0",
        ),
        (
            "compression.enabled = \"yes\"",
            "expected true or false, found the string \"yes\"",
        ),
        (
            "compression.compress_above_tokens = -5",
            "expected a non-negative integer, found the integer -5",
        ),
        (
            "compression.strategy = 1979-05-27",
            "expected a string, found the date 1979-05-27",
        ),
        (
            "plugins.directories = \"p\"",
            "expected an array, found the string \"p\"",
        ),
        (
            "plugins.directories = [\"p\", 3]",
            "expected a string, found the integer 3",
        ),
        (
            "pricing.none.input_per_mtok = -0.5",
            "expected a non-negative number up to 1000000, found the float -0.5",
        ),
        ("pricing = 3", "expected a table, found the integer 3"),
        ("strategies.s = 3", "expected a table, found the integer 3"),
    ];
    for (text, expected) in cases {
        let err = error(text);
        assert!(err.contains("in user.toml:1:"), "{text}: {err}");
        assert!(err.ends_with(&format!(": {expected}")), "{text}: {err}");
    }
    let profile_error = |text: &str| {
        layered(text)
            .unwrap()
            .pricing_profiles()
            .unwrap_err()
            .to_string()
    };
    let err = profile_error("[pricing.mine]\ninput_per_mtok = 1\n");
    assert_eq!(
        err,
        "bad value for `pricing.mine.cache_read_per_mtok` in user.toml:1:10: expected a value (every key of [pricing.mine] is required), found nothing"
    );
    // A placement known only in hindsight is asked for with --pricing, not configured.
    let err = profile_error("[pricing.gemini-explicit]\nbreakpoints = \"planned\"\n");
    assert_eq!(
        err,
        "bad value for `pricing.gemini-explicit.breakpoints` in user.toml:2:1: expected `strategy`, `auto` or `none`, a placement a client sends (`ptc ab --pricing NAME@breakpoints=planned` prices the planned one beside a profile's own), found `planned`"
    );
    // A new profile named like a built-in one is likely that one misspelt.
    let err = profile_error("[pricing.antropic]\ninput_per_mtok = 3\n");
    assert!(
        err.ends_with("(every key of [pricing.antropic] is required), found nothing; did you mean [pricing.anthropic]?"),
        "{err}"
    );
    let err = error("[pricing.none]\ninput = 1\n");
    assert!(
        err.starts_with("unknown key `pricing.none.input` in user.toml:2:1 (the [pricing.none] keys are input_per_mtok,"),
        "{err}"
    );
    // A complete profile, integers for prices.
    let config = layered(
        "[pricing.mine]\ninput_per_mtok = 1\ncache_read_per_mtok = 0\ncache_write_per_mtok = 1\nmin_cacheable_tokens = 0\ncache_step_tokens = 1\n",
    )
    .unwrap();
    let names: Vec<String> = config
        .pricing_profiles()
        .unwrap()
        .into_iter()
        .map(|p| p.name)
        .collect();
    assert_eq!(
        names,
        [
            "anthropic",
            "deepseek",
            "gemini",
            "gemini-explicit",
            "mine",
            "mistral",
            "none",
            "openai",
            "openai-gpt-5-6",
            "openrouter-deepseek",
            "qwen",
            "qwen-explicit",
            "xai"
        ]
    );
}

#[test]
fn a_pricing_profile_may_be_completed_by_later_layers() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("user.toml");
    std::fs::write(
        &file,
        "[pricing.mine]\ninput_per_mtok = 1\ncache_read_per_mtok = 0.5\ncache_write_per_mtok = 2\nmin_cacheable_tokens = 1024\n",
    )
    .unwrap();
    let profile = |config: &Config, name: &str| {
        let profiles = config.pricing_profiles().unwrap();
        profiles.into_iter().find(|p| p.name == name).unwrap()
    };
    let config = Config::load(Some(&file), &["pricing.mine.cache_step_tokens=64".into()]).unwrap();
    let mine = profile(&config, "mine");
    assert_eq!(
        (mine.cache_read_per_mtok, mine.min_cacheable_tokens),
        (0.5, 1024)
    );
    assert_eq!(mine.cache_step_tokens, 64);

    // Left incomplete, it is refused once every layer is applied, naming the file that defined it.
    let err = Config::load(Some(&file), &[]).unwrap_err().to_string();
    assert_eq!(
        err,
        format!(
            "bad value for `pricing.mine.cache_step_tokens` in {}:1:10: expected a value (every key of [pricing.mine] is required), found nothing",
            file.display()
        )
    );

    // A profile made of --set flags alone.
    let empty = dir.path().join("empty.toml");
    std::fs::write(&empty, "").unwrap();
    let mut sets: Vec<String> = [
        "pricing.flags.input_per_mtok=3",
        "pricing.flags.cache_read_per_mtok=0.3",
        "pricing.flags.cache_write_per_mtok=3.75",
        "pricing.flags.min_cacheable_tokens=0",
    ]
    .map(String::from)
    .to_vec();
    let err = Config::load(Some(&empty), &sets).unwrap_err().to_string();
    assert_eq!(
        err,
        "bad value for `pricing.flags.cache_step_tokens` in --set pricing.flags.input_per_mtok=3: expected a value (every key of [pricing.flags] is required), found nothing"
    );
    sets.push("pricing.flags.cache_step_tokens=1".into());
    let config = Config::load(Some(&empty), &sets).unwrap();
    assert_eq!(profile(&config, "flags").cache_write_per_mtok, 3.75);

    // A bad value is still refused by its own layer, at its place.
    assert_eq!(
        error("[pricing.new]\ninput_per_mtok = \"free\"\n"),
        "bad value for `pricing.new.input_per_mtok` in user.toml:2:1: expected a non-negative number up to 1000000, found the string \"free\""
    );
    let mut config = Config::defaults();
    let err = config
        .layer_set("pricing.flags.cache_step_tokens=-1")
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "bad value for `pricing.flags.cache_step_tokens` in --set pricing.flags.cache_step_tokens=-1: expected a non-negative number up to 1000000, found the integer -1"
    );
    // A price that would make a cost infinite is no price either.
    for bad in ["inf", "+inf", "-inf", "nan", "1e308", "1000001"] {
        let mut config = Config::defaults();
        let set = format!("pricing.anthropic.input_per_mtok={bad}");
        let err = config.layer_set(&set).unwrap_err().to_string();
        assert!(
            err.starts_with(&format!("bad value for `pricing.anthropic.input_per_mtok` in --set {set}: expected a non-negative number")),
            "{err}"
        );
    }
}

#[test]
fn strategy_options_fall_back_to_any_compression_key() {
    let specs = vec![
        OptionSpec::count("max_turns", 1, ""),
        OptionSpec::new("enabled", OptionValue::Boolean(false), ""),
        OptionSpec::count("compress_above_tokens", 9, ""),
    ];
    let mut config = Config::defaults();
    config.layer_set("max_turns=7").unwrap();
    let options = config.strategy_options("s", &specs).unwrap();
    assert_eq!(options.count("max_turns").unwrap(), 7);
    assert!(options.boolean("enabled").unwrap());
    assert_eq!(options.count("compress_above_tokens").unwrap(), 0);
    // The strategy's own table comes first.
    config.layer_set("strategies.s.max_turns=2").unwrap();
    let options = config.strategy_options("s", &specs).unwrap();
    assert_eq!(options.count("max_turns").unwrap(), 2);
    // The value must have the kind of the option's default.
    let specs = [OptionSpec::count("strategy", 1, "")];
    let err = config
        .strategy_options("t", &specs)
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "bad value for `compression.strategy` in the built-in defaults:16:1: expected an integer (like the default 1), found the string \"single-user-coalesced\""
    );
}

#[test]
fn a_refused_layer_changes_nothing() {
    let mut config = Config::defaults();
    assert!(config.layer_set("compression.println_limit=-1").is_err());
    assert!(config.layer_set("compression=3").is_ok());
    let err = config.resolve_bare_keys("s", &[]).unwrap_err().to_string();
    assert!(
        err.starts_with("unknown key `compression` in --set compression=3"),
        "{err}"
    );
    let options = config
        .strategy_options("s", &shared_limit_options())
        .unwrap();
    assert_eq!(options.count("println_limit").unwrap(), 15);
    let err = config.layer_set("compression.max_turns.x=1").unwrap_err();
    assert!(err.to_string().contains("found a table"), "{err}");
    assert_eq!(config.max_turns(), 5);
}

#[test]
fn set_flags_address_strategy_options_then_compression() {
    let specs = vec![OptionSpec::count("window", 2, "turns kept")];
    let mut config = Config::defaults();
    config.layer_set("window=4").unwrap();
    config.layer_set("println_limit=7").unwrap();
    config.layer_set("max_turns=9").unwrap();
    config.layer_set("strategies.other.x=\"a b\"").unwrap();
    assert_eq!(config.max_turns(), 9);
    config.resolve_bare_keys("rw", &specs).unwrap();
    let mut all = specs.clone();
    all.extend(shared_limit_options());
    let options = config.strategy_options("rw", &all).unwrap();
    assert_eq!(options.count("window").unwrap(), 4);
    assert_eq!(options.count("println_limit").unwrap(), 7);
    assert_eq!(
        config.configured_strategies(),
        vec![
            (
                "other".to_owned(),
                "--set strategies.other.x=\"a b\"".to_owned()
            ),
            ("rw".to_owned(), "--set window=4".to_owned()),
        ]
    );

    let mut config = Config::defaults();
    config.layer_set("nope=1").unwrap();
    let err = config
        .resolve_bare_keys("rw", &specs)
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("unknown key `nope` in --set nope=1"),
        "{err}"
    );
    assert!(Config::defaults().layer_set("novalue").is_err());
}

#[test]
fn strategy_tables_are_checked_against_the_options() {
    let config = layered("[strategies.s]\nwindow = \"x\"\n").unwrap();
    let specs = vec![OptionSpec::count("window", 2, "")];
    let err = config
        .strategy_options("s", &specs)
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "bad value for `strategies.s.window` in user.toml:2:1: expected an integer (like the default 2), found the string \"x\""
    );
    let config = layered("[strategies.s]\nwindw = 1\n").unwrap();
    let err = config
        .strategy_options("s", &specs)
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("unknown key `strategies.s.windw` in user.toml:2:1"),
        "{err}"
    );
}

#[test]
fn relative_paths_are_relative_to_their_file() {
    let config = layered(
        "[plugins]\ndirectories = [\"p\"]\nnext_to_executable = false\nuser_directory = false\n",
    )
    .unwrap();
    assert_eq!(config.plugin_directories(), vec![PathBuf::from("/cfg/p")]);
    assert_eq!(config.templates_directory(), PathBuf::from("./templates"));
    let mut config = config;
    config.layer_set("templates.directory=t").unwrap();
    assert_eq!(config.templates_directory(), PathBuf::from("./t"));
}

/// The line and column of `offset`, read from the start of `text`.
fn line_column_from_the_start(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

#[test]
fn lines_tell_every_offset_as_the_text_read_from_its_start_does() {
    for text in [
        "",
        "\n",
        "a",
        "a\n",
        "[x]\nkey = 1\n\nné = \"é\"\r\nlast",
        "\n\nä\nb",
    ] {
        let lines = Lines::new(text);
        let offsets = (0..=text.len() + 2).filter(|&i| i >= text.len() || text.is_char_boundary(i));
        for offset in offsets {
            assert_eq!(
                lines.line_column(offset),
                line_column_from_the_start(text, offset),
                "{text:?} at {offset}"
            );
        }
    }
}

#[test]
fn a_key_set_again_replaces_what_was_set_at_it_and_below_it_only() {
    let keys = [
        "a", "a-b", "a.b", "a.b.c", "a.bc", "a/b", "a0", "ab", "b", "a.", "a..",
    ];
    for removed in ["a", "a.b", "a-b", "ab", "z"] {
        let mut map: std::collections::BTreeMap<String, ()> =
            keys.iter().map(|k| (k.to_string(), ())).collect();
        super::layer::remove_at_and_below(&mut map, removed);
        let below = format!("{removed}.");
        let expected: Vec<&str> = keys
            .iter()
            .copied()
            .filter(|k| *k != removed && !k.starts_with(&below))
            .collect();
        let mut expected = expected;
        expected.sort();
        let left: Vec<&str> = map.keys().map(String::as_str).collect();
        assert_eq!(left, expected, "removing {removed}");
    }
}
