//! End to end: the HTML report of a `cargo bench` run, opened in headless
//! Chromium (tests/browser/check.mjs). CI installs Chromium and the checker;
//! elsewhere the browser part is skipped with a message when they are absent.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{bench_with_env, workspace, Run, QUICK};
use serde_json::Value;

const HOSTILE: &str = "<script>alert(1)</script>";

fn home(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("report")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn bench(home: &Path, args: &[&str]) -> Run {
    let all: Vec<&str> = QUICK.iter().chain(args).copied().collect();
    bench_with_env(&all, &[("PERFBENCH_HOME", home.to_str().unwrap())])
}

/// Every HTML file under `dir`, recursively.
fn html_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(html_files(&path));
        } else if path.extension().is_some_and(|e| e == "html") {
            out.push(path);
        }
    }
    out.sort();
    out
}

/// Runs the browser checker on `pages`; `None` where the browser is not
/// installed (outside CI).
fn check_in_browser(pages: &[PathBuf], expect: &[&str]) -> Option<Vec<Value>> {
    let browser = workspace().join("tests/browser");
    let chromium = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    if !Path::new(&chromium).exists() || !browser.join("node_modules/playwright-core").exists() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must install chromium and tests/browser's node modules (see .ci/run)"
        );
        eprintln!("skipped the browser check: no {chromium} or no tests/browser/node_modules (npm ci there)");
        return None;
    }
    let mut cmd = Command::new("node");
    cmd.arg(browser.join("check.mjs"));
    for text in expect {
        cmd.args(["--expect-text", text]);
    }
    let out = cmd.args(pages).output().expect("node runs");
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        out.status.success(),
        "browser check failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(
        stdout
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect(),
    )
}

#[test]
fn the_report_opens_cleanly_in_a_browser_and_shows_hostile_names_as_text() {
    let home = home("browser");
    let run = bench(
        &home,
        &[
            "--exact",
            "touch_16",
            "text/ascii",
            &format!("text/{HOSTILE}"),
            "--events",
            "task-clock,page-faults",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let report = home.join("report");
    let index = report.join("index.html");
    assert!(index.is_file(), "no report at {}", index.display());
    let pages = html_files(&report);
    assert!(
        pages.len() >= 4,
        "an index and a page per benchmark: {pages:?}"
    );
    for page in &pages {
        let html = std::fs::read_to_string(page).unwrap();
        assert!(
            !html.contains(HOSTILE),
            "unescaped name in {}",
            page.display()
        );
        assert!(
            page.starts_with(&report),
            "{} outside the report",
            page.display()
        );
    }
    let hostile_pages: Vec<PathBuf> = pages
        .iter()
        .filter(|p| {
            std::fs::read_to_string(p)
                .unwrap()
                .contains("&lt;script&gt;alert(1)&lt;/script&gt;")
        })
        .cloned()
        .collect();
    assert!(
        hostile_pages.contains(&index),
        "the index lists the hostile id"
    );
    assert!(
        hostile_pages.len() >= 2,
        "the hostile benchmark has its own page: {hostile_pages:?}"
    );

    if let Some(results) = check_in_browser(&hostile_pages, &[HOSTILE]) {
        assert_eq!(results.len(), hostile_pages.len());
        for r in &results {
            assert_eq!(r["ok"], true, "{r}");
            assert_eq!(r["scripts_with_alert"], 0, "{r}");
        }
        let index_result = results
            .iter()
            .find(|r| r["file"].as_str().unwrap().ends_with("report/index.html"))
            .unwrap();
        assert!(
            index_result["rows"].as_u64().unwrap() >= 3,
            "{index_result}"
        );
        let page = results
            .iter()
            .find(|r| !r["file"].as_str().unwrap().ends_with("report/index.html"))
            .unwrap();
        assert!(
            page["svgs"].as_u64().unwrap() + page["images"].as_u64().unwrap() > 0,
            "a page with plots: {page}"
        );
    }
    let others: Vec<PathBuf> = pages
        .into_iter()
        .filter(|p| !hostile_pages.contains(p))
        .collect();
    if let Some(results) = check_in_browser(&others, &[]) {
        assert!(results.iter().all(|r| r["ok"] == true), "{results:?}");
    }
}

#[test]
fn noplot_writes_tables_without_plots() {
    let home = home("noplot");
    let run = bench(
        &home,
        &["--exact", "touch_16", "--events", "page-faults", "--noplot"],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let pages = html_files(&home.join("report"));
    assert!(!pages.is_empty());
    for page in &pages {
        let html = std::fs::read_to_string(page).unwrap();
        assert!(!html.contains("<svg"), "a plot in {}", page.display());
        assert!(html.contains("touch_16"), "{}", page.display());
    }
}
