//! ptc's integration tests: they run the built `ptc` binary with the real strategy dylibs.

mod ab;
mod bad_input;
mod bad_plugins;
mod config;
mod conventions;
mod deploy;
mod determinism;
mod docs;
mod examples;
mod install;
mod limits;
mod new_plugin;
mod plugins;
mod privacy;
mod properties;
mod recordings;
mod report;
mod requests;
mod rules;
mod safety;
mod serve;
mod shard;
mod strategies;
mod support;
mod templates;
mod trust;
