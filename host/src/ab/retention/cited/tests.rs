//! The evidence of other agents' actions, pinned on hand-built turns shaped as each importer
//! writes them.

use ptc_plugin_api::abi_stable::std_types::ROption;
use ptc_plugin_api::{Run, Turn, Value};

use super::super::tests::{call, failed, map, program, run, turn};
use super::*;

fn literals_of(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    literals(text, &mut out);
    out
}

fn s(v: &str) -> Value {
    Value::string(v)
}

/// The needles of each prompt's facts, as text.
fn facts(run: &Run, turns: &[Turn]) -> Vec<Vec<String>> {
    cited(run, turns)
        .iter()
        .map(|facts| {
            facts
                .iter()
                .map(|n| String::from_utf8_lossy(n[0].needle()).into_owned())
                .collect()
        })
        .collect()
}

#[test]
fn a_shell_command_cites_its_paths_identifiers_numbers_and_quoted_strings() {
    // mini-swe-agent, OpenHands `run`: a shell command.
    assert_eq!(
        literals_of("grep -n \"def get_queryset\" django/db/models/query.py | sed -n '120,140p'"),
        [
            "grep -n \"def get_queryset\" django/db/models/query.py | sed -n '120,140p'",
            "def get_queryset",
            "120,140p",
            "get_queryset",
            "django/db/models/query.py",
            "120",
            "140p",
        ]
    );
    // Plain words, flags, short numbers and trailing punctuation are not literals.
    assert_eq!(
        literals_of("cd /testbed/ && ls -la src/ && echo 42\nmake test"),
        ["/testbed"],
        "a path; `src` is a plain word, 42 too short a number"
    );
    assert_eq!(
        literals_of("python reproduce_bug.py --count 1000\n"),
        ["reproduce_bug.py", "1000"]
    );
}

#[test]
fn an_argument_value_counts_whole_when_it_is_a_short_line() {
    // Claude Code `Grep {"pattern": ...}`, a Codex or ATIF argument: each string value is a
    // text of the action.
    assert_eq!(literals_of("TimeoutError"), ["TimeoutError"]);
    assert_eq!(literals_of("retry budget"), ["retry budget"]);
    assert_eq!(literals_of("ab"), Vec::<String>::new(), "too short");
    let long = "x".repeat(81);
    assert!(literals_of(&long).is_empty(), "too long, and a plain word");
    assert!(literals_of("C:\\path").iter().all(|l| !l.contains('\\')));
}

#[test]
fn runs_of_programs_in_parentheses_are_ptc_lisp() {
    assert!(is_lisp(&[
        program(turn(1), "  ; a comment\n(def x 1)"),
        turn(2),
        program(turn(3), "(+ 1 2)"),
    ]));
    assert!(!is_lisp(&[
        program(turn(1), "(def x 1)"),
        program(turn(2), "ls -la")
    ]));
    assert!(!is_lisp(&[turn(1)]), "no program at all");
    assert!(!is_lisp(&[program(turn(1), "; only a comment")]));
}

/// A shell agent's turns as the mini-swe-agent importer writes them: the command as the
/// call's `command`, its output as the result; a failed command keeps no call, its program
/// and its output as the error.
fn shell(number: u32, command: &str, output: &str) -> Turn {
    let mut t = program(turn(number), command);
    t.tool_calls = vec![call(
        "bash",
        map(vec![(s("command"), s(command))]),
        s(output),
    )]
    .into();
    t.prints = vec![output.into()].into();
    t
}

#[test]
fn a_literal_is_cited_when_an_earlier_observation_holds_it_and_the_mission_does_not() {
    let mut run = run(&["bash"], vec![]);
    run.mission = "Fix the bug in src/app/models.py".into();
    run.system_prompt = "Use THOUGHT then one command.".into();
    let mut broken = program(
        failed(2, Some("Traceback: KeyError in load_config at line 214")),
        "python run_app.py",
    );
    broken.tool_calls = Default::default();
    let turns = vec![
        shell(1, "grep -rn load_config src/", "src/app/config_loader.py:214: def load_config(path):\nsrc/app/models.py:3: import load_config"),
        broken,
        shell(3, "sed -n '200,230p' src/app/config_loader.py && grep load_config src/app/models.py", "..."),
        shell(4, "nl -ba src/app/config_loader.py | sed -n 214,220p", ""),
    ];
    let facts = facts(&run, &turns);
    assert_eq!(facts.len(), 4);
    // Turn 1 cites what nothing observed yet; turn 2 runs a script no output named.
    assert!(facts[0].is_empty());
    assert!(facts[1].is_empty());
    // Turn 3 cites the file and the name the first output showed; `src/app/models.py` is the
    // mission's, and `200,230p`, `200`, `230p` no output showed.
    assert_eq!(facts[2], ["src/app/config_loader.py", "load_config"]);
    // Turn 4: the line number the failed turn's error (its output) showed.
    assert_eq!(facts[3], ["src/app/config_loader.py", "214"]);
}

#[test]
fn the_arguments_of_a_tool_call_are_read_at_any_depth_but_not_under_a_private_key() {
    // Claude Code: `Read {"file_path": ..., "offset": 120}`, then an edit.
    let run = run(&["Read", "Edit"], vec![]);
    let mut t1 = turn(1);
    t1.tool_calls = vec![call(
        "Glob",
        map(vec![(s("pattern"), s("**/*.rs"))]),
        s("/repo/src/parser/lexer.rs\n/repo/src/main.rs\n  120 fn nextToken()"),
    )]
    .into();
    let mut t2 = turn(2);
    t2.tool_calls = vec![
        call(
            "Read",
            map(vec![
                (s("file_path"), s("/repo/src/parser/lexer.rs")),
                (s("offset"), Value::Integer(120)),
                (s("_id"), s("/repo/src/main.rs")),
            ]),
            Value::Nil,
        ),
        call(
            "Edit",
            map(vec![(
                s("edits"),
                Value::List(vec![map(vec![(s("old_string"), s("fn nextToken()"))])].into()),
            )]),
            Value::Nil,
        ),
    ]
    .into();
    t2.program = ROption::RSome("ignored when calls are recorded: /repo/src/main.rs".into());
    let facts = facts(&run, &[t1, t2]);
    assert_eq!(
        facts[1],
        [
            "/repo/src/parser/lexer.rs",
            "120",
            "fn nextToken()",
            "nextToken"
        ]
    );
}

/// A run of another agent: the prompt shows a cited literal as a whole word of plain text,
/// each action that cites anything counts once, and what a prompt drops is named.
#[test]
fn a_prompt_shows_a_cited_literal_as_a_whole_word_and_names_what_it_dropped() {
    let run = run(&["bash"], vec![]);
    let turns = vec![
        shell(1, "ls", "src/app/config_loader.py\nsrc/app/run_job.py"),
        shell(2, "cat src/app/config_loader.py src/app/run_job.py", ""),
    ];
    let facts = super::super::Facts::of(&run, &turns);
    let shown = facts.retention(1, "$ ls\nsrc/app/config_loader.py\nsrc/app/run_job.py");
    assert_eq!((shown.evidence.visible, shown.evidence.total), (2, 2));
    assert_eq!(
        (shown.cited_actions.visible, shown.cited_actions.total),
        (1, 1)
    );
    assert_eq!(
        (shown.used_next.visible, shown.used_next.total),
        (0, 0),
        "n/a"
    );
    // A longer word does not show it; a path around it does.
    let cut = "[output of `ls` hidden] old/src/app/config_loader.py src/app/run_job.pyc";
    let r = facts.retention(1, cut);
    assert_eq!((r.evidence.visible, r.evidence.total), (1, 2));
    assert_eq!((r.cited_actions.visible, r.cited_actions.total), (0, 1));
    assert_eq!(facts.dropped(1, cut), ["src/app/run_job.py"]);
    // The same from what the prompt's search found, prompt after prompt.
    let mut search = super::super::Search::default();
    for text in ["src/app/run_job.py", cut, "src/app/config_loader.py"] {
        facts.retention_after(1, text.to_owned(), &[text], &mut search);
        assert_eq!(
            facts.dropped_last(1, &search),
            facts.dropped(1, text),
            "{text}"
        );
    }
    assert!(facts
        .dropped(1, "src/app/config_loader.py src/app/run_job.py")
        .is_empty());
    // Before the first turn nothing was observed; a run without tool results cites nothing.
    assert_eq!(facts.retention(0, "").cited_actions.total, 0);
    let blind = super::super::Facts::of(&run, &turns).without_evidence();
    assert_eq!(blind.retention(1, "").evidence.total, 0);
}

proptest::proptest! {
    /// Where each literal first ends as a word, found for every literal in one pass, is where
    /// a search of that literal alone finds it: literals inside others, overlapping, repeated,
    /// next to letters, `_` and wide characters, paths that repeat themselves.
    #[test]
    fn literals_found_together_end_where_each_alone_does(
        text in proptest::collection::vec(
            proptest::sample::select(vec![
                "ab", "ab_", "a.b", " ", "\n", "é", "1000", "x", "/src/a.b", "-", "10",
                "/src/a.b/src/a.b/src/a.b", "/src/a.b/src/a.b/src/x",
            ]),
            0..40,
        ),
        literals in proptest::collection::vec(
            proptest::sample::select(vec![
                "ab", "a.b", "1000", "000", "/src/a.b", "src/a", "b x", "é1", "ab_", "10",
                "/src/a.b/src/a.b/src/a.b", "/src/a.b/src/a.b/src/x", "a.b/src/a.b/src/a.b/src",
            ]),
            1..8,
        ),
    ) {
        let text = text.concat();
        let mut literals: Vec<&str> = literals;
        literals.sort_unstable();
        literals.dedup();
        let alone: Vec<Option<usize>> = literals
            .iter()
            .map(|l| find_text_word(&text, &finder(l), 0).map(|at| at + l.len()))
            .collect();
        let [found] = first_words(&literals, [&text]);
        proptest::prop_assert_eq!(found, alone, "{:?}", text);
    }
}
