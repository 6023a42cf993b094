//! The options most strategies share.

use ptc_plugin_api::OptionSpec;

/// The limits most strategies share. The host's `[compression]` table sets them for every
/// strategy that declares an option of the same name; these are the defaults.
pub fn shared_limit_options() -> Vec<OptionSpec> {
    vec![
        OptionSpec::count(
            "println_limit",
            15,
            "most recent println calls shown (older ones dropped first)",
        ),
        OptionSpec::count(
            "tool_call_limit",
            20,
            "most recent tool calls shown (older ones dropped first)",
        ),
        OptionSpec::count(
            "sample_limit",
            3,
            "elements of a collection shown in a sample, at every depth",
        ),
        OptionSpec::count(
            "sample_printable_limit",
            80,
            "characters of a string shown in a sample",
        ),
        OptionSpec::count(
            "tool_args_limit",
            3,
            "elements of a collection shown in tool-call arguments",
        ),
        OptionSpec::count(
            "tool_args_printable_limit",
            60,
            "characters of a string shown in tool-call arguments",
        ),
        OptionSpec::count(
            "println_char_limit",
            2000,
            "characters kept of each println entry; `...` marks a cut",
        ),
    ]
}
