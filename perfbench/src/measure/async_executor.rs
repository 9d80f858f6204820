//! [`AsyncExecutor`]: what runs an async routine's futures for
//! [`Bencher::to_async`](super::Bencher::to_async), with perfbench's own
//! [`BlockOn`] and, behind cargo features named as Criterion's, the
//! executors of the futures crate, tokio and async-std.

use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread::{self, Thread};

/// Runs a future to completion on the calling thread: what
/// [`Bencher::to_async`](super::Bencher::to_async) measures an async
/// routine through, as Criterion's trait of the same name.
///
/// perfbench calls `block_on` once per sample (once per iteration in
/// per-iteration mode) and counts inside the future it is given, from its
/// first poll to its last: entering and leaving the executor is never
/// counted. What the executor does while a routine's future waits
/// (`Poll::Pending`, then a wake and another poll) is counted, as it is
/// part of what awaiting costs.
///
/// ```
/// use perfbench::async_executor::{AsyncExecutor, BlockOn};
///
/// assert_eq!(BlockOn.block_on(async { 6 * 7 }), 42);
/// ```
///
/// Any executor can be given by implementing it:
///
/// ```
/// use std::future::Future;
/// use perfbench::AsyncExecutor;
///
/// struct MyExecutor;
///
/// impl AsyncExecutor for MyExecutor {
///     fn block_on<T>(&self, future: impl Future<Output = T>) -> T {
///         perfbench::async_executor::block_on(future)
///     }
/// }
///
/// assert_eq!(MyExecutor.block_on(async { "done" }), "done");
/// ```
pub trait AsyncExecutor {
    /// Runs `future` to completion on the calling thread and returns its
    /// output.
    fn block_on<T>(&self, future: impl Future<Output = T>) -> T;
}

/// perfbench's own executor, without a dependency: polls the future on
/// the calling thread and parks the thread while it waits, until its waker
/// unparks it. It runs no tasks and no I/O or timer driver, so it suits
/// routines whose futures make progress by themselves or are woken from
/// another thread (channels, computation written as `async`); a routine
/// that needs a runtime's reactor (tokio's sockets or `sleep`) needs that
/// runtime (`async_tokio`, `async_std`).
///
/// ```no_run
/// use perfbench::{async_executor::BlockOn, perfbench, Bencher};
///
/// async fn double(x: u64) -> u64 {
///     x * 2
/// }
///
/// #[perfbench]
/// fn double_async(b: &mut Bencher) {
///     b.to_async(BlockOn).iter(|| double(perfbench::black_box(21)));
/// }
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct BlockOn;

impl AsyncExecutor for BlockOn {
    fn block_on<T>(&self, future: impl Future<Output = T>) -> T {
        block_on(future)
    }
}

/// Runs `future` to completion on the calling thread, parked while it
/// waits: [`BlockOn`]'s executor, for an [`AsyncExecutor`] of one's own.
///
/// ```
/// assert_eq!(perfbench::async_executor::block_on(async { 1 + 1 }), 2);
/// ```
pub fn block_on<T>(future: impl Future<Output = T>) -> T {
    let mut future = pin!(future);
    let waker = Waker::from(Arc::new(Unparker(thread::current())));
    let mut cx = Context::from_waker(&waker);
    loop {
        match future.as_mut().poll(&mut cx) {
            Poll::Ready(output) => return output,
            // A spurious unpark only costs one more poll.
            Poll::Pending => thread::park(),
        }
    }
}

/// The waker of [`block_on`]: unparks the thread that waits.
struct Unparker(Thread);

impl Wake for Unparker {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.0.unpark();
    }
}

/// The futures crate's `executor::block_on` (feature `async_futures`), as
/// Criterion's executor of the same name.
///
/// ```
/// # #[cfg(feature = "async_futures")] {
/// use perfbench::async_executor::{AsyncExecutor, FuturesExecutor};
///
/// assert_eq!(FuturesExecutor.block_on(async { 3 }), 3);
/// # }
/// ```
#[cfg(feature = "async_futures")]
#[derive(Clone, Copy, Debug, Default)]
pub struct FuturesExecutor;

#[cfg(feature = "async_futures")]
impl AsyncExecutor for FuturesExecutor {
    fn block_on<T>(&self, future: impl Future<Output = T>) -> T {
        futures::executor::block_on(future)
    }
}

/// async-std's `task::block_on` (feature `async_std`), as Criterion's
/// executor of the same name.
#[cfg(feature = "async_std")]
#[derive(Clone, Copy, Debug, Default)]
pub struct AsyncStdExecutor;

#[cfg(feature = "async_std")]
impl AsyncExecutor for AsyncStdExecutor {
    fn block_on<T>(&self, future: impl Future<Output = T>) -> T {
        async_std::task::block_on(future)
    }
}

/// A tokio runtime (feature `async_tokio`): `b.to_async(&runtime)`, as in
/// Criterion. A multi-threaded runtime polls the benchmark's future on the
/// calling thread, whose counters count; what its workers do for the
/// routine (spawned tasks) shows in the wall time, not in the counts.
#[cfg(feature = "async_tokio")]
impl AsyncExecutor for tokio::runtime::Runtime {
    fn block_on<T>(&self, future: impl Future<Output = T>) -> T {
        tokio::runtime::Runtime::block_on(self, future)
    }
}

/// A borrowed tokio runtime (feature `async_tokio`), as
/// [`Runtime`](tokio::runtime::Runtime).
#[cfg(feature = "async_tokio")]
impl AsyncExecutor for &tokio::runtime::Runtime {
    fn block_on<T>(&self, future: impl Future<Output = T>) -> T {
        tokio::runtime::Runtime::block_on(self, future)
    }
}

/// A handle to a tokio runtime (feature `async_tokio`), as Criterion 0.8
/// takes it.
#[cfg(feature = "async_tokio")]
impl AsyncExecutor for tokio::runtime::Handle {
    fn block_on<T>(&self, future: impl Future<Output = T>) -> T {
        tokio::runtime::Handle::block_on(self, future)
    }
}

/// A borrowed handle to a tokio runtime (feature `async_tokio`).
#[cfg(feature = "async_tokio")]
impl AsyncExecutor for &tokio::runtime::Handle {
    fn block_on<T>(&self, future: impl Future<Output = T>) -> T {
        tokio::runtime::Handle::block_on(self, future)
    }
}

/// smol's `block_on` (feature `async_smol`), as Criterion's executor of
/// the same name.
#[cfg(feature = "async_smol")]
#[derive(Clone, Copy, Debug, Default)]
pub struct SmolExecutor;

#[cfg(feature = "async_smol")]
impl AsyncExecutor for SmolExecutor {
    fn block_on<T>(&self, future: impl Future<Output = T>) -> T {
        smol::block_on(future)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    /// A future that is pending until another thread wakes it.
    struct WokenFromAfar(Option<mpsc::Sender<Waker>>, bool);

    impl Future for WokenFromAfar {
        type Output = &'static str;

        fn poll(mut self: std::pin::Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
            if self.1 {
                return Poll::Ready("woken");
            }
            self.1 = true;
            let sender = self.0.take().expect("polled once before");
            sender.send(cx.waker().clone()).unwrap();
            Poll::Pending
        }
    }

    /// `executor` waits for a future another thread wakes, and returns its
    /// output.
    fn waits_for_a_wake(executor: impl AsyncExecutor) {
        let (sender, receiver) = mpsc::channel::<Waker>();
        let waker = thread::spawn(move || receiver.recv().unwrap().wake());
        assert_eq!(
            executor.block_on(WokenFromAfar(Some(sender), false)),
            "woken"
        );
        waker.join().unwrap();
    }

    #[test]
    fn block_on_parks_until_another_thread_wakes_the_future() {
        waits_for_a_wake(BlockOn);
    }

    #[cfg(feature = "async_smol")]
    #[test]
    fn smol_waits_for_a_wake() {
        waits_for_a_wake(SmolExecutor);
    }

    #[cfg(feature = "async_tokio")]
    #[test]
    fn a_tokio_handle_waits_for_a_wake() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        waits_for_a_wake(runtime.handle());
        waits_for_a_wake(runtime.handle().clone());
    }
}
