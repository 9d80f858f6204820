//! SIGINT and SIGTERM turned into a call on an ordinary thread, so that a
//! run interrupted by Ctrl-C or `kill` can remove its unfinished files
//! before it exits. The signal handler only writes the signal's number to
//! a pipe (async-signal-safe); a thread reads it and calls the callback.

use std::fs::File;
use std::io::{self, Read};
use std::os::fd::{FromRawFd, OwnedFd};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::OnceLock;

/// The pipe's write end, for the handler; -1 until installed.
static WRITE_END: AtomicI32 = AtomicI32::new(-1);

/// Whether [`on_termination`] has installed the handlers.
static INSTALLED: OnceLock<io::Result<()>> = OnceLock::new();

/// From now on SIGINT and SIGTERM call `callback` with the signal's number
/// on a thread of its own, instead of ending the process at once; the
/// callback is expected to exit. Installed once per process: later calls
/// keep the first callback.
pub fn on_termination(callback: fn(i32)) -> io::Result<()> {
    INSTALLED
        .get_or_init(|| install(callback))
        .as_ref()
        .map(|_| ())
        .map_err(|e| io::Error::new(e.kind(), e.to_string()))
}

/// Opens the pipe, starts the thread that waits on it and installs the
/// handlers.
fn install(callback: fn(i32)) -> io::Result<()> {
    let mut fds = [0; 2];
    // SAFETY: pipe2 writes two descriptors into the array it is given,
    // which has room for two.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: pipe2 succeeded, so fds[0] is an open descriptor that nothing
    // else owns.
    let read_end = unsafe { OwnedFd::from_raw_fd(fds[0]) };
    // The write end stays open for the life of the process: the handler
    // may run at any time.
    WRITE_END.store(fds[1], Ordering::SeqCst);
    std::thread::Builder::new()
        .name("perfbench-signals".into())
        .spawn(move || wait(File::from(read_end), callback))?;
    for signal in [libc::SIGINT, libc::SIGTERM] {
        handle(signal)?;
    }
    Ok(())
}

/// Reads signal numbers from the pipe and calls `callback` with each.
fn wait(mut pipe: File, callback: fn(i32)) {
    let mut byte = [0u8; 1];
    while let Ok(1) = pipe.read(&mut byte) {
        callback(i32::from(byte[0]));
    }
}

/// Installs [`forward`] as the handler of `signal`.
fn handle(signal: libc::c_int) -> io::Result<()> {
    // SAFETY: an all-zero sigaction is a valid value (no flags, empty
    // mask) that the fields set below complete.
    let mut action: libc::sigaction = unsafe { std::mem::zeroed() };
    action.sa_sigaction = forward as extern "C" fn(libc::c_int) as libc::sighandler_t;
    // Interrupted system calls of the measured code restart.
    action.sa_flags = libc::SA_RESTART;
    // SAFETY: `action` is a valid sigaction whose handler is an
    // `extern "C" fn(c_int)` doing only async-signal-safe work; the old
    // action is not asked for.
    if unsafe { libc::sigaction(signal, &action, std::ptr::null_mut()) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// The handler: hands the signal's number to the waiting thread.
extern "C" fn forward(signal: libc::c_int) {
    let byte = signal as u8;
    let fd = WRITE_END.load(Ordering::SeqCst);
    // SAFETY: write(2) is async-signal-safe; it reads one byte from a live
    // local, and `fd` is the pipe's write end, never closed.
    let _ = unsafe { libc::write(fd, (&byte as *const u8).cast(), 1) };
}
