//! Floats as Clojure prints them: the shortest digits that read back as the same double, in
//! decimal from 10^-3 up to 10^7 and in scientific notation beyond.

use std::fmt::Write;

use super::write_integer;

/// Floats as Clojure prints them (Java's `Double.toString`, shortest digits): `1.0`, `3.14`,
/// `1000.0`, `1.0E7`, `1.0E-5`, `##Inf`, `##-Inf`, `##NaN`.
pub fn write_float(out: &mut String, f: f64) {
    if f.is_nan() {
        out.push_str("##NaN");
    } else if f.is_infinite() {
        out.push_str(if f > 0.0 { "##Inf" } else { "##-Inf" });
    } else if write_cents(out, f) {
        // A number of cents, written without the formatter.
    } else if f == 0.0 || (1e-3..1e7).contains(&f.abs()) {
        let start = out.len();
        let _ = write!(out, "{f}");
        if !out[start..].contains('.') {
            out.push_str(".0");
        }
    } else {
        let text = format!("{f:e}");
        let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
        out.push_str(mantissa);
        if !mantissa.contains('.') {
            out.push_str(".0");
        }
        out.push('E');
        out.push_str(exponent);
    }
}

/// Writes `f` as [`write_float`] does when it is a whole number of hundredths (prices, amounts)
/// from 0.01 up to 10^7 in magnitude, and returns whether it did. Such a number is the
/// double nearest to `n / 100`, so its shortest digits are those of `n / 100` (they are fewer
/// than 12, where doubles are exact to 15): the integer part, then the hundredths without
/// trailing zeros, or `.0`.
pub(super) fn write_cents(out: &mut String, f: f64) -> bool {
    let magnitude = f.abs();
    if !(0.01..1e7).contains(&magnitude) {
        return false;
    }
    let cents = (magnitude * 100.0).round();
    if cents / 100.0 != magnitude {
        return false;
    }
    let cents = cents as u64;
    if f < 0.0 {
        out.push('-');
    }
    write_integer(out, cents / 100);
    let fraction = cents % 100;
    out.push('.');
    if fraction == 0 {
        out.push('0');
    } else {
        out.push(char::from(b'0' + (fraction / 10) as u8));
        if fraction % 10 != 0 {
            out.push(char::from(b'0' + (fraction % 10) as u8));
        }
    }
    true
}
