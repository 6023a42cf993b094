//! The tool-call transcript, as an agent loop that runs one program per turn through one tool
//! sends it (ptc_runner's Kernel agent does): after the first prompt, each turn is the
//! assistant's response followed by the observation of running its program: the program's
//! value (`user=> ...`) and what it printed, or its error, capped at a number of characters,
//! the cut saying how much was left out. The strategies that edit such a transcript (clear old
//! observations, trim old turns, compact the history) build on the same turns, so that each
//! compares with the transcript it edits.
//!
//! The observation's template, `observation`, is one of the kit's shared sections (its default
//! is in `templates/coalesce/`). [`estimate_chars`] sizes what a strategy hands its templates,
//! for strategies that act once a prompt passes a number of tokens.

use ptc_plugin_api::{Field, Message, OptionSpec, Role, Run, Section, Stats, Turn, Value};

use crate::coalesce::{self, Settings};
use crate::format::sample_of_run;
use crate::Limits;

mod kept;

/// The default template of the observation, compiled in from `templates/coalesce/` (a shared
/// section: a file `templates/coalesce/observation.tera` changes it for every strategy).
pub const TEMPLATES: &[(&str, &str)] = &[(
    "observation",
    include_str!("../../../templates/coalesce/observation.tera"),
)];

/// The option that caps each observation, with its default.
pub fn observation_option() -> OptionSpec {
    OptionSpec::count(
        "observation_chars",
        2048,
        "characters of each observation shown (the program's value and prints, or its error); the cut says how many were left out",
    )
}

/// The options of a transcript strategy: its own `first`, then the observation cap and the
/// sample limits of the values it shows.
pub fn options(first: Vec<OptionSpec>) -> Vec<OptionSpec> {
    let mut options = first;
    options.push(observation_option());
    options.extend(
        crate::coalesce::options()
            .into_iter()
            .filter(|o| ["sample_limit", "sample_printable_limit"].contains(&o.name.as_str())),
    );
    options
}

/// The templates of a transcript strategy: the coalesced sections', the observation's, then
/// its own `more`.
pub fn templates(more: &[(&'static str, &'static str)]) -> Vec<(&'static str, &'static str)> {
    let mut templates = crate::coalesce::TEMPLATES.to_vec();
    templates.extend_from_slice(TEMPLATES);
    templates.extend_from_slice(more);
    templates
}

/// A turn's observation: the user message that shows it (one section), the characters it
/// shows of the value, prints and error, and the characters left out.
#[derive(Clone)]
pub struct Observation<'r> {
    pub message: Message<'r>,
    pub shown_chars: usize,
    pub omitted_chars: usize,
    /// Print entries of a successful turn not shown at all (past the cap).
    pub prints_dropped: usize,
}

impl<'r> Observation<'r> {
    /// The section that shows the observation.
    pub fn section(&self) -> &Section<'r> {
        &self.message.blocks[0].sections[0]
    }
}

/// Takes up to `budget` characters of `text`: the part shown (its start, borrowed), the
/// characters shown and the characters left out.
fn take<'a>(text: &'a str, budget: &mut usize) -> (&'a str, usize, usize) {
    if text.len() <= *budget {
        // No more characters than bytes: all of it fits.
        let chars = text.chars().count();
        *budget -= chars;
        return (text, chars, 0);
    }
    // The first `budget` characters end at byte `budget` when they are ASCII.
    let cut = if text.as_bytes()[..*budget].is_ascii() {
        Some(*budget)
    } else {
        text.char_indices().nth(*budget).map(|(byte, _)| byte)
    };
    match cut {
        Some(byte) => {
            let shown = *budget;
            let omitted = text[byte..].chars().count();
            *budget = 0;
            (&text[..byte], shown, omitted)
        }
        None => {
            let chars = text.chars().count();
            *budget -= chars;
            (text, chars, 0)
        }
    }
}

/// [`take`] of a text of our own: the part shown is kept in its allocation.
fn take_owned(mut text: String, budget: &mut usize) -> (String, usize) {
    let (shown, _, omitted) = take(&text, budget);
    let shown = shown.len();
    text.truncate(shown);
    (text, omitted)
}

/// The program's value as the observation prints it, cut to `cap` characters: the text shown
/// and the characters left out.
///
/// The value is printed with every collection cut after `cap` elements and every string after
/// `cap` characters: such a cut happens only past the first `cap` characters of the text, so
/// the text shown is the start of the whole value's; only when the value is longer than `cap`
/// is the whole printed, to count what is left out. The value is a turn's: what it prints as
/// is kept while the run renders ([`sample_of_run`]).
fn value_text(value: &Value, budget: &mut usize) -> (String, usize) {
    let cap = *budget;
    let bounded = sample_of_run(value, Limits::new(cap, cap));
    if bounded.len() <= cap || bounded.chars().count() <= cap {
        return take_owned(bounded, budget);
    }
    take_owned(sample_of_run(value, Limits::NONE), budget)
}

/// The observation of `turn`: on success its value and its prints, on failure its error, at
/// most `cap` characters of them together (value first, then the prints in order), with the
/// number of the turn about to run. `turn` is one of `run`'s turns: while the run renders,
/// what it shows is cut once ([`kept`]).
pub fn observation<'r>(run: &'r Run, turn: &'r Turn, cap: usize) -> Observation<'r> {
    kept::observation(run, turn, cap)
}

/// [`observation`], cut anew.
fn observation_of<'r>(run: &'r Run, turn: &'r Turn, cap: usize) -> Observation<'r> {
    let mut budget = cap;
    let mut omitted = 0;
    let mut section = Section::with_capacity("observation", 7).with("failed", !turn.success);
    let mut prints_dropped = 0;
    if turn.success {
        let (result, cut) = value_text(&turn.result, &mut budget);
        omitted += cut;
        let mut prints: Vec<Field> = Vec::with_capacity(turn.prints.len());
        for print in turn.prints.iter() {
            if budget == 0 && !print.is_empty() {
                omitted += print.chars().count();
                prints_dropped += 1;
                continue;
            }
            let (text, _, cut) = take(print, &mut budget);
            omitted += cut;
            prints.push(text.into());
        }
        section = section
            .with("result", result)
            .with("printed", !prints.is_empty())
            .with("prints", prints);
    } else {
        let (error, _, cut) = take(turn.error_text().unwrap_or("error"), &mut budget);
        omitted += cut;
        section = section.with("error", error);
    }
    let section = section
        .with("omitted", omitted)
        .with("next_turn", turn.number + 1)
        .with("max_turns", run.max_turns);
    Observation {
        message: Message::new(Role::User, vec![section]),
        shown_chars: cap - budget,
        omitted_chars: omitted,
        prints_dropped,
    }
}

/// What every prompt of the transcript starts with: the system prompt, then the first user
/// message (mission, `tool/`, `data/`, expected output, turns left), the same as every
/// strategy's first prompt.
pub fn head<'r>(run: &'r Run, settings: &Settings) -> Vec<Message<'r>> {
    coalesce::head(run, settings).into()
}

/// The assistant's message of a turn: its whole response (with the program it ran, when the
/// response does not hold it).
pub fn response(turn: &Turn) -> Message<'_> {
    coalesce::response(turn)
}

/// A turn of the transcript: the assistant's response, then the user message with its
/// observation; and what it adds to the statistics.
pub fn exchange<'r>(
    run: &'r Run,
    turn: &'r Turn,
    cap: usize,
    stats: &mut Stats,
) -> [Message<'r>; 2] {
    let observation = observation(run, turn, cap);
    count(turn, &observation, stats);
    [response(turn), observation.message]
}

/// Adds a turn shown in the transcript to `stats`: its tool calls and the prints of a
/// successful turn count as shown, but the prints the cap left out as dropped; a turn whose
/// observation was cut counts as compressed.
pub fn count(turn: &Turn, observation: &Observation, stats: &mut Stats) {
    if turn.success {
        let calls = turn.tool_calls.len() as u64;
        let prints = turn.prints.len() as u64;
        let dropped = observation.prints_dropped as u64;
        stats.tool_calls_total += calls;
        stats.tool_calls_shown += calls;
        stats.printlns_total += prints;
        stats.printlns_shown += prints - dropped;
        stats.printlns_dropped += dropped;
    }
    if observation.omitted_chars > 0 {
        stats.turns_compressed += 1;
    }
}

/// The characters of the text a section hands its template (every text field, at every
/// depth); the template's own words are not counted. A strategy that acts once a prompt
/// passes a number of tokens sizes its prompt with it (tokens as characters / 4).
pub fn estimate_chars(section: &Section) -> usize {
    fn field(f: &Field) -> usize {
        match f.resolve() {
            Field::Text(text) => text.chars().count(),
            Field::Integer(_) | Field::Boolean(_) | Field::Shared(_) => 0,
            Field::List(items) => items.iter().map(field).sum(),
            Field::Record(fields) => fields.iter().map(|f| field(&f.1)).sum(),
        }
    }
    section.fields.iter().map(|f| field(&f.1)).sum()
}

/// The characters of a message's sections (see [`estimate_chars`]).
pub fn message_chars(message: &Message) -> usize {
    message.sections().map(estimate_chars).sum()
}

/// The characters a turn adds to the transcript: its response and its observation (the
/// response's counted once per run while a run with a key renders).
pub fn exchange_chars(turn: &Turn, observation: &Observation) -> usize {
    kept::response_chars(turn) + observation.shown_chars
}

/// Tokens as the strategies that count them estimate them: characters / 4, rounded up.
pub fn tokens(chars: usize) -> usize {
    chars.div_ceil(4)
}

#[cfg(test)]
mod tests {
    use abi_stable::std_types::{ROption, RVec};
    use ptc_plugin_api::TurnError;

    use super::*;

    fn run() -> Run {
        Run {
            mission: "m".into(),
            system_prompt: "s".into(),
            tools: RVec::new(),
            data: RVec::new(),
            max_turns: 4,
            signature: ROption::RNone,
            key: 0,
        }
    }

    fn turn(result: Value, prints: &[&str], error: Option<&str>) -> Turn {
        Turn {
            number: 2,
            raw_response: "r".into(),
            program: ROption::RNone,
            success: error.is_none(),
            result,
            error: match error {
                Some(m) => ROption::RSome(TurnError {
                    reason: "eval_error".into(),
                    message: ROption::RSome(m.into()),
                }),
                None => ROption::RNone,
            },
            prints: prints.iter().map(|p| (*p).into()).collect(),
            tool_calls: RVec::new(),
            memory: RVec::new(),
            defined: RVec::new(),
        }
    }

    fn field<'a, 'r>(section: &'a Section<'r>, name: &str) -> &'a Field<'r> {
        &section
            .fields
            .iter()
            .find(|f| f.0.as_str() == name)
            .unwrap_or_else(|| panic!("no field {name}"))
            .1
    }

    fn texts(f: &Field) -> Vec<String> {
        match f {
            Field::List(items) => items
                .iter()
                .map(|i| match i {
                    Field::Text(t) => t.to_string(),
                    other => panic!("{other:?}"),
                })
                .collect(),
            other => panic!("{other:?}"),
        }
    }

    proptest::proptest! {
        /// The start `take` shows is the first `budget` characters, the rest left out, ASCII
        /// or not.
        #[test]
        fn take_shows_the_first_characters(text in "[a\u{e9}\u{1F980} ]{0,12}", budget in 0usize..14) {
            let mut left = budget;
            let (shown, chars, omitted) = take(&text, &mut left);
            let first: String = text.chars().take(budget).collect();
            proptest::prop_assert_eq!(shown, first.as_str());
            proptest::prop_assert_eq!(chars, first.chars().count());
            proptest::prop_assert_eq!(omitted, text.chars().count() - chars);
            proptest::prop_assert_eq!(left, budget - chars);
        }
    }

    #[test]
    fn an_observation_within_the_cap_is_whole() {
        let t = turn(Value::Integer(42), &["a", "bc"], None);
        let r = run();
        let o = observation(&r, &t, 100);
        assert_eq!(field(o.section(), "result"), &Field::from("42"));
        assert_eq!(texts(field(o.section(), "prints")), ["a", "bc"]);
        assert_eq!(field(o.section(), "omitted"), &Field::from(0usize));
        assert_eq!(field(o.section(), "next_turn"), &Field::from(3u32));
        assert_eq!((o.shown_chars, o.omitted_chars), (5, 0));
    }

    #[test]
    fn the_cap_counts_the_value_then_the_prints_and_says_what_it_left_out() {
        // "[1 2 3]" is 7 characters; 3 more of the first print, none of the second.
        let list = Value::List((1..=3).map(Value::Integer).collect());
        let t = turn(list, &["héllo", "world"], None);
        let r = run();
        let o = observation(&r, &t, 10);
        assert_eq!(field(o.section(), "result"), &Field::from("[1 2 3]"));
        assert_eq!(texts(field(o.section(), "prints")), ["hél"]);
        assert_eq!(field(o.section(), "omitted"), &Field::from(2usize + 5));
        assert_eq!(
            (o.shown_chars, o.omitted_chars, o.prints_dropped),
            (10, 7, 1)
        );
        let mut stats = Stats::default();
        count(&t, &o, &mut stats);
        assert_eq!(
            (
                stats.printlns_total,
                stats.printlns_shown,
                stats.printlns_dropped,
                stats.turns_compressed
            ),
            (2, 1, 1, 1)
        );
    }

    #[test]
    fn a_long_value_is_cut_as_its_whole_text_would_be() {
        let long = Value::List((0..1000).map(Value::Integer).collect());
        let whole = crate::to_clojure_full(&long);
        let t = turn(long, &["p"], None);
        let r = run();
        let o = observation(&r, &t, 20);
        let shown: String = whole.chars().take(20).collect();
        assert_eq!(field(o.section(), "result"), &Field::from(shown.as_str()));
        assert_eq!(field(o.section(), "printed"), &Field::from(false));
        assert_eq!(o.omitted_chars, whole.chars().count() - 20 + 1);
        // A string longer than the cap, the same way.
        let s = Value::string(&"x".repeat(50));
        let (r, t) = (run(), turn(s, &[], None));
        let o = observation(&r, &t, 10);
        assert_eq!(field(o.section(), "result"), &Field::from("\"xxxxxxxxx"));
        assert_eq!(o.omitted_chars, 52 - 10);
    }

    #[test]
    fn a_failed_turn_shows_its_error_within_the_cap() {
        let t = turn(Value::Nil, &["not shown"], Some("undefined symbol: x"));
        let r = run();
        let o = observation(&r, &t, 9);
        assert_eq!(field(o.section(), "failed"), &Field::from(true));
        assert_eq!(field(o.section(), "error"), &Field::from("undefined"));
        assert_eq!(o.omitted_chars, 10);
        let mut stats = Stats::default();
        count(&t, &o, &mut stats);
        assert_eq!(
            stats.printlns_total, 0,
            "a failed turn's prints are not counted"
        );
    }

    #[test]
    fn estimates_count_the_text_fields_at_every_depth() {
        let s = Section::new("x")
            .with("a", "héllo")
            .with("n", 12345i64)
            .with("l", vec!["ab".to_string(), "c".to_string()]);
        assert_eq!(estimate_chars(&s), 8);
        assert_eq!(tokens(8), 2);
        assert_eq!(tokens(9), 3);
    }

    #[test]
    fn a_response_shows_the_program_it_does_not_hold_with_the_tools_called() {
        let call = |name: &str| ptc_plugin_api::ToolCall {
            name: name.into(),
            args: Value::Nil,
            result: Value::Nil,
        };
        fn sections(t: &Turn) -> Section<'_> {
            let message = response(t);
            let block = &message.blocks[0];
            block.sections[0].clone()
        }
        // A model that writes its program in its text: nothing more to show.
        let mut t = turn(Value::Nil, &[], None);
        t.raw_response = "I will look.\n```clojure\n(tool/search {:q 1})\n```".into();
        t.program = ROption::RSome("(tool/search {:q 1})".into());
        t.tool_calls = vec![call("search")].into();
        let held = sections(&t);
        assert_eq!(field(&held, "program"), &Field::from(""));
        assert!(texts(field(&held, "tools")).is_empty());
        drop(held);
        // A model that calls tools: its text, then what it ran, each tool named once.
        t.raw_response = "I will look.".into();
        t.program = ROption::RSome("ls -la\ngrep x".into());
        t.tool_calls = vec![call("bash"), call("bash"), call("read")].into();
        let shown = sections(&t);
        assert_eq!(field(&shown, "program"), &Field::from("ls -la\ngrep x"));
        assert_eq!(texts(field(&shown, "tools")), ["bash", "read"]);
        drop(shown);
        // No program logged: the response alone.
        t.program = ROption::RNone;
        assert_eq!(field(&sections(&t), "program"), &Field::from(""));
    }
}
