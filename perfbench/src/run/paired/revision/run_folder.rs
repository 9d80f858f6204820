//! `run/<pid>-<time>/` in the revision cache: a fresh folder of this
//! process's own, mode 0700, made by it (never one found there), where the
//! checked copy of a cached binary that the paired run executes is
//! written. The process holds `flock(2)` on its `.lock` until it ends (the
//! kernel drops it however it ends); a later run removes the folders whose
//! lock no one holds.

use std::ffi::OsStr;
use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

use super::cache_dir::{refused, CacheDir};
use super::revision_error::RevisionError;
use crate::kernel::dir::Access;
use crate::kernel::flock;
use crate::store::LOCK_FILE;

/// The folder of the copies in the cache's root.
const RUNS: &str = "run";

/// A folder of this process's own under `run/`.
#[derive(Debug)]
pub(super) struct RunFolder {
    folder: CacheDir,
}

impl RunFolder {
    /// Makes this process's folder in the cache `root`, after removing
    /// those of runs that ended. Called with the cache's lock held: no
    /// other run makes or removes one meanwhile.
    pub(super) fn make(root: &CacheDir) -> Result<RunFolder, RevisionError> {
        let runs = root.sub(RUNS)?;
        remove_ended(&runs);
        let since = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        let name = format!("{}-{}", std::process::id(), since.as_nanos());
        runs.dir()
            .make_private_dir(OsStr::new(&name))
            .map_err(|e| refused(&runs.path_of(&name), format!("cannot create: {e}")))?;
        let folder = runs.open_sub(&name)?;
        let lock = folder
            .dir()
            .open_file(OsStr::new(LOCK_FILE), Access::CreateNew)
            .and_then(|file| flock::lock_exclusive(&file).map(|()| file))
            .map_err(|e| refused(&folder.path_of(LOCK_FILE), format!("cannot lock: {e}")))?;
        // Held until the process ends: the paired run starts the copy
        // again for every block of rounds, to its last.
        std::mem::forget(lock);
        Ok(RunFolder { folder })
    }

    /// The folder.
    pub(super) fn folder(&self) -> &CacheDir {
        &self.folder
    }

    /// The path of `name` in it.
    pub(super) fn path_of(&self, name: &str) -> PathBuf {
        self.folder.path_of(name)
    }
}

/// Removes every entry of `runs` but the folders whose `.lock` a running
/// process holds, following no link.
fn remove_ended(runs: &CacheDir) {
    let names = runs.dir().list().unwrap_or_default();
    for name in names.iter().filter_map(|n| n.to_str()) {
        let held = runs
            .open_sub(name)
            .ok()
            .and_then(|f| f.dir().open_file(OsStr::new(LOCK_FILE), Access::Read).ok())
            .is_some_and(|lock| matches!(flock::try_lock_exclusive(&lock), Ok(false)));
        if !held {
            runs.remove(name);
        }
    }
}
