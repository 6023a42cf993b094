//! `ptc serve --stdio`: answers render requests on stdin and stdout (the loop and the
//! protocol are in `serve/`).

use std::io::Write;

use crate::commands::args::{ConfigArgs, RecordingArgs};
use crate::commands::Context;
use crate::serve::{serve, DEFAULT_MAX_REQUEST_BYTES};
use crate::Error;

/// Answer render requests from another program: JSON lines on stdin and stdout
///
/// Request: {"id", "recording", "turns"?, "strategy"?, "options"?}; response: {"id",
/// "strategy", "turns", "messages", "stats"} or {"id", "error": {"code", "message"}}. See
/// the README.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Serve on stdin/stdout (the only transport)
    #[arg(long, required = true)]
    stdio: bool,
    /// Longest request line accepted, in bytes; a longer one is answered with the error
    /// code `too_large` and skipped, never held in memory
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_REQUEST_BYTES)]
    max_request_bytes: usize,
    #[command(flatten)]
    config: ConfigArgs,
    #[command(flatten)]
    limits: RecordingArgs,
}

/// `ptc serve --stdio`.
pub fn exec(args: Args, context: &Context, out: &mut dyn Write) -> Result<(), Error> {
    // Before any strategy is loaded: what a strategy prints, even as it loads, goes to stderr.
    #[cfg(unix)]
    let mut answers = crate::serve::answer_stream().map_err(Error::Output)?;
    #[cfg(unix)]
    let out: &mut dyn Write = {
        let _ = out;
        &mut answers
    };
    let host = context.with_strategies(&args.config, Some(&args.limits))?;
    serve(&host, std::io::stdin().lock(), out, args.max_request_bytes)
}
