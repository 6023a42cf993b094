//! Every built-in strategy's render, through the host's templates, over every prefix of any
//! recording the parser accepts, with arbitrary limits. A valid recording must render: no panic,
//! no error, and the same bytes twice.
//!
//! The first bytes of the input choose the shared limits; the rest is the recording's JSON (the
//! seeds are the bundled recordings).
#![no_main]

#[path = "linked.rs"]
mod linked;

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use linked::{modules, strategies};
use ptc::{Config, Host, LoadedStrategy, Recording, RecordingDefaults};

fuzz_target!(|data: &[u8]| {
    if data.len() < 4 {
        return;
    }
    let (knobs, json) = data.split_at(4);
    let defaults = RecordingDefaults {
        max_turns: 5,
        system_prompt: "System.".into(),
        max_recording_bytes: ptc::DEFAULT_MAX_RECORDING_BYTES,
    };
    let Ok(recording) = Recording::parse(json, Path::new("fuzz.json"), &defaults) else {
        return;
    };
    if recording.turns.len() > 40 {
        return;
    }

    let mut config = Config::defaults();
    let sets = [
        "plugins.next_to_executable=false".to_string(),
        "templates.directory=/nonexistent/ptc-fuzz-templates".to_string(),
    ];
    for set in sets {
        config.layer_set(&set).expect("a valid --set");
    }
    let loaded: Vec<LoadedStrategy> = modules()
        .into_iter()
        .zip(strategies())
        .map(|(module, (_, file))| LoadedStrategy::from_module(module, file.clone()).unwrap())
        .collect();
    for strategy in &loaded {
        let name = &strategy.name;
        for (key, knob) in [
            ("sample_limit", knobs[0] % 8),
            ("sample_printable_limit", knobs[1] % 120),
            ("println_char_limit", knobs[2]),
            ("tool_args_limit", knobs[3] % 8),
        ] {
            if !strategy.options.iter().any(|o| o.name.as_str() == key) {
                continue;
            }
            config
                .layer_set(&format!("strategies.{name}.{key}={knob}"))
                .expect("a valid --set");
        }
    }
    let host = Host::with_strategies(config, loaded);
    for (name, _) in strategies() {
        let renderer = host.renderer(Some(name)).expect("a renderer");
        for k in 0..=recording.turns.len() {
            let first = renderer
                .render(&recording, k)
                .unwrap_or_else(|e| panic!("{name} at k = {k}: {e}"));
            let again = renderer.render(&recording, k).expect("the second render");
            assert_eq!(first, again, "{name} at k = {k} is not deterministic");
        }
    }
});
