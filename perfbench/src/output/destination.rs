//! Where an output's text goes: stdout as each benchmark is done, or a
//! file (`--output-file`) written whole when the run ends, through the
//! store's atomic write (a temporary file in the same folder, renamed), so
//! that a service never reads half of one, and an interrupted run leaves
//! the file as it was.

use std::path::{Path, PathBuf};

use crate::store::{Store, StoreError};

/// Stdout, or a file's text gathered until the run ends.
pub enum Destination {
    /// Each line printed as it comes.
    Stdout,
    /// Lines kept for the file at `path`.
    File {
        /// Where the text goes, as the user gave it.
        path: PathBuf,
        /// The text so far.
        text: String,
    },
}

impl Destination {
    /// The file at `path`, written when the run ends.
    pub fn file(path: PathBuf) -> Destination {
        Destination::File {
            path,
            text: String::new(),
        }
    }

    /// Whether the text goes to stdout (a terminal, perhaps).
    pub fn is_stdout(&self) -> bool {
        matches!(self, Destination::Stdout)
    }

    /// Adds `line` and a newline.
    pub fn line(&mut self, line: &str) {
        match self {
            Destination::Stdout => println!("{line}"),
            Destination::File { text, .. } => {
                text.push_str(line);
                text.push('\n');
            }
        }
    }

    /// Writes a file's text whole; stdout has had its lines.
    pub fn finish(self) -> Result<(), StoreError> {
        match self {
            Destination::Stdout => Ok(()),
            Destination::File { path, text } => write_whole(&path, text.as_bytes()),
        }
    }
}

/// Why no file may be written whole at `path` (a rename over what is
/// there): something other than a regular file is there — a folder, a
/// link, a FIFO, a socket or a device, which the rename would replace (as
/// root, `/dev/null` itself); `None` where nothing or a regular file is.
/// Asked when the options are settled, before anything is measured, and
/// again when the file is written, since the path may change meanwhile.
pub fn refusal(path: &Path) -> Option<String> {
    use std::os::unix::fs::FileTypeExt;
    let t = std::fs::symlink_metadata(path).ok()?.file_type();
    let what = match () {
        _ if t.is_file() => return None,
        _ if t.is_dir() => "a folder",
        _ if t.is_symlink() => "a link",
        _ if t.is_fifo() => "a FIFO",
        _ if t.is_socket() => "a socket",
        _ => "a device",
    };
    Some(format!(
        "is {what}, not a regular file: --output-file writes only regular files"
    ))
}

/// Writes `bytes` to `path` whole, through [`Store::write`] on its folder
/// (a temporary file there, removed on any error or signal, then a
/// rename), unless something other than a regular file is at `path`
/// ([`refusal`]). The folder is resolved first: the user's own folders may
/// be reached through links, which the store, walking its own, follows
/// none of.
pub fn write_whole(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    let folder = path.parent().filter(|f| !f.as_os_str().is_empty());
    let folder = folder.unwrap_or(Path::new("."));
    let resolved = std::fs::canonicalize(folder).map_err(|e| StoreError {
        path: folder.to_path_buf(),
        reason: format!("cannot write a file here: {e}"),
    })?;
    let Some(name) = path.file_name() else {
        return Err(StoreError {
            path: path.to_path_buf(),
            reason: "is not a file's path".into(),
        });
    };
    if let Some(reason) = refusal(&resolved.join(name)) {
        let path = path.to_path_buf();
        return Err(StoreError { path, reason });
    }
    Store::at(resolved).write(Path::new(name), bytes)
}

/// What the tests of `--output-file` put where a file is to be written:
/// a FIFO, a socket and, where this user may make one (root may, uid
/// 65534 may not: then it says so and leaves it out), a private copy of
/// `/dev/full`, each with what a message calls it, made in `dir`.
#[cfg(test)]
pub(crate) fn not_regular_files(dir: &Path) -> Vec<(PathBuf, &'static str)> {
    use std::process::Command;
    let fifo = dir.join("fifo");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success(), "mkfifo {}", fifo.display());
    let socket = dir.join("socket");
    drop(std::os::unix::net::UnixListener::bind(&socket).unwrap());
    let mut made = vec![(fifo, "a FIFO"), (socket, "a socket")];
    let device = dir.join("full");
    let mknod = Command::new("mknod")
        .arg(&device)
        .args(["c", "1", "7"])
        .output();
    match mknod {
        Ok(out) if out.status.success() => made.push((device, "a device")),
        Ok(out) => eprintln!(
            "skipping the device case: mknod failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ),
        Err(e) => eprintln!("skipping the device case: no mknod: {e}"),
    }
    made
}

/// Whether `path` is still what [`not_regular_files`] made there.
#[cfg(test)]
pub(crate) fn still_there(path: &Path, what: &str) -> bool {
    use std::os::unix::fs::FileTypeExt;
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return false;
    };
    let t = meta.file_type();
    match what {
        "a FIFO" => t.is_fifo(),
        "a socket" => t.is_socket(),
        _ => t.is_char_device(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_device_fifo_or_socket_at_the_path_is_refused_when_the_file_is_written() {
        let dir = std::env::temp_dir().join(format!("perfbench-dest-nodes-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        for (path, what) in not_regular_files(&dir) {
            let mut out = Destination::file(path.clone());
            out.line("{}");
            let e = out.finish().unwrap_err();
            assert_eq!(e.path, path, "{e}");
            assert_eq!(
                e.reason,
                format!("is {what}, not a regular file: --output-file writes only regular files")
            );
            assert!(still_there(&path, what), "{} was replaced", path.display());
        }
        let left = std::fs::read_dir(&dir).unwrap().count();
        assert!(left <= 3, "no temporary file left: {left}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_file_is_written_whole_at_the_end_and_a_folder_in_the_way_is_named() {
        let dir = std::env::temp_dir().join(format!("perfbench-dest-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("taken")).unwrap();
        let path = dir.join("out.txt");
        let mut out = Destination::file(path.clone());
        out.line("a");
        out.line("b");
        assert!(!path.exists(), "nothing before the end");
        out.finish().unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "a\nb\n");
        let e = write_whole(&dir.join("taken"), b"x").unwrap_err();
        assert!(e.path.ends_with("taken"), "{e}");
        let left: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().collect();
        assert_eq!(left.len(), 2, "no temporary file left: {left:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
