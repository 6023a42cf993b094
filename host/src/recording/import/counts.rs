//! The numbers of a log's bill, read one way for every import format: a token count is a
//! whole number from 0 that fits in 64 bits, a cost a number of dollars from 0 to
//! [`MAX_COST_USD`]. A field the log leaves out (or writes `null`) is unknown; anything else
//! that is not such a number (a string, a negative or fractional count, a boolean) is refused
//! naming the field, never read as 0 and never dropped with the rest of the call's usage: a
//! bill read wrong is worse than no bill.

use serde_json::Value as Json;

use crate::recording::format::MAX_COST_USD;

/// Why a number of a log's bill cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum CountError {
    #[error("`{field}` is {found}, not a count of tokens (a whole number from 0)")]
    NotACount { field: String, found: String },
    #[error("`{field}` is {found}, not a cost in dollars (a number from 0 to {MAX_COST_USD:e})")]
    NotACost { field: String, found: String },
    #[error("{parts} ({part_count}) are more than `{whole}` ({whole_count}), which includes them")]
    PartsAboveWhole {
        parts: String,
        part_count: u128,
        whole: String,
        whole_count: u64,
    },
}

/// The token count `value` (the log's field `field`, named as the log writes it): none when
/// the log leaves it out.
pub(crate) fn count(value: &Json, field: &str) -> Result<Option<u64>, CountError> {
    match value {
        Json::Null => Ok(None),
        Json::Number(n) if n.as_u64().is_some() => Ok(n.as_u64()),
        other => Err(CountError::NotACount {
            field: field.to_owned(),
            found: shown(other),
        }),
    }
}

/// The cost `value` (the log's field `field`): none when the log leaves it out.
pub(crate) fn cost(value: &Json, field: &str) -> Result<Option<f64>, CountError> {
    match value {
        Json::Null => Ok(None),
        Json::Number(n) => match n.as_f64() {
            // An integer beyond 64 bits reads as a float; it is above the bound anyway.
            Some(c) if (0.0..=MAX_COST_USD).contains(&c) => Ok(Some(c)),
            _ => Err(CountError::NotACost {
                field: field.to_owned(),
                found: shown(value),
            }),
        },
        other => Err(CountError::NotACost {
            field: field.to_owned(),
            found: shown(other),
        }),
    }
}

/// `whole` less the counts `parts` it includes (each with its field); an error naming them
/// all when they are more than it: the log contradicts itself, and no share of it can be
/// trusted.
pub(crate) fn less(whole: (u64, &str), parts: &[(u64, &str)]) -> Result<u64, CountError> {
    let sum: u128 = parts.iter().map(|&(n, _)| u128::from(n)).sum();
    match u128::from(whole.0).checked_sub(sum) {
        // No more than `whole`, so it fits.
        Some(rest) => Ok(rest as u64),
        None => Err(CountError::PartsAboveWhole {
            parts: parts
                .iter()
                .map(|(_, field)| format!("`{field}`"))
                .collect::<Vec<_>>()
                .join(" and "),
            part_count: sum,
            whole: whole.1.to_owned(),
            whole_count: whole.0,
        }),
    }
}

/// litellm's usage of one response in ptc's convention (OpenAI's and Anthropic's fields, as
/// OpenHands and mini-swe-agent save them: `prompt_tokens` holds the cache reads and writes;
/// litellm before its Anthropic usage counted the writes in, when `prompt_tokens` is smaller
/// than the reads and writes together, holds the reads only); none without `prompt_tokens`.
/// The writes are Anthropic's `cache_creation_input_tokens`, else OpenAI's
/// `prompt_tokens_details.cache_write_tokens` (GPT-5.6 and later bill writes at a premium;
/// the Responses API reports them as `input_tokens_details.cache_write_tokens`, included in
/// the input tokens as the cached ones are).
/// `at` is where the log holds it, for the errors: a count that is not one, or reads above
/// `prompt_tokens`.
pub(crate) fn litellm_usage(usage: &Json, at: &str) -> Result<Option<Json>, CountError> {
    let field = |name: &str| format!("{at}.{name}");
    let number = |name: &str| count(&usage[name], &field(name));
    let Some(prompt) = number("prompt_tokens")? else {
        return Ok(None);
    };
    let (read, read_field) = match number("cache_read_input_tokens")? {
        Some(read) => (read, field("cache_read_input_tokens")),
        None => {
            let name = field("prompt_tokens_details.cached_tokens");
            let read = count(&usage["prompt_tokens_details"]["cached_tokens"], &name)?;
            (read.unwrap_or(0), name)
        }
    };
    let written = match number("cache_creation_input_tokens")? {
        Some(written) => written,
        None => {
            let name = field("prompt_tokens_details.cache_write_tokens");
            count(&usage["prompt_tokens_details"]["cache_write_tokens"], &name)?.unwrap_or(0)
        }
    };
    let output = number("completion_tokens")?.unwrap_or(0);
    let uncached = less((prompt, &field("prompt_tokens")), &[(read, &read_field)])?;
    Ok(Some(serde_json::json!({
        "input": uncached.checked_sub(written).unwrap_or(uncached),
        "cache_read": read,
        "cache_write_5m": written,
        "output": output,
    })))
}

/// A value as an error shows it: the string `"1408"`, `-5`, `true`.
fn shown(value: &Json) -> String {
    let text: String = value.to_string().chars().take(40).collect();
    match value {
        Json::String(_) => format!("the string {text}"),
        Json::Array(_) | Json::Object(_) => super::kind(value).to_owned(),
        _ => text,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_count_is_a_whole_number_from_zero_or_unknown() {
        assert_eq!(count(&json!(1408), "f").unwrap(), Some(1408));
        assert_eq!(count(&Json::Null, "f").unwrap(), None);
        for bad in [
            json!("1408"),
            json!(-1),
            json!(1.5),
            json!(true),
            json!([1]),
        ] {
            let err = count(&bad, "tokens.cache_read").unwrap_err().to_string();
            assert!(err.starts_with("`tokens.cache_read` is "), "{err}");
        }
        assert_eq!(
            count(&json!("1408"), "x").unwrap_err().to_string(),
            "`x` is the string \"1408\", not a count of tokens (a whole number from 0)"
        );
    }

    #[test]
    fn a_cost_is_a_bounded_number_of_dollars_or_unknown() {
        assert_eq!(cost(&json!(0.25), "c").unwrap(), Some(0.25));
        assert_eq!(cost(&Json::Null, "c").unwrap(), None);
        let huge: Json = serde_json::from_str("18446744073709551616").unwrap();
        for bad in [json!(-4.99), json!(1e308), json!("0.1"), huge] {
            assert!(cost(&bad, "c").is_err(), "{bad}");
        }
    }

    #[test]
    fn parts_above_their_whole_are_refused_naming_them() {
        assert_eq!(
            less((10, "input"), &[(3, "read"), (2, "written")]).unwrap(),
            5
        );
        let err = less((10, "input"), &[(11, "read"), (0, "written")]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "`read` and `written` (11) are more than `input` (10), which includes them"
        );
        assert!(less((1, "i"), &[(u64::MAX, "a"), (u64::MAX, "b")]).is_err());
    }

    /// OpenAI's cache writes (GPT-5.6 on), as litellm keeps them beside the cached tokens:
    /// out of the plain input, at 5 minutes; Anthropic's field, when both are there, wins.
    #[test]
    fn openai_cache_writes_are_read_beside_its_cached_tokens() {
        let u = litellm_usage(
            &json!({"prompt_tokens": 5000, "completion_tokens": 9, "prompt_tokens_details": {"cached_tokens": 3000, "cache_write_tokens": 1200}}),
            "u",
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            [
                &u["input"],
                &u["cache_read"],
                &u["cache_write_5m"],
                &u["output"]
            ],
            [800, 3000, 1200, 9]
        );
        let u = litellm_usage(
            &json!({"prompt_tokens": 5000, "cache_creation_input_tokens": 100, "prompt_tokens_details": {"cached_tokens": 3000, "cache_write_tokens": 1200}}),
            "u",
        )
        .unwrap()
        .unwrap();
        assert_eq!(u["cache_write_5m"], 100);
        let err = litellm_usage(
            &json!({"prompt_tokens": 5000, "prompt_tokens_details": {"cache_write_tokens": "1200"}}),
            "u",
        )
        .unwrap_err();
        assert!(
            err.to_string()
                .contains("u.prompt_tokens_details.cache_write_tokens"),
            "{err}"
        );
    }
}
