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
//!
//! A template's output may be at most [`MAX_GROWTH`] bytes longer than the text of the values
//! it is given: a template that loops away ends with an error naming it instead of filling the
//! memory. Only what it writes is bounded: a value it builds without writing it (a string
//! doubled in a loop, a `set` block) and a loop that writes nothing are not.

use std::cell::Cell;
use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;

use ptc_plugin_api::abi_stable::std_types::Tuple2;
use ptc_plugin_api::{Field, Section};
use rustc_hash::FxHashMap;
use serde::Serialize;
use tera::{Context, Tera, Value};

use super::direct;
use super::growth::MAX_GROWTH;
pub use super::template_error::TemplateError;

/// The host's default system prompt: the language reference and the output format only.
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
/// The origin of a template compiled into ptc or its strategy.
const COMPILED_IN: &str = "compiled in";

/// Where a template was loaded from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// The default, compiled in.
    BuiltIn,
    /// A user's file, which overrides the default.
    File(PathBuf),
    /// No template of that name.
    Missing,
}

pub struct Templates {
    tera: Tera,
    /// Template name -> where its text came from (file path or `compiled in`).
    origins: HashMap<String, String>,
    owner: String,
    /// FNV-1a 64 of every template's name and text, in the order of the defaults.
    digest: u64,
    /// The templates that run directly on a strategy's fields (see `direct/`), by name.
    pub(super) direct: FxHashMap<String, direct::Program>,
}

impl Templates {
    /// `defaults` (name -> source) of `owner` (a strategy name, or `ptc` for the host's), each
    /// overridden by the first file of `overrides(name)` that exists.
    pub fn load(
        owner: &str,
        defaults: &[(String, String)],
        overrides: impl Fn(&str) -> Vec<PathBuf>,
    ) -> Result<Templates, TemplateError> {
        Templates::load_checked(owner, defaults, overrides, |_| None)
    }

    /// [`Templates::load`], each override file used only when `insecure` finds no reason to
    /// refuse it (why another user could have written it).
    pub fn load_checked(
        owner: &str,
        defaults: &[(String, String)],
        overrides: impl Fn(&str) -> Vec<PathBuf>,
        insecure: impl Fn(&std::path::Path) -> Option<String>,
    ) -> Result<Templates, TemplateError> {
        let mut tera = Tera::new();
        tera.autoescape_on(Vec::<&str>::new());
        super::filters::register(&mut tera);
        let mut origins = HashMap::new();
        let mut sources = Vec::with_capacity(defaults.len());
        for (name, default) in defaults {
            let file = overrides(name).into_iter().find(|file| file.is_file());
            let (source, origin) = if let Some(file) = file {
                if let Some(reason) = insecure(&file) {
                    return Err(TemplateError::Insecure { path: file, reason });
                }
                let text = std::fs::read_to_string(&file).map_err(|source| TemplateError::Io {
                    path: file.clone(),
                    source,
                })?;
                tracing::debug!("template {owner}/{name} from {}", file.display());
                (text, file.display().to_string())
            } else {
                (default.clone(), COMPILED_IN.to_owned())
            };
            origins.insert(name.clone(), origin);
            sources.push((name.clone(), source));
        }
        let direct = sources
            .iter()
            .filter_map(|(name, source)| Some((name.clone(), direct::compile(source)?)))
            .collect();
        let mut texts = Vec::new();
        for (name, source) in &sources {
            for part in [name, source] {
                texts.extend_from_slice(&(part.len() as u64).to_le_bytes());
                texts.extend_from_slice(part.as_bytes());
            }
        }
        let mut templates = Templates {
            tera,
            origins,
            owner: owner.to_owned(),
            digest: crate::hash::fnv1a64(&texts),
            direct,
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

    /// A hash of every template's name and the text in effect (compiled in or overridden):
    /// equal digests, the same templates.
    pub fn digest(&self) -> u64 {
        self.digest
    }

    /// Renders template `name` with `values`, an object whose fields are its variables.
    pub fn render<T: Serialize + ?Sized>(
        &self,
        name: &str,
        values: &T,
    ) -> Result<String, TemplateError> {
        let value = Value::try_from_serializable(values).map_err(|err| {
            TemplateError::broken(err, &self.owner, &self.origins, &[], Some(name))
        })?;
        let given = value_size(&value);
        let mut context = Context::new();
        for (key, value) in value
            .into_map()
            .expect("the values of a template are an object")
        {
            let key = key
                .as_str()
                .expect("an object's keys are strings")
                .to_owned();
            context.insert_value(key, value);
        }
        self.render_context(name, &context, given)
    }

    /// Renders template `name` with `context`, whose values hold `given` bytes of text: its
    /// output may be at most [`MAX_GROWTH`] bytes more.
    fn render_context(
        &self,
        name: &str,
        context: &Context,
        given: usize,
    ) -> Result<String, TemplateError> {
        let mut out = Vec::new();
        self.render_into(name, context, given, &mut out)?;
        Ok(String::from_utf8(out)
            .unwrap_or_else(|err| String::from_utf8_lossy(err.as_bytes()).into_owned()))
    }

    /// [`Templates::render_context`] into `out`, which it clears first.
    fn render_into(
        &self,
        name: &str,
        context: &Context,
        given: usize,
        out: &mut Vec<u8>,
    ) -> Result<(), TemplateError> {
        if !self.origins.contains_key(name) {
            let mut known: Vec<&str> = self.origins.keys().map(String::as_str).collect();
            known.sort_unstable();
            return Err(TemplateError::Missing {
                strategy: self.owner.clone(),
                name: name.into(),
                known: known.join(", "),
            });
        }
        out.clear();
        let mut bounded = Bounded {
            bytes: out,
            limit: given.saturating_add(MAX_GROWTH),
            over: false,
        };
        match self.tera.render_to(name, context, &mut bounded) {
            Ok(()) => Ok(()),
            Err(_) if bounded.over => Err(TemplateError::TooLarge {
                name: format!("{}/{name}", self.owner),
                origin: self.origins[name].clone(),
                given,
            }),
            Err(err) => Err(TemplateError::broken(
                err,
                &self.owner,
                &self.origins,
                &[],
                Some(name),
            )),
        }
    }

    /// Where template `name` was loaded from.
    pub fn origin(&self, name: &str) -> Origin {
        match self.origins.get(name).map(String::as_str) {
            None => Origin::Missing,
            Some(COMPILED_IN) => Origin::BuiltIn,
            Some(path) => Origin::File(PathBuf::from(path)),
        }
    }

    /// The fields of `section` as pretty JSON, in the order the strategy gave them, as the
    /// template receives them.
    pub fn fields_json(&self, section: &Section) -> String {
        struct Fields<'a>(&'a Section<'a>);
        impl Serialize for Fields<'_> {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                use serde::ser::SerializeMap;
                let size = Cell::new(0);
                let mut map = serializer.serialize_map(Some(self.0.fields.len()))?;
                for Tuple2(name, field) in self.0.fields.iter() {
                    map.serialize_entry(name.as_str(), &AsTera { field, size: &size })?;
                }
                map.end()
            }
        }
        serde_json::to_string_pretty(&Fields(section)).unwrap_or_default()
    }

    /// Renders one section of a strategy's output, without the final newline.
    pub fn render_section(&self, section: &Section) -> Result<String, TemplateError> {
        let mut text = String::new();
        self.append_section(section, &mut Vec::new(), &mut text)?;
        Ok(text)
    }

    /// Renders one section of a strategy's output, without the final newline, and appends it
    /// to `text`; `scratch` is a buffer the caller may reuse from one section to the next.
    ///
    /// A template that runs directly on the fields (see `direct/`) is run so; when it gives up,
    /// and for every other template, the fields become tera values and tera renders it.
    pub fn append_section(
        &self,
        section: &Section,
        scratch: &mut Vec<u8>,
        text: &mut String,
    ) -> Result<(), TemplateError> {
        if let Some(program) = self.direct.get(section.template.as_str()) {
            let start = text.len();
            match direct::render(program, &self.direct, &section.fields, text) {
                Ok(()) => {
                    if text.len() > start && text.ends_with('\n') {
                        text.pop();
                    }
                    return Ok(());
                }
                Err(direct::Bail) => text.truncate(start),
            }
        }
        self.append_with_tera(section, scratch, text)
    }

    /// [`Templates::append_section`] through tera, whatever the template.
    pub(super) fn append_with_tera(
        &self,
        section: &Section,
        scratch: &mut Vec<u8>,
        text: &mut String,
    ) -> Result<(), TemplateError> {
        let mut context = Context::new();
        let given = Cell::new(0);
        for Tuple2(name, field) in section.fields.iter() {
            given.set(given.get() + name.len());
            context.insert_value(name.as_str(), field_value(field, &given));
        }
        self.render_into(section.template.as_str(), &context, given.get(), scratch)?;
        if scratch.last() == Some(&b'\n') {
            scratch.pop();
        }
        match std::str::from_utf8(scratch) {
            Ok(rendered) => text.push_str(rendered),
            Err(_) => text.push_str(&String::from_utf8_lossy(scratch)),
        }
        Ok(())
    }
}

/// A template's output, refused once it would grow over `limit` bytes.
struct Bounded<'a> {
    bytes: &'a mut Vec<u8>,
    limit: usize,
    /// Whether a write was refused.
    over: bool,
}

impl Write for Bounded<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.bytes.len().saturating_add(buf.len()) > self.limit {
            self.over = true;
            return Err(std::io::Error::other(
                "the template's output is over its limit",
            ));
        }
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The bytes of text in a tera value (anything but a string, a list or a map counts as 20).
fn value_size(value: &Value) -> usize {
    if let Some(text) = value.as_str() {
        text.len()
    } else if let Some(items) = value.as_array() {
        items.iter().map(value_size).sum()
    } else if let Some(map) = value.as_map() {
        map.iter()
            .map(|(key, value)| key.as_str().map_or(20, str::len) + value_size(value))
            .sum()
    } else {
        20
    }
}

/// A strategy's field as a tera value, its bytes of text (counted as [`value_size`] counts
/// them) added to `size`. It goes through tera's serializer, which builds each record's map
/// once, keyed by the field names as they are (static strings of the plugin, which stays
/// loaded).
fn field_value(field: &Field, size: &Cell<usize>) -> Value {
    Value::from_serializable(&AsTera { field, size })
}

/// Serializes a [`Field`] as its tera value: text, integer, boolean, list, record as a struct;
/// counts its bytes of text into `size` on the way.
struct AsTera<'a> {
    field: &'a Field<'a>,
    size: &'a Cell<usize>,
}

impl Serialize for AsTera<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeSeq, SerializeStruct};
        let size = self.size;
        let count = |bytes: usize| size.set(size.get() + bytes);
        match self.field.resolve() {
            Field::Text(text) => {
                count(text.len());
                serializer.serialize_str(text)
            }
            Field::Integer(i) => {
                count(20);
                serializer.serialize_i64(*i)
            }
            Field::Boolean(b) => {
                count(20);
                serializer.serialize_bool(*b)
            }
            Field::List(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for field in items.iter() {
                    seq.serialize_element(&AsTera { field, size })?;
                }
                seq.end()
            }
            Field::Record(fields) => {
                let mut record = serializer.serialize_struct("record", fields.len())?;
                for Tuple2(name, field) in fields.iter() {
                    count(name.len());
                    record.serialize_field(name.as_str(), &AsTera { field, size })?;
                }
                record.end()
            }
            Field::Shared(_) => unreachable!("a resolved field is not shared"),
        }
    }
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
    fn a_runaway_template_ends_with_an_error_naming_it() {
        let sources = [
            "{% for i in range(end=100000) %}{% for j in range(end=100000) %}{{ a }}{% endfor %}{% endfor %}",
            "{% for i in range(end=100000) %}{{ a }}{% endfor %}",
        ];
        for source in sources {
            let t = one(source).unwrap();
            let section = Section::new("t").with("a", "y".repeat(1000));
            let err = t.render_section(&section).unwrap_err().to_string();
            assert!(
                err.starts_with("template `s/t` (compiled in): its output grew more than 16 MiB"),
                "{err}"
            );
        }
    }

    #[test]
    fn a_template_may_write_what_it_is_given_and_16_mib_more() {
        let big = "z".repeat(20 << 20);
        let t = one("{{ a }}{% for i in range(end=16) %}{{ b }}{% endfor %}").unwrap();
        let section = Section::new("t")
            .with("a", big.as_str())
            .with("b", "w".repeat((1 << 20) - 8));
        let text = t.render_section(&section).unwrap();
        assert_eq!(text.len(), big.len() + 16 * ((1 << 20) - 8));
        #[derive(serde::Serialize)]
        struct Values<'a> {
            a: &'a str,
        }
        let a = &big[..8 << 20];
        let t = one("{{ a }}{{ a }}{{ a }}").unwrap();
        assert_eq!(t.render("t", &Values { a }).unwrap().len(), 3 * a.len());
        let t = one("{{ a }}{{ a }}{{ a }}{{ a }}").unwrap();
        let err = t.render("t", &Values { a }).unwrap_err().to_string();
        assert!(err.contains("its output grew more than 16 MiB"), "{err}");
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
