//! [`ProfileError`]: why this process's stacks cannot be resolved.

use std::fmt;
use std::io;

/// Why a [`StackResolver`](super::StackResolver) could not be made.
#[derive(Debug)]
pub enum ProfileError {
    /// `/proc/self/maps` could not be read.
    Maps(io::Error),
    /// The executable (`/proc/self/exe`) could not be read.
    Executable(io::Error),
    /// The executable is not a 64-bit ELF file whose code this process
    /// maps (the path it was started from).
    NotElf(String),
    /// This architecture has no unwinder (only `x86_64` and `aarch64` do).
    Architecture,
}

impl fmt::Display for ProfileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProfileError::Maps(e) => write!(f, "cannot read /proc/self/maps: {e}"),
            ProfileError::Executable(e) => write!(f, "cannot read /proc/self/exe: {e}"),
            ProfileError::NotElf(path) => write!(
                f,
                "the executable {path:?} is not a 64-bit ELF file mapped by this process"
            ),
            ProfileError::Architecture => {
                write!(f, "stacks are unwound on x86_64 and aarch64 only")
            }
        }
    }
}

impl std::error::Error for ProfileError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ProfileError::Maps(e) | ProfileError::Executable(e) => Some(e),
            ProfileError::NotElf(_) | ProfileError::Architecture => None,
        }
    }
}
