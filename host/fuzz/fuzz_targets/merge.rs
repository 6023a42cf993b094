//! `ptc ab merge` on arbitrary parts: the input is a byte of settings (the format, whether
//! missing shards are allowed) and then one to three part files separated by NUL bytes. The
//! merge never panics, and when it succeeds no figure it prints is NaN or infinite and no
//! share is above 100%.
#![no_main]

use std::path::PathBuf;

use libfuzzer_sys::fuzz_target;
use ptc::ops::{Format, MergeOptions};
use ptc::{Clock, Config, Host};
use serde_json::Value;

/// Every share of the JSON output (`*_share`, `ratio`) is a number from 0 to 1, and no figure
/// is missing where NaN or an infinity would have been.
fn check_json(value: &Value, key: &str) {
    match value {
        Value::Object(map) => map.iter().for_each(|(k, v)| check_json(v, k)),
        Value::Array(items) => items.iter().for_each(|v| check_json(v, key)),
        Value::Number(n) => {
            let x = n.as_f64().expect("a number");
            assert!(x.is_finite(), "{key} is {x}");
            if key.ends_with("share") || key == "ratio" {
                assert!((0.0..=1.0).contains(&x), "{key} is {x}");
            }
        }
        Value::Null => assert!(
            ![
                "cost",
                "mean_tokens",
                "cached_share",
                "read_share",
                "tokens_vs_baseline",
                "render_us_mean",
            ]
            .contains(&key),
            "{key} is null"
        ),
        _ => {}
    }
}

/// No NaN or infinity in the text, and every percentage of the tables is at most 100%; only
/// the words `unquoted` allows are looked for.
fn check_text(text: &str, unquoted: impl Fn(&str) -> bool) {
    for word in ["NaN", "inf"].into_iter().filter(|w| unquoted(w)) {
        assert!(
            !text
                .split(|c: char| !c.is_alphanumeric())
                .any(|w| w == word),
            "{word} printed:\n{text}"
        );
    }
    if !unquoted("%") {
        return;
    }
    for line in text
        .lines()
        .filter(|l| !l.contains(" less") && !l.contains(" more"))
    {
        for word in line.split_whitespace() {
            if let Some(number) = word.strip_suffix('%') {
                if let Ok(share) = number.trim_start_matches('(').parse::<f64>() {
                    assert!(share <= 100.0, "{word} in:\n{text}");
                }
            }
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&settings, parts)) = data.split_first() else {
        return;
    };
    let format = match settings & 3 {
        0 => Format::Table,
        1 => Format::Json,
        2 => Format::Markdown,
        _ => Format::Csv,
    };
    let allow_missing = settings & 4 != 0;
    let dir = tempfile_dir();
    let files: Vec<PathBuf> = parts
        .split(|&b| b == 0)
        .take(3)
        .enumerate()
        .map(|(i, part)| {
            let file = dir.join(format!("part-{i}.json"));
            std::fs::write(&file, part).expect("a part is written");
            file
        })
        .collect();
    let mut config = Config::defaults();
    config
        .layer_set("plugins.next_to_executable=false")
        .expect("a valid --set");
    let host = Host::with_strategies(config, Vec::new());
    let mut out = Vec::new();
    let options = MergeOptions {
        parts: files.clone(),
        allow_missing,
        format,
        report: None,
        clock: Clock::Measured,
        require: None,
        view: Default::default(),
    };
    let merged = ptc::ops::merge(&host, &options, &mut out);
    for file in &files {
        let _ = std::fs::remove_file(file);
    }
    if merged.is_err() {
        return;
    }
    let text = String::from_utf8(out).expect("the output is UTF-8");
    match format {
        Format::Json => {
            let value: Value = serde_json::from_str(&text).expect("the output is JSON");
            check_json(&value, "");
        }
        // Labels and errors are the parts' own text: words they could hold are not looked for.
        _ => check_text(&text, |word| {
            !parts.windows(word.len()).any(|w| w == word.as_bytes())
        }),
    }
});

/// A directory of this process's own for the parts.
fn tempfile_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ptc-fuzz-merge-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir
}
