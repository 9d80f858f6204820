//! A folder of the revision cache, reached from the cache's root one
//! folder at a time through descriptors ([`Dir`]: `openat` with
//! `O_NOFOLLOW`), so that no link anywhere in the cache is followed: a
//! `target/` restored from an untrusted CI cache cannot lead a read, a
//! write, a removal or a build outside it.
//!
//! A link, or anything else that is not what the cache keeps there, where
//! it keeps a folder or a file of its own is refused with one line naming
//! it. (The cache is not the store: its messages say so, and its files are
//! built binaries, not results; `store/folder.rs` is the store's twin.)

use std::ffi::OsStr;
use std::io;
use std::path::{Path, PathBuf};

use super::revision_error::RevisionError;
use crate::kernel::dir::{Dir, Kind};

/// Why a name is refused where the cache keeps its own: one per kind.
const LINK: &str = "is a link, and perfbench follows no link in its revision cache; remove it";
const NOT_A_FOLDER: &str = "is not a folder; remove it";
const NOT_A_FILE: &str = "is not a regular file; remove it";

/// An open folder of the cache, with its path for messages.
#[derive(Debug)]
pub(super) struct CacheDir {
    dir: Dir,
    path: PathBuf,
}

/// The one-line error of `--paired-with-rev` about `path`.
pub(super) fn refused(path: &Path, reason: impl std::fmt::Display) -> RevisionError {
    RevisionError::Refused(path.to_path_buf(), reason.to_string())
}

impl CacheDir {
    /// The cache's root `root`, made with the folders above it: those are
    /// the user's (the target directory, which may be a link of theirs)
    /// and resolved as usual; the root itself must be a real folder.
    pub(super) fn root(root: &Path) -> Result<CacheDir, RevisionError> {
        if let Some(parent) = root.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| refused(parent, format!("cannot create the folder: {e}")))?;
        }
        match std::fs::create_dir(root) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(refused(root, format!("cannot create the folder: {e}"))),
        }
        match Dir::open(root) {
            Ok(dir) => Ok(CacheDir {
                dir,
                path: root.to_path_buf(),
            }),
            Err(e) => {
                let meta = std::fs::symlink_metadata(root).ok();
                let link = meta.is_some_and(|m| m.file_type().is_symlink());
                Err(refusal(root, link.then_some(Kind::Link), &e))
            }
        }
    }

    /// The folder `name` in this one, made where there is none.
    pub(super) fn sub(&self, name: &str) -> Result<CacheDir, RevisionError> {
        let path = self.path.join(name);
        match self.dir.make_dir(OsStr::new(name)) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(refused(&path, format!("cannot create the folder: {e}"))),
        }
        self.open_sub(name)
    }

    /// The folder `name` in this one, which exists.
    pub(super) fn open_sub(&self, name: &str) -> Result<CacheDir, RevisionError> {
        let path = self.path.join(name);
        match self.dir.open_dir(OsStr::new(name)) {
            Ok(dir) => Ok(CacheDir { dir, path }),
            Err(e) => Err(refusal(&path, self.kind(name).ok().flatten(), &e)),
        }
    }

    /// The folders `first`, then `rest`, under this one, each made where
    /// there is none.
    pub(super) fn walk(&self, first: &str, rest: &[&str]) -> Result<CacheDir, RevisionError> {
        let mut folder = self.sub(first)?;
        for name in rest {
            folder = folder.sub(name)?;
        }
        Ok(folder)
    }

    /// What `name` is here, not following a link; `None` where there is
    /// nothing of that name.
    pub(super) fn kind(&self, name: &str) -> Result<Option<Kind>, RevisionError> {
        match self.dir.stat(OsStr::new(name)) {
            Ok(stat) => Ok(Some(stat.kind)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(refused(&self.path_of(name), format!("cannot read: {e}"))),
        }
    }

    /// Refuses `name` by name unless it is absent or a `want` (a folder or
    /// a regular file): what git and cargo are then given by path is what
    /// the cache keeps there, not a link to elsewhere.
    pub(super) fn expect(&self, name: &str, want: Kind) -> Result<(), RevisionError> {
        match self.kind(name)? {
            None => Ok(()),
            Some(kind) if kind == want => Ok(()),
            Some(Kind::Link) => Err(refused(&self.path_of(name), LINK)),
            Some(_) if want == Kind::Dir => Err(refused(&self.path_of(name), NOT_A_FOLDER)),
            Some(_) => Err(refused(&self.path_of(name), NOT_A_FILE)),
        }
    }

    /// The error for the file `name` found to be no regular file.
    pub(super) fn not_a_file(&self, name: &str) -> RevisionError {
        match self.kind(name) {
            Ok(Some(Kind::Link)) => refused(&self.path_of(name), LINK),
            _ => refused(&self.path_of(name), NOT_A_FILE),
        }
    }

    /// The path of `name` in this folder, for messages and for the tools
    /// given paths (git, cargo, the driver).
    pub(super) fn path_of(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }

    /// The folder's path.
    pub(super) fn path(&self) -> &Path {
        &self.path
    }

    /// The folder's descriptor.
    pub(super) fn dir(&self) -> &Dir {
        &self.dir
    }

    /// Removes `name`, and everything in it where it is a folder, without
    /// following any link; what cannot be removed is left.
    pub(super) fn remove(&self, name: &str) {
        let _ = self.dir.remove_tree(OsStr::new(name));
    }
}

/// The error for `path`, which could not be opened as a folder: a link,
/// or something else, where `kind` says what it is.
fn refusal(path: &Path, kind: Option<Kind>, e: &io::Error) -> RevisionError {
    match kind {
        Some(Kind::Link) => refused(path, LINK),
        Some(Kind::File | Kind::Other) if e.raw_os_error() == Some(libc::ENOTDIR) => {
            refused(path, NOT_A_FOLDER)
        }
        _ => refused(path, format!("cannot open: {e}")),
    }
}
