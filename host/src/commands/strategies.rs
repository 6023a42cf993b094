//! `ptc strategies`: the strategies loaded from the plugin directories, with their versions,
//! files and options, for people or as JSON; the one commands use when none is named is marked
//! as the default. As text, `as-sent` (built in) ends the list.

use std::io::Write;

use ptc_plugin_api::OptionValue;
use serde_json::json;

use crate::commands::args::ConfigArgs;
use crate::commands::Context;
use crate::host::Host;
use crate::output::{pretty, write_out, Format};
use crate::render::trigger::AS_SENT;
use crate::Error;

/// List the strategies loaded from the plugin directories, with their options
#[derive(Debug, clap::Args)]
pub struct Args {
    /// What to print
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    #[command(flatten)]
    config: ConfigArgs,
}

/// `ptc strategies`.
pub fn exec(args: Args, context: &Context, out: &mut dyn Write) -> Result<(), Error> {
    let host = context.with_strategies(&args.config, None)?;
    write_out(out, &strategies(&host, args.format)?)
}

/// The list in `format`; as text, the directories searched when nothing was loaded.
pub fn strategies(host: &Host, format: Format) -> Result<String, Error> {
    let strategies = host.plugins().strategies();
    let default = host.default_strategy();
    Ok(match format {
        Format::Json => {
            let list: Vec<_> = strategies
                .iter()
                .map(|s| {
                    json!({
                        "name": s.name,
                        "default": s.name == default,
                        "version": s.version,
                        "description": s.description,
                        "renders_from": s.renders_from,
                        "file": s.file.display().to_string(),
                        "options": s.options.iter().map(|o| json!({
                            "name": o.name.as_str(),
                            "default": option_json(&o.default),
                            "doc": o.doc.as_str(),
                        })).collect::<Vec<_>>(),
                    })
                })
                .collect();
            pretty(&list)
        }
        Format::Text => {
            let mut text = String::new();
            if strategies.is_empty() {
                text.push_str("no strategies loaded (searched: ");
                let dirs: Vec<String> = host
                    .config()
                    .plugin_directories()
                    .iter()
                    .map(|d| d.display().to_string())
                    .collect();
                text.push_str(&dirs.join(", "));
                text.push_str(")\n");
            }
            for s in strategies {
                text.push_str(&format!(
                    "{} {}{}\n    {}\n    {}\n",
                    s.name,
                    s.version,
                    if s.name == default { " (default)" } else { "" },
                    s.description,
                    s.file.display()
                ));
                let width = s
                    .options
                    .iter()
                    .map(|o| o.name.len() + o.default.to_string().len())
                    .max()
                    .unwrap_or(0)
                    + 3;
                for o in &s.options {
                    let setting = format!("{} = {}", o.name, o.default);
                    text.push_str(&format!("    {setting:width$}  {}\n", o.doc));
                }
            }
            // Built in: the requests a recording holds, which every command takes by name.
            text.push_str(&format!(
                "{AS_SENT} (built in, no plugin)\n    The requests the agent sent, as its log holds them: the baseline that `ab` and `diff` compare with; `render` and `trace` show them\n"
            ));
            text
        }
    })
}

/// An option's default as a JSON value of its type.
fn option_json(value: &OptionValue) -> serde_json::Value {
    match value {
        OptionValue::Boolean(b) => json!(b),
        OptionValue::Integer(i) => json!(i),
        OptionValue::Float(f) => json!(f),
        OptionValue::String(s) => json!(s.as_str()),
    }
}
