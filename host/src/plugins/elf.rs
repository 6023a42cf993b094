//! A structural check of a shared object before it is handed to the dynamic loader.
//!
//! `dlopen` trusts the file: a plugin cut short (an interrupted copy, a full disk) makes it map
//! pages past the end of the file, and the process dies of SIGBUS. Checking that the headers and
//! every loaded segment lie inside the file turns that into an ordinary error.

/// Why a file is not a loadable shared object for this machine.
#[derive(Debug, thiserror::Error)]
pub enum ElfError {
    #[error("file too short to be a shared library ({0} bytes)")]
    TooShort(usize),
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

/// Checks that `bytes` are a shared object this machine can load whose headers and loaded
/// segments lie inside the file.
pub fn check(bytes: &[u8]) -> Result<(), ElfError> {
    const HEADER: usize = 64;
    if bytes.len() < HEADER {
        return Err(ElfError::TooShort(bytes.len()));
    }
    if &bytes[..4] != b"\x7fELF" {
        return Err(ElfError::NotElf);
    }
    if bytes[4] != 2 {
        return Err(ElfError::Bits32);
    }
    if bytes[5] != 1 {
        return Err(ElfError::BigEndian);
    }
    let u16_at = |at: usize| u16::from_le_bytes([bytes[at], bytes[at + 1]]);
    let u64_at = |at: usize| -> u64 {
        let mut b = [0u8; 8];
        b.copy_from_slice(&bytes[at..at + 8]);
        u64::from_le_bytes(b)
    };
    if u16_at(16) != 3 {
        return Err(ElfError::NotShared);
    }
    if let Some(expected) = host_machine() {
        let machine = u16_at(18);
        if machine != expected {
            return Err(ElfError::Machine {
                found: machine,
                host: expected,
            });
        }
    }
    let len = bytes.len() as u64;
    let table_end =
        |offset: u64, count: u16, size: u16| offset.checked_add(u64::from(count) * u64::from(size));
    let (phoff, phentsize, phnum) = (u64_at(32), u16_at(54), u16_at(56));
    let (shoff, shentsize, shnum) = (u64_at(40), u16_at(58), u16_at(60));
    if phnum == 0 || usize::from(phentsize) < 56 {
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
    for i in 0..u64::from(phnum) {
        let at = (phoff + i * u64::from(phentsize)) as usize;
        let p_type = u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
        // PT_LOAD, PT_DYNAMIC
        if p_type == 1 || p_type == 2 {
            let (offset, filesz) = (u64_at(at + 8), u64_at(at + 32));
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

    #[test]
    fn junk_is_rejected_with_a_reason() {
        let text = |bytes: &[u8]| check(bytes).unwrap_err().to_string();
        assert_eq!(text(b""), "file too short to be a shared library (0 bytes)");
        assert!(text(&[b'x'; 100]).contains("no ELF header"));
    }

    #[test]
    fn the_running_executable_passes_and_its_truncation_fails() {
        // The test binary is a PIE (ET_DYN) on the usual Linux toolchains.
        let exe = std::fs::read(std::env::current_exe().unwrap()).unwrap();
        if check(&exe).is_ok() {
            let half = &exe[..exe.len() / 2];
            assert!(check(half).unwrap_err().to_string().contains("truncated"));
        }
    }
}
