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

/// `bash deploy/slurm/ab.sbatch` as an array task of `count` tasks, run by hand: the
/// environment Slurm gives it, without `SLURM_ARRAY_TASK_ID` (the caller sets it).
fn sbatch(scratch: &Scratch, corpus: &Path, count: usize) -> Command {
    let mut command = Command::new("bash");
    command
        .arg(repo().join("deploy/slurm/ab.sbatch"))
        .env("PTC", env!("CARGO_BIN_EXE_ptc"))
        .env("PTC_CORPUS", corpus)
        .env("PTC_PARTS", scratch.path().join("slurm/parts"))
        .env("PTC_RESULTS", scratch.path().join("slurm/results"))
        .env("PTC_AB_ARGS", ARGS)
        .env("SLURM_ARRAY_TASK_COUNT", count.to_string())
        .env_remove("SLURM_ARRAY_TASK_ID")
        .env_remove("SLURM_ARRAY_TASK_MIN")
        .env_remove("SLURM_ARRAY_TASK_MAX")
        .env_remove("PTC_SHARDS");
    command
}

/// The files in `dir`, sorted.
fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Runs `command` in `dir`, which must fail; its stderr.
fn fails(command: &mut Command, dir: &Path) -> String {
    let output = command
        .current_dir(dir)
        .env_remove("RUST_LOG")
        .output()
        .expect("bash runs");
    assert!(!output.status.success(), "{command:?} succeeded");
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn the_slurm_array_script_runs_each_shard_then_the_merge_as_one_run() {
    let scratch = Scratch::new();
    let results = scratch.path().join("slurm/results");
    let sbatch = || sbatch(&scratch, &corpus(), 4);
    for index in 0..4 {
        succeeds(
            sbatch().env("SLURM_ARRAY_TASK_ID", index.to_string()),
            scratch.path(),
        );
    }
    assert_eq!(
        names_in(&scratch.path().join("slurm/parts")),
        [
            "SHARDS",
            "part-0.json",
            "part-1.json",
            "part-2.json",
            "part-3.json"
        ]
    );
    let table = succeeds(sbatch().arg("merge"), scratch.path());
    assert!(table.contains("35 recording(s)"), "{table}");
    let merged = std::fs::read_to_string(results.join("ab.json")).unwrap();
    assert!(merged == one_run(&scratch, &corpus()), "the merge differs");
    let html = std::fs::read_to_string(results.join("ab.html")).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"), "{}", &html[..100]);

    // Outside an array job the script says what it needs.
    let stderr = fails(&mut sbatch(), scratch.path());
    assert!(stderr.contains("run as an array job"), "{stderr}");
}

#[test]
fn a_retried_slurm_task_needs_the_number_of_shards_and_fails_without_leaving_a_part() {
    let scratch = Scratch::new();
    let parts = scratch.path().join("slurm/parts");
    for index in [0, 1, 3] {
        succeeds(
            sbatch(&scratch, &corpus(), 4).env("SLURM_ARRAY_TASK_ID", index.to_string()),
            scratch.path(),
        );
    }
    // `sbatch --array=2`: an array of one task, 2 .. 2, which gives no number of shards.
    let retry = || {
        let mut command = sbatch(&scratch, &corpus(), 1);
        command
            .env("SLURM_ARRAY_TASK_ID", "2")
            .env("SLURM_ARRAY_TASK_MIN", "2")
            .env("SLURM_ARRAY_TASK_MAX", "2");
        command
    };
    let stderr = fails(&mut retry(), scratch.path());
    assert!(stderr.contains("set PTC_SHARDS"), "{stderr}");
    // `sbatch --array=0` looks like an array of one shard: the parts there say otherwise.
    let stderr = fails(
        sbatch(&scratch, &corpus(), 1)
            .env("SLURM_ARRAY_TASK_ID", "0")
            .env("SLURM_ARRAY_TASK_MIN", "0")
            .env("SLURM_ARRAY_TASK_MAX", "0"),
        scratch.path(),
    );
    assert!(stderr.contains("are of 4 shards"), "{stderr}");
    // A shard that fails leaves no part, not even a temporary one.
    let stderr = fails(
        retry()
            .env("PTC_SHARDS", "4")
            .env("PTC_AB_ARGS", "--no-such-option"),
        scratch.path(),
    );
    assert!(stderr.contains("--no-such-option"), "{stderr}");
    assert_eq!(
        names_in(&parts),
        ["SHARDS", "part-0.json", "part-1.json", "part-3.json"]
    );
    succeeds(retry().env("PTC_SHARDS", "4"), scratch.path());
    succeeds(sbatch(&scratch, &corpus(), 4).arg("merge"), scratch.path());
    let merged = std::fs::read_to_string(scratch.path().join("slurm/results/ab.json")).unwrap();
    assert!(merged == one_run(&scratch, &corpus()), "the merge differs");
}

#[test]
fn a_shard_that_cannot_see_the_corpus_fails_and_a_failed_merge_keeps_the_results() {
    let scratch = Scratch::new();
    let missing = scratch.path().join("not-mounted");
    // A previous run's parts, which the failed tasks below must not leave behind.
    for index in 0..2 {
        succeeds(
            sbatch(&scratch, &corpus(), 2).env("SLURM_ARRAY_TASK_ID", index.to_string()),
            scratch.path(),
        );
    }
    assert_eq!(
        names_in(&scratch.path().join("slurm/parts")),
        ["SHARDS", "part-0.json", "part-1.json"]
    );
    for index in 0..2 {
        let stderr = fails(
            sbatch(&scratch, &missing, 2).env("SLURM_ARRAY_TASK_ID", index.to_string()),
            scratch.path(),
        );
        assert!(stderr.contains("cannot read"), "{stderr}");
        assert!(stderr.contains("not-mounted"), "{stderr}");
    }
    assert_eq!(names_in(&scratch.path().join("slurm/parts")), ["SHARDS"]);
    // The merge of no part fails and leaves the results of a previous run as they were.
    let results = scratch.path().join("slurm/results");
    std::fs::create_dir_all(&results).unwrap();
    std::fs::write(results.join("ab.json"), "previous").unwrap();
    fails(sbatch(&scratch, &missing, 2).arg("merge"), scratch.path());
    assert_eq!(
        std::fs::read_to_string(results.join("ab.json")).unwrap(),
        "previous"
    );
    assert_eq!(names_in(&results), ["ab.json"]);

    // A shard none of whose recordings can be read fails too.
    let broken = scratch.write("broken/a.json", "{");
    let run = scratch.ptc([
        "ab",
        broken.parent().unwrap().to_str().unwrap(),
        "--strategies",
        "turn-count",
        "--set",
        "ab.baseline=turn-count",
        "--shard",
        "0/1",
        "--format",
        "partial",
    ]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("shard 0/1: none of its 1 recording(s) could be read"),
        "{}",
        run.stderr
    );
}

#[test]
fn ptc_uses_the_cpus_slurm_allocated() {
    let scratch = Scratch::new();
    let threads = |vars: &[(&str, &str)]| {
        let mut command = crate::support::ptc_command(scratch.path());
        command
            .args(["-v", "ab"])
            .args(ARGS.split(' '))
            .env_remove("PTC_THREADS")
            .env_remove("SLURM_CPUS_PER_TASK")
            .env_remove("RAYON_NUM_THREADS");
        for (name, value) in vars {
            command.env(name, value);
        }
        let run = scratch.run(&mut command);
        assert_eq!(run.code, 0, "{}", run.stderr);
        run.stderr
            .lines()
            .find(|l| l.contains("thread(s) (from") || l.contains("thread(s): "))
            .unwrap_or_else(|| panic!("no thread count logged:\n{}", run.stderr))
            .to_owned()
    };
    let line = threads(&[("SLURM_CPUS_PER_TASK", "1")]);
    assert!(
        line.ends_with("1 thread(s) (from SLURM_CPUS_PER_TASK)"),
        "{line}"
    );
    // PTC_THREADS comes first; beyond the CPUs there are, it is lowered to them, and said so.
    let line = threads(&[("SLURM_CPUS_PER_TASK", "1"), ("PTC_THREADS", "3")]);
    let cpus = std::thread::available_parallelism().map_or(1, usize::from);
    if cpus >= 3 {
        assert!(line.ends_with("3 thread(s) (from PTC_THREADS)"), "{line}");
    } else {
        assert!(
            line.ends_with(&format!(
                "{cpus} thread(s): PTC_THREADS asks for 3, more than the {cpus} CPU(s) available"
            )),
            "{line}"
        );
    }
    let line = threads(&[]);
    assert!(
        line.contains("(from the CPUs available to the process)"),
        "{line}"
    );
    let mut command = crate::support::ptc_command(scratch.path());
    command.args(["strategies"]).env("PTC_THREADS", "none");
    let error = scratch.run(&mut command).bad_input();
    assert!(error.contains("PTC_THREADS"), "{error}");
}

/// `sbatch --wait ARGS`, run in `dir` with the script's settings; whether the job succeeded.
/// A job still there after three minutes is cancelled and fails the test (a job that pends
/// for ever would hang it).
fn sbatch_wait(scratch: &Scratch, args: &[&str], shards: Option<&str>) -> bool {
    let mut command = Command::new("sbatch");
    command
        .arg("--wait")
        .arg("--job-name=ptc-ab-test")
        .arg("--cpus-per-task=1")
        .args(args)
        .current_dir(scratch.path())
        .env("PTC", env!("CARGO_BIN_EXE_ptc"))
        .env("PTC_CORPUS", corpus())
        .env("PTC_PARTS", scratch.path().join("slurm/parts"))
        .env("PTC_RESULTS", scratch.path().join("slurm/results"))
        .env("PTC_AB_ARGS", ARGS)
        .env_remove("PTC_SHARDS")
        .env_remove("RUST_LOG")
        .env("NO_COLOR", "1");
    if let Some(shards) = shards {
        command.env("PTC_SHARDS", shards);
    }
    let mut child = command.spawn().expect("sbatch runs");
    let start = std::time::Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status.success();
        }
        if start.elapsed() > std::time::Duration::from_secs(180) {
            let _ = child.kill();
            let _ = Command::new("scancel").arg("--name=ptc-ab-test").status();
            panic!("the Slurm job did not end within three minutes (pending? see squeue)");
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
}

/// The script on a real Slurm, when this machine has one (`sbatch` on the PATH and a
/// controller `sinfo` reaches): four array tasks, one of them run again on its own as a failed
/// task is retried, then the merge as a job: what one run gives.
#[test]
fn the_slurm_array_script_runs_on_a_real_slurm_with_a_retried_task() {
    let up = Command::new("sinfo")
        .args(["--noheader", "--format=%a"])
        .output()
        .map(|o| o.status.success() && String::from_utf8_lossy(&o.stdout).contains("up"));
    if !matches!(up, Ok(true)) {
        println!("skipped: no Slurm here (sinfo does not reach a controller with a partition up)");
        return;
    }
    let scratch = Scratch::new();
    let script = repo().join("deploy/slurm/ab.sbatch");
    let script = script.to_str().unwrap();
    assert!(sbatch_wait(&scratch, &["--array=0-3", script], None));
    let parts = scratch.path().join("slurm/parts");
    assert_eq!(
        names_in(&parts),
        [
            "SHARDS",
            "part-0.json",
            "part-1.json",
            "part-2.json",
            "part-3.json"
        ]
    );
    // Task 2 failed: it is run again alone, which needs the number of shards.
    std::fs::remove_file(parts.join("part-2.json")).unwrap();
    assert!(!sbatch_wait(&scratch, &["--array=2", script], None));
    assert!(!parts.join("part-2.json").exists());
    assert!(sbatch_wait(&scratch, &["--array=2", script], Some("4")));
    let merge = format!("bash '{script}' merge");
    assert!(sbatch_wait(
        &scratch,
        &["--output=merge.log", "--wrap", &merge],
        None
    ));
    let merged = std::fs::read_to_string(scratch.path().join("slurm/results/ab.json")).unwrap();
    assert!(merged == one_run(&scratch, &corpus()), "the merge differs");
    let log = std::fs::read_to_string(scratch.path().join("merge.log")).unwrap();
    assert!(log.contains("35 recording(s)"), "{log}");
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
