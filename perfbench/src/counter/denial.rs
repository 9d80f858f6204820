//! Why `perf_event_open(2)` was refused for lack of permission, told apart
//! by cause, so that the advice fits the machine: a container's seccomp
//! filter, a kernel that denies perf events to unprivileged users
//! (`perf_event_paranoid` 3 or 4 on Debian and Ubuntu), kernel counting
//! refused at the upstream default of 2, or something else.

use std::fmt;

use crate::kernel::sys;

/// What the kernel said and what stood around the refusal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Denial {
    /// The error number: `EPERM` or `EACCES`.
    pub errno: i32,
    /// Whether a seccomp filter watches the process.
    pub seccomp: bool,
    /// `kernel.perf_event_paranoid`, if readable.
    pub paranoid: Option<i32>,
    /// Whether the event left the kernel out (counted user space only).
    pub user_only: bool,
}

/// The cause of a [`Denial`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cause {
    /// A seccomp filter refuses the call: Docker's default profile and many
    /// CI containers answer `EPERM` without asking the kernel.
    Seccomp,
    /// `perf_event_paranoid` above 2: Debian's and Ubuntu's kernels then
    /// refuse every perf event to users without `CAP_PERFMON`.
    NoUserEvents,
    /// The event counts the kernel, which needs `perf_event_paranoid` 1 or
    /// below (or `CAP_PERFMON`).
    KernelCounting,
    /// Refused although the settings above allow it: a security module
    /// (SELinux, AppArmor, lockdown) or another policy.
    Other,
}

impl Denial {
    /// The denial of this process, from the kernel's `errno`, for an event
    /// that does (`user_only` false) or does not count the kernel.
    pub fn here(errno: i32, user_only: bool) -> Denial {
        Denial {
            errno,
            seccomp: sys::seccomp_filtered(),
            paranoid: sys::perf_event_paranoid(),
            user_only,
        }
    }

    /// Why it was refused.
    pub fn cause(&self) -> Cause {
        if self.seccomp && self.errno == libc::EPERM {
            return Cause::Seccomp;
        }
        match self.paranoid {
            Some(p) if p > 2 => Cause::NoUserEvents,
            Some(p) if p > 1 && !self.user_only => Cause::KernelCounting,
            _ => Cause::Other,
        }
    }

    /// `kernel.perf_event_paranoid` as notes print it.
    fn level(&self) -> String {
        self.paranoid
            .map_or_else(|| "unreadable".to_string(), |p| p.to_string())
    }
}

impl fmt::Display for Denial {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let level = self.level();
        match self.cause() {
            Cause::Seccomp => write!(
                f,
                "a seccomp filter blocks perf_event_open (a container's default profile does); \
                 allow it in the profile (Docker: `--security-opt seccomp=PROFILE`, or \
                 `--cap-add PERFMON` where the default profile allows it then)"
            ),
            Cause::NoUserEvents => write!(
                f,
                "kernel.perf_event_paranoid is {level}, which denies perf events to users \
                 without CAP_PERFMON; `sudo sysctl kernel.perf_event_paranoid=2` allows \
                 counting in user space, 1 the kernel too"
            ),
            Cause::KernelCounting => write!(
                f,
                "kernel.perf_event_paranoid is {level}; counting the kernel needs 1 or below \
                 (`sudo sysctl kernel.perf_event_paranoid=1`) or CAP_PERFMON"
            ),
            Cause::Other => write!(
                f,
                "refused ({}) although kernel.perf_event_paranoid is {level}: a security \
                 module (SELinux, AppArmor, lockdown) or another policy forbids it",
                std::io::Error::from_raw_os_error(self.errno)
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn denial(errno: i32, seccomp: bool, paranoid: Option<i32>, user_only: bool) -> Denial {
        Denial {
            errno,
            seccomp,
            paranoid,
            user_only,
        }
    }

    #[test]
    fn each_cause_is_told_apart() {
        let (eperm, eacces) = (libc::EPERM, libc::EACCES);
        // Docker: EPERM from the filter, whatever the sysctl says.
        assert_eq!(denial(eperm, true, Some(2), true).cause(), Cause::Seccomp);
        assert_eq!(denial(eperm, true, Some(4), false).cause(), Cause::Seccomp);
        // A filter is there, but the kernel's own check answered.
        assert_eq!(
            denial(eacces, true, Some(3), true).cause(),
            Cause::NoUserEvents
        );
        assert_eq!(
            denial(eacces, false, Some(4), true).cause(),
            Cause::NoUserEvents
        );
        assert_eq!(
            denial(eacces, false, Some(2), false).cause(),
            Cause::KernelCounting
        );
        // User space at 2 is allowed: something else refused.
        assert_eq!(denial(eacces, false, Some(2), true).cause(), Cause::Other);
        assert_eq!(denial(eperm, false, Some(1), false).cause(), Cause::Other);
        assert_eq!(denial(eperm, false, None, true).cause(), Cause::Other);
    }

    #[test]
    fn the_advice_never_contradicts_the_setting() {
        // The old text said "is 2; user-space counting needs it at 2 or
        // below" to a container whose filter had refused.
        let text = denial(libc::EPERM, true, Some(2), true).to_string();
        assert!(
            text.starts_with("a seccomp filter blocks perf_event_open"),
            "{text}"
        );
        assert!(!text.contains("paranoid"), "{text}");
        let text = denial(libc::EACCES, false, Some(4), true).to_string();
        assert!(
            text.starts_with("kernel.perf_event_paranoid is 4, which denies"),
            "{text}"
        );
        let text = denial(libc::EACCES, false, Some(2), true).to_string();
        assert!(
            text.starts_with("refused (Permission denied (os error 13)) although"),
            "{text}"
        );
    }
}
