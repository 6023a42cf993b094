//! `ptc pricing`: every `[pricing.<name>]` profile of the configuration with its caching rule,
//! its prices, whom and which models it prices, its per-model minimums, and where and when its
//! figures were read, so that a user sees how old each rule is before trusting a dollar figure;
//! with `--requests`, each prompt of a run as a prompt cache sees it, which is what the
//! simulation prices (and what another cost model can be given to price the same requests).

use std::fmt::Write as _;
use std::io::Write;
use std::path::PathBuf;

use serde_json::json;

use crate::cache::{Caching, Ttl};
use crate::commands::args::{ConfigArgs, RecordingArgs};
use crate::commands::Context;
use crate::host::Host;
use crate::output::{pretty, write_out, Format};
use crate::pricing::{Pricing, ProfileInfo};
use crate::tokens::{Counter, Counting};
use crate::Error;

/// List the pricing profiles: caching rule, prices, provider, models, source and date
///
/// Every `[pricing.<name>]` profile of the configuration, in name order: how its provider
/// caches prompts (explicit breakpoints or an implicit shared prefix, the minimum cacheable
/// length and its per-model exceptions, the step, the TTL, where breakpoints go), its prices
/// per million tokens (output included), the provider and models it prices, and the source of
/// its figures with the date they were read. `ptc ab --pricing` and `ptc bill --pricing` take
/// these names.
///
/// With --requests, instead: every prompt of one recording as a prompt cache sees it, as JSON
/// (its tokens, the tokens it shares with the previous prompt, its time, and its blocks: the
/// tokens up to each one's end, a key of the prefix it ends, whether it carries the strategy's
/// breakpoint and whether it is part of the system prompt), counted in the request format of
/// the provider of `[ab] pricing` (`counting`: `anthropic-blocks` for explicit caching,
/// `openai-chat` for implicit). These are the requests `ptc ab` prices under that profile.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// What to print
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Print each prompt of this recording as a prompt cache sees it (JSON) instead
    #[arg(long, value_name = "RECORDING")]
    requests: Option<PathBuf>,
    /// The strategy that renders the prompts of --requests [default: [compression] strategy of
    /// the configuration]
    #[arg(long, value_name = "NAME", requires = "requests")]
    strategy: Option<String>,
    #[command(flatten)]
    config: ConfigArgs,
    #[command(flatten)]
    limits: RecordingArgs,
}

/// `ptc pricing`.
pub fn exec(args: Args, context: &Context, out: &mut dyn Write) -> Result<(), Error> {
    if let Some(path) = &args.requests {
        let host = context.with_strategies(&args.config, Some(&args.limits))?;
        let requests = requests(&host, path, args.strategy.as_deref())?;
        return write_out(out, &pretty(&requests));
    }
    let config = context.config(&args.config)?;
    let profiles = config.pricing_profiles()?;
    let info = config.pricing_info();
    let text = match args.format {
        Format::Text => text(&profiles, &info, config.ab_pricing()),
        Format::Json => pretty(&json(&profiles, &info, config.ab_pricing())),
    };
    write_out(out, &text)
}

/// Every prompt of the recording at `path`, rendered by `strategy`, as a prompt cache sees it.
pub fn requests(
    host: &Host,
    path: &std::path::Path,
    strategy: Option<&str>,
) -> Result<serde_json::Value, Error> {
    let prompter = host.prompter(strategy)?;
    let recording = crate::ops::recording_named(host, path)?;
    let tokenizer = host.tokenizer(None)?;
    let config = host.config();
    let profile = crate::ab::pricing_variant(
        &config.pricing_profiles()?,
        &config.pricing_info(),
        config.ab_pricing(),
    )?;
    let counting = Counting::of(profile.caching);
    let mut counter = Counter::new(tokenizer);
    let mut previous = Vec::new();
    let mut prompts = Vec::with_capacity(recording.turns.len());
    for turns in 0..recording.turns.len() {
        let (prompt, _) = prompter.render(&recording, turns, &mut counter)?;
        let at = recording.started_at.get(turns).copied().flatten();
        let request = counter.request_as(counting, &previous, &prompt.messages, at);
        prompts.push(json!({
            "turns": turns,
            "tokens": request.tokens,
            "shared": request.shared,
            "at": request.at,
            "blocks": request.blocks.iter().map(|b| json!({
                "end": b.end,
                "prefix": format!("{:016x}", b.prefix),
                "breakpoint": b.strategy_breakpoint,
                "system": b.system,
            })).collect::<Vec<_>>(),
        }));
        previous = prompt.messages;
    }
    Ok(json!({
        "recording": path.display().to_string(),
        "strategy": host.strategy(strategy)?.name,
        "tokenizer": tokenizer.name(),
        "pricing": profile.name,
        "counting": counting.as_str(),
        "prompts": prompts,
    }))
}

/// The profiles as JSON: one object per profile, in name order.
pub fn json(profiles: &[Pricing], info: &[ProfileInfo], primary: &str) -> serde_json::Value {
    let list: Vec<_> = profiles
        .iter()
        .zip(info)
        .map(|(p, i)| {
            let explicit = p.caching.has_breakpoints();
            json!({
                "name": p.name,
                "default": p.name == primary,
                "caching": if p.min_cacheable_tokens == 0 { "none" } else { p.caching.as_str() },
                "min_cacheable_tokens": p.min_cacheable_tokens,
                "models": i
                    .models
                    .iter()
                    .filter_map(|(model, own)| {
                        let m = i.for_model(p, model)?;
                        let mut said = json!({
                            "input_per_mtok": m.input_per_mtok,
                            "cache_read_per_mtok": m.cache_read_per_mtok,
                            "cache_write_per_mtok": explicit.then_some(m.cache_write_per_mtok),
                            "cache_write_1h_per_mtok": explicit.then_some(m.cache_write_1h_per_mtok),
                            "output_per_mtok": m.output_per_mtok,
                            "min_cacheable_tokens": m.min_cacheable_tokens,
                            "source": own.source.as_ref().or(i.source.as_ref()),
                            "as_of": own.as_of.as_ref().or(i.as_of.as_ref()),
                        });
                        // Only a model with price tiers, or dated figures, says them.
                        if let Some(tier) = m.tiers.long_prompt {
                            said["long_prompt_tokens"] = json!(tier.above_tokens);
                            said["long_prompt_multiplier"] = json!(tier.multiplier);
                        }
                        if let Some(effective) = &own.effective {
                            said["effective"] = json!(effective.to_string());
                        }
                        Some((model.clone(), said))
                    })
                    .collect::<serde_json::Map<_, _>>(),
                "prices_unlisted_models": i.prices_unlisted_models,
                "cache_step_tokens": (!explicit).then_some(p.cache_step_tokens.max(1)),
                "cache_ttl": p.ttl.as_str(),
                "breakpoints": explicit.then_some(p.placement.as_str()),
                "cache_includes_output": i.cache_includes_output,
                "hits_guaranteed": !i.hits_not_guaranteed,
                "input_per_mtok": p.input_per_mtok,
                "cache_read_per_mtok": p.cache_read_per_mtok,
                "cache_write_per_mtok": explicit.then_some(p.cache_write_per_mtok),
                "cache_write_1h_per_mtok": explicit.then_some(p.cache_write_1h_per_mtok),
                "output_per_mtok": i.output_per_mtok,
                "provider": i.provider,
                "source": i.source,
                "as_of": i.as_of,
            })
        })
        .collect();
    json!(list)
}

/// The profiles for people: a heading line per profile, then its rule, prices, per-model
/// minimums, source and date, one to a line.
pub fn text(profiles: &[Pricing], info: &[ProfileInfo], primary: &str) -> String {
    let mut text = String::new();
    for (p, i) in profiles.iter().zip(info) {
        let who = match (&i.provider, i.prices_unlisted_models) {
            (None, _) => "no provider".to_owned(),
            (Some(provider), true) => format!("{provider}, every model"),
            (Some(provider), false) => format!("{provider}: {}", model_names(i).join(", ")),
        };
        let default = if p.name == primary {
            " (the cost column of `ptc ab`)"
        } else {
            ""
        };
        let _ = writeln!(text, "{} [{who}]{default}", p.name);
        let _ = writeln!(text, "  rule      {}", rule(p, i));
        let mut prices = format!(
            "input {}, cache read {}",
            dollars(p.input_per_mtok),
            dollars(p.cache_read_per_mtok)
        );
        if p.caching == Caching::Explicit && p.min_cacheable_tokens > 0 {
            let _ = write!(
                prices,
                ", cache write {} (5m) / {} (1h)",
                dollars(p.cache_write_per_mtok),
                dollars(p.cache_write_1h_per_mtok)
            );
        } else if p.caching.has_breakpoints() && p.min_cacheable_tokens > 0 {
            let _ = write!(prices, ", cache write {}", dollars(p.cache_write_per_mtok));
        }
        let output = if i.output_per_mtok > 0.0 {
            dollars(i.output_per_mtok)
        } else {
            "not set".to_owned()
        };
        let _ = writeln!(text, "  per Mtok  {prices}, output {output}");
        models_table(&mut text, p, i);
        let _ = writeln!(
            text,
            "  source    {}",
            i.source.as_deref().unwrap_or("not stated")
        );
        let _ = writeln!(
            text,
            "  as of     {}",
            i.as_of.as_deref().unwrap_or("not stated")
        );
    }
    text
}

/// The names of the models a profile lists.
fn model_names(i: &ProfileInfo) -> Vec<&str> {
    i.models.iter().map(|(m, _)| m.as_str()).collect()
}

/// The models a profile lists, one to a line with its prices (dollars per million tokens) and
/// minimum, each the profile's where the model sets none; then where a model's own figures come
/// from, when not from the profile's source. At most 100 columns for names of up to 30
/// characters.
fn models_table(text: &mut String, p: &Pricing, i: &ProfileInfo) {
    if i.models.is_empty() {
        return;
    }
    let writes = p.caching.has_breakpoints();
    let _ = writeln!(
        text,
        "  {:<30} {:>8} {:>8} {:>9} {:>9} {:>8} {:>6}",
        "models, $ per Mtok", "input", "read", "write 5m", "write 1h", "output", "from"
    );
    let price = |x: f64| format!("{x}");
    for (model, own) in &i.models {
        let Some(m) = i.for_model(p, model) else {
            continue;
        };
        let write = |x: f64| if writes { price(x) } else { "-".to_owned() };
        let _ = writeln!(
            text,
            "  {model:<30} {:>8} {:>8} {:>9} {:>9} {:>8} {:>6}",
            price(m.input_per_mtok),
            price(m.cache_read_per_mtok),
            write(m.cache_write_per_mtok),
            write(m.cache_write_1h_per_mtok),
            price(m.output_per_mtok),
            thousands(m.min_cacheable_tokens)
        );
        if let Some(source) = &own.source {
            let as_of = own.as_of.as_deref().unwrap_or("not stated");
            let _ = writeln!(text, "    {model}: {source} ({as_of})");
        }
        if let Some(tier) = own.long_prompt() {
            let _ = writeln!(
                text,
                "    {model}: a request over {} prompt tokens pays {}x on every token",
                thousands(tier.above_tokens as usize),
                tier.multiplier
            );
        }
        if let Some(peak) = own.tiers().peak {
            let windows: Vec<String> = peak
                .windows
                .iter()
                .map(|w| {
                    format!(
                        "{:02}:{:02}-{:02}:{:02}",
                        w.from / 60,
                        w.from % 60,
                        w.to / 60,
                        w.to % 60
                    )
                })
                .collect();
            let _ = writeln!(
                text,
                "    {model}: a request sent Monday to Friday {} UTC pays {}x on every token (peak hours)",
                windows.join(", "),
                peak.multiplier
            );
        }
        if let Some(caching) = own.caching {
            let _ = writeln!(text, "    {model}: caching {}", caching.as_str());
        }
        if let Some(effective) = &own.effective {
            let mut line = format!("    {model}: in force since {effective}");
            let names = own.rule("").err().unwrap_or_default();
            for name in names.iter().skip(1) {
                let Ok(earlier) = own.rule(name) else {
                    continue;
                };
                let mut then = p.clone();
                earlier.apply(&mut then);
                let since = match name.strip_prefix("before-") {
                    Some(_) => String::new(),
                    None => format!(" in force since {name}"),
                };
                let _ = write!(
                    line,
                    "; before it (@rule={name}){since}: input {}, read {}, output {}, caching {}",
                    price(then.input_per_mtok),
                    price(then.cache_read_per_mtok),
                    price(then.output_per_mtok),
                    then.caching.as_str()
                );
                if earlier.tiers().peak.is_none() && own.tiers().peak.is_some() {
                    line.push_str(", no peak hours");
                }
            }
            let _ = writeln!(text, "{line}");
        }
    }
}

/// A profile's caching rule in words.
fn rule(p: &Pricing, i: &ProfileInfo) -> String {
    if p.min_cacheable_tokens == 0 {
        return "no caching: every token at the input price".to_owned();
    }
    match p.caching {
        Caching::Implicit => {
            let mut rule = format!(
                "implicit: the prefix shared with the previous request, from {} tokens, in steps of {}",
                thousands(p.min_cacheable_tokens),
                thousands(p.cache_step_tokens.max(1))
            );
            if i.cache_includes_output {
                rule.push_str("; the response is cached after its request");
            }
            match p.ttl {
                Ttl::Unstated => rule.push_str("; no lifetime stated (not expired)"),
                ttl => {
                    let _ = write!(rule, "; gone after {} without a request", ttl.as_str());
                }
            }
            rule
        }
        Caching::PrefixUnits => format!(
            "prefix-units: a request reads only a whole cached unit it starts with (its earlier requests' inputs and outputs, and prefixes two of them shared), from {} tokens, in steps of {}",
            thousands(p.min_cacheable_tokens),
            thousands(p.cache_step_tokens.max(1))
        ),
        Caching::Explicit => format!(
            "explicit: breakpoints ({}), from {} tokens, TTL {}, at most {} breakpoints, {}-block lookback",
            p.placement.as_str(),
            thousands(p.min_cacheable_tokens),
            p.ttl.as_str(),
            crate::cache::MAX_BREAKPOINTS,
            crate::cache::LOOKBACK_BLOCKS
        ),
        Caching::OpenAiBreakpoints => format!(
            "openai-breakpoints: breakpoints ({}), none on the assistant's blocks, from {} tokens, TTL {} from the write, at most {} written a request, matched against the latest {} at any block",
            p.placement.as_str(),
            thousands(p.min_cacheable_tokens),
            p.ttl.as_str(),
            crate::cache::MAX_BREAKPOINTS,
            crate::cache::OPENAI_MATCHED_BREAKPOINTS
        ),
        Caching::GeminiExplicit => format!(
            "gemini-explicit: one cache object a run, the prefix up to the first breakpoint ({}), from {} tokens, TTL {} from its creation; its write price holds creating, reading and storing it for the TTL",
            p.placement.as_str(),
            thousands(p.min_cacheable_tokens),
            p.ttl.as_str()
        ),
    }
}

/// `$3`, `$0.075`: dollars with no trailing zeros.
fn dollars(price: f64) -> String {
    format!("${price}")
}

/// `12,345`.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}
