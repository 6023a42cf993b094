//! The model of prompt caching, shared by the pricing profiles (`pricing`), the renderer (which
//! places breakpoints on requests) and the token counter (which cuts requests into blocks): a
//! provider's caching rule, where breakpoints go, how long entries live, a request as a cache
//! sees it, and what a cache holds for one run. Prices are not here: they are `pricing`'s.

use std::fmt;

use rustc_hash::FxHashMap;
use serde::de::{self, Deserialize, Deserializer, Unexpected};

/// The most breakpoints a request may carry (Anthropic), or write (OpenAI from GPT-5.6 on).
pub const MAX_BREAKPOINTS: usize = 4;

/// The blocks a request's breakpoints are on: at most [`MAX_BREAKPOINTS`] where a request is
/// priced, held in place.
pub type Marks = smallvec::SmallVec<[usize; MAX_BREAKPOINTS]>;

/// How many blocks before a breakpoint (the breakpoint's own block included) a request looks
/// for a prefix written earlier (Anthropic).
pub const LOOKBACK_BLOCKS: usize = 20;

/// How many of the latest breakpoints written in a conversation OpenAI matches a request
/// against (GPT-5.6 and later).
pub const OPENAI_MATCHED_BREAKPOINTS: usize = 80;

/// A provider's caching rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Caching {
    /// Anthropic's: breakpoints on content blocks, a 20-block lookback, writes at a premium.
    Explicit,
    /// OpenAI's before GPT-5.6, Gemini's, DeepSeek's: the shared prefix is read, nothing is
    /// marked, nothing is paid for writing.
    Implicit,
    /// OpenAI's from GPT-5.6 on: breakpoints on content blocks other than the assistant's
    /// (at most 4 written a request), a read matched against the latest 80 breakpoints of the
    /// conversation at any block, writes at a premium.
    OpenAiBreakpoints,
    /// Gemini's explicit context caching: one cache object per run, the prefix up to the
    /// request's first breakpoint, created once (its write price holds its storage for the
    /// TTL) and read by every request that starts with it until the TTL runs out.
    GeminiExplicit,
    /// DeepSeek's prefix units (its guide, read 2026-11-26): no markers, nothing paid for
    /// writing; a request reads only a whole cached unit that is a prefix of it. Units are
    /// persisted at the end of each request's input and of its output, and at a prefix two
    /// requests were found to share (for the requests after that one).
    PrefixUnits,
}

/// Where a request carries its cache breakpoints (explicit caching only).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Placement {
    /// The blocks the strategy marked
    #[default]
    Strategy,
    /// The provider's automatic breakpoint, one that moves with the conversation: Anthropic's
    /// automatic caching puts it on the last block of the request, OpenAI's (GPT-5.6 on) on the
    /// last block of the newest message that is not the assistant's
    Auto,
    /// No breakpoint: nothing is cached
    None,
    /// The placement that, knowing the whole run, makes its requests cheapest (at most the
    /// allowed breakpoints a request, the minimum, the lookback and the TTL respected): never
    /// above the strategy's or the automatic one. A hindsight figure, not a client policy.
    #[value(skip)]
    Planned,
    /// The least any placement could cost the run (a lower bound: each prefix written once
    /// and read by every later request holding it, TTL, lookback and breakpoint count left
    /// out). Not a placement: it states how far `planned` can be from the optimum.
    #[value(skip)]
    Bound,
}

impl Caching {
    pub fn parse(name: &str) -> Option<Caching> {
        match name {
            "explicit" => Some(Caching::Explicit),
            "implicit" => Some(Caching::Implicit),
            "openai-breakpoints" => Some(Caching::OpenAiBreakpoints),
            "gemini-explicit" => Some(Caching::GeminiExplicit),
            "prefix-units" => Some(Caching::PrefixUnits),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Caching::Explicit => "explicit",
            Caching::Implicit => "implicit",
            Caching::OpenAiBreakpoints => "openai-breakpoints",
            Caching::GeminiExplicit => "gemini-explicit",
            Caching::PrefixUnits => "prefix-units",
        }
    }

    /// Whether requests carry breakpoints and pay for writes.
    pub fn has_breakpoints(self) -> bool {
        !self.is_implicit()
    }

    /// Whether the provider caches without markers: the longest shared prefix
    /// (`implicit`) or whole prefix units (`prefix-units`).
    pub fn is_implicit(self) -> bool {
        matches!(self, Caching::Implicit | Caching::PrefixUnits)
    }
}

impl Placement {
    pub fn parse(name: &str) -> Option<Placement> {
        match name {
            "strategy" => Some(Placement::Strategy),
            "auto" => Some(Placement::Auto),
            "none" => Some(Placement::None),
            "planned" => Some(Placement::Planned),
            "bound" => Some(Placement::Bound),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Placement::Strategy => "strategy",
            Placement::Auto => "auto",
            Placement::None => "none",
            Placement::Planned => "planned",
            Placement::Bound => "bound",
        }
    }

    /// Whether the costs are settled once the whole run is known ([`Placement::Planned`],
    /// [`Placement::Bound`]): the cost of each request is then provisional until the run
    /// ends.
    pub fn in_hindsight(self) -> bool {
        matches!(self, Placement::Planned | Placement::Bound)
    }

    /// The indices of the blocks of `request` that carry a breakpoint, in order (in a `Vec`,
    /// or in [`Marks`] where a request is priced, without an allocation).
    pub fn breakpoints<C: FromIterator<usize>>(self, request: &CacheRequest) -> C {
        match self {
            Placement::Strategy => request
                .blocks
                .iter()
                .enumerate()
                .filter(|(_, b)| b.strategy_breakpoint)
                .map(|(i, _)| i)
                .collect(),
            Placement::Auto => request.blocks.len().checked_sub(1).into_iter().collect(),
            Placement::None | Placement::Planned | Placement::Bound => std::iter::empty().collect(),
        }
    }
}

impl fmt::Display for Placement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How long a cache entry lives without being used: read or written (Anthropic, and the
/// implicit rules, whose next request reads what the previous one left), or written (OpenAI's
/// breakpoints, whose lifetime is a minimum from the write).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Ttl {
    /// 5 minutes: Anthropic's default (writes 1.25x the input price; `cache_control` carries no
    /// `ttl`); OpenAI's `in_memory` retention at its documented shortest
    #[default]
    #[value(name = "5m")]
    FiveMinutes,
    /// 30 minutes: OpenAI's breakpoints from GPT-5.6 on (not a TTL a request sets)
    #[value(skip)]
    ThirtyMinutes,
    /// 1 hour: Anthropic's longer TTL (writes 2x the input price; `"ttl": "1h"`); Gemini's
    /// explicit caches by default
    #[value(name = "1h")]
    OneHour,
    /// 24 hours: OpenAI's `24h` retention (not a TTL a request sets)
    #[value(skip)]
    Day,
    /// The provider states no lifetime: entries are not expired (not a TTL a request sets)
    #[value(skip)]
    Unstated,
}

impl Ttl {
    pub fn parse(name: &str) -> Option<Ttl> {
        match name {
            "5m" => Some(Ttl::FiveMinutes),
            "30m" => Some(Ttl::ThirtyMinutes),
            "1h" => Some(Ttl::OneHour),
            "24h" => Some(Ttl::Day),
            "unstated" => Some(Ttl::Unstated),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Ttl::FiveMinutes => "5m",
            Ttl::ThirtyMinutes => "30m",
            Ttl::OneHour => "1h",
            Ttl::Day => "24h",
            Ttl::Unstated => "unstated",
        }
    }

    /// The lifetime in seconds; infinite when the provider states none.
    pub fn seconds(self) -> f64 {
        match self {
            Ttl::FiveMinutes => 300.0,
            Ttl::ThirtyMinutes => 1800.0,
            Ttl::OneHour => 3600.0,
            Ttl::Day => 86_400.0,
            Ttl::Unstated => f64::INFINITY,
        }
    }
}

/// Reads and writes one of the names `parse` knows, as the configuration and requests spell
/// them.
macro_rules! deserialize_by_name {
    ($type:ty, $what:literal, $expected:literal) => {
        impl<'de> Deserialize<'de> for $type {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let name = String::deserialize(deserializer)?;
                <$type>::parse(&name)
                    .ok_or_else(|| de::Error::invalid_value(Unexpected::Str(&name), &$expected))
            }
        }

        impl serde::Serialize for $type {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl std::str::FromStr for $type {
            type Err = String;

            fn from_str(name: &str) -> Result<Self, String> {
                <$type>::parse(name).ok_or_else(|| {
                    format!(
                        "unknown {} `{name}` ({})",
                        $what,
                        $expected.replace('"', "")
                    )
                })
            }
        }
    };
}

deserialize_by_name!(
    Caching,
    "cache rule",
    "\"explicit\", \"implicit\", \"openai-breakpoints\", \"gemini-explicit\" or \"prefix-units\""
);
deserialize_by_name!(
    Placement,
    "cache placement",
    "\"strategy\", \"auto\", \"none\", \"planned\" or \"bound\""
);
deserialize_by_name!(
    Ttl,
    "cache TTL",
    "\"5m\", \"30m\", \"1h\", \"24h\" or \"unstated\""
);

/// One content block of a request, as a prompt cache sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CacheBlock {
    /// Tokens of the request up to the end of this block.
    pub end: usize,
    /// Identifies the request's prefix up to the end of this block: equal prefixes, equal keys.
    pub prefix: u64,
    /// The strategy put a breakpoint here.
    pub strategy_breakpoint: bool,
    /// The block is part of the system prompt.
    pub system: bool,
    /// The block is part of an assistant message (OpenAI takes no breakpoint there).
    pub assistant: bool,
}

/// A request as a prompt cache sees it: its blocks, in order, and its tokens.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CacheRequest {
    pub blocks: Vec<CacheBlock>,
    /// Every token of the request (at least the end of its last block).
    pub tokens: usize,
    /// Tokens shared as an exact prefix with the previous request (implicit caching).
    pub shared: usize,
    /// Seconds since the start of the run when the request is sent, if the recording says.
    pub at: Option<f64>,
}

impl CacheRequest {
    /// The request with `tokens` more sent before its messages, known by size only (a rebuilt
    /// request's inferred prefix: the system prompt and tool schemas a log does not hold). The
    /// prefix is one leading system block with a breakpoint, cached as a client caches its
    /// system prompt; it is the same in every request of a run, so it is shared with the
    /// previous request whenever there is one (`follows`). Every key is made the prefix's own,
    /// so that requests after different prefixes never share a cache entry.
    pub fn after_prefix(mut self, tokens: usize, follows: bool) -> CacheRequest {
        if tokens == 0 {
            return self;
        }
        let keyed = |key: u64| {
            use std::hash::{Hash, Hasher};
            let mut hasher = rustc_hash::FxHasher::default();
            (key, tokens, "inferred prefix").hash(&mut hasher);
            hasher.finish()
        };
        for block in &mut self.blocks {
            block.end = block.end.saturating_add(tokens);
            block.prefix = keyed(block.prefix);
        }
        if !self.blocks.is_empty() {
            self.blocks.insert(
                0,
                CacheBlock {
                    end: tokens,
                    prefix: keyed(0),
                    strategy_breakpoint: true,
                    system: true,
                    assistant: false,
                },
            );
        }
        self.tokens = self.tokens.saturating_add(tokens);
        if follows {
            self.shared = self.shared.saturating_add(tokens);
        }
        self
    }
}

/// What a provider holds in its cache for one run: prefix key → when it was last written or
/// read (seconds; 0 when the recording has no times).
#[derive(Clone, Debug, Default)]
pub struct CacheState {
    pub(crate) entries: FxHashMap<u64, f64>,
    /// The prefixes written, oldest first, each once (OpenAI's breakpoints: only the latest
    /// [`OPENAI_MATCHED_BREAKPOINTS`] are matched).
    pub(crate) written: std::collections::VecDeque<u64>,
    /// When the previous request was sent (implicit caching).
    pub(crate) last_at: Option<f64>,
    /// Prefix units: every block prefix an earlier request sent (a later request sharing one
    /// makes it a unit), and the previous request's whole input.
    pub(crate) seen: rustc_hash::FxHashSet<u64>,
    pub(crate) last_input: Option<u64>,
    /// The requests of the run so far, kept when the placement is settled in hindsight
    /// ([`Placement::in_hindsight`]).
    pub(crate) run: Vec<CacheRequest>,
    /// No entry was last written or read before this (`None`: there is no entry): while a
    /// request comes within the TTL of it, no entry has expired ([`CacheState::expire`]).
    pub(crate) earliest: Option<f64>,
}

impl CacheState {
    /// Forgets the entries not written or read in the `ttl` seconds up to `now`, the time of a
    /// request that then writes or reads entries at `now`; whether any was forgotten. The
    /// entries are gone through only when the earliest time one can have is out of the TTL.
    pub(crate) fn expire(&mut self, now: f64, ttl: f64) -> bool {
        let all_live = match self.earliest {
            None => self.entries.is_empty(),
            Some(earliest) => now - earliest <= ttl,
        };
        let mut expired = false;
        if !all_live {
            let before = self.entries.len();
            self.entries.retain(|_, at| now - *at <= ttl);
            expired = self.entries.len() < before;
            self.earliest = self.entries.values().copied().reduce(f64::min);
        }
        self.earliest = Some(self.earliest.map_or(now, |earliest| earliest.min(now)));
        expired
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Entries expire as if every one were looked at each request: requests at any times
        /// (out of order too), writing or reading any entries, under any TTL.
        #[test]
        fn entries_expire_as_if_each_were_looked_at(
            ttl in prop_oneof![Just(0.0), 1.0..100.0f64, Just(f64::INFINITY)],
            requests in prop::collection::vec(
                (prop_oneof![Just(0.0), 0.0..500.0f64], prop::collection::vec(0..6u64, 0..4)),
                1..40,
            ),
        ) {
            let mut cache = CacheState::default();
            let mut model: FxHashMap<u64, f64> = FxHashMap::default();
            for (now, keys) in requests {
                let before = model.len();
                model.retain(|_, at| now - *at <= ttl);
                prop_assert_eq!(cache.expire(now, ttl), model.len() < before);
                prop_assert_eq!(&cache.entries, &model);
                for key in keys {
                    cache.entries.insert(key, now);
                    model.insert(key, now);
                }
            }
        }
    }
}
