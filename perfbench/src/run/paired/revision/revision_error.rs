//! Why the bench binary at a revision (`--paired-with-rev`) cannot be
//! had: each prints one line.

use std::fmt;
use std::path::PathBuf;

use crate::run::paired::git_tree::GitError;

/// Why the bench binary at a revision cannot be had.
#[derive(Debug)]
pub enum RevisionError {
    /// git could not answer or do what was asked.
    Git(GitError),
    /// This bench binary's own path is unknown.
    OwnPath(std::io::Error),
    /// This bench binary is in no cargo target directory.
    NotInTarget(PathBuf),
    /// A path of the cache (or the target directory) is refused: why.
    Refused(PathBuf, String),
    /// Building the bench target (`what`) failed: why (cargo said more).
    Build(String, String),
}

impl fmt::Display for RevisionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rev = "--paired-with-rev";
        match self {
            RevisionError::Git(e) => write!(f, "{e}"),
            RevisionError::OwnPath(e) => write!(f, "{rev}: {e}"),
            RevisionError::NotInTarget(exe) => write!(
                f,
                "{rev}: {} is not in a cargo target directory; set CARGO_TARGET_DIR",
                exe.display()
            ),
            RevisionError::Refused(path, why) => write!(f, "{rev}: {}: {why}", path.display()),
            RevisionError::Build(what, why) => write!(f, "{rev}: building {what}: {why}"),
        }
    }
}

impl std::error::Error for RevisionError {}

impl From<GitError> for RevisionError {
    fn from(e: GitError) -> RevisionError {
        RevisionError::Git(e)
    }
}
