//! Running the built `ptc` binary against the real strategy dylibs in a scratch directory.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{LazyLock, OnceLock};

use serde_json::Value as Json;

/// The strategy dylibs `cargo test` built next to this test binary.
pub fn built_plugin(crate_name: &str) -> PathBuf {
    let deps = std::env::current_exe()
        .expect("test binary path")
        .parent()
        .expect("deps directory")
        .to_owned();
    let file = format!(
        "{}{}{}",
        std::env::consts::DLL_PREFIX,
        crate_name.replace('-', "_"),
        std::env::consts::DLL_SUFFIX
    );
    let path = deps.join(&file);
    assert!(
        path.is_file(),
        "{} was not built next to the tests",
        path.display()
    );
    path
}

pub const SUC: &str = "ptc-strategy-single-user-coalesced";
pub const TURN_COUNT: &str = "ptc-strategy-turn-count";

/// Every bundled strategy: (name, crate), in name order. A strategy is a folder of `plugins/`
/// whose crate is a `cdylib`; its name is the folder's and its crate `ptc-strategy-<name>`.
pub static STRATEGIES: LazyLock<Vec<(&'static str, &'static str)>> = LazyLock::new(|| {
    let mut found: Vec<(&'static str, &'static str)> = std::fs::read_dir(repo().join("plugins"))
        .expect("the plugins folder")
        .filter_map(Result::ok)
        .filter(|entry| {
            std::fs::read_to_string(entry.path().join("Cargo.toml"))
                .is_ok_and(|manifest| manifest.contains("\"cdylib\""))
        })
        .map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            let krate = format!("ptc-strategy-{name}");
            (&*name.leak(), &*krate.leak())
        })
        .collect();
    found.sort_unstable();
    assert!(
        found.iter().any(|(_, krate)| *krate == SUC),
        "plugins/ holds the default strategy"
    );
    found
});

/// The bundled example recordings, by file name.
pub const EXAMPLES: &[&str] = &[
    "data-exploration.json",
    "tool-actions.json",
    "failure-recovery.json",
    "final-turn.json",
    "single-shot.json",
];

/// The repository root.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_owned()
}

/// A bundled example recording.
pub fn example(name: &str) -> PathBuf {
    repo().join("examples/recordings").join(name)
}

/// What a `ptc` run did.
#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// The run succeeded; its stdout.
    pub fn ok(self) -> String {
        assert_eq!(self.code, 0, "ptc failed:\n{}", self.stderr);
        self.stdout
    }

    /// The run failed with exit code 2 and wrote nothing to stdout; its error line (warnings
    /// may come before it).
    pub fn bad_input(self) -> String {
        assert_eq!(
            self.code, 2,
            "expected exit 2, got {}:\n{}\n{}",
            self.code, self.stdout, self.stderr
        );
        assert_eq!(self.stdout, "", "nothing may be written on error");
        assert!(!self.stderr.contains("panicked"), "{}", self.stderr);
        let errors: Vec<&str> = self
            .stderr
            .lines()
            .filter(|l| !l.starts_with("warning: "))
            .collect();
        assert_eq!(errors.len(), 1, "one error line:\n{}", self.stderr);
        assert!(errors[0].starts_with("error: "), "{}", self.stderr);
        errors[0].to_owned()
    }

    /// The run was refused as a usage error (clap's own, exit 2, nothing on stdout); its stderr.
    pub fn run_failed(self) -> String {
        assert_eq!(self.code, 2, "expected exit 2:\n{}", self.stderr);
        assert_eq!(self.stdout, "", "nothing may be written on error");
        self.stderr
    }

    pub fn json(self) -> Json {
        serde_json::from_str(&self.ok()).expect("JSON output")
    }
}

/// A scratch working directory with a plugin directory and a `ptc.toml` pointing at it.
pub struct Scratch {
    pub dir: tempfile::TempDir,
}

impl Scratch {
    /// Both test strategies installed.
    pub fn new() -> Scratch {
        Scratch::with_plugins(&[SUC, TURN_COUNT])
    }

    pub fn with_plugins(crates: &[&str]) -> Scratch {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::create_dir(dir.path().join("plugins")).unwrap();
        // Whatever the umask: ptc refuses plugins that other users could write.
        set_mode(&dir.path().join("plugins"), 0o755);
        let scratch = Scratch { dir };
        for name in crates {
            scratch.install(name);
        }
        scratch.write(
            "ptc.toml",
            "[plugins]\ndirectories = [\"plugins\"]\nnext_to_executable = false\n",
        );
        scratch
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn plugins(&self) -> PathBuf {
        self.path().join("plugins")
    }

    /// Copies a built strategy into the plugin directory.
    pub fn install(&self, crate_name: &str) -> PathBuf {
        self.install_in(&self.plugins(), crate_name)
    }

    /// Copies a built strategy into `dir`, writable by its owner only (as ptc requires).
    pub fn install_in(&self, dir: &Path, crate_name: &str) -> PathBuf {
        let from = built_plugin(crate_name);
        let to = dir.join(from.file_name().unwrap());
        std::fs::copy(&from, &to).unwrap();
        set_mode(&to, 0o755);
        to
    }

    /// Writes a file (creating directories) under the scratch directory.
    pub fn write(&self, relative: &str, contents: impl AsRef<[u8]>) -> PathBuf {
        let path = self.path().join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, contents).unwrap();
        path
    }

    /// Runs `ptc ARGS` in the scratch directory.
    pub fn ptc<I, S>(&self, args: I) -> Run
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        self.run(ptc_command(self.path()).args(args))
    }

    /// Runs a command made with [`ptc_command`].
    pub fn run(&self, command: &mut Command) -> Run {
        let output = command.output().expect("ptc runs");
        Run {
            code: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8(output.stdout).expect("UTF-8 stdout"),
            stderr: String::from_utf8(output.stderr).expect("UTF-8 stderr"),
        }
    }

    /// The user plugin directory of the commands run here (it does not exist until made).
    pub fn user_plugins(&self) -> PathBuf {
        user_plugins(self.path())
    }

    /// `ptc render FILE --format json --turns K EXTRA...` -> the JSON.
    pub fn render_json(&self, recording: &Path, turns: usize, extra: &[&str]) -> Json {
        let mut args = vec![
            "render".to_string(),
            recording.display().to_string(),
            "--format".into(),
            "json".into(),
            "--turns".into(),
            turns.to_string(),
        ];
        args.extend(extra.iter().map(|s| s.to_string()));
        self.ptc(args).json()
    }

    /// Writes `json` as a recording and renders the prompt after all its turns; returns the
    /// content of each message.
    pub fn render_messages(&self, json: &Json, extra: &[&str]) -> Vec<(String, String)> {
        // Tests share a scratch directory and run in parallel: every recording gets its own file.
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let name = format!("recording-{}.json", NEXT.fetch_add(1, Ordering::Relaxed));
        let path = self.write(&name, serde_json::to_vec_pretty(json).unwrap());
        let turns = json["turns"].as_array().map_or(0, Vec::len);
        messages(&self.render_json(&path, turns, extra))
    }

    /// The user message rendered from `json` after all its turns.
    pub fn user_message(&self, json: &Json, extra: &[&str]) -> String {
        let messages = self.render_messages(json, extra);
        assert_eq!(messages.len(), 2, "{messages:?}");
        assert_eq!(messages[0].0, "system");
        assert_eq!(messages[1].0, "user");
        messages[1].1.clone()
    }
}

/// `ptc`, run in `dir` with a home and a data directory of its own under `dir` (so that no
/// plugin the user installed is loaded), no colour and no log filter.
pub fn ptc_command(dir: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_ptc"));
    isolate(&mut command, dir);
    command.current_dir(dir);
    command
}

/// Gives `command` (`ptc`, or a program that runs it) the home `DIR/home` and the data
/// directory `DIR/data`, no colour, no log filter and no thread setting of the environment
/// the tests run in (a test that wants one sets it).
pub fn isolate(command: &mut Command, dir: &Path) {
    command
        .env("HOME", dir.join("home"))
        .env("XDG_DATA_HOME", dir.join("data"))
        .env_remove("RUST_LOG")
        .env_remove("PTC_THREADS")
        .env_remove("SLURM_CPUS_PER_TASK")
        .env_remove("RAYON_NUM_THREADS")
        .env("NO_COLOR", "1");
}

/// The user plugin directory of commands isolated in `dir`.
pub fn user_plugins(dir: &Path) -> PathBuf {
    dir.join("data/ptc/plugins")
}

/// A host in this process with every bundled strategy loaded from its dylib, the compiled-in
/// templates and the given `--set` flags.
pub fn in_process_host(sets: &[&str]) -> ptc::Host {
    let mut config = ptc::Config::defaults();
    config
        .layer_set("templates.directory=\"/nonexistent/ptc-templates\"")
        .unwrap();
    for set in sets {
        config.layer_set(set).unwrap();
    }
    let strategies = STRATEGIES
        .iter()
        .map(|(_, krate)| ptc::LoadedStrategy::load(&built_plugin(krate)).unwrap())
        .collect();
    ptc::Host::with_strategies(config, strategies)
}

/// The strategy names of a `ptc strategies --format json` listing, in its order.
pub fn strategy_names(list: &Json) -> Vec<&str> {
    list.as_array()
        .expect("a JSON array of strategies")
        .iter()
        .map(|s| s["name"].as_str().expect("a strategy name"))
        .collect()
}

/// Sets the permission bits of `path` (on Unix; elsewhere nothing).
pub fn set_mode(path: &Path, mode: u32) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    }
    #[cfg(not(unix))]
    let _ = (path, mode);
}

/// (role, content) of every message of a render.
pub fn messages(render: &Json) -> Vec<(String, String)> {
    render["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .map(|m| {
            (
                m["role"].as_str().unwrap().to_owned(),
                m["content"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// One scratch directory shared by the tests that only read from it (the default strategy and
/// the test strategy installed).
pub fn shared() -> &'static Scratch {
    static SHARED: OnceLock<Scratch> = OnceLock::new();
    SHARED.get_or_init(Scratch::new)
}

/// A shared scratch directory with every bundled strategy installed.
pub fn all_strategies() -> &'static Scratch {
    static ALL: OnceLock<Scratch> = OnceLock::new();
    ALL.get_or_init(|| {
        let crates: Vec<&str> = STRATEGIES.iter().map(|(_, c)| *c).collect();
        Scratch::with_plugins(&crates)
    })
}

/// The messages after the system prompt, each under `=== role ===`, then the statistics: the
/// form of the snapshots and of the README examples.
pub fn conversation(render: &Json) -> String {
    let mut text = String::new();
    for (role, content) in messages(render).into_iter().skip(1) {
        text.push_str(&format!("=== {role} ===\n{content}\n\n"));
    }
    text.push_str(&format!(
        "=== stats ===\n{}\n",
        serde_json::to_string_pretty(&render["stats"]).unwrap()
    ));
    text
}

/// (recordings, prompts) of the bundled corpus `ptc ab` runs on without arguments: one prompt
/// per recorded turn.
pub fn bundled() -> (usize, usize) {
    let prompts = ptc::examples::EXAMPLES
        .iter()
        .map(|(_, json)| {
            let json: Json = serde_json::from_str(json).unwrap();
            json["turns"].as_array().map_or(0, Vec::len)
        })
        .sum();
    (ptc::examples::EXAMPLES.len(), prompts)
}

/// A Python that has `packages`: `python3` with them installed from the registry into `dir`,
/// in a venv (or, where python3 has no venv module, `pip install --target` and PYTHONPATH).
/// `Err` says why there is none.
pub fn python_with(dir: &Path, packages: &[&str]) -> Result<Command, String> {
    let run = |command: &mut Command, what: &str| match command.output() {
        Err(e) => Err(format!("{what} does not run: {e}")),
        Ok(out) if out.status.success() => Ok(()),
        Ok(out) => Err(format!(
            "{what} failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )),
    };
    let pip_install = [
        "-m",
        "pip",
        "install",
        "--quiet",
        "--disable-pip-version-check",
        "--timeout",
        "20",
        "--retries",
        "1",
    ];
    let venv = dir.join("venv");
    let python = if run(
        Command::new("python3").args(["-m", "venv"]).arg(&venv),
        "python3 -m venv",
    )
    .is_ok()
    {
        let python = venv.join("bin/python");
        run(
            Command::new(&python).args(pip_install).args(packages),
            "pip install (in a venv)",
        )?;
        Command::new(python)
    } else {
        let site = dir.join("site-packages");
        run(
            Command::new("python3")
                .args(pip_install)
                .arg("--target")
                .arg(&site)
                .args(packages),
            "python3 -m pip install --target",
        )?;
        let mut python = Command::new("python3");
        python.env("PYTHONPATH", site);
        python
    };
    Ok(python)
}

/// The peak resident memory, in KiB, of `command` run to its end, read from the kernel's
/// account of that one child (`wait4`), with its exit code.
#[cfg(target_os = "linux")]
pub fn peak_rss_kib(command: &mut std::process::Command) -> (i64, i32) {
    let child = command
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: an all-zero rusage is valid, and the child is ours and not waited for yet.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(waited, pid, "wait4: {}", std::io::Error::last_os_error());
    // Reaped by wait4: `child` must not be waited for again.
    std::mem::forget(child);
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        -1
    };
    (usage.ru_maxrss, code)
}

/// The corpus generator built by `cargo test` (the `generate_corpus` example).
pub fn generator() -> PathBuf {
    std::env::current_exe()
        .unwrap()
        .parent()
        .and_then(|deps| deps.parent())
        .unwrap()
        .join("examples")
        .join(format!("generate_corpus{}", std::env::consts::EXE_SUFFIX))
}

/// A run of `turns` short turns whose requests each send the previous one's messages again,
/// then an assistant and a user message: request k sends 2k + 1 messages, the file holds 2
/// per turn. Each turn carries billed usage, so `ptc bill` compares every call.
pub fn appending_run(turns: usize) -> serde_json::Value {
    let turns: Vec<serde_json::Value> = (0..turns)
        .map(|k| {
            let request = if k == 0 {
                serde_json::json!({"model": "m", "messages": [{"role": "user", "content": "start"}]})
            } else {
                serde_json::json!({"model": "m", "repeats": 2 * k - 1, "messages": [
                    {"role": "assistant", "content": format!("a{k}")},
                    {"role": "user", "content": format!("u{k}")}]})
            };
            serde_json::json!({"number": k + 1, "success": true, "raw_response": format!("r{k}"),
                "request": request,
                "usage": {"input": 10 + k, "output": 1, "provider": "anthropic",
                    "model": "claude-sonnet-4-5"}})
        })
        .collect();
    serde_json::json!({"mission": "m", "max_turns": turns.len(), "turns": turns})
}
