//! `ptc plugins`: the plugin directories and what they hold (`list`), and the user plugin
//! directory that `install` copies checked plugins into and `remove` deletes them from.

mod build;
mod install;
mod list;
mod remove;

use std::io::Write;
use std::path::PathBuf;

use crate::commands::args::ConfigArgs;
use crate::commands::Context;
use crate::config::Config;
use crate::output::{write_out, Format};
use crate::plugins::directories::user_directory;
use crate::plugins::{PluginError, PluginsError};
use crate::Error;

/// Install, list and remove strategy plugins
///
/// Strategies are searched in the `[plugins] directories` (default ./plugins), then next to
/// the ptc executable, then in the user plugin directory, $XDG_DATA_HOME/ptc/plugins
/// (~/.local/share/ptc/plugins when XDG_DATA_HOME is not set), which `install` and `remove`
/// change.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    action: PluginsAction,
}

/// What `ptc plugins` does.
#[derive(Debug, clap::Subcommand)]
pub enum PluginsAction {
    /// List every plugin directory searched, in order, with its plugin files and the strategy
    /// each provides (or why it was not loaded, or which earlier file hides it)
    List {
        /// What to print
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        #[command(flatten)]
        config: ConfigArgs,
    },
    /// Check strategy plugins and copy them into the user plugin directory
    ///
    /// PATH is a plugin file (a strategy crate's built cdylib: lib*.so, *.dylib, *.dll), or a
    /// directory with a Cargo.toml: a strategy crate, or a workspace such as a ptc checkout,
    /// which is built with `cargo build --release` and whose every strategy plugin is
    /// installed. Each file is loaded first, as commands load it: one that is not a ptc
    /// strategy plugin, or was built for another ptc-plugin-api, is refused (exit 2) and
    /// nothing is installed. A file is written under a temporary name, then renamed, so that the
    /// directory never holds half a plugin; it replaces the file of the same name, and any other
    /// file there that provided the same strategy.
    Install {
        /// Plugin files or crate directories
        #[arg(required = true, value_name = "PATH")]
        paths: Vec<PathBuf>,
        /// Build crate directories without asking: building runs the crate's build scripts and
        /// procedural macros as you (on a terminal, ptc asks; elsewhere, without --yes, it
        /// refuses)
        #[arg(long)]
        yes: bool,
        #[command(flatten)]
        config: ConfigArgs,
    },
    /// Remove plugins from the user plugin directory, by strategy name or file name
    Remove {
        /// Strategy names (`delta-log`) or file names (`libptc_strategy_delta_log.so`)
        #[arg(required = true, value_name = "NAME")]
        names: Vec<String>,
        #[command(flatten)]
        config: ConfigArgs,
    },
}

/// `ptc plugins ACTION`: no plugin is loaded the way other commands load them; each action
/// searches the directories itself.
pub fn exec(args: Args, context: &Context, out: &mut dyn Write) -> Result<(), Error> {
    let (PluginsAction::List { config, .. }
    | PluginsAction::Install { config, .. }
    | PluginsAction::Remove { config, .. }) = &args.action;
    let config = context.config(config)?;
    write_out(out, &plugins(&config, args.action)?)
}

/// Runs `ptc plugins ACTION`; returns what to print.
fn plugins(config: &Config, action: PluginsAction) -> Result<String, Error> {
    match action {
        PluginsAction::List { format, .. } => Ok(list::list(config, format)),
        PluginsAction::Install { paths, yes, .. } => install::install(config, &paths, yes),
        PluginsAction::Remove { names, .. } => remove::remove(config, &names),
    }
}

/// The user plugin directory, or the error saying there is none.
fn user_plugin_directory() -> Result<PathBuf, PluginsError> {
    user_directory().ok_or(PluginsError::NoUserDirectory)
}

/// The cause of a plugin file's warning, without the `skipping plugin FILE:` that names it.
fn cause(err: &PluginError) -> String {
    match err {
        PluginError::Load { source, .. } => source.to_string(),
        PluginError::Duplicate { name, first, .. } => format!(
            "strategy `{name}` is already loaded from {}",
            first.display()
        ),
        PluginError::Insecure { reason, .. } | PluginError::InsecureDirectory { reason, .. } => {
            format!("refused: {reason}; or pass --allow-insecure-plugins")
        }
        PluginError::Directory { source, .. } => format!("cannot read it: {source}"),
        PluginError::Hidden { .. } => {
            "its name starts with `.`, which hides it from `ls`; rename it to load it".into()
        }
    }
}
