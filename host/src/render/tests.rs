use std::path::Path;

use ptc_plugin_api::{Message, Options};
use ptc_strategy_kit::coalesce;

use super::templates::Templates;
use super::text_size_hint;
use crate::recording::{Recording, RecordingDefaults};

/// The text of `message` as `Renderer::messages` joins it: its non-empty sections, a blank
/// line between them.
fn text(templates: &Templates, message: &Message) -> String {
    let mut text = String::new();
    for section in message.sections() {
        let mut part = String::new();
        templates
            .append_section(section, &mut Vec::new(), &mut part)
            .unwrap();
        if part.is_empty() {
            continue;
        }
        if !text.is_empty() {
            text.push_str("\n\n");
        }
        text.push_str(&part);
    }
    text
}

/// The bundled coalesce templates, the kit's default settings, and every example recording
/// that reads (`examples/recordings`): what the tests of the coalesced view run on.
pub(super) fn coalesce_examples() -> (Templates, coalesce::Settings, Vec<Recording>) {
    let templates = Templates::load(
        "coalesce",
        &coalesce::TEMPLATES
            .iter()
            .map(|(n, s)| (n.to_string(), s.to_string()))
            .collect::<Vec<_>>(),
        |_| Vec::new(),
    )
    .unwrap();
    let defaults = RecordingDefaults {
        max_turns: 10,
        system_prompt: "system".into(),
        max_recording_bytes: crate::recording::DEFAULT_MAX_RECORDING_BYTES,
    };
    let settings = coalesce::settings_with_defaults(&Options::default()).unwrap();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/recordings");
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().and_then(|e| e.to_str()) == Some("json"))
        .collect();
    paths.sort();
    let recordings = paths
        .iter()
        .filter_map(|path| Recording::parse(&std::fs::read(path).unwrap(), path, &defaults).ok())
        .collect();
    (templates, settings, recordings)
}

/// The capacity guessed for a message holds its text, so that it is written without growing,
/// and not much more: checked on every prompt of the bundled examples, coalesced.
#[test]
fn the_guessed_size_of_a_message_holds_its_text_without_much_to_spare() {
    let (templates, settings, recordings) = coalesce_examples();
    let (mut prompts, mut held, mut spare) = (0, 0, 0);
    for recording in &recordings {
        let path = &recording.path;
        for k in 1..=recording.turns.len() {
            let (user, _) =
                coalesce::user_message(&recording.run, &recording.turns[..k], &settings);
            let (hint, len) = (text_size_hint(&user), text(&templates, &user).len());
            prompts += 1;
            held += usize::from(hint >= len);
            spare = spare.max(hint.saturating_sub(len) * 100 / len.max(1));
            eprintln!("{} k={k}: text {len}, guessed {hint}", path.display());
        }
    }
    eprintln!("{prompts} prompts, {held} held, at most {spare}% to spare");
    assert!(prompts > 100);
    assert_eq!(held, prompts, "some texts outgrew the guess");
    assert!(spare <= 100, "{spare}% to spare");
}
