//! Retention pinned on hand-built recordings: every count below is worked out by hand from the
//! rules of the module's doc.

use ptc_plugin_api::abi_stable::std_types::{RArc, ROption, RVec, Tuple2};
use ptc_plugin_api::{Run, Tool, ToolCall, Turn, TurnError, Value};
use ptc_strategy_kit::{map_from, set_from};

use super::*;

// Recordings, built by hand.

/// [`Facts::of`] the turns as the host reads them, each with its `defined` filled.
fn facts_of(run: &Run, turns: &[Turn]) -> Facts {
    let mut turns = turns.to_vec();
    ptc_strategy_kit::mark_defined(&mut turns);
    Facts::of(run, &turns)
}

pub(super) fn kw(name: &str) -> Value {
    Value::keyword(name)
}

pub(super) fn map(entries: Vec<(Value, Value)>) -> Value {
    map_from(entries).unwrap()
}

pub(super) fn set(items: Vec<Value>) -> Value {
    set_from(items).unwrap()
}

pub(super) fn run(tools: &[&str], data: Vec<(&str, Value)>) -> Run {
    Run {
        mission: "".into(),
        system_prompt: "".into(),
        tools: tools
            .iter()
            .map(|name| Tool {
                name: (*name).into(),
                signature: ROption::RNone,
                description: ROption::RNone,
            })
            .collect(),
        data: data
            .into_iter()
            .map(|(name, value)| Tuple2(name.into(), value))
            .collect(),
        max_turns: 10,
        signature: ROption::RNone,
        key: 0,
    }
}

/// A successful turn that did nothing.
pub(super) fn turn(number: u32) -> Turn {
    Turn {
        number,
        raw_response: "".into(),
        program: ROption::RNone,
        success: true,
        result: Value::Nil,
        error: ROption::RNone,
        prints: RVec::new(),
        tool_calls: RVec::new(),
        memory: RVec::new(),
        defined: RVec::new(),
    }
}

/// A turn that failed with `message` (or with no message and the reason `reason`).
pub(super) fn failed(number: u32, message: Option<&str>) -> Turn {
    Turn {
        success: false,
        error: ROption::RSome(TurnError {
            reason: "timeout".into(),
            message: message.map(Into::into).into(),
        }),
        ..turn(number)
    }
}

pub(super) fn program(mut turn: Turn, text: &str) -> Turn {
    turn.program = ROption::RSome(text.into());
    turn
}

pub(super) fn memory(mut turn: Turn, entries: Vec<(&str, Value)>) -> Turn {
    turn.memory = entries
        .into_iter()
        .map(|(name, value)| Tuple2(name.into(), RArc::new(value)))
        .collect();
    turn
}

pub(super) fn call(name: &str, args: Value, result: Value) -> ToolCall {
    ToolCall {
        name: name.into(),
        args,
        result,
    }
}

fn share(visible: usize, total: usize) -> Share {
    Share { visible, total }
}

fn needles(fact: &CallFact) -> Vec<String> {
    fact.needles
        .iter()
        .map(|n| String::from_utf8_lossy(n.needle()).into_owned())
        .collect()
}

fn call_fact(name: &str, args: &Value) -> CallFact {
    CallFact {
        name: finder(name),
        needles: arg_needles(args).iter().map(|n| finder(n)).collect(),
    }
}

// Shares.

#[test]
fn a_share_counts_the_visible_among_all() {
    let mut s = Share::default();
    s.count(true);
    s.count(false);
    s.count(true);
    assert_eq!(s, share(2, 3));
    let mut t = share(1, 4);
    t.add(s);
    assert_eq!(t, share(3, 7));
}

#[test]
fn the_ratio_is_visible_over_total_and_none_without_facts() {
    assert_eq!(share(1, 4).ratio(), Some(0.25));
    assert_eq!(share(3, 3).ratio(), Some(1.0));
    assert_eq!(share(0, 2).ratio(), Some(0.0));
    assert_eq!(share(0, 0).ratio(), None);
}

#[test]
fn retentions_add_up_category_by_category() {
    let mut r = Retention {
        symbols: share(1, 2),
        tool_calls: share(3, 4),
        printed_lines: share(5, 6),
        error: share(7, 8),
        used_next: share(9, 10),
        evidence: share(11, 12),
        cited_actions: share(1, 1),
    };
    r.add(&Retention {
        symbols: share(10, 20),
        tool_calls: share(30, 40),
        printed_lines: share(50, 60),
        error: share(70, 80),
        used_next: share(90, 100),
        evidence: share(110, 120),
        cited_actions: share(0, 1),
    });
    assert_eq!(
        r,
        Retention {
            symbols: share(11, 22),
            tool_calls: share(33, 44),
            printed_lines: share(55, 66),
            error: share(77, 88),
            used_next: share(99, 110),
            evidence: share(121, 132),
            cited_actions: share(1, 2),
        }
    );
}

// Matching.

#[test]
fn words_match_whole_symbols_only() {
    let orders = finder("orders");
    assert!(contains_word("orders ; = list[3]", &orders));
    assert!(contains_word("(count orders)", &orders));
    assert!(contains_word("orders", &orders));
    assert!(!contains_word("big-orders ; = list[3]", &orders));
    assert!(!contains_word("orders2", &orders));
    assert!(!contains_word("user/orders", &orders));
    assert!(!contains_word("orders?", &orders));
    assert!(!contains_word("éorders", &orders), "a letter outside ASCII");
    assert!(
        contains_word("big-orders orders!x orders", &orders),
        "a later occurrence"
    );
    assert!(!contains_word("no such thing", &orders));
    for c in "-_?!*<>=/.+'".chars() {
        assert!(!contains_word(&format!("orders{c}"), &orders), "{c}");
        assert!(!contains_word(&format!("{c}orders"), &orders), "{c}");
    }
    for c in " ;:()[]{}\"\n,".chars() {
        assert!(contains_word(&format!("{c}orders{c}"), &orders), "{c:?}");
    }
}

#[test]
fn prefixes_count_characters() {
    assert_eq!(prefix_chars("héllo", 2), "hé");
    assert_eq!(prefix_chars("héllo", 5), "héllo");
    assert_eq!(prefix_chars("héllo", 9), "héllo");
    assert_eq!(prefix_chars("", 3), "");
}

#[test]
fn fact_names_are_neither_empty_nor_private() {
    assert!(is_fact_name("orders"));
    assert!(is_fact_name("a_b"));
    assert!(!is_fact_name(""));
    assert!(!is_fact_name("_token"));
}

#[test]
fn calls_need_their_name_and_scalar_arguments_nearby() {
    let args = map(vec![
        (kw("to"), Value::string("ada@example.com")),
        (kw("n"), Value::Integer(5)),
    ]);
    let call = call_fact("send", &args);
    assert!(call_visible(
        ";   send({:n 5 :to \"ada@example.com\"})",
        &call
    ));
    assert!(call_visible(
        "(tool/send {:to \"ada@example.com\"\n :n 5})",
        &call
    ));
    assert!(!call_visible(";   send({:n 5})", &call));
    assert!(
        !call_visible("5 ada@example.com send()", &call),
        "before the name"
    );
    assert!(
        call_visible("send() ; send(:n 5 ada@example.com)", &call),
        "at a later occurrence of the name"
    );
    assert!(!call_visible(
        "ada@example.com 5",
        &call_fact("send", &Value::Nil)
    ));
    assert!(call_visible("send", &call_fact("send", &Value::Nil)));
}

#[test]
fn call_arguments_must_lie_within_400_characters_of_the_name() {
    let call = call_fact("send", &Value::string("ada"));
    // "send" and 393 characters fill 397 of the window: "ada" ends on its 400th character.
    let inside = format!("é; send{}ada", "é".repeat(393));
    assert!(call_visible(&inside, &call));
    let outside = format!("é; send{}ada", "é".repeat(394));
    assert!(!call_visible(&outside, &call));
}

#[test]
fn call_needles_are_the_scalar_arguments_as_printed() {
    let args = map(vec![
        (kw("a"), Value::Integer(-3)),
        (kw("b"), Value::Float(2.5)),
        (kw("c"), kw("high")),
        (kw("d"), Value::Boolean(true)),
        (kw("e"), Value::string("line one\nline two")),
        (kw("f"), Value::string("say \"hi\"")),
        (kw("g"), Value::string("back\\slash")),
        (kw("h"), Value::string("\"quoted first")),
        (kw("i"), Value::string(&"x".repeat(45))),
        (kw("j"), Value::List(vec![Value::Integer(1)].into())),
        (kw("k"), Value::Nil),
        (kw("l"), Value::string("")),
        (kw("m"), map(vec![(kw("deep"), Value::Integer(9))])),
        (kw("_n"), Value::string("private")),
        (Value::string("_o"), Value::Integer(77)),
    ]);
    let call = call_fact("x", &args);
    assert_eq!(
        needles(&call),
        [
            "-3",
            "2.5",
            ":high",
            "true",
            "line one",
            "say ",
            "back",
            &"x".repeat(40)
        ]
    );
    let list = Value::List(vec![Value::Integer(1), Value::string("two"), Value::Nil].into());
    assert_eq!(arg_needles(&list), ["1", "two"]);
    assert_eq!(arg_needles(&Value::Nil), Vec::<String>::new());
    assert_eq!(arg_needles(&Value::string("solo")), ["solo"]);
    assert_eq!(arg_needles(&Value::Integer(7)), ["7"]);
    assert_eq!(arg_needles(&Value::string("ünï")), ["ünï"]);
}

#[test]
fn private_arguments_are_not_facts() {
    let args = map(vec![
        (kw("_token"), Value::string("secret123")),
        (Value::string("_key"), Value::Integer(77)),
        (kw("query"), Value::string("data")),
    ]);
    assert_eq!(arg_needles(&args), ["data"]);
    let mut t = turn(1);
    t.tool_calls = vec![call("api_call", args, Value::Nil)].into();
    let facts = facts_of(&run(&[], vec![]), &[t]);
    let shown = facts.retention(1, ";   api_call({:query \"data\"})");
    assert_eq!(shown.tool_calls, share(1, 1));
}

// Facts of a recording, turn by turn.

/// Five turns: two successful with different memories around a failed one, a failed one
/// with no message, and one whose error has an empty first line.
fn history() -> Vec<Turn> {
    let mut t1 = memory(
        turn(1),
        vec![
            ("orders", Value::Integer(3)),
            ("", Value::Integer(1)),
            ("_token", Value::string("s")),
        ],
    );
    t1.prints = vec!["first line\n\n   \n  second line  ".into(), "".into()].into();
    t1.tool_calls = vec![call(
        "lookup",
        map(vec![(kw("id"), Value::Integer(7))]),
        Value::Nil,
    )]
    .into();
    let mut t2 = memory(
        failed(2, Some("boom: bad\nstack trace")),
        vec![("ignored", Value::Nil)],
    );
    t2.prints = vec!["from failed".into()].into();
    t2.tool_calls = vec![call("send", Value::string("ada"), Value::Nil)].into();
    let mut t3 = memory(
        turn(3),
        vec![("orders", Value::Integer(4)), ("total", Value::Integer(1))],
    );
    t3.prints = vec![format!("{}{}", "L".repeat(60), "tail ten..").into()].into();
    let t4 = failed(4, None);
    vec![t1, t2, t3, t4]
}

#[test]
fn nothing_to_retain_before_the_first_turn() {
    let turns = history();
    let facts = facts_of(&run(&[], vec![]), &turns);
    assert_eq!(facts.retention(0, "anything"), Retention::default());
}

#[test]
fn prompt_after_prompt_counts_what_each_prompt_counts_alone() {
    let turns = history();
    let facts = facts_of(&run(&[], vec![]), &turns);
    // Names and printed lines shown, dropped, shown again, as prompts that share starts.
    let prompts = [
        "orders ; = integer\nlookup({:id 7})\nfirst line",
        "orders ; = integer\nlookup({:id 7})\nsecond line",
        "orders ; = integer\nlookup({:id 7})\nsecond line\nfirst line\nboom: bad",
        "_token first line\nsecond line",
        "nothing shown",
        "orders ; = integer\nfirst line\nsecond line\nboom: bad",
    ];
    for k in 1..=turns.len() {
        let mut search = Search::default();
        for text in prompts {
            let messages: Vec<&str> = text.split('\n').collect();
            let after = facts.retention_after(k, text.to_owned(), &messages, &mut search);
            assert_eq!(after, facts.retention(k, text), "after {k} turns: {text:?}");
        }
    }
}

#[test]
fn the_facts_of_the_first_turn() {
    let turns = history();
    let facts = facts_of(&run(&[], vec![]), &turns);
    // Memory: `orders` (the empty and the private name are no facts); one call; the two
    // non-empty lines of the first print, trimmed; no error yet.
    let text = "orders ; = integer\nlookup({:id 7})\nfirst line";
    let r = facts.retention(1, text);
    assert_eq!(r.symbols, share(1, 1));
    assert_eq!(r.tool_calls, share(1, 1));
    assert_eq!(r.printed_lines, share(1, 2));
    assert_eq!(r.error, share(0, 0));
    let r = facts.retention(1, "_token first line\nsecond line");
    assert_eq!(r.symbols, share(0, 1));
    assert_eq!(r.tool_calls, share(0, 1));
    assert_eq!(r.printed_lines, share(2, 2));
}

#[test]
fn a_failed_turn_adds_its_calls_prints_and_error_but_not_its_memory() {
    let turns = history();
    let facts = facts_of(&run(&[], vec![]), &turns);
    let text = "ignored send(\"ada\") from failed boom: bad";
    let r = facts.retention(2, text);
    assert_eq!(r.symbols, share(0, 1), "still the first turn's memory");
    assert_eq!(r.tool_calls, share(1, 2));
    assert_eq!(r.printed_lines, share(1, 3));
    assert_eq!(r.error, share(1, 1));
    assert_eq!(facts.retention(2, "boom: bad\nstack").error, share(1, 1));
    assert_eq!(facts.retention(2, "stack trace").error, share(0, 1));
}

#[test]
fn the_latest_successful_memory_and_the_latest_error_count() {
    let turns = history();
    let facts = facts_of(&run(&[], vec![]), &turns);
    // Printed lines are matched by their first 60 characters.
    let text = format!("total orders2 boom: bad timeout {}", "L".repeat(60));
    let r = facts.retention(3, &text);
    assert_eq!(r.symbols, share(1, 2));
    assert_eq!(r.tool_calls, share(0, 2));
    assert_eq!(r.printed_lines, share(1, 4));
    assert_eq!(r.error, share(1, 1), "the second turn's");
    assert_eq!(facts.retention(3, "timeout").error, share(0, 1));
    let r = facts.retention(4, "timeout");
    assert_eq!(
        r.error,
        share(1, 1),
        "a reason stands for a missing message"
    );
    assert_eq!(facts.retention(4, "boom: bad").error, share(0, 1));
}

#[test]
fn an_error_with_an_empty_first_line_is_no_fact() {
    let turns = [failed(1, Some("\nsecond line"))];
    let facts = facts_of(&run(&[], vec![]), &turns);
    assert_eq!(facts.retention(1, "second line").error, share(0, 0));
    let turns = [failed(1, Some("  first  \nsecond"))];
    let facts = facts_of(&run(&[], vec![]), &turns);
    assert_eq!(facts.retention(1, "x first y").error, share(1, 1));
}

#[test]
fn errors_and_lines_are_matched_by_their_start() {
    let message = format!("{}{}", "e".repeat(80), "MORE");
    let mut t = failed(1, Some(&message));
    t.prints = vec![format!("{}MORE", "p".repeat(60)).into()].into();
    let facts = facts_of(&run(&[], vec![]), &[t]);
    let r = facts.retention(1, &format!("{} {}", "e".repeat(80), "p".repeat(60)));
    assert_eq!(r.error, share(1, 1));
    assert_eq!(r.printed_lines, share(1, 1));
    let r = facts.retention(1, &format!("{} {}", "e".repeat(79), "p".repeat(59)));
    assert_eq!(r.error, share(0, 1));
    assert_eq!(r.printed_lines, share(0, 1));
}

// Used next, end to end.

#[test]
fn used_next_counts_the_next_programs_names_visible_in_the_prompt_before_it() {
    let run = run(
        &["get-order", "notify"],
        vec![(
            "orders",
            Value::List(vec![map(vec![(kw("id"), Value::Integer(1))])].into()),
        )],
    );
    let turns = [
        program(turn(1), "(def first-order (first data/orders))"),
        program(
            memory(turn(2), vec![("first-order", Value::Nil)]),
            "(tool/get-order {:id (:id first-order)}) (notify \"x\") (:nope first-order)",
        ),
        turn(3),
    ];
    let facts = facts_of(&run, &turns);
    // Before turn 1: `data/orders` (the name `first-order` is defined, not used).
    assert_eq!(
        facts.retention(0, "data/orders ; list").used_next,
        share(1, 1)
    );
    assert_eq!(facts.retention(0, "orders").used_next, share(0, 1));
    // Before turn 2: tool/get-order, :id (a key in the data) and tool/notify (called bare);
    // `first-order` is in no memory yet (turn 1 recorded none), `:nope` in no value.
    let text = "get-order(id) tool/notify :id";
    assert_eq!(facts.retention(1, text).used_next, share(3, 3));
    assert_eq!(
        facts.retention(1, "get-orders notify2 {:id}").used_next,
        share(1, 3)
    );
    // Before turn 3: a turn with no program uses nothing.
    assert_eq!(facts.retention(2, "anything").used_next, share(0, 0));
    // After the last turn there is no next program.
    assert_eq!(facts.retention(3, "anything").used_next, share(0, 0));
}

/// The window after a name ends after 400 characters, however many bytes they take: the
/// shortcuts for short and ASCII texts agree with counting characters.
#[test]
fn a_window_is_400_characters_whatever_their_bytes() {
    let by_chars = |text: &str, i: usize| {
        text[i..]
            .char_indices()
            .nth(400)
            .map_or(text.len(), |(j, _)| i + j)
    };
    let texts = [
        "a".repeat(1000),
        "é".repeat(1000),
        format!("{}é{}", "a".repeat(399), "b".repeat(600)),
        format!("{}é{}", "a".repeat(400), "b".repeat(600)),
        format!("{}🦀{}", "a".repeat(200), "b".repeat(200)),
        "a".repeat(400),
        "a".repeat(401),
        "é".repeat(399),
        String::new(),
    ];
    for text in &texts {
        for i in (0..=text.len()).filter(|&i| text.is_char_boundary(i)) {
            assert_eq!(window_end(text, i), by_chars(text, i), "{text:?} from {i}");
        }
    }
}

/// Prompts that each keep the first `keep[i]` bytes of the one before (cut to a character)
/// and append `texts[i]`'s pieces.
fn prompts_keeping<S: AsRef<str>>(texts: &[Vec<S>], keep: &[usize]) -> Vec<String> {
    let mut prompts: Vec<String> = Vec::new();
    for (i, pieces) in texts.iter().enumerate() {
        let mut text = prompts.last().map_or(String::new(), |before| {
            let mut cut = keep[i].min(before.len());
            while !before.is_char_boundary(cut) {
                cut -= 1;
            }
            before[..cut].to_owned()
        });
        text.extend(pieces.iter().map(AsRef::as_ref));
        prompts.push(text);
    }
    prompts
}

proptest::proptest! {
    /// Searching prompt after prompt, reusing what the previous prompt's search found, finds
    /// what a search of each whole text finds: texts that share a start, differ in the middle,
    /// grow, shrink, or have nothing in common.
    #[test]
    fn a_search_after_the_previous_prompt_finds_what_a_whole_search_finds(
        texts in proptest::collection::vec(
            proptest::collection::vec(
                proptest::sample::select(vec![
                    "ab", "ab-", "xab", " ", "\n", "é", "🦀", "(", "b", "abab", "a", "_", "/",
                ]),
                0..24,
            ),
            1..8,
        ),
        keep in proptest::collection::vec(0usize..30, 8),
    ) {
        let needles: Vec<Finder<'static>> = ["ab", "a", "b a", "abab", "é", "ab-", "", "ab", "b\na", "\n", "a\n"]
            .iter()
            .map(|n| finder(n))
            .collect();
        // Each text keeps a start of the one before and appends its own pieces.
        let prompts = prompts_keeping(&texts, &keep);
        // Needle by needle, and every needle at once: in the text as one message, and in
        // the text as the messages its line breaks join; and the two in turn, so that what
        // was found together is not taken past a text searched needle by needle.
        let together = search::Needles::new(&needles);
        // And written over the previous text from the messages it repeats, as `ptc ab` does.
        for way in 0..5 {
        let mut search = Search::default();
        let mut before: Vec<&str> = Vec::new();
        for (i, text) in prompts.iter().enumerate() {
            let lines: Vec<&str> = text.split('\n').collect();
            match (way, i % 3) {
                (0, _) | (3, 1) => search.start(text),
                (1, _) | (3, _) => search.start_with(text, &[text], &together),
                (2, _) => search.start_with(text, &lines, &together),
                _ => {
                    let lead = lines.iter().zip(&before).take_while(|(a, b)| a == b).count();
                    let (written, common) = search.next_text(&lines, lead);
                    proptest::prop_assert_eq!(&written, text);
                    search.start_together(&written, &lines, &together, common);
                }
            }
            before = lines;
            for needle in &needles {
                for how in [Match::Word, Match::Anywhere, Match::Text] {
                    let whole = match how {
                        Match::Word => contains_word(text, needle),
                        Match::Anywhere => needle.find(text.as_bytes()).is_some(),
                        Match::Text => search::find_text_word(text, needle, 0).is_some(),
                    };
                    proptest::prop_assert_eq!(search.find(text, needle, how), whole, "{:?} in {:?}", String::from_utf8_lossy(needle.needle()), text);
                }
            }
            search.finish(text.clone());
        }
        }
    }
}

proptest::proptest! {
    /// A prompt's text written over the previous one's is its messages joined by line breaks,
    /// and the start the two share is the one a comparison of the whole texts finds: prompts
    /// that repeat some of the messages before and change, add or drop the others.
    #[test]
    fn a_text_written_over_the_previous_one_is_the_messages_joined(
        prompts in proptest::collection::vec(
            (
                0usize..5,
                proptest::collection::vec(
                    proptest::collection::vec(
                        proptest::sample::select(vec!["ab", "\n", "é", "🦀", "", "a", "b\n"]),
                        0..5,
                    ),
                    0..4,
                ),
            ),
            1..8,
        ),
    ) {
        let mut search = Search::default();
        let mut before: Vec<String> = Vec::new();
        for (keep, added) in prompts {
            // The first `keep` messages of the previous prompt, then new ones.
            let mut messages: Vec<String> = before.iter().take(keep).cloned().collect();
            let lead = messages.len();
            messages.extend(added.iter().map(|pieces| pieces.concat()));
            let views: Vec<&str> = messages.iter().map(String::as_str).collect();
            let joined = views.join("\n");
            let was = search.text().to_owned();
            // Told of fewer repeated messages than there are, or of all of them.
            for told in [lead / 2, lead] {
                search.finish(was.clone());
                let (text, common) = search.next_text(&views, told);
                proptest::prop_assert_eq!(&text, &joined);
                proptest::prop_assert_eq!(common, crate::tokens::common_prefix(&was, &joined).len());
            }
            search.finish(joined);
            before = messages;
        }
    }
}

proptest::proptest! {
    /// Whether each call is shown, prompt after prompt, reusing what the previous prompt
    /// showed, is what a search of each whole text finds: windows that end in the shared
    /// start, cross it, or start after it.
    #[test]
    fn calls_shown_after_the_previous_prompt_are_those_a_whole_search_finds(
        texts in proptest::collection::vec(
            proptest::collection::vec(
                proptest::sample::select(vec![
                    "send", "send(", " 42", " \"a@b.ch\"", "é", "\n", " ", "x".repeat(150).leak(),
                    "🦀".repeat(50).leak(), "sen", "d 42",
                ]),
                0..30,
            ),
            1..8,
        ),
        keep in proptest::collection::vec(0usize..4000, 8),
    ) {
        let calls = [
            CallFact { name: finder("send"), needles: vec![finder("42")] },
            CallFact { name: finder("send"), needles: vec![finder("42"), finder("a@b.ch")] },
            CallFact { name: finder("send"), needles: vec![] },
            CallFact { name: finder("d"), needles: vec![finder("é")] },
        ];
        let prompts = prompts_keeping(&texts, &keep);
        // Each call on its own, and with its values found together with the others' (which
        // tells where a window must reach).
        let together = search::Needles::new(calls.iter().flat_map(|c| &c.needles));
        let ids: Vec<Vec<Option<usize>>> = calls
            .iter()
            .map(|c| c.needles.iter().map(|n| together.id(n)).collect())
            .collect();
        for numbered in [false, true] {
        let mut search = Search::default();
        for (p, text) in prompts.iter().enumerate() {
            match numbered {
                false => search.start(text),
                true => search.start_with(text, &[text], &together),
            }
            let mut places = search::Places::default();
            // A call is checked from the prompt of its turn on: the first ones earlier.
            for (i, call) in calls.iter().enumerate().take(p + 1) {
                let numbers = numbered.then(|| (&ids[i][..], &together));
                proptest::prop_assert_eq!(
                    search.call_visible(i, text, call, numbers, &mut places),
                    call_visible(text, call),
                    "call {} in {:?}", i, text
                );
            }
            search.finish(text.clone());
        }
        }
    }
}

/// A window of 400 characters spans up to four bytes each: a value at its very end, after
/// wide characters, is still shown when the values are found together (where the first
/// occurrence of each tells which windows can reach it).
#[test]
fn a_value_at_the_end_of_a_window_of_wide_characters_is_shown() {
    let call = CallFact {
        name: finder("send"),
        needles: vec![finder("42")],
    };
    let together = search::Needles::new(&call.needles);
    let ids = [together.id(&call.needles[0])];
    for crabs in [390, 395, 396, 397] {
        let text = format!("send{}42", "🦀".repeat(crabs));
        let mut search = Search::default();
        search.start_with(&text, &[&text], &together);
        let mut places = search::Places::default();
        let numbered = Some((&ids[..], &together));
        let shown = search.call_visible(0, &text, &call, numbered, &mut places);
        assert_eq!(shown, call_visible(&text, &call), "{crabs}");
        assert_eq!(shown, crabs <= 394, "{crabs}");
    }
}

// The names and literals the next program uses.

#[test]
fn a_key_written_bare_in_a_return_type_is_shown_by_that_signature() {
    let mut run = run(&["get-page"], vec![]);
    run.tools[0].signature = ROption::RSome("(n :int) -> {page :int, total_pages :int}".into());
    let mut t1 = turn(1);
    t1.tool_calls = vec![call(
        "get-page",
        map(vec![(kw("n"), Value::Integer(1))]),
        map(vec![
            (kw("page"), Value::Integer(1)),
            (kw("total_pages"), Value::Integer(3)),
        ]),
    )]
    .into();
    let t2 = program(turn(2), "(:total_pages (tool/get-page 2))");
    let facts = facts_of(&run, &[t1, t2]);
    // The tool and the keyword, shown by the signature as strategies print it or as written.
    for text in [
        "tool/get-page(n int) -> {page int, total_pages int}",
        "(get-page n) -> {page :int, total_pages :int}",
        "tool/get-page ... :total_pages 3",
    ] {
        assert_eq!(facts.retention(1, text).used_next, share(2, 2), "{text}");
    }
    // Another map's key of that name is not the signature.
    assert_eq!(
        facts
            .retention(1, "tool/get-page {total_pages int}")
            .used_next,
        share(1, 2)
    );
    assert_eq!(facts.retention(1, "get-page").used_next, share(1, 2));
}

#[test]
fn evidence_is_the_literals_the_next_program_takes_from_tool_results() {
    let run = run(&["search"], vec![]);
    let mut t1 = turn(1);
    t1.tool_calls = vec![call(
        "search",
        Value::string("orders"),
        Value::List(
            vec![map(vec![
                (kw("id"), Value::string("ord-1234")),
                (kw("n"), Value::Integer(5012)),
                (kw("_token"), Value::string("tok-secret")),
            ])]
            .into(),
        ),
    )]
    .into();
    t1.prints = vec!["printed-only".into()].into();
    let t2 = program(
        turn(2),
        "(get \"ord-1234\") (f 5012 5012) (g \"not-from-a-result\" \"tok-secret\" \"printed-only\" 12 \"orders\")\n\
         ; \"ord-9999\" in a comment",
    );
    let facts = facts_of(&run, &[t1, t2]);
    // Before the first turn no result holds anything.
    assert_eq!(facts.retention(0, "").evidence, share(0, 0));
    // "ord-1234" and 5012, each once; not what no result held (an argument, printed text), nor
    // what a private key held.
    assert_eq!(
        facts.retention(1, "{:id \"ord-1234\", :n 5012}").evidence,
        share(2, 2)
    );
    // Whole words only: a longer id or number does not show them.
    assert_eq!(
        facts.retention(1, "\"ord-12345\" 50123").evidence,
        share(0, 2)
    );
    assert_eq!(
        facts.retention(1, "{:id \"ord-1234\" ...}").evidence,
        share(1, 2)
    );
}

/// A word is found where it stands whole, even over the end of an occurrence of it that does
/// not (a path that repeats itself).
#[test]
fn a_word_is_found_over_an_occurrence_that_does_not_stand_whole() {
    let word = finder("a/b/a/b");
    assert_eq!(search::find_text_word("xa/b/a/b/a/b", &word, 0), Some(5));
    assert_eq!(search::find_text_word("xa/b/a/b/a/bc", &word, 0), None);
    assert_eq!(search::find_text_word("a/b/a/b", &word, 1), None);
}

proptest::proptest! {
    /// A list of needles counted as it grows, prompt after prompt, counts what the whole list
    /// counts in each prompt: entries with no number among the needles found together
    /// included, and a list that shrinks (counted anew).
    #[test]
    fn a_growing_list_counts_what_the_whole_list_counts(
        texts in proptest::collection::vec(
            proptest::collection::vec(proptest::sample::select(vec!["ab", " ", "\n", "é", "xy", "b"]), 0..12),
            1..8,
        ),
        keep in proptest::collection::vec(0usize..20, 8),
        picks in proptest::collection::vec(0usize..7, 0..40),
        lens in proptest::collection::vec(0usize..41, 8),
    ) {
        let needles: Vec<Finder<'static>> = ["ab", "é", "xy", "b\né", "zz"].iter().map(|n| finder(n)).collect();
        let together = search::Needles::new(&needles);
        // Numbers of the needles, one with none and one past every needle's.
        let mut numbers: Vec<u32> = needles.iter().map(|n| together.id(n).map_or(NO_NUMBER, |id| id as u32)).collect();
        numbers.extend([NO_NUMBER, 99]);
        let ids: Vec<u32> = picks.iter().map(|&p| numbers[p]).collect();
        // Another list after three prompts, the first again after three more.
        let lists = [ids.clone(), ids.iter().rev().copied().collect()];
        let prompts = prompts_keeping(&texts, &keep);
        let mut search = Search::default();
        for (i, (text, len)) in prompts.iter().zip(&lens).enumerate() {
            let ids = &lists[(i / 3) % 2];
            let len = (*len).min(ids.len());
            search.start_with(text, &text.split('\n').collect::<Vec<_>>(), &together);
            let (mut grown, mut whole) = (Share::default(), Share::default());
            let alone = search.count_growing(&mut grown, ids, len, Match::Anywhere, &together);
            let all = search.count_numbered(&mut whole, ids[..len].iter().copied(), Match::Anywhere, &together);
            proptest::prop_assert_eq!(grown, whole);
            proptest::prop_assert_eq!(alone, all);
            search.finish(text.clone());
        }
    }
}
