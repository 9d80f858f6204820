//! End to end: every run records what it measured, the commit, whether
//! the tree was dirty, the branch, the machine's anonymous id and the time
//! it started, in every JSON line. Git is asked in the bench target's
//! folder; where it cannot say, the CI's variables do.
//! (Git's side in a repository of its own, dirty and then clean, is
//! checked in paired_revision.rs, which builds one.)

mod common;

use std::process::Command;

use common::json::Fields;
use common::{bench_with_env, under, workspace, Under, QUICK};
use serde_json::Value;

/// The environment record of a quick JSON run of `touch_16`, with `env`.
fn environment(env: &[(&str, &str)]) -> Value {
    let mut args = vec!["--exact", "touch_16", "--output-format", "json"];
    args.extend(QUICK);
    let run = bench_with_env(&args, env);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines = run.json();
    assert_eq!(lines.len(), 1, "{}", run.stdout);
    lines[0]["environment"].clone()
}

/// `git ARGS` in the workspace, as the test runs; its output, trimmed.
fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .current_dir(workspace())
        .args(args)
        .output()
        .ok()
        .filter(|o| o.status.success())?;
    Some(String::from_utf8(out.stdout).unwrap().trim().to_string())
}

/// What every run records beside the commit: the host id and the start.
fn assert_host_and_time(env: &Value) {
    let host = env.str_at("host");
    assert_eq!(host.len(), 16, "{env}");
    assert!(host.bytes().all(|b| b.is_ascii_hexdigit()), "{env}");
    let started = env.str_at("started");
    // 2026-11-25T22:42:00Z
    assert_eq!(started.len(), 20, "{env}");
    assert!(
        started.ends_with('Z') && started.as_bytes()[10] == b'T',
        "{env}"
    );
}

#[test]
fn where_git_cannot_say_the_cis_variables_name_the_commit_and_branch() {
    // Git looks for the repository no higher than the workspace's folder,
    // which holds the bench target's folder and `.git`: it finds none.
    let ceiling = workspace().to_str().unwrap().to_string();
    let sha = "0123456789abcdef0123456789abcdef01234567";
    let env = environment(&[
        ("GIT_CEILING_DIRECTORIES", &ceiling),
        ("GITHUB_SHA", sha),
        ("GITHUB_HEAD_REF", ""),
        ("GITHUB_REF_NAME", "feature/fast"),
    ]);
    assert_eq!(env["commit"], sha, "{env}");
    assert_eq!(env["branch"], "feature/fast", "{env}");
    assert!(env.get("dirty").is_none(), "only git knows: {env}");
    assert_host_and_time(&env);
    let bare = environment(&[("GIT_CEILING_DIRECTORIES", &ceiling)]);
    for key in ["commit", "branch", "dirty"] {
        assert!(
            bare.get(key).is_none() || std::env::var_os("GITHUB_SHA").is_some(),
            "{key} unknown: {bare}"
        );
    }
}

#[test]
fn in_its_repository_git_names_the_head_and_whether_the_tree_is_dirty() {
    // As another user, git refuses a repository it does not own (and the
    // CI's variables, where set, say instead): git's side is as is.
    if under() != Under::AsIs {
        eprintln!("skipped: git reads the workspace as its owner only");
        return;
    }
    let Some(head) = git(&["rev-parse", "HEAD"]) else {
        eprintln!("skipped: the workspace is not in a git repository");
        return;
    };
    let dirty = !git(&["status", "--porcelain", "--untracked-files=no"])
        .unwrap()
        .is_empty();
    let env = environment(&[]);
    assert_eq!(env["commit"], head.as_str(), "{env}");
    assert_eq!(env["dirty"], dirty, "{env}");
    match git(&["symbolic-ref", "--short", "-q", "HEAD"]) {
        Some(branch) => assert_eq!(env["branch"], branch.as_str(), "{env}"),
        None => eprintln!("detached: the branch is the CI's, if any: {env}"),
    }
    assert_host_and_time(&env);
}
