//! A process that outlives this one to end the process groups it leaves
//! behind. `PR_SET_PDEATHSIG` ends a child when this process dies, however
//! it dies, but not what that child started: a grandchild is handed to
//! init and lives on. The guard, forked once, reads from a pipe the groups
//! to watch and those to forget; when the pipe ends — this process closed
//! it, exited, or was killed, even by SIGKILL: the kernel closes it — the
//! guard SIGKILLs every group still watched, then exits.
//!
//! What it cannot end: a process that left its group (`setsid`,
//! `setpgid`), and anything at all if the guard itself is SIGKILLed. It
//! sits in a group of its own and ignores SIGINT, SIGTERM, SIGHUP and
//! SIGQUIT, so that a Ctrl-C or a signal to this run's group spares it.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::OnceLock;

/// The groups watched at once; more are not watched (a paired run has two
/// serving processes at a time).
const MOST: usize = 64;

/// The guard's process and this process's end of its pipe.
pub struct GroupGuard {
    /// The pipe's write end (closed on exec): each message is a group's
    /// id as a native `i32`, positive to watch it, negated to forget it.
    write: Option<OwnedFd>,
    /// The guard's pid.
    pid: libc::pid_t,
}

impl GroupGuard {
    /// Forks the guard.
    pub fn start() -> Result<GroupGuard, GuardError> {
        let mut fds = [0; 2];
        // SAFETY: pipe2 writes two descriptors into the array it is given,
        // which has room for two.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
            return Err(GuardError::last("pipe2"));
        }
        // SAFETY: pipe2 succeeded: both are open descriptors nothing else
        // owns.
        let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
        // SAFETY: in the child, which has only this thread, `guard` makes
        // async-signal-safe calls only (no allocation, no lock) and never
        // returns; the parent goes on as before.
        match unsafe { libc::fork() } {
            -1 => Err(GuardError::last("fork")),
            0 => guard(read.as_raw_fd()),
            pid => Ok(GroupGuard {
                write: Some(write),
                pid,
            }),
        }
    }

    /// The pipe's write end, for a child to announce its own group in
    /// before it execs ([`super::process_group::end_with_this_process`]).
    pub fn raw_fd(&self) -> RawFd {
        self.write.as_ref().map_or(-1, AsRawFd::as_raw_fd)
    }

    /// Watches the group `pgid`: killed when this process ends.
    pub fn watch(&self, pgid: u32) -> io::Result<()> {
        self.send(pgid as i32)
    }

    /// Forgets the group `pgid`, ended already: its id may be reused.
    pub fn forget(&self, pgid: u32) -> io::Result<()> {
        self.send(-(pgid as i32))
    }

    fn send(&self, message: i32) -> io::Result<()> {
        let bytes = message.to_ne_bytes();
        // SAFETY: write(2) reads 4 bytes from a live local; the descriptor
        // is the pipe's, open while `self` lives. Writes of 4 bytes to a
        // pipe are atomic: messages of two threads never mix.
        let written = unsafe { libc::write(self.raw_fd(), bytes.as_ptr().cast(), bytes.len()) };
        match written {
            4 => Ok(()),
            -1 => Err(io::Error::last_os_error()),
            _ => Err(io::Error::from(io::ErrorKind::WriteZero)),
        }
    }
}

impl Drop for GroupGuard {
    /// Ends the guard, which kills the groups still watched first.
    fn drop(&mut self) {
        drop(self.write.take());
        // SAFETY: waitpid on the guard, this process's child, with no
        // status asked for.
        unsafe { libc::waitpid(self.pid, std::ptr::null_mut(), 0) };
    }
}

/// The guard of this process's children, forked at the first call and
/// never dropped: it ends when this process does.
pub fn shared() -> Result<&'static GroupGuard, GuardError> {
    static SHARED: OnceLock<Result<GroupGuard, GuardError>> = OnceLock::new();
    SHARED
        .get_or_init(GroupGuard::start)
        .as_ref()
        .map_err(|e| *e)
}

/// Why the guard could not start: the call that failed and its errno.
/// It prints as the system's message alone, as an `io::Error` does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GuardError {
    /// The call: `pipe2` or `fork`.
    pub call: &'static str,
    /// Its errno.
    pub errno: i32,
}

impl GuardError {
    /// The error `call` just set.
    fn last(call: &'static str) -> GuardError {
        // `last_os_error` always holds an errno: the 0 is never taken.
        let errno = io::Error::last_os_error().raw_os_error().unwrap_or(0);
        GuardError { call, errno }
    }
}

impl std::fmt::Display for GuardError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", io::Error::from_raw_os_error(self.errno))
    }
}

impl std::error::Error for GuardError {}

/// The guard's life, in the forked child: only async-signal-safe calls.
fn guard(read: RawFd) -> ! {
    // SAFETY: setpgid and signal on this process, with valid arguments.
    unsafe {
        libc::setpgid(0, 0);
        for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT] {
            libc::signal(signal, libc::SIG_IGN);
        }
    }
    // Every other inherited descriptor: a pipe it held open would not end
    // for its reader (a serving process's requests, this run's stdout).
    close_all_but(read);
    let mut groups = [0 as libc::pid_t; MOST];
    let mut watched = 0;
    while let Some(message) = next_message(read) {
        if message > 0 && watched < MOST {
            groups[watched] = message;
            watched += 1;
        } else if message < 0 {
            if let Some(i) = groups[..watched].iter().position(|g| *g == -message) {
                watched -= 1;
                groups[i] = groups[watched];
            }
        }
    }
    for group in &groups[..watched] {
        // SAFETY: kill(2) takes numbers only.
        unsafe { libc::kill(-group, libc::SIGKILL) };
    }
    // SAFETY: _exit ends the process without running anything of the
    // parent's that the fork copied.
    unsafe { libc::_exit(0) }
}

/// The next 4-byte message on `read`; `None` once the pipe ends.
fn next_message(read: RawFd) -> Option<i32> {
    let mut bytes = [0u8; 4];
    let mut got = 0;
    while got < bytes.len() {
        let rest = &mut bytes[got..];
        // SAFETY: read(2) writes at most `rest.len()` bytes into `rest`.
        let n = unsafe { libc::read(read, rest.as_mut_ptr().cast(), rest.len()) };
        match n {
            n if n > 0 => got += n as usize,
            -1 if io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) => {}
            _ => return None,
        }
    }
    Some(i32::from_ne_bytes(bytes))
}

/// Closes every descriptor but `keep`: `close_range(2)`, or one by one
/// where the kernel is older than 5.9.
fn close_all_but(keep: RawFd) {
    let keep = keep as libc::c_uint;
    let (zero, last, flags): (libc::c_uint, libc::c_uint, libc::c_uint) = (0, !0, 0);
    // SAFETY: close_range takes numbers only; closing descriptors this
    // forked child does not use is its purpose.
    let closed = unsafe {
        (keep == 0 || libc::syscall(libc::SYS_close_range, zero, keep - 1, flags) == 0)
            && libc::syscall(libc::SYS_close_range, keep + 1, last, flags) == 0
    };
    if closed {
        return;
    }
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes one rlimit into a live local.
    let known = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } == 0;
    let most = if known {
        limit.rlim_cur.min(1 << 20)
    } else {
        1 << 16
    };
    for fd in (0..most as libc::c_int).filter(|fd| *fd as libc::c_uint != keep) {
        // SAFETY: close(2) of a number: at worst EBADF.
        unsafe { libc::close(fd) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::{CommandExt, ExitStatusExt};
    use std::process::Command;

    #[test]
    fn a_guard_error_keeps_the_errno_and_prints_as_the_system_says() {
        let e = GuardError {
            call: "fork",
            errno: libc::EAGAIN,
        };
        assert_eq!(
            e.to_string(),
            "Resource temporarily unavailable (os error 11)"
        );
        assert_eq!(
            e.to_string(),
            io::Error::from_raw_os_error(libc::EAGAIN).to_string()
        );
    }

    #[test]
    fn a_dropped_guard_kills_the_groups_it_watches_and_spares_the_forgotten() {
        let guard = GroupGuard::start().unwrap();
        let mut watched = Command::new("sleep")
            .arg("100")
            .process_group(0)
            .spawn()
            .unwrap();
        let mut forgotten = Command::new("sleep")
            .arg("100")
            .process_group(0)
            .spawn()
            .unwrap();
        guard.watch(watched.id()).unwrap();
        guard.watch(forgotten.id()).unwrap();
        guard.forget(forgotten.id()).unwrap();
        drop(guard);
        assert_eq!(watched.wait().unwrap().signal(), Some(libc::SIGKILL));
        assert_eq!(forgotten.try_wait().unwrap(), None);
        forgotten.kill().unwrap();
        forgotten.wait().unwrap();
    }
}
