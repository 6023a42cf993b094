//! FNV-1a 64: a small, stable hash with published test vectors. Shards assign recordings by
//! it, and parts and template sets are fingerprinted with it, so it must never change.

/// FNV-1a, 64 bits.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut hash = Fnv::default();
    hash.write(bytes);
    hash.0
}

/// FNV-1a 64 of bytes given piece by piece.
#[derive(Clone, Copy, Debug)]
pub struct Fnv(pub u64);

impl Default for Fnv {
    fn default() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    pub fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

/// A hash of `text` from its length and at most 64 bytes at each end: cheap for a long text,
/// and enough to tell most texts apart. A lookup by it compares texts of equal hashes whole.
/// Not stable across versions (FxHash): for maps in memory only.
pub fn quick_hash(text: &str) -> u64 {
    use std::hash::Hasher;
    let bytes = text.as_bytes();
    let mut hash = rustc_hash::FxHasher::default();
    hash.write_usize(bytes.len());
    hash.write(&bytes[..bytes.len().min(64)]);
    hash.write(&bytes[bytes.len().saturating_sub(64)..]);
    hash.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a64_matches_the_published_test_vectors() {
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
    }
}
