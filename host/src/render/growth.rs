//! How much a template may write: [`MAX_GROWTH`] bytes more than the text of the values it is
//! given. Tera's renders are cut there (`templates.rs`); the direct engine gives up there and
//! leaves the section to tera, which decides.

/// How many bytes more than the text of its values a template may write: 16 MiB.
pub const MAX_GROWTH: usize = 16 << 20;
