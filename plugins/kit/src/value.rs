//! The canonical order of map entries and set elements, and the constructors that
//! sort into it. The host builds every map and set of a recording with these, so strategies see
//! them in this order.

use std::cmp::Ordering;

use abi_stable::std_types::Tuple2;
use ptc_plugin_api::Value;

/// A map from entries in any order; they are sorted into canonical order.
/// Returns the first duplicate key as the error.
pub fn map_from(mut entries: Vec<(Value, Value)>) -> Result<Value, Value> {
    entries.sort_by(|a, b| canonical_cmp(&a.0, &b.0));
    if let Some(dup) = entries
        .windows(2)
        .find(|w| canonical_cmp(&w[0].0, &w[1].0) == Ordering::Equal)
    {
        return Err(dup[1].0.clone());
    }
    Ok(Value::Map(entries.into_iter().map(Tuple2::from).collect()))
}

/// A set from elements in any order; they are sorted into canonical order.
/// Returns the first duplicate element as the error.
pub fn set_from(mut elements: Vec<Value>) -> Result<Value, Value> {
    elements.sort_by(canonical_cmp);
    if let Some(dup) = elements
        .windows(2)
        .find(|w| canonical_cmp(&w[0], &w[1]) == Ordering::Equal)
    {
        return Err(dup[1].clone());
    }
    Ok(Value::Set(elements.into()))
}

/// The rank of a value's kind in the canonical order.
fn kind_rank(value: &Value) -> u8 {
    match value {
        Value::Nil => 0,
        Value::Boolean(_) => 1,
        Value::Integer(_) | Value::Float(_) => 2,
        Value::Keyword(_) => 3,
        Value::String(_) => 4,
        _ => 5,
    }
}

fn number_cmp(a: &Value, b: &Value) -> Ordering {
    match (a, b) {
        (Value::Integer(x), Value::Integer(y)) => x.cmp(y),
        (Value::Float(x), Value::Float(y)) => float_cmp(*x, *y),
        (Value::Integer(x), Value::Float(y)) => float_cmp(*x as f64, *y).then(Ordering::Less),
        (Value::Float(x), Value::Integer(y)) => float_cmp(*x, *y as f64).then(Ordering::Greater),
        _ => Ordering::Equal,
    }
}

/// Floats by value; NaN after every number.
fn float_cmp(x: f64, y: f64) -> Ordering {
    match (x.is_nan(), y.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        (false, false) => x.partial_cmp(&y).unwrap_or(Ordering::Equal),
    }
}

/// The fixed order in which map entries and set elements print, whatever the recording's: nil,
/// booleans (false first), numbers by value (an integer before an equal float), keywords,
/// strings (both by bytes), then everything else by its printed Clojure text (private entries
/// included).
pub fn canonical_cmp(a: &Value, b: &Value) -> Ordering {
    let (ra, rb) = (kind_rank(a), kind_rank(b));
    if ra != rb {
        return ra.cmp(&rb);
    }
    match (a, b) {
        (Value::Boolean(x), Value::Boolean(y)) => x.cmp(y),
        (Value::Keyword(x), Value::Keyword(y)) | (Value::String(x), Value::String(y)) => {
            x.as_str().cmp(y.as_str())
        }
        _ if ra == 2 => number_cmp(a, b),
        _ if ra == 5 => {
            let (pa, pb) = (crate::format::exact_text(a), crate::format::exact_text(b));
            pa.cmp(&pb)
        }
        _ => Ordering::Equal,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use abi_stable::std_types::RVec;

    #[test]
    fn canonical_order_groups_kinds_then_values() {
        let mut values = vec![
            Value::string("b"),
            Value::keyword("z"),
            Value::Float(1.5),
            Value::List(RVec::new()),
            Value::Integer(2),
            Value::Boolean(true),
            Value::Nil,
            Value::keyword("a"),
            Value::Boolean(false),
            Value::string("a"),
            Value::Integer(-3),
        ];
        values.sort_by(canonical_cmp);
        let printed: Vec<String> = values.iter().map(crate::to_clojure_full).collect();
        assert_eq!(
            printed,
            ["nil", "false", "true", "-3", "1.5", "2", ":a", ":z", "\"a\"", "\"b\"", "[]"]
        );
    }

    #[test]
    fn map_from_sorts_and_rejects_duplicates() {
        let map = map_from(vec![
            (Value::keyword("b"), Value::Integer(2)),
            (Value::keyword("a"), Value::Integer(1)),
        ])
        .unwrap();
        assert_eq!(crate::to_clojure_full(&map), "{:a 1 :b 2}");
        let dup = map_from(vec![
            (Value::keyword("a"), Value::Integer(1)),
            (Value::keyword("a"), Value::Integer(2)),
        ]);
        assert_eq!(dup, Err(Value::keyword("a")));
    }

    #[test]
    fn nan_sorts_after_numbers() {
        let set = set_from(vec![Value::Float(f64::NAN), Value::Integer(1)]).unwrap();
        assert_eq!(crate::to_clojure_full(&set), "#{1 ##NaN}");
    }
}
