//! The BPE encodings ptc counts with.

/// A BPE encoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tokenizer {
    O200kBase,
    Cl100kBase,
}

impl Tokenizer {
    /// `o200k_base` or `cl100k_base`.
    pub fn from_name(name: &str) -> Option<Tokenizer> {
        match name {
            "o200k_base" => Some(Tokenizer::O200kBase),
            "cl100k_base" => Some(Tokenizer::Cl100kBase),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Tokenizer::O200kBase => "o200k_base",
            Tokenizer::Cl100kBase => "cl100k_base",
        }
    }

    pub(super) fn bpe(self) -> &'static bpe_openai::Tokenizer {
        match self {
            Tokenizer::O200kBase => bpe_openai::o200k_base(),
            Tokenizer::Cl100kBase => bpe_openai::cl100k_base(),
        }
    }

    /// Loads the encoding's table (about 0.1 s of one core) on a thread of its own, for a
    /// command that reads its input before it counts: the workers' first counts then find it
    /// loaded rather than all waiting for the one loading it.
    pub fn load_in_background(self) {
        std::thread::spawn(move || {
            self.bpe();
        });
    }

    /// Tokens of `text`.
    pub fn count(self, text: &str) -> usize {
        self.bpe().count(text)
    }
}
