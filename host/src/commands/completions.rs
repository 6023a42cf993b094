//! `ptc completions SHELL`: a shell completion script.

use std::io::Write;

use crate::Error;

/// Print a shell completion script
///
/// bash: `ptc completions bash > ~/.local/share/bash-completion/completions/ptc`; zsh:
/// write it as `_ptc` into a directory of your `fpath`; fish: `ptc completions fish >
/// ~/.config/fish/completions/ptc.fish`; PowerShell: add the output to your `$PROFILE`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The shell
    #[arg(value_enum)]
    shell: clap_complete::Shell,
}

/// `ptc completions`: the script for `command`, the whole command line.
pub fn exec(args: Args, mut command: clap::Command, out: &mut dyn Write) -> Result<(), Error> {
    let mut text = Vec::new();
    clap_complete::generate(args.shell, &mut command, "ptc", &mut text);
    out.write_all(&text).map_err(Error::Output)
}
