//! Panics of benchmarks, caught and turned into a message naming where they
//! happened, without the default hook's backtrace hint in the output.

use std::fmt::Display;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Mutex;

/// The message and location of the last panic, recorded by the hook that
/// [`catch`] installs instead of the default.
static LAST_PANIC: Mutex<Option<String>> = Mutex::new(None);

/// Runs `f`, turning a panic into `Err(message)`.
pub fn catch<T>(f: impl FnOnce() -> T) -> Result<T, String> {
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
        LAST_PANIC
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
            .unwrap_or_else(|| "panicked".into())
    })
}

/// Runs a benchmark's `f`, turning its error or panic into `Err(why)`,
/// worded to follow the benchmark's id: `: the benchmark returned …` or
/// ` panicked at …`.
pub fn caught<T, E: Display>(f: impl FnOnce() -> Result<T, E>) -> Result<T, String> {
    match catch(f) {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(err)) => Err(format!(": {err}")),
        Err(panic) => Err(format!(" {panic}")),
    }
}
