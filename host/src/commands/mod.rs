//! The `ptc` commands, one file per command: each holds its arguments (a clap `Args` struct)
//! beside its body (`exec`). `cli.rs` lists them.

pub mod ab;
pub mod args;
pub mod bill;
pub mod completions;
pub mod diff;
pub mod import;
pub mod init;
pub mod man;
pub mod new_plugin;
pub mod plugins;
pub mod pricing;
pub mod render;
pub mod schema;
pub mod serve;
pub mod strategies;
pub mod trace;
pub mod validate;

use args::{ConfigArgs, RecordingArgs};

use crate::config::Config;
use crate::host::Host;
use crate::Error;

/// What every command is given besides its own arguments: the configuration options written
/// before the command (`ptc --config F ab`).
pub struct Context {
    pub global: ConfigArgs,
}

impl Context {
    /// The configuration, from the options before the command with those after it (`after`)
    /// over them.
    pub fn config(&self, after: &ConfigArgs) -> Result<Config, Error> {
        let args = self.global.then(after);
        Ok(Config::load_allowing_insecure(
            args.config.as_deref(),
            &args.sets,
            args.allow_insecure_plugins,
        )?)
    }

    /// The host of a command that reads the configuration. Its plugins load when a command
    /// first asks for them; the warnings about plugin files are printed then.
    pub fn host(&self, after: &ConfigArgs) -> Result<Host, Error> {
        let host = Host::new(self.config(after)?).on_plugins_loaded(|host| {
            for warning in host.plugin_warnings() {
                crate::output::warn(warning);
            }
            for (name, origin) in host.unused_strategy_tables() {
                crate::output::warn(format_args!(
                    "{origin} configures strategy `{name}`, which is not loaded"
                ));
            }
        });
        Ok(host)
    }

    /// [`Context::host`] for a command that reads recordings, with `limits` applied first.
    pub fn reading(&self, after: &ConfigArgs, limits: &RecordingArgs) -> Result<Host, Error> {
        Ok(self
            .host(after)?
            .with_max_recording_bytes(limits.max_recording_bytes))
    }

    /// [`Context::reading`] for a command that uses strategies: their plugins are loaded (and
    /// warned about) before the command begins.
    pub fn with_strategies(
        &self,
        after: &ConfigArgs,
        limits: Option<&RecordingArgs>,
    ) -> Result<Host, Error> {
        let host = match limits {
            Some(limits) => self.reading(after, limits)?,
            None => self.host(after)?,
        };
        host.plugins();
        Ok(host)
    }
}
