//! What goes wrong with a template, as the user is told: which template (`owner/name`), the file
//! it was read from or `compiled in`, the line when known, and tera's message followed by the
//! errors it wraps, in one line. tera gives most of these as typed errors; the ones it reports
//! while templates are added (an unknown template included, an unknown filter, ...) come as text
//! alone, which `Report` reads. Where tera does not say on which line an `extends` or
//! `include` is, the first line naming its target is given.

use std::collections::HashMap;
use std::path::PathBuf;

use tera::ErrorKind;

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
    /// Its output outgrew [`super::growth::MAX_GROWTH`] beyond the `given` bytes of text of
    /// its values.
    #[error(
        "template `{name}` ({origin}): its output grew more than {} MiB beyond the {given} byte(s) of text it was given; a loop that does not end?",
        super::growth::MAX_GROWTH >> 20
    )]
    TooLarge {
        name: String,
        origin: String,
        given: usize,
    },
    /// Another user could have written the file (or a directory holding it, up to the
    /// templates directory), by the rule plugins and the configuration follow.
    #[error("refusing template {path}: {reason} (or pass --allow-insecure-plugins)")]
    Insecure { path: PathBuf, reason: String },
    #[error("strategy `{strategy}` asked for template `{name}`, which it does not provide (it has: {known})")]
    Missing {
        strategy: String,
        name: String,
        known: String,
    },
}

impl TemplateError {
    /// A tera error as the user should see it: the template it is about, its file, and the
    /// line when known. `owner` and `origins` (template name -> file or `compiled in`) are those
    /// of the set it happened in; `sources` (name, text) are the templates being added, if any;
    /// `rendering` is the template being rendered, if any.
    pub(super) fn broken(
        err: tera::Error,
        owner: &str,
        origins: &HashMap<String, String>,
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
        let origin = origins.get(&name);
        TemplateError::Broken {
            name: match origin {
                Some(_) => format!("{owner}/{name}"),
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

#[cfg(test)]
mod tests {
    use ptc_plugin_api::Section;

    use crate::render::templates::{TemplateError, Templates};

    fn one(source: &str) -> Result<Templates, TemplateError> {
        Templates::load("s", &[("t".into(), source.into())], |_| Vec::new())
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
}
