//! `delta-log`: prompts that stay append-only, so a provider's prompt cache keeps hitting,
//! while the history is still compressed.
//!
//! One user message after the system prompt: a head coalesced as `single-user-coalesced`
//! renders it (mission, `tool/`, `data/`, and the history up to the last re-coalescing point),
//! then one delta per later turn in the same vocabulary (the symbols it defined or redefined,
//! its tool calls, its output, its error and program if it failed), then the turns left. From
//! one prompt to the next only the final turns-left line is replaced and one delta appended.
//! When the deltas since the last re-coalescing point pass `recoalesce_chars` characters, the
//! head is re-coalesced up to that turn: the one prompt where the cache is rewritten, paid
//! rarely and on purpose. Where the points fall depends only on the turns, so every prompt of
//! a run agrees on them.

use ptc_plugin_api::{
    export_strategy, Block, Field, Message, OptionSpec, OptionValue, Options, Output, RenderError,
    Role, Run, Section, Stats, Strategy, Turn, Value,
};
use ptc_strategy_kit::coalesce::{self, Settings};
use ptc_strategy_kit::{is_private_name, Limits};

/// The symbols a turn defined or redefined ([`Turn::defined_entries`]).
type Defined<'a> = [(&'a str, &'a Value)];

pub struct DeltaLog;

export_strategy!(DeltaLog);

impl Strategy for DeltaLog {
    const NAME: &'static str = "delta-log";
    const DESCRIPTION: &'static str =
        "A coalesced head, an append-only log of compact per-turn deltas, a short tail: cheaper than full history once prompt caching is priced.";

    fn options() -> Vec<OptionSpec> {
        let mut options = vec![
            OptionSpec::count(
                "recoalesce_chars",
                12000,
                "re-coalesce the head once the deltas since the last point pass this many characters (0: every turn)",
            ),
            OptionSpec::count(
                "latest_sample_limit",
                1,
                "elements of a collection shown, at every depth, in the samples of the latest turn's values",
            ),
            OptionSpec::count(
                "cache_min_tokens",
                1024,
                "the provider's minimum cached prefix; until the log is this long (about 4 characters a token), deltas keep their samples and failed programs instead of a tail",
            ),
            OptionSpec::new(
                "log_samples",
                OptionValue::Boolean(false),
                "keep value samples in the log; by default the log has name and type, and the samples of the latest turn's values are shown after it",
            ),
        ];
        options.extend(coalesce::options());
        options
    }

    fn templates() -> Vec<(&'static str, &'static str)> {
        let mut templates = coalesce::TEMPLATES.to_vec();
        templates.push((
            "delta",
            include_str!("../../../templates/delta-log/delta.tera"),
        ));
        templates.push((
            "samples",
            include_str!("../../../templates/delta-log/samples.tera"),
        ));
        templates
    }

    const RENDERS_FROM: &'static [&'static str] = &["memory_values", "prints", "errors"];

    fn render<'r>(
        run: &'r Run,
        turns: &'r [Turn],
        options: &Options,
    ) -> Result<Output<'r>, RenderError> {
        let settings = Settings::read(options)?;
        let budget = options.count("recoalesce_chars")?;
        let log_samples = options.boolean("log_samples")?;
        let latest_sample = Limits {
            limit: options.count("latest_sample_limit")?,
            ..settings.sample
        };
        let point = recoalescing_point(turns, budget, &settings);
        let (head, mut stats) = coalesce::user_message(run, &turns[..point], &settings);
        let mut head = head.into_sections();
        // The head's own turns-left line would change every prompt: the log ends with one.
        head.pop();
        // The head shows the latest error of its turns only while its last turn failed; an
        // earlier one the log had shown stays, as the line its delta had.
        let head_turns = &turns[..point];
        if let Some(failed) = head_turns.iter().rev().find(|t| !t.success) {
            if head_turns.last().is_some_and(|last| last.success) {
                head.push(earlier_error(failed));
            }
        }
        // A tail pays only when the log before it is long enough to be cached: until then a
        // delta keeps its samples and its failed program, and the log grows into the cache.
        let cache_min_chars = options.count("cache_min_tokens")?.saturating_mul(4);
        let system = coalesce::system_message(run);
        let mut log_chars = if point > 0 {
            usize::MAX
        } else {
            fields_chars(system.sections()) + fields_chars(&head)
        };
        // One block for the head, one per delta: the log grows by blocks, so that the prefix
        // the previous prompt cached ends on a block boundary of this one.
        let mut blocks = vec![Block::new(head)];
        // The latest turn, whether its delta went to the log whole, and what it defined.
        let mut latest: Option<(&Turn, bool)> = None;
        let mut latest_defined = Vec::new();
        for turn in &turns[point..] {
            let defined: Vec<_> = turn.defined_entries().collect();
            let inline = log_samples || log_chars < cache_min_chars;
            let section = delta(turn, &defined, inline, &settings, &mut stats);
            if inline {
                // Past the cache minimum the measure no longer matters.
                log_chars += fields_chars([&section]);
            }
            blocks.push(Block::new(vec![section]));
            latest = Some((turn, inline));
            latest_defined = defined;
        }
        // The cache breakpoint: on the latest delta (or the head), before the tail.
        if let Some(last) = blocks.last_mut() {
            last.cache_breakpoint = true;
        }
        // The tail, replaced by the next prompt: what is worth reading only while it is the
        // latest. A failed program while its error is the latest (the log keeps the error
        // line), the samples of the values the latest turn defined (the log keeps name and
        // type). Each is written to the cache once instead of being read for the rest of the
        // run.
        let mut tail = Vec::new();
        if let Some((turn, false)) = latest {
            if !turn.success {
                tail.push(coalesce::error_section(turn));
            } else if turn.prints.is_empty() {
                tail.extend(samples(turn, &latest_defined, latest_sample));
            }
        }
        tail.push(coalesce::turns_left_section(run, turns.len()));
        blocks.push(Block::new(tail));
        Ok(Output {
            messages: vec![system, Message::of_blocks(Role::User, blocks)].into(),
            stats,
        })
    }
}

/// The line of a failed turn's delta, without its calls: an earlier error the head keeps.
fn earlier_error(turn: &Turn) -> Section<'_> {
    Section::new("delta")
        .with("functions", Vec::<Field>::new())
        .with("values", Vec::<Field>::new())
        .with("calls", Vec::<Field>::new())
        .with("prints", Vec::<Field>::new())
        .with("turn", turn.number)
        .with("failed", true)
        .with("message", turn.error_text().unwrap_or("error"))
}

/// The last re-coalescing point at or before `turns.len()`: walking the turns, a new point is
/// set after the turn whose delta takes the deltas since the previous point past `budget`.
fn recoalescing_point(turns: &[Turn], budget: usize, settings: &Settings) -> usize {
    let mut point = 0;
    let mut size = 0usize;
    for (i, turn) in turns.iter().enumerate() {
        size += delta_size(turn, settings);
        if size > budget {
            point = i + 1;
            size = 0;
        }
    }
    point
}

/// A cheap measure of a delta's length: what it shows, without rendering it.
fn delta_size(turn: &Turn, settings: &Settings) -> usize {
    let mut size = 32;
    if turn.success {
        for (name, value) in turn.defined_entries() {
            size += name.len() + 40;
            if !is_private_name(name) {
                size += settings.sample.printable_limit.min(sample_len(value));
            }
        }
        size += turn
            .prints
            .iter()
            .map(|p| p.len().min(settings.println_char_limit))
            .sum::<usize>();
    } else {
        size += 16 + turn.error_text().map_or(5, str::len);
    }
    size += turn.tool_calls.len() * (24 + settings.tool_args.printable_limit);
    size
}

fn sample_len(value: &Value) -> usize {
    match value {
        Value::String(s) => s.len(),
        Value::List(items) | Value::Set(items) => items.len() * 16,
        Value::Map(entries) => entries.len() * 24,
        _ => 16,
    }
}

/// The samples of the values `turn` defined or redefined, if it defined any; a private value
/// has no sample (the log shows it as hidden).
fn samples<'r>(turn: &Turn, defined: &Defined<'r>, limits: Limits) -> Option<Section<'r>> {
    let mut changed = defined.to_vec();
    changed.retain(|(name, _)| !is_private_name(name));
    let values = coalesce::user_section(&changed, false, limits)
        .fields
        .into_iter()
        .find(|field| field.0 == "values")?
        .1;
    let has_values = matches!(&values, Field::List(list) if !list.is_empty());
    has_values.then(|| {
        Section::new("samples")
            .with("turn", turn.number)
            .with("values", values)
    })
}

/// One turn's delta, counted into `stats`.
fn delta<'r>(
    turn: &'r Turn,
    defined: &Defined<'r>,
    inline: bool,
    settings: &Settings,
    stats: &mut Stats,
) -> Section<'r> {
    let printed = turn.success && !turn.prints.is_empty();
    let mut section = if turn.success {
        let defined = coalesce::user_section(defined, printed || !inline, settings.sample);
        Section {
            template: "delta".into(),
            fields: defined.fields,
        }
    } else {
        Section::new("delta")
            .with("functions", Vec::<Field>::new())
            .with("values", Vec::<Field>::new())
    };
    // Calls and prints are shown as the coalesced view shows them, limits included.
    let calls: Vec<_> = if turn.success || settings.failed_turn_tool_calls {
        turn.tool_calls.iter().collect()
    } else {
        Vec::new()
    };
    coalesce::count_tool_calls(stats, calls.len(), settings.tool_call_limit);
    let prints: Vec<&str> = if turn.success {
        turn.prints.iter().map(|p| p.as_str()).collect()
    } else {
        Vec::new()
    };
    coalesce::count_printlns(stats, prints.len(), settings.println_limit);
    section
        .fields
        .extend(coalesce::tool_calls_section(&calls, settings, false).fields);
    section
        .fields
        .extend(coalesce::output_section(&prints, settings).fields);
    section = section
        .with("turn", turn.number)
        .with("failed", !turn.success);
    if !turn.success {
        if let Some(program) = turn.program.as_ref().into_option().filter(|_| inline) {
            section = section.with("program", program.as_str());
        }
        let message = turn.error_text().unwrap_or("error");
        section = section.with("message", message);
    }
    section
}

/// The characters of text `sections` hold: a measure of their rendered length that does not
/// depend on the templates.
fn fields_chars<'a, 'r: 'a>(sections: impl IntoIterator<Item = &'a Section<'r>>) -> usize {
    fn field(f: &Field<'_>) -> usize {
        match f.resolve() {
            Field::Text(s) => s.len() + 1,
            Field::List(items) => items.iter().map(field).sum(),
            Field::Record(fields) => fields.iter().map(|f| field(&f.1)).sum(),
            _ => 4,
        }
    }
    sections
        .into_iter()
        .map(|s| s.fields.iter().map(|f| field(&f.1)).sum::<usize>())
        .sum()
}
