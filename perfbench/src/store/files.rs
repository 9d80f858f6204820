//! Writing stored files without leaving half of one or debris behind.
//!
//! A file is written to a temporary name in its folder and renamed over the
//! real one. Temporary names carry the pid and random bits, so runs in
//! separate pid namespaces sharing a folder never collide. Every temporary
//! file and staging folder being written is registered here; an error
//! removes its own, SIGINT and SIGTERM remove them all before the process
//! exits ([`remove_unfinished_on_termination`]), and a run holding the
//! store's lock removes those of killed runs ([`remove_debris`]).

use std::collections::BTreeSet;
use std::hash::{BuildHasher, Hasher};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, RwLock, RwLockReadGuard};

use super::{error, StoreError};
use crate::kernel::signals;

/// Held (shared) while a file or folder is being made or switched; the
/// termination cleanup takes it exclusively, so it never races a write and
/// no write starts after it.
static GATE: RwLock<()> = RwLock::new(());

/// The temporary files and staging folders of this process not yet
/// renamed into place.
static UNFINISHED: Mutex<BTreeSet<PathBuf>> = Mutex::new(BTreeSet::new());

/// The part of temporary names that marks them.
const TEMP_MARK: &str = ".tmp-";

/// A suffix no other process or call of this one uses: the pid, and random
/// bits (std's `RandomState` is seeded from the OS) mixed with a count.
pub(super) fn unique_suffix() -> String {
    static CALLS: AtomicU64 = AtomicU64::new(0);
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(CALLS.fetch_add(1, Ordering::Relaxed));
    format!("{}-{:016x}", std::process::id(), hasher.finish())
}

/// Shares the gate for the life of the guard; see [`GATE`].
pub(super) fn gate() -> RwLockReadGuard<'static, ()> {
    GATE.read().unwrap_or_else(|e| e.into_inner())
}

/// A temporary file or staging folder registered as unfinished until the
/// guard drops.
#[derive(Debug)]
pub(super) struct Unfinished(PathBuf);

impl Unfinished {
    /// Registers `path`, before it is made.
    pub(super) fn register(path: PathBuf) -> Unfinished {
        unfinished().insert(path.clone());
        Unfinished(path)
    }

    /// The registered path.
    pub(super) fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Unfinished {
    fn drop(&mut self) {
        unfinished().remove(&self.0);
    }
}

fn unfinished() -> std::sync::MutexGuard<'static, BTreeSet<PathBuf>> {
    UNFINISHED.lock().unwrap_or_else(|e| e.into_inner())
}

/// Writes `bytes` to `path` through a temporary file in the same folder and
/// a rename, so that `path` holds either the old or the new content. On
/// any error the temporary file is removed and the error names `path`.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    let dir = path.parent().expect("stored files have a folder");
    std::fs::create_dir_all(dir)
        .map_err(|e| error(dir, format!("cannot create the folder: {e}")))?;
    let name = path.file_name().expect("a file name").to_string_lossy();
    let _gate = gate();
    let tmp = Unfinished::register(dir.join(format!(".{name}{TEMP_MARK}{}", unique_suffix())));
    let written =
        std::fs::write(tmp.path(), bytes).and_then(|()| std::fs::rename(tmp.path(), path));
    written.map_err(|e| {
        let _ = std::fs::remove_file(tmp.path());
        error(path, format!("cannot write: {e}"))
    })
}

/// From now on SIGINT and SIGTERM remove this process's unfinished files
/// and folders, then exit with 128 plus the signal's number (130, 143).
pub fn remove_unfinished_on_termination() -> std::io::Result<()> {
    signals::on_termination(remove_unfinished_and_exit)
}

fn remove_unfinished_and_exit(signal: i32) {
    // Waits for writes under way, and lets no other start.
    let _gate = GATE.write().unwrap_or_else(|e| e.into_inner());
    for path in unfinished().iter() {
        if path.is_dir() {
            let _ = std::fs::remove_dir_all(path);
        } else {
            let _ = std::fs::remove_file(path);
        }
    }
    std::process::exit(128 + signal);
}

/// Removes the temporary files under `root` (the results' folders, the
/// report and its subfolders, the baselines' versions) that no process
/// registered: with the store's lock held, those are what killed runs
/// left. Staging folders of baselines are removed by their own sweep.
pub(super) fn remove_debris(root: &Path, depth: usize) {
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() && depth > 0 {
            remove_debris(&path, depth - 1);
        } else if kind.is_file() && is_temporary(&entry.file_name()) && !is_unfinished(&path) {
            let _ = std::fs::remove_file(&path);
        }
    }
}

/// Whether `name` is a temporary name [`write_atomically`] makes.
fn is_temporary(name: &std::ffi::OsStr) -> bool {
    name.to_str()
        .is_some_and(|n| n.starts_with('.') && n.contains(TEMP_MARK))
}

/// Whether this process registered `path` as unfinished.
pub(super) fn is_unfinished(path: &Path) -> bool {
    unfinished().contains(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suffixes_differ_between_calls() {
        let a = unique_suffix();
        let b = unique_suffix();
        assert_ne!(a, b);
        assert!(a.starts_with(&format!("{}-", std::process::id())), "{a}");
        assert_eq!(a.len(), b.len());
    }

    #[test]
    fn a_failed_write_leaves_no_temporary_file_and_names_the_real_one() {
        let dir = std::env::temp_dir().join(format!("perfbench-files-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        // Renaming a file over a non-empty folder fails after the write.
        let path = dir.join("out.json");
        std::fs::create_dir_all(path.join("inside")).unwrap();
        let e = write_atomically(&path, b"{}").unwrap_err();
        assert_eq!(e.path, path);
        assert!(e.reason.starts_with("cannot write: "), "{e}");
        let names: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().collect();
        assert_eq!(names.len(), 1, "only the folder in the way: {names:?}");
        assert!(!unfinished().iter().any(|p| p.starts_with(&dir)));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn debris_is_temporary_files_no_one_is_writing() {
        let dir = std::env::temp_dir().join(format!("perfbench-debris-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let deep = dir.join("report").join("group");
        std::fs::create_dir_all(&deep).unwrap();
        let stale = [
            dir.join("x").join(".latest.json.tmp-1-00ff"),
            deep.join(".g.html.tmp-7"),
        ];
        let kept = [dir.join("x").join("latest.json"), deep.join("tmp-7.html")];
        for f in stale.iter().chain(&kept) {
            std::fs::create_dir_all(f.parent().unwrap()).unwrap();
            std::fs::write(f, "x").unwrap();
        }
        let live = Unfinished::register(dir.join(".index.html.tmp-9"));
        std::fs::write(live.path(), "x").unwrap();
        remove_debris(&dir, 2);
        assert!(stale.iter().all(|f| !f.exists()), "{stale:?}");
        assert!(kept.iter().all(|f| f.exists()), "{kept:?}");
        assert!(live.path().exists(), "this process is writing it");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
