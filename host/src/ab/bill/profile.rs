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
    for (usage, request) in recording.usage.iter().zip(&recording.requests) {
        let (Some(usage), Some(request)) = (usage, request) else {
            continue;
        };
        let model = usage.model.as_deref().or(request.model.as_deref());
        let profile = choose(recording, usage.provider.as_deref(), model, info)?;
        let profile = for_model(pricing, info, profile, model, first_sent(recording));
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
    let provider = provider.ok_or_else(|| Error::NoBillProvider { path: path.clone() })?;
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

/// The name of the profile that prices `recording` as billed (`deepseek`, or a model's own
/// prices: `anthropic@model=claude-sonnet-4`), when it holds billed calls that one profile
/// prices.
pub fn billed_profile(
    recording: &Recording,
    pricing: &[Pricing],
    info: &[ProfileInfo],
) -> Option<String> {
    first_billed(recording)?;
    let (mut pricing, mut info) = (pricing.to_vec(), info.to_vec());
    let profile = one_profile(recording, &mut pricing, &mut info).ok()?;
    Some(pricing[profile].name.clone())
}
