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
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use crate::kernel::dir::{Dir, Kind};

/// A path of the revision cache refused, and why: one line,
/// `--paired-with-rev: PATH: REASON`.
#[derive(Debug)]
pub(super) struct CacheError {
    path: PathBuf,
    reason: Refusal,
}

/// Why a path of the cache is refused.
#[derive(Debug)]
pub(super) enum Refusal {
    /// A link where the cache keeps its own.
    Link,
    /// Something else where the cache keeps a folder.
    NotAFolder,
    /// Something else where the cache keeps a regular file.
    NotAFile,
    /// A folder could not be made.
    CreateFolder(io::Error),
    /// A file or folder could not be made.
    Create(io::Error),
    /// It could not be read.
    Read(io::Error),
    /// It could not be opened.
    Open(io::Error),
    /// It could not be locked.
    Lock(io::Error),
    /// The cache's lock file could not be used: what failed, and why.
    LockFile(&'static str, io::Error),
    /// A kept binary could not be kept (why).
    Keep(String),
    /// A kept binary changed between its build and its use.
    Changed,
}

impl CacheError {
    /// `path` refused for `reason`.
    pub(super) fn new(path: &Path, reason: Refusal) -> CacheError {
        CacheError {
            path: path.to_path_buf(),
            reason,
        }
    }
}

impl fmt::Display for CacheError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "--paired-with-rev: {}: ", self.path.display())?;
        match &self.reason {
            Refusal::Link => f.write_str(
                "is a link, and perfbench follows no link in its revision cache; remove it",
            ),
            Refusal::NotAFolder => f.write_str("is not a folder; remove it"),
            Refusal::NotAFile => f.write_str("is not a regular file; remove it"),
            Refusal::CreateFolder(e) => write!(f, "cannot create the folder: {e}"),
            Refusal::Create(e) => write!(f, "cannot create: {e}"),
            Refusal::Read(e) => write!(f, "cannot read: {e}"),
            Refusal::Open(e) => write!(f, "cannot open: {e}"),
            Refusal::Lock(e) => write!(f, "cannot lock: {e}"),
            Refusal::LockFile(what, e) => write!(f, "{what}: {e}"),
            Refusal::Keep(why) => write!(f, "cannot keep: {why}"),
            Refusal::Changed => f.write_str("changed between its build and its use; build again"),
        }
    }
}

impl std::error::Error for CacheError {}

/// The revision layer's errors are still text where they leave the cache.
impl From<CacheError> for String {
    fn from(e: CacheError) -> String {
        e.to_string()
    }
}

/// An open folder of the cache, with its path for messages.
#[derive(Debug)]
pub(super) struct CacheDir {
    dir: Dir,
    path: PathBuf,
}

impl CacheDir {
    /// The cache's root `root`, made with the folders above it: those are
    /// the user's (the target directory, which may be a link of theirs)
    /// and resolved as usual; the root itself must be a real folder.
    pub(super) fn root(root: &Path) -> Result<CacheDir, CacheError> {
        if let Some(parent) = root.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| CacheError::new(parent, Refusal::CreateFolder(e)))?;
        }
        match std::fs::create_dir(root) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(CacheError::new(root, Refusal::CreateFolder(e))),
        }
        match Dir::open(root) {
            Ok(dir) => Ok(CacheDir {
                dir,
                path: root.to_path_buf(),
            }),
            Err(e) => {
                let meta = std::fs::symlink_metadata(root).ok();
                let link = meta.is_some_and(|m| m.file_type().is_symlink());
                Err(refusal(root, link.then_some(Kind::Link), e))
            }
        }
    }

    /// The folder `name` in this one, made where there is none.
    pub(super) fn sub(&self, name: &str) -> Result<CacheDir, CacheError> {
        let path = self.path.join(name);
        match self.dir.make_dir(OsStr::new(name)) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(CacheError::new(&path, Refusal::CreateFolder(e))),
        }
        self.open_sub(name)
    }

    /// The folder `name` in this one, which exists.
    pub(super) fn open_sub(&self, name: &str) -> Result<CacheDir, CacheError> {
        let path = self.path.join(name);
        match self.dir.open_dir(OsStr::new(name)) {
            Ok(dir) => Ok(CacheDir { dir, path }),
            Err(e) => Err(refusal(&path, self.kind(name).ok().flatten(), e)),
        }
    }

    /// The folders `first`, then `rest`, under this one, each made where
    /// there is none.
    pub(super) fn walk(&self, first: &str, rest: &[&str]) -> Result<CacheDir, CacheError> {
        let mut folder = self.sub(first)?;
        for name in rest {
            folder = folder.sub(name)?;
        }
        Ok(folder)
    }

    /// What `name` is here, not following a link; `None` where there is
    /// nothing of that name.
    pub(super) fn kind(&self, name: &str) -> Result<Option<Kind>, CacheError> {
        match self.dir.stat(OsStr::new(name)) {
            Ok(stat) => Ok(Some(stat.kind)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(CacheError::new(&self.path_of(name), Refusal::Read(e))),
        }
    }

    /// Refuses `name` by name unless it is absent or a `want` (a folder or
    /// a regular file): what git and cargo are then given by path is what
    /// the cache keeps there, not a link to elsewhere.
    pub(super) fn expect(&self, name: &str, want: Kind) -> Result<(), CacheError> {
        let refused = |reason| Err(CacheError::new(&self.path_of(name), reason));
        match self.kind(name)? {
            None => Ok(()),
            Some(kind) if kind == want => Ok(()),
            Some(Kind::Link) => refused(Refusal::Link),
            Some(_) if want == Kind::Dir => refused(Refusal::NotAFolder),
            Some(_) => refused(Refusal::NotAFile),
        }
    }

    /// The error for the file `name` found to be no regular file.
    pub(super) fn not_a_file(&self, name: &str) -> CacheError {
        let reason = match self.kind(name) {
            Ok(Some(Kind::Link)) => Refusal::Link,
            _ => Refusal::NotAFile,
        };
        CacheError::new(&self.path_of(name), reason)
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
fn refusal(path: &Path, kind: Option<Kind>, e: io::Error) -> CacheError {
    let reason = match kind {
        Some(Kind::Link) => Refusal::Link,
        Some(Kind::File | Kind::Other) if e.raw_os_error() == Some(libc::ENOTDIR) => {
            Refusal::NotAFolder
        }
        _ => Refusal::Open(e),
    };
    CacheError::new(path, reason)
}
