//! Memory and time of ptc's commands bounded by their input, in a test binary of its own: the
//! peak resident size the kernel reports for a child includes the size of the process that
//! started it (the memory it replaced at exec), so the commands are started from this small
//! process, not from the main test binary, which grows as its many tests run side by side.

#[allow(dead_code)]
#[path = "../cli/support.rs"]
mod support;

mod bounds;
