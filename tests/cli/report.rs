//! The HTML report of `ptc ab --report` in a real browser: headless Chromium loads the page at
//! a wide and a narrow width, and the page's own self-check (`#selftest-WIDTH`) picks a
//! recording in the side-by-side view and writes what it sees into the DOM that Chromium
//! dumps. Without Chromium the test says why on stdout and passes, unless
//! `PTC_REQUIRE_CHROMIUM` is set (CI sets it).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value as Json;

use crate::support::{all_strategies, bundled};

/// The first Chromium on the PATH (or `PTC_CHROMIUM`).
fn chromium() -> Result<PathBuf, String> {
    if let Some(path) = std::env::var_os("PTC_CHROMIUM") {
        return Ok(PathBuf::from(path));
    }
    let names = [
        "chromium",
        "chromium-browser",
        "google-chrome",
        "google-chrome-stable",
    ];
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .flat_map(|dir| names.iter().map(move |name| dir.join(name)))
        .find(|candidate| candidate.is_file())
        .ok_or_else(|| format!("no Chromium on the PATH (looked for {})", names.join(", ")))
}

/// The DOM of `page#selftest-WIDTH` after its scripts ran, in a window `width` pixels wide.
fn dump_dom(chromium: &Path, page: &Path, width: u32, profile: &Path) -> String {
    let mut child = Command::new(chromium)
        .args([
            "--headless",
            "--disable-gpu",
            "--no-sandbox",
            "--no-first-run",
            "--hide-scrollbars",
            // Below its smallest window, Chromium lays the self-check out in a frame of the
            // width asked, which tells the page holding it only when it can read it: a file
            // can read another file (here, itself) only with this flag.
            "--allow-file-access-from-files",
            &format!("--user-data-dir={}", profile.display()),
            &format!("--window-size={width},900"),
            "--virtual-time-budget=10000",
            "--dump-dom",
            &format!("file://{}#selftest-{width}", page.display()),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromium starts");
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut dom = String::new();
        std::io::Read::read_to_string(&mut stdout, &mut dom).map(|_| dom)
    });
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium did not finish within 120 s at width {width}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    reader.join().unwrap().expect("chromium's output is UTF-8")
}

/// What the page's self-check wrote: the JSON in `<pre id="selftest">`.
fn self_check(dom: &str) -> Json {
    let text = dom
        .rsplit_once(r#"<pre id="selftest">"#)
        .and_then(|(_, rest)| rest.split("</pre>").next())
        .unwrap_or_else(|| panic!("no self-check result in the page:\n{dom:.3000}"));
    let text = text
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&nbsp;", "\u{a0}")
        .replace("&amp;", "&");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

#[test]
fn the_report_fits_wide_and_narrow_windows_and_shows_prompts_side_by_side() {
    let scratch = tempfile::tempdir().unwrap();
    let page = scratch.path().join("report.html");
    let terminal = all_strategies()
        .ptc(["ab", "--no-timing", "--report", page.to_str().unwrap()])
        .ok();
    let html = std::fs::read_to_string(&page).unwrap();
    // The section the terminal ends with is in the page too.
    assert!(terminal.contains("\nReal runs (bundled in examples/realruns"));
    assert!(html.contains("<h2>Real runs</h2>"));
    assert!(
        html.contains("cost: as-billed pricing, baseline as-sent"),
        "the real runs are measured against what their agents sent"
    );
    // The table against the baseline shows the profiles holding a verdict; every profile is
    // one click away.
    let against = html.split("<h2>Against the baseline</h2>").nth(1).unwrap();
    let (first, rest) = against
        .split_once("<details class=\"every-profile\">")
        .unwrap();
    assert!(
        rest.starts_with("<summary>Under every pricing profile ("),
        "{rest}"
    );
    let every = rest.split("</details>").next().unwrap();
    for profile in [
        "<th>anthropic@<wbr>breakpoints=<wbr>auto</th>",
        "<th>qwen-<wbr>explicit</th>",
    ] {
        assert!(every.contains(profile), "{profile}");
    }
    assert!(
        first.contains("<th>anthropic</th>")
            && !first.contains("<th>anthropic@<wbr>breakpoints=<wbr>auto</th>")
    );
    // A measure is shown where there is something to measure: the bundled runs cite too few
    // literals for evidence, which is left out and said so, not eleven bars at 0%.
    let retention = html.split(r#"<figure class="retention">"#).nth(1).unwrap();
    let retention = retention.split("</figure>").next().unwrap();
    assert!(retention.contains(r#"<div class="category-name">symbols</div>"#));
    assert!(
        !retention.contains(r#"<div class="category-name">evidence</div>"#),
        "{retention}"
    );
    assert!(retention.contains(
        "Not shown, nothing to measure on these recordings: evidence (fewer than 5 in the history)."
    ));
    assert!(
        !html.contains(" 0% of the literals"),
        "nor does a verdict say so"
    );
    let chromium = match chromium() {
        Ok(path) => path,
        Err(reason) if std::env::var_os("PTC_REQUIRE_CHROMIUM").is_none() => {
            println!("skipped: {reason}");
            return;
        }
        Err(reason) => panic!("PTC_REQUIRE_CHROMIUM is set and {reason}"),
    };
    for width in [1400, 400] {
        let profile = scratch.path().join(format!("profile-{width}"));
        let dom = dump_dom(&chromium, &page, width, &profile);
        assert!(
            dom.contains("is the cheapest that keeps every symbol, the latest error and 90% of the literals the next action cites"),
            "the verdict is on the page at {width} px"
        );
        let check = self_check(&dom);
        assert_eq!(
            check["width"], width,
            "the page was laid out {width} px wide"
        );
        let scroll = check["scrollWidth"].as_u64().unwrap();
        assert!(
            scroll <= u64::from(width),
            "at {width} px the page is {scroll} px wide: something sticks out: {check}"
        );
        let sections = check["sections"].to_string();
        assert!(sections.contains("Real runs"), "{check}");
        // At 1,400 px no table scrolls; on a phone the wide ones scroll in their own box.
        if width >= 1400 {
            assert_eq!(check["cut"], serde_json::json!([]), "{check}");
        }
        // The charts are drawn at 80% of their size or more: their labels stay readable, and
        // on a phone the chart scrolls sideways instead.
        let scale = check["chartScale"].as_f64().unwrap();
        assert!(
            scale >= 0.8,
            "the charts are drawn at {scale} at {width} px"
        );
        assert!(
            check["verdicts"]
                .as_str()
                .unwrap()
                .contains("anthropic: delta-log with breakpoints=strategy"),
            "{check}"
        );
        // The self-check picked the last recording and its last prompt.
        let (recordings, _) = bundled();
        assert!(recordings > 1);
        let left = check["left"].as_str().unwrap();
        assert!(
            left.starts_with("=== system ===You complete the user's mission"),
            "the left prompt is shown: {check}"
        );
        assert!(check["lines"].as_u64().unwrap() > 20, "{check}");
        assert!(
            check["only"].as_u64().unwrap() > 0,
            "full-history and delta-log differ before the last turn: {check}"
        );
    }
}

/// The page holds the prompts of the first 50 recordings and says how many it left out.
#[test]
fn the_report_holds_the_prompts_of_the_first_recordings_only() {
    let scratch = crate::support::Scratch::with_plugins(&["ptc-strategy-full-history"]);
    let recording = std::fs::read(crate::support::example("tool-actions.json")).unwrap();
    for i in 0..52 {
        scratch.write(&format!("runs/{i:02}.json"), &recording);
    }
    let page = scratch.path().join("many.html");
    scratch
        .ptc([
            "ab",
            "runs",
            "--no-timing",
            "--report",
            page.to_str().unwrap(),
        ])
        .ok();
    let html = std::fs::read_to_string(&page).unwrap();
    let data: Json = serde_json::from_str(
        html.split(r#"<script type="application/json" id="prompt-data">"#)
            .nth(1)
            .and_then(|rest| rest.split("</script>").next())
            .unwrap(),
    )
    .unwrap();
    let names: Vec<&str> = data["recordings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 50);
    assert!(
        names[0].ends_with("00.json") && names[49].ends_with("49.json"),
        "{names:?}"
    );
    assert_eq!(data["left_out"], 2);
    assert!(
        html.contains("The prompts of 50 of the 52 recording(s) measured: the page holds the prompts of at most the first 50 recordings and 8 MiB of distinct lines."),
        "the page says so"
    );
}

#[test]
fn the_self_check_tells_nothing_to_a_page_of_another_origin_that_frames_the_report() {
    let chromium = match chromium() {
        Ok(path) => path,
        Err(reason) if std::env::var_os("PTC_REQUIRE_CHROMIUM").is_none() => {
            println!("skipped: {reason}");
            return;
        }
        Err(reason) => panic!("PTC_REQUIRE_CHROMIUM is set and {reason}"),
    };
    let scratch = tempfile::tempdir().unwrap();
    let page = scratch.path().join("report.html");
    all_strategies()
        .ptc(["ab", "--no-timing", "--report", page.to_str().unwrap()])
        .ok();
    // Another page (here another file) frames the report with the self-check's address and
    // listens for what it posts.
    let framing = scratch.path().join("framing.html");
    std::fs::write(
        &framing,
        r#"<!DOCTYPE html><html><body><pre id="got">nothing</pre>
<script>
window.addEventListener('message', function (e) {
  document.getElementById('got').textContent = 'received ' + String(e.data).slice(0, 200);
});
</script>
<iframe src="report.html#selftest-300" style="width:300px;height:600px"></iframe>
</body></html>"#,
    )
    .unwrap();
    let profile = scratch.path().join("profile");
    let dom = dump_dom(&chromium, &framing, 1000, &profile);
    assert!(
        dom.contains(r#"<pre id="got">nothing</pre>"#),
        "the framing page got the self-check: {dom:.2000}"
    );
    assert!(dom.contains("<iframe"), "{dom:.2000}");
}
