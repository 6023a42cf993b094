//! Replaying recorded Kernel runs: the preludes and programs of a ptc_runner inspection log
//! re-run in order, every capability call answered from the recording, each turn checked
//! against what the run recorded.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

use serde_json::Value as J;

use crate::eval::{Budget, Capabilities, Interp, Outcome};
use crate::print::pr_str;
use crate::value::{LispError, Value};

/// One capability call a program made, as recorded.
#[derive(Clone, Debug)]
pub struct RecordedCall {
    pub name: String,
    pub arguments: J,
    pub result: J,
}

/// One evaluated program of a run, with what the run recorded of it.
#[derive(Clone, Debug)]
pub struct RecordedTurn {
    pub evaluation_id: String,
    pub source: String,
    pub calls: Vec<RecordedCall>,
    /// The observation text the agent was sent about this program, when the log holds it.
    pub observation: Option<String>,
}

/// What a Kernel inspection log holds for replay.
#[derive(Clone, Debug, Default)]
pub struct RecordedRun {
    /// The preludes of the environment programs run in (`mission`), in load order.
    pub preludes: Vec<(String, String)>,
    pub turns: Vec<RecordedTurn>,
    /// Programs the host ran in the environment that no agent sent (e.g. a workflow's check of
    /// the citations with `data/params`): not agent turns, and not replayed.
    pub host_programs: usize,
}

/// Why a turn's replay is not trusted.
#[derive(Clone, Debug, PartialEq)]
pub enum Mismatch {
    /// The program asked for a call the recording does not hold at that point (name, arguments).
    CallNotRecorded(String),
    /// The recording holds calls the replayed program did not make.
    CallsMissing(usize),
    /// The replay printed or returned other text than the observation the agent was sent.
    ObservationDiffers {
        at: usize,
        replayed: String,
        recorded: String,
    },
    /// The replay succeeded where the run failed, or the other way round.
    OutcomeDiffers { replayed: String, recorded: String },
    /// The log holds no observation to compare the turn with.
    NoObservation,
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Mismatch::CallNotRecorded(c) => {
                write!(f, "asked for a call the recording does not hold: {c}")
            }
            Mismatch::CallsMissing(n) => write!(f, "made {n} fewer capability calls than recorded"),
            Mismatch::ObservationDiffers {
                at,
                replayed,
                recorded,
            } => {
                write!(f, "observation differs at character {at}: replayed {replayed:?}, recorded {recorded:?}")
            }
            Mismatch::OutcomeDiffers { replayed, recorded } => {
                write!(
                    f,
                    "outcome differs: replayed {replayed}, recorded {recorded}"
                )
            }
            Mismatch::NoObservation => write!(f, "the log holds no observation for this turn"),
        }
    }
}

/// One replayed turn: memory after it, what it printed, its outcome, and whether it verified.
#[derive(Clone, Debug)]
pub struct ReplayedTurn {
    pub evaluation_id: String,
    pub memory: BTreeMap<String, Value>,
    pub prints: Vec<String>,
    pub outcome: Outcome,
    /// `None` when the turn reproduced the recording exactly.
    pub mismatch: Option<Mismatch>,
    /// What the turn was checked against besides its calls.
    pub checked: Checked,
}

/// What a turn's replay was compared with, besides its capability calls.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Checked {
    /// The whole observation text (printed lines and value).
    Observation,
    /// The observation up to where the run cut it.
    CutObservation,
    /// The error code the agent was told.
    ErrorCode,
    /// A program that returned: its outcome (the agent is sent no observation of it).
    Return,
    /// A program whose next call the run refused before making it (the agent was told the
    /// capability call failed), as the replay refuses it (the recording holds no such call).
    RefusedCall,
    /// Nothing could be compared.
    Nothing,
}

/// Reads a Kernel inspection log (JSON Lines). An error names the line and the cause.
pub fn load_inspection(text: &str) -> Result<RecordedRun, String> {
    let mut run = RecordedRun::default();
    let mut inputs: HashMap<String, (String, String, J)> = HashMap::new();
    let mut calls: HashMap<String, Vec<RecordedCall>> = HashMap::new();
    let mut messages: Vec<J> = Vec::new();
    let mut sent: Vec<String> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let r: J =
            serde_json::from_str(line).map_err(|e| format!("line {}: not JSON: {e}", i + 1))?;
        let field = |r: &J, path: &[&str]| -> Option<String> {
            let mut cur = r;
            for p in path {
                cur = cur.get(p)?;
            }
            cur.as_str().map(str::to_string)
        };
        let need = |path: &[&str]| {
            field(&r, path).ok_or_else(|| format!("line {}: no {}", i + 1, path.join(".")))
        };
        let env = field(&r, &["payload", "environment"]).unwrap_or_default();
        match field(&r, &["record_type"]).as_deref() {
            Some("prelude-source") if env == "mission" => run.preludes.push((
                need(&["correlation", "component_id"])?,
                need(&["payload", "source"])?,
            )),
            Some("evaluation-source") if env == "mission" => run.turns.push(RecordedTurn {
                evaluation_id: need(&["correlation", "evaluation_id"])?,
                source: need(&["payload", "source"])?,
                calls: Vec::new(),
                observation: None,
            }),
            Some("capability-input") => {
                let name = need(&["payload", "name"])?;
                if name == "llm-request" {
                    if let Some(J::Array(m)) = r["payload"]["arguments"].get("messages") {
                        messages = if m.len() >= messages.len() {
                            m.clone()
                        } else {
                            messages
                        };
                    }
                } else if env == "mission" {
                    let id = need(&["correlation", "capability_id"])?;
                    let ev = need(&["payload", "evaluation_id"])?;
                    inputs.insert(id, (ev, name, r["payload"]["arguments"].clone()));
                }
            }
            Some("capability-output")
                if field(&r, &["payload", "name"]).as_deref() == Some("llm-request") =>
            {
                for call in r["payload"]["result"]["value"]["tool_calls"]
                    .as_array()
                    .into_iter()
                    .flatten()
                {
                    if let Some(p) = call["args"]["program"].as_str() {
                        sent.push(p.to_string());
                    }
                }
            }
            Some("capability-output") if env == "mission" => {
                let id = need(&["correlation", "capability_id"])?;
                let (ev, name, arguments) = inputs
                    .remove(&id)
                    .ok_or_else(|| format!("line {}: output of {id} without its input", i + 1))?;
                calls.entry(ev).or_default().push(RecordedCall {
                    name,
                    arguments,
                    result: r["payload"]["result"].clone(),
                });
            }
            _ => {}
        }
    }
    for m in &messages {
        for call in m["tool_calls"].as_array().into_iter().flatten() {
            if let Some(p) = call["args"]["program"].as_str() {
                sent.push(p.to_string());
            }
        }
    }
    let before = run.turns.len();
    run.turns.retain(|t| sent.contains(&t.source));
    run.host_programs = before - run.turns.len();
    let observations = observations(&messages);
    let mut used: HashMap<&str, usize> = HashMap::new();
    for t in &mut run.turns {
        t.calls = calls.remove(&t.evaluation_id).unwrap_or_default();
        let seen = used.entry(t.source.as_str()).or_default();
        t.observation = observations
            .get(t.source.as_str())
            .and_then(|o| o.get(*seen))
            .cloned();
        *seen += 1;
    }
    Ok(run)
}

/// Program text to the observations the agent was sent about it, in order.
fn observations(messages: &[J]) -> HashMap<&str, Vec<String>> {
    let mut by_call: HashMap<&str, &str> = HashMap::new();
    for m in messages {
        if m["role"] == "tool" {
            if let (Some(id), Some(c)) = (m["tool_call_id"].as_str(), m["content"].as_str()) {
                by_call.insert(id, c);
            }
        }
    }
    let mut out: HashMap<&str, Vec<String>> = HashMap::new();
    for m in messages {
        for call in m["tool_calls"].as_array().into_iter().flatten() {
            if let (Some(id), Some(p)) = (call["id"].as_str(), call["args"]["program"].as_str()) {
                if let Some(c) = by_call.get(id) {
                    out.entry(p).or_default().push(c.to_string());
                }
            }
        }
    }
    out
}

struct Recorded {
    calls: Vec<RecordedCall>,
    next: usize,
    refused: Option<String>,
}

struct Answerer(Rc<RefCell<Recorded>>);

impl Capabilities for Answerer {
    fn call(&mut self, name: &str, args: J) -> Result<Value, LispError> {
        let mut r = self.0.borrow_mut();
        let asked = format!("{name} {args}");
        let hit = r
            .calls
            .get(r.next)
            .filter(|c| c.name == name && c.arguments == args)
            .cloned();
        match hit {
            Some(c) => {
                r.next += 1;
                Ok(result_value(&c.result))
            }
            None => {
                r.refused.get_or_insert(asked.clone());
                Err(LispError::new(
                    "replay_refused",
                    format!("the recording holds no call {asked} here"),
                ))
            }
        }
    }
}

/// A recorded capability result as a program sees it: `{:status :ok :value ...}`.
pub(crate) fn result_value(result: &J) -> Value {
    let mut entries = Vec::new();
    for (k, v) in result.as_object().into_iter().flatten() {
        let v = match (k.as_str(), v) {
            ("status", J::String(s)) => Value::kw(s),
            _ => Value::from_json(v),
        };
        entries.push((Value::kw(k), v));
    }
    Value::map(entries)
}

const SUCCESS_OPEN: &str = "<untrusted_ptc_output source=\"evaluation\">";
const SUCCESS_CLOSE: &str = "</untrusted_ptc_output>";
const TRUNCATED: &str = "\n... (observation truncated)";

/// The evaluation output ptc_runner's agent shows for a successful program.
pub fn observation_body(value: &Value, prints: &[String]) -> String {
    let mut body = format!("user=> {}", pr_str(value));
    if !prints.is_empty() {
        body.push_str("\nprintln:\n");
        body.push_str(&prints.join("\n"));
    }
    body.replace(SUCCESS_CLOSE, "</untrusted_ptc_output (escaped)>")
}

fn outcome_name(o: &Outcome) -> String {
    match o {
        Outcome::Value(_) => "success".into(),
        Outcome::Return(_) => "return".into(),
        Outcome::Fail(_) => "fail".into(),
        Outcome::Error(e) => format!("error ({}: {})", e.kind, e.message),
    }
}

fn verify(
    outcome: &Outcome,
    prints: &[String],
    observation: Option<&str>,
) -> Result<Checked, Mismatch> {
    let differs = |recorded: &str| {
        Err(Mismatch::OutcomeDiffers {
            replayed: outcome_name(outcome),
            recorded: recorded.into(),
        })
    };
    let Some(obs) = observation else {
        // A program that returned ends the run: the agent is sent no observation of it.
        return if matches!(outcome, Outcome::Return(_)) {
            Ok(Checked::Return)
        } else {
            Err(Mismatch::NoObservation)
        };
    };
    if obs.starts_with("The returned value did not satisfy the application result contract") {
        return if matches!(outcome, Outcome::Return(_)) {
            Ok(Checked::Return)
        } else {
            differs("return")
        };
    }
    if let Some(rest) = obs.strip_prefix("The PTC-Lisp evaluation did not return successfully.") {
        let code = rest
            .split("error_code=:")
            .nth(1)
            .and_then(|s| s.split(';').next())
            .unwrap_or("");
        return match outcome {
            Outcome::Error(e) if e.kind == code => Ok(Checked::ErrorCode),
            _ => differs(&format!("error ({})", rest.trim())),
        };
    }
    let Some(start) = obs.find(SUCCESS_OPEN).map(|i| i + SUCCESS_OPEN.len()) else {
        return differs(obs.lines().next().unwrap_or(""));
    };
    let Outcome::Value(v) = outcome else {
        return differs("success");
    };
    let recorded = &obs[start..obs.rfind(SUCCESS_CLOSE).unwrap_or(obs.len()).max(start)];
    let replayed = observation_body(v, prints);
    let (recorded, cut) = match recorded.strip_suffix(TRUNCATED) {
        Some(r) => (r, true),
        None => (recorded, false),
    };
    let same = if cut {
        replayed.starts_with(recorded)
    } else {
        replayed == recorded
    };
    if same {
        return Ok(if cut {
            Checked::CutObservation
        } else {
            Checked::Observation
        });
    }
    let at = replayed
        .chars()
        .zip(recorded.chars())
        .take_while(|(a, b)| a == b)
        .count();
    let excerpt = |s: &str| {
        s.chars()
            .skip(at.saturating_sub(20))
            .take(60)
            .collect::<String>()
    };
    Err(Mismatch::ObservationDiffers {
        at,
        replayed: excerpt(&replayed),
        recorded: excerpt(recorded),
    })
}

/// Replays a run: the preludes, then each program in order within `budget`. A program that
/// did not succeed leaves memory as it was before it, as ptc_runner keeps only a successful
/// program's definitions.
pub fn replay(run: &RecordedRun, budget: Budget) -> Vec<ReplayedTurn> {
    let mut interp = Interp::new();
    for (_, source) in &run.preludes {
        let none = Rc::new(RefCell::new(Recorded {
            calls: vec![],
            next: 0,
            refused: None,
        }));
        interp.run_prelude(source, budget, Box::new(Answerer(none)));
    }
    let mut out = Vec::new();
    for t in &run.turns {
        let before = interp.memory();
        let rec = Rc::new(RefCell::new(Recorded {
            calls: t.calls.clone(),
            next: 0,
            refused: None,
        }));
        let result = interp.run(&t.source, budget, Box::new(Answerer(rec.clone())));
        if !matches!(result.outcome, Outcome::Value(_) | Outcome::Return(_)) {
            interp.restore_memory(before);
        }
        let rec = rec.borrow();
        let refused_in_run = t
            .observation
            .as_deref()
            .is_some_and(|o| o.starts_with("The capability call failed"));
        let verdict = if rec.refused.is_some() && rec.next == rec.calls.len() && refused_in_run {
            Ok(Checked::RefusedCall)
        } else if let Some(asked) = &rec.refused {
            Err(Mismatch::CallNotRecorded(asked.clone()))
        } else if rec.next < rec.calls.len() {
            Err(Mismatch::CallsMissing(rec.calls.len() - rec.next))
        } else {
            verify(&result.outcome, &result.prints, t.observation.as_deref())
        };
        let (mismatch, checked) = match verdict {
            Ok(c) => (None, c),
            Err(m) => (Some(m), Checked::Nothing),
        };
        out.push(ReplayedTurn {
            evaluation_id: t.evaluation_id.clone(),
            memory: interp.memory(),
            prints: result.prints,
            outcome: result.outcome,
            mismatch,
            checked,
        });
    }
    out
}
