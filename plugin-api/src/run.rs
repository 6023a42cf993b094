//! What a strategy renders from: the run (mission, tools, data, limits of the agent) and its
//! turns, exactly as recorded. Turns are immutable; the prompt for turn `k + 1` is rendered from
//! the first `k` of them.

use abi_stable::std_types::{RArc, ROption, RString, RVec, Tuple2};
use abi_stable::StableAbi;

use crate::value::Value;

/// The agent run a prompt is rendered for. Two runs are equal when they hold the same
/// things, whatever their keys.
#[repr(C)]
#[derive(StableAbi, Clone, Debug)]
pub struct Run {
    /// The mission, with its `{{placeholders}}` already expanded by the host.
    pub mission: RString,
    /// The system prompt: the recording's own, or the host's default template, rendered.
    pub system_prompt: RString,
    /// Tools in recorded order.
    pub tools: RVec<Tool>,
    /// The `data/` namespace in recorded order.
    pub data: RVec<Tuple2<RString, Value>>,
    /// At least 1.
    pub max_turns: u32,
    /// The expected output signature, if the agent has one.
    pub signature: ROption<RString>,
    /// A number the host gives each run it reads, never the same for two runs of one process:
    /// a strategy may keep what it computes from the run alone (its head, the samples of its
    /// data) under this key, from one prompt of the run to the next, and use it again for every
    /// run that has the same key. The turns of a run with a key are read once and do not move
    /// while it is rendered: each prompt's `turns` are the first ones of the same list, so what
    /// is computed from a turn, or from a value of one, may be kept by its address too. 0 for a run
    /// built without one (by hand, in a test), whose results are not to be kept.
    pub key: u64,
}

impl PartialEq for Run {
    fn eq(&self, other: &Run) -> bool {
        let Run {
            mission,
            system_prompt,
            tools,
            data,
            max_turns,
            signature,
            key: _,
        } = self;
        *mission == other.mission
            && *system_prompt == other.system_prompt
            && *tools == other.tools
            && *data == other.data
            && *max_turns == other.max_turns
            && *signature == other.signature
    }
}

/// A tool the agent may call.
#[repr(C)]
#[derive(StableAbi, Clone, Debug, PartialEq)]
pub struct Tool {
    pub name: RString,
    /// PTC-Lisp signature syntax: `(name :type, ...) -> :return`.
    pub signature: ROption<RString>,
    pub description: ROption<RString>,
}

/// One LLM interaction cycle: the response, the program it held, and what running it did.
#[repr(C)]
#[derive(StableAbi, Clone, Debug, PartialEq)]
pub struct Turn {
    /// 1-based, consecutive.
    pub number: u32,
    /// The whole LLM response, reasoning included.
    pub raw_response: RString,
    /// The program extracted from the response, if one was found.
    pub program: ROption<RString>,
    pub success: bool,
    /// The value of the program (nil when it had none).
    pub result: Value,
    /// Present when `success` is false.
    pub error: ROption<TurnError>,
    /// One entry per `println` call, as printed.
    pub prints: RVec<RString>,
    pub tool_calls: RVec<ToolCall>,
    /// The `user/` namespace after this turn, in definition order. Each value is shared: an
    /// entry a turn leaves as the turn before it left it is usually the same allocation in both
    /// turns' memories (the host reads it once), so a strategy may copy an entry by cloning the
    /// `RArc`, and two entries that are the same allocation hold the same value
    /// ([`same_value`]); entries that are not may still hold equal values.
    pub memory: RVec<Tuple2<RString, RArc<Value>>>,
    /// The symbols this turn defined or redefined, as indices into `memory`, ascending: the
    /// entries that the memory of the last successful turn before it (none, before the first
    /// successful turn) does not hold under the same name with the same value. Empty for a
    /// failed turn. The host computes it once when it reads a recording, so that a strategy
    /// showing what each turn defined compares no values, however many prompts it renders.
    pub defined: RVec<u32>,
}

/// Why a turn failed.
#[repr(C)]
#[derive(StableAbi, Clone, Debug, PartialEq)]
pub struct TurnError {
    /// A short machine word such as `eval_error`.
    pub reason: RString,
    pub message: ROption<RString>,
}

impl TurnError {
    /// The message, or the reason when there is none.
    pub fn text(&self) -> &str {
        match &self.message {
            ROption::RSome(message) => message,
            ROption::RNone => &self.reason,
        }
    }
}

/// A tool call a program made.
#[repr(C)]
#[derive(StableAbi, Clone, Debug, PartialEq)]
pub struct ToolCall {
    pub name: RString,
    pub args: Value,
    pub result: Value,
}

impl Turn {
    /// The entries of `memory` this turn defined or redefined (see [`Turn::defined`]), in
    /// definition order.
    pub fn defined_entries(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.defined
            .iter()
            .filter_map(|&i| self.memory.get(i as usize))
            .map(|entry| (entry.0.as_str(), &*entry.1))
    }

    /// The text of this turn's error (its message, or its reason when it has none), or `None`
    /// when the turn succeeded.
    pub fn error_text(&self) -> Option<&str> {
        self.error.as_ref().map(TurnError::text).into_option()
    }
}

impl Run {
    /// `max_turns - turns_so_far`: counts the turn about to run; never below zero.
    pub fn turns_left(&self, turns_so_far: usize) -> u32 {
        self.max_turns
            .saturating_sub(u32::try_from(turns_so_far).unwrap_or(u32::MAX))
    }
}

/// A `user/` namespace: name -> value, in definition order.
pub type Memory = [Tuple2<RString, RArc<Value>>];

/// Whether two shared values are equal: at once when they are the same allocation, else by
/// comparing them.
pub fn same_value(a: &RArc<Value>, b: &RArc<Value>) -> bool {
    std::ptr::eq::<Value>(&**a, &**b) || **a == **b
}
