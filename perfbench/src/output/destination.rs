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

/// Writes `bytes` to `path` whole, through [`Store::write`] on its folder
/// (a temporary file there, removed on any error or signal, then a
/// rename). The folder is resolved first: the user's own folders may be
/// reached through links, which the store, walking its own, follows none of.
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
    Store::at(resolved).write(Path::new(name), bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

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
