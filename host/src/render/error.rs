//! Why a prompt could not be rendered: the turn asked for, the strategy's call, its templates,
//! or a request the prompt cannot make.

use std::path::PathBuf;

use crate::render::templates::TemplateError;

/// Why rendering a prompt failed.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    #[error("--turns {asked} is more than the {recorded} turn(s) recorded in {path}")]
    TurnsOutOfRange {
        path: PathBuf,
        asked: usize,
        recorded: usize,
    },
    #[error("strategy `{strategy}` ({file}) failed: {source}")]
    Strategy {
        strategy: String,
        file: PathBuf,
        #[source]
        source: ptc_plugin_api::RenderError,
    },
    #[error("strategy `{strategy}` ({file}) failed: {source}")]
    StrategyTemplate {
        strategy: String,
        file: PathBuf,
        #[source]
        source: Box<TemplateError>,
    },
    #[error(transparent)]
    Template(#[from] TemplateError),
    #[error("no request is recorded for turn {turn}: the as-sent baseline gives the requests a recording holds (`ptc import` keeps them from the logs that record them)")]
    NoRequest {
        /// The recording, which the caller names.
        path: PathBuf,
        turn: usize,
    },
    #[error("the request of turn {turn} is rebuilt from the log, which holds neither the system prompt nor the tool schemas the agent sent, and their size could not be inferred from the bill (no usage, or usage smaller than the conversation): its as-sent size is unknown")]
    UnknownPrefix {
        /// The recording, which the caller names.
        path: PathBuf,
        turn: usize,
    },
    #[error("the prompt of strategy `{strategy}` has no user or assistant message: a Messages API request needs one")]
    NoConversation { strategy: String },
}

impl RenderError {
    /// Whether the strategy refused an option's value: the configuration's fault (or the
    /// request's), never the recording's.
    pub fn is_option_error(&self) -> bool {
        matches!(self, RenderError::Strategy { source, .. }
            if source.kind == ptc_plugin_api::ErrorKind::Option)
    }
}
