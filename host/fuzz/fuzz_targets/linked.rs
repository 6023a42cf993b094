//! The built-in strategies linked into a fuzz target: the same code the dylibs hold, so the
//! fuzzer sees (and instruments) the strategies too.

use std::path::PathBuf;
use std::sync::OnceLock;

use ptc::LoadedStrategy;
use ptc_plugin_api::StrategyModRef;

/// The built-in strategies, linked in: the same code the dylibs hold. A root module is made
/// (and leaked, as a loaded library's is) once per process.
pub fn modules() -> Vec<StrategyModRef> {
    static MODULES: OnceLock<Vec<StrategyModRef>> = OnceLock::new();
    MODULES.get_or_init(linked_modules).clone()
}

fn linked_modules() -> Vec<StrategyModRef> {
    vec![
        ptc_strategy_single_user_coalesced::ptc_strategy_root_module(),
        ptc_strategy_full_history::ptc_strategy_root_module(),
        ptc_strategy_rolling_window::ptc_strategy_root_module(),
        ptc_strategy_per_turn_summary::ptc_strategy_root_module(),
        ptc_strategy_observation_masking::ptc_strategy_root_module(),
        ptc_strategy_aggressive::ptc_strategy_root_module(),
        ptc_strategy_delta_log::ptc_strategy_root_module(),
        ptc_strategy_bounded_transcript::ptc_strategy_root_module(),
        ptc_strategy_clear_tool_results::ptc_strategy_root_module(),
        ptc_strategy_trim::ptc_strategy_root_module(),
        ptc_strategy_compact::ptc_strategy_root_module(),
    ]
}

pub fn strategies() -> &'static [(String, PathBuf)] {
    static NAMES: OnceLock<Vec<(String, PathBuf)>> = OnceLock::new();
    NAMES.get_or_init(|| {
        let names: Vec<(String, PathBuf)> = modules()
            .into_iter()
            .map(|module| {
                let name = module.name().to_string();
                (name.clone(), PathBuf::from(format!("linked:{name}")))
            })
            .collect();
        let mut distinct: Vec<&String> = names.iter().map(|(name, _)| name).collect();
        distinct.sort();
        distinct.dedup();
        assert_eq!(
            distinct.len(),
            names.len(),
            "every strategy crate gives its own module"
        );
        names
    })
}

/// Every linked strategy, loaded as the host loads a plugin.
pub fn loaded() -> Vec<LoadedStrategy> {
    modules()
        .into_iter()
        .zip(strategies())
        .map(|(module, (_, file))| LoadedStrategy::from_module(module, file.clone()).unwrap())
        .collect()
}
