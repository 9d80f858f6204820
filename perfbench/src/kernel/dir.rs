//! A folder held open by its descriptor, and the `*at(2)` calls relative to
//! it that never follow a symbolic link: `openat` with `O_NOFOLLOW`,
//! `mkdirat`, `renameat`, `unlinkat`, `linkat` (without
//! `AT_SYMLINK_FOLLOW`), `symlinkat`, `readlinkat`, `fstatat` with
//! `AT_SYMLINK_NOFOLLOW`, and a listing.
//!
//! A path walked one [`Dir`] at a time this way cannot be led outside the
//! folder it started from by a link anywhere below it, nor raced by one
//! made while it is walked: each step is taken from a descriptor, not by
//! resolving the path again. Every name is one component: a name with a
//! `/`, `.`, `..` or a NUL byte is refused (`EINVAL`).

use std::ffi::{CStr, CString, OsStr, OsString};
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// An open folder.
#[derive(Debug)]
pub struct Dir {
    fd: OwnedFd,
}

/// What a name in a folder is, not following a link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A regular file.
    File,
    /// A folder.
    Dir,
    /// A symbolic link.
    Link,
    /// A FIFO, socket or device.
    Other,
}

/// What `fstatat` says of a name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stat {
    /// What it is.
    pub kind: Kind,
    /// Its size in bytes.
    pub len: u64,
    /// When its content last changed.
    pub modified: SystemTime,
}

/// How [`Dir::open_file`] opens a file. Every mode adds `O_NOFOLLOW` (a
/// link is `ELOOP`), `O_NONBLOCK` (a FIFO does not wait for a writer) and
/// `O_CLOEXEC`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Read an existing file.
    Read,
    /// Create a new file for writing; an existing name is `EEXIST`.
    CreateNew,
    /// Read and write, creating the file if there is none.
    ReadWriteOrCreate,
}

impl Dir {
    /// Opens the folder at `path`. The folders above it are resolved as
    /// usual; `path` itself must not be a link (`ENOTDIR`, as for anything
    /// else not a folder: [`Dir::stat`] tells which).
    pub fn open(path: &Path) -> io::Result<Dir> {
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(path)?;
        Ok(Dir { fd: file.into() })
    }

    /// Opens the folder `name` in this one; a link, like anything else not
    /// a folder, is `ENOTDIR` ([`Dir::stat`] tells which).
    pub fn open_dir(&self, name: &OsStr) -> io::Result<Dir> {
        let flags = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC;
        Ok(Dir {
            fd: self.openat(&c_name(name)?, flags, 0)?,
        })
    }

    /// Makes the folder `name` in this one (mode 0777 less the umask).
    pub fn make_dir(&self, name: &OsStr) -> io::Result<()> {
        let name = c_name(name)?;
        // SAFETY: the descriptor is open for the life of `self`, and `name`
        // is a NUL-terminated string that outlives the call.
        check(unsafe { libc::mkdirat(self.raw(), name.as_ptr(), 0o777) })
    }

    /// Makes the folder `name` in this one that only its owner may enter
    /// (mode 0700); an existing name is `EEXIST`.
    pub fn make_private_dir(&self, name: &OsStr) -> io::Result<()> {
        let name = c_name(name)?;
        // SAFETY: the descriptor is open for the life of `self`, and `name`
        // is a NUL-terminated string that outlives the call.
        check(unsafe { libc::mkdirat(self.raw(), name.as_ptr(), 0o700) })
    }

    /// Opens the file `name` in this one, as `access` says.
    pub fn open_file(&self, name: &OsStr, access: Access) -> io::Result<File> {
        let base = libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC;
        let flags = match access {
            Access::Read => libc::O_RDONLY,
            Access::CreateNew => libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL,
            Access::ReadWriteOrCreate => libc::O_RDWR | libc::O_CREAT,
        };
        Ok(File::from(self.openat(
            &c_name(name)?,
            base | flags,
            0o666,
        )?))
    }

    /// What `name` in this folder is, without following a link.
    pub fn stat(&self, name: &OsStr) -> io::Result<Stat> {
        let name = c_name(name)?;
        let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
        // SAFETY: `st` has room for a `struct stat`, which fstatat fills
        // when it returns 0; the descriptor and `name` are valid for the
        // call.
        check(unsafe {
            libc::fstatat(
                self.raw(),
                name.as_ptr(),
                st.as_mut_ptr(),
                libc::AT_SYMLINK_NOFOLLOW,
            )
        })?;
        // SAFETY: fstatat returned 0, so it filled `st`.
        let st = unsafe { st.assume_init() };
        Ok(stat_of(&st))
    }

    /// The names in this folder, without `.` and `..`, in no given order.
    pub fn list(&self) -> io::Result<Vec<OsString>> {
        // A descriptor of its own: the listing's position is not this
        // folder's, so listing twice lists everything twice.
        let own = self.openat(
            c".",
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
            0,
        )?;
        // SAFETY: `own` is an open folder descriptor; fdopendir takes it
        // over on success (closedir below closes it), so it is released
        // from the OwnedFd first.
        let dirp = unsafe { libc::fdopendir(own.as_raw_fd()) };
        if dirp.is_null() {
            return Err(io::Error::last_os_error());
        }
        std::mem::forget(own);
        let mut names = Vec::new();
        loop {
            // SAFETY: `dirp` is the open stream fdopendir returned and is
            // used by this thread alone until closedir.
            let entry = unsafe { libc::readdir(dirp) };
            if entry.is_null() {
                break;
            }
            // SAFETY: readdir returned an entry whose `d_name` is a
            // NUL-terminated name, valid until the next readdir; it is
            // copied before that.
            let name = unsafe { CStr::from_ptr((*entry).d_name.as_ptr()) };
            let name = name.to_bytes();
            if name != b"." && name != b".." {
                names.push(OsString::from_vec(name.to_vec()));
            }
        }
        // SAFETY: `dirp` is open and not used after this.
        unsafe { libc::closedir(dirp) };
        Ok(names)
    }

    /// Renames `from` in this folder to `to` in `to_dir`, replacing what
    /// is there (a link itself, never what it points at).
    pub fn rename(&self, from: &OsStr, to_dir: &Dir, to: &OsStr) -> io::Result<()> {
        let (from, to) = (c_name(from)?, c_name(to)?);
        // SAFETY: both descriptors are open and both names NUL-terminated
        // for the duration of the call.
        check(unsafe { libc::renameat(self.raw(), from.as_ptr(), to_dir.raw(), to.as_ptr()) })
    }

    /// Removes the file or link `name` (a link itself, never its target).
    pub fn remove_file(&self, name: &OsStr) -> io::Result<()> {
        self.unlinkat(name, 0)
    }

    /// Removes the empty folder `name`.
    pub fn remove_dir(&self, name: &OsStr) -> io::Result<()> {
        self.unlinkat(name, libc::AT_REMOVEDIR)
    }

    /// Removes `name` and, where it is a folder, everything in it, through
    /// descriptors: a link anywhere inside is removed, not followed.
    pub fn remove_tree(&self, name: &OsStr) -> io::Result<()> {
        if self.stat(name)?.kind != Kind::Dir {
            return self.remove_file(name);
        }
        let inner = self.open_dir(name)?;
        for entry in inner.list()? {
            inner.remove_tree(&entry)?;
        }
        self.remove_dir(name)
    }

    /// Makes a link `name` in this folder whose content is `target`.
    pub fn symlink(&self, target: &OsStr, name: &OsStr) -> io::Result<()> {
        let target = CString::new(target.as_bytes())
            .map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))?;
        let name = c_name(name)?;
        // SAFETY: both strings are NUL-terminated and outlive the call; the
        // descriptor is open.
        check(unsafe { libc::symlinkat(target.as_ptr(), self.raw(), name.as_ptr()) })
    }

    /// The content of the link `name` (`EINVAL` where it is not a link).
    pub fn read_link(&self, name: &OsStr) -> io::Result<OsString> {
        let name = c_name(name)?;
        let mut buf = vec![0u8; libc::PATH_MAX as usize];
        // SAFETY: `buf` has `buf.len()` writable bytes; readlinkat writes at
        // most that many and returns how many.
        let n = unsafe {
            libc::readlinkat(
                self.raw(),
                name.as_ptr(),
                buf.as_mut_ptr().cast(),
                buf.len(),
            )
        };
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        buf.truncate(n as usize);
        Ok(OsString::from_vec(buf))
    }

    /// Makes `to` in `to_dir` a second name of the file `from` in this
    /// folder; a link `from` is linked itself, not followed.
    pub fn hard_link(&self, from: &OsStr, to_dir: &Dir, to: &OsStr) -> io::Result<()> {
        let (from, to) = (c_name(from)?, c_name(to)?);
        // SAFETY: both descriptors are open and both names NUL-terminated
        // for the duration of the call; flags 0 follows no link.
        check(unsafe { libc::linkat(self.raw(), from.as_ptr(), to_dir.raw(), to.as_ptr(), 0) })
    }

    fn raw(&self) -> RawFd {
        self.fd.as_raw_fd()
    }

    /// `openat(self, name, flags, mode)`, restarted when a signal
    /// interrupts it.
    fn openat(&self, name: &CStr, flags: libc::c_int, mode: libc::mode_t) -> io::Result<OwnedFd> {
        loop {
            // SAFETY: the descriptor is open and `name` NUL-terminated for
            // the call; openat returns a new descriptor or -1.
            let fd =
                unsafe { libc::openat(self.raw(), name.as_ptr(), flags, mode as libc::c_uint) };
            if fd >= 0 {
                // SAFETY: openat returned a new descriptor that nothing
                // else owns.
                return Ok(unsafe { OwnedFd::from_raw_fd(fd) });
            }
            let e = io::Error::last_os_error();
            if e.kind() != io::ErrorKind::Interrupted {
                return Err(e);
            }
        }
    }

    fn unlinkat(&self, name: &OsStr, flags: libc::c_int) -> io::Result<()> {
        let name = c_name(name)?;
        // SAFETY: the descriptor is open and `name` NUL-terminated for the
        // call.
        check(unsafe { libc::unlinkat(self.raw(), name.as_ptr(), flags) })
    }
}

/// `name` as a C string, if it is one component.
fn c_name(name: &OsStr) -> io::Result<CString> {
    let bytes = name.as_bytes();
    let one_component =
        !bytes.is_empty() && bytes != b"." && bytes != b".." && !bytes.contains(&b'/');
    if !one_component {
        return Err(io::Error::from_raw_os_error(libc::EINVAL));
    }
    CString::new(bytes).map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))
}

/// A return code of 0, or the error `errno` holds.
fn check(rc: libc::c_int) -> io::Result<()> {
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

fn stat_of(st: &libc::stat) -> Stat {
    let kind = match st.st_mode & libc::S_IFMT {
        libc::S_IFREG => Kind::File,
        libc::S_IFDIR => Kind::Dir,
        libc::S_IFLNK => Kind::Link,
        _ => Kind::Other,
    };
    let since = Duration::new(
        u64::try_from(st.st_mtime).unwrap_or(0),
        u32::try_from(st.st_mtime_nsec).unwrap_or(0),
    );
    Stat {
        kind,
        len: u64::try_from(st.st_size).unwrap_or(0),
        modified: UNIX_EPOCH + since,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    fn temp(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("perfbench-dir-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn os(s: &str) -> &OsStr {
        OsStr::new(s)
    }

    #[test]
    fn links_are_refused_at_every_step_and_never_followed() {
        let root = temp("links");
        let outside = temp("links-outside");
        std::fs::write(outside.join("secret"), "keep").unwrap();
        std::os::unix::fs::symlink(&outside, root.join("dirlink")).unwrap();
        std::os::unix::fs::symlink(outside.join("secret"), root.join("filelink")).unwrap();
        std::os::unix::fs::symlink(&outside, root.join("rootlink")).unwrap();
        let dir = Dir::open(&root).unwrap();
        let loops = |e: io::Error| e.raw_os_error();
        assert_eq!(
            dir.open_dir(os("dirlink")).map_err(loops).unwrap_err(),
            Some(libc::ENOTDIR)
        );
        for access in [Access::Read, Access::ReadWriteOrCreate] {
            let e = dir.open_file(os("filelink"), access).unwrap_err();
            assert_eq!(e.raw_os_error(), Some(libc::ELOOP), "{access:?}");
        }
        assert_eq!(
            Dir::open(&root.join("rootlink"))
                .map_err(loops)
                .unwrap_err(),
            Some(libc::ENOTDIR)
        );
        assert_eq!(dir.stat(os("dirlink")).unwrap().kind, Kind::Link);
        // Removing a tree removes links inside it, not what they point at.
        dir.make_dir(os("tree")).unwrap();
        let tree = dir.open_dir(os("tree")).unwrap();
        tree.symlink(outside.as_os_str(), os("out")).unwrap();
        tree.hard_link(os("out"), &tree, os("out2")).unwrap();
        assert_eq!(
            tree.stat(os("out2")).unwrap().kind,
            Kind::Link,
            "linked itself"
        );
        dir.remove_tree(os("tree")).unwrap();
        dir.remove_tree(os("dirlink")).unwrap();
        assert_eq!(
            std::fs::read_to_string(outside.join("secret")).unwrap(),
            "keep"
        );
        assert!(!root.join("tree").exists() && !root.join("dirlink").exists());
        std::fs::remove_dir_all(&root).unwrap();
        std::fs::remove_dir_all(&outside).unwrap();
    }

    #[test]
    fn names_of_more_than_one_component_are_refused() {
        let root = temp("names");
        let dir = Dir::open(&root).unwrap();
        for bad in ["", ".", "..", "a/b", "/etc", "nul\0"] {
            let e = dir
                .open_file(os(bad), Access::ReadWriteOrCreate)
                .unwrap_err();
            assert_eq!(e.raw_os_error(), Some(libc::EINVAL), "{bad:?}");
        }
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn files_are_made_listed_renamed_and_read_through_the_folder() {
        let root = temp("files");
        let dir = Dir::open(&root).unwrap();
        let mut f = dir.open_file(os("a"), Access::CreateNew).unwrap();
        f.write_all(b"one").unwrap();
        let e = dir.open_file(os("a"), Access::CreateNew).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::AlreadyExists);
        dir.make_dir(os("sub")).unwrap();
        let sub = dir.open_dir(os("sub")).unwrap();
        dir.rename(os("a"), &sub, os("b")).unwrap();
        let mut text = String::new();
        sub.open_file(os("b"), Access::Read)
            .unwrap()
            .read_to_string(&mut text)
            .unwrap();
        assert_eq!(text, "one");
        let st = sub.stat(os("b")).unwrap();
        assert_eq!((st.kind, st.len), (Kind::File, 3));
        assert_eq!(dir.list().unwrap(), [os("sub")]);
        assert_eq!(
            dir.list().unwrap(),
            [os("sub")],
            "listed again from the start"
        );
        sub.symlink(os(".v1"), os("link")).unwrap();
        assert_eq!(sub.read_link(os("link")).unwrap(), ".v1");
        assert_eq!(
            sub.read_link(os("b")).unwrap_err().raw_os_error(),
            Some(libc::EINVAL)
        );
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn a_fifo_opens_without_waiting_and_says_it_is_no_file() {
        let root = temp("fifo");
        let path = CString::new(root.join("pipe").as_os_str().as_bytes()).unwrap();
        // SAFETY: `path` is NUL-terminated; mkfifo touches no other memory.
        assert_eq!(unsafe { libc::mkfifo(path.as_ptr(), 0o600) }, 0);
        let dir = Dir::open(&root).unwrap();
        let f = dir.open_file(os("pipe"), Access::Read).unwrap();
        assert!(!f.metadata().unwrap().is_file());
        assert_eq!(dir.stat(os("pipe")).unwrap().kind, Kind::Other);
        std::fs::remove_dir_all(&root).unwrap();
    }
}
