//! The body of each `ptc` command, one file per command; `cli.rs` holds their flags.

pub mod new_plugin;
pub mod serve;
