//! Standard output kept for one reader: a paired run's baseline build
//! answers its driver on the pipe that is its stdout, and what a benchmark
//! prints must not land in the middle of an answer.

use std::fs::File;
use std::io;
use std::os::fd::FromRawFd;

use super::check;

/// Takes the process's standard output for the caller alone: returns it as
/// a file (closed on exec), and points descriptor 1 at standard error, so
/// that whatever else prints (`println!` in a benchmark) goes there.
pub fn take_stdout() -> io::Result<File> {
    use std::io::Write;
    // Whatever std buffered goes out on the old stdout first.
    io::stdout().flush()?;
    // SAFETY: F_DUPFD_CLOEXEC duplicates descriptor 1, whatever it is, into
    // a new descriptor owned by nothing else yet.
    let fd = unsafe { libc::fcntl(1, libc::F_DUPFD_CLOEXEC, 3) };
    check(fd)?;
    // SAFETY: `fd` was just made and nothing else owns it.
    let file = unsafe { File::from_raw_fd(fd) };
    // SAFETY: dup2 on two descriptors of this process; it replaces
    // descriptor 1, which std writes through without owning it.
    check(unsafe { libc::dup2(2, 1) })?;
    Ok(file)
}
