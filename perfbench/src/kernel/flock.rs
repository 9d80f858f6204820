//! `flock(2)`: an advisory lock on a whole file, which the kernel drops when
//! the holder's descriptor closes, however the holder ends (std's
//! `File::lock` is newer than the Rust perfbench supports).

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;

/// Takes the exclusive lock on `file` if no other open file description
/// holds a lock on it; `Ok(false)` if one does.
pub fn try_lock_exclusive(file: &File) -> io::Result<bool> {
    match flock(file, libc::LOCK_EX | libc::LOCK_NB) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(false),
        Err(e) => Err(e),
    }
}

/// Takes the exclusive lock on `file`, waiting for its holder to release
/// it.
pub fn lock_exclusive(file: &File) -> io::Result<()> {
    flock(file, libc::LOCK_EX)
}

/// `flock(fd, operation)`, restarted when a signal interrupts the wait.
fn flock(file: &File, operation: libc::c_int) -> io::Result<()> {
    loop {
        // SAFETY: flock takes a descriptor and flags and touches no memory;
        // the descriptor is `file`'s, open for the whole call.
        let rc = unsafe { libc::flock(file.as_raw_fd(), operation) };
        if rc == 0 {
            return Ok(());
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_description_of_a_locked_file_is_refused_until_the_first_closes() {
        let path = std::env::temp_dir().join(format!("perfbench-flock-{}", std::process::id()));
        let first = File::create(&path).unwrap();
        let second = File::open(&path).unwrap();
        assert!(try_lock_exclusive(&first).unwrap());
        assert!(!try_lock_exclusive(&second).unwrap());
        drop(first);
        assert!(try_lock_exclusive(&second).unwrap());
        lock_exclusive(&second).unwrap();
        let _ = std::fs::remove_file(&path);
    }
}
