//! `turn-count`, a strategy that exists for ptc's tests: it proves that a second plugin loads
//! beside the built-in ones, that its options and compiled-in template reach it, and that a
//! strategy's render error reaches the user. It shows the mission and how many turns ran.
//!
//! Its options also make it misbehave the ways a third-party strategy can: `panic_after`
//! panics, `template` names the template to use (one it does not have), `read_option` reads
//! an option by name as a count (a string one, or one it never declared), `print` prints a line
//! on standard output, `end` ends the process (`exit` with code 0, `abort`, or a `double-panic`).

use ptc_plugin_api::{
    export_strategy, Message, OptionSpec, OptionValue, Options, Output, RenderError, Role, Run,
    Section, Stats, Strategy, Turn,
};

pub struct TurnCount;

export_strategy!(TurnCount);

impl Strategy for TurnCount {
    const NAME: &'static str = "turn-count";
    const DESCRIPTION: &'static str = "Test strategy: the mission and the number of turns so far.";

    fn options() -> Vec<OptionSpec> {
        vec![
            OptionSpec::new(
                "label",
                OptionValue::String("Turns so far".into()),
                "text before the count",
            ),
            OptionSpec::count("fail_after", 1000, "refuse to render more turns than this"),
            OptionSpec::count(
                "panic_after",
                1000,
                "panic when rendering more turns than this",
            ),
            OptionSpec::new(
                "template",
                OptionValue::String("count".into()),
                "the template of its section",
            ),
            OptionSpec::new(
                "print",
                OptionValue::String(String::new().into()),
                "print this line on standard output as it renders (empty: nothing)",
            ),
            OptionSpec::new(
                "read_option",
                OptionValue::String(String::new().into()),
                "read this option as a count too (empty: none)",
            ),
            OptionSpec::new(
                "end",
                OptionValue::String(String::new().into()),
                "end the process as it renders: exit, abort or double-panic (empty: never)",
            ),
        ]
    }

    fn templates() -> Vec<(&'static str, &'static str)> {
        vec![("count", "{{ mission }}\n{{ label }}: {{ turns }}\n")]
    }

    fn render<'r>(
        run: &'r Run,
        turns: &'r [Turn],
        options: &Options,
    ) -> Result<Output<'r>, RenderError> {
        if turns.len() > options.count("fail_after")? {
            return Err(RenderError::input("too many turns for turn-count"));
        }
        let panic_after = options.count("panic_after")?;
        if turns.len() > panic_after {
            panic!("turn-count was told to panic after {panic_after} turn(s)");
        }
        if let Some(OptionValue::String(line)) = options.get("print") {
            if !line.is_empty() {
                use std::io::Write;
                println!("{line}");
                let _ = std::io::stdout().flush();
            }
        }
        if let Some(OptionValue::String(how)) = options.get("end") {
            match how.as_str() {
                "exit" => std::process::exit(0),
                "abort" => std::process::abort(),
                "double-panic" => {
                    struct PanicsWhenDropped;
                    impl Drop for PanicsWhenDropped {
                        fn drop(&mut self) {
                            panic!("turn-count panicked again while unwinding");
                        }
                    }
                    let _guard = PanicsWhenDropped;
                    panic!("turn-count was told to panic twice");
                }
                _ => {}
            }
        }
        if let Some(OptionValue::String(name)) = options.get("read_option") {
            if !name.is_empty() {
                options.count(name)?;
            }
        }
        // Section names are static: any other name than its own is leaked (a test strategy).
        let template: &'static str = match options.get("template") {
            Some(OptionValue::String(s)) if s.as_str() == "count" => "count",
            Some(OptionValue::String(s)) => s.to_string().leak(),
            _ => return Err(RenderError::option("template", "expected a string")),
        };
        let label = match options.get("label") {
            Some(OptionValue::String(s)) => s.to_string(),
            _ => return Err(RenderError::option("label", "expected a string")),
        };
        let count = Section::new(template)
            .with("mission", run.mission.as_str())
            .with("label", label)
            .with("turns", turns.len());
        Ok(Output {
            messages: vec![Message::new(Role::User, vec![count])].into(),
            stats: Stats {
                turns_compressed: turns.len() as u64,
                ..Stats::default()
            },
        })
    }
}
