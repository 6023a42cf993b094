//! Splitting a corpus over machines: `ptc ab --shard K/N` measures the recordings whose identity
//! hashes to K modulo N, so that every machine finds its share from the same command line with
//! no coordination. A recording's identity is its file's name (a directory is read one level
//! deep, so this is its path relative to the directory given), followed by `:LINE` for a line
//! of a JSONL file; a bundled example's is its file name. The hash is FNV-1a 64 of the
//! identity's UTF-8 bytes: the same on every platform and in every version.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::recording::corpus::Source;

/// Shard `index` of `count` (0-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl Shard {
    /// The whole corpus: shard 0 of 1.
    pub const ALL: Shard = Shard { index: 0, count: 1 };

    /// Whether the recording of this identity belongs to this shard.
    pub fn holds(self, identity: &str) -> bool {
        (fnv1a64(identity.as_bytes()) % self.count as u64) as usize == self.index
    }

    /// This shard's recordings, in corpus order, with their positions in the corpus.
    pub fn select(self, sources: &[Source]) -> (Vec<usize>, Vec<Source>) {
        sources
            .iter()
            .enumerate()
            .filter(|(_, source)| self.holds(&identity(source)))
            .map(|(i, source)| (i, source.clone()))
            .unzip()
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for Shard {
    type Err = String;

    fn from_str(text: &str) -> Result<Shard, String> {
        let bad = || format!("`{text}` is not K/N with 0 <= K < N, e.g. 0/4 for the first of four");
        let (k, n) = text.split_once('/').ok_or_else(bad)?;
        let (index, count): (usize, usize) = (
            k.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        if index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

/// FNV-1a, 64 bits.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

/// A recording's identity, as the module documentation says.
pub fn identity(source: &Source) -> String {
    let name = |path: &std::path::Path| {
        path.file_name().map_or_else(
            || path.to_string_lossy().into_owned(),
            |n| n.to_string_lossy().into_owned(),
        )
    };
    match source {
        Source::File(path) => name(path),
        Source::Line { path, line, .. } => format!("{}:{line}", name(path)),
        Source::Embedded { name, .. } => (*name).to_owned(),
    }
}

/// What identifies a corpus: the number of recordings and a hash of their identities in
/// order. Every shard of one split must have been run on the same corpus.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Corpus {
    pub recordings: usize,
    /// FNV-1a 64 of the identities, each followed by a newline, as 16 hex digits.
    pub identities: String,
}

impl Corpus {
    pub fn of(sources: &[Source]) -> Corpus {
        let mut all = Vec::new();
        for source in sources {
            all.extend_from_slice(identity(source).as_bytes());
            all.push(b'\n');
        }
        Corpus {
            recordings: sources.len(),
            identities: format!("{:016x}", fnv1a64(&all)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;
    use std::sync::Arc;

    #[test]
    fn fnv1a64_matches_the_published_test_vectors() {
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn identities_are_names_relative_to_the_path_given() {
        let file = Source::File(PathBuf::from("/data/corpus/run-1.json"));
        assert_eq!(identity(&file), "run-1.json");
        let line = Source::Line {
            path: Arc::from(std::path::Path::new("/mnt/x/all.jsonl")),
            line: 12,
            offset: 0,
            len: 2,
        };
        assert_eq!(identity(&line), "all.jsonl:12");
    }

    #[test]
    fn shards_parse_and_split_every_recording_into_exactly_one() {
        assert_eq!("2/7".parse::<Shard>(), Ok(Shard { index: 2, count: 7 }));
        for bad in ["7/7", "1/0", "1", "a/3", "-1/3", ""] {
            let err = bad.parse::<Shard>().unwrap_err();
            assert!(err.contains("K/N"), "{bad}: {err}");
        }
        let sources: Vec<Source> = (0..500)
            .map(|i| Source::File(PathBuf::from(format!("r{i}.json"))))
            .collect();
        let mut seen = vec![0; sources.len()];
        for index in 0..7 {
            let (positions, mine) = Shard { index, count: 7 }.select(&sources);
            assert_eq!(positions.len(), mine.len());
            assert!(positions.windows(2).all(|w| w[0] < w[1]), "in corpus order");
            assert!(mine.len() > 40, "shard {index} holds {}", mine.len());
            for p in positions {
                seen[p] += 1;
            }
        }
        assert!(seen.iter().all(|&n| n == 1));
    }
}
