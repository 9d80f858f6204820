//! `--paired-with-rev REV` through `cargo bench`, as a user runs it: a
//! crate of its own in a git repository made here, its committed routine
//! touching 4 fresh pages, the working tree's (uncommitted) touching 8, so
//! that the baseline built at `HEAD` does less work and exactly half the
//! page faults, and the dirty working tree must not leak into it.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use common::{page_faults, under, without_our_variables, Run, Under, QUICK};

/// The bench target of the crate, with the pages it touches to be filled
/// in: exactly that many page faults per iteration.
const BENCH: &str = "use perfbench::{black_box, fixtures::touch_fresh_pages, perfbench};

#[perfbench]
fn touch() -> u64 {
    touch_fresh_pages(black_box(PAGES))
}

perfbench::main!();
";

/// The crate's manifest: perfbench by path, and a workspace of its own,
/// so that cargo does not take it for a member of one above it.
fn manifest() -> String {
    let perfbench = common::workspace().join("perfbench");
    format!(
        "[package]\nname = \"paired-rev\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
         [dependencies]\nperfbench = {{ path = {:?} }}\n\n\
         [[bench]]\nname = \"touch-pages\"\nharness = false\n\n[workspace]\n",
        perfbench.display().to_string()
    )
}

/// `git ARGS` in `repo` as the test's author; its output, trimmed.
fn git(repo: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .current_dir(repo)
        .args(["-c", "user.name=t", "-c", "user.email=t@t"])
        .args(["-c", "commit.gpgsign=false"])
        .args(args)
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// Writes the bench file touching `pages` pages.
fn write_bench(repo: &Path, pages: usize) {
    let text = BENCH.replace("PAGES", &pages.to_string());
    std::fs::write(repo.join("benches/touch-pages.rs"), text).unwrap();
}

/// The repository: the crate with 4 pages committed (the workspace's
/// Cargo.lock too, so that both builds take the dependencies the workspace
/// is tested with), and 8 in the working tree.
fn repository() -> PathBuf {
    let repo = common::fresh_dir("paired-revision", "repo");
    common::fresh_dir("paired-revision", "home");
    std::fs::create_dir_all(repo.join("benches")).unwrap();
    std::fs::write(repo.join("Cargo.toml"), manifest()).unwrap();
    std::fs::copy(
        common::workspace().join("Cargo.lock"),
        repo.join("Cargo.lock"),
    )
    .unwrap();
    write_bench(&repo, 4);
    git(&repo, &["init", "-q"]);
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-qm", "4 pages"]);
    write_bench(&repo, 8);
    repo
}

/// The target directory of the crate's builds: the one of the fixtures'
/// `cargo bench` (runs are serialised, and test binaries run one after
/// another), so that the crate's build reuses their dependencies. The
/// builds at revisions kept in it are removed, so that this run builds its
/// commit whatever an earlier run left; their sources and target directory
/// are kept, so that a later run rebuilds little.
fn target_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("e2e");
    let _ = std::fs::remove_dir_all(dir.join("perfbench-revisions/bin"));
    dir
}

/// `cargo bench -- ARGS` in `repo`, with the target directory `target`,
/// counting page faults with the fewest samples a paired change needs (4
/// rounds of each build, 5 samples a round), storing in a folder of its
/// own.
fn bench(repo: &Path, target: &Path, args: &[&str]) -> Run {
    let mut cmd = Command::new(env!("CARGO"));
    cmd.current_dir(repo)
        .args(["bench", "-q", "--bench", "touch-pages", "--"])
        .args(QUICK)
        .args(["--sample-count", "20", "--events", "page-faults"])
        .args(["--output-format", "json"])
        .args(args)
        .env("CARGO_TARGET_DIR", target)
        .env("PERFBENCH_HOME", repo.with_file_name("home"))
        .env_remove("COLUMNS");
    without_our_variables(&mut cmd);
    Run::finish(cmd.output().expect("cargo runs"))
}

/// The lines perfbench printed on stderr (cargo's own are left out).
fn our_lines(run: &Run) -> Vec<&str> {
    run.stderr_lines(|l| l.starts_with("perfbench: "))
}

/// Asserts the one benchmark's page faults judged `verdict`, changed by
/// exactly `relative`, from the paired rounds.
fn assert_exact_change(run: &Run, faults: &str, relative: f64, verdict: &str) {
    let lines = run.json();
    assert_eq!(lines.len(), 1, "{}", run.stdout);
    let line = &lines[0];
    assert_eq!(line["baseline"]["paired"], true, "{line}");
    let change = &line["metrics"][faults]["change"];
    assert_eq!(change["verdict"], verdict, "{line}");
    assert_eq!(change["relative"], relative, "{line}");
    let ci = serde_json::json!([relative, relative]);
    assert_eq!(change["ci"], ci, "{line}");
}

/// Asserts that the run recorded the working tree's commit `head`, its
/// dirtiness and its `branch`: what it measured, not the baseline's.
fn assert_origin(run: &Run, head: &str, dirty: bool, branch: &str) {
    let env = &run.json()[0]["environment"];
    assert_eq!(env["commit"], head, "{env}");
    assert_eq!(env["dirty"], dirty, "{env}");
    assert_eq!(env["branch"], branch, "{env}");
}

#[test]
fn a_revision_is_built_once_paired_with_and_an_exact_count_judged_exactly() {
    // The benchmarks run as the test does here: the build needs cargo's
    // home, which the other environments' users may not read.
    if under() != Under::AsIs {
        eprintln!("skipped: builds at a revision are tested as is only");
        return;
    }
    let Some(faults) = page_faults() else { return };
    let _serial = common::RUNS.lock().unwrap_or_else(|e| e.into_inner());
    let (repo, target) = (repository(), target_dir());
    let gate = ["--paired-with-rev", "HEAD", "--fail-on-regression"];

    let started = Instant::now();
    let first = bench(&repo, &target, &gate);
    eprintln!("first run, building both: {:.1?}", started.elapsed());
    assert_eq!(first.code, 3, "{}", first.stderr);
    let head = git(&repo, &["rev-parse", "HEAD"]);
    let what = format!("bench `touch_pages` of paired-rev at HEAD ({})", &head[..7]);
    let building = first.stderr_lines(|l| l.starts_with("perfbench: building"));
    let expected = format!("perfbench: building {what} for the paired run");
    assert_eq!(building, [expected.as_str()], "{}", first.stderr);
    assert_exact_change(&first, &faults, 1.0, "regressed");
    assert_origin(
        &first,
        &head,
        true,
        &git(&repo, &["symbolic-ref", "--short", "HEAD"]),
    );

    let started = Instant::now();
    let second = bench(&repo, &target, &gate);
    eprintln!("second run, from the cache: {:.1?}", started.elapsed());
    assert_eq!(second.code, 3, "{}", second.stderr);
    let ours = our_lines(&second);
    assert!(!second.stderr.contains("building"), "{}", second.stderr);
    let using = format!("perfbench: using {what} built before: ");
    let cached = ours.iter().filter(|l| l.starts_with(&using)).count();
    assert_eq!(cached, 1, "{}", second.stderr);
    assert_exact_change(&second, &faults, 1.0, "regressed");

    // Once committed, the 8 pages are a new commit, built again (cargo
    // rebuilds the bench target only), and the 4 pages' commit, named
    // otherwise, is still the one built before.
    git(&repo, &["commit", "-qam", "8 pages"]);
    let started = Instant::now();
    let moved = bench(&repo, &target, &["--paired-with-rev", "HEAD"]);
    eprintln!("third run, a new commit: {:.1?}", started.elapsed());
    assert_eq!(moved.code, 0, "{}", moved.stderr);
    let head = git(&repo, &["rev-parse", "HEAD"]);
    let building = format!(
        "perfbench: building bench `touch_pages` of paired-rev at HEAD ({}) for the paired run",
        &head[..7]
    );
    assert!(
        our_lines(&moved).contains(&building.as_str()),
        "{}",
        moved.stderr
    );
    assert_exact_change(&moved, &faults, 0.0, "no change");
    assert_origin(
        &moved,
        &head,
        false,
        &git(&repo, &["symbolic-ref", "--short", "HEAD"]),
    );
    let before = bench(&repo, &target, &["--paired-with-rev", "HEAD~1"]);
    let using = using.replace("at HEAD (", "at HEAD~1 (");
    assert!(
        our_lines(&before).iter().any(|l| l.starts_with(&using)),
        "{}",
        before.stderr
    );
    assert_exact_change(&before, &faults, 1.0, "regressed");

    let missing = bench(&repo, &target, &["--paired-with-rev", "no-such-rev"]);
    assert_eq!(missing.code, 2, "{}", missing.stderr);
    assert!(missing.stdout.is_empty(), "{}", missing.stdout);
    let ours = our_lines(&missing);
    assert_eq!(ours.len(), 1, "{}", missing.stderr);
    assert!(
        ours[0]
            .starts_with("perfbench: error: --paired-with-rev `no-such-rev`: no such commit in "),
        "{}",
        missing.stderr
    );
}
