//! The store's lock: one run at a time writes under a root. The lock is
//! `flock(2)` on `<root>/.lock`, which the kernel releases however the
//! holder ends; the holder writes who it is into the file, so that a run
//! that has to wait can say whom for. [`LockFile`] is that file, taken in
//! any folder held open (the cache of `--paired-with-rev` takes its own).

use std::ffi::OsStr;
use std::fs::File;
use std::io::{self, Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::measure::environment::utc_time;

use super::folder::Folder;
use super::{error, files, Store, StoreError};
use crate::kernel::dir::{Access, Dir};
use crate::kernel::flock;

/// The lock file's name in the root.
pub const LOCK_FILE: &str = ".lock";

/// The store's lock, held until dropped.
#[derive(Debug)]
pub struct StoreLock {
    /// Held until the store's lock is dropped.
    _lock: LockFile,
    root: PathBuf,
}

/// A `.lock` file held with `flock(2)`, until dropped: then emptied, so
/// that the next holder can tell a holder that ended normally from one
/// that was killed.
#[derive(Debug)]
pub struct LockFile {
    file: File,
}

/// Why a [`LockFile`] could not be taken.
#[derive(Debug)]
pub enum LockFailure {
    /// `.lock` is no regular file (a FIFO, a device, a folder, or a link,
    /// which is never opened).
    NotAFile,
    /// It could not be opened, locked or written.
    Io(&'static str, io::Error),
}

impl LockFile {
    /// Takes the lock `.lock` in `folder`, made if there is none. If
    /// another holds it, `waiting` is told who (the line that holder wrote,
    /// or "another run") before this waits. The file is opened without
    /// following a link (opening one would create or empty whatever it
    /// points at) and without waiting (a FIFO does not hang the run), and
    /// must be a regular file. `Ok` with whether the last holder was killed
    /// (it left its line).
    pub fn take(folder: &Dir, waiting: impl FnOnce(&str)) -> Result<(LockFile, bool), LockFailure> {
        let name = OsStr::new(LOCK_FILE);
        let mut file = match folder.open_file(name, Access::ReadWriteOrCreate) {
            Ok(file) => file,
            Err(e) if e.raw_os_error() == Some(libc::ELOOP) => return Err(LockFailure::NotAFile),
            Err(e) => return Err(LockFailure::Io("cannot write in the folder", e)),
        };
        let meta = file
            .metadata()
            .map_err(|e| LockFailure::Io("cannot read", e))?;
        if !meta.is_file() {
            return Err(LockFailure::NotAFile);
        }
        let fail = |e| LockFailure::Io("cannot lock", e);
        if !flock::try_lock_exclusive(&file).map_err(fail)? {
            let holder = read_holder(&mut file);
            let holder = holder.trim();
            waiting(if holder.is_empty() {
                "another run"
            } else {
                holder
            });
            flock::lock_exclusive(&file).map_err(fail)?;
        }
        // A holder that ended normally emptied the file (`Drop`); one that
        // was killed left its line.
        let _ = file.rewind();
        let killed = !read_holder(&mut file).trim().is_empty();
        let me = holder_line();
        file.set_len(0)
            .and_then(|()| file.rewind())
            .and_then(|()| file.write_all(me.as_bytes()))
            .map_err(|e| LockFailure::Io("cannot write", e))?;
        Ok((LockFile { file }, killed))
    }
}

impl Drop for LockFile {
    fn drop(&mut self) {
        // The next holder writes its own; an empty file says "unknown"
        // rather than naming a run that ended.
        let _ = self.file.set_len(0);
    }
}

impl StoreLock {
    /// The root it locks.
    pub fn root(&self) -> &Path {
        &self.root
    }
}

impl Store {
    /// Takes the store's lock for a run that writes, making the root if
    /// needed: a root that is not a folder, or cannot be made or written,
    /// is the error. If another run holds it, `waiting` is told who (pid,
    /// host, start, command) before this waits for it. Once held, debris of
    /// a killed run is removed (when the last holder did not end normally), and SIGINT/SIGTERM remove this run's
    /// unfinished files before it exits.
    pub fn lock(&self, waiting: impl FnOnce(&str)) -> Result<StoreLock, StoreError> {
        let root = Folder::root(&self.root, true)?.expect("made");
        // A link, a folder or a FIFO in its place is named in the store's
        // words; `LockFile::take` checks again what it opened.
        root.stat_file(LOCK_FILE)?;
        let (lock, killed) = LockFile::take(root.dir(), waiting).map_err(|e| match e {
            LockFailure::NotAFile => error(
                &self.root.join(LOCK_FILE),
                "is not a regular file; remove it",
            ),
            LockFailure::Io(what, e) => error(&self.root, format!("{what}: {e}")),
        })?;
        files::remove_unfinished_on_termination()
            .map_err(|e| error(&self.root, format!("cannot watch for Ctrl-C: {e}")))?;
        if killed {
            // Walking a store of thousands of folders costs more than the
            // run of one benchmark: only after a run that did not end.
            self.remove_debris();
        }
        Ok(StoreLock {
            _lock: lock,
            root: self.root.clone(),
        })
    }
}

/// The line a holder wrote into the lock file: at most [`MAX_HOLDER`]
/// bytes of it, whatever the file holds.
fn read_holder(file: &mut File) -> String {
    let mut holder = Vec::new();
    let _ = Read::by_ref(file).take(MAX_HOLDER).read_to_end(&mut holder);
    String::from_utf8_lossy(&holder).into_owned()
}

/// The most of the lock file read: a holder's line is far shorter.
const MAX_HOLDER: u64 = 4096;

/// Who this process is, for a run that has to wait: pid, host, when it
/// started (UTC) and its command line.
fn holder_line() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    let command: Vec<String> = std::env::args().collect();
    format!(
        "pid {} on {}, since {}: {}\n",
        std::process::id(),
        host.trim(),
        utc_time(SystemTime::now()),
        command.join(" ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_locker_is_told_who_holds_the_lock() {
        let root = std::env::temp_dir().join(format!("perfbench-lock-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let store = Store::at(&root);
        let held = store.lock(|_| panic!("no one holds it")).unwrap();
        let text = std::fs::read_to_string(root.join(LOCK_FILE)).unwrap();
        assert!(
            text.starts_with(&format!("pid {} on ", std::process::id())),
            "{text}"
        );
        // flock locks belong to the open file: a second open of the same
        // file in this process waits like another process would.
        let (told, heard) = std::sync::mpsc::channel();
        let other = store.clone();
        let thread = std::thread::spawn(move || {
            other
                .lock(|holder| told.send(holder.to_string()).unwrap())
                .unwrap();
        });
        assert_eq!(heard.recv().unwrap(), text.trim());
        drop(held);
        thread.join().unwrap();
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn a_file_where_the_root_should_be_is_one_error_naming_it() {
        let root = std::env::temp_dir().join(format!("perfbench-lock-file-{}", std::process::id()));
        std::fs::write(&root, "not a folder").unwrap();
        let e = Store::at(&root).lock(|_| {}).unwrap_err();
        assert_eq!(e.path, root);
        assert_eq!(e.reason, "is not a folder; results are stored in a folder");
        assert_eq!(std::fs::read_to_string(&root).unwrap(), "not a folder");
        let _ = std::fs::remove_file(&root);
    }
}
