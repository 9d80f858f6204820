//! What a run measured: the commit of the bench target's source, whether
//! its working tree had changes beside it, and its branch. Git says, where
//! the source is in a repository it may read (asked at run time, in the
//! folder `main!` recorded); a CI's variables fill in what git cannot
//! (a detached checkout's branch; a source tree without `.git`, or one
//! git refuses as another user's).

use std::process::Stdio;

use super::paired::git_tree::git;
use super::paired::revision::BenchTarget;
use crate::measure::environment::{is_commit_id, Environment};

/// The commit a run measured, as far as it is known.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Origin {
    /// The commit's full id.
    pub commit: Option<String>,
    /// Whether tracked files differed from the commit.
    pub dirty: Option<bool>,
    /// The branch checked out, or the one the CI says it built.
    pub branch: Option<String>,
}

/// The variables CIs name the commit they build by, most common first:
/// GitHub Actions, GitLab, Buildkite, CircleCI, Jenkins, Bitbucket,
/// Travis, Drone, Azure Pipelines.
const COMMIT_VARIABLES: [&str; 9] = [
    "GITHUB_SHA",
    "CI_COMMIT_SHA",
    "BUILDKITE_COMMIT",
    "CIRCLE_SHA1",
    "GIT_COMMIT",
    "BITBUCKET_COMMIT",
    "TRAVIS_COMMIT",
    "DRONE_COMMIT_SHA",
    "BUILD_SOURCEVERSION",
];

/// The variables CIs name the branch by, in the same order; a pull
/// request's source branch (`GITHUB_HEAD_REF`) before the ref built.
const BRANCH_VARIABLES: [&str; 10] = [
    "GITHUB_HEAD_REF",
    "GITHUB_REF_NAME",
    "CI_COMMIT_REF_NAME",
    "BUILDKITE_BRANCH",
    "CIRCLE_BRANCH",
    "GIT_BRANCH",
    "BITBUCKET_BRANCH",
    "TRAVIS_BRANCH",
    "DRONE_BRANCH",
    "BUILD_SOURCEBRANCHNAME",
];

impl Origin {
    /// The origin of the run of `target`: git's, completed by the CI's
    /// variables.
    pub fn of(target: &BenchTarget) -> Origin {
        let ci = Origin::from_variables(|name| std::env::var(name).ok());
        Origin::from_git(target.manifest_dir)
            .unwrap_or_default()
            .or(ci)
    }

    /// Writes what is known into `environment`.
    pub fn record_in(self, environment: &mut Environment) {
        environment.commit = self.commit;
        environment.dirty = self.dirty;
        environment.branch = self.branch;
    }

    /// This origin, with what it lacks taken from `other` (a commit only
    /// with its own dirtiness, which `other` cannot know of this one's).
    fn or(self, other: Origin) -> Origin {
        match self.commit {
            Some(commit) => Origin {
                commit: Some(commit),
                dirty: self.dirty,
                branch: self.branch.or(other.branch),
            },
            None => Origin {
                branch: self.branch.or(other.branch),
                ..other
            },
        }
    }

    /// What a CI's variables say, through `var`.
    fn from_variables(var: impl Fn(&str) -> Option<String>) -> Origin {
        let first = |names: &[&str], fits: &dyn Fn(&str) -> bool| {
            names
                .iter()
                .filter_map(|name| var(name))
                .map(|v| v.trim().to_string())
                .find(|v| fits(v))
        };
        Origin {
            commit: first(&COMMIT_VARIABLES, &is_commit_id).map(|c| c.to_ascii_lowercase()),
            dirty: None,
            branch: first(&BRANCH_VARIABLES, &is_branch_name)
                .map(|b| b.trim_start_matches("refs/heads/").to_string()),
        }
    }

    /// What git says of the repository holding `folder`: `None` where git
    /// is missing, the folder is in no repository, or git refuses it.
    fn from_git(folder: &str) -> Option<Origin> {
        let head = git_lines(
            folder,
            &["rev-parse", "HEAD", "--symbolic-full-name", "HEAD"],
        )?;
        let commit = head.first().filter(|c| is_commit_id(c))?.clone();
        let branch = head
            .get(1)
            .and_then(|r| r.strip_prefix("refs/heads/"))
            .filter(|b| is_branch_name(b))
            .map(String::from);
        let changes = git_lines(folder, &["status", "--porcelain", "--untracked-files=no"]);
        Some(Origin {
            commit: Some(commit),
            dirty: changes.map(|lines| !lines.is_empty()),
            branch,
        })
    }
}

/// Whether `name` can be shown as a branch: a word of at most 200
/// printable characters.
fn is_branch_name(name: &str) -> bool {
    !name.is_empty()
        && name.chars().count() <= 200
        && !name.chars().any(|c| c.is_control() || c.is_whitespace())
}

/// The lines `git ARGS` writes in `folder`, or `None` where it fails.
fn git_lines(folder: &str, args: &[&str]) -> Option<Vec<String>> {
    let mut cmd = git();
    cmd.current_dir(folder)
        .args(args)
        .stdin(Stdio::null())
        .stderr(Stdio::null());
    let out = cmd.output().ok().filter(|o| o.status.success())?;
    let text = String::from_utf8(out.stdout).ok()?;
    Some(text.lines().map(|l| l.trim_end().to_string()).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn variables<'a>(set: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            set.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn a_ci_names_the_commit_and_the_pull_requests_branch() {
        let sha = "0123456789abcdef0123456789ABCDEF01234567";
        let o = Origin::from_variables(variables(&[
            ("GITHUB_SHA", sha),
            ("GITHUB_HEAD_REF", "feature/fast"),
            ("GITHUB_REF_NAME", "42/merge"),
        ]));
        assert_eq!(o.commit.as_deref(), Some(&*sha.to_ascii_lowercase()));
        assert_eq!(o.branch.as_deref(), Some("feature/fast"));
        assert_eq!(o.dirty, None);
    }

    #[test]
    fn empty_and_hostile_variables_are_passed_over() {
        let o = Origin::from_variables(variables(&[
            ("GITHUB_SHA", "not a commit"),
            ("CI_COMMIT_SHA", "abcdef1"),
            ("GITHUB_HEAD_REF", ""),
            ("GITHUB_REF_NAME", "evil\u{1b}[2J"),
            ("CIRCLE_BRANCH", "refs/heads/main"),
        ]));
        assert_eq!(o.commit.as_deref(), Some("abcdef1"));
        assert_eq!(o.branch.as_deref(), Some("main"));
        assert_eq!(Origin::from_variables(|_| None), Origin::default());
    }

    #[test]
    fn gits_commit_wins_and_a_detached_checkout_takes_the_cis_branch() {
        let git = Origin {
            commit: Some("a".repeat(40)),
            dirty: Some(true),
            branch: None,
        };
        let ci = Origin {
            commit: Some("b".repeat(40)),
            dirty: None,
            branch: Some("main".into()),
        };
        let o = git.clone().or(ci.clone());
        assert_eq!(o.commit, git.commit);
        assert_eq!(o.dirty, Some(true));
        assert_eq!(o.branch.as_deref(), Some("main"));
        assert_eq!(Origin::default().or(ci.clone()), ci);
    }

    #[test]
    fn outside_a_repository_git_says_nothing() {
        let folder = std::env::temp_dir().join(format!("perfbench-origin-{}", std::process::id()));
        std::fs::create_dir_all(&folder).unwrap();
        // GIT_CEILING_DIRECTORIES is not ours to set here; the temporary
        // folder is in no repository on any machine these tests run on.
        assert_eq!(Origin::from_git(folder.to_str().unwrap()), None);
        std::fs::remove_dir_all(&folder).unwrap();
    }
}
