//! How commands hand their results over: the text-or-JSON choice, pretty JSON, a rendered
//! prompt as text or JSON, whether stdout and stderr get colour (`--color`), warnings (`-q`),
//! and files written atomically.

use std::io::{IsTerminal, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};

use clap::{ColorChoice, ValueEnum};
use serde::Serialize;

use crate::host::Host;
use crate::render::{Prompt, PromptView};
use crate::Error;

mod interrupted;

/// Output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Lines for people to read
    Text,
    /// One JSON document, for programs (its fields are documented in the README)
    Json,
}

/// `--color`: `auto` (0), `always` (1), `never` (2).
static COLOUR: AtomicU8 = AtomicU8::new(0);
/// `-q`: no warnings and no progress bar.
static QUIET: AtomicBool = AtomicBool::new(false);

/// Sets what `--color` chose for the whole run.
pub fn set_colour(choice: ColorChoice) {
    let code = match choice {
        ColorChoice::Auto => 0,
        ColorChoice::Always => 1,
        ColorChoice::Never => 2,
    };
    COLOUR.store(code, Ordering::Relaxed);
}

/// Whether a stream gets ANSI colour: `--color always`, or `auto` (the default) when it is a
/// terminal and `NO_COLOR` is not set.
fn colour_on(terminal: bool) -> bool {
    match COLOUR.load(Ordering::Relaxed) {
        1 => true,
        2 => false,
        _ => terminal && std::env::var_os("NO_COLOR").is_none(),
    }
}

/// Whether stdout gets ANSI colour.
pub fn colour() -> bool {
    colour_on(std::io::stdout().is_terminal())
}

/// Whether stderr (logs, progress) gets ANSI colour.
pub fn stderr_colour() -> bool {
    colour_on(std::io::stderr().is_terminal())
}

/// Sets `-q` for the whole run.
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::Relaxed);
}

/// Whether `-q` was given: warnings and the progress bar are left out.
pub fn quiet() -> bool {
    QUIET.load(Ordering::Relaxed)
}

/// Prints `warning: {message}` on stderr, unless `-q`.
pub fn warn(message: impl std::fmt::Display) {
    if !quiet() {
        to_stderr(&format!(
            "warning: {}",
            escape_controls(&message.to_string())
        ));
    }
}

/// Prints `message` on stderr (not with `-q`), its control characters escaped.
pub fn note(message: impl std::fmt::Display) {
    if !quiet() {
        to_stderr(&escape_controls(&message.to_string()));
    }
}

/// Writes `line` and a newline to stderr. A stderr nobody reads any more (`ptc ... 2>&1 |
/// head`) loses the line: not a panic, and the run goes on to its own exit code.
pub fn to_stderr(line: &str) {
    use std::io::Write;
    let mut stderr = std::io::stderr().lock();
    let _ = stderr
        .write_all(line.as_bytes())
        .and_then(|()| stderr.write_all(b"\n"));
}

/// Whether stdout is a terminal.
pub fn terminal() -> bool {
    std::io::stdout().is_terminal()
}

/// `text` with every control character but newline and tab written `\xNN`, so that recorded
/// text shown on a terminal cannot move the cursor, change colours, retitle the window, write
/// the clipboard or overwrite a line; bidirectional and format characters ([`reorders`]) are
/// written `\u{XXXX}`, so that they cannot reorder or hide it. Every diagnostic (`error:`,
/// `warning:`, `validate`'s problems) goes through it, and prompt text shown on a terminal.
pub fn escape_controls(text: &str) -> std::borrow::Cow<'_, str> {
    let control = |c: char| c.is_control() && c != '\n' && c != '\t';
    if !text.contains(|c| control(c) || reorders(c)) {
        return text.into();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if control(c) {
            out.push_str(&format!("\\x{:02x}", c as u32));
        } else if reorders(c) {
            out.push_str(&format!("\\u{{{:X}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    out.into()
}

/// Whether `c` is a bidirectional or invisible format character (U+202A..U+202E embeddings and
/// overrides, U+2066..U+2069 isolates, U+200B..U+200F zero-width characters and marks, U+061C,
/// U+FEFF): printed raw, it reorders or hides the text around it (a file named
/// `run\u{202E}nosj.exe` shows as `runexe.json`).
pub fn reorders(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200b}'..='\u{200f}' | '\u{61c}' | '\u{feff}')
}

/// `value` as indented JSON, ending with a newline.
pub fn pretty<T: Serialize>(value: &T) -> String {
    let mut text = serde_json::to_string_pretty(value).expect("JSON output serializes");
    text.push('\n');
    text
}

/// A rendered prompt as JSON: strategy, messages and statistics.
pub fn prompt_json(prompt: &Prompt) -> String {
    pretty(&PromptView::from(prompt))
}

/// A rendered prompt through the host's `text_output` template.
pub fn prompt_text(host: &Host, prompt: &Prompt) -> Result<String, Error> {
    Ok(host
        .host_templates()?
        .render("text_output", &PromptView::from(prompt))?)
}

/// Writes `text` to `out` and flushes it.
pub fn write_out(out: &mut dyn Write, text: &str) -> Result<(), Error> {
    out.write_all(text.as_bytes()).map_err(Error::Output)?;
    out.flush().map_err(Error::Output)
}

/// Refuses (a usage error) an output file that is one of the files a command reads, or an
/// existing file that is not an HTML page, so that writing it never destroys an input: `output` is compared with each of `inputs` (a file, or
/// `FILE.jsonl:LINE`), and with every file whose name ends in one of `extensions` directly in an
/// input that is a directory, as the same file (whatever the path that names it: links, `..`,
/// another hard link). `flag` names the option in the message. An output that does not exist
/// yet is no input.
pub fn check_not_input(
    flag: &str,
    output: &Path,
    inputs: &[std::path::PathBuf],
    extensions: &[&str],
) -> Result<(), Error> {
    // A new file the input directory would list is read as an input the next time.
    let parent = output
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let listed = |file: &Path| {
        file.extension()
            .is_some_and(|e| extensions.iter().any(|ext| e == *ext))
    };
    if std::fs::metadata(output).is_err() {
        return match inputs
            .iter()
            .find(|i| listed(output) && i.is_dir() && same_file(i, parent))
        {
            Some(dir) => Err(Error::Usage(format!(
                "{flag} {} would be read as an input of {} the next time; name a new .html file",
                output.display(),
                dir.display()
            ))),
            None => Ok(()),
        };
    }
    let refuse = |input: &Path| {
        Error::Usage(format!(
            "{flag} {} is one of the files read ({}); write it to another file",
            output.display(),
            input.display()
        ))
    };
    for input in inputs {
        if input.is_dir() {
            let Ok(entries) = std::fs::read_dir(input) else {
                continue;
            };
            for entry in entries.filter_map(Result::ok) {
                let file = entry.path();
                if listed(&file) && same_file(&file, output) {
                    return Err(refuse(&file));
                }
            }
            continue;
        }
        let file = match input.to_str().and_then(|text| text.rsplit_once(':')) {
            Some((file, line)) if !input.exists() && line.parse::<usize>().is_ok() => {
                Path::new(file)
            }
            _ => input.as_path(),
        };
        if same_file(file, output) {
            return Err(refuse(input));
        }
    }
    // `--report *.json` makes the first file of a glob the report and the rest its inputs:
    // an existing .json or .jsonl file that holds JSON (a recording, a corpus, a log, a part)
    // is an input whatever else is read, and an HTML report never belongs in it.
    if holds_json(output) {
        return Err(Error::Usage(format!(
            "{flag} {} is an existing JSON file (a recording, a corpus, a log or a part: an input, as when a glob lists it first); name a new .html file",
            output.display()
        )));
    }
    // Nor does one belong over any other file that is not a page (the `--config` file read,
    // a source): an earlier report, or an empty file, is replaced.
    if !opens_a_page(output) {
        return Err(Error::Usage(format!(
            "{flag} {} is an existing file that is not an HTML page (a configuration, a log or another input); name a new .html file",
            output.display()
        )));
    }
    Ok(())
}

/// Whether `path` is not a regular file, or one that is empty or whose first character (after
/// a byte-order mark and blanks) opens a tag, as an HTML page does.
fn opens_a_page(path: &Path) -> bool {
    use std::io::Read;
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return true;
    }
    let mut head = Vec::new();
    let read = std::fs::File::open(path).and_then(|f| f.take(4096).read_to_end(&mut head));
    let head = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(&head);
    read.is_ok()
        && matches!(
            head.iter().find(|b| !b.is_ascii_whitespace()),
            None | Some(b'<')
        )
}

/// Whether `path` is an existing regular file named `.json` or `.jsonl` whose first
/// character (after a byte-order mark and blanks) opens a JSON object or array.
pub fn holds_json(path: &Path) -> bool {
    use std::io::Read;
    let named = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json") || e.eq_ignore_ascii_case("jsonl"));
    if !named || !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return false;
    }
    let mut head = Vec::new();
    let Ok(file) = std::fs::File::open(path) else {
        return false;
    };
    if file.take(4096).read_to_end(&mut head).is_err() {
        return false;
    }
    let head = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(&head);
    matches!(
        head.iter().find(|b| !b.is_ascii_whitespace()),
        Some(b'{' | b'[')
    )
}

/// Whether `a` and `b` name the same existing file (through links, `..` or another hard link).
pub fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let (Ok(a), Ok(b)) = (std::fs::metadata(a), std::fs::metadata(b)) {
            return a.dev() == b.dev() && a.ino() == b.ino();
        }
    }
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// Writes `bytes` to `path` so that a failed run never leaves half a file and a planted link
/// never redirects the write.
///
/// A regular file (or a new one) is replaced atomically: the bytes go to a temporary file
/// created under a random name with `O_EXCL` in the destination's directory (so that no file or
/// symbolic link planted there is ever followed), which then replaces the destination; when
/// anything fails the temporary file is removed and the destination is left as it was. A
/// destination that is a symbolic link is followed, as the shell's `>` does: the file it names
/// is replaced and the link stays. A destination that exists and is not a regular file (a pipe,
/// a terminal, a device, `/dev/stdout`) is written in place, never replaced.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    write_with(path, |file| file.write_all(bytes))
}

/// [`write_atomically`] with the bytes written by `write`.
pub fn write_with(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), Error> {
    write_to(path, write, false)
}

/// [`write_with`] to a file that must not exist: a regular file that exists, or that another
/// process creates meanwhile, is left as it is and the write fails naming it.
pub fn write_new(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), Error> {
    write_to(path, write, true)
}

fn write_to(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
    new: bool,
) -> Result<(), Error> {
    let fail = |source| Error::WriteFile {
        path: path.to_owned(),
        source,
    };
    let existing = match std::fs::metadata(path) {
        // A pipe or a device is written in place, as given.
        Ok(meta) if new && meta.is_file() => {
            return Err(fail(std::io::Error::new(
                std::io::ErrorKind::AlreadyExists,
                "it was created by another process meanwhile; left as it is",
            )))
        }
        Ok(meta) => Some(meta),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => None,
        Err(err) => return Err(fail(err)),
    };
    if let Some(meta) = existing.as_ref().filter(|m| !m.is_file() && !m.is_dir()) {
        tracing::debug!(
            "writing {} in place: not a regular file ({:?})",
            path.display(),
            meta.file_type()
        );
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(fail)?;
        return write(&mut file).and_then(|()| file.flush()).map_err(fail);
    }
    let is_link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    let target = if is_link {
        if existing.is_none() {
            return Err(fail(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "it is a symbolic link to a file that does not exist",
            )));
        }
        std::fs::canonicalize(path).map_err(fail)?
    } else {
        path.to_owned()
    };
    let dir = target
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let prefix = format!(
        ".{}.",
        target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    );
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    #[cfg(unix)]
    let mode = {
        use std::os::unix::fs::PermissionsExt;
        let mode = existing
            .as_ref()
            .map_or(0o666, |m| m.permissions().mode() & 0o7777);
        // Created with at most the destination's rights (the umask applies), then given
        // exactly those of a file it replaces.
        builder.permissions(std::fs::Permissions::from_mode(mode));
        mode
    };
    let mut temporary = builder.tempfile_in(dir).map_err(fail)?;
    // Removed on SIGINT or SIGTERM too, until it is renamed.
    let pending = interrupted::pending(temporary.path());
    // On any error below, dropping `temporary` removes it.
    write(temporary.as_file_mut())
        .and_then(|()| temporary.as_file_mut().flush())
        .map_err(fail)?;
    #[cfg(unix)]
    if existing.is_some() {
        use std::os::unix::fs::PermissionsExt;
        temporary
            .as_file()
            .set_permissions(std::fs::Permissions::from_mode(mode))
            .map_err(fail)?;
    }
    // A new file is created only if it still does not exist: of two writes to one new name,
    // the later one fails instead of replacing the other's file.
    let persisted = match existing {
        Some(_) => temporary.persist(&target),
        None => temporary.persist_noclobber(&target),
    };
    drop(pending);
    persisted.map(drop).map_err(|err| match err.error.kind() {
        std::io::ErrorKind::AlreadyExists if existing.is_none() => fail(std::io::Error::new(
            std::io::ErrorKind::AlreadyExists,
            "it was created by another process while this was written; left as it is",
        )),
        _ => fail(err.error),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names in `dir`.
    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn bidi_and_format_characters_are_escaped_so_they_cannot_reorder_a_diagnostic() {
        assert_eq!(
            escape_controls(
                "run\u{202e}nosj.exe \u{2066}a\u{2069} \u{200b}\u{200f}\u{61c}\u{feff}"
            ),
            "run\\u{202E}nosj.exe \\u{2066}a\\u{2069} \\u{200B}\\u{200F}\\u{61C}\\u{FEFF}"
        );
    }

    #[test]
    fn control_characters_but_newline_and_tab_are_escaped() {
        assert_eq!(
            escape_controls("a\tb\nc\x1b]0;title\x07\r\u{9b}2J\x7f é"),
            "a\tb\nc\\x1b]0;title\\x07\\x0d\\x9b2J\\x7f é"
        );
        assert!(matches!(
            escape_controls("plain"),
            std::borrow::Cow::Borrowed("plain")
        ));
    }

    #[test]
    fn a_new_file_created_meanwhile_is_left_as_it_is_and_the_write_fails() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.json");
        let err = write_with(&path, |out| {
            std::fs::write(&path, "theirs")?;
            out.write_all(b"mine")
        })
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("out.json: it was created by another process while this was written"),
            "{err}"
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "theirs");
        assert_eq!(names(dir.path()), ["out.json"], "no temporary file is left");
    }

    /// Run by `a_signal_during_a_write_leaves_no_temporary_file` in a process of its own:
    /// raises the signal it is given while writing.
    #[test]
    #[ignore = "run in a child process by a_signal_during_a_write_leaves_no_temporary_file"]
    fn signalled_while_writing() {
        let (Some(dir), Ok(signal)) = (
            std::env::var_os("PTC_TEST_SIGNAL_DIR"),
            std::env::var("PTC_TEST_SIGNAL"),
        ) else {
            return;
        };
        let signal: i32 = signal.parse().unwrap();
        let path = Path::new(&dir).join("out.json");
        let _ = write_with(&path, |out| {
            out.write_all(b"half")?;
            // SAFETY: raising a signal in this test's own process.
            unsafe { libc::raise(signal) };
            out.write_all(b" and the rest")
        });
        panic!("the signal did not end the process");
    }

    #[cfg(unix)]
    #[test]
    fn a_signal_during_a_write_leaves_no_temporary_file() {
        use std::os::unix::process::{CommandExt, ExitStatusExt};
        for signal in [libc::SIGINT, libc::SIGTERM] {
            let dir = tempfile::tempdir().unwrap();
            let mut command = std::process::Command::new(std::env::current_exe().unwrap());
            // A shell that starts the tests in the background ignores SIGINT, and a child
            // inherits that: the signal's own action is what is tested.
            // SAFETY: only async-signal-safe calls between fork and exec.
            unsafe {
                command.pre_exec(move || {
                    libc::signal(signal, libc::SIG_DFL);
                    Ok(())
                });
            }
            let status = command
                .args([
                    "--ignored",
                    "--exact",
                    "output::tests::signalled_while_writing",
                ])
                .env("PTC_TEST_SIGNAL_DIR", dir.path())
                .env("PTC_TEST_SIGNAL", signal.to_string())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .status()
                .unwrap();
            assert_eq!(status.signal(), Some(signal), "{status:?}");
            assert_eq!(names(dir.path()), Vec::<String>::new(), "signal {signal}");
        }
    }

    #[test]
    fn a_file_that_must_be_new_is_never_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.json");
        std::fs::write(&path, "theirs").unwrap();
        let err = write_new(&path, |out| out.write_all(b"mine"))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("out.json: it was created by another process"),
            "{err}"
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "theirs");
        assert_eq!(names(dir.path()), ["out.json"]);
    }

    #[test]
    fn writes_a_new_file_and_replaces_an_old_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.txt");
        write_atomically(&path, b"one").unwrap();
        write_atomically(&path, b"two").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"two");
        assert_eq!(names(dir.path()), ["out.txt"]);
    }

    #[cfg(unix)]
    #[test]
    fn a_link_planted_at_the_old_temporary_name_is_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "precious").unwrap();
        let planted = dir
            .path()
            .join(format!(".out.txt.{}.tmp", std::process::id()));
        std::os::unix::fs::symlink(&victim, &planted).unwrap();
        let path = dir.path().join("out.txt");
        write_atomically(&path, b"report").unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        assert_eq!(std::fs::read(&path).unwrap(), b"report");
        assert!(std::fs::symlink_metadata(&planted)
            .unwrap()
            .file_type()
            .is_symlink());
    }

    #[test]
    fn a_failed_write_leaves_no_temporary_file_and_the_old_file_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.txt");
        std::fs::write(&path, "old").unwrap();
        let err = write_with(&path, |out| {
            out.write_all(b"half")?;
            Err(std::io::Error::other("disk full"))
        })
        .unwrap_err();
        assert!(err.to_string().contains("disk full"), "{err}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old");
        assert_eq!(names(dir.path()), ["out.txt"]);
    }

    #[test]
    fn a_failed_replace_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("taken");
        std::fs::create_dir(&path).unwrap();
        std::fs::write(path.join("inside"), "kept").unwrap();
        assert!(write_atomically(&path, b"x").is_err());
        assert_eq!(names(dir.path()), ["taken"]);
        assert_eq!(names(&path), ["inside"]);
    }

    #[cfg(unix)]
    #[test]
    fn a_link_destination_is_followed_and_stays_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.txt");
        std::fs::write(&real, "old").unwrap();
        let link = dir.path().join("link.txt");
        std::os::unix::fs::symlink("real.txt", &link).unwrap();
        write_atomically(&link, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "new");
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        std::fs::remove_file(&real).unwrap();
        let err = write_atomically(&link, b"new").unwrap_err().to_string();
        assert!(
            err.contains("symbolic link to a file that does not exist"),
            "{err}"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_replaced_file_keeps_its_mode() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("private");
        std::fs::write(&path, "old").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
        write_atomically(&path, b"new").unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode, 0o640);
    }
}
