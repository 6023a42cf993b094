//! Templates: every text ptc writes comes from a tera template. A strategy's defaults are
//! compiled into its plugin; the host's own (the default system prompt, the text output
//! layout) into the host. A file `<templates dir>/<strategy>/<name>.tera` (or
//! `<templates dir>/<name>.tera` for the host's) replaces a default at run time.
//!
//! Templates render plain text: no escaping. The host registers one filter, `pad`:
//! `{{ name | pad(width=30, min=1) }}` appends spaces up to `width` characters, and at least
//! `min` (default 0). A rendered section loses one trailing newline (the one that ends the
//! template file's last line); a section that renders to nothing is left out of its message.

use std::collections::HashMap;
use std::error::Error as _;
use std::path::{Path, PathBuf};

use ptc_plugin_api::{Field, Section};
use serde_json::{Map, Value as Json};
use tera::{Context, Tera};

/// The host's default system prompt (ARC-008: language reference and output format only).
pub const SYSTEM_PROMPT: &str = include_str!("../../templates/system_prompt.tera");
/// The layout of `ptc render --format text`.
pub const TEXT_OUTPUT: &str = include_str!("../../templates/text_output.tera");

/// A template that cannot be parsed or rendered.
#[derive(Debug, thiserror::Error)]
pub enum TemplateError {
    #[error("cannot read template {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("template `{name}` ({origin}){place}: {cause}")]
    Broken {
        name: String,
        origin: String,
        /// `, line N` when known.
        place: String,
        cause: String,
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
    sources: HashMap<String, String>,
    owner: String,
}

impl Templates {
    /// `defaults` (name -> source) of `owner` (a strategy name, or `ptc` for the host's),
    /// overridden by `<dir>/<name>.tera` files.
    pub fn load(
        owner: &str,
        defaults: &[(String, String)],
        dir: &Path,
    ) -> Result<Templates, TemplateError> {
        let mut tera = Tera::default();
        tera.autoescape_on(vec![]);
        tera.register_filter("pad", pad);
        let mut templates = Templates {
            tera,
            origins: HashMap::new(),
            sources: HashMap::new(),
            owner: owner.to_owned(),
        };
        for (name, default) in defaults {
            let file = dir.join(format!("{name}.tera"));
            let (source, origin) = if file.is_file() {
                let text = std::fs::read_to_string(&file).map_err(|source| TemplateError::Io {
                    path: file.clone(),
                    source,
                })?;
                tracing::debug!("template {owner}/{name} from {}", file.display());
                (text, file.display().to_string())
            } else {
                (default.clone(), "compiled in".to_owned())
            };
            templates.origins.insert(name.clone(), origin);
            templates.sources.insert(name.clone(), source);
        }
        let sources: Vec<(&str, &str)> = templates
            .sources
            .iter()
            .map(|(n, s)| (n.as_str(), s.as_str()))
            .collect();
        if let Err(err) = templates.tera.add_raw_templates(sources) {
            return Err(templates.broken(&err));
        }
        Ok(templates)
    }

    /// Renders template `name` with `context`.
    pub fn render(&self, name: &str, context: &Context) -> Result<String, TemplateError> {
        if !self.sources.contains_key(name) {
            let mut known: Vec<&str> = self.sources.keys().map(String::as_str).collect();
            known.sort_unstable();
            return Err(TemplateError::Missing {
                strategy: self.owner.clone(),
                name: name.into(),
                known: known.join(", "),
            });
        }
        self.tera
            .render(name, context)
            .map_err(|err| self.broken(&err))
    }

    /// Renders one section of a strategy's output, without the final newline.
    pub fn render_section(&self, section: &Section) -> Result<String, TemplateError> {
        let context = Context::from_value(Json::Object(fields_json(&section.fields)))
            .expect("an object is a valid context");
        let mut text = self.render(section.template.as_str(), &context)?;
        if text.ends_with('\n') {
            text.pop();
        }
        Ok(text)
    }

    /// A tera error as the user should see it: template, file, line when known, root cause.
    fn broken(&self, err: &tera::Error) -> TemplateError {
        let mut messages = vec![err.to_string()];
        let mut source = err.source();
        while let Some(cause) = source {
            messages.push(cause.to_string());
            source = cause.source();
        }
        let name = messages
            .iter()
            .flat_map(|m| m.split('\'').skip(1).step_by(2))
            .find(|n| self.sources.contains_key(*n))
            .unwrap_or("?")
            .to_owned();
        let last = messages.last().cloned().unwrap_or_default();
        // A parse error draws the place (`--> 3:5`, the line, a caret) and ends with `= cause`.
        let cause = match last.rsplit_once("= ") {
            Some((_, cause)) if last.contains("--> ") => cause.trim().to_owned(),
            _ => last.clone(),
        };
        let line = parse_error_line(&last).or_else(|| {
            let needle = quoted_after(&cause, "`")?;
            let source = self.sources.get(&name)?;
            source
                .lines()
                .position(|l| l.contains(&needle))
                .map(|i| i + 1)
        });
        TemplateError::Broken {
            origin: self
                .origins
                .get(&name)
                .cloned()
                .unwrap_or_else(|| "unknown".into()),
            name: if name == "?" {
                name
            } else {
                format!("{}/{name}", self.owner)
            },
            place: line.map(|l| format!(", line {l}")).unwrap_or_default(),
            cause,
        }
    }
}

/// The text after `open` up to the matching quote (`'` or a backtick).
fn quoted_after(text: &str, open: &str) -> Option<String> {
    let start = text.find(open)? + open.len();
    let close = open.chars().last()?;
    let len = text[start..].find(close)?;
    Some(text[start..start + len].to_owned())
}

/// The line of a tera parse error (`--> 3:5`).
fn parse_error_line(cause: &str) -> Option<usize> {
    let at = cause.find("--> ")? + 4;
    let digits: String = cause[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// A strategy's fields as a JSON object for tera.
pub fn fields_json(
    fields: &[ptc_plugin_api::abi_stable::std_types::Tuple2<
        ptc_plugin_api::abi_stable::std_types::RString,
        Field,
    >],
) -> Map<String, Json> {
    fields
        .iter()
        .map(|f| (f.0.as_str().to_owned(), field_json(&f.1)))
        .collect()
}

fn field_json(field: &Field) -> Json {
    match field {
        Field::Text(s) => Json::String(s.as_str().to_owned()),
        Field::Integer(i) => Json::from(*i),
        Field::Boolean(b) => Json::Bool(*b),
        Field::List(items) => Json::Array(items.iter().map(field_json).collect()),
        Field::Record(fields) => Json::Object(fields_json(fields)),
    }
}

/// `pad(width=N, min=M)`: spaces appended up to `width` characters, at least `min` of them.
fn pad(value: &Json, args: &HashMap<String, Json>) -> tera::Result<Json> {
    let text = match value {
        Json::String(s) => s.clone(),
        other => other.to_string(),
    };
    let number = |name: &str, default: Option<u64>| -> tera::Result<usize> {
        match args.get(name) {
            Some(v) => v.as_u64().map(|n| n as usize).ok_or_else(|| {
                tera::Error::msg(format!("pad: `{name}` must be a non-negative integer"))
            }),
            None => default
                .map(|d| d as usize)
                .ok_or_else(|| tera::Error::msg(format!("pad: missing `{name}`"))),
        }
    };
    let width = number("width", None)?;
    let min = number("min", Some(0))?;
    let len = text.chars().count();
    let spaces = width.saturating_sub(len).max(min);
    let mut out = text;
    out.extend(std::iter::repeat_n(' ', spaces));
    Ok(Json::String(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(source: &str) -> Result<Templates, TemplateError> {
        Templates::load(
            "s",
            &[("t".into(), source.into())],
            Path::new("/nonexistent"),
        )
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
            err.starts_with("template `s/t` (compiled in), line 2: expected"),
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
