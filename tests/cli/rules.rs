//! The text of single-user-coalesced, rule family by rule family (value formatting, type
//! labels, truncation, samples, definitions, tool calls, messages, errors, single-shot runs).
//! Every expected text here is written by hand from the rules, not copied from output.

use serde_json::{json, Value as Json};

use crate::support::shared;

const PAD20: &str = "                    ";

/// A recording with mission "Mission.", system prompt "System.", 5 turns at most, and `turns`.
fn recording(turns: Json) -> Json {
    json!({"mission": "Mission.", "system_prompt": "System.", "max_turns": 5, "turns": turns})
}

fn ok_turn(number: u32, extra: Json) -> Json {
    let mut turn = json!({"number": number, "raw_response": "```clojure\n(x)\n```", "program": "(x)", "success": true});
    merge(&mut turn, extra);
    turn
}

fn failed_turn(number: u32, message: Option<&str>, extra: Json) -> Json {
    let mut turn = json!({"number": number, "raw_response": "...", "program": format!("(bad {number})"), "success": false,
        "error": {"reason": "eval_error", "message": message}});
    merge(&mut turn, extra);
    turn
}

fn merge(target: &mut Json, extra: Json) {
    if let Json::Object(extra) = extra {
        for (k, v) in extra {
            target[k] = v;
        }
    }
}

fn user(recording: &Json) -> String {
    shared().user_message(recording, &[])
}

mod namespaces {
    use super::*;

    #[test]
    fn first_prompt_has_mission_tools_data_and_turns_left_only() {
        let mut r = recording(json!([]));
        r["tools"] = json!([
            {"name": "search", "signature": "(query :string, limit :int) -> [:string]", "description": "Full-text search"},
            {"name": "get-order", "signature": "(id :int) -> {id :int, total :float}"},
            {"name": "ping", "signature": null},
            {"name": "stats", "signature": "-> :map"}
        ]);
        r["data"] = json!({"products": [{":name": "Lamp", ":price": 12.5}], "limits": {":min": 1, ":max": 10}});
        let expected = format!(
            "Mission.\n\n\
             ;; === tool/ ===\n\
             tool/get-order(id) -> {{id int, total float}}\n\
             tool/ping() -> any\n\
             tool/search(query, limit) -> [string]\n\
             tool/stats() -> map\n\n\
             ;; === data/ ===\n\
             data/limits{PAD20}; map[2], sample: {{:max 10 :min 1}}\n\
             data/products{PAD20}; list[1], sample: [{{:name \"Lamp\" :price 12.5}}]\n\n\
             Turns left: 5"
        );
        assert_eq!(user(&r), expected);
    }

    #[test]
    fn system_message_comes_first_and_is_the_recordings_own() {
        let messages = shared().render_messages(&recording(json!([])), &[]);
        assert_eq!(messages[0], ("system".to_string(), "System.".to_string()));
    }

    #[test]
    fn user_prelude_lists_functions_then_values_sorted() {
        let memory = json!({
            "zeta": 1,
            "alpha": "a",
            "a-name-that-is-thirty-chars-xx": true,
            "summarize": {"$fn": {"params": ["orders", "&", "opts"], "doc": "Totals; per\ncustomer", "return_type": "map[3]"}},
            "helper": {"$fn": {"params": ["x"], "doc": null, "return_type": null}},
            "documented": {"$fn": {"params": [], "doc": "No return type", "return_type": null}},
            "typed": {"$fn": {"params": ["a", "b"], "doc": null, "return_type": "integer"}}
        });
        let r = recording(json!([ok_turn(1, json!({"memory": memory}))]));
        let expected = "Mission.\n\n\
             ;; === user/ (your prelude) ===\n\
             (documented [])               ; \"No return type\"\n\
             (helper [x])\n\
             (summarize [orders & opts])   ; \"Totals per customer\" -> map[3]\n\
             (typed [a b]) -> integer\n\
             a-name-that-is-thirty-chars-xx ; = boolean, sample: true\n\
             alpha                         ; = string, sample: \"a\"\n\
             zeta                          ; = integer, sample: 1\n\n\
             ;; No tool calls made\n\n\
             Turns left: 4";
        assert_eq!(user(&r), expected);
    }

    #[test]
    fn expected_output_follows_the_prelude() {
        let mut r = recording(json!([ok_turn(1, json!({"memory": {"x": 1}}))]));
        r["signature"] = json!("{total :float}");
        let text = user(&r);
        assert!(text.contains(
            "x                             ; = integer, sample: 1\n\n;; Expected output: {total :float}\n\n;; No tool calls made"
        ), "{text}");
    }
}

mod types {
    use super::*;

    #[test]
    fn every_type_has_its_label() {
        let memory = json!({
            "a-empty-list": [], "b-list": [1, 2, 3], "c-empty-map": {}, "d-map": {":a": 1},
            "e-set": {"$set": [1, 2, 3]}, "f-string": "s", "g-int": 42, "h-float": 2.75,
            "i-bool": false, "j-kw": {"$kw": "active"}, "k-nil": null, "l-float": {"$float": 2}
        });
        let text = user(&recording(json!([ok_turn(1, json!({"memory": memory}))])));
        let lines: Vec<&str> = text.lines().filter(|l| l.contains("; = ")).collect();
        assert_eq!(
            lines,
            [
                "a-empty-list                  ; = list[0], sample: []",
                "b-list                        ; = list[3], sample: [1 2 3]",
                "c-empty-map                   ; = map[0], sample: {}",
                "d-map                         ; = map[1], sample: {:a 1}",
                "e-set                         ; = set[3], sample: #{1 2 3}",
                "f-string                      ; = string, sample: \"s\"",
                "g-int                         ; = integer, sample: 42",
                "h-float                       ; = float, sample: 2.75",
                "i-bool                        ; = boolean, sample: false",
                "j-kw                          ; = keyword, sample: :active",
                "k-nil                         ; = nil, sample: nil",
                "l-float                       ; = float, sample: 2.0",
            ]
        );
    }
}

mod truncation {
    use super::*;

    #[test]
    fn samples_keep_three_elements_and_eighty_characters() {
        let long: String = "x".repeat(100);
        let memory = json!({"items": [1, 2, 3, 4, 5], "text": long, "nested": [[1, 2, 3, 4], {":a": 1, ":b": 2, ":c": 3, ":d": 4}]});
        let text = user(&recording(json!([ok_turn(1, json!({"memory": memory}))])));
        assert!(text.contains("items                         ; = list[5], sample: [1 2 3 ...] (5 items, showing first 3)\n"), "{text}");
        assert!(
            text.contains(&format!(
                "text                          ; = string, sample: \"{}...\"\n",
                "x".repeat(80)
            )),
            "{text}"
        );
        assert!(text.contains("nested                        ; = list[2], sample: [[1 2 3 ...] (4 items, showing first 3) {:a 1 :b 2 :c 3 ...} (4 items, showing first 3)]\n"), "{text}");
    }

    #[test]
    fn tool_args_keep_three_entries_and_sixty_characters() {
        let body: String = "é".repeat(70);
        let calls = json!([
            {"name": "create-ticket", "args": {":title": "t", ":body": body, ":priority": {"$kw": "high"}, ":tags": ["a"]}, "result": null}
        ]);
        let text = user(&recording(json!([ok_turn(
            1,
            json!({"tool_calls": calls})
        )])));
        assert!(text.contains(&format!(
            ";; Tool calls made:\n;   create-ticket({{:body \"{}...\" :priority :high :tags [\"a\"] ...}} (4 items, showing first 3))\n",
            "é".repeat(60)
        )), "{text}");
    }

    #[test]
    fn println_limit_keeps_the_most_recent_calls() {
        let turns = json!([
            ok_turn(1, json!({"prints": ["p1", "p2"]})),
            ok_turn(2, json!({"prints": ["p3", "multi\nline"]})),
        ]);
        let text = shared().user_message(&recording(turns), &["--set", "println_limit=3"]);
        assert!(
            text.contains(";; Output:\np2\np3\nmulti\nline\n\nTurns left: 3"),
            "{text}"
        );
    }

    #[test]
    fn each_println_is_capped_at_println_char_limit() {
        let long: String = "y".repeat(2005);
        let text = user(&recording(json!([ok_turn(1, json!({"prints": [long]}))])));
        assert!(
            text.contains(&format!(
                ";; Output:\n{}...\n\nTurns left",
                "y".repeat(2000)
            )),
            "{text}"
        );
    }
}

mod samples_vs_output {
    use super::*;

    #[test]
    fn any_println_hides_every_sample_but_data_keeps_its_own() {
        let mut r = recording(json!([
            ok_turn(1, json!({"memory": {"a": [1]}})),
            ok_turn(
                2,
                json!({"memory": {"a": [1], "b": "x"}, "prints": ["hello"]})
            ),
        ]));
        r["data"] = json!({"d": 1});
        let expected = format!(
            "Mission.\n\n;; === data/ ===\ndata/d{PAD20}; integer, sample: 1\n\n\
             ;; === user/ (your prelude) ===\n\
             a                             ; = list[1]\n\
             b                             ; = string\n\n\
             ;; No tool calls made\n\n;; Output:\nhello\n\nTurns left: 3"
        );
        assert_eq!(user(&r), expected);
    }

    #[test]
    fn prints_of_failed_turns_do_not_count() {
        let r = recording(json!([
            ok_turn(1, json!({"memory": {"a": 1}})),
            failed_turn(
                2,
                Some("boom"),
                json!({"prints": ["from the failed turn"], "memory": {"a": 1}})
            ),
            ok_turn(3, json!({"memory": {"a": 1}})),
        ]));
        let text = user(&r);
        assert!(
            text.contains("a                             ; = integer, sample: 1"),
            "{text}"
        );
        assert!(
            !text.contains("Output") && !text.contains("from the failed turn"),
            "{text}"
        );
    }
}

mod definitions {
    use super::*;

    #[test]
    fn the_prelude_is_the_memory_of_the_last_successful_turn() {
        let r = recording(json!([
            ok_turn(1, json!({"memory": {"x": 1}})),
            ok_turn(2, json!({"memory": {"x": 2, "y": 3}})),
            failed_turn(3, Some("nope"), json!({"memory": {"x": 2, "y": 3, "z": 9}})),
        ]));
        let text = user(&r);
        assert!(text.contains(";; === user/ (your prelude) ===\nx                             ; = integer, sample: 2\ny                             ; = integer, sample: 3\n\n"), "{text}");
        assert!(!text.contains("\nz "), "{text}");
    }

    #[test]
    fn no_successful_turn_means_no_prelude() {
        let r = recording(json!([failed_turn(
            1,
            Some("nope"),
            json!({"memory": {"x": 1}})
        )]));
        assert!(!user(&r).contains("user/"));
    }
}

mod tool_calls {
    use super::*;

    fn call(name: &str, n: i64) -> Json {
        json!({"name": name, "args": {":n": n}, "result": [n]})
    }

    #[test]
    fn accumulate_fifo_without_results() {
        let r = recording(json!([
            ok_turn(1, json!({"tool_calls": [call("a", 1), call("b", 2)]})),
            ok_turn(2, json!({"tool_calls": [call("c", 3)]})),
        ]));
        let text = shared().user_message(&r, &["--set", "tool_call_limit=2"]);
        assert!(
            text.contains(";; Tool calls made:\n;   b({:n 2})\n;   c({:n 3})\n\nTurns left: 3"),
            "{text}"
        );
    }

    #[test]
    fn calls_of_failed_turns_are_left_out_unless_asked() {
        let r = recording(json!([
            ok_turn(1, json!({"tool_calls": [call("a", 1)]})),
            failed_turn(
                2,
                Some("x"),
                json!({"tool_calls": [call("side-effect", 2)]})
            ),
            ok_turn(3, json!({})),
        ]));
        assert!(user(&r).contains(";; Tool calls made:\n;   a({:n 1})\n\n"));
        let with = shared().user_message(&r, &["--set", "failed_turn_tool_calls=true"]);
        assert!(
            with.contains(";; Tool calls made:\n;   a({:n 1})\n;   side-effect({:n 2})\n\n"),
            "{with}"
        );
    }

    #[test]
    fn results_shown_when_asked_and_nothing_printed() {
        let r = recording(json!([ok_turn(1, json!({"tool_calls": [call("a", 1)]}))]));
        let text = shared().user_message(&r, &["--set", "tool_call_results=when_no_println"]);
        assert!(text.contains(";   a({:n 1}) -> [1]\n"), "{text}");
        let printed = recording(json!([ok_turn(
            1,
            json!({"tool_calls": [call("a", 1)], "prints": ["p"]})
        )]));
        let text = shared().user_message(&printed, &["--set", "tool_call_results=when_no_println"]);
        assert!(text.contains(";   a({:n 1})\n"), "{text}");
    }

    #[test]
    fn calls_without_arguments_keep_their_parens() {
        let r = recording(json!([ok_turn(
            1,
            json!({"tool_calls": [{"name": "ping", "args": null, "result": null}]})
        )]));
        assert!(user(&r).contains(";   ping()\n"));
    }
}

mod messages {
    use super::*;

    #[test]
    fn turns_left_counts_the_turn_about_to_run_and_warns_on_the_last() {
        let turns: Vec<Json> = (1..=5).map(|n| ok_turn(n, json!({}))).collect();
        let r = recording(Json::Array(turns));
        let path = shared().write("five.json", serde_json::to_vec(&r).unwrap());
        let last_line = |k: usize| {
            let render = shared().render_json(&path, k, &[]);
            crate::support::messages(&render)[1]
                .1
                .lines()
                .last()
                .unwrap()
                .to_owned()
        };
        assert_eq!(last_line(0), "Turns left: 5");
        assert_eq!(last_line(3), "Turns left: 2");
        let last = "FINAL TURN - you must call (return result) or (fail reason) now.";
        assert_eq!(last_line(4), last);
        assert_eq!(last_line(5), last);
    }

    #[test]
    fn mission_placeholders_are_expanded_from_data() {
        let mut r = recording(json!([]));
        r["mission"] = json!("Email {{name}} about orders {{ ids }}.");
        r["data"] = json!({"name": "Zoë", "ids": [1, 2]});
        assert!(user(&r).starts_with("Email Zoë about orders [1 2].\n\n;; === data/ ==="));
    }
}

mod errors {
    use super::*;

    #[test]
    fn while_failing_only_the_latest_error_is_shown() {
        let r = recording(json!([
            ok_turn(1, json!({"memory": {"x": 1}})),
            failed_turn(2, Some("first"), json!({})),
            failed_turn(3, Some("undefined symbol: totl"), json!({})),
        ]));
        let expected = "Mission.\n\n\
            ;; === user/ (your prelude) ===\n\
            x                             ; = integer, sample: 1\n\n\
            ;; No tool calls made\n\n\
            ---\nYour previous attempt:\n```clojure\n(bad 3)\n```\n\nError: undefined symbol: totl\n---\n\n\
            Turns left: 2";
        assert_eq!(user(&r), expected);
    }

    #[test]
    fn after_recovery_every_error_is_collapsed() {
        let r = recording(json!([
            failed_turn(1, Some("e"), json!({})),
            ok_turn(2, json!({}))
        ]));
        assert_eq!(
            user(&r),
            "Mission.\n\n;; No tool calls made\n\nTurns left: 3"
        );
    }

    #[test]
    fn no_message_shows_the_reason_and_no_program_a_placeholder() {
        let mut turn = failed_turn(1, None, json!({}));
        turn["program"] = Json::Null;
        turn["error"]["reason"] = json!("timeout");
        let text = user(&recording(json!([turn])));
        assert!(
            text.contains("```clojure\n(unknown program)\n```\n\nError: timeout\n---"),
            "{text}"
        );
    }
}

mod single_shot {
    use super::*;

    #[test]
    fn max_turns_one_sends_its_first_prompt_and_after_its_turn_the_final_turn() {
        let mut r = recording(json!([ok_turn(
            1,
            json!({"prints": ["done"], "tool_calls": [{"name": "a", "args": null, "result": null}]})
        )]));
        r["max_turns"] = json!(1);
        let path = shared().write("single.json", serde_json::to_vec(&r).unwrap());
        let first = shared().render_json(&path, 0, &[]);
        assert_eq!(
            crate::support::messages(&first)[1].1,
            "Mission.\n\nFINAL TURN - you must call (return result) or (fail reason) now."
        );
        assert_eq!(first["stats"]["turns_compressed"], 0);
        // Rendering after the last turn is allowed: the history coalesced, the same last line.
        let after = shared().render_json(&path, 1, &[]);
        assert_eq!(after["strategy"], "single-user-coalesced");
        assert_eq!(
            crate::support::messages(&after)[1].1,
            "Mission.\n\n;; Tool calls made:\n;   a()\n\n;; Output:\ndone\n\n\
             FINAL TURN - you must call (return result) or (fail reason) now."
        );
        assert_eq!(after["stats"]["turns_compressed"], 1);
    }
}

mod statistics {
    use super::*;

    #[test]
    fn stats_count_successful_turns_and_collapsed_errors() {
        let call = json!({"name": "a", "args": null, "result": null});
        let r = recording(json!([
            ok_turn(
                1,
                json!({"tool_calls": [call, call, call], "prints": ["1", "2"]})
            ),
            failed_turn(
                2,
                Some("x"),
                json!({"tool_calls": [call], "prints": ["no"]})
            ),
            failed_turn(3, Some("y"), json!({})),
        ]));
        let path = shared().write("stats.json", serde_json::to_vec(&r).unwrap());
        let render = shared().render_json(
            &path,
            3,
            &["--set", "tool_call_limit=2", "--set", "println_limit=1"],
        );
        assert_eq!(
            render["stats"],
            json!({"turns_compressed": 3, "tool_calls_total": 3, "tool_calls_shown": 2, "tool_calls_dropped": 1,
                   "printlns_total": 2, "printlns_shown": 1, "printlns_dropped": 1, "error_turns_collapsed": 1,
                   "enabled": true})
        );
        assert_eq!(render["strategy"], "single-user-coalesced");
        assert_eq!(render["turns"], 3);
    }
}
