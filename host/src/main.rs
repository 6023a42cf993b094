//! `ptc`: parse the command line, run it, map the error to an exit code.

/// mimalloc: the templates allocate many small values per prompt, and it serves them faster
/// than the system allocator (W1 in `benches/render.rs`). The `override` feature also makes it
/// the process's `malloc`, which the strategy dylibs allocate with (Rust's default allocator in
/// a cdylib): host and plugins share one heap (plugin-api/ABI.md, "Memory"). The `no_thp`
/// feature keeps its memory out of transparent huge pages: a page it gives back and takes
/// again is then 4 KiB to clear, not 2 MiB (W3: 14% less memory at the peak, a little less CPU).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let cli = ptc::cli::parse();
    ptc::cli::apply_global_options(&cli);
    ptc::init_logging(cli.verbose);
    if let Err(err) = ptc::init_threads() {
        ptc::to_stderr(&format!("error: {err}"));
        std::process::exit(err.exit_code());
    }
    let stdout = std::io::stdout();
    if let Err(err) = ptc::cli::run(cli, &mut stdout.lock()) {
        // A reader that stops reading (`ptc ... | head`) wanted no more: quiet, and 0, as
        // other Unix tools do (docs/src/reference/exit-codes.md).
        if let ptc::Error::Output(io) = &err {
            if io.kind() == std::io::ErrorKind::BrokenPipe {
                std::process::exit(0);
            }
        }
        ptc::to_stderr(&format!(
            "error: {}",
            ptc::escape_controls(&err.to_string())
        ));
        std::process::exit(err.exit_code());
    }
}
