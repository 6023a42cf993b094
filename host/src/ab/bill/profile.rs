//! Which pricing profile prices a billed run: the one whose provider and model its usage
//! names, the model's own prices and minimum when the profile lists the model; a run whose
//! calls are billed under several profiles is refused.

use crate::pricing::{Pricing, ProfileInfo};
use crate::recording::Recording;
use crate::Error;

/// The one profile that prices every billed call of `recording`, each by the provider and model
/// its usage names; a run whose calls are billed under several profiles (a gateway that routed
/// them to several providers) is refused rather than priced as its first call.
pub(super) fn one_profile(
    recording: &Recording,
    pricing: &mut Vec<Pricing>,
    info: &mut Vec<ProfileInfo>,
) -> Result<usize, Error> {
    let mut profiles: Vec<(usize, usize)> = Vec::new();
    for (_, profile) in per_call(recording, pricing, info)? {
        match profiles.iter_mut().find(|(p, _)| *p == profile) {
            Some((_, calls)) => *calls += 1,
            None => profiles.push((profile, 1)),
        }
    }
    match profiles[..] {
        [] => Err(Error::NoBillProvider {
            path: recording.path.display().to_string(),
        }),
        [(profile, _)] => Ok(profile),
        _ => Err(Error::MixedBillProfiles {
            path: recording.path.display().to_string(),
            profiles: profiles
                .iter()
                .map(|&(p, calls)| format!("{} ({calls} call(s))", pricing[p].name))
                .collect::<Vec<_>>()
                .join(", "),
        }),
    }
}

/// Each billed call of `recording` (its turn), with the profile of the provider and model its
/// usage names, in turn order.
fn per_call(
    recording: &Recording,
    pricing: &mut Vec<Pricing>,
    info: &mut Vec<ProfileInfo>,
) -> Result<Vec<(usize, usize)>, Error> {
    let mut calls = Vec::new();
    let billed = recording.usage.iter().zip(&recording.requests).enumerate();
    for (turn, (usage, request)) in billed {
        let (Some(usage), Some(request)) = (usage, request) else {
            continue;
        };
        let model = usage.model.as_deref().or(request.model.as_deref());
        let profile = choose(recording, usage.provider.as_deref(), model, info)?;
        let profile = for_model(pricing, info, profile, model, first_sent(recording));
        calls.push((turn, profile));
    }
    Ok(calls)
}

/// Per turn of `recording`, the name of the profile that prices it as billed: each turn with
/// a billed call by the provider and model its usage names, a turn without one by the billed
/// call before it (the first billed call, for the turns before that). `None` when the run
/// holds no billed call, or a call names no provider or one no profile prices.
pub fn billed_by_turn(
    recording: &Recording,
    pricing: &[Pricing],
    info: &[ProfileInfo],
) -> Option<Vec<String>> {
    let (mut pricing, mut info) = (pricing.to_vec(), info.to_vec());
    let calls = per_call(recording, &mut pricing, &mut info).ok()?;
    let &(_, first) = calls.first()?;
    let mut calls = calls.into_iter().peekable();
    let mut profile = first;
    let turns = (0..recording.turns.len())
        .map(|turn| {
            if let Some((_, own)) = calls.next_if(|&(t, _)| t == turn) {
                profile = own;
            }
            pricing[profile].name.clone()
        })
        .collect();
    Some(turns)
}

/// When the run's first call with a time was sent: the rule in force then prices it.
pub(super) fn first_sent(recording: &Recording) -> Option<f64> {
    recording.started_at.iter().flatten().next().copied()
}

/// The profile that prices `model` with `profile` for a run first sent at `at`: `profile`
/// itself, or, when the profile lists the model with prices, a minimum, a caching rule or
/// tiers of its own in force then, the profile with them (`anthropic@model=claude-haiku-4-5`), by the rule in force at
/// `at` (the current one without a time), added to `pricing` and `info` the first time.
pub(super) fn for_model(
    pricing: &mut Vec<Pricing>,
    info: &mut Vec<ProfileInfo>,
    profile: usize,
    model: Option<&str>,
    at: Option<f64>,
) -> usize {
    let Some(variant) = model.and_then(|m| info[profile].for_model_at(&pricing[profile], m, at))
    else {
        return profile;
    };
    // A dated rule whose figures are the profile's own (DeepSeek's models before their prefix
    // units) is the profile.
    let differs = Pricing {
        name: pricing[profile].name.clone(),
        ..variant.clone()
    } != pricing[profile];
    if !differs {
        return profile;
    }
    if let Some(found) = pricing.iter().position(|p| p.name == variant.name) {
        return found;
    }
    let mut variant_info = info[profile].clone();
    variant_info.name = variant.name.clone();
    variant_info.output_per_mtok = variant.output_per_mtok;
    pricing.push(variant);
    info.push(variant_info);
    pricing.len() - 1
}

/// Whether `recording` holds a request as sent with the usage billed for it.
pub fn is_billed(recording: &Recording) -> bool {
    first_billed(recording).is_some()
}

/// The provider and model of a recording's first billed call with a request, if it has one.
pub(super) fn first_billed(recording: &Recording) -> Option<(Option<String>, Option<String>)> {
    recording
        .usage
        .iter()
        .zip(&recording.requests)
        .find_map(|(usage, request)| match (usage, request) {
            (Some(usage), Some(request)) => Some((
                usage.provider.clone(),
                usage.model.clone().or_else(|| request.model.clone()),
            )),
            _ => None,
        })
}

/// The profile of the provider and model a call's usage names: one listing the model first,
/// then one for every model of the provider.
pub(super) fn choose(
    recording: &Recording,
    provider: Option<&str>,
    model: Option<&str>,
    info: &[ProfileInfo],
) -> Result<usize, Error> {
    let path = recording.path.display().to_string();
    let provider = match provider {
        Some(provider) => provider,
        None => model
            .and_then(|m| provider_of_model(m, info))
            .ok_or_else(|| Error::NoBillProvider { path: path.clone() })?,
    };
    let named = info
        .iter()
        .position(|i| i.serves(provider) && model.is_some_and(|m| i.model(m).is_some()));
    let any = || {
        info.iter()
            .position(|i| i.prices_unlisted_models && i.prices(provider, model))
    };
    named.or_else(any).ok_or_else(|| Error::NoBillProfile {
        path,
        provider: provider.to_owned(),
        model: model.map_or("a model it does not name".into(), |m| format!("`{m}`")),
    })
}

/// The provider of a call whose usage names its model and not its provider: the one the model
/// is prefixed with (`openai/gpt-4o`), or else the one provider whose profiles list the model
/// (`claude-3-5-sonnet-20241022`: Anthropic); `None` when no profile, or several providers'
/// profiles, list it.
pub fn provider_of_model<'a>(model: &str, info: &'a [ProfileInfo]) -> Option<&'a str> {
    let serving = |provider: &str| info.iter().find(|i| i.serves(provider));
    if let Some((named, _)) = model.split_once('/') {
        if let Some(profile) = serving(named) {
            return profile.provider.as_deref();
        }
    }
    let mut providers = info
        .iter()
        .filter(|i| i.model(model).is_some())
        .filter_map(|i| i.provider.as_deref());
    let first = providers.next()?;
    providers.all(|p| p == first).then_some(first)
}

/// The model of `recording`'s first billed call whose usage names no provider, when one does:
/// its provider is then the one the model names ([`provider_of_model`]), inferred.
pub fn model_without_provider(recording: &Recording) -> Option<&str> {
    recording
        .usage
        .iter()
        .zip(&recording.requests)
        .filter_map(|(usage, request)| usage.as_ref().zip(request.as_ref()))
        .find(|(usage, _)| usage.provider.is_none())
        .and_then(|(usage, request)| usage.model.as_deref().or(request.model.as_deref()))
}

/// The note that says which runs were priced by a provider inferred from the model their usage
/// names (`runs`: each run's name and model, the first ones), of `count` in all.
pub fn inferred_provider_note(runs: &[(String, String)], count: usize) -> String {
    let named: Vec<String> = runs
        .iter()
        .take(3)
        .map(|(run, model)| format!("{run} ({model})"))
        .collect();
    let more = match count.saturating_sub(named.len()) {
        0 => String::new(),
        more => format!(" and {more} more"),
    };
    format!(
        "note: {count} run(s) name their model but not its provider, priced by the provider inferred from the model (its prefix, or the one provider whose profile lists it): {}{more}; --pricing chooses another",
        named.join(", ")
    )
}
