//! The contract between the ptc host and its compression strategies, and nothing else: the
//! types that cross the boundary, the root module, [`export_strategy!`] and [`guard`].
//!
//! A strategy is a `cdylib` that exports a [`StrategyModRef`] root module. It receives the
//! [`Run`] and the [`Turn`]s so far, and returns an [`Output`]: messages made of content
//! [`Block`]s, blocks made of [`Section`]s; a block may carry a cache breakpoint, where the
//! strategy asks the client to have the provider cache the prompt up to. The strategy decides *what* is shown and computes the values (the helpers strategies share,
//! such as value formatting and type labels, are in the `ptc-strategy-kit` crate); each section
//! names a template, and the templates decide *how* it looks. The host renders the templates,
//! so users change the text without rebuilding anything.
//!
//! A complete strategy, with its template compiled in:
//!
//! ```
//! use ptc_plugin_api::{
//!     export_strategy, Message, OptionSpec, Options, Output, RenderError, Role, Run, Section,
//!     Stats, Strategy, Turn,
//! };
//!
//! pub struct MissionOnly;
//!
//! impl Strategy for MissionOnly {
//!     const NAME: &'static str = "mission-only";
//!     const DESCRIPTION: &'static str = "The mission and the turns left, nothing else.";
//!
//!     fn options() -> Vec<OptionSpec> {
//!         Vec::new()
//!     }
//!
//!     fn templates() -> Vec<(&'static str, &'static str)> {
//!         // Usually include_str!("../../templates/mission-only/prompt.tera").
//!         vec![("prompt", "{{ mission }}\n\nTurns left: {{ turns_left }}\n")]
//!     }
//!
//!     // The output may borrow the run's and the turns' text (`run.mission` here): `'r`.
//!     fn render<'r>(
//!         run: &'r Run,
//!         turns: &'r [Turn],
//!         _options: &Options,
//!     ) -> Result<Output<'r>, RenderError> {
//!         let prompt = Section::new("prompt")
//!             .with("mission", run.mission.as_str())
//!             .with("turns_left", run.turns_left(turns.len()));
//!         Ok(Output {
//!             messages: vec![Message::new(Role::User, vec![prompt])].into(),
//!             stats: Stats::default(),
//!         })
//!     }
//! }
//!
//! export_strategy!(MissionOnly);
//! # fn main() {}
//! ```
//!
//! `ABI.md` next to this crate says what the ABI version promises.

mod blocks;
mod module;
mod options;
mod output;
mod run;
mod value;

pub use abi_stable;
pub use blocks::Blocks;
pub use module::{
    guard, module_for, rendering_run, showing_private, Strategy, StrategyMod, StrategyModRef,
    ABI_VERSION, ABI_VERSION_SYMBOL, RECORDED_DATA,
};
pub use options::{OptionSpec, OptionValue, Options, SHOW_PRIVATE};
pub use output::{
    map_list, Block, ErrorKind, Field, FieldName, Message, ModelCall, Output, Record, RenderError,
    Role, Section, Stats,
};
pub use run::{same_value, Memory, Run, Tool, ToolCall, Turn, TurnError};
pub use value::{Function, Value};
