//! The recording parser on arbitrary bytes: it must return a recording or an error, never
//! panic, abort or overflow its stack; what it parses must format and check without panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ptc::{Recording, RecordingDefaults};

fuzz_target!(|data: &[u8]| {
    let defaults = RecordingDefaults {
        max_turns: 5,
        system_prompt: "System.".into(),
        max_recording_bytes: ptc::DEFAULT_MAX_RECORDING_BYTES,
    };
    let path = std::path::Path::new("fuzz.json");
    let _ = Recording::check(data, path, 1, &defaults);
    if let Ok(recording) = Recording::parse(data, path, &defaults) {
        for entry in recording.run.data.iter() {
            let _ = ptc_strategy_kit::to_clojure(&entry.1, ptc_strategy_kit::Limits::new(3, 80));
        }
        for turn in &recording.turns {
            for call in turn.tool_calls.iter() {
                let _ =
                    ptc_strategy_kit::to_clojure(&call.args, ptc_strategy_kit::Limits::new(2, 10));
            }
        }
    }
});
