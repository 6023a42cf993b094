//! The root module every strategy dylib exports, the [`Strategy`] trait a plugin implements,
//! and [`export_strategy!`](crate::export_strategy), which turns one into the other with a
//! panic guard around every call.

use std::cell::{Cell, RefCell};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Once;

use abi_stable::library::RootModule;
use abi_stable::prefix_type::PrefixTypeTrait;
use abi_stable::sabi_types::VersionStrings;
use abi_stable::std_types::{RResult, RSlice, RStr, RVec, Tuple2};
use abi_stable::{declare_root_module_statics, package_version_strings, StableAbi};

use crate::options::{OptionSpec, Options};
use crate::output::{ErrorKind, ModelCall, Output, RenderError};
use crate::run::{Run, Turn};

/// The version of the contract between host and plugins. A plugin loads only into a host whose
/// `ABI_VERSION` equals the one it was built with (see `ABI.md`); abi_stable checks the layout
/// of every type on top of that.
pub const ABI_VERSION: u32 = 2;

/// The name of the symbol holding a plugin's [`ABI_VERSION`] (a `u32`), exported by
/// [`export_strategy!`](crate::export_strategy) beside the root module.
pub const ABI_VERSION_SYMBOL: &str = "PTC_PLUGIN_ABI_VERSION";

/// The root module of a strategy dylib.
#[repr(C)]
#[derive(StableAbi)]
#[sabi(kind(Prefix(prefix_ref = StrategyModRef)))]
#[sabi(missing_field(panic))]
pub struct StrategyMod {
    /// [`ABI_VERSION`] of the plugin-api the plugin was built with.
    pub abi_version: u32,
    /// The strategy's kebab-case name, also its `[strategies.<name>]` table.
    pub name: RStr<'static>,
    /// The plugin's own version.
    pub version: RStr<'static>,
    /// One line saying what the strategy shows.
    pub description: RStr<'static>,
    /// The options the strategy accepts, with defaults and docs.
    pub options: extern "C" fn() -> RResult<RVec<OptionSpec>, RenderError>,
    /// The strategy's default templates: name -> tera source.
    pub templates:
        extern "C" fn() -> RResult<RVec<Tuple2<RStr<'static>, RStr<'static>>>, RenderError>,
    /// Renders the prompt for the next turn from the turns so far. Pure: the same input always
    /// gives the same output.
    ///
    /// Fields are only ever appended below this one. A plugin built before a field was appended
    /// does not have it, and with `missing_field(panic)` its accessor panics on such a plugin: a
    /// field appended here is declared `#[sabi(missing_field(option))]` (its accessor returns
    /// `None` when the plugin lacks it), or the host reads it only after checking that the
    /// plugin's version has it.
    ///
    /// The output may borrow text from `run` and `turns` (a name, a printed line): the host
    /// keeps them, unchanged, for as long as it holds the output.
    #[sabi(last_prefix_field)]
    pub render: for<'r> extern "C" fn(
        &'r Run,
        RSlice<'r, Turn>,
        &Options,
    ) -> RResult<Output<'r>, RenderError>,
    /// The kinds of recorded data the strategy renders from, as a recording's `lacks` names
    /// them (`memory_values`, `prints`, `results`, `tool_results`, `errors`): on a recording
    /// that lacks one of them, its prompts are not what the agent's would have been, so
    /// `ptc ab` does not judge it there. Added after `render`: a plugin built against an older
    /// contract has none, and the host takes it to render from every kind.
    #[sabi(missing_field(option))]
    pub renders_from: extern "C" fn() -> RVec<RStr<'static>>,
    /// The model calls the strategy makes before sending the prompt for turn
    /// `turns.len() + 1`, besides the prompt itself (a compaction's summarizer): the host
    /// prices them with the prompt. Pure, like `render`. Added after `renders_from`: a plugin
    /// built against an older contract has none, and the host takes it to make no call.
    #[sabi(missing_field(option))]
    pub model_calls: for<'r> extern "C" fn(
        &'r Run,
        RSlice<'r, Turn>,
        &Options,
    ) -> RResult<RVec<ModelCall<'r>>, RenderError>,
}

impl RootModule for StrategyModRef {
    declare_root_module_statics! {StrategyModRef}
    const BASE_NAME: &'static str = "ptc_strategy";
    const NAME: &'static str = "ptc_strategy";
    const VERSION_STRINGS: VersionStrings = package_version_strings!();
}

/// A compression strategy. Implement it, then export it with
/// [`export_strategy!`](crate::export_strategy).
pub trait Strategy {
    /// Kebab-case, e.g. `single-user-coalesced`.
    const NAME: &'static str;
    /// One line.
    const DESCRIPTION: &'static str;

    /// The options the strategy reads, with their defaults.
    fn options() -> Vec<OptionSpec>;

    /// Default templates (name -> tera source), usually `include_str!`ed. A user's file
    /// `<templates dir>/<strategy>/<name>` replaces one at run time.
    fn templates() -> Vec<(&'static str, &'static str)>;

    /// The messages of the prompt for turn `turns.len() + 1`.
    /// The output may borrow text from `run` and `turns`.
    fn render<'r>(
        run: &'r Run,
        turns: &'r [Turn],
        options: &Options,
    ) -> Result<Output<'r>, RenderError>;

    /// The kinds of recorded data the prompts are made from ([`StrategyMod::renders_from`]);
    /// by default every kind a recording can lack that a prompt can show.
    const RENDERS_FROM: &'static [&'static str] = RECORDED_DATA;

    /// The model calls made before the prompt for turn `turns.len() + 1` is sent, besides it
    /// ([`StrategyMod::model_calls`]); by default none.
    fn model_calls<'r>(
        _run: &'r Run,
        _turns: &'r [Turn],
        _options: &Options,
    ) -> Result<Vec<ModelCall<'r>>, RenderError> {
        Ok(Vec::new())
    }
}

/// Every kind of recorded data a prompt can show, as a recording's `lacks` names them.
pub const RECORDED_DATA: &[&str] = &[
    "memory_values",
    "prints",
    "results",
    "tool_results",
    "errors",
];

thread_local! {
    /// Set while a guarded call runs on this thread: its panic becomes an error, not a message.
    static GUARDED: Cell<bool> = const { Cell::new(false) };
    /// Where the last guarded panic happened.
    static PANIC_LOCATION: RefCell<Option<String>> = const { RefCell::new(None) };
    /// Set while a render asked to show private values runs on this thread.
    static SHOWING_PRIVATE: Cell<bool> = const { Cell::new(false) };
    /// The key of the run a render running on this thread renders from.
    static RENDERING: Cell<u64> = const { Cell::new(0) };
}

/// Whether the render running on this thread was asked to show private values
/// ([`Options::shows_private`]): a debugging view, never what an agent is sent. The helpers
/// that decide what is private (`ptc-strategy-kit`'s `is_private_name`) read it, so a strategy
/// built on them needs nothing more.
pub fn showing_private() -> bool {
    SHOWING_PRIVATE.with(Cell::get)
}

/// The key ([`Run::key`]) of the run the render (or the model calls) running on this thread
/// reads, 0 outside one or for a run without a key. The helpers of `ptc-strategy-kit` keep
/// what they print of the run's values under it, so a strategy built on them needs nothing
/// more.
pub fn rendering_run() -> u64 {
    RENDERING.with(Cell::get)
}

/// Runs `call` with [`showing_private`] and [`rendering_run`] set from `options` and `run`,
/// then sets them back.
fn rendering<T>(run: &Run, options: &Options, call: impl FnOnce() -> T) -> T {
    let private = SHOWING_PRIVATE.with(|s| s.replace(options.shows_private()));
    let key = RENDERING.with(|k| k.replace(run.key));
    let result = call();
    SHOWING_PRIVATE.with(|s| s.set(private));
    RENDERING.with(|k| k.set(key));
    result
}

/// Installs, once, a panic hook that keeps quiet about panics inside [`guard`] (recording where
/// they happened) and hands every other panic to the hook that was there before. A plugin has
/// its own copy of std, so this is the plugin's hook; a program that links a strategy crate
/// keeps its own hook for its own panics.
fn install_quiet_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if GUARDED.with(Cell::get) {
                let location = info.location().map(|l| l.to_string());
                PANIC_LOCATION.with(|l| *l.borrow_mut() = location);
            } else {
                previous(info);
            }
        }));
    });
}

/// Runs `f`, turning a panic into a [`RenderError`] of kind [`ErrorKind::Panic`] that says
/// where it happened and its message: a panic must never unwind across the plugin boundary (it
/// would abort the host), nor print to the host's stderr.
pub fn guard<T>(f: impl FnOnce() -> Result<T, RenderError>) -> RResult<T, RenderError> {
    install_quiet_hook();
    let outer = GUARDED.with(|g| g.replace(true));
    let result = catch_unwind(AssertUnwindSafe(f));
    GUARDED.with(|g| g.set(outer));
    match result {
        Ok(result) => result.into(),
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a non-string panic payload".into());
            let place = PANIC_LOCATION
                .with(|l| l.borrow_mut().take())
                .map(|l| format!(" at {l}"))
                .unwrap_or_default();
            RResult::RErr(RenderError {
                kind: ErrorKind::Panic,
                message: format!("the strategy panicked{place}: {what}").into(),
            })
        }
    }
}

extern "C" fn options_shim<S: Strategy>() -> RResult<RVec<OptionSpec>, RenderError> {
    guard(|| Ok(S::options().into()))
}

extern "C" fn templates_shim<S: Strategy>(
) -> RResult<RVec<Tuple2<RStr<'static>, RStr<'static>>>, RenderError> {
    guard(|| {
        Ok(S::templates()
            .into_iter()
            .map(|(name, text)| Tuple2(RStr::from(name), RStr::from(text)))
            .collect())
    })
}

extern "C" fn render_shim<'r, S: Strategy>(
    run: &'r Run,
    turns: RSlice<'r, Turn>,
    options: &Options,
) -> RResult<Output<'r>, RenderError> {
    rendering(run, options, || {
        guard(|| S::render(run, turns.as_slice(), options))
    })
}

/// The root module for strategy `S`; `version` is the plugin crate's version.
/// Used by [`export_strategy!`](crate::export_strategy); also lets a program link a strategy
/// crate directly and call it exactly as the host calls a loaded plugin.
extern "C" fn renders_from_shim<S: Strategy>() -> RVec<RStr<'static>> {
    S::RENDERS_FROM
        .iter()
        .map(|kind| RStr::from(*kind))
        .collect()
}

extern "C" fn model_calls_shim<'r, S: Strategy>(
    run: &'r Run,
    turns: RSlice<'r, Turn>,
    options: &Options,
) -> RResult<RVec<ModelCall<'r>>, RenderError> {
    rendering(run, options, || {
        guard(|| S::model_calls(run, turns.as_slice(), options).map(RVec::from))
    })
}

pub fn module_for<S: Strategy>(version: &'static str) -> StrategyModRef {
    StrategyMod {
        abi_version: ABI_VERSION,
        name: RStr::from(S::NAME),
        version: RStr::from(version),
        description: RStr::from(S::DESCRIPTION),
        options: options_shim::<S>,
        templates: templates_shim::<S>,
        render: render_shim::<S>,
        renders_from: renders_from_shim::<S>,
        model_calls: model_calls_shim::<S>,
    }
    .leak_into_prefix()
}

/// Exports a [`Strategy`] as the root module of this cdylib. The crate must depend on
/// `abi_stable` (the export attribute refers to it by name) and be built with
/// `crate-type = ["cdylib", "rlib"]`.
#[macro_export]
macro_rules! export_strategy {
    ($strategy:ty) => {
        /// The plugin's [`ABI_VERSION`]($crate::ABI_VERSION), a plain symbol the host reads
        /// before checking the root module's types, so that it can name both versions when
        /// they do not match.
        #[no_mangle]
        pub static PTC_PLUGIN_ABI_VERSION: u32 = $crate::ABI_VERSION;

        /// The root module the ptc host loads.
        #[::abi_stable::export_root_module]
        pub fn ptc_strategy_root_module() -> $crate::StrategyModRef {
            $crate::module_for::<$strategy>(env!("CARGO_PKG_VERSION"))
        }
    };
}
