//! `ptc schema`: the JSON Schema of the recording format.

use crate::output::pretty;

/// The schema, pretty-printed.
pub fn schema() -> String {
    pretty(&crate::recording::schema())
}
