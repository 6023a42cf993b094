//! The prompter of each variant a run compares: its strategy with the variant's options set
//! for it alone (the recorded requests for `as-sent`), and the kinds of recorded data its
//! prompts are made from.

use crate::ab::Variant;
use crate::config::Config;
use crate::host::{Host, UNCOMPRESSED_STRATEGY};
use crate::recording::Lack;
use crate::render::trigger::{Prompter, AS_SENT};
use crate::Error;

/// The kinds of recorded data a variant's prompts are made from: for `as-sent` the requests
/// themselves, whose size a rebuilt run knows only with its prompt prefix; its strategy's
/// (and full-history's, under the trigger) otherwise.
pub(super) fn renders_from(host: &Host, variant: &Variant) -> Vec<String> {
    let prefix = Lack::PromptPrefix.as_str().to_owned();
    if variant.strategy == AS_SENT {
        return vec![prefix];
    }
    // Every strategy's prompt opens with the run's system prompt, or for another agent's run
    // with the prefix inferred in its place: a run that has neither is not judged.
    let mut needs: Vec<String> = host
        .strategy(Some(&variant.strategy))
        .map(|s| s.renders_from.clone())
        .unwrap_or_default();
    needs.push(Lack::SystemPrompt.as_str().to_owned());
    needs.push(prefix);
    if variant
        .options
        .iter()
        .any(|(o, _)| o == "compress_above_tokens")
    {
        if let Ok(full) = host.strategy(Some(UNCOMPRESSED_STRATEGY)) {
            needs.extend(full.renders_from.iter().cloned());
        }
    }
    needs
}

/// The prompter of a variant: its options set for it alone; `compress_above_tokens` turns on
/// the trigger.
pub fn prompter_for<'h>(host: &'h Host, variant: &Variant) -> Result<Prompter<'h>, Error> {
    if variant.strategy == AS_SENT {
        if let Some((option, _)) = variant.options.first() {
            return Err(Error::BadVariant {
                spec: variant.label.clone(),
                reason: format!(
                    "{AS_SENT} sends the recorded requests and has no option `{option}`"
                ),
            });
        }
        return Ok(Prompter::AsSent);
    }
    let strategy = host.strategy(Some(&variant.strategy))?;
    for (option, _) in &variant.options {
        let known: Vec<&str> = strategy.options.iter().map(|s| s.name.as_str()).collect();
        if option != "compress_above_tokens" && !known.contains(&option.as_str()) {
            return Err(Error::UnknownOption {
                spec: variant.label.clone(),
                option: option.clone(),
                strategy: variant.strategy.clone(),
                known: if known.is_empty() {
                    "compress_above_tokens".into()
                } else {
                    format!("{} and compress_above_tokens", known.join(", "))
                },
                suggestion: crate::suggest::did_you_mean(
                    option,
                    known.iter().copied().chain(["compress_above_tokens"]),
                ),
            });
        }
    }
    let mut config: Config = host.config().clone();
    let mut threshold = config.compress_above_tokens();
    for (option, value) in &variant.options {
        if option == "compress_above_tokens" {
            threshold = value.parse().ok().filter(|&n| n > 0);
            if value.parse::<usize>().is_err() {
                return Err(Error::BadVariant {
                    spec: variant.label.clone(),
                    reason: format!(
                        "compress_above_tokens must be a number of tokens, not `{value}`"
                    ),
                });
            }
            continue;
        }
        config.set_option(
            &variant.strategy,
            option,
            value,
            &format!("`{}`", variant.label),
        )?;
    }
    Ok(host
        .prompter_with(Some(&variant.strategy), &config, threshold)?
        .into())
}
