//! ptc's integration tests: they run the built `ptc` binary with the real strategy dylibs.

mod bad_input;
mod config;
mod examples;
mod plugins;
mod rules;
mod support;
mod templates;
