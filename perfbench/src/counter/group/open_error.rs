//! Why an event could not be opened, told apart by cause from the
//! kernel's errno so that the user is told what to change.

use std::fmt;
use std::io;

use crate::counter::denial::Denial;
use crate::counter::event::{Event, Source};

/// Why a permission was denied, from `errno` and whether the event left
/// the kernel out: [`Denial::here`], or a test's.
pub(super) type Denied = dyn Fn(i32, bool) -> Denial;

/// Why an event could not be opened.
#[derive(Debug)]
pub enum OpenError {
    /// This machine cannot count the event (no PMU, unknown to this CPU).
    Unsupported {
        /// The event as the user wrote it.
        event: String,
        /// Why, in a user's words.
        why: String,
    },
    /// The kernel, or a filter before it, refused.
    PermissionDenied {
        /// The event as the user wrote it.
        event: String,
        /// Why, told apart by cause.
        denial: Denial,
    },
    /// The event may count user space only here, where the kernel never
    /// raises it ([`Event::kernel_only`]): it would always read 0.
    KernelOnly {
        /// The event as the user wrote it.
        event: String,
        /// Why kernel counting was refused.
        denial: Denial,
    },
    /// Anything else the kernel said.
    Other {
        /// The event as the user wrote it.
        event: String,
        /// The kernel's error.
        error: io::Error,
    },
}

impl fmt::Display for OpenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpenError::Unsupported { event, .. } => write!(f, "cannot count `{event}` here: "),
            OpenError::PermissionDenied { event, .. } => {
                write!(f, "permission denied opening `{event}`: ")
            }
            OpenError::KernelOnly { event, .. } => write!(f, "not counting `{event}`: "),
            OpenError::Other { event, .. } => write!(f, "cannot open `{event}`: "),
        }?;
        f.write_str(&self.reason())
    }
}

impl std::error::Error for OpenError {}

impl OpenError {
    /// The event as the user wrote it.
    pub fn event(&self) -> &str {
        match self {
            OpenError::Unsupported { event, .. }
            | OpenError::PermissionDenied { event, .. }
            | OpenError::KernelOnly { event, .. }
            | OpenError::Other { event, .. } => event,
        }
    }

    /// Why the event cannot be opened, without naming it.
    pub fn reason(&self) -> String {
        match self {
            OpenError::Unsupported { why, .. } => why.clone(),
            OpenError::PermissionDenied { denial, .. } => denial.to_string(),
            OpenError::KernelOnly { denial, .. } => format!(
                "raised by the kernel only in its own context, so user-space counting would \
                 always read 0; {denial}"
            ),
            OpenError::Other { error, .. } => error.to_string(),
        }
    }

    /// Why the kernel refused to open `event` with `error`, as the user is
    /// told it: permission told apart by this machine's settings.
    pub(super) fn classify(event: &Event, error: io::Error) -> OpenError {
        Self::classify_with(event, error, &Denial::here)
    }

    /// [`OpenError::classify`], with `denied` telling why a permission was
    /// denied (the machine's settings, or a test's).
    pub(super) fn classify_with(event: &Event, error: io::Error, denied: &Denied) -> OpenError {
        let name = event.name.clone();
        match error.raw_os_error() {
            Some(errno @ (libc::EACCES | libc::EPERM)) => OpenError::PermissionDenied {
                event: name,
                denial: denied(errno, event.attr.exclude_kernel),
            },
            Some(libc::ENOSYS) => OpenError::Unsupported {
                event: name,
                why: "this kernel has no perf_event_open (built without perf events, or a \
                      filter hides the call)"
                    .into(),
            },
            Some(libc::ENOENT | libc::EOPNOTSUPP | libc::ENODEV | libc::EINVAL)
                if event.source == Source::Hardware =>
            {
                let why = if crate::counter::event::has_cpu_pmu() {
                    "this CPU's PMU does not support it"
                } else {
                    "no hardware PMU is available (usual in VMs and CI runners: enable the \
                     virtual PMU, e.g. `-cpu host` or vPMU, or run on bare metal)"
                };
                OpenError::Unsupported {
                    event: name,
                    why: why.into(),
                }
            }
            Some(libc::ENOENT | libc::EOPNOTSUPP | libc::ENODEV) => OpenError::Unsupported {
                event: name,
                why: format!("the kernel does not support it ({error})"),
            },
            _ => OpenError::Other { event: name, error },
        }
    }
}
