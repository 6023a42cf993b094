//! A structural check of a shared object before it is handed to the dynamic loader.
//!
//! `dlopen` trusts the file: a plugin cut short (an interrupted copy, a full disk) makes it map
//! pages past the end of the file, and the process dies of SIGBUS. Checking that the headers and
//! every loaded segment lie inside the file turns that into an ordinary error. Only the headers
//! are read: a file of any size is checked in the same few reads.

use std::io::{Read, Seek, SeekFrom};

/// Why a file is not a loadable shared object for this machine.
#[derive(Debug, thiserror::Error)]
pub enum ElfError {
    #[error("cannot read it: {0}")]
    Read(#[source] std::io::Error),
    #[error("file too short to be a shared library ({0} bytes)")]
    TooShort(u64),
    #[error("not a shared library (no ELF header)")]
    NotElf,
    #[error("a 32-bit ELF file; this host is 64-bit")]
    Bits32,
    #[error("a big-endian ELF file; this host is little-endian")]
    BigEndian,
    #[error("an ELF file that is not a shared library (e_type is not ET_DYN)")]
    NotShared,
    #[error("built for another architecture (ELF machine {found}, this host is {host})")]
    Machine { found: u16, host: u16 },
    #[error("truncated or corrupt: no program headers")]
    NoProgramHeaders,
    #[error("truncated or corrupt: {what} end past the file ({len} bytes)")]
    HeadersPastEnd { what: &'static str, len: u64 },
    #[error(
        "truncated or corrupt: a segment ends at byte {end} past the end of the file ({len} bytes)"
    )]
    SegmentPastEnd { end: u64, len: u64 },
}

/// The size of an ELF64 header and of one ELF64 program header.
const HEADER: u64 = 64;
const PROGRAM_HEADER: u64 = 56;

/// Checks that the file `len` bytes long that `file` reads is a shared object this machine can
/// load whose headers and loaded segments lie inside the file. Reads the ELF header and the
/// program header table only (at most some 3.5 MiB), never the whole file.
pub fn check(mut file: impl Read + Seek, len: u64) -> Result<(), ElfError> {
    if len < HEADER {
        return Err(ElfError::TooShort(len));
    }
    let mut header = [0u8; HEADER as usize];
    read_at(&mut file, 0, &mut header, len)?;
    let bytes = &header[..];
    if &bytes[..4] != b"\x7fELF" {
        return Err(ElfError::NotElf);
    }
    if bytes[4] != 2 {
        return Err(ElfError::Bits32);
    }
    if bytes[5] != 1 {
        return Err(ElfError::BigEndian);
    }
    if u16_at(bytes, 16) != 3 {
        return Err(ElfError::NotShared);
    }
    if let Some(expected) = host_machine() {
        let machine = u16_at(bytes, 18);
        if machine != expected {
            return Err(ElfError::Machine {
                found: machine,
                host: expected,
            });
        }
    }
    let table_end =
        |offset: u64, count: u16, size: u16| offset.checked_add(u64::from(count) * u64::from(size));
    let (phoff, phentsize, phnum) = (u64_at(bytes, 32), u16_at(bytes, 54), u16_at(bytes, 56));
    let (shoff, shentsize, shnum) = (u64_at(bytes, 40), u16_at(bytes, 58), u16_at(bytes, 60));
    // The dynamic loader takes nothing but the ELF64 size of a program header either.
    if phnum == 0 || u64::from(phentsize) != PROGRAM_HEADER {
        return Err(ElfError::NoProgramHeaders);
    }
    match table_end(phoff, phnum, phentsize) {
        Some(end) if end <= len => {}
        _ => {
            return Err(ElfError::HeadersPastEnd {
                what: "program headers",
                len,
            })
        }
    }
    if shnum > 0 {
        match table_end(shoff, shnum, shentsize) {
            Some(end) if end <= len => {}
            _ => {
                return Err(ElfError::HeadersPastEnd {
                    what: "section headers",
                    len,
                })
            }
        }
    }
    let mut table = vec![0u8; usize::from(phnum) * PROGRAM_HEADER as usize];
    read_at(&mut file, phoff, &mut table, len)?;
    for entry in table.chunks_exact(PROGRAM_HEADER as usize) {
        let p_type = u32::from_le_bytes([entry[0], entry[1], entry[2], entry[3]]);
        // PT_LOAD, PT_DYNAMIC
        if p_type == 1 || p_type == 2 {
            let (offset, filesz) = (u64_at(entry, 8), u64_at(entry, 32));
            match offset.checked_add(filesz) {
                Some(end) if end <= len => {}
                _ => {
                    return Err(ElfError::SegmentPastEnd {
                        end: offset.saturating_add(filesz),
                        len,
                    })
                }
            }
        }
    }
    Ok(())
}

/// Fills `buffer` from byte `at`; a file shorter than it said is a truncated one.
fn read_at(
    file: &mut (impl Read + Seek),
    at: u64,
    buffer: &mut [u8],
    len: u64,
) -> Result<(), ElfError> {
    file.seek(SeekFrom::Start(at)).map_err(ElfError::Read)?;
    file.read_exact(buffer).map_err(|e| match e.kind() {
        std::io::ErrorKind::UnexpectedEof => ElfError::HeadersPastEnd {
            what: "headers",
            len,
        },
        _ => ElfError::Read(e),
    })
}

fn u16_at(bytes: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([bytes[at], bytes[at + 1]])
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(b)
}

fn host_machine() -> Option<u16> {
    if cfg!(target_arch = "x86_64") {
        Some(62)
    } else if cfg!(target_arch = "aarch64") {
        Some(183)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    fn check_bytes(bytes: &[u8]) -> Result<(), ElfError> {
        check(Cursor::new(bytes), bytes.len() as u64)
    }

    #[test]
    fn junk_is_rejected_with_a_reason() {
        let text = |bytes: &[u8]| check_bytes(bytes).unwrap_err().to_string();
        assert_eq!(text(b""), "file too short to be a shared library (0 bytes)");
        assert!(text(&[b'x'; 100]).contains("no ELF header"));
    }

    #[test]
    fn the_running_executable_passes_and_its_truncation_fails() {
        // The test binary is a PIE (ET_DYN) on the usual Linux toolchains.
        let exe = std::fs::read(std::env::current_exe().unwrap()).unwrap();
        if check_bytes(&exe).is_ok() {
            let half = &exe[..exe.len() / 2];
            assert!(check_bytes(half)
                .unwrap_err()
                .to_string()
                .contains("truncated"));
        }
    }

    /// A reader that fails the test when asked for more than `limit` bytes in all.
    struct Counted<R> {
        inner: R,
        read: u64,
        limit: u64,
    }

    impl<R: Read> Read for Counted<R> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.inner.read(buf)?;
            self.read += n as u64;
            assert!(self.read <= self.limit, "read {} bytes", self.read);
            Ok(n)
        }
    }

    impl<R: Seek> Seek for Counted<R> {
        fn seek(&mut self, to: SeekFrom) -> std::io::Result<u64> {
            self.inner.seek(to)
        }
    }

    #[test]
    fn only_the_headers_are_read() {
        let exe = std::fs::File::open(std::env::current_exe().unwrap()).unwrap();
        let len = exe.metadata().unwrap().len();
        let counted = Counted {
            inner: exe,
            read: 0,
            limit: 64 * 1024,
        };
        // Whatever the verdict, the file was not read whole.
        let _ = check(counted, len);
        let dir = tempfile::tempdir().unwrap();
        let big = dir.path().join("big.so");
        std::fs::File::create(&big)
            .unwrap()
            .set_len(3 << 30)
            .unwrap();
        let sparse = std::fs::File::open(&big).unwrap();
        let counted = Counted {
            inner: sparse,
            read: 0,
            limit: 64,
        };
        assert!(matches!(check(counted, 3 << 30), Err(ElfError::NotElf)));
    }
}
