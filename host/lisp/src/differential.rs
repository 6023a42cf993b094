//! The recorded programs of a Kernel run as the differential check against ptc_runner's own
//! interpreter feeds them to both sides: in order, with the preludes first and every capability
//! call answered from the recording, so values and prints are compared with real data.
//!
//! A program line is a JSON object `{"id", "program"}`, and for a recorded run also `"run"` (the
//! run it belongs to: programs of one run share memory, in order), `"preludes"` (on the first
//! program of a run: `[id, source]` pairs, loaded before it) and `"calls"` (the calls the run
//! recorded for the program, `{"name", "arguments", "result"}`, in order). Both sides answer a
//! program's calls the same way: the next recorded call if it has the name asked for, whatever
//! its arguments, else the value `{:status :error :reason "not recorded"}`; and both report the
//! calls the program made, so the arguments are compared too.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use serde_json::{json, Value as J};

use crate::eval::{Budget, Capabilities, Interp, Outcome};
use crate::print::pr_str;
use crate::replay::{result_value, RecordedCall, RecordedRun};
use crate::value::{LispError, Value};

/// The program lines of a recorded run named `name`, in order.
pub fn program_lines(name: &str, run: &RecordedRun) -> Vec<J> {
    run.turns
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let calls: Vec<J> = t
                .calls
                .iter()
                .map(|c| json!({"name": c.name, "arguments": c.arguments, "result": c.result}))
                .collect();
            let mut line = json!({
                "id": format!("{name}:{}", t.evaluation_id),
                "run": name,
                "program": t.source,
                "calls": calls,
            });
            if i == 0 {
                line["preludes"] = json!(run.preludes);
            }
            line
        })
        .collect()
}

struct InOrder {
    recorded: Vec<RecordedCall>,
    next: usize,
    made: Vec<J>,
}

struct Answers(Rc<RefCell<InOrder>>);

impl Capabilities for Answers {
    fn call(&mut self, name: &str, args: J) -> Result<Value, LispError> {
        let mut a = self.0.borrow_mut();
        a.made.push(json!({"name": name, "arguments": args}));
        let hit = a.recorded.get(a.next).filter(|c| c.name == name).cloned();
        Ok(match hit {
            Some(c) => {
                a.next += 1;
                result_value(&c.result)
            }
            None => Value::map(vec![
                (Value::kw("status"), Value::kw("error")),
                (Value::kw("reason"), Value::Str("not recorded".into())),
            ]),
        })
    }
}

/// Evaluates program lines, keeping one interpreter per recorded run so that a run's programs
/// see the memory its earlier successful programs left; a program of no run gets a fresh one.
#[derive(Default)]
pub struct Runner {
    runs: HashMap<String, Interp>,
}

impl Runner {
    /// Evaluates one program line; the answer is `{"id", "status": "ok" | "return" | "fail" |
    /// "error", "value" (pr-str), "error" (its kind), "prints", "calls" (name and arguments of
    /// each capability call made)}`. A line without a `"program"` string is refused.
    pub fn eval_line(&mut self, line: &J, budget: Budget) -> Result<J, String> {
        let program = line
            .get("program")
            .and_then(J::as_str)
            .ok_or("no \"program\" string")?;
        let recorded = match line.get("calls") {
            None | Some(J::Null) => Vec::new(),
            Some(J::Array(calls)) => calls
                .iter()
                .map(
                    |c| match (c.get("name").and_then(J::as_str), c.get("result")) {
                        (Some(name), Some(result)) => Ok(RecordedCall {
                            name: name.to_string(),
                            arguments: c.get("arguments").cloned().unwrap_or(J::Null),
                            result: result.clone(),
                        }),
                        _ => Err("a call without a \"name\" string and a \"result\"".to_string()),
                    },
                )
                .collect::<Result<_, _>>()?,
            Some(_) => return Err("\"calls\" is not an array".into()),
        };
        let mut fresh = Interp::new();
        let interp = match line.get("run").and_then(J::as_str) {
            Some(run) => self.runs.entry(run.to_string()).or_default(),
            None => &mut fresh,
        };
        for p in line
            .get("preludes")
            .and_then(J::as_array)
            .into_iter()
            .flatten()
        {
            let source = p
                .get(1)
                .and_then(J::as_str)
                .ok_or("a prelude that is not [id, source]")?;
            let none = InOrder {
                recorded: vec![],
                next: 0,
                made: vec![],
            };
            interp.run_prelude(
                source,
                budget,
                Box::new(Answers(Rc::new(RefCell::new(none)))),
            );
        }
        let before = interp.memory();
        let answers = Rc::new(RefCell::new(InOrder {
            recorded,
            next: 0,
            made: vec![],
        }));
        let turn = interp.run(program, budget, Box::new(Answers(answers.clone())));
        if !matches!(turn.outcome, Outcome::Value(_) | Outcome::Return(_)) {
            interp.restore_memory(before);
        }
        let (status, value, error) = match &turn.outcome {
            Outcome::Value(v) => ("ok", Some(pr_str(v)), None),
            Outcome::Return(v) => ("return", Some(pr_str(v)), None),
            Outcome::Fail(v) => ("fail", Some(pr_str(v)), None),
            Outcome::Error(e) => ("error", None, Some(e.kind.clone())),
        };
        let made = std::mem::take(&mut answers.borrow_mut().made);
        Ok(json!({
            "id": line.get("id").cloned().unwrap_or(J::Null),
            "status": status,
            "value": value,
            "error": error,
            "prints": turn.prints,
            "calls": made,
        }))
    }
}
