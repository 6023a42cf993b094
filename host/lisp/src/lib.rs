//! A PTC-Lisp evaluator of its own, for replaying recorded PTC-Lisp agent runs.
//!
//! The evaluator follows the PTC-Lisp language specification of ptc_runner for the forms that
//! recorded Kernel programs and their preludes use. It has no file, network or process access:
//! the only way out of a program is a capability call (`tool/...`), which the caller answers
//! (the replay answers it from the recording). Every evaluation runs on a budget of steps
//! (fuel) and of allocated elements, so a hostile program is refused, never run forever.

mod builtins;
pub mod differential;
mod eval;
mod pattern;
mod print;
mod reader;
pub mod replay;
mod value;

pub use eval::{Budget, Capabilities, Interp, Lambda, Outcome, TurnResult};
pub use print::{pr_str, str_of};
pub use reader::read_program;
pub use value::{LispError, Value};
