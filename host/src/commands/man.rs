//! `ptc man`: the man pages, generated from the command line's own help.

use std::io::Write;
use std::path::PathBuf;

use crate::Error;

/// Print ptc's man page (roff), or write one page per command into a directory
///
/// `ptc man | man -l -` reads it; `ptc man --dir ~/.local/share/man/man1` installs
/// ptc.1, ptc-ab.1, ptc-render.1, ... for `man ptc-ab`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Write ptc.1 and a page per command here instead of printing ptc.1
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
}

/// `ptc man`: ptc.1 of `command` on `out`, or ptc.1 and one page per command written into
/// `--dir`.
pub fn exec(args: Args, command: clap::Command, out: &mut dyn Write) -> Result<(), Error> {
    match args.dir {
        None => {
            let mut page = Vec::new();
            clap_mangen::Man::new(command)
                .render(&mut page)
                .map_err(Error::Output)?;
            out.write_all(&page).map_err(Error::Output)
        }
        Some(dir) => {
            std::fs::create_dir_all(&dir).map_err(|source| Error::WriteFile {
                path: dir.clone(),
                source,
            })?;
            clap_mangen::generate_to(command, &dir).map_err(|source| Error::WriteFile {
                path: dir.clone(),
                source,
            })?;
            Ok(())
        }
    }
}
