//! Splitting a corpus over machines: `ptc ab --shard K/N` measures the recordings whose identity
//! hashes to K modulo N, so that every machine finds its share from the same command line with
//! no coordination. A recording's identity is its file's name (a directory is read one level
//! deep, so this is its path relative to the directory given), followed by `:LINE` for a line
//! of a JSONL file; a bundled example's is its file name. The hash is FNV-1a 64 of the
//! identity's UTF-8 bytes: the same on every platform and in every version.

use std::fmt;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::hash::{fnv1a64, Fnv};
use crate::recording::corpus::{Listing, Source};
use crate::Error;

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
    #[cfg(test)]
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

/// The recordings of one shard, listed from the whole corpus as they are asked for, each with
/// its position in the corpus; what identifies the corpus ([`ShardSources::corpus`]) is
/// gathered on the way, so nothing per recording is held.
pub struct ShardSources {
    listing: Listing,
    shard: Shard,
    /// Recordings of the corpus listed so far.
    listed: usize,
    identities: Fnv,
    /// The bytes of every recording listed so far, when asked for ([`ShardSources::hashing_contents`]).
    contents: Option<Fnv>,
    /// Recordings of the shard listed so far.
    pub selected: usize,
    /// The first recording, listed ahead by [`ShardSources::start`].
    ahead: Option<(usize, Source)>,
}

impl ShardSources {
    pub fn new(listing: Listing, shard: Shard) -> ShardSources {
        ShardSources {
            listing,
            shard,
            listed: 0,
            identities: Fnv::default(),
            contents: None,
            selected: 0,
            ahead: None,
        }
    }

    /// Also hashes the bytes of every recording of the corpus, the other shards' included, so
    /// that [`CorpusIdentity::contents`] tells a corpus whose files changed from the one the
    /// other parts were measured on. Reads the whole corpus once more.
    pub fn hashing_contents(mut self) -> ShardSources {
        self.contents = Some(Fnv::default());
        self
    }

    /// Lists the shard's first recording ahead, so that a corpus with nothing to read or
    /// that cannot be listed from its start is an error before anything else is done. Returns
    /// whether the shard holds a recording.
    pub fn start(&mut self) -> Result<bool, Error> {
        if self.ahead.is_none() {
            self.ahead = self.next().transpose()?;
        }
        Ok(self.ahead.is_some())
    }

    /// The shard listed.
    pub fn shard(&self) -> Shard {
        self.shard
    }

    /// The corpus listed so far: the whole corpus once the listing is done.
    pub fn corpus(&self) -> CorpusIdentity {
        CorpusIdentity {
            recordings: self.listed,
            identities: format!("{:016x}", self.identities.0),
            contents: self
                .contents
                .map(|c| format!("{:016x}", c.0))
                .unwrap_or_default(),
        }
    }
}

impl Iterator for ShardSources {
    type Item = Result<(usize, Source), Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(first) = self.ahead.take() {
            return Some(Ok(first));
        }
        loop {
            let source = match self.listing.next()? {
                Ok(source) => source,
                Err(e) => return Some(Err(e.into())),
            };
            let position = self.listed;
            self.listed += 1;
            let identity = identity(&source);
            self.identities.write(identity.as_bytes());
            self.identities.write(b"\n");
            if let Some(contents) = &mut self.contents {
                hash_contents(&source, contents);
            }
            if self.shard.holds(&identity) {
                self.selected += 1;
                return Some(Ok((position, source)));
            }
        }
    }
}

/// Adds the bytes of `source` to `hash`, preceded by their length (so that no two corpora
/// hash alike by moving bytes from one recording to the next); a recording that cannot be read
/// adds the length `u64::MAX` and why, as its shard reports it.
fn hash_contents(source: &Source, hash: &mut Fnv) {
    let mut stream = |mut reader: Box<dyn Read>, len: Option<u64>| -> std::io::Result<()> {
        let mut buffer = vec![0; 64 * 1024];
        let mut bytes = Fnv::default();
        let mut read = 0u64;
        loop {
            let n = reader.read(&mut buffer)?;
            if n == 0 {
                break;
            }
            bytes.write(&buffer[..n]);
            read += n as u64;
        }
        if len.is_some_and(|len| len != read) {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        hash.write(&read.to_le_bytes());
        hash.write(&bytes.0.to_le_bytes());
        Ok(())
    };
    let read = match source {
        Source::File(path) => File::open(path).and_then(|f| stream(Box::new(f), None)),
        Source::Line {
            path, offset, len, ..
        } => File::open(path).and_then(|mut f| {
            f.seek(SeekFrom::Start(*offset))?;
            stream(Box::new(f.take(*len as u64)), Some(*len as u64))
        }),
        Source::Embedded { json, .. } => stream(Box::new(json.as_bytes()), None),
        Source::Log { run: Ok(json), .. } => stream(Box::new(json.as_bytes()), None),
        Source::Log { run: Err(why), .. } => Err(std::io::Error::other(why.to_string())),
        Source::Spooled {
            file, offset, len, ..
        } => file
            .read(*offset, *len)
            .and_then(|bytes| stream(Box::new(std::io::Cursor::new(bytes)), None)),
    };
    if let Err(e) = read {
        hash.write(&u64::MAX.to_le_bytes());
        hash.write(e.to_string().as_bytes());
    }
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
        Source::Log { name: run, .. } | Source::Spooled { name: run, .. } => {
            name(std::path::Path::new(&**run))
        }
    }
}

/// The identity of the recording a row of results names by its label (its path, `PATH:LINE`
/// for a line of a JSONL file, `examples/recordings/NAME` for a bundled example): the label's
/// last component, as [`identity`] gives it.
pub fn identity_of_label(label: &str) -> String {
    let path = std::path::Path::new(label);
    path.file_name()
        .map_or_else(|| label.to_owned(), |n| n.to_string_lossy().into_owned())
}

/// What identifies a corpus: the number of recordings and a hash of their identities in
/// order. Every shard of one split must have been run on the same corpus.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CorpusIdentity {
    pub recordings: usize,
    /// FNV-1a 64 of the identities, each followed by a newline, as 16 hex digits.
    pub identities: String,
    /// FNV-1a 64 of the recordings' bytes, each as its length and the FNV-1a 64 of its bytes
    /// (little-endian), as 16 hex digits: the same names with other contents are another
    /// corpus. Empty where it was not computed (a part written before it was kept).
    #[serde(default)]
    pub contents: String,
}

impl CorpusIdentity {
    /// The corpus of `sources`, all at once (what [`ShardSources::corpus`] gathers).
    #[cfg(test)]
    pub fn of(sources: &[Source]) -> CorpusIdentity {
        let mut all = Vec::new();
        for source in sources {
            all.extend_from_slice(identity(source).as_bytes());
            all.push(b'\n');
        }
        let mut contents = Fnv::default();
        for source in sources {
            hash_contents(source, &mut contents);
        }
        CorpusIdentity {
            recordings: sources.len(),
            identities: format!("{:016x}", fnv1a64(&all)),
            contents: format!("{:016x}", contents.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;
    use std::sync::Arc;

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
        let embedded = Source::Embedded {
            name: "gen-001.json",
            json: "{}",
        };
        for source in [file, line, embedded] {
            let label = source.label().display().to_string();
            assert_eq!(identity_of_label(&label), identity(&source), "{label}");
        }
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

    #[test]
    fn listing_a_shard_gives_the_recordings_and_the_corpus_of_the_whole_list() {
        // Recordings (unreadable ones: listing does not read them), not logs.
        const MISSION: &str = r#"{"mission": "m"}"#;
        let dir = tempfile::tempdir().unwrap();
        for i in 0..40 {
            std::fs::write(dir.path().join(format!("r{i:02}.json")), MISSION).unwrap();
        }
        let more = format!("{MISSION}\n\n{MISSION}\n{MISSION}\n");
        std::fs::write(dir.path().join("more.jsonl"), more).unwrap();
        let paths = [dir.path().to_owned()];
        let defaults = crate::recording::RecordingDefaults {
            max_turns: 5,
            system_prompt: String::new(),
            max_recording_bytes: crate::recording::DEFAULT_MAX_RECORDING_BYTES,
        };
        let all = crate::recording::corpus::sources(&paths, &defaults).unwrap();
        assert_eq!(all.len(), 43);
        for shard in [Shard::ALL, Shard { index: 1, count: 3 }] {
            let mut listed = ShardSources::new(Listing::new(&paths).reading_logs(&defaults), shard)
                .hashing_contents();
            let (positions, mine): (Vec<usize>, Vec<Source>) =
                listed.by_ref().map(Result::unwrap).unzip();
            assert_eq!((positions, mine), shard.select(&all));
            assert_eq!(listed.corpus(), CorpusIdentity::of(&all));
            assert_eq!(listed.selected, shard.select(&all).0.len());
        }
        // The same names with one byte changed, in a file or in a line: another corpus, seen
        // by every shard, whichever holds the recording.
        let before = CorpusIdentity::of(&all);
        for (file, text) in [
            ("r07.json", MISSION.replacen('{', "{ ", 1)),
            (
                "more.jsonl",
                format!(
                    "{MISSION}\n\n{MISSION}\n{}\n",
                    MISSION.replace("\"m\"", "\"n\"")
                ),
            ),
        ] {
            let kept = std::fs::read_to_string(dir.path().join(file)).unwrap();
            std::fs::write(dir.path().join(file), text).unwrap();
            let all = crate::recording::corpus::sources(&paths, &defaults).unwrap();
            for index in 0..3 {
                let shard = Shard { index, count: 3 };
                let mut listed =
                    ShardSources::new(Listing::new(&paths).reading_logs(&defaults), shard)
                        .hashing_contents();
                listed.by_ref().for_each(drop);
                let after = listed.corpus();
                assert_eq!(after.identities, before.identities, "{file}");
                assert_ne!(after.contents, before.contents, "{file}");
                assert_eq!(after, CorpusIdentity::of(&all));
            }
            std::fs::write(dir.path().join(file), kept).unwrap();
        }
        let mut listed =
            ShardSources::new(Listing::new(&paths).reading_logs(&defaults), Shard::ALL)
                .hashing_contents();
        listed.by_ref().for_each(drop);
        assert_eq!(
            listed.corpus(),
            before,
            "restored, the corpus is the same again"
        );
    }
}
