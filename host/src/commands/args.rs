//! The options several commands share: those of the commands that read the configuration,
//! and the limit of those that read recordings.

use std::path::PathBuf;

use clap::Args;

/// The options of the commands that read the configuration (and load strategies).
#[derive(Clone, Debug, Default, Args)]
#[command(next_help_heading = "Configuration")]
pub struct ConfigArgs {
    /// Configuration file layered over the built-in defaults [default: ./ptc.toml if present]
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// Set a configuration key, after the files: `println_limit=5` (an option of the selected
    /// strategy, else a [compression] key) or `section.key=value`
    /// (`strategies.single-user-coalesced.println_limit=5`). The value is TOML; anything else
    /// is a string. Repeatable.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub sets: Vec<String>,

    /// Load plugin files and directories that another user could write (group- or
    /// world-writable, or owned by someone else than you or root); the same as `[plugins]
    /// allow_insecure = true`
    #[arg(long)]
    pub allow_insecure_plugins: bool,
}

impl ConfigArgs {
    /// These options, given before the command, with `later` (given after it) over them.
    pub fn then(&self, later: &ConfigArgs) -> ConfigArgs {
        ConfigArgs {
            config: later.config.clone().or_else(|| self.config.clone()),
            sets: self.sets.iter().chain(&later.sets).cloned().collect(),
            allow_insecure_plugins: self.allow_insecure_plugins || later.allow_insecure_plugins,
        }
    }
}

/// The limit of the commands that read recordings.
#[derive(Clone, Debug, Args)]
#[command(next_help_heading = "Configuration")]
pub struct RecordingArgs {
    /// Largest recording read, in bytes: a recording file, a line of a JSONL corpus or of a
    /// trace log to import; a larger one is an error, found before more is read
    #[arg(long, value_name = "BYTES", default_value_t = crate::recording::DEFAULT_MAX_RECORDING_BYTES)]
    pub max_recording_bytes: u64,
}

/// How much the tables of `ptc ab` and `ptc ab merge` show.
#[derive(Clone, Debug, Default, Args)]
pub struct ViewArgs {
    /// Show every column and every pricing profile, lines unwrapped (by default the tables fit
    /// 100 columns: tokens, cost and what is retained, and the costs under the profile of the
    /// cost column, those --pricing names and those the runs were billed by)
    #[arg(long)]
    pub wide: bool,
    /// Say each verdict in full, which strategies are judged on some recordings only and why,
    /// the actions whose cited literals each strategy drops, and each run against its bill
    #[arg(long)]
    pub explain: bool,
}

impl ViewArgs {
    /// The view these options ask for.
    pub fn view(&self) -> crate::ab::report::View {
        crate::ab::report::View {
            wide: self.wide,
            explain: self.explain,
            ..Default::default()
        }
    }
}
