//! Numbers that cannot be: a log whose token counts or costs are not counts or costs, or that
//! mixes runs, is refused by `ptc import` naming the file, the line and the field (exit 2,
//! nothing written), never imported with the count as 0 or the call's usage dropped.

use std::path::{Path, PathBuf};

use serde_json::{json, Value as Json};

use crate::support::{all_strategies, repo, Scratch};

fn realrun(path: &str) -> PathBuf {
    repo().join("tests/fixtures/realruns").join(path)
}

fn kernel(name: &str) -> String {
    std::fs::read_to_string(realrun(&format!(
        "ptc_runner-kernel/{name}.inspection.jsonl"
    )))
    .unwrap()
}

/// The lines of `text` with the first line `pick` accepts changed by `change`, and that
/// line's number.
fn change_first(
    text: &str,
    pick: impl Fn(&Json) -> bool,
    change: impl Fn(&mut Json),
) -> (String, usize) {
    let mut at = 0;
    let lines: Vec<String> = text
        .lines()
        .enumerate()
        .map(|(i, line)| {
            let mut record: Json = serde_json::from_str(line).unwrap();
            if at == 0 && pick(&record) {
                at = i + 1;
                change(&mut record);
                return record.to_string();
            }
            line.to_owned()
        })
        .collect();
    assert!(at > 0, "a line to change");
    (lines.join("\n") + "\n", at)
}

/// `ptc import FILE -o OUT` fails with exit 2, writes nothing; its error.
fn refused(scratch: &Scratch, file: &Path) -> String {
    let out = scratch.path().join("out.jsonl");
    let err = scratch
        .ptc([
            "import".to_owned(),
            file.display().to_string(),
            "-o".into(),
            out.display().to_string(),
        ])
        .bad_input();
    assert!(!out.exists(), "nothing is written");
    err
}

fn is_model_output(record: &Json) -> bool {
    record["record_type"] == "capability-output" && record["payload"]["name"] == "llm-request"
}

#[test]
fn a_kernel_count_that_is_not_a_count_is_refused_naming_the_line_and_the_field() {
    let scratch = Scratch::new();
    let real = kernel("fast-checkout-5xx-10");
    for (field, value, shown) in [
        ("cache_read", json!("2176"), "the string \"2176\""),
        ("output", json!(-5), "-5"),
        ("cache_creation", json!(1.5), "1.5"),
        ("cache_read", json!(true), "true"),
        ("input", json!("2287"), "the string \"2287\""),
    ] {
        let (text, line) = change_first(&real, is_model_output, |r| {
            r["payload"]["result"]["value"]["tokens"][field] = value.clone();
        });
        let file = scratch.write("bad.inspection.jsonl", text);
        let err = refused(&scratch, &file);
        assert!(
            err.contains(&format!("cannot import {}:{line}: ", file.display()))
                && err.contains(&format!(
                    "`payload.result.value.tokens.{field}` is {shown}, not a count of tokens"
                )),
            "{err}"
        );
    }
    let (text, _) = change_first(&real, is_model_output, |r| {
        r["payload"]["result"]["value"]["tokens"]["total_cost"] = json!(-4.99);
    });
    let file = scratch.write("cost.inspection.jsonl", text);
    let err = refused(&scratch, &file);
    assert!(err.contains("`payload.result.value.tokens.total_cost` is -4.99, not a cost"));
}

#[test]
fn kernel_cache_reads_above_the_input_that_includes_them_are_refused() {
    let scratch = Scratch::new();
    let (text, line) = change_first(&kernel("fast-checkout-5xx-10"), is_model_output, |r| {
        let tokens = &mut r["payload"]["result"]["value"]["tokens"];
        tokens["cache_read"] = json!(tokens["input"].as_u64().unwrap() + 1);
    });
    let file = scratch.write("above.inspection.jsonl", text);
    let err = refused(&scratch, &file);
    assert!(
        err.contains(&format!("{}:{line}: ", file.display()))
            && err.contains("`payload.result.value.tokens.cache_read` and `payload.result.value.tokens.cache_creation` (")
            && err.contains("are more than `payload.result.value.tokens.input`"),
        "{err}"
    );
}

#[test]
fn two_kernel_artifacts_in_one_file_are_refused_naming_the_other_run() {
    let scratch = Scratch::new();
    let first = kernel("fast-checkout-5xx-10");
    let both = first.clone() + &kernel("checkout-5xx-9");
    let file = scratch.write("both.inspection.jsonl", both);
    let err = refused(&scratch, &file);
    let line = first.lines().count() + 1;
    assert!(
        err.contains(&format!("{}:{line}: `run_id` \"run-9e4d67ee1f19\" differs from the \"run-d6d9e79497e3\" of line 1", file.display()))
            && err.contains("split the file by `run_id`"),
        "{err}"
    );
}

#[test]
fn a_kernel_capability_id_given_twice_is_refused() {
    let scratch = Scratch::new();
    let real = kernel("fast-checkout-5xx-10");
    let (at, output) = real
        .lines()
        .enumerate()
        .find(|(_, l)| is_model_output(&serde_json::from_str(l).unwrap()))
        .unwrap();
    let twice = format!("{real}{output}\n");
    let file = scratch.write("twice.inspection.jsonl", &twice);
    let err = refused(&scratch, &file);
    let id = serde_json::from_str::<Json>(output).unwrap()["correlation"]["capability_id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        err.contains(&format!(
            "{}:{}: this capability-output has the `capability_id` {id} of line {} too",
            file.display(),
            real.lines().count() + 1,
            at + 1
        )),
        "{err}"
    );
}

#[test]
fn a_claude_code_count_that_is_not_a_count_is_refused_naming_the_line_and_the_field() {
    let scratch = Scratch::new();
    let real = std::fs::read_to_string(realrun("claude-code/session-5c0375b4.jsonl")).unwrap();
    for (field, value) in [
        ("cache_read_input_tokens", json!("1408")),
        ("output_tokens", json!(-1)),
        ("cache_creation_input_tokens", json!(2.5)),
    ] {
        // Every line of a response repeats its usage: each is changed.
        let text: String = real
            .lines()
            .map(|line| {
                let mut record: Json = serde_json::from_str(line).unwrap();
                if record["message"]["usage"]["input_tokens"].is_u64() {
                    record["message"]["usage"][field] = value.clone();
                }
                record.to_string() + "\n"
            })
            .collect();
        let file = scratch.write("bad.jsonl", text);
        let err = refused(&scratch, &file);
        assert!(
            err.contains(&format!("cannot import {}:", file.display()))
                && err.contains(&format!("`message.usage.{field}` is ")),
            "{field}: {err}"
        );
    }
}

#[test]
fn a_mini_swe_agent_count_that_is_not_a_count_is_refused_naming_the_message() {
    let scratch = Scratch::new();
    let path = realrun("mini-swe-agent/deepseek_reasoner_dev_pvlib__pvlib-python-1707.traj.json");
    let mut trajectory: Json =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let (at, message) = trajectory["messages"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .enumerate()
        .find(|(_, m)| m["extra"]["response"]["usage"]["prompt_tokens"].is_u64())
        .unwrap();
    message["extra"]["response"]["usage"]["completion_tokens"] = json!("93");
    let file = scratch.write("bad.traj.json", trajectory.to_string());
    let err = refused(&scratch, &file);
    assert!(
        err.contains(&format!(
            "`messages[{at}].extra.response.usage.completion_tokens` is the string \"93\""
        )),
        "{err}"
    );
}

#[test]
fn an_atif_cost_that_cannot_be_is_refused_naming_the_step() {
    let scratch = Scratch::new();
    let path = realrun("atif/harbor-golden-openhands-hello-world.json");
    let text = std::fs::read_to_string(path).unwrap();
    let trajectory: Json = serde_json::from_str(&text).unwrap();
    let at = trajectory["steps"]
        .as_array()
        .unwrap()
        .iter()
        .position(|s| s["metrics"]["cost_usd"].is_f64())
        .unwrap();
    // Written over the text, so that the trajectory keeps its fields in their order.
    let first = text.find("\"cost_usd\": ").unwrap() + "\"cost_usd\": ".len();
    let end = first + text[first..].find([',', '\n', '}']).unwrap();
    let file = scratch.write(
        "bad.json",
        format!("{}1e308{}", &text[..first], &text[end..]),
    );
    let err = refused(&scratch, &file);
    assert!(
        err.contains(&format!(
            "`steps[{at}].metrics.cost_usd` is 1e+308, not a cost"
        )),
        "{err}"
    );
}

/// A Kernel run of ten billed calls imported, as its recording's JSON.
fn imported_kernel(scratch: &Scratch) -> Json {
    let from = realrun("ptc_runner-kernel/checkout-5xx-9.inspection.jsonl");
    let out = scratch.path().join("imported.json");
    scratch
        .ptc([
            "import".to_owned(),
            from.display().to_string(),
            "-o".into(),
            out.display().to_string(),
            "--force".into(),
        ])
        .ok();
    serde_json::from_str(&std::fs::read_to_string(out).unwrap()).unwrap()
}

/// Runs `ptc ARGS FILE` for each command that reads a recording's usage; each must fail
/// with exit 2 and say `what`.
fn every_command_refuses(scratch: &Scratch, file: &Path, what: &str) {
    let file = file.display().to_string();
    for command in [vec!["bill", &file], vec!["render", &file]] {
        let err = scratch.ptc(&command).bad_input();
        assert!(err.contains(what), "{command:?}: {err}");
    }
    // `ab` names each recording it cannot read in a warning, then fails.
    let run = all_strategies().ptc(["ab", "--strategies", "delta-log", "--no-timing", &file]);
    assert_eq!(run.code, 2, "ab: {}", run.stderr);
    assert!(run.stderr.contains(what), "ab: {}", run.stderr);
    let run = scratch.ptc(["validate", &file]);
    assert_eq!(run.code, 2, "validate: {}{}", run.stdout, run.stderr);
    assert!(run.stdout.contains(what), "validate: {}", run.stdout);
}

#[test]
fn billed_tokens_that_add_up_past_64_bits_are_refused_by_every_command() {
    let scratch = Scratch::new();
    let mut recording = imported_kernel(&scratch);
    for turn in recording["turns"].as_array_mut().unwrap() {
        turn["usage"] = json!({"input": 0, "cache_read": u64::MAX, "provider": "openrouter"});
    }
    let file = scratch.write("wraps.json", recording.to_string());
    every_command_refuses(&scratch, &file, "turns[1].usage");
    // Each run within 64 bits, the corpus beyond them.
    let mut one = imported_kernel(&scratch);
    one["turns"][0]["usage"]["cache_read"] = json!(u64::MAX / 2 + 1);
    one["turns"][0]["usage"]["input"] = json!(0);
    let a = scratch.write("a.json", one.to_string());
    let b = scratch.write("b.json", one.to_string());
    let err = scratch
        .ptc(["bill", &a.display().to_string(), &b.display().to_string()])
        .bad_input();
    assert!(
        err.contains(&format!("{}: with the recordings before it", b.display())),
        "{err}"
    );
}

#[test]
fn a_cost_that_cannot_be_is_refused_by_every_command() {
    let scratch = Scratch::new();
    let recording = imported_kernel(&scratch).to_string();
    let first_cost = recording.find("\"cost_usd\":").unwrap() + "\"cost_usd\":".len();
    let end = first_cost + recording[first_cost..].find([',', '}']).unwrap();
    for cost in ["-4.99", "1e308", "18446744073709551616"] {
        let text = format!("{}{cost}{}", &recording[..first_cost], &recording[end..]);
        let file = scratch.write("cost.json", text);
        every_command_refuses(&scratch, &file, "turns[0].usage.cost_usd");
    }
}
