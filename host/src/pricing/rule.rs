//! Dated price rules: the date a model's figures took effect ([`Date`]), and the price tiers
//! of a request ([`Tiers`]): by prompt length ([`LongPrompt`]) and by the hour it was sent
//! ([`PeakHours`]). A run with call times is priced by the rule in force when its first call
//! was sent; a run without times by the current one.

use std::fmt;

use serde::de::{self, Deserializer};
use serde::Deserialize;
use serde::{Serialize, Serializer};

/// A day, `YYYY-MM-DD` (UTC), as the registry writes the date a rule took effect.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Date {
    /// Days since 1970-01-01.
    days: i64,
    text: String,
}

impl Date {
    /// The day `text` names (`2026-10-07`), or why it names none.
    pub fn parse(text: &str) -> Result<Date, String> {
        let bad = || format!("expected a date written YYYY-MM-DD, found `{text}`");
        let mut parts = text.split('-');
        let mut number = |digits: usize| -> Result<i64, String> {
            let part = parts.next().ok_or_else(bad)?;
            if part.len() != digits || !part.bytes().all(|b| b.is_ascii_digit()) {
                return Err(bad());
            }
            part.parse().map_err(|_| bad())
        };
        let (year, month, day) = (number(4)?, number(2)?, number(2)?);
        if parts.next().is_some() || !(1..=12).contains(&month) {
            return Err(bad());
        }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
        let length = match month {
            2 if leap => 29,
            2 => 28,
            4 | 6 | 9 | 11 => 30,
            _ => 31,
        };
        if !(1..=length).contains(&day) {
            return Err(bad());
        }
        Ok(Date {
            days: days_from_civil(year, month, day),
            text: text.to_owned(),
        })
    }

    /// Whether a call sent at `at` (seconds since 1970, UTC) was sent before this day began.
    pub fn after(&self, at: f64) -> bool {
        at < self.days as f64 * 86_400.0
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl<'de> Deserialize<'de> for Date {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Date::parse(&text).map_err(de::Error::custom)
    }
}

/// Days from 1970-01-01 to the civil date (Howard Hinnant's algorithm).
pub fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// A price tier by prompt length: a request whose prompt (cache reads and writes included)
/// passes `above_tokens` pays `multiplier` times every price on every token of the request,
/// output included (Claude Haiku 5.5: 5x above 100,000 tokens).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LongPrompt {
    pub above_tokens: u64,
    #[serde(deserialize_with = "super::exact_f64")]
    pub multiplier: f64,
}

impl LongPrompt {
    /// What every price of a request of `prompt` tokens is multiplied by.
    pub fn factor(tier: Option<LongPrompt>, prompt: u64) -> f64 {
        match tier {
            Some(tier) if prompt > tier.above_tokens => tier.multiplier,
            _ => 1.0,
        }
    }
}

/// A window of peak hours, `HH:MM-HH:MM` (UTC), as the registry writes it: from its start up
/// to (not including) its end, in minutes of the day.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PeakWindow {
    pub from: u32,
    pub to: u32,
}

impl PeakWindow {
    /// The window `text` names (`01:00-04:00`), or why it names none.
    pub fn parse(text: &str) -> Result<PeakWindow, String> {
        let bad = || format!("expected hours written HH:MM-HH:MM (UTC), found `{text}`");
        let minute = |part: &str| -> Result<u32, String> {
            let (h, m) = part.split_once(':').ok_or_else(bad)?;
            if h.len() != 2 || m.len() != 2 {
                return Err(bad());
            }
            let (h, m): (u32, u32) = (h.parse().map_err(|_| bad())?, m.parse().map_err(|_| bad())?);
            if m >= 60 || h * 60 + m > 24 * 60 {
                return Err(bad());
            }
            Ok(h * 60 + m)
        };
        let (from, to) = text.split_once('-').ok_or_else(bad)?;
        let (from, to) = (minute(from)?, minute(to)?);
        if from >= to {
            return Err(format!("{}: the window ends before it starts", bad()));
        }
        Ok(PeakWindow { from, to })
    }
}

impl fmt::Display for PeakWindow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let hm = |m: u32| format!("{:02}:{:02}", m / 60, m % 60);
        write!(f, "{}-{}", hm(self.from), hm(self.to))
    }
}

impl Serialize for PeakWindow {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for PeakWindow {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        PeakWindow::parse(&text).map_err(de::Error::custom)
    }
}

/// A price tier by the hour a request is sent: on Monday to Friday (UTC), a request sent
/// within one of `windows` pays `multiplier` times every price, output included (DeepSeek:
/// peak hours at twice the off-peak prices the registry lists).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PeakHours {
    pub windows: Vec<PeakWindow>,
    #[serde(deserialize_with = "super::exact_f64")]
    pub multiplier: f64,
}

impl PeakHours {
    /// Whether a request sent at `at` (seconds since 1970, UTC) is sent in peak hours.
    pub fn peak(&self, at: f64) -> bool {
        let days = (at / 86_400.0).floor();
        // 1970-01-01 was a Thursday: Monday is 0.
        let weekday = (days as i64 + 3).rem_euclid(7);
        let minute = ((at - days * 86_400.0) / 60.0).floor() as u32;
        weekday < 5
            && self
                .windows
                .iter()
                .any(|w| (w.from..w.to).contains(&minute))
    }
}

/// The price tiers of a model's rule: every price of a request is multiplied by each tier it
/// falls in. The one home of the tier rule: `ptc ab` and `ptc bill` both price through it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tiers {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub long_prompt: Option<LongPrompt>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak: Option<PeakHours>,
}

/// Which of a rule's tiers a request falls in: the long prompt's, the peak hours', or both.
/// Its number indexes the tokens kept per tier ([`TierTokens`](super::TierTokens)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TierClass {
    Long = 0,
    Peak = 1,
    Both = 2,
}

impl TierClass {
    pub const ALL: [TierClass; 3] = [TierClass::Long, TierClass::Peak, TierClass::Both];
}

impl Tiers {
    /// The tiers a request of `prompt` tokens (cache reads and writes included) sent at `at`
    /// falls in; a request without a time is priced off-peak (the prices listed).
    pub fn class(&self, prompt: u64, at: Option<f64>) -> Option<TierClass> {
        let peak = matches!((&self.peak, at), (Some(peak), Some(at)) if peak.peak(at));
        let long = LongPrompt::factor(self.long_prompt, prompt) != 1.0;
        match (long, peak) {
            (true, true) => Some(TierClass::Both),
            (true, false) => Some(TierClass::Long),
            (false, true) => Some(TierClass::Peak),
            (false, false) => None,
        }
    }

    /// What every price of a request in `class` is multiplied by.
    pub fn multiplier(&self, class: TierClass) -> f64 {
        let long = self.long_prompt.map_or(1.0, |t| t.multiplier);
        let peak = self.peak.as_ref().map_or(1.0, |p| p.multiplier);
        match class {
            TierClass::Long => long,
            TierClass::Peak => peak,
            TierClass::Both => long * peak,
        }
    }

    /// What every price of a request of `prompt` tokens sent at `at` is multiplied by.
    pub fn factor(&self, prompt: u64, at: Option<f64>) -> f64 {
        self.class(prompt, at).map_or(1.0, |c| self.multiplier(c))
    }

    pub fn is_empty(&self) -> bool {
        self.long_prompt.is_none() && self.peak.is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_date_is_a_day_of_the_calendar() {
        let day = Date::parse("2026-10-07").unwrap();
        assert_eq!(day.days, 20_733);
        assert_eq!(day.to_string(), "2026-10-07");
        assert_eq!(Date::parse("1970-01-01").unwrap().days, 0);
        assert_eq!(Date::parse("2024-02-29").unwrap().days, 19_782);
        // 2026-10-07T00:00:00Z is 1,791,331,200 s: the second before is before the day.
        assert!(day.after(1_791_331_199.0));
        assert!(!day.after(1_791_331_200.0));
        for bad in [
            "2026-10",
            "2026-13-01",
            "2025-02-29",
            "2026-1-07",
            "07-10-2026",
            "x",
        ] {
            let err = Date::parse(bad).unwrap_err();
            assert!(
                err.contains("YYYY-MM-DD") && err.contains(bad),
                "{bad}: {err}"
            );
        }
    }

    #[test]
    fn the_tier_takes_a_prompt_over_its_line_and_no_other() {
        let haiku = Some(LongPrompt {
            above_tokens: 100_000,
            multiplier: 5.0,
        });
        assert_eq!(LongPrompt::factor(haiku, 100_000), 1.0);
        assert_eq!(LongPrompt::factor(haiku, 100_001), 5.0);
        assert_eq!(LongPrompt::factor(None, 1_000_000), 1.0);
    }
}

#[cfg(test)]
mod peak_tests {
    use super::*;

    #[test]
    fn peak_hours_take_weekday_windows_and_no_other_minute() {
        let windows = ["01:00-04:00", "06:00-10:00"].map(|w| PeakWindow::parse(w).unwrap());
        let tiers = Tiers {
            long_prompt: None,
            peak: Some(PeakHours {
                windows: windows.to_vec(),
                multiplier: 2.0,
            }),
        };
        // 2026-11-23 was a Monday; its 00:00 UTC is day 20,780.
        let monday = 20_780.0 * 86_400.0;
        let at =
            |day: f64, h: f64, m: f64, s: f64| monday + day * 86_400.0 + h * 3600.0 + m * 60.0 + s;
        assert_eq!(tiers.factor(10, Some(at(0.0, 0.0, 59.0, 59.0))), 1.0);
        assert_eq!(tiers.factor(10, Some(at(0.0, 1.0, 0.0, 0.0))), 2.0);
        assert_eq!(tiers.factor(10, Some(at(0.0, 3.0, 59.0, 59.0))), 2.0);
        assert_eq!(tiers.factor(10, Some(at(0.0, 4.0, 0.0, 0.0))), 1.0);
        assert_eq!(tiers.factor(10, Some(at(4.0, 9.0, 59.0, 0.0))), 2.0);
        assert_eq!(tiers.factor(10, Some(at(4.0, 10.0, 0.0, 0.0))), 1.0);
        // Saturday and Sunday are off-peak all day; a request without a time is too.
        assert_eq!(tiers.factor(10, Some(at(5.0, 2.0, 0.0, 0.0))), 1.0);
        assert_eq!(tiers.factor(10, Some(at(6.0, 7.0, 0.0, 0.0))), 1.0);
        assert_eq!(tiers.factor(10, None), 1.0);
        // With a prompt tier too, the factors multiply.
        let both = Tiers {
            long_prompt: Some(LongPrompt {
                above_tokens: 100,
                multiplier: 5.0,
            }),
            ..tiers
        };
        assert_eq!(both.factor(101, Some(at(1.0, 1.0, 0.0, 0.0))), 10.0);
        for bad in [
            "1:00-04:00",
            "04:00-01:00",
            "01:00-25:00",
            "01:60-02:00",
            "01:00",
        ] {
            let err = PeakWindow::parse(bad).unwrap_err();
            assert!(
                err.contains("HH:MM-HH:MM") && err.contains(bad),
                "{bad}: {err}"
            );
        }
        assert_eq!(
            PeakWindow::parse("18:00-24:00").unwrap(),
            PeakWindow {
                from: 1080,
                to: 1440
            }
        );
    }
}
