//! The options of the coalesced view: the limits most strategies share (how many tool calls and
//! prints are shown, how much of a value's sample), and the two choices of its own, whether
//! failed turns' tool calls are listed and whether tool results are shown; checked once into
//! [`Settings`].

use std::cell::RefCell;

use abi_stable::std_types::Tuple2;

use ptc_plugin_api::{OptionSpec, OptionValue, Options, RenderError};

use crate::{shared_limit_options, Limits};

/// The options of the coalesced view: the shared limits, `failed_turn_tool_calls` and
/// `tool_call_results`.
pub fn options() -> Vec<OptionSpec> {
    let mut options = shared_limit_options();
    options.push(OptionSpec::new(
        "failed_turn_tool_calls",
        OptionValue::Boolean(false),
        "also list the tool calls made by failed turns (their side effects happened)",
    ));
    options.push(OptionSpec::new(
        "tool_call_results",
        OptionValue::String("never".into()),
        "\"never\", or \"when_no_println\": show `-> sample` of each tool result when nothing was printed",
    ));
    options
}

/// The options the coalesced view reads, checked.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Settings {
    pub println_limit: usize,
    pub tool_call_limit: usize,
    pub sample: Limits,
    pub tool_args: Limits,
    pub println_char_limit: usize,
    pub failed_turn_tool_calls: bool,
    pub tool_call_results_when_no_println: bool,
}

impl Settings {
    /// The settings from `options`, which declare every option of [`options()`].
    pub fn read(options: &Options) -> Result<Settings, RenderError> {
        remembered(false, options, Settings::check)
    }

    fn check(options: &Options) -> Result<Settings, RenderError> {
        Ok(Settings {
            println_limit: options.count("println_limit")?,
            tool_call_limit: options.count("tool_call_limit")?,
            sample: Limits::new(
                options.count("sample_limit")?,
                options.count("sample_printable_limit")?,
            ),
            tool_args: Limits::new(
                options.count("tool_args_limit")?,
                options.count("tool_args_printable_limit")?,
            ),
            println_char_limit: options.count("println_char_limit")?,
            failed_turn_tool_calls: options.boolean("failed_turn_tool_calls")?,
            tool_call_results_when_no_println: options
                .choice("tool_call_results", &["never", "when_no_println"])?
                == "when_no_println",
        })
    }
}

/// The settings of a strategy that declares only some of [`options()`]: those it declares
/// from `options`, the others at their defaults.
pub fn settings_with_defaults(options: &Options) -> Result<Settings, RenderError> {
    remembered(true, options, with_defaults)
}

fn with_defaults(options: &Options) -> Result<Settings, RenderError> {
    let mut all = Options::default();
    for spec in self::options() {
        let value = options
            .get(&spec.name)
            .cloned()
            .unwrap_or_else(|| spec.default.clone());
        all.entries.push(Tuple2(spec.name, value));
    }
    Settings::check(&all)
}

thread_local! {
    /// The options read last on this thread (with or without defaults), with the settings they
    /// gave: every prompt of a run is rendered with the same options, read once.
    static LAST: RefCell<Option<(bool, Options, Settings)>> = const { RefCell::new(None) };
}

/// `read(options)`, or the settings the same options gave the last time on this thread.
fn remembered(
    defaults: bool,
    options: &Options,
    read: fn(&Options) -> Result<Settings, RenderError>,
) -> Result<Settings, RenderError> {
    let known = LAST.with_borrow(|last| {
        last.as_ref()
            .filter(|(d, o, _)| *d == defaults && o == options)
            .map(|(_, _, settings)| settings.clone())
    });
    if let Some(settings) = known {
        return Ok(settings);
    }
    let settings = read(options)?;
    LAST.set(Some((defaults, options.clone(), settings.clone())));
    Ok(settings)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The options of [`options()`] at their defaults, with `println_limit` set to `n`.
    fn with_println_limit(n: i64) -> Options {
        Options::from_pairs(options().into_iter().map(|spec| {
            let value = match spec.name.as_str() {
                "println_limit" => OptionValue::Integer(n),
                _ => spec.default,
            };
            (spec.name.into(), value)
        }))
    }

    #[test]
    fn settings_read_again_are_those_of_the_options_given() {
        let (three, five) = (with_println_limit(3), with_println_limit(5));
        for (options, limit) in [(&three, 3), (&three, 3), (&five, 5), (&three, 3)] {
            assert_eq!(Settings::read(options).unwrap().println_limit, limit);
            assert_eq!(
                settings_with_defaults(options).unwrap().println_limit,
                limit
            );
        }
        // A strategy that declares only some options gets the others at their defaults; the
        // same options read as a whole are refused, remembered or not.
        let partial = Options::from_pairs([("println_limit".to_owned(), OptionValue::Integer(7))]);
        assert_eq!(settings_with_defaults(&partial).unwrap().println_limit, 7);
        assert!(Settings::read(&partial).is_err());
        assert_eq!(settings_with_defaults(&partial).unwrap().println_limit, 7);
        // A refused option is refused every time.
        let bad = with_println_limit(-1);
        assert!(Settings::read(&bad).is_err());
        assert!(Settings::read(&bad).is_err());
    }
}
