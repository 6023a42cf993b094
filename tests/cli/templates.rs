//! Templates: a file in the templates directory replaces a compiled-in default at run time.

use crate::support::{example, messages, Scratch};

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
        "templates/single-user-coalesced/tools.tera",
        ";; === tool/ ===\n{% for t in tools %}\n{{ t.name }\n{% endfor %}\n",
    );
    let err = scratch
        .ptc(["render", example("tool-actions.json").to_str().unwrap()])
        .bad_input();
    assert!(
        err.contains("template `single-user-coalesced/tools` (")
            && err.contains("templates/single-user-coalesced/tools.tera), line 3:"),
        "{err}"
    );
    assert!(file.is_file());
    assert!(err.contains(", line 3:"), "{err}");
    scratch.write(
        "templates/single-user-coalesced/tools.tera",
        "{{ no_such_field }}\n",
    );
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
