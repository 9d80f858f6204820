//! The git side of `--paired-with-rev`: the repository holding a bench
//! target's source, a revision resolved to one commit, and that commit's
//! tree written into a folder of our own. Only objects are read from the
//! user's repository: its index, working tree, worktree list and refs stay
//! as they were, so a dirty working tree never leaks into the paired build.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// A git repository holding a package's folder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Repository {
    /// The repository's git directory, absolute (a linked worktree's own).
    pub git_dir: PathBuf,
    /// The package's folder relative to the top of the working tree
    /// (`tests/`, or empty at the top), as git spells it.
    pub prefix: String,
}

/// Variables that would point git elsewhere than the folder it is asked
/// about: set when cargo runs inside a git hook, for example.
const REDIRECTING: [&str; 4] = ["GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_PREFIX"];

/// `git ARGS` with none of [`REDIRECTING`] inherited.
pub(in crate::run) fn git() -> Command {
    let mut cmd = Command::new("git");
    for var in REDIRECTING {
        cmd.env_remove(var);
    }
    cmd
}

/// Runs `cmd` to its end; `Err` names what could not be run.
fn output_of(mut cmd: Command) -> Result<Output, GitError> {
    cmd.output().map_err(GitError::NoGit)
}

/// The first line git wrote on stderr, for an error of ours to end with.
fn first_line(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    text.lines().next().unwrap_or("").trim().to_string()
}

impl Repository {
    /// The repository holding `folder`; `Err` in one line where git is
    /// missing or `folder` is in no repository.
    pub fn holding(folder: &Path) -> Result<Repository, GitError> {
        if !folder.is_dir() {
            return Err(GitError::FolderGone(folder.into()));
        }
        let mut cmd = git();
        cmd.current_dir(folder)
            .args(["rev-parse", "--absolute-git-dir", "--show-prefix"]);
        let out = output_of(cmd)?;
        if !out.status.success() {
            return Err(GitError::NotInRepository(
                folder.into(),
                first_line(&out.stderr),
            ));
        }
        let text = String::from_utf8_lossy(&out.stdout);
        let mut lines = text.lines();
        let (Some(git_dir), prefix) = (lines.next(), lines.next().unwrap_or("")) else {
            return Err(GitError::NoRepository(folder.into()));
        };
        Ok(Repository {
            git_dir: PathBuf::from(git_dir),
            prefix: prefix.to_string(),
        })
    }

    /// The full hash of the commit `rev` names; `Err` in one line naming
    /// `rev` where it names none. A revision git could take for an option
    /// is refused before git sees it.
    pub fn commit_of(&self, rev: &str) -> Result<String, GitError> {
        check_revision(rev)?;
        let mut cmd = git();
        cmd.arg("--git-dir").arg(&self.git_dir).args([
            "rev-parse",
            "--verify",
            "--quiet",
            "--end-of-options",
            &format!("{rev}^{{commit}}"),
        ]);
        let out = output_of(cmd)?;
        let hash = String::from_utf8_lossy(&out.stdout).trim().to_string();
        if !out.status.success() || !is_commit_hash(&hash) {
            return Err(GitError::NoSuchCommit(rev.into(), self.git_dir.clone()));
        }
        Ok(hash)
    }

    /// Makes `tree` hold exactly the files of `commit`, through the git
    /// index `index` that records what `tree` held before: only files that
    /// differ are written (so cargo, which goes by modification times,
    /// rebuilds only what changed), files the commit lacks are removed, and
    /// files changed in `tree` since are put back.
    pub fn check_out(&self, commit: &str, tree: &Path, index: &Path) -> Result<(), GitError> {
        std::fs::create_dir_all(tree).map_err(|e| GitError::MakeTree(tree.into(), e))?;
        let mut cmd = git();
        cmd.env("GIT_INDEX_FILE", index)
            .arg("--git-dir")
            .arg(&self.git_dir)
            .arg("--work-tree")
            .arg(tree)
            .args(["read-tree", "--reset", "-u", commit]);
        let out = output_of(cmd)?;
        if !out.status.success() {
            let why = first_line(&out.stderr);
            return Err(GitError::CheckOut(short(commit).into(), tree.into(), why));
        }
        Ok(())
    }
}

impl Repository {
    /// Copies at most `limit` bytes of `from` into `to`, each byte hashed
    /// on its way by `git hash-object --no-filters --stdin` (the bytes
    /// written are the bytes hashed: nothing is read twice); the number of
    /// bytes copied and git's hash of them. git hashes as a blob, with the
    /// repository's hash function.
    pub fn copy_hashed(
        &self,
        from: impl Read,
        to: &mut impl Write,
        limit: u64,
    ) -> Result<(u64, String), GitError> {
        let mut cmd = git();
        cmd.arg("--git-dir")
            .arg(&self.git_dir)
            .args(["hash-object", "--no-filters", "--stdin"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().map_err(GitError::NoGit)?;
        let mut stdin = child.stdin.take().expect("piped");
        let copied = copy_both(from.take(limit), to, &mut stdin);
        // git hashes what it read once its input ends, and always ends.
        drop(stdin);
        let out = child.wait_with_output().map_err(GitError::Wait)?;
        let copied = copied.map_err(GitError::Copy)?;
        let hash = String::from_utf8_lossy(&out.stdout).trim().to_string();
        if !out.status.success() || !is_commit_hash(&hash) {
            return Err(GitError::HashFailed(first_line(&out.stderr)));
        }
        Ok((copied, hash))
    }
}

/// Copies `from` into both `to` and `hashed`; how many bytes.
fn copy_both(
    mut from: impl Read,
    to: &mut impl Write,
    hashed: &mut impl Write,
) -> std::io::Result<u64> {
    let mut buf = vec![0u8; 1 << 16];
    let mut copied = 0u64;
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) => return Ok(copied),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        to.write_all(&buf[..n])?;
        hashed.write_all(&buf[..n])?;
        copied += n as u64;
    }
}

/// Refuses a revision git could read as an option, or that is no single
/// printable word (the command line refuses these too; this function is
/// public, so it checks again).
fn check_revision(rev: &str) -> Result<(), GitError> {
    let fits = !rev.is_empty()
        && !rev.starts_with('-')
        && !rev.chars().any(|c| c.is_control() || c.is_whitespace());
    if fits {
        Ok(())
    } else {
        Err(GitError::BadRevision(rev.into()))
    }
}

/// Why git could not answer or do what a paired run at a revision asks.
#[derive(Debug)]
pub enum GitError {
    /// git could not be run.
    NoGit(std::io::Error),
    /// The bench target's folder, where it was built, is gone.
    FolderGone(PathBuf),
    /// The folder is in no git repository: git's first line.
    NotInRepository(PathBuf, String),
    /// git names no repository for the folder.
    NoRepository(PathBuf),
    /// The revision is no single word git would not read as an option.
    BadRevision(String),
    /// The revision names no commit in this git folder.
    NoSuchCommit(String, PathBuf),
    /// The folder to check out into could not be made.
    MakeTree(PathBuf, std::io::Error),
    /// The commit (short) could not be written into the folder: git's line.
    CheckOut(String, PathBuf, String),
    /// git could not be waited for.
    Wait(std::io::Error),
    /// The bytes could not be copied.
    Copy(std::io::Error),
    /// `git hash-object` failed: its first line.
    HashFailed(String),
}

impl std::fmt::Display for GitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let rev = "--paired-with-rev";
        match self {
            GitError::NoGit(e) => write!(f, "{rev} needs git, which could not be run: {e}"),
            GitError::FolderGone(folder) => write!(
                f,
                "{rev}: the bench target's folder {}, where it was built, is not here",
                folder.display()
            ),
            GitError::NotInRepository(folder, why) => write!(
                f,
                "{rev}: the bench target's folder {} is not in a git repository ({why})",
                folder.display()
            ),
            GitError::NoRepository(folder) => {
                write!(f, "{rev}: git names no repository for {}", folder.display())
            }
            GitError::BadRevision(given) => write!(
                f,
                "{rev} takes a git revision (a branch, tag or commit), not `{given}`"
            ),
            GitError::NoSuchCommit(given, git_dir) => {
                write!(
                    f,
                    "{rev} `{given}`: no such commit in {}",
                    git_dir.display()
                )
            }
            GitError::MakeTree(tree, e) => write!(f, "cannot make {}: {e}", tree.display()),
            GitError::CheckOut(commit, tree, why) => {
                write!(
                    f,
                    "cannot write commit {commit} into {}: {why}",
                    tree.display()
                )
            }
            GitError::Wait(e) => write!(f, "git: {e}"),
            GitError::Copy(e) => write!(f, "cannot copy: {e}"),
            GitError::HashFailed(why) => write!(f, "git hash-object failed: {why}"),
        }
    }
}

impl std::error::Error for GitError {}

/// Whether `text` is a full commit hash as git prints it (SHA-1 or
/// SHA-256), so that it can name a folder.
fn is_commit_hash(text: &str) -> bool {
    matches!(text.len(), 40 | 64) && text.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The short form of a commit hash people read: its first 7 digits.
pub fn short(commit: &str) -> &str {
    commit.get(..7).unwrap_or(commit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn revisions_git_could_take_for_options_are_refused() {
        for rev in ["", "-h", "--output=x", "main two", "a\nb", "a\u{1b}[2J"] {
            let e = check_revision(rev).unwrap_err().to_string();
            assert!(
                e.starts_with("--paired-with-rev takes a git revision"),
                "{e}"
            );
        }
        for rev in ["main", "HEAD~1", "origin/main", "v1.0^{commit}", "1a2b3c4"] {
            assert!(check_revision(rev).is_ok(), "{rev}");
        }
    }

    #[test]
    fn only_full_hashes_name_a_commit_folder() {
        assert!(is_commit_hash(&"a".repeat(40)));
        assert!(is_commit_hash(&"0123456789abcdef".repeat(4)));
        assert!(!is_commit_hash(&"a".repeat(39)));
        assert!(!is_commit_hash(&format!("{}/", "a".repeat(39))));
        assert!(!is_commit_hash(
            "../../../../../../../../../../../../etc/passwd"
        ));
        assert_eq!(short(&"1a2b3c4d".repeat(5)), "1a2b3c4");
        assert_eq!(short("abc"), "abc");
    }
}
