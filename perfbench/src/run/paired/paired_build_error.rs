//! Why the paired build cannot be had before a paired run starts: one
//! line, printed as `perfbench: error: …`.

use std::fmt;

use super::revision::RevisionError;

/// Why the build `--paired-with` or `--paired-with-rev` names cannot be
/// had.
#[derive(Debug)]
pub enum PairedBuildError {
    /// `--baseline` was given too: a run compares with one of them.
    WithBaseline,
    /// `--paired-with-rev`'s binary cannot be found, checked out or built.
    Revision(RevisionError),
}

impl fmt::Display for PairedBuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PairedBuildError::WithBaseline => f.write_str(
                "--baseline and --paired-with exclude each other: a run compares with one of them",
            ),
            PairedBuildError::Revision(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for PairedBuildError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            PairedBuildError::WithBaseline => None,
            PairedBuildError::Revision(e) => Some(e),
        }
    }
}

impl From<RevisionError> for PairedBuildError {
    fn from(e: RevisionError) -> Self {
        PairedBuildError::Revision(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_paired_build_error_prints_its_one_line_as_before() {
        assert_eq!(
            PairedBuildError::WithBaseline.to_string(),
            "--baseline and --paired-with exclude each other: a run compares with one of them"
        );
        let revision = RevisionError::NotInTarget("/x/y".into());
        assert_eq!(
            PairedBuildError::from(revision).to_string(),
            "--paired-with-rev: /x/y is not in a cargo target directory; set CARGO_TARGET_DIR"
        );
    }
}
