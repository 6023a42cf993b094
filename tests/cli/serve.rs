//! `ptc serve --stdio` keeps answering: whatever a request line holds, it gets one answer line
//! and the server goes on with the next.

use serde_json::Value as Json;

use crate::support::{example, in_process_host};

/// The answers of the server to `input`, one JSON value per line, with `limit` as
/// `--max-request-bytes`.
fn answers(input: &[u8], limit: usize) -> Vec<Json> {
    let host = in_process_host(&[]);
    let mut output = Vec::new();
    ptc::serve::serve(&host, input, &mut output, limit).unwrap();
    String::from_utf8(output)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

fn good_request(id: u32) -> String {
    let recording: Json =
        serde_json::from_slice(&std::fs::read(example("tool-actions.json")).unwrap()).unwrap();
    serde_json::json!({"id": id, "recording": recording, "turns": 1}).to_string()
}

fn code(answer: &Json) -> &str {
    answer["error"]["code"].as_str().unwrap_or("none")
}

#[test]
fn a_line_of_invalid_utf8_gets_an_answer_and_the_server_goes_on() {
    let mut input = b"{\"id\":1,\"recording\":{\"mission\":\"\xff\"}}\n".to_vec();
    input.extend_from_slice(good_request(2).as_bytes());
    input.push(b'\n');
    let answers = answers(&input, 1 << 20);
    assert_eq!(answers.len(), 2, "{answers:?}");
    assert_eq!(code(&answers[0]), "bad_request");
    assert!(answers[0]["error"]["message"]
        .as_str()
        .unwrap()
        .starts_with("not UTF-8"));
    assert_eq!(answers[1]["id"], 2);
    assert_eq!(answers[1]["turns"], 1);
}

#[test]
fn a_request_over_the_limit_is_refused_and_skipped_without_being_held() {
    let long = format!(
        "{{\"id\":1,\"recording\":{{\"mission\":\"{}\"}}}}",
        "x".repeat(200_000)
    );
    let input = format!("{long}\n{}\n{long}", good_request(2));
    let answers = answers(input.as_bytes(), 100_000);
    assert_eq!(answers.len(), 3, "{answers:?}");
    assert_eq!(code(&answers[0]), "too_large");
    assert!(answers[0]["error"]["message"]
        .as_str()
        .unwrap()
        .contains("longer than 100000 bytes (--max-request-bytes)"));
    assert_eq!(answers[1]["id"], 2);
    // The last line has no newline: still one answer.
    assert_eq!(code(&answers[2]), "too_large");
    // A line exactly at the limit is read.
    let exact = good_request(3);
    let answers = self::answers(format!("{exact}\n").as_bytes(), exact.len());
    assert_eq!(answers[0]["id"], 3, "{answers:?}");
}

#[test]
fn a_strategy_of_the_wrong_type_is_an_error_not_the_default() {
    let request = good_request(1).replacen("{\"id\":1", "{\"id\":1,\"strategy\":5", 1);
    let answers = answers(format!("{request}\n").as_bytes(), 1 << 20);
    assert_eq!(code(&answers[0]), "bad_request", "{answers:?}");
    assert!(answers[0]["error"]["message"]
        .as_str()
        .unwrap()
        .contains("\"strategy\" must be a strategy name (a string), not 5"));
}

#[test]
fn many_distinct_options_keep_answering_with_the_right_options() {
    // More distinct option values than the server keeps renderers for; each answer must use
    // its own request's options, including those asked again after being dropped.
    let recording: Json =
        serde_json::from_slice(&std::fs::read(example("failure-recovery.json")).unwrap()).unwrap();
    let limits: Vec<usize> = (0..ptc::serve::RENDERER_CACHE + 8).chain([0, 1]).collect();
    let mut input = String::new();
    for (id, limit) in limits.iter().enumerate() {
        let request = serde_json::json!({
            "id": id, "recording": recording, "turns": 1,
            "options": {"println_limit": limit},
        });
        input.push_str(&format!("{request}\n"));
    }
    let answers = answers(input.as_bytes(), 1 << 24);
    assert_eq!(answers.len(), limits.len());
    for (answer, limit) in answers.iter().zip(&limits) {
        let shown = answer["stats"]["printlns_shown"].as_u64().unwrap() as usize;
        let total = answer["stats"]["printlns_total"].as_u64().unwrap() as usize;
        assert_eq!(shown, total.min(*limit), "{answer}");
    }
}

/// The answer to one request: `good_request(1)` with `fields` added.
fn answer_with(fields: Json) -> Json {
    let mut request: Json = serde_json::from_str(&good_request(1)).unwrap();
    for (key, value) in fields.as_object().unwrap() {
        request[key] = value.clone();
    }
    let mut answers = answers(format!("{request}\n").as_bytes(), 1 << 20);
    assert_eq!(answers.len(), 1);
    answers.remove(0)
}

#[test]
fn a_request_body_is_answered_in_the_format_asked() {
    let json = answer_with(serde_json::json!({}));
    assert_eq!(answer_with(serde_json::json!({"format": "json"})), json);
    let keys = |answer: &Json| {
        let mut keys: Vec<String> = answer.as_object().unwrap().keys().cloned().collect();
        keys.sort();
        keys
    };
    let anthropic = answer_with(serde_json::json!({
        "format": "anthropic", "cache_placement": "auto", "cache_ttl": "1h",
        "model": "claude-opus-4-1", "max_tokens": 100,
    }));
    assert_eq!(
        keys(&anthropic),
        ["id", "request", "stats", "strategy", "turns"]
    );
    assert_eq!(
        (&anthropic["id"], &anthropic["stats"], &anthropic["turns"]),
        (&json["id"], &json["stats"], &json["turns"])
    );
    let body = &anthropic["request"];
    assert_eq!(body["model"], "claude-opus-4-1");
    assert_eq!(body["max_tokens"], 100);
    // Automatic caching: one top-level `cache_control`.
    assert_eq!(
        body["cache_control"],
        serde_json::json!({"type": "ephemeral", "ttl": "1h"})
    );
    assert_eq!(
        body.to_string().matches("cache_control").count(),
        1,
        "{body}"
    );
    let user = &json["messages"][1]["content"];
    let blocks: Vec<&str> = body["messages"][0]["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["text"].as_str().unwrap())
        .collect();
    assert_eq!(blocks.join("\n\n"), user.as_str().unwrap());

    let openai = answer_with(serde_json::json!({"format": "openai"}));
    assert_eq!(openai["request"]["model"], "gpt-5");
    assert_eq!(openai["request"]["messages"], json["messages"]);
}

#[test]
fn request_options_of_the_wrong_type_are_errors_not_defaults() {
    for (fields, message) in [
        (
            serde_json::json!({"format": 5}),
            "\"format\" must be \"json\", \"anthropic\" or \"openai\", not 5",
        ),
        (
            serde_json::json!({"format": "text"}),
            "\"format\" must be \"json\", \"anthropic\" or \"openai\", not \"text\"",
        ),
        (
            serde_json::json!({"format": "anthropic", "model": 5}),
            "\"model\" must be a model name (a string), not 5",
        ),
        (
            serde_json::json!({"format": "anthropic", "max_tokens": "100"}),
            "\"max_tokens\" must be a positive integer",
        ),
        (
            serde_json::json!({"format": "anthropic", "max_tokens": 0}),
            "\"max_tokens\" must be a positive integer",
        ),
        (
            serde_json::json!({"format": "openai", "max_tokens": -1}),
            "\"max_tokens\" must be a positive integer",
        ),
        (
            serde_json::json!({"format": "anthropic", "cache_placement": true}),
            "\"cache_placement\" must be \"strategy\", \"auto\" or \"none\", not true",
        ),
        (
            serde_json::json!({"format": "anthropic", "cache_placement": "last"}),
            "\"cache_placement\": unknown cache placement `last` (strategy, auto, none, planned or bound)",
        ),
        (
            serde_json::json!({"format": "anthropic", "cache_ttl": 60}),
            "\"cache_ttl\" must be \"5m\" or \"1h\", not 60",
        ),
        (
            serde_json::json!({"cache_ttl": "1h"}),
            "\"cache_ttl\" applies to the anthropic format, not to json",
        ),
        (
            serde_json::json!({"format": "openai", "cache_ttl": "1h"}),
            "\"cache_ttl\" applies to the anthropic format, not to openai",
        ),
        (
            serde_json::json!({"format": "anthropic", "cache_ttl": "30m"}),
            "\"cache_ttl\" of an Anthropic request is 5m or 1h, not 30m",
        ),
        (
            serde_json::json!({"model": "gpt-5"}),
            "\"model\" applies to the anthropic and openai formats, not to json",
        ),
        // The request's words, not a configuration key or a command-line flag.
        (
            serde_json::json!({"options": {"println_limit": "two"}}),
            "bad value for `println_limit` in the request's \"options\": expected an integer \
             (like the default 15), found the string \"two\"",
        ),
        (
            serde_json::json!({"options": {"println_limt": 2}}),
            "unknown key `println_limt` in the request's \"options\": strategy \
             `single-user-coalesced` has the options",
        ),
    ] {
        let answer = answer_with(fields.clone());
        assert_eq!(code(&answer), "bad_request", "{fields}: {answer}");
        assert_eq!(answer["id"], 1);
        let got = answer["error"]["message"].as_str().unwrap();
        assert!(got.contains(message), "{fields}: {got}");
    }
}

#[test]
fn a_recording_is_rendered_with_its_maps_in_the_order_written() {
    // `memory` lists definitions in the order they were made; a JSON value would sort them.
    let path = example("data-exploration.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let host = in_process_host(&[]);
    let recording =
        ptc::Recording::parse(text.as_bytes(), &path, &host.recording_defaults().unwrap()).unwrap();
    let request = serde_json::json!({"id": 1, "strategy": "observation-masking"}).to_string();
    // One line, the keys as written: a JSON string holds no raw newline.
    let one_line = text.trim().replace('\n', " ");
    let request = format!(
        "{},\"recording\":{one_line}}}\n",
        request.trim_end_matches('}')
    );
    let answer = &answers(request.as_bytes(), 1 << 20)[0];
    let prompt = host
        .renderer(Some("observation-masking"))
        .unwrap()
        .render(&recording, recording.turns.len())
        .unwrap();
    let served: Vec<&str> = answer["messages"]
        .as_array()
        .unwrap_or_else(|| panic!("{answer}"))
        .iter()
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    let rendered: Vec<&str> = prompt.messages.iter().map(|m| m.content.as_str()).collect();
    assert_eq!(served, rendered);
    assert!(
        rendered
            .concat()
            .contains("defined: in-stock, by-category, categories, budget"),
        "{rendered:?}"
    );
}

/// The answer of a server with the turn-count strategy loaded to a request for it with
/// `options`.
fn turn_count_answer(options: Json) -> Json {
    use crate::support::{built_plugin, TURN_COUNT};
    let mut config = ptc::Config::defaults();
    config
        .layer_set("templates.directory=\"/nonexistent/ptc-templates\"")
        .unwrap();
    let strategy = ptc::LoadedStrategy::load(&built_plugin(TURN_COUNT)).unwrap();
    let host = ptc::Host::with_strategies(config, vec![strategy]);
    let mut request: Json = serde_json::from_str(&good_request(1)).unwrap();
    request["strategy"] = "turn-count".into();
    request["options"] = options;
    let mut output = Vec::new();
    ptc::serve::serve(
        &host,
        format!("{request}\n").as_bytes(),
        &mut output,
        1 << 20,
    )
    .unwrap();
    serde_json::from_slice(&output).unwrap()
}

#[test]
fn string_options_reach_the_strategy_as_written() {
    for label in [
        "plain",
        "a\u{1}b",
        "quote \" backslash \\ tab \t newline \n end",
        "\\u0041 {s:?} ''' \"\"\" é \u{1F600}",
        "",
    ] {
        let answer = turn_count_answer(serde_json::json!({ "label": label }));
        let content = answer["messages"][0]["content"]
            .as_str()
            .unwrap_or_else(|| panic!("{label:?}: {answer}"));
        assert!(
            content.contains(&format!("\n{label}: 1")),
            "{label:?}: {content:?}"
        );
    }
    // Numbers and booleans are numbers and booleans; an object, an array or null is refused,
    // naming the option.
    let answer = turn_count_answer(serde_json::json!({ "fail_after": 5 }));
    assert!(answer["messages"].is_array(), "{answer}");
    for bad in [
        serde_json::json!({"a": 1}),
        serde_json::json!(["x"]),
        Json::Null,
    ] {
        let answer = turn_count_answer(serde_json::json!({ "label": bad }));
        assert_eq!(code(&answer), "bad_request", "{bad}: {answer}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("option `label` must be a string, a number or true or false"),
            "{bad}: {message}"
        );
    }
}

#[test]
fn serve_accepts_the_nesting_files_accept_and_refuses_deeper_without_crashing() {
    let host = in_process_host(&[]);
    let defaults = host.recording_defaults().unwrap();
    let path = example("tool-actions.json");
    let mut recording: Json = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    for depth in [120, 126, 127, 128, 129] {
        let nested = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        recording["turns"][0]["result"] = "NESTED".into();
        // serde_json's own Value cannot hold it: written as text.
        let text = serde_json::to_string(&recording)
            .unwrap()
            .replacen("\"NESTED\"", &nested, 1);
        let file = ptc::Recording::parse(text.as_bytes(), &path, &defaults);
        let request = format!("{{\"id\":1,\"turns\":1,\"recording\":{text}}}\n");
        let answer = &answers(request.as_bytes(), 1 << 20)[0];
        assert_eq!(
            file.is_ok(),
            answer["messages"].is_array(),
            "{depth} levels: the file is {}, serve answers {answer:.300}",
            if file.is_ok() { "read" } else { "refused" },
        );
        if depth == 128 {
            assert!(file.is_ok(), "128 levels are read");
        }
        if depth == 129 {
            assert!(answer["error"]["message"]
                .as_str()
                .unwrap()
                .contains("nested deeper than 128 levels"));
        }
    }
    // Far deeper than any value may be: refused, not a stack overflow, in any field.
    let deep = format!("{}{}", "[".repeat(200_000), "]".repeat(200_000));
    for request in [
        format!("{{\"id\":1,\"options\":{deep}}}"),
        format!("{{\"id\":1,\"recording\":{deep}}}"),
        format!("{{\"id\":{deep}}}"),
        deep.clone(),
    ] {
        let answer = &answers(format!("{request}\n").as_bytes(), 1 << 20)[0];
        assert_eq!(code(answer), "bad_request", "{answer}");
    }
}

/// A strategy that prints on standard output cannot reach the answer stream: what it prints
/// goes to stderr, every answer answers its own request, and a printed line that looks like
/// an answer forges nothing.
#[test]
fn what_a_strategy_prints_never_reaches_the_answers() {
    use std::io::Write;
    let scratch = crate::support::shared();
    let forged = r#"{"id": 99, "forged": true}"#;
    let request = |id: u32, print: &str| {
        let mut request: Json = serde_json::from_str(&good_request(id)).unwrap();
        request["strategy"] = "turn-count".into();
        request["options"] = serde_json::json!({"print": print});
        format!("{request}\n")
    };
    let mut child = crate::support::ptc_command(scratch.path())
        .args(["serve", "--stdio"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all((request(1, forged) + &request(2, "")).as_bytes())
        .unwrap();
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success());
    let stdout = String::from_utf8(output.stdout).unwrap();
    let answers: Vec<Json> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let ids: Vec<&Json> = answers.iter().map(|a| &a["id"]).collect();
    assert_eq!(ids, [&Json::from(1), &Json::from(2)], "{stdout}");
    assert!(answers.iter().all(|a| a.get("error").is_none()), "{stdout}");
    assert!(String::from_utf8_lossy(&output.stderr).contains(forged));
}

/// The answer lines of the server to `input`, as it writes them.
fn answer_lines(input: &str) -> Vec<String> {
    let host = in_process_host(&[]);
    let mut output = Vec::new();
    ptc::serve::serve(&host, input.as_bytes(), &mut output, 1 << 20).unwrap();
    String::from_utf8(output)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn a_numeric_id_comes_back_as_written_whatever_its_size() {
    let good = good_request(1);
    for id in [
        "18446744073709551616",
        "-99999999999999999999999",
        "0.1000000000000000055511151231257827",
    ]
    .into_iter()
    .chain(["1E+2"])
    {
        let request = good.replacen("{\"id\":1,", &format!("{{\"id\": {id} ,"), 1);
        assert_ne!(request, good, "the request starts with its id");
        // The same id on a request that is answered and on one that is refused.
        let refused = request.replacen("\"turns\":1", "\"turns\":-1", 1);
        let lines = answer_lines(&format!("{request}\n{refused}\n"));
        assert_eq!(lines.len(), 2);
        assert!(
            lines[0].starts_with(&format!("{{\"id\":{id},\"messages\"")),
            "{}",
            &lines[0][..200]
        );
        assert!(lines[1].contains("\"error\""), "{}", lines[1]);
        assert!(
            lines[1].ends_with(&format!(",\"id\":{id}}}")),
            "{}",
            lines[1]
        );
    }
}

#[test]
fn a_bad_option_value_is_a_bad_request_whatever_the_number() {
    for value in [
        serde_json::json!(-1),
        serde_json::json!(1e300),
        serde_json::json!(-1.5),
    ] {
        let answer = answer_with(serde_json::json!({"options": {"println_limit": value}}));
        assert_eq!(code(&answer), "bad_request", "{value}: {answer}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.contains("println_limit"), "{value}: {message}");
    }
}

#[test]
fn a_huge_name_is_refused_with_its_length_not_echoed_whole() {
    let name = "n".repeat(1_000_000);
    for (fields, what) in [
        (serde_json::json!({"strategy": name}), "strategy"),
        (serde_json::json!({"options": {name.clone(): 1}}), "option"),
    ] {
        let answer = answer_with(fields);
        assert_eq!(code(&answer), "bad_request", "{what}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.len() < 300, "{what}: {} bytes", message.len());
        assert!(
            message.contains("(1000000 bytes, more than the 256"),
            "{message}"
        );
    }
}

/// A run whose requests send more messages in all than one run may (20,000,000, each request
/// counting again those it repeats: 4,473 turns of `appending_run` send 4,473², the 4,472
/// before the last fewer) is refused by `ab` before it is measured, naming the turn and how to
/// measure it anyway; `serve`, which renders one prompt of it, answers it, and the next
/// request. (In the main test binary: a run this
/// large held by the memory tests' binary would count in their children's peak.)
#[test]
fn a_run_that_sends_more_messages_than_the_limit_is_refused_by_ab_not_serve() {
    use std::io::Write;
    let scratch = crate::support::Scratch::new();
    let run = crate::support::appending_run(4_473);
    let file = scratch.write("long.json", serde_json::to_vec(&run).unwrap());
    let started = std::time::Instant::now();
    let refused = scratch.ptc([
        "ab",
        file.to_str().unwrap(),
        "--strategies",
        "as-sent",
        "--set",
        "ab.baseline=as-sent",
    ]);
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert_eq!(refused.stdout, "");
    let cause = "at `turns[4472].request`: the requests up to this turn send 20007729 messages in all (each counting again those it repeats), over the limit of 20000000 one run may send to be measured: `ab` renders every prompt whole, in a time that grows with the square of the turns; measure the run's first 4472 turns in a recording of their own, or render one prompt with `ptc render --turns N`";
    let skipped = format!(
        "warning: skipping recording {0}: invalid recording {0}: {cause}",
        file.display()
    );
    assert!(
        refused.stderr.lines().any(|l| l == skipped),
        "{}",
        refused.stderr
    );
    assert!(refused
        .stderr
        .ends_with("error: none of the 1 recording(s) could be read (see the warnings above)\n"));
    assert!(started.elapsed().as_secs() < 60, "refused before measuring");

    let line = |id: u32, run: &Json| {
        format!(
            "{}\n",
            serde_json::json!({"id": id, "recording": run, "turns": 1})
        )
    };
    let mut child = crate::support::ptc_command(scratch.path())
        .args(["serve", "--stdio"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all((line(1, &run) + &line(2, &crate::support::appending_run(3))).as_bytes())
        .unwrap();
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    let answers: Vec<Json> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(answers.len(), 2, "{answers:?}");
    // `serve` renders one prompt: the limit is `ab`'s, not its.
    assert!(answers[0].get("error").is_none(), "{}", answers[0]);
    assert_eq!(answers[0]["turns"], 1, "{}", answers[0]);
    assert!(answers[1].get("error").is_none(), "{}", answers[1]);
}

/// `as-sent`, the recorded requests, is a strategy name `serve` takes as every command does:
/// the answer is the request the agent sent before the turn asked for; an option is refused,
/// saying that it has none.
#[test]
fn serve_answers_as_sent_with_the_recorded_request() {
    let run = crate::support::appending_run(3);
    let request = |id: u32, options: Json| {
        serde_json::json!({"id": id, "recording": run, "turns": 2, "strategy": "as-sent",
            "options": options})
        .to_string()
            + "\n"
    };
    let input = request(1, serde_json::json!({})) + &request(2, serde_json::json!({"keep": 1}));
    let answers = answers(input.as_bytes(), 1 << 20);
    assert_eq!(answers.len(), 2, "{answers:?}");
    let sent: Vec<(&str, &str)> = answers[0]["messages"]
        .as_array()
        .unwrap_or_else(|| panic!("{}", answers[0]))
        .iter()
        .map(|m| (m["role"].as_str().unwrap(), m["content"].as_str().unwrap()))
        .collect();
    assert_eq!(
        sent,
        [
            ("user", "start"),
            ("assistant", "a1"),
            ("user", "u1"),
            ("assistant", "a2"),
            ("user", "u2")
        ]
    );
    assert_eq!(answers[0]["strategy"], "as-sent");
    assert_eq!(code(&answers[1]), "bad_request", "{}", answers[1]);
    let message = answers[1]["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("as-sent sends the recorded requests and has no option `keep`"),
        "{message}"
    );
    assert!(!message.contains("did you mean"), "{message}");
}
