//! The used-next and evidence categories of retention: per prompt, the names and the literals
//! of the history that the next recorded program uses (see the parent module for the exact
//! rules).

use memchr::memmem::Finder;
use ptc_plugin_api::{Run, Turn, Value};
use ptc_strategy_kit::is_private_key;
use rustc_hash::FxHashMap;
use smallvec::{smallvec, SmallVec};

use super::return_type::return_keys;
use super::{is_fact_name, reader, Finders};
use reader::Literal;

/// Per prompt, its facts, each as the needles any of which shows it.
pub(super) type PerPrompt = Vec<Vec<Vec<Finder<'static>>>>;

/// Sets of names, hashed with rustc's fast hash: every keyword of every value is looked up.
type HashSet<T> = rustc_hash::FxHashSet<T>;

/// What the history of a prompt holds that a program may use.
struct Known<'a> {
    data: HashSet<&'a str>,
    tools: HashSet<&'a str>,
    /// The names of the memory of the last successful turn.
    memory: HashSet<&'a str>,
    /// The keywords of that memory's values.
    memory_keywords: HashSet<&'a str>,
    /// The keywords of the data, and of the results and tool calls of the turns so far.
    keywords: HashSet<&'a str>,
    /// Per bare key of a tool's return type: the return types that name it, as a prompt may
    /// show them (as written after `->`, and without the `:`s as the strategies print it).
    return_keys: FxHashMap<&'a str, Vec<String>>,
}

impl<'a> Known<'a> {
    /// The needles of the fact `symbol` names, if it names one.
    fn symbol(&self, symbol: &str) -> Option<Vec<String>> {
        let user = |name: &str| self.memory.contains(name).then(|| vec![name.to_owned()]);
        let data = |name: &str| {
            self.data
                .contains(name)
                .then(|| vec![format!("data/{name}")])
        };
        let tool = |name: &str| {
            self.tools
                .contains(name)
                .then(|| vec![format!("tool/{name}"), name.to_owned()])
        };
        if let Some(name) = symbol.strip_prefix("user/") {
            user(name)
        } else if let Some(name) = symbol.strip_prefix("data/") {
            data(name)
        } else if let Some(name) = symbol.strip_prefix("tool/") {
            tool(name)
        } else if self.data.contains(symbol) && self.tools.contains(symbol) {
            user(symbol)
        } else {
            user(symbol)
                .or_else(|| data(symbol))
                .or_else(|| tool(symbol))
        }
    }

    /// The needles of keyword `:name`, if it is a fact: the keyword, and every return type
    /// of a tool that names `name` as a bare key (`-> {page int}` shows `:page`).
    fn keyword(&self, name: &str) -> Option<Vec<String>> {
        if !(self.keywords.contains(name) || self.memory_keywords.contains(name)) {
            return None;
        }
        let mut needles = vec![format!(":{name}")];
        needles.extend(self.return_keys.get(name).into_iter().flatten().cloned());
        Some(needles)
    }
}

/// Per turn `k`: the names of the first `k` turns that the program of turn `k + 1` uses, and
/// the literals it uses that the tool results of those turns held (its evidence). `turns` are
/// as the host reads them, each with its `defined` filled.
pub(super) fn used_next(run: &Run, turns: &[Turn]) -> (PerPrompt, PerPrompt) {
    let programs: Vec<Option<reader::Names<'_>>> = turns
        .iter()
        .map(|t| t.program.as_ref().into_option().map(|p| reader::names(p)))
        .collect();
    // Values are searched only for the keywords some program uses.
    let wanted: HashSet<&str> = programs
        .iter()
        .flatten()
        .flat_map(|names| names.keywords.iter().copied())
        .filter(|name| is_fact_name(name))
        .collect();
    // Results are searched only for the literals some program uses.
    let wanted_literals: HashSet<Literal<'_>> = programs
        .iter()
        .flatten()
        .flat_map(|names| names.literals.iter().copied())
        .collect();
    // The literals of `wanted_literals` the tool results so far held.
    let mut results: HashSet<Literal<'_>> = HashSet::default();
    let mut known = Known {
        data: HashSet::default(),
        tools: run
            .tools
            .iter()
            .map(|t| t.name.as_str())
            .filter(|name| is_fact_name(name))
            .collect(),
        memory: HashSet::default(),
        memory_keywords: HashSet::default(),
        keywords: HashSet::default(),
        return_keys: return_keys(run),
    };
    for entry in run.data.iter().filter(|e| is_fact_name(&e.0)) {
        known.data.insert(entry.0.as_str());
        keywords_in(&entry.1, &wanted, &mut known.keywords);
    }
    // The keywords of each entry of the memory of the last successful turn, by name.
    let mut entry_keywords: FxHashMap<&str, Vec<&str>> = FxHashMap::default();
    let mut used = Vec::with_capacity(turns.len());
    let mut evidence = Vec::with_capacity(turns.len());
    let mut finders = Finders::default();
    for (turn, names) in turns.iter().zip(&programs) {
        let mut seen_literals = HashSet::default();
        evidence.push(
            names
                .iter()
                .flat_map(|names| names.literals.iter())
                .filter(|literal| results.contains(*literal) && seen_literals.insert(**literal))
                .map(|literal| vec![finders.of(&literal_needle(literal))])
                .collect(),
        );
        let mut seen = HashSet::default();
        let facts = names.iter().flat_map(|names| {
            let symbols = names.symbols.iter().filter_map(|s| known.symbol(s));
            let keywords = names.keywords.iter().filter_map(|k| known.keyword(k));
            symbols.chain(keywords)
        });
        used.push(
            facts
                .filter(|needles| seen.insert(needles[0].clone()))
                .map(|needles| needles.iter().map(|n| finders.of(n)).collect())
                .collect(),
        );
        // This turn joins the history of the next prompt.
        keywords_in(&turn.result, &wanted, &mut known.keywords);
        for call in turn.tool_calls.iter() {
            keywords_in(&call.args, &wanted, &mut known.keywords);
            keywords_in(&call.result, &wanted, &mut known.keywords);
            literals_in(&call.result, &wanted_literals, &mut results);
        }
        if turn.success {
            known.memory.clear();
            known.memory_keywords.clear();
            let mut defined = turn.defined.iter().map(|&i| i as usize).peekable();
            let mut next = FxHashMap::default();
            for (i, entry) in turn.memory.iter().enumerate() {
                let redefined = defined.next_if_eq(&i).is_some();
                if !is_fact_name(&entry.0) {
                    continue;
                }
                let name = entry.0.as_str();
                known.memory.insert(name);
                // An entry the turn did not define holds the value it held before.
                let keywords = match entry_keywords.remove(name) {
                    Some(keywords) if !redefined => keywords,
                    _ => {
                        let mut found = HashSet::default();
                        keywords_in(&entry.1, &wanted, &mut found);
                        found.into_iter().collect()
                    }
                };
                known.memory_keywords.extend(keywords.iter().copied());
                next.insert(name, keywords);
            }
            entry_keywords = next;
        }
    }
    (used, evidence)
}

/// How a prompt shows `literal`: a string's text (a prompt prints it between quotes), an
/// integer in decimal.
fn literal_needle(literal: &Literal<'_>) -> String {
    match literal {
        Literal::String(text) => (*text).to_owned(),
        Literal::Integer(i) => i.to_string(),
    }
}

/// Adds to `found` the literals of `wanted` that `value` holds, as a whole string or integer,
/// value or map key, at any depth, leaving out the entries under a private key.
fn literals_in<'a>(
    value: &'a Value,
    wanted: &HashSet<Literal<'a>>,
    found: &mut HashSet<Literal<'a>>,
) {
    if wanted.is_empty() {
        return;
    }
    // Most values nest a few levels: their stack stays in place.
    let mut stack: SmallVec<[&Value; 16]> = smallvec![value];
    while let Some(value) = stack.pop() {
        let literal = match value {
            Value::String(s) => wanted.get(&Literal::String(s.as_str())).copied(),
            Value::Integer(i) => wanted.get(&Literal::Integer(*i)).copied(),
            Value::List(items) | Value::Set(items) => {
                stack.extend(items.iter());
                None
            }
            Value::Map(entries) => {
                for entry in entries.iter().filter(|e| !is_private_key(&e.0)) {
                    stack.push(&entry.0);
                    stack.push(&entry.1);
                }
                None
            }
            _ => None,
        };
        found.extend(literal);
    }
}

/// Adds to `found` the keywords of `wanted` that `value` holds, as a value or a map key at any
/// depth, leaving out the entries under a private key.
fn keywords_in<'a>(value: &'a Value, wanted: &HashSet<&str>, found: &mut HashSet<&'a str>) {
    if wanted.is_empty() {
        return;
    }
    // Most values nest a few levels: their stack stays in place.
    let mut stack: SmallVec<[&Value; 16]> = smallvec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::Keyword(name) if wanted.contains(name.as_str()) => {
                found.insert(name.as_str());
            }
            Value::List(items) | Value::Set(items) => stack.extend(items.iter()),
            Value::Map(entries) => {
                for entry in entries.iter().filter(|e| !is_private_key(&e.0)) {
                    stack.push(&entry.0);
                    stack.push(&entry.1);
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use ptc_plugin_api::Value;

    use super::super::tests::{call, failed, kw, map, memory, program, run, set, turn};
    use super::*;

    fn strings(set: &[&str]) -> HashSet<&'static str> {
        set.iter()
            .map(|s| &*Box::leak(s.to_string().into_boxed_str()))
            .collect()
    }

    /// The needles of every fact, per prompt, of `turns` as the host reads them.
    fn facts(run: &Run, turns: &[Turn]) -> Vec<Vec<Vec<String>>> {
        let mut turns = turns.to_vec();
        ptc_strategy_kit::mark_defined(&mut turns);
        used_next(run, &turns)
            .0
            .iter()
            .map(|facts| {
                facts
                    .iter()
                    .map(|needles| {
                        needles
                            .iter()
                            .map(|n| String::from_utf8_lossy(n.needle()).into_owned())
                            .collect()
                    })
                    .collect()
            })
            .collect()
    }

    fn known() -> Known<'static> {
        Known {
            data: strings(&["orders", "both"]),
            tools: strings(&["send", "both"]),
            memory: strings(&["total", "orders", "send"]),
            memory_keywords: strings(&["from-memory"]),
            keywords: strings(&["from-values"]),
            return_keys: FxHashMap::default(),
        }
    }

    #[test]
    fn symbols_resolve_as_the_interpreter_resolves_them() {
        let k = known();
        let one = |s: &str| Some(vec![s.to_owned()]);
        let tool = |s: &str| Some(vec![format!("tool/{s}"), s.to_owned()]);
        assert_eq!(k.symbol("total"), one("total"));
        assert_eq!(k.symbol("user/total"), one("total"));
        assert_eq!(k.symbol("user/nope"), None);
        assert_eq!(k.symbol("data/orders"), one("data/orders"));
        assert_eq!(k.symbol("data/total"), None);
        assert_eq!(k.symbol("tool/send"), tool("send"));
        assert_eq!(k.symbol("tool/total"), None);
        // A bare name: memory first, then data, then tools.
        assert_eq!(k.symbol("orders"), one("orders"));
        assert_eq!(k.symbol("send"), one("send"));
        assert_eq!(k.symbol("both"), None, "data and tool: ambiguous");
        assert_eq!(k.symbol("other/orders"), None);
        assert_eq!(k.symbol("nope"), None);
        let mut k = known();
        k.memory.clear();
        assert_eq!(k.symbol("orders"), one("data/orders"));
        assert_eq!(k.symbol("send"), tool("send"));
        k.memory.insert("both");
        assert_eq!(k.symbol("both"), one("both"), "a definition shadows both");
    }

    #[test]
    fn keywords_are_facts_when_a_value_or_the_memory_holds_them() {
        let k = known();
        assert_eq!(k.keyword("from-memory"), Some(vec![":from-memory".into()]));
        assert_eq!(k.keyword("from-values"), Some(vec![":from-values".into()]));
        assert_eq!(k.keyword("nope"), None);
    }

    #[test]
    fn keywords_are_found_at_any_depth_but_not_under_a_private_key() {
        let value = map(vec![
            (kw("a"), Value::List(vec![set(vec![kw("b")])].into())),
            (kw("c"), map(vec![(kw("d"), kw("e"))])),
            (kw("_p"), kw("f")),
            (Value::string("_q"), map(vec![(kw("g"), Value::Nil)])),
            (Value::string("h"), kw("i")),
        ]);
        let wanted = strings(&["a", "b", "c", "d", "e", "f", "g", "i", "z"]);
        let mut found = HashSet::default();
        keywords_in(&value, &wanted, &mut found);
        assert_eq!(found, strings(&["a", "b", "c", "d", "e", "i"]));
        let mut found = HashSet::default();
        keywords_in(&value, &strings(&["a"]), &mut found);
        assert_eq!(found, strings(&["a"]), "only what is wanted");
        let mut found = HashSet::default();
        keywords_in(&value, &HashSet::default(), &mut found);
        assert!(found.is_empty());
    }

    /// Turn by turn, which history each fact comes from.
    fn recording() -> (Run, Vec<Turn>) {
        let run = run(
            &["get-order", "notify", "products", "_secret"],
            vec![
                (
                    "products",
                    Value::List(
                        vec![map(vec![
                            (kw("price"), Value::Integer(1)),
                            (kw("tags"), set(vec![kw("sale")])),
                            (kw("_cost"), kw("secret-kw")),
                        ])]
                        .into(),
                    ),
                ),
                ("config", map(vec![(kw("budget"), Value::Integer(10))])),
                ("_key", map(vec![(kw("hidden"), Value::Integer(1))])),
            ],
        );
        let mut t1 = memory(
            program(
                turn(1),
                "(def picks (filter #(< (:price %) (:budget data/config)) data/products))\n\
                 (tool/get-order {:id 1}) (:sale x) (:hidden x) (:secret-kw x) data/_key (tool/_secret)",
            ),
            vec![
                ("picks", Value::List(vec![map(vec![(kw("picked"), Value::Boolean(true))])].into())),
                ("_tmp", map(vec![(kw("inner"), Value::Integer(1))])),
            ],
        );
        t1.tool_calls = vec![call(
            "get-order",
            map(vec![(kw("id"), Value::Integer(1))]),
            map(vec![
                (kw("status"), kw("shipped")),
                (kw("_internal"), kw("x")),
            ]),
        )]
        .into();
        t1.result = map(vec![(kw("answer"), kw("done"))]);
        let mut t2 = memory(
            program(
                failed(2, Some("boom")),
                "(tool/notify {:level :urgent :id (:status user/picks)}) (products) _tmp \
                 (get-order 2) :inner :shipped :_internal :x :answer :picked notify config",
            ),
            vec![("bogus", Value::Nil)],
        );
        t2.tool_calls = vec![call(
            "notify",
            map(vec![(kw("level"), kw("urgent"))]),
            Value::Nil,
        )]
        .into();
        let t3 = memory(
            program(turn(3), "(count picks) bogus picks"),
            vec![("total", Value::Integer(3))],
        );
        let t4 = program(
            turn(4),
            "(+ total picks bogus) (:picked p) (:level x) (:urgent y)",
        );
        let t5 = turn(5);
        (run, vec![t1, t2, t3, t4, t5])
    }

    #[test]
    fn each_prompt_gets_the_facts_of_its_history_that_the_next_program_uses() {
        let (run, turns) = recording();
        let facts = facts(&run, &turns);
        let one = |s: &str| vec![s.to_owned()];
        let tool = |s: &str| vec![format!("tool/{s}"), s.to_owned()];
        assert_eq!(facts.len(), 5);
        // Before turn 1, only the data and the tools: the `:price`, `:budget` and `:sale` of
        // the data; not `:id` (a later call's argument), nor the private key, tool and
        // keywords held under private keys; `picks` is defined, not used.
        assert_eq!(
            facts[0],
            [
                one("data/config"),
                one("data/products"),
                tool("get-order"),
                one(":price"),
                one(":budget"),
                one(":sale"),
            ]
        );
        // Before turn 2: the first turn's memory, call and result, each name once; not what
        // is private, nor `products` (a data key and a tool), nor this turn's own `:level`.
        assert_eq!(
            facts[1],
            [
                tool("notify"),
                one("picks"),
                tool("get-order"),
                one("data/config"),
                one(":id"),
                one(":status"),
                one(":shipped"),
                one(":answer"),
                one(":picked"),
            ]
        );
        // Before turn 3: the failed turn's memory is no memory; its call's keywords are
        // values (`:level`, `:urgent`), but this program uses none.
        assert_eq!(facts[2], [one("picks")]);
        // Before turn 4: the third turn's memory replaced the first's, with its keywords.
        assert_eq!(facts[3], [one("total"), one(":level"), one(":urgent")]);
        assert!(facts[4].is_empty(), "no program");
    }

    #[test]
    fn a_program_is_read_once_per_name_and_a_recording_without_programs_has_no_facts() {
        let (run, mut turns) = recording();
        for t in &mut turns {
            t.program = ptc_plugin_api::abi_stable::std_types::ROption::RNone;
        }
        assert!(facts(&run, &turns).iter().all(Vec::is_empty));
        assert!(facts(&run, &[]).is_empty());
    }

    /// The memory's keywords are those of the values of the last successful turn: a name
    /// redefined to a value without a keyword loses it, a name kept keeps it, and a failed
    /// turn changes nothing.
    #[test]
    fn the_memory_keywords_follow_redefinitions() {
        let uses = "(list :a :b :c)";
        let turns = vec![
            program(
                memory(
                    turn(1),
                    vec![
                        ("x", map(vec![(kw("a"), Value::Integer(1))])),
                        ("y", kw("b")),
                    ],
                ),
                "(def x 1)",
            ),
            program(
                memory(
                    turn(2),
                    vec![
                        ("x", map(vec![(kw("c"), Value::Integer(1))])),
                        ("y", kw("b")),
                    ],
                ),
                uses,
            ),
            program(memory(failed(3, None), vec![("x", kw("a"))]), uses),
            program(turn(4), uses),
        ];
        let run = run(&[], vec![]);
        let facts = facts(&run, &turns);
        // After turn 1 (the prompt turn 2's program answered): :a and :b.
        assert_eq!(facts[1], [vec![":a".to_owned()], vec![":b".to_owned()]]);
        // After turn 2, and after the failed turn 3: :b kept, :c from the redefined x.
        assert_eq!(facts[2], [vec![":b".to_owned()], vec![":c".to_owned()]]);
        assert_eq!(facts[3], [vec![":b".to_owned()], vec![":c".to_owned()]]);
    }
}
