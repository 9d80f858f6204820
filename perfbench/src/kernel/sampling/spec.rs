//! What a sampling event samples: the event (a [`CounterAttr`]), how often,
//! and what each sample carries (`sample_type`), turned into the kernel's
//! `perf_event_attr`.

use perf_event_open_sys::bindings;

use crate::kernel::sys::{self, CounterAttr};

/// How often the event takes a sample.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SampleRate {
    /// Every this many events (`sample_period`): for `cpu-clock`,
    /// nanoseconds of the thread's CPU time.
    Period(u64),
    /// About this many samples a second, the kernel adjusting the period
    /// (`sample_freq` with `freq` set).
    Frequency(u64),
}

/// The user registers an unwinder needs (`sample_regs_user`): the
/// instruction pointer, the stack pointer and the frame pointer (`x86_64`:
/// `PERF_REG_X86_IP`, `SP`, `BP`).
#[cfg(target_arch = "x86_64")]
pub const UNWIND_REGS: u64 = (1 << 8) | (1 << 7) | (1 << 6);
/// The user registers an unwinder needs (`sample_regs_user`): the program
/// counter, the stack pointer, the link register and the frame pointer
/// (`aarch64`: `PERF_REG_ARM64_PC`, `SP`, `LR`, `X29`).
#[cfg(target_arch = "aarch64")]
pub const UNWIND_REGS: u64 = (1 << 32) | (1 << 31) | (1 << 30) | (1 << 29);
/// No unwinding registers are known on this architecture.
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
pub const UNWIND_REGS: u64 = 0;

/// The largest user stack a sample can copy: the record's size is a `u16`,
/// and the kernel wants a multiple of 8.
pub const MAX_USER_STACK: u32 = 0xfff8;

/// A sampling event of the calling thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SamplingSpec {
    /// The event and the privilege levels it counts in (`inherit` is
    /// ignored: a sampler samples its own thread only).
    pub attr: CounterAttr,
    /// How often it samples.
    pub rate: SampleRate,
    /// Whether samples carry the user-space call chain
    /// (`PERF_SAMPLE_CALLCHAIN`, kernel frames left out), which only code
    /// built with frame pointers makes whole.
    pub callchain: bool,
    /// The user registers to copy into each sample (`PERF_SAMPLE_REGS_USER`,
    /// e.g. [`UNWIND_REGS`]); 0 copies none.
    pub regs_user: u64,
    /// Bytes of the user stack to copy into each sample
    /// (`PERF_SAMPLE_STACK_USER`), a multiple of 8 up to
    /// [`MAX_USER_STACK`]; 0 copies none.
    pub stack_user: u32,
}

impl SamplingSpec {
    /// Samples of `attr` at `rate` carrying the instruction pointer, the
    /// thread and the time only, the kernel left out (`exclude_kernel`, as
    /// unprivileged users at `perf_event_paranoid` 2 must).
    pub fn new(attr: CounterAttr, rate: SampleRate) -> SamplingSpec {
        SamplingSpec {
            attr: CounterAttr {
                exclude_kernel: true,
                ..attr
            },
            rate,
            callchain: false,
            regs_user: 0,
            stack_user: 0,
        }
    }

    /// The `sample_type` bits: IP, TID, TIME and PERIOD always (a sample
    /// weighs its period: at a frequency the kernel varies it), and the
    /// optional parts asked for.
    pub fn sample_type(&self) -> u64 {
        let mut t = u64::from(
            bindings::PERF_SAMPLE_IP
                | bindings::PERF_SAMPLE_TID
                | bindings::PERF_SAMPLE_TIME
                | bindings::PERF_SAMPLE_PERIOD,
        );
        if self.callchain {
            t |= u64::from(bindings::PERF_SAMPLE_CALLCHAIN);
        }
        if self.regs_user != 0 {
            t |= u64::from(bindings::PERF_SAMPLE_REGS_USER);
        }
        if self.stack_user != 0 {
            t |= u64::from(bindings::PERF_SAMPLE_STACK_USER);
        }
        t
    }

    /// Whether the kernel can take this spec as it is: a non-zero rate and
    /// a user stack size it accepts. `None` if so, else what is wrong.
    pub fn invalid(&self) -> Option<&'static str> {
        match self.rate {
            SampleRate::Period(0) | SampleRate::Frequency(0) => {
                return Some("a sampling rate of 0")
            }
            _ => {}
        }
        if self.stack_user % 8 != 0 || self.stack_user > MAX_USER_STACK {
            return Some("a user stack size that is not a multiple of 8 up to 65528");
        }
        None
    }

    /// The kernel's attribute: opened disabled, sampling its own thread,
    /// kernel frames left out of call chains.
    pub(crate) fn raw(&self) -> bindings::perf_event_attr {
        let mut raw = sys::event_attr(&CounterAttr {
            inherit: false,
            ..self.attr
        });
        match self.rate {
            SampleRate::Period(p) => raw.__bindgen_anon_1.sample_period = p,
            SampleRate::Frequency(f) => {
                raw.__bindgen_anon_1.sample_freq = f;
                raw.set_freq(1);
            }
        }
        raw.sample_type = self.sample_type();
        raw.sample_regs_user = self.regs_user;
        raw.sample_stack_user = self.stack_user;
        raw.set_exclude_callchain_kernel(1);
        raw.set_disabled(1);
        raw
    }
}
