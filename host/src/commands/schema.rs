//! `ptc schema`: the JSON Schema of the recording format.

use std::io::Write;

use crate::output::{pretty, write_out};
use crate::Error;

/// Print the JSON Schema of the recording format
#[derive(Debug, clap::Args)]
pub struct Args {}

/// `ptc schema`: the schema, pretty-printed.
pub fn exec(_: Args, out: &mut dyn Write) -> Result<(), Error> {
    write_out(out, &schema())
}

/// The schema, pretty-printed.
pub fn schema() -> String {
    pretty(&crate::recording::schema())
}
