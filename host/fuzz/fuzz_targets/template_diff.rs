//! The direct template engine against tera. The input chooses two templates, `t` (the one
//! rendered) and `u` (which `t` may include), from a grammar of the part of tera's language the
//! direct engine runs and of what lies just outside it (filters, operators, tests, `set`, `raw`,
//! indexing, malformed tags, stray braces), and the fields of a section (text, integers,
//! booleans, lists and records, nested, names repeated or missing). The section is rendered
//! both ways as ptc sets them up (`ptc::__fuzz`). Whenever the direct engine compiles the
//! template and renders it, tera must render it too, to the same text; otherwise the direct
//! engine must give up or leave the template to tera.
//!
//! With `TEMPLATE_DIFF_SHOW=1` the target prints each input's templates, fields and outcome
//! (for reading a crash or a corpus).
#![no_main]

use libfuzzer_sys::arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use ptc::__fuzz::{template_diff, Direct, Outcome};
use ptc_plugin_api::abi_stable::std_types::{RStr, Tuple2};
use ptc_plugin_api::{Field, Section};

/// Names of fields and of loop variables: a few short ones collide often, and `loop`, tera's
/// keywords and magic variables are among them.
const NAMES: &[&str] = &[
    "s",
    "n",
    "b",
    "items",
    "r",
    "e",
    "i",
    "x",
    "loop",
    "missing",
    "name",
    "none",
    "true",
    "not",
    "__tera_context",
    "in",
];

/// Texts of fields: empty, whitespace, braces, non-ASCII, text that reads as a number or a
/// boolean.
const TEXTS: &[&str] = &[
    "", "a", " b ", "\n", "x y", "{{ s }}", "{%", "é", "3", "true", "False", "0", "a\"b", "\\",
];

const INTEGERS: &[i64] = &[0, 1, -1, 2, 3, 10, -12, i64::MAX, i64::MIN, 1 << 53];

/// Pieces of plain text between tags.
const TEXT_PIECES: &[&str] = &[
    "a", " ", "\n", "  \n ", "\t", "x y", "{", "}", "} }", "{ {", "%}", "#}", "}}", "-", "é",
    "\r\n", "{}", "%", "#",
];

/// Paths: names, dotted paths, loop attributes tera has and some it lacks.
const PATHS: &[&str] = &[
    "s",
    "n",
    "b",
    "items",
    "r",
    "e",
    "i",
    "x",
    "missing",
    "loop",
    "r.name",
    "r.n",
    "r.r",
    "r.r.name",
    "r.missing",
    "r.missing.x",
    "i.name",
    "x.name",
    "s.len",
    "loop.index",
    "loop.index0",
    "loop.first",
    "loop.last",
    "loop.length",
    "loop.revindex",
    "loop.nope",
    "none",
    "true",
    "True",
    "None",
    "_x",
    "__tera_context",
    "items.0",
    "items[0]",
    "r[\"name\"]",
    "r[s]",
];

/// Literals, in and just outside what the direct engine reads.
const LITERALS: &[&str] = &[
    "0",
    "1",
    "3",
    "-1",
    "007",
    "1.5",
    "99999999999999999999",
    "9223372036854775807",
    "\"\"",
    "\"x\"",
    "\"a b\"",
    "\"a\\\"b\"",
    "'x'",
    "`x`",
    "true",
    "false",
    "[1, 2]",
];

/// What a print may hold beyond a path or a literal.
const BEYOND: &[&str] = &[
    "s | upper",
    "items | length",
    "missing | default(value=\"d\")",
    "s | pad(width=3)",
    "items | join(sep=\",\")",
    "n + 1",
    "n * 2",
    "s ~ \"!\"",
    "items | first",
    "s | safe",
    "r | json_encode",
    "n / 0",
    "range(end=3)",
    "items[n]",
    "(n)",
    "-n",
    "n is odd",
    "\"x\" in s",
    "s | length > 1",
];

/// Tags outside the direct subset, or broken.
const ODD_TAGS: &[&str] = &[
    "{{",
    "{%",
    "{#",
    "}}",
    "{{ }}",
    "{% %}",
    "{% if %}",
    "{% else %}",
    "{% elif n %}",
    "{% endif %}",
    "{% endfor %}",
    "{% for %}",
    "{% for i in %}",
    "{% for k, v in r %}{{ k }}{% endfor %}",
    "{% set x = 1 %}",
    "{% set_global x = s %}",
    "{% raw %}{{ s }}{% endraw %}",
    "{% break %}",
    "{% continue %}",
    "{{ s s }}",
    "{{ \"unterminated }}",
    "{{ 'a' }}",
    "{% include \"nope\" %}",
    "{% include s %}",
    "{% macro m() %}m{% endmacro %}",
    "{% filter upper %}f{% endfilter %}",
    "{% block b %}B{% endblock %}",
    "{{- -}}",
    "{%- -%}",
    "{#- -#}",
    "{{ s -}",
    "{{ s }",
    "{% if n %}{% endfor %}",
];

struct Gen<'a, 'b> {
    u: &'a mut Unstructured<'b>,
    /// Nodes left to generate.
    budget: usize,
    /// Whether broken tags and raw bytes may be generated.
    odd: bool,
}

impl Gen<'_, '_> {
    fn pick<'s>(&mut self, from: &[&'s str]) -> Result<&'s str> {
        Ok(from[self.u.choose_index(from.len())?])
    }

    fn dash(&mut self) -> Result<&'static str> {
        Ok(if self.u.ratio(1, 3)? { "-" } else { "" })
    }

    /// A template of up to `budget` nodes, nested up to `depth`.
    fn template(&mut self, out: &mut String, depth: usize) -> Result<()> {
        let count = self.u.int_in_range(0..=5)?;
        for _ in 0..count {
            if self.budget == 0 {
                break;
            }
            self.budget -= 1;
            self.node(out, depth)?;
        }
        Ok(())
    }

    fn node(&mut self, out: &mut String, depth: usize) -> Result<()> {
        // Text, comments and prints; tags outside the subset or broken and raw bytes of the
        // input when `odd` allows them (one of them refuses the whole set, often); blocks and
        // includes while `depth` allows nesting.
        let kinds = if depth == 0 { 9 } else { 14 };
        match self.u.choose_index(kinds)? {
            0..=2 => out.push_str(self.pick(TEXT_PIECES)?),
            3 => {
                let (l, r) = (self.dash()?, self.dash()?);
                let body = self.pick(&[" c ", "", "}}", "%}", " {{ s }} ", "-"])?;
                out.push_str(&format!("{{#{l}{body}{r}#}}"));
            }
            4..=6 => {
                let (l, r) = (self.dash()?, self.dash()?);
                let expr = self.print_expr()?;
                let sp = self.pick(&[" ", "", "  ", "\n"])?;
                out.push_str(&format!("{{{{{l}{sp}{expr}{sp}{r}}}}}"));
            }
            7 if self.odd => out.push_str(self.pick(ODD_TAGS)?),
            8 if self.odd => {
                let len = self.u.int_in_range(0..=6)?.min(self.u.len());
                let bytes = self.u.bytes(len)?;
                out.push_str(&String::from_utf8_lossy(bytes));
            }
            7 | 8 => out.push_str(self.pick(TEXT_PIECES)?),
            9 | 10 => self.if_tag(out, depth - 1)?,
            11 | 12 => self.for_tag(out, depth - 1)?,
            _ => {
                let (l, r) = (self.dash()?, self.dash()?);
                // `t` includes itself: tera refuses the cycle when it loads the set.
                let name = self.pick(&["u", "u", "u", "u", "nope", "t"])?;
                out.push_str(&format!("{{%{l} include \"{name}\" {r}%}}"));
            }
        }
        Ok(())
    }

    fn print_expr(&mut self) -> Result<String> {
        Ok(match self.u.choose_index(6)? {
            0..=2 => self.pick(PATHS)?.to_owned(),
            3 | 4 => self.pick(LITERALS)?.to_owned(),
            _ => self.pick(BEYOND)?.to_owned(),
        })
    }

    fn operand(&mut self) -> Result<String> {
        Ok(if self.u.ratio(2, 3)? {
            self.pick(PATHS)?.to_owned()
        } else {
            self.pick(LITERALS)?.to_owned()
        })
    }

    /// A condition: comparisons, tests, `not`, joined by `and` and `or`, with the odd one
    /// tera reads and the direct engine does not.
    fn condition(&mut self, depth: usize) -> Result<String> {
        if depth > 0 && self.u.ratio(1, 3)? {
            let join = self.pick(&["and", "or", "and", "or", "&&"])?;
            let a = self.condition(depth - 1)?;
            let b = self.condition(depth - 1)?;
            return Ok(format!("{a} {join} {b}"));
        }
        Ok(match self.u.choose_index(8)? {
            0 | 1 => self.operand()?,
            2 => format!("not {}", self.operand()?),
            3 | 4 => {
                let op = self.pick(&["==", "!=", "<", "<=", ">", ">=", "=", "in"])?;
                let sp = self.pick(&[" ", " ", ""])?;
                format!("{}{sp}{op}{sp}{}", self.operand()?, self.operand()?)
            }
            5 => {
                let test = self.pick(&[
                    "is defined",
                    "is not defined",
                    "is undefined",
                    "is string",
                    "is number",
                    "is iterable",
                ])?;
                format!("{} {test}", self.operand()?)
            }
            6 => format!("({})", self.condition(depth.saturating_sub(1))?),
            _ => self.pick(BEYOND)?.to_owned(),
        })
    }

    fn if_tag(&mut self, out: &mut String, depth: usize) -> Result<()> {
        let (l, r) = (self.dash()?, self.dash()?);
        let condition = self.condition(2)?;
        out.push_str(&format!("{{%{l} if {condition} {r}%}}"));
        self.template(out, depth)?;
        for _ in 0..self.u.int_in_range(0..=2)? {
            let (l, r) = (self.dash()?, self.dash()?);
            let condition = self.condition(1)?;
            out.push_str(&format!("{{%{l} elif {condition} {r}%}}"));
            self.template(out, depth)?;
        }
        if self.u.arbitrary()? {
            let (l, r) = (self.dash()?, self.dash()?);
            out.push_str(&format!("{{%{l} else {r}%}}"));
            self.template(out, depth)?;
        }
        let (l, r) = (self.dash()?, self.dash()?);
        out.push_str(&format!("{{%{l} endif {r}%}}"));
        Ok(())
    }

    fn for_tag(&mut self, out: &mut String, depth: usize) -> Result<()> {
        let (l, r) = (self.dash()?, self.dash()?);
        let var = self.pick(&["i", "i", "x", "r", "s", "loop", "n"])?;
        let list = self.pick(&[
            "items", "items", "r.r", "r.items", "i", "x", "s", "missing", "r", "n", "e",
        ])?;
        out.push_str(&format!("{{%{l} for {var} in {list} {r}%}}"));
        self.template(out, depth)?;
        if self.u.ratio(1, 8)? {
            out.push_str("{% else %}");
            self.template(out, depth)?;
        }
        let (l, r) = (self.dash()?, self.dash()?);
        out.push_str(&format!("{{%{l} endfor {r}%}}"));
        Ok(())
    }

    fn field(&mut self, depth: usize) -> Result<Field<'static>> {
        let kinds = if depth == 0 { 3 } else { 5 };
        let field = match self.u.choose_index(kinds)? {
            0 => Field::from(self.pick(TEXTS)?),
            1 => Field::Integer(INTEGERS[self.u.choose_index(INTEGERS.len())?]),
            2 => Field::Boolean(self.u.arbitrary()?),
            3 => {
                let len = self.u.int_in_range(0..=3)?;
                let mut items = Vec::with_capacity(len);
                for _ in 0..len {
                    items.push(self.field(depth - 1)?);
                }
                Field::List(items.into())
            }
            _ => Field::Record(self.fields(depth - 1)?.into()),
        };
        // A run's head hands its fields shared: they read as the fields they hold.
        Ok(match self.u.ratio(1, 6)? {
            true => Field::shared(field),
            false => field,
        })
    }

    fn fields(&mut self, depth: usize) -> Result<Vec<Tuple2<RStr<'static>, Field<'static>>>> {
        let len = self.u.int_in_range(0..=4)?;
        let mut fields = Vec::with_capacity(len);
        for _ in 0..len {
            let name = self.pick(NAMES)?;
            fields.push(Tuple2(RStr::from_str(name), self.field(depth)?));
        }
        Ok(fields)
    }
}

fn generate(data: &[u8]) -> Result<(String, String, Section<'_>)> {
    let mut u = Unstructured::new(data);
    let mut gen = Gen {
        u: &mut u,
        budget: 40,
        odd: false,
    };
    let mut fields = gen.fields(3)?;
    // The names most templates read, so that most paths are defined.
    if gen.u.ratio(3, 4)? {
        for name in ["s", "n", "b", "items", "r"] {
            let field = gen.field(3)?;
            fields.push(Tuple2(RStr::from_str(name), field));
        }
        fields.rotate_right(5);
    }
    let mut t = String::new();
    gen.odd = gen.u.ratio(1, 3)?;
    gen.template(&mut t, 3)?;
    gen.budget = 10;
    gen.odd = gen.u.ratio(1, 8)?;
    let mut u = String::new();
    gen.template(&mut u, 1)?;
    let mut section = Section::new("t");
    section.fields = fields.into();
    Ok((t, u, section))
}

fuzz_target!(|data: &[u8]| {
    let Ok((t, u, section)) = generate(data) else {
        return;
    };
    let sources = [("t".to_owned(), t), ("u".to_owned(), u)];
    let outcome = template_diff(&sources, &section);
    if std::env::var_os("TEMPLATE_DIFF_SHOW").is_some() {
        eprintln!("t: {:?}\nu: {:?}", sources[0].1, sources[1].1);
        eprintln!("fields: {:?}\n=> {outcome:?}\n", section.fields);
    }
    if let Outcome::Rendered {
        direct: Direct::Text(direct),
        tera,
    } = &outcome
    {
        match tera {
            Ok(tera) => assert_eq!(
                direct, tera,
                "the direct engine and tera differ on {sources:?} with {:?}",
                section.fields
            ),
            Err(err) => panic!(
                "the direct engine rendered {direct:?} where tera fails ({err}) on {sources:?} \
                 with {:?}",
                section.fields
            ),
        }
    }
});
