//! Templates: a file in the templates directory replaces a compiled-in default at run time.

use crate::support::{example, in_process_host, messages, Scratch, STRATEGIES};

#[test]
fn a_template_file_replaces_the_default_without_rebuilding() {
    let scratch = Scratch::new();
    let path = example("failure-recovery.json");
    let before = messages(&scratch.render_json(&path, 1, &[]))[1].1.clone();
    assert!(before.ends_with("\nTurns left: 7"), "{before}");
    scratch.write(
        "templates/single-user-coalesced/turns_left.tera",
        "{% if final_turn %}Last turn!{% else %}{{ turns_left }} turns to go{% endif %}\n",
    );
    let after = messages(&scratch.render_json(&path, 1, &[]))[1].1.clone();
    assert!(after.ends_with("\n7 turns to go"), "{after}");
    assert_eq!(
        before.rsplit_once("\n\n").unwrap().0,
        after.rsplit_once("\n\n").unwrap().0
    );
}

#[test]
fn the_host_templates_can_be_replaced_too() {
    let scratch = Scratch::new();
    scratch.write("templates/system_prompt.tera", "You write PTC-Lisp.\n");
    scratch.write(
        "templates/text_output.tera",
        "{% for m in messages %}[{{ m.role }}] {{ m.content | length }} chars\n{% endfor %}",
    );
    let text = scratch
        .ptc([
            "render",
            example("data-exploration.json").to_str().unwrap(),
            "--turns",
            "0",
        ])
        .ok();
    assert_eq!(text.lines().next().unwrap(), "[system] 19 chars");
    assert_eq!(text.lines().count(), 2);
}

#[test]
fn a_broken_template_names_the_template_the_file_and_the_line() {
    let scratch = Scratch::new();
    let file = scratch.write(
        "templates/coalesce/tools.tera",
        ";; === tool/ ===\n{% for t in tools %}\n{{ t.name }\n{% endfor %}\n",
    );
    let err = scratch
        .ptc(["render", example("tool-actions.json").to_str().unwrap()])
        .bad_input();
    assert!(
        err.contains("template `single-user-coalesced/tools` (")
            && err.contains("templates/coalesce/tools.tera), line 3:"),
        "{err}"
    );
    assert!(file.is_file());
    assert!(err.contains(", line 3:"), "{err}");
    scratch.write("templates/coalesce/tools.tera", "{{ no_such_field }}\n");
    let err = scratch
        .ptc(["render", example("tool-actions.json").to_str().unwrap()])
        .bad_input();
    assert!(
        err.contains("template `single-user-coalesced/tools`")
            && err.contains("line 1")
            && err.contains("no_such_field"),
        "{err}"
    );
}

/// The text of every message of the prompt for turn `turns + 1` through `strategy`.
fn rendered(host: &ptc::Host, strategy: &str, recording: &ptc::Recording, turns: usize) -> String {
    let prompt = host
        .renderer(Some(strategy))
        .unwrap()
        .render(recording, turns)
        .unwrap();
    let contents: Vec<&str> = prompt.messages.iter().map(|m| m.content.as_str()).collect();
    contents.join("\n---\n")
}

#[test]
fn a_shared_section_file_changes_every_strategy_that_shows_it() {
    let scratch = Scratch::new();
    let dir = scratch.path().join("templates");
    let recording = ptc::Host::with_strategies(ptc::Config::defaults(), Vec::new())
        .load_recording(&example("failure-recovery.json"))
        .unwrap();
    let with_dir = format!("templates.directory={:?}", dir.display().to_string());
    let before: Vec<String> = STRATEGIES
        .iter()
        .map(|(strategy, _)| rendered(&in_process_host(&[]), strategy, &recording, 1))
        .collect();
    let showing: Vec<&str> = STRATEGIES
        .iter()
        .zip(&before)
        .filter(|(_, text)| text.contains("Turns left: "))
        .map(|((strategy, _), _)| *strategy)
        .collect();
    assert!(showing.len() >= 4, "{showing:?}");

    scratch.write(
        "templates/coalesce/turns_left.tera",
        "SHARED {{ turns_left }}\n",
    );
    scratch.write(
        "templates/delta-log/turns_left.tera",
        "OWN {{ turns_left }}\n",
    );
    let host = in_process_host(&[&with_dir]);
    for ((strategy, _), before) in STRATEGIES.iter().zip(&before) {
        let after = rendered(&host, strategy, &recording, 1);
        // A file under the strategy's own folder wins over the shared one.
        let mark = if *strategy == "delta-log" {
            "OWN "
        } else {
            "SHARED "
        };
        let expected = before.replace("Turns left: ", mark);
        assert_eq!(after, expected, "{strategy}");
        assert_eq!(
            after != *before,
            showing.contains(strategy),
            "{strategy} changed exactly when it shows the turns left"
        );
    }
}

/// `ptc render --explain` traces each line of the prompt back to its strategy, its template and
/// where that template was loaded from, with the fields it received.
#[test]
fn explain_says_where_each_section_comes_from() {
    let scratch = Scratch::new();
    let path = example("failure-recovery.json");
    let args = |extra: &[&str]| {
        let mut args = vec!["render".to_owned(), path.display().to_string()];
        args.extend(["--turns", "1", "--explain"].map(String::from));
        args.extend(extra.iter().map(|s| s.to_string()));
        args
    };
    let built_in = scratch.ptc(args(&[])).ok();
    assert!(
        built_in.starts_with("The prompt before turn 2 of "),
        "{built_in}"
    );
    assert!(
        built_in.contains("by strategy `single-user-coalesced`"),
        "{built_in}"
    );
    // The turns-left line, its template, and the field it came from.
    let section = built_in
        .split("\n=== section ")
        .find(|s| s.contains("template: turns_left "))
        .expect("a turns_left section");
    assert!(section.contains("(user), block"), "{section}");
    assert!(
        section.contains("template: turns_left (built in)"),
        "{section}"
    );
    assert!(section.contains("\"turns_left\": 7"), "{section}");
    assert!(section.contains("text:\n    Turns left: 7\n"), "{section}");
    // Every section the rendered prompt holds is explained, in order.
    let prompt = scratch
        .ptc(["render", &path.display().to_string(), "--turns", "1"])
        .ok();
    let texts: Vec<&str> = built_in
        .split("\ntext:\n")
        .skip(1)
        .map(|s| s.split("\n=== section ").next().unwrap())
        .collect();
    for text in &texts {
        for line in text.lines().filter_map(|l| l.strip_prefix("    ")) {
            assert!(prompt.contains(line), "{line:?} is not in the prompt");
        }
    }
    // A user's file is named with its path.
    scratch.write(
        "templates/single-user-coalesced/turns_left.tera",
        "{{ turns_left }} to go\n",
    );
    let overridden = scratch.ptc(args(&[])).ok();
    assert!(
        overridden.contains("template: turns_left (your file ")
            && overridden.contains("templates/single-user-coalesced/turns_left.tera)"),
        "{overridden}"
    );
    assert!(overridden.contains("text:\n    7 to go\n"), "{overridden}");
    // --explain is a view of its own, not a format.
    let both = scratch.ptc(args(&["--format", "json"]));
    assert_eq!(both.code, 2, "{}", both.stderr);
}

#[test]
fn verbose_says_which_templates_are_in_force_and_where_they_come_from() {
    let scratch = Scratch::new();
    let path = example("failure-recovery.json");
    let args = ["-v", "render", path.to_str().unwrap(), "--turns", "1"];
    let run = scratch.ptc(args);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("templates of single-user-coalesced: the built-in ones (")
            && run.stderr.contains(
                "none in ./templates (the default templates.directory, from the working directory)"
            ),
        "{}",
        run.stderr
    );
    scratch.write("templates/system_prompt.tera", "You write PTC-Lisp.\n");
    scratch.write(
        "templates/single-user-coalesced/turns_left.tera",
        "{{ turns_left }} turns to go\n",
    );
    let run = scratch.ptc(args);
    assert_eq!(run.code, 0, "{}", run.stderr);
    for said in [
        "templates of ptc: system_prompt from ./templates (the default templates.directory",
        "templates of single-user-coalesced: turns_left from ./templates (",
    ] {
        assert!(run.stderr.contains(said), "{said}\n{}", run.stderr);
    }
    // Set elsewhere: the place that set it is named.
    let run = scratch.ptc(
        [
            &args[..],
            &["--set", "templates.directory=\"elsewhere\""][..],
        ]
        .concat(),
    );
    assert!(
        run.stderr.contains("templates of ptc: the built-in ones")
            && run.stderr.contains("(templates.directory set in "),
        "{}",
        run.stderr
    );
}
