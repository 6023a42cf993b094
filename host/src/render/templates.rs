//! Templates: the prompts ptc renders and the layouts of its reports come from tera templates.
//! A strategy's defaults are compiled into its plugin; the host's own (the default system
//! prompt, the layouts of `render --format text`, of `trace` and `trace --usage`, and the page
//! of `ab --report`) into the host. A file `<templates dir>/<strategy>/<name>.tera` (or
//! `<templates dir>/<name>.tera` for the host's) replaces a default at run time.
//!
//! Texts that stay in code: `ab`'s table, markdown, CSV and JSON output, and the tables and
//! SVG charts (captions and axis labels included) the report page is given;
//! `validate`'s problem lines and summary; the `strategies` listing; `diff`'s message headers;
//! the one-line confirmations of `init`, `import` and `new-plugin`; every JSON output; errors
//! and warnings.
//!
//! Templates are tera 2 templates rendering plain text: no escaping. The host registers one filter, `pad`:
//! `{{ name | pad(width=30, min=1) }}` appends spaces up to `width` characters, and at least
//! `min` (default 0). A rendered section loses one trailing newline (the one that ends the
//! template file's last line); a section that renders to nothing is left out of its message.

use std::collections::HashMap;
use std::path::PathBuf;

use ptc_plugin_api::abi_stable::std_types::Tuple2;
use ptc_plugin_api::{Field, FieldName, Section};
use tera::{Context, ErrorKind, Kwargs, State, Tera, TeraResult, Value};

/// The host's default system prompt (ARC-008: language reference and output format only).
pub const SYSTEM_PROMPT: &str = include_str!("../../../templates/system_prompt.tera");
/// The layout of `ptc render --format text`.
pub const TEXT_OUTPUT: &str = include_str!("../../../templates/text_output.tera");
/// `ptc trace`'s turns view.
pub const TRACE_TURNS: &str = include_str!("../../../templates/trace_turns.tera");
/// `ptc trace --usage`: the compression box of the guide, and the size figures.
pub const COMPRESSION_BOX: &str = include_str!("../../../templates/compression_box.tera");
pub const USAGE: &str = include_str!("../../../templates/usage.tera");
/// `ptc ab --report`: the HTML page around the tables and charts.
pub const REPORT_HTML: &str = include_str!("../../../templates/report.html.tera");

/// The host's own templates: name -> default text.
pub fn host_defaults() -> [(&'static str, &'static str); 6] {
    [
        ("system_prompt", SYSTEM_PROMPT),
        ("text_output", TEXT_OUTPUT),
        ("trace_turns", TRACE_TURNS),
        ("compression_box", COMPRESSION_BOX),
        ("usage", USAGE),
        ("report.html", REPORT_HTML),
    ]
}

/// A template that cannot be parsed or rendered.
#[derive(Debug, thiserror::Error)]
pub enum TemplateError {
    #[error("cannot read template {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// tera cannot parse or render it. The message says which template (file and line when
    /// known) and tera's message, then the errors tera's error wraps, in one line.
    #[error(
        "template `{name}` ({origin}){}: {}",
        .line.map(|l| format!(", line {l}")).unwrap_or_default(),
        cause(.source)
    )]
    Broken {
        /// `owner/template`, or tera's name for it when it is not one of the set.
        name: String,
        /// The file it was read from, or `compiled in`.
        origin: String,
        line: Option<usize>,
        #[source]
        source: Box<tera::Error>,
    },
    #[error("strategy `{strategy}` asked for template `{name}`, which it does not provide (it has: {known})")]
    Missing {
        strategy: String,
        name: String,
        known: String,
    },
}

/// A set of templates: the defaults given, each replaced by a file of the same name in an
/// override directory when one exists.
pub struct Templates {
    tera: Tera,
    /// Template name -> where its text came from (file path or `compiled in`).
    origins: HashMap<String, String>,
    owner: String,
}

impl Templates {
    /// `defaults` (name -> source) of `owner` (a strategy name, or `ptc` for the host's), each
    /// overridden by the first file of `overrides(name)` that exists.
    pub fn load(
        owner: &str,
        defaults: &[(String, String)],
        overrides: impl Fn(&str) -> Vec<PathBuf>,
    ) -> Result<Templates, TemplateError> {
        let mut tera = Tera::new();
        tera.autoescape_on(Vec::<&str>::new());
        tera.register_filter("pad", pad);
        let mut origins = HashMap::new();
        let mut sources = Vec::with_capacity(defaults.len());
        for (name, default) in defaults {
            let file = overrides(name).into_iter().find(|file| file.is_file());
            let (source, origin) = if let Some(file) = file {
                let text = std::fs::read_to_string(&file).map_err(|source| TemplateError::Io {
                    path: file.clone(),
                    source,
                })?;
                tracing::debug!("template {owner}/{name} from {}", file.display());
                (text, file.display().to_string())
            } else {
                (default.clone(), "compiled in".to_owned())
            };
            origins.insert(name.clone(), origin);
            sources.push((name.clone(), source));
        }
        let mut templates = Templates {
            tera,
            origins,
            owner: owner.to_owned(),
        };
        if let Err(err) = templates.tera.add_raw_templates(sources.clone()) {
            return Err(templates.broken(err, &sources, None));
        }
        Ok(templates)
    }

    /// Renders template `name` with `context`.
    pub fn render(&self, name: &str, context: &Context) -> Result<String, TemplateError> {
        if !self.origins.contains_key(name) {
            let mut known: Vec<&str> = self.origins.keys().map(String::as_str).collect();
            known.sort_unstable();
            return Err(TemplateError::Missing {
                strategy: self.owner.clone(),
                name: name.into(),
                known: known.join(", "),
            });
        }
        self.tera
            .render(name, context)
            .map_err(|err| self.broken(err, &[], Some(name)))
    }

    /// Renders one section of a strategy's output, without the final newline.
    pub fn render_section(&self, section: &Section) -> Result<String, TemplateError> {
        let mut context = Context::new();
        for Tuple2(name, field) in section.fields.iter() {
            context.insert_value(name.as_str(), field_value(field));
        }
        let mut text = self.render(section.template.as_str(), &context)?;
        if text.ends_with('\n') {
            text.pop();
        }
        Ok(text)
    }

    /// A tera error as the user should see it: the template it is about, its file, and the
    /// line when known. `sources` (name, text) are the templates being added, if any;
    /// `rendering` is the template being rendered, if any.
    fn broken(
        &self,
        err: tera::Error,
        sources: &[(String, String)],
        rendering: Option<&str>,
    ) -> TemplateError {
        let (name, line) = match err.kind() {
            ErrorKind::SyntaxError(report) | ErrorKind::RenderingError(report) => (
                Some(report.filename()).filter(|name| !name.is_empty()),
                Some(report.span().start_line),
            ),
            // tera does not say where the `extends` or `include` is: the first line naming it.
            ErrorKind::MissingParent { current, parent } => (
                Some(current.as_str()),
                line_naming(sources, current, parent),
            ),
            ErrorKind::CircularExtend {
                tpl,
                inheritance_chain,
            } => (
                Some(tpl.as_str()),
                inheritance_chain
                    .first()
                    .and_then(|parent| line_naming(sources, tpl, parent)),
            ),
            ErrorKind::CircularInclude { include_chain, .. } => match include_chain.as_slice() {
                [first, second, ..] => (Some(first.as_str()), line_naming(sources, first, second)),
                _ => (None, None),
            },
            ErrorKind::Msg(text) => match Report::first(text) {
                Some(report) => (Some(report.name), Some(report.line)),
                None => (None, None),
            },
            _ => (None, None),
        };
        let name = name.or(rendering).unwrap_or("?").to_owned();
        let origin = self.origins.get(&name);
        TemplateError::Broken {
            name: match origin {
                Some(_) => format!("{}/{name}", self.owner),
                None => name,
            },
            origin: origin.cloned().unwrap_or_else(|| "unknown".into()),
            line,
            source: Box::new(err),
        }
    }
}

/// The first line of template `name` among `sources` that names template `named`.
fn line_naming(sources: &[(String, String)], name: &str, named: &str) -> Option<usize> {
    let (_, text) = sources.iter().find(|(n, _)| n == name)?;
    Some(text.lines().position(|l| l.contains(named))? + 1)
}

/// What went wrong with a template, in one line: tera's message without the excerpt of the
/// template it shows (the template and line are given apart), then each error it wraps.
fn cause(err: &tera::Error) -> String {
    let mut text = match err.kind() {
        ErrorKind::SyntaxError(report) | ErrorKind::RenderingError(report) => {
            report.message().to_owned()
        }
        ErrorKind::MissingParent { parent, .. } => format!(
            "it extends `{parent}`, which is not one of its templates (a template extends or includes only templates of the same set, by name)"
        ),
        ErrorKind::CircularExtend {
            tpl,
            inheritance_chain,
        } => format!("circular extends: {tpl} -> {}", inheritance_chain.join(" -> ")),
        ErrorKind::CircularInclude { include_chain, .. } => {
            format!("circular include: {}", include_chain.join(" -> "))
        }
        ErrorKind::Msg(text) => match Report::first(text) {
            Some(report) => match report.more {
                0 => report.message.to_owned(),
                more => format!("{} (and {more} more error(s))", report.message),
            },
            None => text.clone(),
        },
        other => other.to_string(),
    };
    let mut source = std::error::Error::source(err);
    while let Some(cause) = source {
        let more = cause.to_string();
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        source = cause.source();
    }
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The first of the reports tera joins into one message when templates are added (an unknown
/// template included, an unknown filter, ...), the only errors it gives as text alone: each
/// starts with `error: MESSAGE` then ` --> NAME:LINE:COLUMN`.
struct Report<'a> {
    name: &'a str,
    line: usize,
    message: &'a str,
    /// How many reports follow it.
    more: usize,
}

impl<'a> Report<'a> {
    fn first(text: &'a str) -> Option<Report<'a>> {
        let mut lines = text.lines().map(str::trim);
        let message = lines.next()?.strip_prefix("error: ")?;
        let place = lines.next()?.strip_prefix("--> ")?;
        let mut parts = place.rsplitn(3, ':');
        let _column = parts.next()?;
        let line = parts.next()?.parse().ok()?;
        let name = parts.next()?;
        let more = lines.filter(|l| l.starts_with("error: ")).count();
        Some(Report {
            name,
            line,
            message,
            more,
        })
    }
}

/// A strategy's field as a tera value. Field names are static strings, so records borrow them.
fn field_value(field: &Field) -> Value {
    match field {
        Field::Text(s) => Value::from(s.as_str()),
        Field::Integer(i) => Value::from(*i),
        Field::Boolean(b) => Value::from(*b),
        Field::List(items) => Value::from(items.iter().map(field_value).collect::<Vec<Value>>()),
        Field::Record(fields) => Value::from(record(fields)),
    }
}

fn record(fields: &[Tuple2<FieldName, Field>]) -> tera::Map {
    let mut map = tera::Map::default();
    map.reserve(fields.len());
    for Tuple2(name, field) in fields {
        map.insert(tera::value::Key::Str(name.as_str()), field_value(field));
    }
    map
}

/// `pad(width=N, min=M)`: spaces appended up to `width` characters, at least `min` of them.
/// Numbers are padded as printed.
fn pad(value: Value, kwargs: Kwargs, _: &State) -> TeraResult<String> {
    let printed;
    let text = match value.as_str() {
        Some(text) => text,
        None => {
            printed = value.to_string();
            &printed
        }
    };
    let width: usize = kwargs.must_get("width")?;
    let min: usize = kwargs.get("min")?.unwrap_or(0);
    let spaces = width.saturating_sub(text.chars().count()).max(min);
    let mut out = String::with_capacity(text.len() + spaces);
    out.push_str(text);
    out.extend(std::iter::repeat_n(' ', spaces));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(source: &str) -> Result<Templates, TemplateError> {
        Templates::load("s", &[("t".into(), source.into())], |_| Vec::new())
    }

    #[test]
    fn pad_pads_to_width_with_a_minimum() {
        let t = one("[{{ a | pad(width=5) }}][{{ b | pad(width=3, min=1) }}]\n").unwrap();
        let section = Section::new("t").with("a", "ab").with("b", "abcd");
        assert_eq!(t.render_section(&section).unwrap(), "[ab   ][abcd ]");
    }

    #[test]
    fn no_escaping() {
        let t = one("{{ a }}").unwrap();
        let section = Section::new("t").with("a", "<\"&'>");
        assert_eq!(t.render_section(&section).unwrap(), "<\"&'>");
    }

    #[test]
    fn parse_errors_name_template_and_line() {
        let err = one("line one\n{% if %}x{% endif %}\n")
            .err()
            .unwrap()
            .to_string();
        assert!(
            err.starts_with("template `s/t` (compiled in), line 2: Found `%}`"),
            "{err}"
        );
    }

    #[test]
    fn render_errors_name_template_and_line() {
        let t = one("fine\n{{ missing }}\n").unwrap();
        let err = t
            .render_section(&Section::new("t"))
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("template `s/t` (compiled in), line 2:"),
            "{err}"
        );
        assert!(err.contains("missing"), "{err}");
    }

    #[test]
    fn including_an_unknown_template_names_template_and_line() {
        let err = one("fine\n{% include \"../../etc/passwd\" %}\n")
            .err()
            .unwrap()
            .to_string();
        assert_eq!(
            err,
            "template `s/t` (compiled in), line 2: Unknown template `../../etc/passwd`"
        );
    }

    #[test]
    fn extending_an_unknown_template_names_template_and_line() {
        let err = one("\n{% extends \"/etc/passwd\" %}\n")
            .err()
            .unwrap()
            .to_string();
        assert!(
            err.starts_with(
                "template `s/t` (compiled in), line 2: it extends `/etc/passwd`, which is not one of its templates"
            ),
            "{err}"
        );
    }

    #[test]
    fn an_include_cycle_names_template_line_and_cycle() {
        let err = one("fine\n{% include \"t\" %}\n").err().unwrap();
        assert_eq!(
            err.to_string(),
            "template `s/t` (compiled in), line 2: circular include: t -> t"
        );
        let source = std::error::Error::source(&err).expect("tera's error is the source");
        assert!(
            source.to_string().starts_with("Circular include detected"),
            "{source}"
        );
    }

    #[test]
    fn the_first_of_several_errors_says_how_many_follow() {
        let err = one("{{ a | nope }}\n{{ b | nope }}\n{{ c | nope }}\n")
            .err()
            .unwrap()
            .to_string();
        assert_eq!(
            err,
            "template `s/t` (compiled in), line 1: Unknown filter `nope` (and 2 more error(s))"
        );
    }

    #[test]
    fn unknown_template_is_an_error() {
        let t = one("x").unwrap();
        let err = t
            .render_section(&Section::new("nope"))
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "strategy `s` asked for template `nope`, which it does not provide (it has: t)"
        );
    }
}
