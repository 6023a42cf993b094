//! `doc`: the documentation of a prelude's public function or value, printed as ptc_runner
//! prints it (`PtcRunner.Lisp.Introspection.render_doc`): the reference, the call form, the
//! declared signature or type, the effect, and the docstring.

use std::collections::BTreeSet;

use super::{err, Interp, R};
use crate::print::pr_str;
use crate::value::Value;

/// What a prelude's definition declares about itself, kept for `doc`.
pub(crate) struct DocEntry {
    /// `None` for a value (`def`); the parameters as written for a function.
    params: Option<Vec<Value>>,
    public: bool,
    doc: Option<String>,
    /// The attribute map's entries (`{:signature "..." :effect :read}`), keys without `:`.
    attrs: Vec<(String, Value)>,
    body: Vec<Value>,
}

/// The entries of an attribute map as read (a map literal form), keys by name.
fn attr_entries(form: Option<&Value>) -> Vec<(String, Value)> {
    let Some(Value::List(l)) = form else {
        return vec![];
    };
    let Some(Value::Vector(kvs)) = l.get(1) else {
        return vec![];
    };
    kvs.chunks(2)
        .filter_map(|kv| match kv {
            [Value::Keyword(k) | Value::Str(k), v] => Some((k.to_string(), v.clone())),
            _ => None,
        })
        .collect()
}

fn text(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::Str(s) | Value::Keyword(s) => Some(s.to_string()),
        _ => None,
    }
}

impl Interp {
    /// Records a prelude's `defn`/`defn-` (with `params`) or `def` (without) in the current
    /// namespace. Only a prelude's definitions are documented: a program's are not exports.
    pub(super) fn record_doc(
        &mut self,
        name: &str,
        public: bool,
        doc: Option<&Value>,
        attrs: Option<&Value>,
        params: Option<&Value>,
        body: &[Value],
    ) {
        if !self.loading_prelude {
            return;
        }
        let params = params.map(|p| match p {
            Value::Vector(ps) => ps.to_vec(),
            _ => vec![],
        });
        let entry = DocEntry {
            params,
            public,
            doc: text(doc),
            attrs: attr_entries(attrs),
            body: body.to_vec(),
        };
        self.docs.insert(format!("{}/{name}", self.ns), entry);
    }

    /// `(doc "ns/name")`: prints the documentation of a prelude's public definition, or that
    /// there is none; returns nil.
    pub(crate) fn doc(&mut self, args: &[Value]) -> R<Value> {
        let text = match args {
            [Value::Str(r)] => match self.docs.get(&**r).filter(|d| d.public) {
                Some(d) => self.render(r, d),
                None => format!("No documentation found for \"{r}\"."),
            },
            [_] => return err("type_error", "doc expects a string reference"),
            _ => return err("arity_error", "doc expects 1 argument(s)"),
        };
        self.alloc(text.len())?;
        self.prints.push(crate::print::cap_print(text));
        Ok(Value::Nil)
    }

    fn render(&self, r: &str, d: &DocEntry) -> String {
        let attr = |k: &str| d.attrs.iter().find(|(n, _)| n == k).map(|(_, v)| v);
        let mut lines = vec![r.to_string()];
        match &d.params {
            None => lines.push(r.to_string()),
            Some(ps) if ps.is_empty() => lines.push(format!("({r})")),
            Some(ps) => {
                // Names as written; a destructuring parameter is named by its place.
                let args: Vec<String> = ps
                    .iter()
                    .enumerate()
                    .map(|(i, p)| match p {
                        Value::Symbol(_) => pr_str(p).replace('\'', ""),
                        _ => format!("arg{}", i + 1),
                    })
                    .collect();
                let args = args.join(" ");
                lines.push(format!("({r} {args})"));
            }
        }
        let contract = if d.params.is_none() {
            "type"
        } else {
            "signature"
        };
        if let Some(c) = text(attr(contract)) {
            lines.push(format!("  {c}"));
        }
        lines.push(format!("  effect: {}", self.effect(r)));
        if let Some(doc) = &d.doc {
            let indented: Vec<String> = doc
                .split('\n')
                .map(|l| {
                    if l.is_empty() {
                        String::new()
                    } else {
                        format!("  {l}")
                    }
                })
                .collect();
            lines.push(format!("\n{}", indented.join("\n")));
        }
        lines.join("\n")
    }

    /// The effect `doc` reports, as ptc_runner bounds it: `write` when the definition or
    /// anything it reaches declares `:write`; else `unknown` when it reaches a capability;
    /// else the declared effects joined (`unknown` when none is declared).
    fn effect(&self, r: &str) -> &'static str {
        let (mut effects, mut capability, mut requires) = (BTreeSet::new(), false, false);
        let mut seen = BTreeSet::new();
        let mut todo = vec![r.to_string()];
        while let Some(r) = todo.pop() {
            let Some(d) = self.docs.get(&r).filter(|_| seen.insert(r.clone())) else {
                continue;
            };
            let attr = |k: &str| d.attrs.iter().find(|(n, _)| n == k).map(|(_, v)| v);
            effects.extend(text(attr("effect")));
            if let Some(Value::Vector(rs)) = attr("requires") {
                requires |= !rs.is_empty();
                capability |= rs
                    .iter()
                    .any(|x| matches!(x, Value::Str(s) if s.starts_with("tool:")));
            }
            let ns = r.rsplit_once('/').map_or("", |(ns, _)| ns);
            let mut forms: Vec<&Value> = d.body.iter().collect();
            while let Some(f) = forms.pop() {
                match f {
                    Value::Symbol(s) if s.starts_with("tool/") => capability = true,
                    Value::Symbol(s) if s.contains('/') => todo.push(s.to_string()),
                    Value::Symbol(s) => todo.push(format!("{ns}/{s}")),
                    Value::List(items) | Value::Vector(items) | Value::Set(items) => {
                        forms.extend(items.iter())
                    }
                    Value::Map(entries) => forms.extend(entries.iter().flat_map(|(k, v)| [k, v])),
                    _ => {}
                }
            }
        }
        if effects.contains("write") {
            "write"
        } else if capability || effects.contains("unknown") {
            "unknown"
        } else if effects.contains("read") || requires {
            "read"
        } else {
            "unknown"
        }
    }
}
