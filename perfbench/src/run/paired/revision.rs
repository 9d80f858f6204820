//! `--paired-with-rev REV`: this bench target built from a git revision of
//! its own source, cached per commit, for a paired run to measure beside
//! this build.
//!
//! ```text
//! <cargo target dir>/perfbench-revisions/
//!   .lock                       held while a run checks out and builds
//!   index                       git's record of what src/ holds
//!   src/                        the repository at the commit built last
//!   target/                     the target directory of its builds
//!   bin/<commit>/<package>/<crate name>   a built bench binary
//! ```
//!
//! Beside the store, not in it: the store may be a CI cache another branch
//! wrote, read as untrusted data, and nothing there is ever run; the target
//! directory is what cargo already trusts with the binaries it runs. One
//! fixed `src/` and `target/` let cargo rebuild only what changed between
//! commits; `bin/` keeps every commit's binary.

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};

use super::cargo_build::{bench_target_name, build_bench, metadata_within};
use super::git_tree::{short, Repository};
use crate::kernel::flock;
use crate::run::say::say;
use crate::store::folder_name;

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
/// earlier run (each said in one line on stderr); `Err` says why not in
/// one line, after cargo's own errors where the build failed.
pub fn bench_binary_at(rev: &str, target: &BenchTarget) -> Result<PathBuf, String> {
    Cache::at(&target_dir()?).binary_at(rev, target)
}

/// The cargo target directory this binary was built in: the folder above
/// the `<profile>/deps/` holding it (where cargo put it, whatever the
/// folder the run started in), else `CARGO_TARGET_DIR`, absolute.
fn target_dir() -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| format!("--paired-with-rev: {e}"))?;
    let deps = exe
        .ancestors()
        .find(|a| a.file_name().is_some_and(|n| n == "deps"));
    let built_in = deps
        .and_then(|d| d.parent()?.parent())
        .map(Path::to_path_buf);
    let given = std::env::var_os("CARGO_TARGET_DIR").filter(|t| !t.is_empty());
    let Some(dir) = built_in.or(given.map(PathBuf::from)) else {
        return Err(format!(
            "--paired-with-rev: {} is not in a cargo target directory; set CARGO_TARGET_DIR",
            exe.display()
        ));
    };
    std::path::absolute(&dir).map_err(|e| format!("--paired-with-rev: {}: {e}", dir.display()))
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

    /// Where the binary of `target` built at `commit` (a full hash) is kept.
    fn binary_path(&self, commit: &str, target: &BenchTarget) -> PathBuf {
        self.root
            .join("bin")
            .join(commit)
            .join(folder_name(target.package))
            .join(folder_name(target.crate_name))
    }

    /// [`bench_binary_at`] with this cache.
    fn binary_at(&self, rev: &str, target: &BenchTarget) -> Result<PathBuf, String> {
        let repo = Repository::holding(Path::new(target.manifest_dir))?;
        let commit = repo.commit_of(rev)?;
        let what = format!(
            "bench `{}` of {} at {rev} ({})",
            target.crate_name,
            target.package,
            short(&commit)
        );
        let binary = self.binary_path(&commit, target);
        if let Some(found) = self.cached(&binary, &what) {
            return Ok(found);
        }
        // Another run may be building; the one that waited for it may then
        // find the binary built.
        let _lock = self.lock()?;
        if let Some(found) = self.cached(&binary, &what) {
            return Ok(found);
        }
        say(&format!("building {what} for the paired run"));
        let built = self
            .build(&repo, &commit, target)
            .map_err(|e| format!("--paired-with-rev: building {what}: {e}"))?;
        install(&built, &binary)?;
        Ok(binary)
    }

    /// `binary` where it was built before, said in one line.
    fn cached(&self, binary: &Path, what: &str) -> Option<PathBuf> {
        if !binary.is_file() {
            return None;
        }
        say(&format!("using {what} built before: {}", binary.display()));
        Some(binary.to_path_buf())
    }

    /// The cache's lock, held while one run checks out and builds: `src/`
    /// and `target/` are one for every commit.
    fn lock(&self) -> Result<File, String> {
        let path = self.root.join(".lock");
        let file = std::fs::create_dir_all(&self.root)
            .and_then(|()| OpenOptions::new().create(true).append(true).open(&path))
            .map_err(|e| format!("--paired-with-rev: {}: {e}", path.display()))?;
        let cannot =
            |e: std::io::Error| format!("--paired-with-rev: cannot lock {}: {e}", path.display());
        if !flock::try_lock_exclusive(&file).map_err(cannot)? {
            say(&format!(
                "waiting for another run building in {}",
                self.root.display()
            ));
            flock::lock_exclusive(&file).map_err(cannot)?;
        }
        Ok(file)
    }

    /// Checks `commit` out into `src/` and builds the bench target there;
    /// the executable in `target/`.
    fn build(
        &self,
        repo: &Repository,
        commit: &str,
        target: &BenchTarget,
    ) -> Result<PathBuf, String> {
        let tree = self.root.join("src");
        repo.check_out(commit, &tree, &self.root.join("index"))?;
        let manifest = tree.join(&repo.prefix).join("Cargo.toml");
        if !manifest.is_file() {
            return Err(format!("the commit has no {}Cargo.toml", repo.prefix));
        }
        let metadata = metadata_within(&manifest, &tree)?;
        let name = bench_target_name(&metadata, target.package, target.crate_name)?;
        build_bench(&manifest, target.package, &name, &self.root.join("target"))
    }
}

/// Copies the executable `built` to `binary` whole: under a temporary name
/// beside it, then renamed, so that a run looking into the cache at the
/// same time finds the whole binary or none. (A copy, not a link: the next
/// commit's build writes the same file in `target/`.)
fn install(built: &Path, binary: &Path) -> Result<(), String> {
    let folder = binary.parent().expect("bin/<commit>/<package>/<name>");
    let name = binary.file_name().expect("a name").to_string_lossy();
    let temporary = folder.join(format!(".{name}.tmp-{}", std::process::id()));
    let result = std::fs::create_dir_all(folder)
        .and_then(|()| std::fs::copy(built, &temporary))
        .and_then(|_| std::fs::rename(&temporary, binary));
    result.map_err(|e| {
        let _ = std::fs::remove_file(&temporary);
        format!("--paired-with-rev: cannot keep {}: {e}", binary.display())
    })
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

    #[test]
    fn a_commit_built_before_is_taken_from_the_cache_without_building() {
        let scratch = ScratchDir::new("revision-cached");
        let pkg = repository(scratch.root());
        let cache = Cache::at(&scratch.root().join("target"));
        let target = target_in(&pkg);
        let head = git(&pkg, &["rev-parse", "HEAD"]);
        let kept = cache.binary_path(&head, &target);
        std::fs::create_dir_all(kept.parent().unwrap()).unwrap();
        std::fs::write(&kept, "built before").unwrap();
        assert_eq!(cache.binary_at("HEAD", &target), Ok(kept.clone()));
        assert_eq!(cache.binary_at(&head[..12], &target), Ok(kept));
        // Nothing was checked out or built for it.
        assert!(!cache.root.join("src").exists());
    }

    #[test]
    fn an_unknown_revision_and_a_folder_outside_git_are_refused_by_name() {
        let scratch = ScratchDir::new("revision-refused");
        let pkg = repository(scratch.root());
        let cache = Cache::at(&scratch.root().join("target"));
        let e = cache
            .binary_at("no-such-branch", &target_in(&pkg))
            .unwrap_err();
        assert!(
            e.starts_with("--paired-with-rev `no-such-branch`: no such commit in "),
            "{e}"
        );
        let e = cache
            .binary_at("--output=/tmp/x", &target_in(&pkg))
            .unwrap_err();
        assert!(e.contains("not `--output=/tmp/x`"), "{e}");
        let outside = scratch.root().join("target");
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join(".git"), "not a repository").unwrap();
        let e = cache.binary_at("HEAD", &target_in(&outside)).unwrap_err();
        assert!(
            e.contains(&format!(
                "folder {} is not in a git repository",
                outside.display()
            )),
            "{e}"
        );
        let e = cache
            .binary_at("HEAD", &target_in(&scratch.root().join("gone")))
            .unwrap_err();
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
    fn a_binary_is_installed_whole_under_its_name_and_nothing_else_is_left() {
        let scratch = ScratchDir::new("revision-install");
        let built = scratch.root().join("built");
        std::fs::write(&built, "an executable").unwrap();
        let binary = scratch.root().join("bin/c/pkg/hot_loop");
        install(&built, &binary).unwrap();
        assert_eq!(std::fs::read_to_string(&binary).unwrap(), "an executable");
        let names: Vec<_> = std::fs::read_dir(binary.parent().unwrap())
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(names, ["hot_loop"]);
        let e = install(
            &scratch.root().join("missing"),
            &binary.with_file_name("other"),
        )
        .unwrap_err();
        assert!(e.contains("cannot keep") && e.contains("other"), "{e}");
        let names = std::fs::read_dir(binary.parent().unwrap()).unwrap().count();
        assert_eq!(names, 1);
    }
}
