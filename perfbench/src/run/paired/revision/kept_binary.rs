//! A bench binary kept in the cache, `bin/<commit>/<package>/<crate
//! name>`, beside its record `<crate name>.json`, written after the build:
//! the commit, package and crate it was built for, its size and its hash
//! (`git hash-object --no-filters`). The kept file is never run: a run
//! copies it into a fresh folder of its own ([`RunFolder`]), hashing the
//! bytes as it writes them, and runs the copy only if they are the
//! record's, so that nothing can change the file between the check and
//! the run.
//!
//! What the record proves: that the bytes are those a run wrote there
//! after building that commit's bench target, unless whoever can write the
//! target directory wrote the record too. It has no secret: it turns away
//! a binary planted or replaced without its record, a link, a truncated
//! or half-written copy, a record of another commit or target; it cannot
//! turn away a forgery made with care. Cargo trusts the target directory
//! as much (its fingerprints and build scripts live there too).

use std::ffi::OsStr;
use std::fs::File;
use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::cache_dir::{refused, CacheDir};
use super::revision_error::RevisionError;
use super::run_folder::RunFolder;
use crate::kernel::dir::{Access, Kind};
use crate::run::paired::git_tree::Repository;

/// What a kept binary was built for, and what it is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Record {
    /// The commit, a full hash.
    pub commit: String,
    /// The package.
    pub package: String,
    /// The bench target's crate name.
    pub crate_name: String,
    /// Its size in bytes.
    pub size: u64,
    /// `git hash-object --no-filters` of its bytes.
    pub hash: String,
}

/// The most of a record read: one is far shorter.
const MAX_RECORD: u64 = 4096;

/// What the cache holds for a binary.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Cached {
    /// The checked copy to run.
    Usable(PathBuf),
    /// Nothing: it was never built.
    Missing,
    /// Something that is not provably the binary built: why, in words.
    Unusable(String),
}

impl Record {
    /// The record of a build of `crate_name` of `package` at `commit`,
    /// its size and hash to be filled in once built ([`KeptBinary::keep`]).
    pub(super) fn of(commit: &str, package: &str, crate_name: &str) -> Record {
        Record {
            commit: commit.to_string(),
            package: package.to_string(),
            crate_name: crate_name.to_string(),
            size: 0,
            hash: String::new(),
        }
    }
}

/// A binary's place in the cache: its folder and name.
pub(super) struct KeptBinary<'a> {
    /// `bin/<commit>/<package>/`.
    pub folder: &'a CacheDir,
    /// The crate name, as a plain name.
    pub name: &'a str,
}

impl KeptBinary<'_> {
    /// The record's name.
    fn record_name(&self) -> String {
        format!("{}.json", self.name)
    }

    /// The binary's path, for messages.
    pub(super) fn path(&self) -> PathBuf {
        self.folder.path_of(self.name)
    }

    /// A checked copy of the kept binary in `runs`, if the kept binary is
    /// the one `expected` (size and hash aside) says; what the cache holds
    /// otherwise. `Err` where the copy cannot be written.
    pub(super) fn checked_copy(
        &self,
        expected: &Record,
        repo: &Repository,
        runs: &RunFolder,
    ) -> Result<Cached, RevisionError> {
        let record = match self.record() {
            Ok(record) => record,
            Err(why) => return Ok(why),
        };
        let wanted = (&expected.commit, &expected.package, &expected.crate_name);
        if (&record.commit, &record.package, &record.crate_name) != wanted {
            return Ok(Cached::Unusable(format!(
                "its record {} is of another build",
                self.folder.path_of(&self.record_name()).display()
            )));
        }
        let source = match self.open(&record) {
            Ok(file) => file,
            Err(why) => return Ok(why),
        };
        let copy = runs.path_of(self.name);
        let mut to = runs
            .folder()
            .dir()
            .open_file(OsStr::new(self.name), Access::CreateNew)
            .and_then(|f| {
                f.set_permissions(PermissionsExt::from_mode(0o700))
                    .map(|()| f)
            })
            .map_err(|e| refused(&copy, format!("cannot create: {e}")))?;
        let (size, hash) = repo.copy_hashed(source, &mut to, record.size.saturating_add(1))?;
        if (size, &hash) != (record.size, &record.hash) {
            runs.folder().remove(self.name);
            return Ok(Cached::Unusable(
                "its content is not the one its record names".to_string(),
            ));
        }
        Ok(Cached::Usable(copy))
    }

    /// The record, read as a regular file of at most [`MAX_RECORD`]
    /// bytes; what the cache holds where there is none or it is not one.
    fn record(&self) -> Result<Record, Cached> {
        let name = self.record_name();
        let binary = self.folder.kind(self.name).ok().flatten();
        let file = match self.folder.dir().open_file(OsStr::new(&name), Access::Read) {
            Ok(file) => file,
            Err(_) if binary.is_none() && matches!(self.folder.kind(&name), Ok(None)) => {
                return Err(Cached::Missing)
            }
            Err(_) if matches!(self.folder.kind(&name), Ok(None)) => {
                return Err(Cached::Unusable("it has no record of its build".into()))
            }
            Err(_) => return Err(Cached::Unusable(self.not_a_file(&name))),
        };
        let mut text = String::new();
        let read = match file.metadata() {
            Ok(meta) if meta.is_file() && meta.len() <= MAX_RECORD => file
                .take(MAX_RECORD)
                .read_to_string(&mut text)
                .map_err(|e| e.to_string()),
            Ok(meta) if meta.is_file() => Err(format!("{} bytes", meta.len())),
            Ok(_) => return Err(Cached::Unusable(self.not_a_file(&name))),
            Err(e) => Err(e.to_string()),
        };
        read.and_then(|_| serde_json::from_str(&text).map_err(|e| e.to_string()))
            .map_err(|e| {
                let path = self.folder.path_of(&name);
                Cached::Unusable(format!("its record {} is not one: {e}", path.display()))
            })
    }

    /// Why `name`, which is not a regular file, is not taken.
    fn not_a_file(&self, name: &str) -> String {
        let what = if name == self.name {
            "it"
        } else {
            "its record"
        };
        match self.folder.kind(name) {
            Ok(Some(Kind::Link)) => format!("{what} is a link"),
            _ => format!("{what} is not a regular file"),
        }
    }

    /// The kept binary opened for reading, following no link and waiting
    /// for no writer: a regular file of the record's size, or why it is
    /// not taken.
    fn open(&self, record: &Record) -> Result<File, Cached> {
        let file = self
            .folder
            .dir()
            .open_file(OsStr::new(self.name), Access::Read)
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::NotFound => "it is missing beside its record".to_string(),
                _ => self.not_a_file(self.name),
            });
        let unusable = |why: String| Err(Cached::Unusable(why));
        let file = match file {
            Ok(file) => file,
            Err(why) => return unusable(why),
        };
        match file.metadata() {
            Ok(meta) if !meta.is_file() => unusable(self.not_a_file(self.name)),
            Ok(meta) if meta.len() != record.size => unusable(format!(
                "it has {} bytes, its record {}",
                meta.len(),
                record.size
            )),
            Ok(_) => Ok(file),
            Err(e) => unusable(refused(&self.path(), format!("cannot read: {e}")).to_string()),
        }
    }

    /// Keeps the executable `built` (where cargo wrote it) under this
    /// name, then its record: each through a temporary name and a rename,
    /// so that a run finds the whole binary, or a record of the whole
    /// binary, or none. (A copy, not a link: the next commit's build
    /// writes the same file in `target/`.) The kept file is not
    /// executable: only the checked copies are run.
    pub(super) fn keep(
        &self,
        built: &std::path::Path,
        mut record: Record,
        repo: &Repository,
    ) -> Result<(), RevisionError> {
        self.remove();
        let cannot = |e: String| refused(&self.path(), format!("cannot keep: {e}"));
        let from = File::open(built).map_err(|e| cannot(format!("{}: {e}", built.display())))?;
        let temporary = format!(".{}.tmp-{}", self.name, std::process::id());
        let (size, hash) = self
            .write_new(&temporary, |to| {
                (repo.copy_hashed(from, to, u64::MAX)).map_err(|e| e.to_string())
            })
            .map_err(cannot)?;
        (self.rename(&temporary, self.name)).map_err(|e| cannot(e.to_string()))?;
        (record.size, record.hash) = (size, hash);
        let text = serde_json::to_string(&record).map_err(|e| cannot(e.to_string()))?;
        let name = self.record_name();
        self.write_new(&temporary, |to| {
            std::io::Write::write_all(to, text.as_bytes()).map_err(|e| e.to_string())
        })
        .map_err(cannot)?;
        (self.rename(&temporary, &name)).map_err(|e| cannot(e.to_string()))
    }

    /// Writes the new file `name` with `write`; removed on any error.
    fn write_new<T>(
        &self,
        name: &str,
        write: impl FnOnce(&mut File) -> Result<T, String>,
    ) -> Result<T, String> {
        self.folder.remove(name);
        let written = self
            .folder
            .dir()
            .open_file(OsStr::new(name), Access::CreateNew)
            .map_err(|e| e.to_string())
            .and_then(|mut file| write(&mut file));
        if written.is_err() {
            self.folder.remove(name);
        }
        written
    }

    fn rename(&self, from: &str, to: &str) -> std::io::Result<()> {
        let dir = self.folder.dir();
        dir.rename(OsStr::new(from), dir, OsStr::new(to))
            .inspect_err(|_| self.folder.remove(from))
    }

    /// Removes the binary and its record, whatever they are (a link
    /// itself, never what it points at).
    pub(super) fn remove(&self) {
        self.folder.remove(&self.record_name());
        self.folder.remove(self.name);
    }
}
