//! A folder of the store, reached from its root one folder at a time
//! through descriptors ([`Dir`]), so that no link anywhere in the store is
//! followed: a store restored from an untrusted cache cannot lead a read,
//! a write or a removal outside it.
//!
//! A link, or anything else that is not what perfbench keeps there, where
//! perfbench expects a folder or a file of its own is refused with an
//! error naming it. Files are read through one bounded reader
//! ([`Folder::read`]): a regular file of at most the limit, opened without
//! waiting (a FIFO does not hang the run), never a device or a link.

use std::ffi::OsStr;
use std::io::{self, Read, Write};
use std::path::{Component, Path, PathBuf};

use super::files::{self, Unfinished};
use super::{error, StoreError, MAX_STORED_BYTES};
use crate::kernel::dir::{Access, Dir, Kind, Stat};

/// What the store may hold where it is refused: one reason per kind.
const LINK: &str = "is a link, and perfbench follows no link in its store; remove it";
const NOT_A_FOLDER: &str = "is not a folder; remove it";
const IS_A_FOLDER: &str = "is a folder where a file should be; remove it";
const NOT_A_FILE: &str = "is not a regular file; remove it";
const ROOT_LINK: &str =
    "is a link, and perfbench follows no link in its store; set PERFBENCH_HOME to the folder itself";

/// An open folder of the store, with its path for messages.
#[derive(Debug)]
pub(super) struct Folder {
    dir: Dir,
    path: PathBuf,
}

impl Folder {
    /// The store's root `root`, made (with the folders above it) where
    /// `create` asks; `None` where it does not exist. The folders above
    /// it are the user's and resolved as usual; the root itself must be a
    /// real folder.
    pub(super) fn root(root: &Path, create: bool) -> Result<Option<Folder>, StoreError> {
        match std::fs::symlink_metadata(root).as_ref().map(kind_of) {
            Ok(Kind::Link) => return Err(error(root, ROOT_LINK)),
            Ok(Kind::File | Kind::Other) => {
                return Err(error(
                    root,
                    "is not a folder; results are stored in a folder",
                ))
            }
            Ok(Kind::Dir) => {}
            Err(_) if !create => return Ok(None),
            Err(_) => std::fs::create_dir_all(root)
                .map_err(|e| error(root, format!("cannot create the folder: {e}")))?,
        }
        match Dir::open(root) {
            Ok(dir) => Ok(Some(Folder {
                dir,
                path: root.to_path_buf(),
            })),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => {
                let kind = std::fs::symlink_metadata(root).ok();
                Err(refusal(root, kind.as_ref().map(kind_of), e))
            }
        }
    }

    /// The folder `rel` (plain names only) under the root, walked one
    /// folder at a time and made where `create` asks.
    pub(super) fn walk(
        root: &Path,
        rel: &Path,
        create: bool,
    ) -> Result<Option<Folder>, StoreError> {
        let Some(mut folder) = Folder::root(root, create)? else {
            return Ok(None);
        };
        for part in rel.components() {
            let Component::Normal(name) = part else {
                return Err(error(&root.join(rel), "is not a path inside the store"));
            };
            match folder.sub(name, create)? {
                Some(next) => folder = next,
                None => return Ok(None),
            }
        }
        Ok(Some(folder))
    }

    /// The folder `name` in this one, made where `create` asks; `None`
    /// where there is none.
    pub(super) fn sub(&self, name: &OsStr, create: bool) -> Result<Option<Folder>, StoreError> {
        let path = self.path.join(name);
        if create {
            match self.dir.make_dir(name) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(error(&path, format!("cannot create the folder: {e}"))),
            }
        }
        match self.dir.open_dir(name) {
            Ok(dir) => Ok(Some(Folder { dir, path })),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(refusal(&path, self.dir.stat(name).ok().map(|s| s.kind), e)),
        }
    }

    /// The path of `name` in this folder, for messages.
    pub(super) fn path_of(&self, name: impl AsRef<OsStr>) -> PathBuf {
        self.path.join(name.as_ref())
    }

    /// This folder's path.
    pub(super) fn path(&self) -> &Path {
        &self.path
    }

    /// This folder's name in its parent.
    pub(super) fn name(&self) -> &OsStr {
        self.path.file_name().unwrap_or_default()
    }

    /// The folder's descriptor.
    pub(super) fn dir(&self) -> &Dir {
        &self.dir
    }

    /// What `name` is here; `None` where there is nothing of that name.
    pub(super) fn stat(&self, name: impl AsRef<OsStr>) -> Result<Option<Stat>, StoreError> {
        let name = name.as_ref();
        match self.dir.stat(name) {
            Ok(stat) => Ok(Some(stat)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(error(&self.path_of(name), format!("cannot read: {e}"))),
        }
    }

    /// What the regular file `name` is; `None` where there is nothing of
    /// that name, an error naming it where it is something else.
    pub(super) fn stat_file(&self, name: impl AsRef<OsStr>) -> Result<Option<Stat>, StoreError> {
        let name = name.as_ref();
        let Some(stat) = self.stat(name)? else {
            return Ok(None);
        };
        match not_a_file(stat.kind) {
            None => Ok(Some(stat)),
            Some(reason) => Err(error(&self.path_of(name), reason)),
        }
    }

    /// The names in this folder that are UTF-8 (perfbench makes no other),
    /// with what each is, sorted; none where it cannot be listed.
    pub(super) fn entries(&self) -> Vec<(String, Kind)> {
        let names = self.dir.list().unwrap_or_default();
        let mut entries: Vec<(String, Kind)> = names
            .into_iter()
            .filter_map(|n| n.into_string().ok())
            .filter_map(|n| {
                let kind = self.dir.stat(OsStr::new(&n)).ok()?.kind;
                Some((n, kind))
            })
            .collect();
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        entries
    }

    /// The text of the file `name`; `None` where there is none. It must be
    /// a regular file of at most [`MAX_STORED_BYTES`], refused unread
    /// otherwise.
    pub(super) fn read(&self, name: impl AsRef<OsStr>) -> Result<Option<String>, StoreError> {
        let name = name.as_ref();
        let path = self.path_of(name);
        let file = match self.dir.open_file(name, Access::Read) {
            Ok(file) => file,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(refusal(&path, self.dir.stat(name).ok().map(|s| s.kind), e)),
        };
        let meta = file
            .metadata()
            .map_err(|e| error(&path, format!("cannot read: {e}")))?;
        if let Some(reason) = not_a_file(kind_of(&meta)) {
            return Err(error(&path, reason));
        }
        if meta.len() > MAX_STORED_BYTES {
            return Err(too_large(&path, meta.len()));
        }
        // The file may grow while it is read: never past the limit.
        let mut bytes = Vec::with_capacity(meta.len() as usize);
        file.take(MAX_STORED_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| error(&path, format!("cannot read: {e}")))?;
        if bytes.len() as u64 > MAX_STORED_BYTES {
            return Err(too_large(&path, bytes.len() as u64));
        }
        String::from_utf8(bytes)
            .map(Some)
            .map_err(|_| error(&path, "is not UTF-8 text; remove it"))
    }

    /// Writes `bytes` to `name` through a temporary file and a rename, so
    /// that `name` holds the old content or the new, whole; the rename
    /// replaces a link `name` itself, never writes through it. On any error
    /// the temporary file is removed and the error names `name`.
    pub(super) fn write(&self, name: impl AsRef<OsStr>, bytes: &[u8]) -> Result<(), StoreError> {
        let name = name.as_ref();
        let path = self.path_of(name);
        // Renaming over a link would replace it safely, but a link here
        // was not made by perfbench: it is named like any other.
        match self.stat(name)?.map(|s| s.kind) {
            Some(Kind::Dir) => return Err(error(&path, IS_A_FOLDER)),
            Some(Kind::Link) => return Err(error(&path, LINK)),
            _ => {}
        }
        let _gate = files::gate();
        let tmp_name = files::temporary_name(name);
        let tmp = Unfinished::register(self.path_of(&tmp_name));
        let written = self
            .write_new(OsStr::new(&tmp_name), bytes)
            .and_then(|()| self.dir.rename(OsStr::new(&tmp_name), &self.dir, name));
        written.map_err(|e| {
            let _ = self.dir.remove_file(OsStr::new(&tmp_name));
            drop(tmp);
            error(&path, format!("cannot write: {e}"))
        })
    }

    fn write_new(&self, name: &OsStr, bytes: &[u8]) -> io::Result<()> {
        let mut file = self.dir.open_file(name, Access::CreateNew)?;
        file.write_all(bytes)
    }

    /// Removes `name`, and everything in it where it is a folder, without
    /// following any link; what cannot be removed is left.
    pub(super) fn remove(&self, name: impl AsRef<OsStr>) {
        let _ = self.dir.remove_tree(name.as_ref());
    }
}

/// The error for `path`, which could not be opened as what perfbench keeps
/// there: a link, or something else, where `kind` says what it is.
fn refusal(path: &Path, kind: Option<Kind>, e: io::Error) -> StoreError {
    match kind {
        Some(Kind::Link) => error(path, LINK),
        Some(Kind::File | Kind::Other) if e.raw_os_error() == Some(libc::ENOTDIR) => {
            error(path, NOT_A_FOLDER)
        }
        _ => error(path, format!("cannot open: {e}")),
    }
}

/// Why a name of kind `kind` is refused where perfbench keeps a file of
/// its own; `None` for a regular file.
fn not_a_file(kind: Kind) -> Option<&'static str> {
    match kind {
        Kind::File => None,
        Kind::Link => Some(LINK),
        Kind::Dir => Some(IS_A_FOLDER),
        Kind::Other => Some(NOT_A_FILE),
    }
}

/// What std's metadata (of a path not followed) says it is.
fn kind_of(meta: &std::fs::Metadata) -> Kind {
    let t = meta.file_type();
    if t.is_symlink() {
        Kind::Link
    } else if t.is_dir() {
        Kind::Dir
    } else if t.is_file() {
        Kind::File
    } else {
        Kind::Other
    }
}

/// A file past [`MAX_STORED_BYTES`].
fn too_large(path: &Path, size: u64) -> StoreError {
    error(
        path,
        format!(
            "{} MB, past the {} MB a stored result may have; remove it",
            size.div_ceil(1 << 20),
            MAX_STORED_BYTES >> 20
        ),
    )
}
