//! Panics of benchmarks, caught and turned into a message naming where they
//! happened, without the default hook's backtrace hint in the output.

use std::fmt;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Mutex;

use crate::measure::MeasureError;
use crate::run::bench_failure::BenchFailure;

/// A panic caught: its message and where it happened, one line as the
/// hook records it (`panicked at src/lib.rs:3:5: boom`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Panic(pub String);

impl fmt::Display for Panic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The message and location of the last panic, recorded by the hook that
/// [`catch`] installs instead of the default.
static LAST_PANIC: Mutex<Option<String>> = Mutex::new(None);

/// Runs `f`, turning a panic into `Err`.
pub fn catch<T>(f: impl FnOnce() -> T) -> Result<T, Panic> {
    let previous = panic::take_hook();
    panic::set_hook(Box::new(|info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "(a panic without a message)".into());
        let at = info
            .location()
            .map(|l| format!(" at {}:{}:{}", l.file(), l.line(), l.column()));
        *LAST_PANIC.lock().unwrap_or_else(|e| e.into_inner()) =
            Some(format!("panicked{}: {message}", at.unwrap_or_default()));
    }));
    let result = panic::catch_unwind(AssertUnwindSafe(f));
    panic::set_hook(previous);
    result.map_err(|_| {
        let last = LAST_PANIC.lock().unwrap_or_else(|e| e.into_inner()).take();
        Panic(last.unwrap_or_else(|| "panicked".into()))
    })
}

/// Runs a benchmark's `f`, turning its error or panic into `Err(why)`.
pub fn caught<T>(f: impl FnOnce() -> Result<T, MeasureError>) -> Result<T, BenchFailure> {
    match catch(f) {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(err)) => Err(BenchFailure::Measure(err)),
        Err(panic) => Err(BenchFailure::Panicked(panic)),
    }
}
