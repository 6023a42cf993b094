//! `ptc diff`: a unified diff of the prompts two strategies send before a turn, coloured on a
//! terminal.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::ab::{AbPlan, PlanOptions, Variant};
use crate::commands::args::{ConfigArgs, RecordingArgs};
use crate::commands::Context;
use crate::host::Host;
use crate::output::{colour, escape_controls, terminal, write_out};
use crate::tokens::Counter;
use crate::Error;

/// A unified diff of the prompts two strategies send before a turn
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A recording: a JSON file
    recording: PathBuf,
    /// Number of recorded turns to render from [default: all]
    #[arg(long, value_name = "K")]
    turns: Option<usize>,
    /// The two strategies, `A,B` (variants allowed)
    #[arg(long, value_name = "A,B")]
    strategies: String,
    #[command(flatten)]
    config: ConfigArgs,
    #[command(flatten)]
    limits: RecordingArgs,
}

/// `ptc diff`.
pub fn exec(args: Args, context: &Context, out: &mut dyn Write) -> Result<(), Error> {
    let host = context.with_strategies(&args.config, Some(&args.limits))?;
    write_out(
        out,
        &diff(&host, &args.recording, args.turns, &args.strategies)?,
    )
}

/// `strategies` is `A,B` (variants allowed); the prompts are rendered from the first `turns`
/// turns (default: all).
pub fn diff(
    host: &Host,
    path: &Path,
    turns: Option<usize>,
    strategies: &str,
) -> Result<String, Error> {
    let specs: Vec<&str> = strategies.split(',').map(str::trim).collect();
    let [a, b] = specs.as_slice() else {
        let baseline = host.config().ab_baseline();
        let example = match specs.as_slice() {
            [one] if !one.is_empty() && *one != baseline => format!("{baseline},{one}"),
            _ => format!("{baseline},delta-log"),
        };
        let given = match specs.iter().filter(|s| !s.is_empty()).count() {
            0 => "none".to_owned(),
            1 => "only one".to_owned(),
            n => n.to_string(),
        };
        return Err(Error::Usage(format!(
            "`ptc diff` compares two strategies, --strategies A,B (e.g. --strategies {example}); `{strategies}` names {given}"
        )));
    };
    let plan = AbPlan::new(host, &PlanOptions::strategies(strategies))?;
    let recording = crate::ops::recording_named(host, path)?;
    let turns = turns.unwrap_or(recording.turns.len());
    let mut counter = Counter::new(plan.tokenizer);
    let mut texts = Vec::new();
    for spec in [a, b] {
        let variant = Variant::parse(spec)?;
        let prompter = crate::ab::prompter_for(host, &variant)?;
        let (prompt, _) = prompter.render(&recording, turns, &mut counter)?;
        let mut text = String::new();
        for m in &prompt.messages {
            text.push_str(&format!(
                "=== {} ===\n{}\n\n",
                m.role.as_str().to_uppercase(),
                m.content
            ));
        }
        texts.push(text);
    }
    let diff = similar::TextDiff::from_lines(&texts[0], &texts[1]);
    let unified = diff
        .unified_diff()
        .context_radius(3)
        .header(a, b)
        .to_string();
    // On a terminal, recorded text cannot move the cursor or retitle the window.
    let unified = if terminal() {
        escape_controls(&unified).into_owned()
    } else {
        unified
    };
    if !colour() {
        return Ok(unified);
    }
    Ok(unified
        .lines()
        .map(|line| {
            let code = match line.as_bytes().first() {
                Some(b'+') => "32",
                Some(b'-') => "31",
                Some(b'@') => "36",
                _ => return format!("{line}\n"),
            };
            format!("\x1b[{code}m{line}\x1b[0m\n")
        })
        .collect())
}
