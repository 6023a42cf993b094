//! Generates recorded runs of simulated PTC-Lisp agents, deterministic from a seed, for
//! benchmarks and for trying strategies at scale.
//!
//! ```sh
//! cargo run --release -p ptc-host --example generate_corpus -- --count 10000 --turns 20 --seed 7 --out /tmp/corpus
//! ```
//!
//! The `gen-*.json` recordings in `examples/recordings/` were made with
//! `--count 30 --seed 2026 --pretty`.
//!
//! `--style lean` (the default) writes one fixed line of reasoning and the bare program of each
//! step. `--style realistic` writes what a model writes: a plan of two or three sentences about
//! the step, a comment, multi-line pipelines and a guard that checks the result. It is
//! calibrated on the hand-written recordings in `examples/recordings/` (a response of ~540
//! characters, a program of ~380, against ~225 and ~160 for `lean`); the effects of a turn
//! (definitions, calls, prints) are the same in both styles for the same seed.
//!
//! Six task families: data exploration and filtering, action tools returning nil
//! (notifications), search then summarise, multi-step aggregation, errors and recovery, long
//! runs that reach their final turn. Each turn's program is built from the steps it takes, so
//! its effects match it: every `def` appears in the memory, every tool call in the program,
//! every `println` in the prints; failed turns carry real-looking errors and add no
//! definitions.
//!
//! `--calls-per-turn N` gives every turn that succeeds and is not the last exactly N tool
//! calls (a family's own 0 to 3 calls, cut or topped up with lookups, order queries, rates,
//! searches and notifications, each result bound to a name of its own). Without it (or with
//! 0) each family makes its own calls, and the output is what it was before the option
//! existed, byte for byte.

use std::fmt::Write as _;
use std::path::PathBuf;

use serde_json::{json, Map, Value as Json};

/// SplitMix64: small, fast, and the same sequence on every platform.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

const CITIES: &[&str] = &[
    "Zürich", "Genève", "Basel", "Bern", "Lausanne", "Lugano", "Köln", "München",
];
const FIRST: &[&str] = &[
    "Anna", "Luc", "Sofia", "Jonas", "Mia", "Noah", "Léa", "Elias", "Zoë", "Marco",
];
const LAST: &[&str] = &[
    "Müller", "Favre", "Rossi", "Meier", "Keller", "Weber", "Brunner", "Dubois",
];
const PRODUCTS: &[&str] = &[
    "Espresso Machine",
    "Pour-Over Kettle",
    "Noise-Cancelling Headphones",
    "USB-C Dock",
    "Trail Shoes",
    "Ultralight Tent",
    "Cast Iron Skillet",
    "Mechanical Keyboard",
    "Standing Desk",
    "Headlamp",
];
const CATEGORIES: &[&str] = &["kitchen", "electronics", "outdoor", "office"];
const TOPICS: &[&str] = &[
    "refund policy",
    "late deliveries",
    "VAT rates",
    "warranty claims",
    "shipping to Italy",
    "bulk discounts",
];
const ERRORS: &[(&str, &str)] = &[
    ("eval_error", "undefined symbol: totl"),
    ("eval_error", "Cannot call nil as a function"),
    (
        "eval_error",
        "Wrong number of args (3) passed to: user/summarize",
    ),
    (
        "parse_error",
        "Unexpected end of input: unbalanced parenthesis",
    ),
    (
        "eval_error",
        "class java.lang.String cannot be cast to class java.lang.Number",
    ),
    ("timeout", ""),
];

fn person(rng: &mut Rng) -> String {
    format!("{} {}", rng.pick(FIRST), rng.pick(LAST))
}

fn kw(name: &str) -> Json {
    json!({ "$kw": name })
}

fn products(rng: &mut Rng, n: usize) -> Json {
    Json::Array(
        (0..n)
            .map(|i| {
                json!({
                    ":id": 1000 + i,
                    ":name": format!("{} {}", rng.pick(PRODUCTS), i % 7),
                    ":category": kw(rng.pick(CATEGORIES)),
                    ":price": (rng.below(40_000) as f64) / 100.0 + 0.5,
                    ":stock": rng.below(30),
                    ":rating": (rng.below(41) as f64) / 10.0 + 1.0,
                })
            })
            .collect(),
    )
}

fn customers(rng: &mut Rng, n: usize) -> Json {
    Json::Array(
        (0..n)
            .map(|i| {
                let name = person(rng);
                json!({
                    ":id": 2000 + i,
                    ":name": name,
                    ":email": format!("{}@example.ch", name.to_lowercase().replace(' ', ".")),
                    ":tier": kw(rng.pick(&["standard", "gold", "platinum"])),
                    ":city": rng.pick(CITIES),
                    ":tags": {"$set": ["newsletter", rng.pick(&["b2b", "b2c", "vip"])]},
                })
            })
            .collect(),
    )
}

/// A tool: name, signature, description, and a result for a call.
struct Tool {
    name: &'static str,
    signature: &'static str,
    description: &'static str,
}

const TOOLS: &[Tool] = &[
    Tool {
        name: "search-docs",
        signature: "(query :string, limit :int) -> [{id :string, title :string, snippet :string}]",
        description: "Full-text search over the help center",
    },
    Tool {
        name: "send-email",
        signature: "(to :string, subject :string, body :string) -> :nil",
        description: "Sends an email",
    },
    Tool {
        name: "notify",
        signature: "(channel :string, message :string) -> :nil",
        description: "Posts to a team channel",
    },
    Tool {
        name: "get-orders",
        signature:
            "(customer-id :int, status :keyword) -> [{id :string, amount :float, status :keyword}]",
        description: "Orders of a customer",
    },
    Tool {
        name: "lookup-customer",
        signature: "(id :int) -> {name :string, email :string, tier :keyword}",
        description: "A customer record",
    },
    Tool {
        name: "exchange-rate",
        signature: "(from :string, to :string) -> :float",
        description: "Current exchange rate",
    },
];

/// What a turn does, step by step.
enum Step {
    Def {
        name: String,
        expr: String,
        value: Json,
    },
    Defn {
        name: String,
        params: Vec<&'static str>,
        doc: Option<String>,
        returns: Option<&'static str>,
    },
    Call {
        tool: usize,
        args: Json,
        result: Json,
        bind: Option<String>,
    },
    Print {
        expr: String,
        text: String,
    },
}

fn call_text(tool: &Tool, args: &Json) -> String {
    let mut text = format!("(tool/{} {{", tool.name);
    if let Json::Object(map) = args {
        let parts: Vec<String> = map
            .iter()
            .map(|(k, v)| match v {
                Json::String(s) => format!("{k} {s:?}"),
                Json::Object(o) if o.contains_key("$kw") => {
                    format!("{k} :{}", o["$kw"].as_str().unwrap_or(""))
                }
                other => format!("{k} {other}"),
            })
            .collect();
        text.push_str(&parts.join(" "));
    }
    text.push_str("})");
    text
}

fn tool_result(rng: &mut Rng, tool: usize) -> Json {
    match TOOLS[tool].name {
        "search-docs" => Json::Array(
            (0..3 + rng.below(3))
                .map(|i| {
                    json!({
                        ":id": format!("KB-{}", 100 + rng.below(900)),
                        ":title": format!("How {} works ({i})", rng.pick(TOPICS)),
                        ":snippet": format!("When it comes to {}, customers in {} should first check their account settings and then contact support with the order number.", rng.pick(TOPICS), rng.pick(CITIES)),
                    })
                })
                .collect(),
        ),
        "get-orders" => Json::Array(
            (0..1 + rng.below(4))
                .map(|_| json!({":id": format!("ORD-{}", 10_000 + rng.below(90_000)), ":amount": (rng.below(90_000) as f64) / 100.0 + 0.25, ":status": kw(rng.pick(&["open", "shipped", "cancelled"]))}))
                .collect(),
        ),
        "lookup-customer" => {
            let name = person(rng);
            json!({":name": name, ":email": format!("{}@example.ch", name.to_lowercase().replace(' ', ".")), ":tier": kw(rng.pick(&["gold", "standard"]))})
        }
        "exchange-rate" => json!(0.9 + (rng.below(300) as f64) / 1000.0),
        _ => Json::Null,
    }
}

fn call_args(rng: &mut Rng, tool: usize, family: usize) -> Json {
    match TOOLS[tool].name {
        "search-docs" => json!({":query": rng.pick(TOPICS), ":limit": 5}),
        "send-email" => {
            let to = person(rng);
            json!({
                ":to": format!("{}@example.ch", to.to_lowercase().replace(' ', ".")),
                ":subject": format!("About your order in {}", rng.pick(CITIES)),
                ":body": format!("Dear {to},\n\nwe are sorry about the delay of your order. We opened ticket T-{} and will update you within 48 hours.\n\nKind regards", 5000 + rng.below(5000)),
            })
        }
        "notify" => {
            json!({":channel": if family == 1 { "ops" } else { "support" }, ":message": format!("Processed batch {} for {}", rng.below(100), rng.pick(CITIES))})
        }
        "get-orders" => {
            json!({":customer-id": 2000 + rng.below(40), ":status": kw(rng.pick(&["open", "cancelled"]))})
        }
        "lookup-customer" => json!({":id": 2000 + rng.below(40)}),
        _ => json!({":from": "CHF", ":to": rng.pick(&["EUR", "USD"])}),
    }
}

/// The steps of one successful turn of `family`.
fn steps(rng: &mut Rng, family: usize, turn: usize) -> Vec<Step> {
    let mut out = Vec::new();
    let var = |base: &str| format!("{base}-{turn}");
    match family {
        0 => {
            let name = var("in-stock");
            let n = 2 + rng.below(20);
            out.push(Step::Def {
                name: name.clone(),
                expr: "(filter #(pos? (:stock %)) data/products)".to_string(),
                value: products(rng, n),
            });
            if rng.chance(40) {
                out.push(Step::Def {
                    name: var("cheapest"),
                    expr: format!("(apply min (map :price {name}))"),
                    value: json!((rng.below(5000) as f64) / 100.0 + 1.0),
                });
            }
            if rng.chance(30) {
                out.push(Step::Print {
                    expr: format!("(count {name})"),
                    text: format!("{n}"),
                });
            }
        }
        1 => {
            for _ in 0..1 + rng.below(3) {
                let tool = if rng.chance(70) { 1 } else { 2 };
                out.push(Step::Call {
                    tool,
                    args: call_args(rng, tool, family),
                    result: Json::Null,
                    bind: None,
                });
            }
            out.push(Step::Print {
                expr: "\"sent\" (count sent)".into(),
                text: format!("sent {}", turn * 2),
            });
            out.push(Step::Def {
                name: "sent".into(),
                expr: "(conj sent ...)".into(),
                value: json!(turn * 2),
            });
        }
        2 => {
            let bind = var("hits");
            out.push(Step::Call {
                tool: 0,
                args: call_args(rng, 0, family),
                result: tool_result(rng, 0),
                bind: Some(bind.clone()),
            });
            out.push(Step::Print {
                expr: format!("(map :title {bind})"),
                text: format!(
                    "({} ...)",
                    (0..3)
                        .map(|i| format!("\"How {} works ({i})\"", rng.pick(TOPICS)))
                        .collect::<Vec<_>>()
                        .join(" ")
                ),
            });
            if rng.chance(50) {
                out.push(Step::Defn {
                    name: var("summarize"),
                    params: vec!["hits", "n"],
                    doc: Some("Joins the first n snippets; keeps titles".into()),
                    returns: rng.chance(50).then_some("string"),
                });
            }
        }
        3 => {
            let tool = if rng.chance(50) { 3 } else { 5 };
            let bind = var("orders");
            out.push(Step::Call {
                tool,
                args: call_args(rng, tool, family),
                result: tool_result(rng, tool),
                bind: Some(bind.clone()),
            });
            let totals: Map<String, Json> = (0..2 + rng.below(4))
                .map(|_| {
                    (
                        format!(":{}", rng.pick(CATEGORIES)),
                        json!((rng.below(100_000) as f64) / 100.0),
                    )
                })
                .collect();
            out.push(Step::Def { name: var("totals"), expr: format!("(reduce-kv (fn [m k v] (assoc m k (reduce + (map :amount v)))) {{}} (group-by :category {bind}))"), value: Json::Object(totals) });
            out.push(Step::Print {
                expr: format!("(sort-by val > {})", var("totals")),
                text: format!("totals by category, turn {turn}: {}", rng.below(1000)),
            });
        }
        _ => {
            let tool = 4;
            out.push(Step::Call {
                tool,
                args: call_args(rng, tool, family),
                result: tool_result(rng, tool),
                bind: Some(var("customer")),
            });
            if rng.chance(50) {
                out.push(Step::Def {
                    name: var("note"),
                    expr: "(str ...)".into(),
                    value: json!(format!(
                        "Customer {} asked about {} on {}",
                        person(rng),
                        rng.pick(TOPICS),
                        turn
                    )),
                });
            }
            out.push(Step::Print {
                expr: format!("(:name {})", var("customer")),
                text: person(rng),
            });
        }
    }
    out
}

fn program(steps: &[Step]) -> String {
    let mut text = String::new();
    for step in steps {
        match step {
            Step::Def { name, expr, .. } => {
                let _ = writeln!(text, "(def {name} {expr})");
            }
            Step::Defn {
                name, params, doc, ..
            } => {
                let doc = doc.as_ref().map(|d| format!(" {d:?}")).unwrap_or_default();
                let _ = writeln!(
                    text,
                    "(defn {name}{doc} [{}]\n  (str/join \"\\n\" (map :snippet (take n hits))))",
                    params.join(" ")
                );
            }
            Step::Call {
                tool, args, bind, ..
            } => match bind {
                Some(b) => {
                    let _ = writeln!(text, "(def {b} {})", call_text(&TOOLS[*tool], args));
                }
                None => {
                    let _ = writeln!(text, "{}", call_text(&TOOLS[*tool], args));
                }
            },
            Step::Print { expr, .. } => {
                let _ = writeln!(text, "(println {expr})");
            }
        }
    }
    text.trim_end().to_owned()
}

/// The tool calls of `steps` cut or topped up to exactly `calls`, drawing from `rng` (its own
/// generator, so that the rest of the run is what it is without the option). The calls kept
/// are the family's own, bound ones first; the added ones go after the last of them.
fn with_calls(
    rng: &mut Rng,
    family: usize,
    turn: usize,
    steps: Vec<Step>,
    calls: usize,
) -> Vec<Step> {
    let mut steps = steps;
    let mut count = steps
        .iter()
        .filter(|s| matches!(s, Step::Call { .. }))
        .count();
    while count > calls {
        // Unbound calls (notifications) go first: no later line names their result.
        let at = steps
            .iter()
            .rposition(|s| matches!(s, Step::Call { bind: None, .. }))
            .or_else(|| steps.iter().rposition(|s| matches!(s, Step::Call { .. })))
            .expect("a call to remove");
        steps.remove(at);
        count -= 1;
    }
    let first = steps
        .iter()
        .rposition(|s| matches!(s, Step::Call { .. }))
        .map_or(0, |i| i + 1);
    for (at, k) in (first..).zip(count..calls) {
        let tool = rng.pick(&[4, 3, 5, 0, 2]);
        let args = call_args(rng, tool, family);
        let result = tool_result(rng, tool);
        let base = ["hits", "email", "notified", "orders", "customer", "rate"][tool];
        let bind = (!result.is_null()).then(|| format!("{base}-{turn}-{}", k + 1));
        steps.insert(
            at,
            Step::Call {
                tool,
                args,
                result,
                bind,
            },
        );
    }
    steps
}

/// How the text of a turn is written; the turn's effects do not depend on it.
#[derive(Clone, Copy, PartialEq)]
pub enum Style {
    Lean,
    Realistic,
}

/// The first name the steps define, by `def` or by binding a tool call's result.
fn first_binding(steps: &[Step]) -> Option<&str> {
    steps.iter().find_map(|s| match s {
        Step::Def { name, .. } => Some(name.as_str()),
        Step::Call { bind: Some(b), .. } => Some(b.as_str()),
        _ => None,
    })
}

/// What a model says before its program: two or three sentences about the step.
fn plan(rng: &mut Rng, family: usize, turn: usize, steps: &[Step]) -> String {
    let subject = first_binding(steps).unwrap_or("the results so far");
    let opening = match family {
        0 => format!("The products still need narrowing down: I'll keep the ones in stock and bind them to {subject} so later turns can reuse them instead of filtering again."),
        1 => format!("Turn {turn}: the next customers to notify are the ones affected in this batch; I'll send each one message and keep track of who was already contacted so nobody gets a second email."),
        2 => format!("The earlier searches did not cover everything the customer asked, so I'll run another search, bind the hits to {subject} and look at the titles before deciding which articles to summarise."),
        3 => format!("Next I need the orders for another customer. I'll fetch them into {subject}, group them by category and total the amounts, so the per-category totals can be converted at the end."),
        4 => format!("I'll look up the next customer, bind the record to {subject} and print the name to check that the id matches before computing anything from it."),
        _ => format!("Turn {turn} of the digest: I'll gather the next part of the tickets and keep the intermediate values defined so that the summary can be assembled in one go at the end."),
    };
    let middle = [
        "Printing only a count and a few fields keeps the output short.",
        "The definitions from the earlier turns are still loaded, so I won't recompute them.",
        "If the result comes back empty I'll print a note instead of failing, and adjust in the next turn.",
        "Tool calls that already happened are not repeated.",
    ];
    let closing = [
        "After that only the final answer remains.",
        "Once this is in place I can check the totals against the expected output.",
        "Then I'll compare with what the mission asks for.",
    ];
    let mut text = opening;
    if rng.chance(60) {
        text.push(' ');
        text.push_str(rng.pick(&middle));
    }
    if rng.chance(50) {
        text.push(' ');
        text.push_str(rng.pick(&closing));
    }
    text
}

/// The program a model writes for `steps`: a comment, each definition as a multi-line
/// pipeline, and a guard that prints only when the first result is empty (it never is).
fn realistic_program(steps: &[Step], lean: &str) -> String {
    let mut text = String::from(";; continue from the definitions already loaded\n");
    for line in lean.lines() {
        match line
            .strip_prefix("(def ")
            .and_then(|rest| rest.split_once(' '))
        {
            Some((name, expr))
                if ["(filter ", "(map ", "(sort-by "]
                    .iter()
                    .any(|f| expr.starts_with(f)) =>
            {
                let expr = expr.strip_suffix(')').unwrap_or(expr);
                let _ = writeln!(text, "(def {name}\n  (->> {expr}\n       (remove nil?)))");
            }
            _ => {
                let _ = writeln!(text, "{line}");
            }
        }
    }
    if let Some(name) = first_binding(steps) {
        let _ = writeln!(
            text,
            "(let [n (if (coll? {name}) (count {name}) 1)]\n  (when (zero? n)\n    (println \"nothing found for {name}, trying again next turn\")))"
        );
    }
    text.trim_end().to_owned()
}

/// One recording of `family` with `turns` turns.
fn recording(
    rng: &mut Rng,
    index: usize,
    family: usize,
    turns: usize,
    style: Style,
    calls_per_turn: usize,
) -> Json {
    let final_turn = family == 5;
    let max_turns = if final_turn {
        turns
    } else {
        turns + rng.below(4)
    };
    let mut memory = Map::new();
    let mut out = Vec::new();
    let fails = |rng: &mut Rng, t: usize| match family {
        4 => t % 4 == 2 || rng.chance(15),
        _ => rng.chance(12),
    };
    for t in 1..=turns {
        let last = t == turns;
        if !last && fails(rng, t) {
            let (reason, message) = rng.pick(ERRORS);
            let (plan, program) = match style {
                Style::Lean => (
                    "Let me compute the totals.".to_string(),
                    "(def totals (reduce + (map :amount totl)))\n(println totals)".to_string(),
                ),
                Style::Realistic => (
                    "Let me compute the totals over everything fetched so far and print them, so the next turn can check them against the expected output before answering.".to_string(),
                    ";; totals over all fetched orders\n(def totals\n  (->> totl\n       (map :amount)\n       (remove nil?)\n       (reduce +)))\n(println \"totals:\" totals)".to_string(),
                ),
            };
            out.push(json!({
                "number": t,
                "raw_response": format!("{plan}\n\n```clojure\n{program}\n```"),
                "program": program,
                "success": false,
                "result": null,
                "error": {"reason": reason, "message": if message.is_empty() { Json::Null } else { json!(message) }},
                "prints": [],
                "tool_calls": [],
                "memory": Json::Object(memory.clone()),
            }));
            continue;
        }
        let steps = if last {
            Vec::new()
        } else if calls_per_turn > 0 {
            let steps = steps(rng, family % 5, t);
            let mut calls = Rng(rng.0 ^ 0xC2B2_AE3D_27D4_EB4F ^ ((t as u64) << 40));
            with_calls(&mut calls, family % 5, t, steps, calls_per_turn)
        } else {
            steps(rng, family % 5, t)
        };
        let mut prints = Vec::new();
        let mut calls = Vec::new();
        for step in &steps {
            match step {
                Step::Def { name, value, .. } => {
                    memory.insert(name.clone(), value.clone());
                }
                Step::Defn {
                    name,
                    params,
                    doc,
                    returns,
                } => {
                    memory.insert(
                        name.clone(),
                        json!({"$fn": {"params": params, "doc": doc, "return_type": returns}}),
                    );
                }
                Step::Call {
                    tool,
                    args,
                    result,
                    bind,
                } => {
                    calls.push(json!({"name": TOOLS[*tool].name, "args": args, "result": result}));
                    if let Some(b) = bind {
                        memory.insert(b.clone(), result.clone());
                    }
                }
                Step::Print { text, .. } => prints.push(json!(text)),
            }
        }
        let program = if last {
            "(return {:done true :turns-used ".to_string() + &t.to_string() + "})"
        } else {
            match style {
                Style::Lean => program(&steps),
                Style::Realistic => realistic_program(&steps, &program(&steps)),
            }
        };
        let plan = match (style, last) {
            (Style::Lean, true) => format!("Step {t}: everything is in place, returning the result."),
            (Style::Lean, false) => format!("Step {t}: continuing with the next part of the mission."),
            (Style::Realistic, true) => "Everything the mission asks for is defined now and matches the expected output, so I return the result.".to_string(),
            (Style::Realistic, false) => {
                // Its own generator, so that both styles make the same turns from a seed.
                let mut words = Rng(((index as u64) << 32) ^ t as u64 ^ 0x9e37_79b9);
                plan(&mut words, family, t, &steps)
            }
        };
        out.push(json!({
            "number": t,
            "raw_response": format!("{plan}\n\n```clojure\n{program}\n```"),
            "program": program,
            "success": true,
            "result": if last { json!({":done": true}) } else { Json::Null },
            "prints": prints,
            "tool_calls": calls,
            "memory": Json::Object(memory.clone()),
        }));
    }
    let mission = match family {
        0 => "Find the products in data/products that are in stock and cheaper than {{budget}} CHF, and report the cheapest per category.",
        1 => "Email every customer in data/customers affected by the delays in {{city}} and post a summary to the ops channel. Do not email anyone twice.",
        2 => "Search the help center for answers about the customer's question and summarise the three most relevant articles.",
        3 => "Total the open orders of the customers in data/customers by category and convert the totals to EUR.",
        4 => "Compute the refund owed to each customer for cancelled orders and flag those above the threshold.",
        _ => "Prepare the weekly support digest: open tickets by priority, the oldest three, and a short markdown summary.",
    };
    json!({
        "mission": mission,
        "max_turns": max_turns,
        "signature": "{done :bool, turns-used :int}",
        "tools": TOOLS.iter().map(|t| json!({"name": t.name, "signature": t.signature, "description": t.description})).collect::<Vec<_>>(),
        "data": {
            "products": products(rng, 20 + index % 30),
            "customers": customers(rng, 10 + index % 20),
            "budget": 250.0,
            "city": rng.pick(CITIES),
        },
        "turns": out,
    })
}

const USAGE: &str = "\
Usage: generate_corpus [--count N] [--turns N] [--seed N] [--out DIR] [--pretty]
                       [--style lean|realistic] [--calls-per-turn N]

Writes N simulated recorded runs (JSON) into DIR, the same for the same options.

  --count N           runs to write (default 100)
  --turns N           turns of each run; 0 gives 4 to 17, varying (default 0)
  --seed N            the seed (default 1)
  --out DIR           the directory, created if missing (default corpus)
  --pretty            indented JSON
  --style S           lean (one line of reasoning, bare programs; default) or realistic
  --calls-per-turn N  tool calls of each turn; 0 keeps each task family's own (default 0)
";

/// What the command line asks for.
struct Args {
    count: usize,
    turns: usize,
    seed: u64,
    pretty: bool,
    style: Style,
    calls_per_turn: usize,
    out: PathBuf,
}

/// The arguments read, `Ok(None)` for `--help`, or what is wrong with them.
fn read_args(mut args: impl Iterator<Item = String>) -> Result<Option<Args>, String> {
    let mut a = Args {
        count: 100,
        turns: 0,
        seed: 1,
        pretty: false,
        style: Style::Lean,
        calls_per_turn: 0,
        out: PathBuf::from("corpus"),
    };
    fn number<T: std::str::FromStr>(arg: &str, value: Option<String>) -> Result<T, String> {
        let value = value.ok_or_else(|| format!("{arg} needs a value"))?;
        value
            .parse()
            .map_err(|_| format!("{arg} takes a whole number, not `{value}`"))
    }
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "-h" | "--help" => return Ok(None),
            "--count" => a.count = number(&arg, args.next())?,
            "--turns" => a.turns = number(&arg, args.next())?,
            "--seed" => a.seed = number(&arg, args.next())?,
            "--calls-per-turn" => a.calls_per_turn = number(&arg, args.next())?,
            "--out" => a.out = PathBuf::from(args.next().ok_or("--out needs a value")?),
            "--pretty" => a.pretty = true,
            "--style" => {
                a.style = match args.next().as_deref() {
                    Some("lean") => Style::Lean,
                    Some("realistic") => Style::Realistic,
                    Some(other) => {
                        return Err(format!("--style is lean or realistic, not `{other}`"))
                    }
                    None => return Err("--style needs a value".into()),
                }
            }
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    Ok(Some(a))
}

fn main() {
    let args = match read_args(std::env::args().skip(1)) {
        Ok(Some(args)) => args,
        Ok(None) => {
            print!("{USAGE}");
            return;
        }
        Err(why) => {
            eprintln!("error: {why}\n\n{USAGE}");
            std::process::exit(2);
        }
    };
    let out = &args.out;
    if let Err(e) = std::fs::create_dir_all(out) {
        eprintln!("error: cannot create {}: {e}", out.display());
        std::process::exit(2);
    }
    // One recording at a time: memory holds one run, not the corpus.
    let corpus = corpus_with_calls(
        args.count,
        args.turns,
        args.seed,
        args.style,
        args.calls_per_turn,
    );
    for (name, json) in corpus {
        let bytes = if args.pretty {
            serde_json::to_vec_pretty(&json)
        } else {
            serde_json::to_vec(&json)
        }
        .expect("a generated recording is JSON");
        let path = out.join(name);
        if let Err(e) = std::fs::write(&path, bytes) {
            eprintln!("error: cannot write {}: {e}", path.display());
            std::process::exit(2);
        }
    }
    eprintln!("wrote {} recordings to {}", args.count, out.display());
}

/// The corpus `--count`, `--turns` (0: 4 to 17 each), `--seed` and `--style` make, as (file
/// name, recording): what `main` writes, and what the benchmarks build in memory (they include
/// this file as a module).
pub fn corpus(count: usize, turns: usize, seed: u64, style: Style) -> Vec<(String, Json)> {
    corpus_with_calls(count, turns, seed, style, 0).collect()
}

/// The runs of [`corpus`] with `--calls-per-turn` (0: each family's own calls), made one at
/// a time as they are asked for.
pub fn corpus_with_calls(
    count: usize,
    turns: usize,
    seed: u64,
    style: Style,
    calls_per_turn: usize,
) -> impl Iterator<Item = (String, Json)> {
    let mut rng = Rng(seed);
    (0..count).map(move |i| {
        let family = i % 6;
        let n = if turns > 0 { turns } else { 4 + rng.below(14) };
        let json = recording(&mut rng, i, family, n, style, calls_per_turn);
        let family_name = [
            "explore",
            "notify",
            "search",
            "aggregate",
            "recover",
            "final-turn",
        ][family];
        (format!("gen-{i:03}-{family_name}.json"), json)
    })
}
