//! Child processes that end with this one: each leads a process group of
//! its own, which is killed whole, is SIGKILLed by the kernel when this
//! process dies however it dies (`PR_SET_PDEATHSIG`), and announces its
//! group to the [`GroupGuard`] before it runs anything, so that what it
//! starts ends too even when this process is SIGKILLed.

use std::io;
use std::os::unix::process::CommandExt;
use std::process::Command;

use super::group_guard::GroupGuard;

/// Makes the process `command` starts lead a group of its own, watched by
/// `guard`, and die with this process's thread that starts it (the
/// kernel's parent-death signal follows the thread).
pub fn end_with_this_process(command: &mut Command, guard: &GroupGuard) {
    let parent = std::process::id() as libc::pid_t;
    let watch = guard.raw_fd();
    command.process_group(0);
    // SAFETY: the hook runs in the forked child before exec, where only
    // async-signal-safe calls are sound: prctl, getppid, signal, getpid and
    // write are, and it allocates nothing (an io::Error of an OS error number
    // holds the number).
    unsafe {
        command.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(io::Error::last_os_error());
            }
            // The parent died before the signal was asked for: none comes.
            if libc::getppid() != parent {
                return Err(io::Error::from_raw_os_error(libc::ESRCH));
            }
            // Outside the terminal's foreground group, a write to the
            // terminal under `stty tostop` would stop it; ignored, it
            // writes (the setting survives exec).
            libc::signal(libc::SIGTTOU, libc::SIG_IGN);
            // Announced before exec: nothing it starts is unwatched.
            let group = libc::getpid().to_ne_bytes();
            if libc::write(watch, group.as_ptr().cast(), group.len()) != group.len() as isize {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// SIGKILLs every process of the group `pgid`. Sound while its leader,
/// this process's child, is not yet reaped: the id is still that group's.
pub fn kill_group(pgid: u32) {
    // SAFETY: kill(2) takes numbers only.
    unsafe { libc::kill(-(pgid as libc::pid_t), libc::SIGKILL) };
}

/// Whether this process's child `pid` has ended, leaving it unreaped (its
/// group's id stays reserved until it is reaped); a child reaped already
/// or not ours has ended too.
pub fn has_ended(pid: u32) -> bool {
    // SAFETY: an all-zero siginfo_t is a valid value for waitid to fill.
    let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
    let flags = libc::WEXITED | libc::WNOHANG | libc::WNOWAIT;
    // SAFETY: waitid writes one siginfo_t into a live local.
    let rc = unsafe { libc::waitid(libc::P_PID, pid as libc::id_t, &mut info, flags) };
    // SAFETY: waitid filled `info`, or left it zeroed: si_pid reads it.
    rc != 0 || unsafe { info.si_pid() } != 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::BufRead;
    use std::time::{Duration, Instant};

    /// Whether process `pid` runs: not gone, not a zombie.
    fn runs(pid: &str) -> bool {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        stat.rsplit_once(") ")
            .is_some_and(|(_, rest)| !rest.starts_with('Z'))
    }

    fn within_seconds(seconds: u64, done: impl Fn() -> bool) {
        let started = Instant::now();
        while !done() {
            assert!(started.elapsed() < Duration::from_secs(seconds));
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    #[test]
    fn a_child_leads_its_group_which_is_killed_whole_once_it_ended() {
        let guard = GroupGuard::start().unwrap();
        let mut command = Command::new("sh");
        command.args(["-c", "sleep 100 & echo $!"]);
        command.stdout(std::process::Stdio::piped());
        end_with_this_process(&mut command, &guard);
        let mut child = command.spawn().unwrap();
        let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
        let mut grandchild = String::new();
        out.read_line(&mut grandchild).unwrap();
        let grandchild = grandchild.trim().to_string();
        within_seconds(10, || has_ended(child.id()));
        assert!(runs(&grandchild), "{grandchild}");
        kill_group(child.id());
        guard.forget(child.id()).unwrap();
        assert!(child.wait().unwrap().success());
        within_seconds(10, || !runs(&grandchild));
        drop(guard);
    }
}
