//! The job definitions of `deploy/`: the Slurm array script and the Kubernetes Jobs' shell
//! steps run here as plain processes, one per shard and then the merge, and give what one run
//! gives; the Kubernetes manifest is validated offline against the API schemas.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value as Json;

use crate::support::{python_with, repo, Scratch};

/// The settings both the split run and the one run use.
const ARGS: &str = "--strategies turn-count --set ab.baseline=turn-count --no-timing";

/// `ptc ab CORPUS ARGS --format json`: what the merge must give.
fn one_run(scratch: &Scratch, corpus: &Path) -> String {
    let mut args = vec!["ab".to_string(), corpus.display().to_string()];
    args.extend(ARGS.split(' ').map(str::to_owned));
    args.extend(["--format".into(), "json".into()]);
    scratch.ptc(args).ok()
}

fn corpus() -> PathBuf {
    repo().join("examples/recordings")
}

/// Runs `command` in `dir`; its stdout, or a panic with its stderr.
fn succeeds(command: &mut Command, dir: &Path) -> String {
    let output = command
        .current_dir(dir)
        .env_remove("RUST_LOG")
        .env("NO_COLOR", "1")
        .output()
        .expect("the shell runs");
    assert!(
        output.status.success(),
        "{command:?} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn the_slurm_array_script_runs_each_shard_then_the_merge_as_one_run() {
    let scratch = Scratch::new();
    let script = repo().join("deploy/slurm/ab.sbatch");
    let (parts, results) = (
        scratch.path().join("slurm/parts"),
        scratch.path().join("slurm/results"),
    );
    let sbatch = || {
        let mut command = Command::new("bash");
        command
            .arg(&script)
            .env("PTC", env!("CARGO_BIN_EXE_ptc"))
            .env("PTC_CORPUS", corpus())
            .env("PTC_PARTS", &parts)
            .env("PTC_RESULTS", &results)
            .env("PTC_AB_ARGS", ARGS)
            .env("SLURM_ARRAY_TASK_COUNT", "4")
            .env_remove("SLURM_ARRAY_TASK_ID")
            .env_remove("PTC_SHARDS");
        command
    };
    for index in 0..4 {
        succeeds(
            sbatch().env("SLURM_ARRAY_TASK_ID", index.to_string()),
            scratch.path(),
        );
    }
    let mut names: Vec<String> = std::fs::read_dir(&parts)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["part-0.json", "part-1.json", "part-2.json", "part-3.json"]
    );
    let table = succeeds(sbatch().arg("merge"), scratch.path());
    assert!(table.contains("35 recording(s)"), "{table}");
    let merged = std::fs::read_to_string(results.join("ab.json")).unwrap();
    assert!(merged == one_run(&scratch, &corpus()), "the merge differs");
    let html = std::fs::read_to_string(results.join("ab.html")).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"), "{}", &html[..100]);

    // Outside an array job the script says what it needs.
    let output = sbatch()
        .current_dir(scratch.path())
        .output()
        .expect("bash runs");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("run as an array job"), "{stderr}");
}

/// Validates the manifest with `tests/cli/k8s_check.py` (kubernetes-validate from the registry,
/// in a venv of the test's own) and returns what it prints: the containers' scripts. Without
/// python3 or the registry the test says why and passes, unless `PTC_REQUIRE_SDK_CHECK` is set
/// (CI sets it).
fn checked_manifest(dir: &Path) -> Option<Json> {
    let mut python = match python_with(dir, &["kubernetes-validate"]) {
        Ok(python) => python,
        Err(reason) if std::env::var_os("PTC_REQUIRE_SDK_CHECK").is_none() => {
            println!("skipped: {reason}");
            return None;
        }
        Err(reason) => panic!("PTC_REQUIRE_SDK_CHECK is set and {reason}"),
    };
    let output = python
        .arg(repo().join("tests/cli/k8s_check.py"))
        .arg(repo().join("deploy/kubernetes/ab-job.yaml"))
        .output()
        .expect("python runs");
    assert!(
        output.status.success(),
        "the manifest does not pass:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    Some(serde_json::from_slice(&output.stdout).expect("the check's JSON"))
}

#[test]
fn the_kubernetes_jobs_are_valid_and_their_steps_give_one_run() {
    let scratch = Scratch::new();
    let Some(manifest) = checked_manifest(scratch.path()) else {
        return;
    };
    assert_eq!(manifest["resources"], 3);
    // `ptc` on the PATH, as in the image.
    let bin = scratch.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_ptc"), bin.join("ptc")).unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let (parts, results) = (
        scratch.path().join("work/parts"),
        scratch.path().join("work/results"),
    );
    // A container's script with its environment, the volumes' paths replaced by local ones.
    let step = |name: &str| {
        let container = &manifest[name];
        let mut command = Command::new("sh");
        command.arg("-c").arg(container["script"].as_str().unwrap());
        for (key, value) in container["env"].as_object().unwrap() {
            command.env(key, value.as_str().unwrap());
        }
        command
            .env("PATH", &path)
            .env("PTC_CORPUS", corpus())
            .env("PTC_PARTS", &parts)
            .env("PTC_RESULTS", &results)
            .env("PTC_AB_ARGS", ARGS);
        command
    };
    let shards: usize = manifest["shard"]["env"]["SHARDS"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    for index in 0..shards {
        succeeds(
            step("shard").env("JOB_COMPLETION_INDEX", index.to_string()),
            scratch.path(),
        );
    }
    // Every part is there: the wait ends at once.
    succeeds(&mut step("wait"), scratch.path());
    let table = succeeds(&mut step("merge"), scratch.path());
    assert!(table.contains("35 recording(s)"), "{table}");
    let merged = std::fs::read_to_string(results.join("ab.json")).unwrap();
    assert!(merged == one_run(&scratch, &corpus()), "the merge differs");
    assert!(results.join("ab.html").is_file());
}

#[test]
fn the_kubernetes_jobs_pin_the_image_of_this_version() {
    let manifest = std::fs::read_to_string(repo().join("deploy/kubernetes/ab-job.yaml")).unwrap();
    let images: Vec<&str> = manifest
        .lines()
        .filter_map(|line| line.trim().strip_prefix("image:"))
        .map(str::trim)
        .collect();
    assert!(!images.is_empty(), "the manifest names its image");
    let expected = format!("ptc:{}", env!("CARGO_PKG_VERSION"));
    for image in images {
        assert_eq!(
            image, expected,
            "deploy/kubernetes/ab-job.yaml pins another version than the workspace's"
        );
    }
}
