//! The partial results of one shard, `ptc ab --shard K/N --format partial`: one JSON object
//! holding everything `ptc ab merge` needs to produce what one run over the whole corpus
//! produces, byte for byte. It holds sums and counts, never means, and integers only (costs
//! are priced from the summed tokens by the merge), so that parts add up exactly:
//!
//! - `format` (`ptc-ab-partial/1`), `shard` (`{"index", "count"}`), `corpus` (the number of
//!   recordings of the whole corpus and a hash of their identities: every shard must have
//!   been given the same corpus) and `sources` (the recordings of this shard);
//! - `fingerprint`: what must be equal for parts to be merged: the ptc version, every variant
//!   with its plugin's version, its resolved options, its threshold and a hash of its
//!   templates, the baseline, the tokenizer, every pricing profile, the primary profile, a hash
//!   of what recordings without a system prompt get, and the recording size limit;
//! - `recordings`, and per variant `summaries` (sums, the maximum, failures with the first
//!   error and the corpus position of the recording it came from) and `turns` (per turn index:
//!   summed tokens, how the primary profile's cache billed them, and the recordings reaching
//!   it);
//! - `bad_recordings`: the recordings that could not be read, with their corpus position;
//! - `runs`, last: every prompt's measures, one line per recording and variant, with the
//!   recording's corpus position. They (and the recordings that could not be read) are written
//!   to an unnamed temporary file as they are made and copied out after the sums, so a shard
//!   holds nothing per recording.

use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use serde::de::{DeserializeOwned, IgnoredAny};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value as Json;

use crate::ab::pricing::{Caching, Placement, Pricing, PromptCost, Ttl};
use crate::ab::retention::Retention;
use crate::ab::shard::{fnv1a64, Corpus, Shard, ShardSources};
use crate::ab::spool::Spool;
use crate::ab::summary::{CacheTokens, TurnSum};
use crate::ab::{prompter_for, run_with, Ab, AbPlan, PromptMeasure, Rows, RunDetail, Summary};
use crate::host::Host;
use crate::Error;

/// The value of `format`: the layout's name and version.
pub const FORMAT: &str = "ptc-ab-partial/1";

/// What must be equal for two parts to be merged.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fingerprint {
    /// The version of ptc that measured.
    pub ptc: String,
    pub variants: Vec<VariantPrint>,
    /// Index of the baseline in `variants`.
    pub baseline: usize,
    pub baseline_added: bool,
    pub tokenizer: String,
    pub pricing: Vec<PricingPrint>,
    /// Index of the primary profile in `pricing`.
    pub primary_pricing: usize,
    /// Hash of `max_turns` and the system prompt recordings without one get.
    pub recording_defaults: String,
    pub max_recording_bytes: u64,
}

/// A variant as it renders.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VariantPrint {
    pub label: String,
    pub strategy: String,
    /// The options the variant sets, as written (`name@option=value`).
    pub asked: Vec<(String, String)>,
    /// The version of the strategy's plugin; none when it is not loaded.
    pub version: Option<String>,
    /// Every option the strategy renders with, resolved from the defaults, the configuration
    /// and the variant.
    pub options: serde_json::Map<String, Json>,
    pub compress_above_tokens: Option<usize>,
    /// Hash of the templates in effect.
    pub templates: Option<String>,
    /// Why the variant cannot render at all, when it cannot.
    pub unusable: Option<String>,
}

/// A pricing profile, every price exact.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PricingPrint {
    pub name: String,
    #[serde(deserialize_with = "exact_f64")]
    pub input_per_mtok: f64,
    #[serde(deserialize_with = "exact_f64")]
    pub cache_read_per_mtok: f64,
    #[serde(deserialize_with = "exact_f64")]
    pub cache_write_per_mtok: f64,
    #[serde(deserialize_with = "exact_f64")]
    pub cache_write_1h_per_mtok: f64,
    pub min_cacheable_tokens: usize,
    pub cache_step_tokens: usize,
    pub caching: Caching,
    pub cache_ttl: Ttl,
    pub breakpoints: Placement,
}

/// A number read from its text by Rust's correctly rounded parser, so that a price written
/// (shortest round-trip form) reads back to the same bits.
fn exact_f64<'de, D: Deserializer<'de>>(deserializer: D) -> Result<f64, D::Error> {
    let raw = Box::<serde_json::value::RawValue>::deserialize(deserializer)?;
    raw.get()
        .parse()
        .map_err(|_| serde::de::Error::custom(format!("expected a number, found {}", raw.get())))
}

impl From<&Pricing> for PricingPrint {
    fn from(p: &Pricing) -> PricingPrint {
        PricingPrint {
            name: p.name.clone(),
            input_per_mtok: p.input_per_mtok,
            cache_read_per_mtok: p.cache_read_per_mtok,
            cache_write_per_mtok: p.cache_write_per_mtok,
            cache_write_1h_per_mtok: p.cache_write_1h_per_mtok,
            min_cacheable_tokens: p.min_cacheable_tokens,
            cache_step_tokens: p.cache_step_tokens,
            caching: p.caching,
            cache_ttl: p.ttl,
            breakpoints: p.placement,
        }
    }
}

impl From<&PricingPrint> for Pricing {
    fn from(p: &PricingPrint) -> Pricing {
        Pricing {
            name: p.name.clone(),
            input_per_mtok: p.input_per_mtok,
            cache_read_per_mtok: p.cache_read_per_mtok,
            cache_write_per_mtok: p.cache_write_per_mtok,
            cache_write_1h_per_mtok: p.cache_write_1h_per_mtok,
            min_cacheable_tokens: p.min_cacheable_tokens,
            cache_step_tokens: p.cache_step_tokens,
            caching: p.caching,
            ttl: p.cache_ttl,
            placement: p.breakpoints,
        }
    }
}

impl Fingerprint {
    /// The fingerprint of `plan` run by `host`.
    pub fn of(host: &Host, plan: &AbPlan) -> Result<Fingerprint, Error> {
        let hex = |digest: u64| format!("{digest:016x}");
        let variants = plan
            .variants
            .iter()
            .map(|v| {
                let mut print = VariantPrint {
                    label: v.label.clone(),
                    strategy: v.strategy.clone(),
                    asked: v.options.clone(),
                    version: None,
                    options: serde_json::Map::new(),
                    compress_above_tokens: None,
                    templates: None,
                    unusable: None,
                };
                match prompter_for(host, v) {
                    Ok(prompter) => {
                        let renderer = &prompter.strategy;
                        print.version = Some(renderer.strategy().version.clone());
                        print.options = renderer
                            .options()
                            .entries
                            .iter()
                            .map(|e| (e.0.to_string(), option_json(&e.1)))
                            .collect();
                        let mut digests = hex(renderer.templates().digest());
                        if let Some((full, limit)) = &prompter.threshold {
                            print.compress_above_tokens = Some(*limit);
                            digests.push('+');
                            digests.push_str(&hex(full.templates().digest()));
                        }
                        print.templates = Some(digests);
                    }
                    Err(e @ Error::StrategyNotLoaded { .. }) => {
                        print.unusable = Some(e.to_string())
                    }
                    Err(e) => return Err(e),
                }
                Ok(print)
            })
            .collect::<Result<Vec<_>, Error>>()?;
        let defaults = host.recording_defaults()?;
        let mut text = defaults.max_turns.to_string().into_bytes();
        text.push(b'\n');
        text.extend_from_slice(defaults.system_prompt.as_bytes());
        let position = |name: &str| plan.pricing.iter().position(|p| p.name == name);
        Ok(Fingerprint {
            ptc: env!("CARGO_PKG_VERSION").to_owned(),
            baseline: plan
                .variants
                .iter()
                .position(|v| v.label == plan.baseline)
                .unwrap_or(0),
            variants,
            baseline_added: plan.baseline_added,
            tokenizer: plan.tokenizer.name().to_owned(),
            pricing: plan.pricing.iter().map(PricingPrint::from).collect(),
            primary_pricing: position(&plan.primary_pricing).unwrap_or(0),
            recording_defaults: hex(fnv1a64(&text)),
            max_recording_bytes: crate::recording::max_recording_bytes(),
        })
    }
}

fn option_json(value: &ptc_plugin_api::OptionValue) -> Json {
    use ptc_plugin_api::OptionValue;
    match value {
        OptionValue::Boolean(b) => Json::from(*b),
        OptionValue::Integer(i) => Json::from(*i),
        OptionValue::Float(x) => Json::from(*x),
        OptionValue::String(s) => Json::from(s.as_str()),
    }
}

/// A variant's sums over the recordings of a part.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SummaryPart {
    pub prompts: usize,
    pub tokens: usize,
    pub max_tokens: usize,
    pub cached_tokens: usize,
    /// Per pricing profile.
    pub cache: Vec<CacheTokens>,
    pub retention: Retention,
    pub render_ns: u64,
    pub failed: usize,
    pub first_error: Option<String>,
    /// The corpus position of the recording `first_error` is about.
    pub first_error_position: Option<usize>,
}

/// A recording that could not be read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BadPart {
    pub position: usize,
    pub recording: String,
    pub error: String,
}

/// The prompts of one recording through one variant.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RowPart {
    pub position: usize,
    pub recording: String,
    pub variant: usize,
    pub error: Option<String>,
    pub prompts: Vec<PromptPart>,
}

/// One prompt's measures; its costs are priced from `cache` by the merge.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PromptPart {
    pub turns: usize,
    pub tokens: usize,
    pub shared: usize,
    /// Per pricing profile.
    pub cache: Vec<CacheTokens>,
    pub retention: Retention,
    pub render_ns: u64,
}

/// A part. `runs` is what reading does with the rows: kept (`Vec<RowPart>`) or skipped
/// (`IgnoredAny`); when writing, they follow the rest and are not part of this value.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Part<R> {
    pub format: String,
    pub shard: Shard,
    pub corpus: Corpus,
    pub sources: usize,
    pub fingerprint: Fingerprint,
    pub recordings: usize,
    pub summaries: Vec<SummaryPart>,
    pub turns: Vec<Vec<TurnSum>>,
    /// When writing, they follow the rest and are not part of this value.
    #[serde(skip_serializing)]
    pub bad_recordings: Vec<BadPart>,
    #[serde(skip_serializing)]
    pub runs: R,
}

impl RowPart {
    fn of(position: usize, run: RunDetail) -> RowPart {
        RowPart {
            position,
            recording: run.recording.display().to_string(),
            variant: run.variant,
            error: run.error,
            prompts: run
                .prompts
                .into_iter()
                .map(|p| PromptPart {
                    turns: p.turns,
                    tokens: p.tokens,
                    shared: p.shared,
                    cache: p.costs.iter().map(CacheTokens::from).collect(),
                    retention: p.retention,
                    render_ns: p.render_ns,
                })
                .collect(),
        }
    }

    /// The row as one run lists it, its costs priced under `pricing`.
    pub fn detail(self, pricing: &[Pricing]) -> RunDetail {
        RunDetail {
            recording: PathBuf::from(self.recording),
            variant: self.variant,
            error: self.error,
            prompts: self
                .prompts
                .into_iter()
                .map(|p| PromptMeasure {
                    turns: p.turns,
                    tokens: p.tokens,
                    shared: p.shared,
                    costs: pricing
                        .iter()
                        .zip(&p.cache)
                        .map(|(profile, c)| -> PromptCost {
                            profile.priced(c.read, c.written, c.plain)
                        })
                        .collect(),
                    retention: p.retention,
                    render_ns: p.render_ns,
                })
                .collect(),
        }
    }
}

/// Measures the recordings of `shard`, listed by `sources`, and writes the part to `out`.
/// Returns the shard's results, for the warnings.
#[allow(clippy::too_many_arguments)]
pub fn write(
    host: &Host,
    plan: AbPlan,
    sources: &mut ShardSources,
    shard: Shard,
    strict: bool,
    no_timing: bool,
    progress: &(dyn Fn() + Sync),
    out: &mut dyn Write,
) -> Result<Ab, Error> {
    let fingerprint = Fingerprint::of(host, &plan)?;
    let mut rows = Spool::default();
    let mut each = |position: usize, mut run: RunDetail| -> Result<(), Error> {
        if no_timing {
            run.prompts.iter_mut().for_each(|p| p.render_ns = 0);
        }
        let row = RowPart::of(position, run);
        let line = serde_json::to_string(&row).expect("a row serializes");
        let separator = if rows.is_empty() { "    " } else { ",\n    " };
        rows.push(&format!("{separator}{line}"))
    };
    let mut ab = run_with(host, plan, sources, Rows::Each(&mut each), strict, progress)?;
    if no_timing {
        ab.clear_timing();
    }
    let part = Part {
        format: FORMAT.to_owned(),
        shard,
        corpus: sources.corpus(),
        sources: sources.selected,
        fingerprint,
        recordings: ab.recordings(),
        summaries: ab
            .summaries()
            .iter()
            .zip(&ab.totals.first_failure)
            .map(|(s, first)| summary_part(s, *first))
            .collect(),
        turns: ab.totals.turns.clone(),
        bad_recordings: Vec::new(),
        runs: (),
    };
    let head = serde_json::to_string_pretty(&part).expect("a part serializes");
    let head = head.strip_suffix("\n}").unwrap_or(&head);
    let mut out = BufWriter::new(out);
    let put = |out: &mut BufWriter<&mut dyn Write>, text: &str| {
        out.write_all(text.as_bytes()).map_err(Error::Output)
    };
    put(&mut out, head)?;
    // The recordings that could not be read, as the field would be pretty-printed.
    put(&mut out, ",\n  \"bad_recordings\": [")?;
    let bad_count = ab.bad_recordings.len();
    for (i, bad) in ab.bad_recordings.iter()?.enumerate() {
        let bad = bad?;
        let text = serde_json::to_string_pretty(&BadPart {
            position: bad.index,
            recording: bad.label,
            error: bad.error,
        })
        .expect("a bad recording serializes");
        put(&mut out, if i == 0 { "\n    " } else { ",\n    " })?;
        put(&mut out, &text.replace('\n', "\n    "))?;
    }
    put(&mut out, if bad_count == 0 { "]" } else { "\n  ]" })?;
    put(&mut out, ",\n  \"runs\": [\n")?;
    rows.copy_to(&mut out)?;
    put(
        &mut out,
        if rows.is_empty() {
            "  ]\n}\n"
        } else {
            "\n  ]\n}\n"
        },
    )?;
    out.flush().map_err(Error::Output)?;
    Ok(ab)
}

fn summary_part(s: &Summary, first_error_position: Option<usize>) -> SummaryPart {
    SummaryPart {
        prompts: s.prompts,
        tokens: s.tokens,
        max_tokens: s.max_tokens,
        cached_tokens: s.cached_tokens,
        cache: s.cache.clone(),
        retention: s.retention,
        render_ns: s.render_ns,
        failed: s.failed,
        first_error: s.first_error.clone(),
        first_error_position,
    }
}

impl SummaryPart {
    /// The summary it adds up to, not yet priced.
    pub fn summary(&self) -> Summary {
        Summary {
            prompts: self.prompts,
            tokens: self.tokens,
            max_tokens: self.max_tokens,
            cached_tokens: self.cached_tokens,
            costs: Vec::new(),
            cache: self.cache.clone(),
            retention: self.retention,
            render_ns: self.render_ns,
            failed: self.failed,
            first_error: self.first_error.clone(),
        }
    }
}

/// The rows of a part as its first reading sees them: each one read, checked for its shape
/// and dropped, so that a part of any size is read in bounded memory. [`RowReader`] reads them
/// again, one at a time, when they are needed.
#[derive(Debug, Default)]
pub struct CheckedRows {
    /// How many there are.
    pub count: usize,
}

impl<'de> Deserialize<'de> for CheckedRows {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<CheckedRows, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = CheckedRows;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a list of rows")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<CheckedRows, A::Error> {
                let mut count = 0;
                while seq.next_element::<RowPart>()?.is_some() {
                    count += 1;
                }
                Ok(CheckedRows { count })
            }
        }
        deserializer.deserialize_seq(Visitor)
    }
}

/// Reads the part in `path`; its rows are checked (with `rows`) or only skipped, never kept.
/// A file that is not a part, a part of another layout, a truncated one and one with a value
/// out of place are errors naming the file and, for the last two, the place in the JSON.
pub fn read(path: &Path, rows: bool) -> Result<Part<CheckedRows>, Error> {
    let input = |source| Error::Input {
        path: path.to_owned(),
        source,
    };
    let mut reader = BufReader::with_capacity(1 << 16, std::fs::File::open(path).map_err(input)?);
    // The first bytes say what the file is: a part starts with its format.
    let start = reader.fill_buf().map_err(input)?;
    let start = String::from_utf8_lossy(&start[..start.len().min(256)]).into_owned();
    let layout = start
        .split("\"format\"")
        .nth(1)
        .and_then(|rest| rest.split('"').nth(1))
        .filter(|value| value.starts_with("ptc-ab-partial/"));
    match layout {
        None => {
            return Err(Error::NotPartial {
                path: path.to_owned(),
            })
        }
        Some(found) if found != FORMAT => {
            return Err(Error::PartialLayout {
                path: path.to_owned(),
                found: found.to_owned(),
                expected: FORMAT,
            })
        }
        Some(_) => {}
    }
    if rows {
        parse(path, reader)
    } else {
        let part: Part<IgnoredAny> = parse(path, reader)?;
        Ok(Part {
            format: part.format,
            shard: part.shard,
            corpus: part.corpus,
            sources: part.sources,
            fingerprint: part.fingerprint,
            recordings: part.recordings,
            summaries: part.summaries,
            turns: part.turns,
            bad_recordings: part.bad_recordings,
            runs: CheckedRows::default(),
        })
    }
}

/// The rows of a part read with [`read`], one at a time, in order: a part holds one row per
/// line of its `runs`, as [`write`] writes it.
pub struct RowReader {
    path: PathBuf,
    lines: std::io::Lines<BufReader<std::fs::File>>,
    /// Rows read so far.
    read: usize,
    /// Rows the part holds.
    count: usize,
}

impl RowReader {
    pub fn open(path: &Path, count: usize) -> Result<RowReader, Error> {
        let input = |source| Error::Input {
            path: path.to_owned(),
            source,
        };
        let file = std::fs::File::open(path).map_err(input)?;
        let mut lines = BufReader::with_capacity(1 << 16, file).lines();
        if count > 0 {
            loop {
                match lines.next() {
                    Some(line) => {
                        if line.map_err(input)? == "  \"runs\": [" {
                            break;
                        }
                    }
                    None => return Err(not_one_per_line(path, 0)),
                }
            }
        }
        Ok(RowReader {
            path: path.to_owned(),
            lines,
            read: 0,
            count,
        })
    }

    /// Rows read so far.
    pub fn read(&self) -> usize {
        self.read
    }

    /// The next row, or none after the last.
    pub fn next_row(&mut self) -> Result<Option<RowPart>, Error> {
        if self.read == self.count {
            return Ok(None);
        }
        let at = self.read;
        let line = match self.lines.next() {
            Some(line) => line.map_err(|source| Error::Input {
                path: self.path.clone(),
                source,
            })?,
            None => return Err(not_one_per_line(&self.path, at)),
        };
        let text = line.trim_start();
        let text = text.strip_suffix(',').unwrap_or(text);
        let row = serde_json::from_str(text).map_err(|_| not_one_per_line(&self.path, at))?;
        self.read += 1;
        Ok(Some(row))
    }
}

fn not_one_per_line(path: &Path, at: usize) -> Error {
    Error::PartialInconsistent {
        path: path.to_owned(),
        reason: format!(
            "runs[{at}] is not on a line of its own, as `ptc ab --format partial` writes it"
        ),
    }
}

fn parse<T: DeserializeOwned>(path: &Path, reader: impl Read) -> Result<T, Error> {
    let fail = |place: String, source| Error::Partial {
        path: path.to_owned(),
        place,
        source,
    };
    let mut json = serde_json::Deserializer::from_reader(reader);
    let value: T = serde_path_to_error::deserialize(&mut json).map_err(|e| {
        let place = e.path().to_string();
        let place = if place == "." {
            "the top level".into()
        } else {
            format!("`{place}`")
        };
        fail(place, e.into_inner())
    })?;
    json.end().map_err(|e| fail("the end".into(), e))?;
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prices_read_back_to_the_same_bits() {
        let awkward = [
            0.1 + 0.2,
            1e-7 / 3.0,
            123_456.789_012_345_67,
            2.2250738585072014e-308,
            9_007_199_254_740_993.0,
            0.3,
        ];
        for price in awkward {
            let print = PricingPrint {
                name: "p".into(),
                input_per_mtok: price,
                cache_read_per_mtok: price / 7.0,
                cache_write_per_mtok: price * 1.25,
                cache_write_1h_per_mtok: price * 2.0,
                min_cacheable_tokens: 1024,
                cache_step_tokens: 1,
                caching: Caching::Explicit,
                cache_ttl: Ttl::OneHour,
                breakpoints: Placement::Auto,
            };
            let text = serde_json::to_string(&print).unwrap();
            let back: PricingPrint = serde_json::from_reader(text.as_bytes()).unwrap();
            assert_eq!(back, print, "{text}");
            assert_eq!(Pricing::from(&back), Pricing::from(&print));
        }
        let err =
            serde_json::from_str::<PricingPrint>("{\"name\": \"p\", \"input_per_mtok\": \"3\"}")
                .unwrap_err();
        assert!(err.to_string().contains("expected a number"), "{err}");
    }
}
