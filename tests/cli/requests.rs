//! Ready-to-send requests (`ptc render --format anthropic|openai`, `serve` with `format`): the
//! bodies carry the prompt's text block for block, breakpoints exactly where the placement
//! says, and pass the providers' official Python SDK request types.

use std::path::{Path, PathBuf};

use ptc::request::{self, Placement, RequestOptions, Ttl};
use serde_json::Value as Json;

use crate::support::{
    all_strategies, example, in_process_host, messages, python_with, repo, STRATEGIES,
};

/// Every bundled example recording, in name order.
fn recordings() -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(repo().join("examples/recordings"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    found.sort();
    assert!(found.len() >= 5, "{found:?}");
    found
}

fn options(placement: Placement, ttl: Ttl) -> RequestOptions {
    RequestOptions {
        placement,
        ttl,
        ..RequestOptions::default()
    }
}

/// Every block of an Anthropic body, `system` first: (text, its cache_control if any).
fn blocks(body: &Json) -> Vec<(&str, Option<&Json>)> {
    let system = body.get("system").and_then(Json::as_array);
    let messages = body["messages"].as_array().unwrap();
    system
        .into_iter()
        .flatten()
        .chain(
            messages
                .iter()
                .flat_map(|m| m["content"].as_array().unwrap()),
        )
        .map(|b| (b["text"].as_str().unwrap(), b.get("cache_control")))
        .collect()
}

#[test]
fn anthropic_bodies_put_breakpoints_where_the_placement_says_on_every_bundled_prompt() {
    let host = in_process_host(&[]);
    let defaults = host.recording_defaults().unwrap();
    let mut prompts = 0;
    let mut strategy_marks = 0;
    for path in recordings() {
        let bytes = std::fs::read(&path).unwrap();
        let recording = ptc::Recording::parse(&bytes, &path, &defaults).unwrap();
        for (strategy, _) in STRATEGIES.iter() {
            let renderer = host.renderer(Some(strategy)).unwrap();
            for turns in 0..=recording.turns.len() {
                let prompt = renderer.render(&recording, turns).unwrap();
                let what = format!("{} {strategy} --turns {turns}", path.display());
                prompts += 1;
                // The rendered blocks, as the body must carry them: system first.
                let mut system: Vec<(&str, bool)> = Vec::new();
                let mut rendered: Vec<(&str, bool)> = Vec::new();
                let mut conversation: Vec<(&str, Vec<&str>)> = Vec::new();
                for message in &prompt.messages {
                    let texts: Vec<(&str, bool)> = message.block_texts().collect();
                    assert!(
                        texts.iter().all(|(t, _)| !t.trim().is_empty()),
                        "{what}: a bundled strategy renders a blank block"
                    );
                    if message.role == ptc_plugin_api::Role::System {
                        system.extend(texts.iter().copied());
                        assert!(conversation.is_empty(), "{what}: system after the start");
                    } else if !texts.is_empty() {
                        rendered.extend(texts.iter().copied());
                        conversation.push((
                            message.role.as_str(),
                            texts.iter().map(|(t, _)| *t).collect(),
                        ));
                    }
                }
                rendered.splice(0..0, system);

                for (placement, ttl) in [
                    (Placement::Strategy, Ttl::FiveMinutes),
                    (Placement::Strategy, Ttl::OneHour),
                    (Placement::Auto, Ttl::FiveMinutes),
                    (Placement::Auto, Ttl::OneHour),
                    (Placement::None, Ttl::OneHour),
                ] {
                    let body = request::anthropic(&prompt, &options(placement, ttl)).unwrap();
                    let body = serde_json::to_value(body).unwrap();
                    let what = format!("{what} {placement:?} {ttl:?}");
                    let sent = blocks(&body);
                    // The text, block for block, and each message's text joined as rendered.
                    let texts: Vec<&str> = sent.iter().map(|(t, _)| *t).collect();
                    let expected: Vec<&str> = rendered.iter().map(|(t, _)| *t).collect();
                    assert_eq!(texts, expected, "{what}");
                    let sent_conversation: Vec<(&str, Vec<&str>)> = body["messages"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|m| {
                            (
                                m["role"].as_str().unwrap(),
                                m["content"]
                                    .as_array()
                                    .unwrap()
                                    .iter()
                                    .map(|b| b["text"].as_str().unwrap())
                                    .collect(),
                            )
                        })
                        .collect();
                    assert_eq!(sent_conversation, conversation, "{what}");
                    for (role, texts) in &sent_conversation {
                        let joined = texts.join("\n\n");
                        assert!(
                            prompt
                                .messages
                                .iter()
                                .any(|m| m.role.as_str() == *role && *m.content == *joined),
                            "{what}: no rendered message is {joined:?}"
                        );
                    }
                    // The breakpoints.
                    let marks: Vec<usize> = sent
                        .iter()
                        .enumerate()
                        .filter(|(_, (_, c))| c.is_some())
                        .map(|(i, _)| i)
                        .collect();
                    assert!(marks.len() <= 4, "{what}: {marks:?}");
                    let expected: Vec<usize> = match placement {
                        Placement::Strategy => rendered
                            .iter()
                            .enumerate()
                            .filter(|(_, (_, mark))| *mark)
                            .map(|(i, _)| i)
                            .collect(),
                        // Automatic caching: no block marked, one `cache_control` at the top.
                        Placement::Auto | Placement::None => Vec::new(),
                        Placement::Planned | Placement::Bound => {
                            unreachable!("no request takes it")
                        }
                    };
                    assert_eq!(marks, expected, "{what}");
                    let control = match ttl {
                        Ttl::OneHour => serde_json::json!({"type": "ephemeral", "ttl": "1h"}),
                        _ => serde_json::json!({"type": "ephemeral"}),
                    };
                    for (_, c) in &sent {
                        assert!(c.is_none_or(|c| *c == control), "{what}: {c:?}");
                    }
                    let top = body.get("cache_control");
                    if placement == Placement::Auto {
                        assert_eq!(top, Some(&control), "{what}");
                    } else {
                        assert_eq!(top, None, "{what}");
                    }
                    if placement == Placement::Strategy {
                        strategy_marks += marks.len();
                    }
                }

                // OpenAI: each non-blank message as it was rendered, with or without the
                // strategy's breakpoints (the parts put together are the text).
                let expected: Vec<(&str, String)> = prompt
                    .messages
                    .iter()
                    .filter(|m| !m.content.is_empty())
                    .map(|m| (m.role.as_str(), m.content.to_string()))
                    .collect();
                for placement in [Placement::Auto, Placement::Strategy] {
                    let options = RequestOptions {
                        placement,
                        ..RequestOptions::default()
                    };
                    let body = request::openai(&prompt, &options);
                    let sent: Vec<(&str, String)> = body
                        .messages
                        .iter()
                        .map(|m| (m.role, m.content.text()))
                        .collect();
                    assert_eq!(sent, expected, "{what} {placement:?}");
                }
            }
        }
    }
    assert!(prompts > 1000, "{prompts}");
    assert!(
        strategy_marks > 0,
        "the bundled strategies mark some blocks"
    );
}

/// `ptc render FILE ARGS...` in the scratch directory with every strategy, as JSON.
fn render(recording: &Path, args: &[&str]) -> Json {
    let mut all = vec!["render", recording.to_str().unwrap()];
    all.extend(args);
    all_strategies().ptc(all).json()
}

#[test]
fn render_prints_the_bodies_of_the_prompt_it_renders_as_json() {
    let recording = example("failure-recovery.json");
    for (strategy, _) in STRATEGIES.iter() {
        let json = render(
            &recording,
            &["--strategy", strategy, "--turns", "2", "--format", "json"],
        );
        let rendered = messages(&json);
        let anthropic = render(
            &recording,
            &[
                "--strategy",
                strategy,
                "--turns",
                "2",
                "--format",
                "anthropic",
            ],
        );
        assert_eq!(anthropic["model"], "claude-sonnet-4-5");
        assert_eq!(anthropic["max_tokens"], 4096);
        let joined = |blocks: &Json| {
            blocks
                .as_array()
                .unwrap()
                .iter()
                .map(|b| {
                    assert_eq!(b["type"], "text");
                    b["text"].as_str().unwrap()
                })
                .collect::<Vec<_>>()
                .join("\n\n")
        };
        let mut sent = vec![("system".to_owned(), joined(&anthropic["system"]))];
        for message in anthropic["messages"].as_array().unwrap() {
            let role = message["role"].as_str().unwrap().to_owned();
            sent.push((role, joined(&message["content"])));
        }
        assert_eq!(sent, rendered, "{strategy}");

        let openai = render(
            &recording,
            &["--strategy", strategy, "--turns", "2", "--format", "openai"],
        );
        assert_eq!(openai["model"], "gpt-5");
        assert!(openai.get("max_completion_tokens").is_none(), "{openai}");
        assert_eq!(messages(&openai), rendered, "{strategy}");
    }
}

#[test]
fn render_takes_the_request_options_and_refuses_them_where_they_do_not_apply() {
    let recording = example("tool-actions.json");
    let body = render(
        &recording,
        &[
            "--format",
            "anthropic",
            "--model",
            "claude-opus-4-1",
            "--max-tokens",
            "100",
            "--cache-placement",
            "auto",
            "--cache-ttl",
            "1h",
        ],
    );
    assert_eq!(body["model"], "claude-opus-4-1");
    assert_eq!(body["max_tokens"], 100);
    // Automatic caching: one top-level `cache_control`, no block marked.
    let marked: Vec<(&str, Option<&Json>)> = blocks(&body)
        .into_iter()
        .filter(|(_, c)| c.is_some())
        .collect();
    assert_eq!(marked.len(), 0, "{body}");
    assert_eq!(
        body["cache_control"],
        serde_json::json!({"type": "ephemeral", "ttl": "1h"})
    );
    let none = render(
        &recording,
        &["--format", "anthropic", "--cache-placement", "none"],
    );
    assert!(!none.to_string().contains("cache_control"), "{none}");
    let openai = render(
        &recording,
        &[
            "--format",
            "openai",
            "--model",
            "gpt-4.1",
            "--max-tokens",
            "100",
        ],
    );
    assert_eq!(openai["model"], "gpt-4.1");
    assert_eq!(openai["max_completion_tokens"], 100);

    let scratch = all_strategies();
    let file = recording.to_str().unwrap();
    for (args, message) in [
        (
            vec!["--cache-ttl", "1h"],
            "--cache-ttl applies to the anthropic format, not to text",
        ),
        (
            vec!["--format", "json", "--model", "m"],
            "--model applies to the anthropic and openai formats, not to json",
        ),
        (
            vec!["--format", "openai", "--cache-ttl", "1h"],
            "--cache-ttl applies to the anthropic format, not to openai",
        ),
        (
            vec!["--format", "text", "--cache-placement", "auto"],
            "--cache-placement applies to the anthropic and openai formats, not to text",
        ),
    ] {
        let err = scratch
            .ptc([&["render", file][..], &args].concat())
            .bad_input();
        assert!(err.contains(message), "{err}");
    }
    for args in [
        ["--format", "anthropic", "--max-tokens", "0"],
        ["--format", "anthropic", "--cache-ttl", "60m"],
        ["--format", "anthropic", "--cache-ttl", "30m"],
        ["--format", "anthropic", "--cache-placement", "last"],
    ] {
        let run = scratch.ptc([&["render", file][..], &args].concat());
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert_eq!(run.stdout, "");
    }
}

#[test]
fn render_help_explains_the_request_formats_and_options() {
    let help = all_strategies().ptc(["render", "--help"]).ok();
    for needle in [
        "anthropic: An Anthropic Messages API request body",
        "openai:    An OpenAI Chat Completions request body",
        "--cache-placement <POLICY>",
        "auto:     The provider's automatic breakpoint",
        "--cache-ttl <TTL>",
        "--model <NAME>",
        "--max-tokens <N>",
        "claude-sonnet-4-5",
    ] {
        assert!(help.contains(needle), "{needle}:\n{help}");
    }
}

/// Every bundled recording × every strategy × both formats, through `ptc render` and `ptc
/// serve`, validated by `tests/cli/request_check.py` with the SDKs installed in a venv of the
/// test's own. Without python3 or the registry the test says why on stdout and passes, unless
/// `PTC_REQUIRE_SDK_CHECK` is set (CI sets it).
#[test]
fn requests_pass_the_official_sdk_request_types() {
    let scratch = tempfile::tempdir().unwrap();
    let mut python = match python_with(scratch.path(), &["anthropic", "openai"]) {
        Ok(python) => python,
        Err(reason) if std::env::var_os("PTC_REQUIRE_SDK_CHECK").is_none() => {
            println!("skipped: {reason}");
            return;
        }
        Err(reason) => panic!("PTC_REQUIRE_SDK_CHECK is set and {reason}"),
    };
    let output = python
        .arg(repo().join("tests/cli/request_check.py"))
        .arg(env!("CARGO_BIN_EXE_ptc"))
        .args(recordings())
        .arg("--")
        .args(STRATEGIES.iter().map(|(name, _)| name))
        .current_dir(all_strategies().path())
        // No plugin the user installed: the data directory of ptc is the scratch's own.
        .env("XDG_DATA_HOME", all_strategies().path().join("data"))
        .output()
        .expect("python3 runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.starts_with("ok: "), "{stdout}");
    println!("{stdout}");
}

/// Whether `shown` is `real` with some texts cut at `...`.
fn cut_from(shown: &Json, real: &Json) -> bool {
    match (shown, real) {
        (Json::Object(a), Json::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .all(|(k, v)| b.get(k).is_some_and(|r| cut_from(v, r)))
        }
        (Json::Array(a), Json::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(v, r)| cut_from(v, r))
        }
        (Json::String(a), Json::String(b)) => {
            a == b || a.strip_suffix("...").is_some_and(|a| b.starts_with(a))
        }
        _ => shown == real,
    }
}

/// The manual's page on requests shows what `ptc render --format anthropic|openai` prints: each
/// `$ptc` command followed by a JSON block, its texts possibly cut at `...`.
#[test]
fn the_manual_shows_real_requests() {
    let section = std::fs::read_to_string(repo().join("docs/src/guide/requests.md"))
        .expect("the manual's page on requests");
    let mut shown = 0;
    for block in section.split("```sh\n").skip(1) {
        let (command, rest) = block.split_once("\n```\n").unwrap();
        let Some(json) = rest.strip_prefix("```json\n") else {
            continue;
        };
        let json: Json = serde_json::from_str(json.split_once("```").unwrap().0).unwrap();
        let args: Vec<&str> = command
            .strip_prefix("$ptc ")
            .expect("a ptc command")
            .split_whitespace()
            .collect();
        let real = all_strategies()
            .ptc(args.iter().map(|a| {
                if a.starts_with("examples/") {
                    repo().join(a).display().to_string()
                } else {
                    a.to_string()
                }
            }))
            .json();
        assert!(cut_from(&json, &real), "{command}:\n{real:#}");
        shown += 1;
    }
    assert_eq!(shown, 2);
}
