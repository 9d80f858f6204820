//! Writing stored files without leaving half of one or debris behind.
//!
//! A file is written to a temporary name in its folder and renamed over the
//! real one ([`Folder::write`]). Temporary names carry the pid and random bits, so runs in
//! separate pid namespaces sharing a folder never collide. Every temporary
//! file and staging folder being written is registered here; an error
//! removes its own, SIGINT and SIGTERM remove them all before the process
//! exits ([`remove_unfinished_on_termination`]), and a run holding the
//! store's lock removes those of killed runs ([`remove_debris`]).

use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::hash::{BuildHasher, Hasher};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, RwLock, RwLockReadGuard};

use super::folder::Folder;
use crate::kernel::dir::Kind;
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

/// The temporary name under which [`Folder::write`](super::folder::Folder::write)
/// writes `name` before renaming it: hidden, marked and unique.
pub(super) fn temporary_name(name: &OsStr) -> String {
    format!(".{}{TEMP_MARK}{}", name.to_string_lossy(), unique_suffix())
}

/// From now on SIGINT and SIGTERM remove this process's unfinished files
/// and folders, then exit with 128 plus the signal's number (130, 143).
pub fn remove_unfinished_on_termination() -> std::io::Result<()> {
    signals::on_termination(remove_unfinished_and_exit)
}

fn remove_unfinished_and_exit(signal: i32) {
    // Waits for writes under way, and lets no other start. The paths are
    // this run's own, made through descriptors moments ago; std's
    // remove_dir_all removes a link inside, never follows it.
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

/// Removes the temporary files under `folder` (the results' folders, the
/// report and its subfolders, the baselines' versions) that no process
/// registered: with the store's lock held, those are what killed runs
/// left. Only real folders are entered and only regular files removed: a
/// link is neither. Staging folders of baselines are removed by their own
/// sweep.
pub(super) fn remove_debris(folder: &Folder, depth: usize) {
    for (name, kind) in folder.entries() {
        match kind {
            Kind::Dir if depth > 0 => {
                if let Ok(Some(inner)) = folder.sub(OsStr::new(&name), false) {
                    remove_debris(&inner, depth - 1);
                }
            }
            Kind::File if is_temporary(&name) && !is_unfinished(&folder.path_of(&name)) => {
                folder.remove(&name);
            }
            _ => {}
        }
    }
}

/// Whether `name` is a temporary name [`Folder::write`] makes.
fn is_temporary(name: &str) -> bool {
    name.starts_with('.') && name.contains(TEMP_MARK)
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
        let path = dir.join("out.json");
        std::fs::create_dir_all(path.join("inside")).unwrap();
        let folder = Folder::root(&dir, false).unwrap().unwrap();
        let e = folder.write("out.json", b"{}").unwrap_err();
        assert_eq!(e.path, path);
        assert_eq!(e.reason, "is a folder where a file should be; remove it");
        // A name of 250 bytes is allowed, its temporary name is not.
        let long = "n".repeat(250);
        let e = folder.write(&long, b"{}").unwrap_err();
        assert_eq!(e.path, dir.join(&long));
        assert!(e.reason.starts_with("cannot write: "), "{e}");
        let names: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().collect();
        assert_eq!(names.len(), 1, "only the folder in the way: {names:?}");
        assert!(!unfinished().iter().any(|p| p.starts_with(&dir)));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn debris_is_temporary_files_no_one_is_writing_inside_the_store() {
        let dir = std::env::temp_dir().join(format!("perfbench-debris-{}", std::process::id()));
        let outside = dir.with_extension("outside");
        let _ = std::fs::remove_dir_all(&dir);
        let _ = std::fs::remove_dir_all(&outside);
        let deep = dir.join("report").join("group");
        let stale = [
            dir.join("x").join(".latest.json.tmp-1-00ff"),
            deep.join(".g.html.tmp-7"),
        ];
        let kept = [
            dir.join("x").join("latest.json"),
            deep.join("tmp-7.html"),
            outside.join(".bashrc.tmp-1"),
            outside.join("inner").join(".x.tmp-2"),
        ];
        for f in stale.iter().chain(&kept) {
            std::fs::create_dir_all(f.parent().unwrap()).unwrap();
            std::fs::write(f, "x").unwrap();
        }
        std::os::unix::fs::symlink(&outside, dir.join("linked")).unwrap();
        std::os::unix::fs::symlink(outside.join(".bashrc.tmp-1"), dir.join(".l.tmp-3")).unwrap();
        let live = Unfinished::register(dir.join(".index.html.tmp-9"));
        std::fs::write(live.path(), "x").unwrap();
        remove_debris(&Folder::root(&dir, false).unwrap().unwrap(), 2);
        assert!(stale.iter().all(|f| !f.exists()), "{stale:?}");
        assert!(kept.iter().all(|f| f.exists()), "{kept:?}");
        assert!(live.path().exists(), "this process is writing it");
        assert!(
            dir.join(".l.tmp-3").symlink_metadata().is_ok(),
            "a link is no debris"
        );
        let _ = std::fs::remove_dir_all(&dir);
        let _ = std::fs::remove_dir_all(&outside);
    }
}
