//! One test per form and core function the recorded Kernel programs use, and the budget that
//! refuses hostile programs. Expected prints marked "ptc_runner" are taken from ptc_runner's
//! own tests (andreasronge/ptc_runner, MIT licence, Copyright (c) Andreas Ronge).

use ptc_lisp::{pr_str, Budget, Capabilities, Interp, LispError, Outcome, TurnResult, Value};

struct NoCalls;

impl Capabilities for NoCalls {
    fn call(&mut self, name: &str, _args: serde_json::Value) -> Result<Value, LispError> {
        Err(LispError::new(
            "capability_error",
            format!("no capability {name}"),
        ))
    }
}

fn run_in(interp: &mut Interp, src: &str) -> TurnResult {
    interp.run(src, Budget::default(), Box::new(NoCalls))
}

fn run(src: &str) -> TurnResult {
    run_in(&mut Interp::new(), src)
}

/// The printed value of a program that must succeed.
fn value(src: &str) -> String {
    match run(src).outcome {
        Outcome::Value(v) => pr_str(&v),
        other => panic!("{src}: {other:?}"),
    }
}

fn error_kind(src: &str) -> String {
    match run(src).outcome {
        Outcome::Error(e) => e.kind,
        other => panic!("{src}: expected an error, got {other:?}"),
    }
}

#[test]
fn literals_print_as_ptc_runner_prints_them() {
    assert_eq!(value("nil"), "nil");
    assert_eq!(
        value("[1 -2 3.5 1.0 \"a\\\"b\\n\" :k true]"),
        r#"[1 -2 3.5 1.0 "a\"b\n" :k true]"#
    );
    // Map keys print sorted: numbers, then keywords, then strings.
    assert_eq!(
        value(r#"{"b" 1 :z 2 "a" 3 1 4}"#),
        r#"{1 4 :z 2 "a" 3 "b" 1}"#
    );
    assert_eq!(value("#{3 1 2 1}"), "#{1 2 3}");
    assert_eq!(value("(/ 1.0 0.0)"), "##Inf");
    assert_eq!(value("(+ 1.1 2.2)"), "3.3");
}

#[test]
fn println_formats_like_ptc_runner() {
    // ptc_runner: println_test.exs
    let r = run("(println \"hello\")\n(println \"world\" 42)\n(println {:a 1 :b [2 3]})\n(println #{1 2})\n(println (fn [x] (+ x 1)))");
    assert_eq!(
        r.prints,
        ["hello", "world 42", "{:a 1 :b [2 3]}", "#{1 2}", "#fn[x]"]
    );
}

#[test]
fn println_cuts_a_line_past_2000_characters() {
    let r = run("(println (apply str (map (fn [_] \"ab\") (range 1500))))");
    assert_eq!(r.prints.len(), 1);
    assert!(
        r.prints[0].ends_with("... (2000/3000 chars)"),
        "{}",
        &r.prints[0][1990..]
    );
    assert_eq!(
        r.prints[0].chars().count(),
        2000 + "... (2000/3000 chars)".len()
    );
}

#[test]
fn def_and_defn_persist_in_memory_and_return_vars() {
    let mut it = Interp::new();
    let r = run_in(&mut it, "(def x 41)\n(defn f [y] (inc y))");
    assert!(matches!(r.outcome, Outcome::Value(Value::Var(ref n)) if &**n == "f"));
    let r = run_in(&mut it, "(f x)");
    assert_eq!(r.outcome, Outcome::Value(Value::Int(42)));
    assert_eq!(it.memory().keys().collect::<Vec<_>>(), ["f", "x"]);
    assert_eq!(value("(def x 1)"), "#'x");
}

#[test]
fn let_fn_closures_and_anonymous_shorthand() {
    assert_eq!(value("(let [a 1 b (+ a 1)] (* a b))"), "2");
    assert_eq!(
        value("(let [add (fn [n] (fn [m] (+ n m)))] ((add 2) 3))"),
        "5"
    );
    assert_eq!(value("(mapv #(* % 2) [1 2 3])"), "[2 4 6]");
    assert_eq!(value("(mapv #(+ %1 %2) [1 2] [10 20])"), "[11 22]");
    assert_eq!(
        value("(let [[a b & more] [1 2 3 4]] [a b more])"),
        "[1 2 [3 4]]"
    );
    assert_eq!(value("(let [{:keys [a]} {:a 7}] a)"), "7");
}

#[test]
fn conditionals_and_logic() {
    assert_eq!(value("(if false 1 2)"), "2");
    assert_eq!(value("(if nil 1)"), "nil");
    assert_eq!(value("(when true 1 2)"), "2");
    assert_eq!(value("(cond (= 1 2) :a (= 1 1) :b :else :c)"), ":b");
    assert_eq!(value("(cond false :a :else :c)"), ":c");
    assert_eq!(
        value("[(and 1 nil 2) (or nil false 3) (not nil) (true? 1) (nil? nil) (not= 1 2)]"),
        "[nil 3 true false true true]"
    );
    assert_eq!(value("(do 1 2 3)"), "3");
}

#[test]
fn doseq_runs_its_body_per_item() {
    let r = run("(doseq [x [1 2] y [:a :b]] (println x y))");
    assert_eq!(r.prints, ["1 :a", "1 :b", "2 :a", "2 :b"]);
    assert_eq!(r.outcome, Outcome::Value(Value::Nil));
}

#[test]
fn namespaces_qualified_calls_and_private_helpers() {
    let mut it = Interp::new();
    run_in(&mut it, "(ns lib.x \"doc\" {:visibility :prompt})\n(defn- helper [a] (* a 10))\n(defn twice \"doc\" {:signature \"x\"} [a] (helper (* 2 a)))");
    let r = run_in(&mut it, "(lib.x/twice 2)");
    assert_eq!(r.outcome, Outcome::Value(Value::Int(40)));
    // A prelude's definitions are not the user's memory.
    assert!(it.memory().is_empty());
}

#[test]
fn collection_functions() {
    let recs = r#"(def rs [{"id" "b" "t" 2 "tags" ["x" "y"]} {"id" "a" "t" 1 "tags" ["y"]}])"#;
    let mut it = Interp::new();
    run_in(&mut it, recs);
    let v = |it: &mut Interp, src: &str| match run_in(it, src).outcome {
        Outcome::Value(v) => pr_str(&v),
        other => panic!("{src}: {other:?}"),
    };
    assert_eq!(
        v(&mut it, r#"(mapv #(get % "id") (sort-by #(get % "t") rs))"#),
        r#"["a" "b"]"#
    );
    assert_eq!(
        v(&mut it, r#"(count (filter #(= "a" (get % "id")) rs))"#),
        "1"
    );
    assert_eq!(
        v(&mut it, r#"(distinct (mapcat #(get % "tags") rs))"#),
        r#"["x" "y"]"#
    );
    assert_eq!(v(&mut it, r#"(get-in rs [0 "tags" 1])"#), r#""y""#);
    assert_eq!(v(&mut it, r#"(get-in rs [5 "x"] :none)"#), ":none");
    assert_eq!(
        v(&mut it, r#"(zipmap (map #(get % "id") rs) (range 2))"#),
        r#"{"a" 1 "b" 0}"#
    );
    assert_eq!(v(&mut it, r#"(keys (first rs))"#), r#"["id" "t" "tags"]"#);
    assert_eq!(
        v(&mut it, r#"(select-keys (first rs) ["id" "zz"])"#),
        r#"{"id" "b"}"#
    );
    assert_eq!(v(&mut it, r#"(assoc {} :a 1 :b 2)"#), "{:a 1 :b 2}");
    assert_eq!(
        v(
            &mut it,
            "[(first []) (empty? []) (seq []) (concat [1] [2 3]) (nth [1 2] 1) (drop 1 [1 2 3])]"
        ),
        "[nil true nil [1 2 3] 2 [2 3]]"
    );
    assert_eq!(v(&mut it, "[(keep #(when (> % 1) %) [1 2 3]) (apply max [3 9 2]) (min 4 2) (vec #{2 1}) (contains? {:a nil} :a)]"), "[[2 3] 9 2 [1 2] true]");
    assert_eq!(
        v(
            &mut it,
            r#"[(subs "hello" 1 3) (str "a" 1 nil :k) (clojure.string/split "a,b,,c" ",") (pr-str "q")]"#
        ),
        r#"["el" "a1:k" ["a" "b" "" "c"] "\"q\""]"#
    );
    assert_eq!(
        v(&mut it, r#"(clojure.string/split "a\nb" #"\n")"#),
        r#"["a" "b"]"#
    );
    assert_eq!(v(&mut it, r#"(-> {"a" {"b" 1}} (get "a") (get "b"))"#), "1");
}

#[test]
fn errors_name_their_kind() {
    assert_eq!(error_kind(r#"(get "text" "k")"#), "type_error");
    assert_eq!(error_kind("(undefined-fn 1)"), "unbound_var");
    assert_eq!(error_kind("(subs \"ab\" -1)"), "index_out_of_bounds");
    assert_eq!(error_kind("(+ 9223372036854775807 1)"), "arithmetic_error");
    assert_eq!(error_kind("(1 2)"), "type_error");
    assert_eq!(error_kind("(+ 1"), "parse_error");
}

#[test]
fn return_and_fail_end_the_program() {
    let r = run("(println \"before\")\n(return {:done true})\n(println \"after\")");
    assert_eq!(r.prints, ["before"]);
    assert_eq!(
        r.outcome,
        Outcome::Return(Value::map(vec![(Value::kw("done"), Value::Bool(true))]))
    );
    assert!(matches!(run("(fail :bad)").outcome, Outcome::Fail(_)));
}

#[test]
fn turn_history_names_earlier_results() {
    let mut it = Interp::new();
    run_in(&mut it, "1");
    run_in(&mut it, "2");
    run_in(&mut it, "(get \"x\" 1)");
    assert_eq!(
        run_in(&mut it, "[*1 *2 *3]").outcome,
        Outcome::Value(Value::vector(vec![
            Value::Int(2),
            Value::Int(1),
            Value::Nil
        ]))
    );
}

#[test]
fn surplus_closing_delimiters_after_top_level_forms_are_passed_over() {
    // The ptc_runner version that recorded the shared Kernel runs accepted them.
    assert_eq!(value("(def x 1)\nx)"), "1");
}

#[test]
fn hostile_programs_are_refused_not_run_forever() {
    assert_eq!(error_kind("(defn f [x] (f x))\n(f 1)"), "recursion_limit");
    assert_eq!(error_kind("(count (range 100000000000))"), "memory_limit");
    assert_eq!(
        error_kind("(mapv (fn [_] (mapv inc (range 1000))) (range 3000))"),
        "step_limit"
    );
    assert_eq!(error_kind("(def s \"xxxxxxxxxx\")\n(defn grow [s n] (if (= n 0) s (grow (str s s) (dec n))))\n(count (grow s 40))"), "memory_limit");
    let deep = format!("{}1{}", "(do ".repeat(5000), ")".repeat(5000));
    assert_eq!(error_kind(&deep), "parse_error");
}

#[test]
fn programs_have_no_file_network_or_process_access() {
    for src in [
        "(slurp \"/etc/passwd\")",
        "(spit \"x\" 1)",
        "(sh \"ls\")",
        "(System/exit 1)",
        "(eval '(+ 1 2))",
    ] {
        assert_eq!(error_kind(src), "unbound_var", "{src}");
    }
    // The only way out is a capability call, which the caller answers (here: refuses).
    assert_eq!(
        error_kind("(tool/fetch {\"url\" \"http://x\"})"),
        "capability_error"
    );
}

#[test]
fn loop_and_recur_in_loops_and_functions() {
    assert_eq!(
        value("(loop [i 0 acc []] (if (< i 3) (recur (inc i) (conj acc i)) acc))"),
        "[0 1 2]"
    );
    assert_eq!(
        value("(defn count-down [n] (if (zero? n) :done (recur (dec n))))\n(count-down 10000)"),
        ":done"
    );
    assert_eq!(error_kind("(loop [i 0] (recur i))"), "step_limit");
}

#[test]
fn functions_ptc_runner_gives_its_own_meaning() {
    // Negative counts take and drop from the end.
    assert_eq!(
        value("[(take -2 [1 2 3]) (drop -2 [1 2 3]) (take-last 2 [1 2 3])]"),
        "[[2 3] [1] [2 3]]"
    );
    // An end past the string is clamped.
    assert_eq!(value("(subs \"abc\" 1 10)"), "\"bc\"");
    assert_eq!(
        value("[(min \"b\" \"a\") (max 1 2.5) (compare nil 1) (compare \"b\" \"a\")]"),
        "[\"a\" 2.5 -1 1]"
    );
    assert_eq!(
        value("[(type {}) (type []) (type \"s\") (type 1) (type nil)]"),
        "[:map :vector :string :number nil]"
    );
    assert_eq!(
        value("(sort-by identity (fn [a b] (compare b a)) [1 3 2])"),
        "[3 2 1]"
    );
    assert_eq!(value("(.contains \"abc\" \"b\")"), "true");
    assert_eq!(error_kind("{\"k\" 1 \"k\" 2}"), "duplicate_key");
    assert_eq!(error_kind("@x"), "parse_error");
    assert_eq!(error_kind("(keys [1])"), "type_error");
    assert_eq!(error_kind("(subs nil 0 1)"), "type_error");
}

#[test]
fn regexes_find_match_split_and_replace_as_ptc_runner() {
    // Outputs checked against ptc_runner's interpreter (Erlang's `re`).
    let cases = [
        (r##"(clojure.string/split "a.b" #"\.")"##, r##"["a" "b"]"##),
        (
            r##"(clojure.string/split "a1b22c" #"\d+")"##,
            r##"["a" "b" "c"]"##,
        ),
        (
            r##"(re-find #"Statement (\d+)" "x Statement 42.")"##,
            r##"["Statement 42" "42"]"##,
        ),
        (r##"(re-find #"\d+" "ab12")"##, r##""12""##),
        (r##"(re-find #"(a)|(b)" "b")"##, r##"["b" "" "b"]"##),
        (r##"(re-find #"x(a)?" "x")"##, r##""x""##),
        (r##"(re-find #"\d" "abc")"##, "nil"),
        (r##"(re-matches #"\d+" "123a")"##, "nil"),
        (r##"(re-matches #"[a-z]+(\d)" "ab1")"##, r##"["ab1" "1"]"##),
        (
            r##"(re-seq #"(\d)(\w)" "1a2b")"##,
            r##"[["1a" "1" "a"] ["2b" "2" "b"]]"##,
        ),
        (r##"(re-seq #"a*" "baa")"##, r##"["" "aa" ""]"##),
        (r##"(re-split #"\s+" " a  b ")"##, r##"["" "a" "b" ""]"##),
        (r##"(re-split #"(,)" "a,b")"##, r##"["a" "," "b"]"##),
        (r##"(re-split #"a*" "baac")"##, r##"["b" "c" ""]"##),
        (
            r##"(clojure.string/replace "a1b2" #"(\d)" "<&\\1>")"##,
            r##""a<11>b<22>""##,
        ),
        (
            r##"(re-find (re-pattern "(?i)\\w+") "Été!")"##,
            r##""Été""##,
        ),
        (
            r##"[(pr-str #"a\d") (type #"a") (regex? #"a") (regex? "a")]"##,
            r##"["#\"a\\d\"" :regex true false]"##,
        ),
    ];
    for (program, printed) in cases {
        assert_eq!(value(program), printed, "{program}");
    }
    assert_eq!(error_kind(r##"(re-find "a" "abc")"##), "type_error");
    assert_eq!(error_kind(r##"(re-pattern #"a")"##), "type_error");
    assert_eq!(error_kind(r##"#"(""##), "invalid_form");
    // What needs backtracking is refused rather than run.
    assert_eq!(error_kind(r##"#"(a)\1""##), "invalid_form");
    assert_eq!(error_kind(r##"#"a(?=b)""##), "invalid_form");
}

#[test]
fn a_regex_is_bounded_in_pattern_size_and_input() {
    let long = format!(r#"(re-pattern "{}")"#, "a".repeat(257));
    assert_eq!(error_kind(&long), "argument_error");
    assert_eq!(
        error_kind(r#"(re-pattern "((a{100}){100}){100}")"#),
        "argument_error"
    );
    // ptc_runner reads the first 32,768 bytes of an input.
    assert_eq!(
        value(r##"(count (re-seq #"a" (apply str (map (fn [_] "a") (range 40000)))))"##),
        "32768"
    );
}

// Differences the differential check against ptc_runner's interpreter found.
#[test]
fn division_always_yields_a_float_as_in_ptc_runner() {
    assert_eq!(value("(/ 2 2)"), "1.0");
    assert_eq!(value("(/ 6 3 2)"), "1.0");
    assert_eq!(error_kind("(/ 1 0)"), "arithmetic_error");
}

#[test]
fn keys_and_vals_of_an_empty_map_are_an_empty_vector() {
    assert_eq!(value("(keys {})"), "[]");
    assert_eq!(value("(vals {})"), "[]");
    assert_eq!(value("(keys nil)"), "nil");
}

#[test]
fn subs_clamps_a_start_past_the_end() {
    assert_eq!(value(r#"(subs "" 1)"#), r#""""#);
    assert_eq!(value(r#"(subs "c" 2)"#), r#""""#);
    assert_eq!(value(r#"(subs "abc" 5 9)"#), r#""""#);
}

#[test]
fn rem_and_double_as_in_ptc_runner() {
    assert_eq!(
        value("[(rem 7 3) (rem -7 3) (rem 7 -3) (mod -7 3)]"),
        "[1 -1 1 2]"
    );
    assert_eq!(value("(double 11)"), "11.0");
    assert_eq!(error_kind("(rem 1 0)"), "arithmetic_error");
}

#[test]
fn even_and_odd_are_false_for_what_is_not_a_whole_number() {
    assert_eq!(value("(filterv odd? [1 2.5 3.0 4 \"x\"])"), "[1 3.0]");
    assert_eq!(value("(filterv even? [1 2.5 4.0 4 nil])"), "[4.0 4]");
}

#[test]
fn a_boolean_map_key_prints_as_a_keyword_as_in_ptc_runner() {
    assert_eq!(
        value("(pr-str (group-by odd? [1 2]))"),
        r#""{:false [2] :true [1]}""#
    );
    assert_eq!(value("(keys (group-by odd? [1]))"), "[true]");
}

#[test]
fn partial_and_fnil_make_functions_of_functions() {
    // ptc_runner: predicates.ex doctests (fnil replaces a nil first argument only).
    assert_eq!(value("((fnil + 0) nil 5)"), "5");
    assert_eq!(value("((fnil + 0) 3 5)"), "8");
    assert_eq!(value("((fnil (fn [a b] [a b]) :d) 1 nil)"), "[1 nil]");
    assert_eq!(value("(update {:a nil} :a (fnil inc 0))"), "{:a 1}");
    assert_eq!(value("(update {} :n (fnil + 10) 5)"), "{:n 15}");
    assert_eq!(value("((partial + 1 2) 3 4)"), "10");
    assert_eq!(value("(mapv (partial * 2) [1 2 3])"), "[2 4 6]");
    assert_eq!(value("((partial str))"), "\"\"");
    assert_eq!(value("((fnil (partial + 1) 0) nil)"), "1");
    assert_eq!(
        value("(pr-str (partial + 1) (fnil inc 0))"),
        "\"#fn[...] #fn[...]\""
    );
    assert_eq!(error_kind("(fnil 1 0)"), error_kind("(fnil)"));
}

#[test]
fn doc_prints_a_prelude_definition_as_ptc_runner_does() {
    let prelude = r#"(ns acme.tools "Tools." {:visibility :prompt})
(defn- helper [x] (tool/store.get {"id" x}))
(defn fetch
  "Fetch one.
  Second line.

  After a blank line."
  {:signature "(id :string) -> :map"}
  [id]
  (helper id))
(defn pure "Adds." [a b] (+ a b))
(defn writer "Writes." {:effect :write} [x] x)
(defn reader "Reads." {:effect :read} [x & more] (pure x 1))
(defn mixed [x {:keys [a]} & r] a)
(def limit 5)"#;
    let mut it = Interp::new();
    it.run_prelude(prelude, Budget::default(), Box::new(NoCalls));
    let doc = |it: &mut Interp, r: &str| {
        let t = run_in(it, &format!("(doc {r:?})"));
        assert_eq!(t.outcome, Outcome::Value(Value::Nil), "{r}");
        t.prints.join("\n")
    };
    // Expected texts: ptc_runner's interpreter on the same prelude.
    assert_eq!(
        doc(&mut it, "acme.tools/fetch"),
        "acme.tools/fetch\n(acme.tools/fetch id)\n  (id :string) -> :map\n  effect: unknown\n\n  Fetch one.\n    Second line.\n\n    After a blank line."
    );
    assert_eq!(
        doc(&mut it, "acme.tools/pure"),
        "acme.tools/pure\n(acme.tools/pure a b)\n  effect: unknown\n\n  Adds."
    );
    assert_eq!(
        doc(&mut it, "acme.tools/writer"),
        "acme.tools/writer\n(acme.tools/writer x)\n  effect: write\n\n  Writes."
    );
    assert_eq!(
        doc(&mut it, "acme.tools/reader"),
        "acme.tools/reader\n(acme.tools/reader x & more)\n  effect: read\n\n  Reads."
    );
    assert_eq!(
        doc(&mut it, "acme.tools/mixed"),
        "acme.tools/mixed\n(acme.tools/mixed x arg2 & r)\n  effect: unknown"
    );
    assert_eq!(
        doc(&mut it, "acme.tools/limit"),
        "acme.tools/limit\nacme.tools/limit\n  effect: unknown"
    );
    assert_eq!(
        doc(&mut it, "acme.tools/helper"),
        "No documentation found for \"acme.tools/helper\"."
    );
    // A program's own definitions are not a prelude's exports.
    run_in(&mut it, "(defn mine \"x\" [a] a)");
    assert_eq!(
        doc(&mut it, "user/mine"),
        "No documentation found for \"user/mine\"."
    );
    assert_eq!(error_kind("(doc 1)"), "type_error");
}

#[test]
fn split_on_a_string_keeps_trailing_parts_and_takes_one_character_as_ptc_runner() {
    assert_eq!(
        value(r#"(clojure.string/split "a,b," ",")"#),
        r#"["a" "b" ""]"#
    );
    assert_eq!(value(r#"(clojure.string/split "hé" "")"#), r#"["h" "é"]"#);
    assert_eq!(value(r#"(clojure.string/split "" ",")"#), r#"[""]"#);
    assert_eq!(
        error_kind(r#"(clojure.string/split "a--b" "--")"#),
        "type_error"
    );
}

#[test]
fn mod_quot_and_rem_of_floats_and_negative_divisors_as_in_ptc_runner() {
    assert_eq!(
        value("[(mod 7 -3) (mod -7 -3) (mod 6 -3) (quot -7 2)]"),
        "[-2 -1 0 -3]"
    );
    assert_eq!(
        value("[(quot 21.5 -2) (quot 7.5 2) (mod -7.5 2) (rem -7.5 2) (mod 7 2.0)]"),
        "[-10 3 0.5 -1.5 1.0]"
    );
    assert_eq!(value("(mod 1.0 ##Inf)"), "##NaN");
    assert_eq!(error_kind("(quot 1 0.0)"), "arithmetic_error");
}

#[test]
fn a_set_prints_integers_before_floats_as_in_ptc_runner() {
    assert_eq!(value("(set [2.5 10 3])"), "#{3 10 2.5}");
    assert_eq!(
        value(r#"#{1.5 1 "a" :k -2.0 7}"#),
        r#"#{1 7 -2.0 1.5 :k "a"}"#
    );
}

#[test]
fn keys_are_found_flexibly_as_in_ptc_runner() {
    // A keyword finds a string key and a string a keyword key; `-` also finds `_` in a
    // string key. `update` and `assoc` use the key itself.
    assert_eq!(
        value(r#"[(get {"a" 1} :a) (:a {"a" 1}) ({"a" 1} :a) (get {:a 1} "a")]"#),
        "[1 1 1 1]"
    );
    assert_eq!(value(r#"(get-in {"a" {"b" 2}} [:a :b])"#), "2");
    assert_eq!(value(r#"(contains? {"a" 1} :a)"#), "true");
    assert_eq!(value(r#"(get {"turn_count" 3} :turn-count)"#), "3");
    assert_eq!(value(r#"(get {:turn_count 3} :turn-count)"#), "nil");
    assert_eq!(
        value(r#"(select-keys {"a" 1 :b 2} [:a :b])"#),
        "{:a 1 :b 2}"
    );
    assert_eq!(value(r#"(assoc {"a" 1} :a 2)"#), r#"{:a 2 "a" 1}"#);
    assert_eq!(error_kind(r#"(update {"a" 1} :a inc)"#), "type_error");
    // An integer key is not found by a float.
    assert_eq!(
        value("[(get {1 2} 1.0) (contains? {1 2} 1.0)]"),
        "[nil false]"
    );
}

#[test]
fn println_joins_a_list_of_characters_and_take_last_and_join_as_in_ptc_runner() {
    let printed = |src: &str| run(src).prints.join("\n");
    assert_eq!(
        printed(r#"(println "x" (clojure.string/split "a,b" ",") ["ab" "c"] [])"#),
        r#"x ab ["ab" "c"] []"#
    );
    assert_eq!(
        printed(r#"(println (take 3 "hello") #{"a"})"#),
        r#"hel #{"a"}"#
    );
    assert_eq!(
        value("[(take-last 0 [1]) (take-last 0 []) (take-last 2 []) (take-last 5 [1 2])]"),
        "[[] [] nil [1 2]]"
    );
    assert_eq!(error_kind(r#"(clojure.string/join "," nil)"#), "type_error");
}
