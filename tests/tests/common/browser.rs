//! The report's browser check (tests/browser/check.mjs in headless
//! Chromium), for the tests that open report pages.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use super::workspace;

/// Runs the browser checker on `pages`; `None` where the browser is not
/// installed (outside CI).
pub fn check_in_browser(pages: &[PathBuf], expect: &[&str]) -> Option<Vec<Value>> {
    check_in_browser_with(pages, expect, &[])
}

/// [`check_in_browser`] with `env` set for the checker (`FLAME_FRAME`: the
/// flame graph's frame to hover and zoom into).
pub fn check_in_browser_with(
    pages: &[PathBuf],
    expect: &[&str],
    env: &[(&str, &str)],
) -> Option<Vec<Value>> {
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
    let out = cmd
        .args(pages)
        .envs(env.iter().copied())
        .output()
        .expect("node runs");
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
