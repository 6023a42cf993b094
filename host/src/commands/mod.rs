//! The body of each `ptc` command, one file per command; `cli.rs` holds their flags and calls
//! them.

pub mod ab;
pub mod ab_merge;
pub mod diff;
pub mod import;
pub mod init;
pub mod new_plugin;
pub mod plugins;
pub mod render;
pub mod schema;
pub mod serve;
pub mod strategies;
pub mod trace;
pub mod validate;
