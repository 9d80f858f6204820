//! `--paired-with-rev REV`: this bench target built from a git revision of
//! its own source, cached per commit, for a paired run to measure beside
//! this build.
//!
//! ```text
//! <cargo target dir>/perfbench-revisions/
//!   .lock                       held while a run checks out, builds or copies
//!   index                       git's record of what src/ holds
//!   src/                        the repository at the commit built last
//!   target/                     the target directory of its builds
//!   bin/<commit>/<package>/<crate name>        a built bench binary, never run
//!   bin/<commit>/<package>/<crate name>.json   its record: commit, package,
//!                                              crate, size, git's hash
//!   run/<pid>-<time>/<crate name>              the checked copy a run executes
//! ```
//!
//! Beside the store, not in it: the store may be a CI cache another branch
//! wrote, read as untrusted data, and nothing there is ever run. One fixed
//! `src/` and `target/` let cargo rebuild only what changed between
//! commits; `bin/` keeps every commit's binary.
//!
//! The target directory may be a CI cache too, so the cache is checked as
//! the store is. Every folder and file of it is reached from its root
//! through descriptors that follow no link (`cache_dir.rs`), the root
//! included: a link, FIFO or device where the cache keeps its own is one
//! error line naming it, before git or cargo is given a path into it. A
//! kept binary is run only as a copy checked against its record while it
//! is written (`kept_binary.rs`, `run_folder.rs`); anything else there is
//! built again, saying why. The lock is the store's ([`LockFile`]: no FIFO
//! waited on, no link written through). Cargo builds from the folder of the
//! user's package (`cargo_build.rs`), so that no `.cargo/config.toml`
//! planted in the target directory, above the checkout, is read.

mod cache_dir;
mod kept_binary;
mod revision_error;
mod run_folder;

pub use revision_error::RevisionError;

use std::path::{Path, PathBuf};

use super::cargo_build::{bench_target_name, build_bench, metadata_within};
use super::git_tree::{short, Repository};
use crate::kernel::dir::Kind;
use crate::run::stderr::say;
use crate::store::{folder_name, LockFailure, LockFile, LOCK_FILE};
use cache_dir::{refused, CacheDir};
use kept_binary::{Cached, KeptBinary, Record};
use run_folder::RunFolder;

/// The bench target a binary was built from, as `perfbench::main!()`
/// records it at compile time in the user's crate.
#[derive(Clone, Copy, Debug)]
pub struct BenchTarget {
    /// The package (`CARGO_PKG_NAME`).
    pub package: &'static str,
    /// The target's crate name (`CARGO_CRATE_NAME`: `-` written `_`).
    pub crate_name: &'static str,
    /// The package's folder on the machine that built it
    /// (`CARGO_MANIFEST_DIR`).
    pub manifest_dir: &'static str,
}

/// The folder of the builds at revisions, in the target directory.
pub const CACHE_FOLDER: &str = "perfbench-revisions";

/// The bench binary of `target` built at git revision `rev` of the
/// repository holding its source, built now or taken from the cache of an
/// earlier run (each said in one line on stderr): the path of a copy of
/// this process's own, checked, to run; `Err` says why not in one line,
/// after cargo's own errors where the build failed.
pub fn bench_binary_at(rev: &str, target: &BenchTarget) -> Result<PathBuf, RevisionError> {
    Cache::at(&target_dir()?).binary_at(rev, target)
}

/// The cargo target directory this binary was built in: the folder above
/// the `<profile>/deps/` holding it (where cargo put it, whatever the
/// folder the run started in), else `CARGO_TARGET_DIR`, absolute.
fn target_dir() -> Result<PathBuf, RevisionError> {
    let exe = std::env::current_exe().map_err(RevisionError::OwnPath)?;
    let deps = exe
        .ancestors()
        .find(|a| a.file_name().is_some_and(|n| n == "deps"));
    let built_in = deps
        .and_then(|d| d.parent()?.parent())
        .map(Path::to_path_buf);
    let given = std::env::var_os("CARGO_TARGET_DIR").filter(|t| !t.is_empty());
    let Some(dir) = built_in.or(given.map(PathBuf::from)) else {
        return Err(RevisionError::NotInTarget(exe));
    };
    std::path::absolute(&dir).map_err(|e| refused(&dir, e))
}

/// The cache of builds at revisions under one target directory.
struct Cache {
    root: PathBuf,
}

impl Cache {
    /// The cache in the target directory `target_dir`.
    fn at(target_dir: &Path) -> Cache {
        Cache {
            root: target_dir.join(CACHE_FOLDER),
        }
    }

    /// Where the binary of `target` built at `commit` (a full hash) is
    /// kept: `bin/<commit>/<package>/<crate name>`, in plain names.
    #[cfg(test)]
    fn binary_path(&self, commit: &str, target: &BenchTarget) -> PathBuf {
        let (package, name) = names_of(target);
        self.root.join("bin").join(commit).join(package).join(name)
    }

    /// [`bench_binary_at`] with this cache: all of it under the cache's
    /// lock, so that one run at a time checks out, builds, keeps, copies
    /// or removes.
    fn binary_at(&self, rev: &str, target: &BenchTarget) -> Result<PathBuf, RevisionError> {
        let repo = Repository::holding(Path::new(target.manifest_dir))?;
        let commit = repo.commit_of(rev)?;
        let what = format!(
            "bench `{}` of {} at {rev} ({})",
            target.crate_name,
            target.package,
            short(&commit)
        );
        let root = CacheDir::root(&self.root)?;
        let _lock = lock(&root)?;
        let runs = RunFolder::make(&root)?;
        let (package, name) = names_of(target);
        let folder = root.walk("bin", &[&commit, &package])?;
        let kept = KeptBinary {
            folder: &folder,
            name: &name,
        };
        let record = Record::of(&commit, target.package, target.crate_name);
        match kept.checked_copy(&record, &repo, &runs)? {
            Cached::Usable(copy) => {
                say(&format!(
                    "using {what} built before: {}",
                    kept.path().display()
                ));
                return Ok(copy);
            }
            Cached::Missing => say(&format!("building {what} for the paired run")),
            Cached::Unusable(why) => say(&format!(
                "building {what} for the paired run, not taking {}: {why}",
                kept.path().display()
            )),
        }
        kept.remove();
        let (tree, target_dir) = build_folders(&root)?;
        let built = build(&repo, &commit, target, (&tree, &target_dir))
            .map_err(|e| RevisionError::Build(what, e))?;
        kept.keep(&built, record.clone(), &repo)?;
        match kept.checked_copy(&record, &repo, &runs)? {
            Cached::Usable(copy) => Ok(copy),
            Cached::Missing | Cached::Unusable(_) => Err(refused(
                &kept.path(),
                "changed between its build and its use; build again",
            )),
        }
    }
}

/// The package's and the crate's names as plain folder names.
fn names_of(target: &BenchTarget) -> (String, String) {
    (folder_name(target.package), folder_name(target.crate_name))
}

/// The cache's lock, held while one run checks out, builds and copies:
/// `src/` and `target/` are one for every commit.
fn lock(root: &CacheDir) -> Result<LockFile, RevisionError> {
    root.expect(LOCK_FILE, Kind::File)?;
    let waiting = |holder: &str| {
        say(&format!(
            "waiting for another run building in {} ({holder})",
            root.path().display()
        ))
    };
    match LockFile::take(root.dir(), waiting) {
        Ok((lock, _)) => Ok(lock),
        Err(LockFailure::NotAFile) => Err(root.not_a_file(LOCK_FILE)),
        Err(LockFailure::Io(what, e)) => {
            Err(refused(&root.path_of(LOCK_FILE), format!("{what}: {e}")))
        }
    }
}

/// `src/` and `target/`, made where there are none, and `index`: each
/// refused by name where it is not what the cache keeps there (a link
/// above all) before git and cargo are given their paths. Inside `src/`,
/// git itself writes and removes nothing through a link, nor outside it.
fn build_folders(root: &CacheDir) -> Result<(PathBuf, PathBuf), RevisionError> {
    root.expect("index", Kind::File)?;
    root.expect("src", Kind::Dir)?;
    root.expect("target", Kind::Dir)?;
    let tree = root.sub("src")?;
    let target_dir = root.sub("target")?;
    Ok((tree.path().to_path_buf(), target_dir.path().to_path_buf()))
}

/// Checks `commit` out into the folder `tree` (`src/`, its git index
/// beside it) and builds the bench target there, in the target directory
/// `target_dir`; the executable. Cargo runs in the user's package folder,
/// as their `cargo bench` did, reading the configuration they have there.
fn build(
    repo: &Repository,
    commit: &str,
    target: &BenchTarget,
    (tree, target_dir): (&Path, &Path),
) -> Result<PathBuf, String> {
    let index = tree.with_file_name("index");
    repo.check_out(commit, tree, &index)
        .map_err(|e| e.to_string())?;
    let manifest = tree.join(&repo.prefix).join("Cargo.toml");
    if !manifest.is_file() {
        return Err(format!("the commit has no {}Cargo.toml", repo.prefix));
    }
    let user = Path::new(target.manifest_dir);
    let metadata = metadata_within(&manifest, tree, user)?;
    let name = bench_target_name(&metadata, target.package, target.crate_name)?;
    build_bench(&manifest, target.package, &name, target_dir, user)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::scratch_dir::ScratchDir;
    use std::process::Command;

    /// `git ARGS` in `dir` as a test's author; its stdout, trimmed.
    fn git(dir: &Path, args: &[&str]) -> String {
        let out = Command::new("git")
            .current_dir(dir)
            .args(["-c", "user.name=t", "-c", "user.email=t@t", "-c"])
            .args(["commit.gpgsign=false"])
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {out:?}");
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    }

    /// A repository in `dir/repo` with a package in `pkg/`: two commits,
    /// the second changing `src/lib.rs` and removing `gone.rs`; the
    /// package's folder.
    fn repository(dir: &Path) -> PathBuf {
        let dir = &dir.join("repo");
        let pkg = dir.join("pkg");
        std::fs::create_dir_all(pkg.join("src")).unwrap();
        std::fs::write(pkg.join("Cargo.toml"), "[package]\nname = \"pkg\"\n").unwrap();
        std::fs::write(pkg.join("src/lib.rs"), "// first\n").unwrap();
        std::fs::write(pkg.join("gone.rs"), "// first only\n").unwrap();
        std::fs::write(pkg.join("same.rs"), "// both\n").unwrap();
        git(dir, &["init", "-q"]);
        git(dir, &["add", "."]);
        git(dir, &["commit", "-qm", "first"]);
        std::fs::write(pkg.join("src/lib.rs"), "// second\n").unwrap();
        git(dir, &["rm", "-q", "pkg/gone.rs"]);
        git(dir, &["commit", "-qam", "second"]);
        pkg
    }

    fn target_in(pkg: &Path) -> BenchTarget {
        BenchTarget {
            package: "pkg",
            crate_name: "hot_loop",
            manifest_dir: Box::leak(pkg.display().to_string().into_boxed_str()),
        }
    }

    #[test]
    fn a_binary_is_kept_by_commit_package_and_target_in_folders_of_plain_names() {
        let cache = Cache::at(Path::new("/t"));
        let commit = "1a2b3c4d".repeat(5);
        let mut target = target_in(Path::new("/x"));
        assert_eq!(
            cache.binary_path(&commit, &target),
            Path::new("/t/perfbench-revisions/bin")
                .join(&commit)
                .join("pkg/hot_loop")
        );
        target.crate_name = "../../x";
        let hostile = cache.binary_path(&commit, &target);
        assert_eq!(
            hostile.parent(),
            cache
                .binary_path(&commit, &target_in(Path::new("/")))
                .parent()
        );
        assert!(!hostile.file_name().unwrap().to_string_lossy().contains('/'));
    }

    /// Keeps a file holding `bytes` as the binary of `target` at `commit`
    /// in `cache`, with its record, as a build would.
    fn keep_fake(cache: &Cache, pkg: &Path, commit: &str, target: &BenchTarget, bytes: &str) {
        let repo = Repository::holding(pkg).unwrap();
        let built = pkg.join("built");
        std::fs::write(&built, bytes).unwrap();
        let root = CacheDir::root(&cache.root).unwrap();
        let (package, name) = names_of(target);
        let folder = root.walk("bin", &[commit, &package]).unwrap();
        let record = Record::of(commit, target.package, target.crate_name);
        let kept = KeptBinary {
            folder: &folder,
            name: &name,
        };
        kept.keep(&built, record, &repo).unwrap();
        std::fs::remove_file(&built).unwrap();
    }

    #[test]
    fn a_commit_built_before_is_taken_from_the_cache_as_a_checked_copy_without_building() {
        let scratch = ScratchDir::new("revision-cached");
        let pkg = repository(scratch.root());
        let cache = Cache::at(&scratch.root().join("target"));
        let target = target_in(&pkg);
        let head = git(&pkg, &["rev-parse", "HEAD"]);
        keep_fake(&cache, &pkg, &head, &target, "built before");
        let runs = cache.root.join("run");
        for rev in ["HEAD", &head[..12]] {
            let copy = cache.binary_at(rev, &target).unwrap();
            assert_eq!(std::fs::read_to_string(&copy).unwrap(), "built before");
            assert_eq!(copy.file_name().unwrap(), "hot_loop");
            assert_eq!(copy.parent().unwrap().parent().unwrap(), runs);
            let mode = std::fs::metadata(copy.parent().unwrap()).unwrap();
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(mode.permissions().mode() & 0o777, 0o700);
        }
        // Each call made a folder of its own, both still held by this
        // process; nothing was checked out or built.
        assert_eq!(std::fs::read_dir(&runs).unwrap().count(), 2);
        assert!(!cache.root.join("src").exists());
        // The record names another commit: not taken.
        let other = git(&pkg, &["rev-parse", "HEAD~1"]);
        let kept = cache.binary_path(&head, &target);
        let moved = cache.binary_path(&other, &target);
        std::fs::create_dir_all(moved.parent().unwrap()).unwrap();
        std::fs::rename(&kept, &moved).unwrap();
        std::fs::rename(kept.with_extension("json"), moved.with_extension("json")).unwrap();
        let e = cache.binary_at("HEAD~1", &target).unwrap_err().to_string();
        assert!(e.contains("has no bench target"), "{e}");
    }

    #[test]
    fn the_copies_of_runs_that_ended_are_removed_and_those_of_running_ones_kept() {
        let scratch = ScratchDir::new("revision-runs");
        let root = CacheDir::root(&scratch.root().join(CACHE_FOLDER)).unwrap();
        let ours = RunFolder::make(&root).unwrap();
        scratch.file("perfbench-revisions/run/1-2/.lock", "");
        scratch.file("perfbench-revisions/run/1-2/hot_loop", "ended");
        scratch.file("perfbench-revisions/run/stray", "a file");
        let outside = scratch.root().join("outside");
        scratch.file("outside/keep", "keep");
        std::os::unix::fs::symlink(
            &outside,
            scratch.root().join("perfbench-revisions/run/link"),
        )
        .unwrap();
        let next = RunFolder::make(&root).unwrap();
        let mut left: Vec<_> = std::fs::read_dir(scratch.root().join("perfbench-revisions/run"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        left.sort();
        let mut expected = vec![ours.folder().path(), next.folder().path()];
        expected.sort();
        assert_eq!(left, expected);
        assert_eq!(
            std::fs::read_to_string(outside.join("keep")).unwrap(),
            "keep"
        );
    }

    #[test]
    fn an_unknown_revision_and_a_folder_outside_git_are_refused_by_name() {
        let scratch = ScratchDir::new("revision-refused");
        let pkg = repository(scratch.root());
        let cache = Cache::at(&scratch.root().join("target"));
        let e = cache
            .binary_at("no-such-branch", &target_in(&pkg))
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("--paired-with-rev `no-such-branch`: no such commit in "),
            "{e}"
        );
        let e = cache
            .binary_at("--output=/tmp/x", &target_in(&pkg))
            .unwrap_err()
            .to_string();
        assert!(e.contains("not `--output=/tmp/x`"), "{e}");
        let outside = scratch.root().join("target");
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join(".git"), "not a repository").unwrap();
        let e = cache
            .binary_at("HEAD", &target_in(&outside))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(&format!(
                "folder {} is not in a git repository",
                outside.display()
            )),
            "{e}"
        );
        let e = cache
            .binary_at("HEAD", &target_in(&scratch.root().join("gone")))
            .unwrap_err()
            .to_string();
        assert!(e.contains("gone, where it was built, is not here"), "{e}");
    }

    #[test]
    fn a_check_out_holds_the_commit_not_the_working_tree_and_rewrites_only_what_changed() {
        let scratch = ScratchDir::new("revision-checkout");
        let pkg = repository(scratch.root());
        std::fs::write(pkg.join("src/lib.rs"), "// dirty\n").unwrap();
        let repo = Repository::holding(&pkg).unwrap();
        assert_eq!(repo.prefix, "pkg/");
        let (tree, index) = (scratch.root().join("src"), scratch.root().join("index"));
        repo.check_out(&repo.commit_of("HEAD~1").unwrap(), &tree, &index)
            .unwrap();
        let read = |rel: &str| std::fs::read_to_string(tree.join(rel)).unwrap();
        let modified = |rel: &str| {
            std::fs::metadata(tree.join(rel))
                .unwrap()
                .modified()
                .unwrap()
        };
        assert_eq!(read("pkg/src/lib.rs"), "// first\n");
        assert_eq!(read("pkg/gone.rs"), "// first only\n");
        let (manifest, lib) = (modified("pkg/Cargo.toml"), modified("pkg/src/lib.rs"));
        std::fs::write(tree.join("pkg/same.rs"), "edited in the copy").unwrap();
        // Past the kernel's coarse clock, so that a rewritten file shows.
        std::thread::sleep(std::time::Duration::from_millis(50));
        repo.check_out(&repo.commit_of("HEAD").unwrap(), &tree, &index)
            .unwrap();
        assert_eq!(read("pkg/src/lib.rs"), "// second\n");
        assert!(!tree.join("pkg/gone.rs").exists());
        assert_eq!(read("pkg/same.rs"), "// both\n");
        assert_eq!(modified("pkg/Cargo.toml"), manifest);
        assert_ne!(modified("pkg/src/lib.rs"), lib);
        // The user's repository is as it was: its index and working tree.
        assert_eq!(git(&pkg, &["status", "--porcelain"]), "M pkg/src/lib.rs");
    }

    #[test]
    fn a_binary_is_kept_whole_with_its_record_and_nothing_else_is_left() {
        let scratch = ScratchDir::new("revision-keep");
        let pkg = repository(scratch.root());
        let cache = Cache::at(&scratch.root().join("target"));
        let target = target_in(&pkg);
        let commit = "1a2b3c4d".repeat(5);
        keep_fake(&cache, &pkg, &commit, &target, "an executable");
        let binary = cache.binary_path(&commit, &target);
        assert_eq!(std::fs::read_to_string(&binary).unwrap(), "an executable");
        let record: Record =
            serde_json::from_str(&std::fs::read_to_string(binary.with_extension("json")).unwrap())
                .unwrap();
        let expected = Command::new("sh")
            .arg("-c")
            .arg("printf 'an executable' | git hash-object --no-filters --stdin")
            .output()
            .unwrap();
        let hash = String::from_utf8(expected.stdout)
            .unwrap()
            .trim()
            .to_string();
        assert_eq!(
            record,
            Record {
                commit: commit.clone(),
                package: "pkg".into(),
                crate_name: "hot_loop".into(),
                size: 13,
                hash,
            }
        );
        let mut names: Vec<_> = std::fs::read_dir(binary.parent().unwrap())
            .unwrap()
            .flatten()
            .map(|e| e.file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names, ["hot_loop", "hot_loop.json"]);
    }

    /// A repository in `dir/repo` whose package `pkg` has the bench
    /// target `hot-loop` (no dependencies, so that it builds in seconds),
    /// printing `built at the commit`; the package's folder.
    fn buildable_repository(dir: &Path) -> PathBuf {
        let repo = dir.join("repo");
        let pkg = repo.join("pkg");
        std::fs::create_dir_all(pkg.join("benches")).unwrap();
        std::fs::create_dir_all(pkg.join("src")).unwrap();
        std::fs::write(
            pkg.join("Cargo.toml"),
            "[package]\nname = \"pkg\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
             [[bench]]\nname = \"hot-loop\"\nharness = false\n\n[workspace]\n",
        )
        .unwrap();
        std::fs::write(pkg.join("src/lib.rs"), "").unwrap();
        std::fs::write(
            pkg.join("benches/hot-loop.rs"),
            "fn main() { println!(\"built at the commit\"); }\n",
        )
        .unwrap();
        git(&repo, &["init", "-q"]);
        git(&repo, &["add", "."]);
        git(&repo, &["commit", "-qm", "buildable"]);
        pkg
    }

    /// An executable shell script at `path` that writes `marker` when run.
    fn plant_script(path: &Path, marker: &Path) {
        use std::os::unix::fs::PermissionsExt;
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let script = format!("#!/bin/sh\necho ran > '{}'\n", marker.display());
        std::fs::write(path, script).unwrap();
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    /// Runs the binary `binary_at` gave, as the paired run would; its
    /// stdout.
    fn run(binary: &Path) -> String {
        let out = Command::new(binary).output().unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Every file under `dir` with its bytes, and every link with its
    /// target: what a folder holds, to compare before and after.
    fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
        let mut all = Vec::new();
        let mut todo = vec![dir.to_path_buf()];
        while let Some(d) = todo.pop() {
            for e in std::fs::read_dir(&d).unwrap().flatten() {
                let t = e.file_type().unwrap();
                if t.is_dir() {
                    todo.push(e.path());
                } else if t.is_symlink() {
                    let to = std::fs::read_link(e.path()).unwrap();
                    all.push((e.path(), to.into_os_string().into_encoded_bytes()));
                } else {
                    all.push((e.path(), std::fs::read(e.path()).unwrap()));
                }
            }
        }
        all.sort();
        all
    }

    #[test]
    fn a_script_planted_in_the_cache_is_never_run_and_the_commit_is_built_instead() {
        let scratch = ScratchDir::new("revision-planted");
        let pkg = buildable_repository(scratch.root());
        let cache = Cache::at(&scratch.root().join("target"));
        let target = target_in(&pkg);
        let head = git(&pkg, &["rev-parse", "HEAD"]);
        let planted = cache.binary_path(&head, &target);
        let marker = scratch.root().join("marker");
        plant_script(&planted, &marker);
        let binary = cache.binary_at("HEAD", &target).unwrap();
        assert_eq!(run(&binary), "built at the commit\n");
        assert!(!marker.exists(), "the planted script ran");
        // Built once, kept with its record: the next run takes it.
        let again = cache.binary_at("HEAD", &target).unwrap();
        assert_eq!(run(&again), "built at the commit\n");
        // A link to a script in its place, the record kept: built again.
        let script = scratch.root().join("script");
        plant_script(&script, &marker);
        std::fs::remove_file(&planted).unwrap();
        std::os::unix::fs::symlink(&script, &planted).unwrap();
        let relinked = cache.binary_at("HEAD", &target).unwrap();
        assert_eq!(run(&relinked), "built at the commit\n");
        // A script of the binary's size over it: built again.
        let size = std::fs::metadata(&planted).unwrap().len() as usize;
        let body = format!("#!/bin/sh\necho ran > '{}'\n", marker.display());
        let padded = body.clone() + &"#".repeat(size - body.len());
        std::fs::write(&planted, padded).unwrap();
        let rewritten = cache.binary_at("HEAD", &target).unwrap();
        assert_eq!(run(&rewritten), "built at the commit\n");
        // A FIFO in its place is not waited on: built again.
        std::fs::remove_file(&planted).unwrap();
        let made = Command::new("mkfifo").arg(&planted).status().unwrap();
        assert!(made.success());
        let target_dir = scratch.root().join("target");
        let refilled = within(120, Cache::at(&target_dir), target)
            .expect("a FIFO in the cache hung the run")
            .unwrap();
        assert_eq!(run(&refilled), "built at the commit\n");
        assert!(!marker.exists(), "a planted script ran");
    }

    #[test]
    fn a_cargo_config_planted_under_the_target_directory_is_not_read_by_the_build() {
        let scratch = ScratchDir::new("revision-config");
        let pkg = buildable_repository(scratch.root());
        let target_dir = scratch.root().join("target");
        let cache = Cache::at(&target_dir);
        let marker = scratch.root().join("marker");
        let wrapper = scratch.root().join("wrapper");
        let body = format!(
            "#!/bin/sh\necho ran >> '{}'\nexec \"$@\"\n",
            marker.display()
        );
        std::fs::write(&wrapper, body).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
        let config = format!(
            "[build]\nrustc-wrapper = {:?}\n",
            wrapper.display().to_string()
        );
        for folder in ["target/.cargo", "target/perfbench-revisions/.cargo"] {
            scratch.file(&format!("{folder}/config.toml"), &config);
        }
        let binary = cache.binary_at("HEAD", &target_in(&pkg)).unwrap();
        assert_eq!(run(&binary), "built at the commit\n");
        assert!(!marker.exists(), "the planted rustc-wrapper ran");
    }

    /// `git ARGS` with the index `index` and the work tree `tree`.
    fn git_with_index(repo: &Path, index: &Path, tree: &Path, args: &[&str]) {
        let out = Command::new("git")
            .current_dir(repo)
            .env("GIT_INDEX_FILE", index)
            .arg("--work-tree")
            .arg(tree)
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {out:?}");
    }

    #[test]
    fn a_link_at_src_with_a_crafted_index_leaves_the_folder_it_names_untouched() {
        let scratch = ScratchDir::new("revision-src-link");
        let pkg = repository(scratch.root());
        let repo = pkg.parent().unwrap();
        let cache = Cache::at(&scratch.root().join("target"));
        let outside = scratch.root().join("outside");
        scratch.file("outside/victim.txt", "keep me\n");
        scratch.file("outside/pkg/same.rs", "// mine, not the commit's\n");
        // The index says the folder holds the victim, which the commit
        // lacks: `read-tree --reset -u` would remove it.
        let index = cache.root.join("index");
        std::fs::create_dir_all(&cache.root).unwrap();
        git_with_index(
            repo,
            &index,
            &outside,
            &["add", "victim.txt", "pkg/same.rs"],
        );
        std::os::unix::fs::symlink(&outside, cache.root.join("src")).unwrap();
        let before = snapshot(&outside);
        let e = cache
            .binary_at("HEAD", &target_in(&pkg))
            .unwrap_err()
            .to_string();
        assert_eq!(snapshot(&outside), before);
        assert_eq!(
            e,
            format!(
                "--paired-with-rev: {}: is a link, and perfbench follows no link in its \
                 revision cache; remove it",
                cache.root.join("src").display()
            )
        );
        // A link inside a real src/, the index naming files through it:
        // git writes and removes nothing through it.
        std::fs::remove_file(cache.root.join("src")).unwrap();
        std::fs::create_dir_all(cache.root.join("src")).unwrap();
        std::os::unix::fs::symlink(&outside, cache.root.join("src/pkg")).unwrap();
        std::fs::remove_file(&index).unwrap();
        let blob = git(repo, &["hash-object", "-w", "pkg/same.rs"]);
        let entry = format!("100644,{blob},pkg/victim.txt");
        git_with_index(
            repo,
            &index,
            &cache.root.join("src"),
            &["update-index", "--add", "--cacheinfo", &entry],
        );
        let _ = cache.binary_at("HEAD", &target_in(&pkg));
        assert_eq!(snapshot(&outside), before);
    }

    /// `binary_at` in a thread, its result within `secs` seconds or `None`:
    /// a hung run fails the test rather than hanging it.
    fn within(
        secs: u64,
        cache: Cache,
        target: BenchTarget,
    ) -> Option<Result<PathBuf, RevisionError>> {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(cache.binary_at("HEAD", &target));
        });
        rx.recv_timeout(std::time::Duration::from_secs(secs)).ok()
    }

    #[test]
    fn a_fifo_at_the_caches_lock_is_refused_by_name_without_waiting() {
        let scratch = ScratchDir::new("revision-lock-fifo");
        let pkg = repository(scratch.root());
        let target_dir = scratch.root().join("target");
        let root = target_dir.join(CACHE_FOLDER);
        std::fs::create_dir_all(&root).unwrap();
        let lock = root.join(".lock");
        assert!(Command::new("mkfifo")
            .arg(&lock)
            .status()
            .unwrap()
            .success());
        let e = within(20, Cache::at(&target_dir), target_in(&pkg))
            .expect("a FIFO at the lock hung the run")
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            format!(
                "--paired-with-rev: {}: is not a regular file; remove it",
                lock.display()
            )
        );
    }

    #[test]
    fn a_link_at_the_caches_lock_is_refused_by_name_and_nothing_is_made_through_it() {
        let scratch = ScratchDir::new("revision-lock-link");
        let pkg = repository(scratch.root());
        let target_dir = scratch.root().join("target");
        let lock = target_dir.join(CACHE_FOLDER).join(".lock");
        std::fs::create_dir_all(lock.parent().unwrap()).unwrap();
        let elsewhere = scratch.root().join("elsewhere");
        std::os::unix::fs::symlink(&elsewhere, &lock).unwrap();
        let e = within(20, Cache::at(&target_dir), target_in(&pkg))
            .expect("hung")
            .unwrap_err()
            .to_string();
        assert!(!elsewhere.exists(), "a file was made through the link");
        assert_eq!(
            e,
            format!(
                "--paired-with-rev: {}: is a link, and perfbench follows no link in its \
                 revision cache; remove it",
                lock.display()
            )
        );
    }

    #[test]
    fn a_link_where_the_cache_keeps_a_folder_or_file_of_its_own_is_refused_by_name() {
        let scratch = ScratchDir::new("revision-links");
        let pkg = repository(scratch.root());
        let elsewhere = scratch.root().join("elsewhere");
        std::fs::create_dir_all(&elsewhere).unwrap();
        for name in ["", "bin", "target", "index", "src"] {
            let target_dir = scratch.root().join(format!("target-{name}"));
            let root = target_dir.join(CACHE_FOLDER);
            let at = if name.is_empty() {
                root.clone()
            } else {
                root.join(name)
            };
            std::fs::create_dir_all(at.parent().unwrap()).unwrap();
            std::os::unix::fs::symlink(&elsewhere, &at).unwrap();
            let e = Cache::at(&target_dir)
                .binary_at("HEAD", &target_in(&pkg))
                .unwrap_err()
                .to_string();
            assert_eq!(
                e,
                format!(
                    "--paired-with-rev: {}: is a link, and perfbench follows no link in its \
                     revision cache; remove it",
                    at.display()
                ),
                "{name}"
            );
            assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0, "{name}");
        }
    }
}
