//! A structural check of a shared object before it is handed to the dynamic loader.
//!
//! `dlopen` trusts the file: a plugin cut short (an interrupted copy, a full disk) makes it map
//! pages past the end of the file, and the process dies of SIGBUS. Checking that the headers and
//! every loaded segment lie inside the file turns that into an ordinary error.

/// Why a file is not a loadable shared object for this machine.
pub fn check(bytes: &[u8]) -> Result<(), String> {
    const HEADER: usize = 64;
    if bytes.len() < HEADER {
        return Err(format!(
            "file too short to be a shared library ({} bytes)",
            bytes.len()
        ));
    }
    if &bytes[..4] != b"\x7fELF" {
        return Err("not a shared library (no ELF header)".into());
    }
    if bytes[4] != 2 {
        return Err("a 32-bit ELF file; this host is 64-bit".into());
    }
    if bytes[5] != 1 {
        return Err("a big-endian ELF file; this host is little-endian".into());
    }
    let u16_at = |at: usize| u16::from_le_bytes([bytes[at], bytes[at + 1]]);
    let u64_at = |at: usize| -> u64 {
        let mut b = [0u8; 8];
        b.copy_from_slice(&bytes[at..at + 8]);
        u64::from_le_bytes(b)
    };
    if u16_at(16) != 3 {
        return Err("an ELF file that is not a shared library (e_type is not ET_DYN)".into());
    }
    if let Some(expected) = host_machine() {
        let machine = u16_at(18);
        if machine != expected {
            return Err(format!(
                "built for another architecture (ELF machine {machine}, this host is {expected})"
            ));
        }
    }
    let len = bytes.len() as u64;
    let table_end =
        |offset: u64, count: u16, size: u16| offset.checked_add(u64::from(count) * u64::from(size));
    let (phoff, phentsize, phnum) = (u64_at(32), u16_at(54), u16_at(56));
    let (shoff, shentsize, shnum) = (u64_at(40), u16_at(58), u16_at(60));
    if phnum == 0 || usize::from(phentsize) < 56 {
        return Err("truncated or corrupt: no program headers".into());
    }
    match table_end(phoff, phnum, phentsize) {
        Some(end) if end <= len => {}
        _ => {
            return Err(format!(
                "truncated or corrupt: program headers end past the file ({len} bytes)"
            ))
        }
    }
    if shnum > 0 {
        match table_end(shoff, shnum, shentsize) {
            Some(end) if end <= len => {}
            _ => {
                return Err(format!(
                    "truncated or corrupt: section headers end past the file ({len} bytes)"
                ))
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
                    return Err(format!(
                        "truncated or corrupt: a segment ends at byte {} past the end of the file ({len} bytes)",
                        offset.saturating_add(filesz)
                    ))
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
        assert!(check(b"").unwrap_err().contains("too short"));
        assert!(check(&[b'x'; 100]).unwrap_err().contains("no ELF header"));
    }

    #[test]
    fn the_running_executable_passes_and_its_truncation_fails() {
        // The test binary is a PIE (ET_DYN) on the usual Linux toolchains.
        let exe = std::fs::read(std::env::current_exe().unwrap()).unwrap();
        if check(&exe).is_ok() {
            let half = &exe[..exe.len() / 2];
            assert!(check(half).unwrap_err().contains("truncated"));
        }
    }
}
