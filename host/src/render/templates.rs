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
//! Templates are tera 2 templates rendering plain text: no escaping. Every set has the host's
//! filters besides tera's own (`pad`, see `render/filters.rs`). A rendered section loses one
//! trailing newline (the one that ends the template file's last line); a section that renders
//! to nothing is left out of its message. What goes wrong with a template is a
//! [`TemplateError`].

use std::collections::HashMap;
use std::path::PathBuf;

use ptc_plugin_api::abi_stable::std_types::Tuple2;
use ptc_plugin_api::{Field, FieldName, Section};
use tera::{Context, Tera, Value};

pub use super::template_error::TemplateError;

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
        super::filters::register(&mut tera);
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
            return Err(TemplateError::broken(
                err,
                &templates.owner,
                &templates.origins,
                &sources,
                None,
            ));
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
            .map_err(|err| TemplateError::broken(err, &self.owner, &self.origins, &[], Some(name)))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn one(source: &str) -> Result<Templates, TemplateError> {
        Templates::load("s", &[("t".into(), source.into())], |_| Vec::new())
    }

    #[test]
    fn no_escaping() {
        let t = one("{{ a }}").unwrap();
        let section = Section::new("t").with("a", "<\"&'>");
        assert_eq!(t.render_section(&section).unwrap(), "<\"&'>");
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
