//! Async routines, run by tests/tests/async_routines.rs only: each is a
//! future that goes back to its executor once (`YieldOnce`) before it
//! touches fresh pages, so its page-fault count is exact only where the
//! future is awaited to its end inside the measurement.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use perfbench::async_executor::BlockOn;
use perfbench::fixtures::touch_fresh_pages;
use perfbench::{black_box, perfbench, BatchSize, Bencher};

#[path = "shared/mix.rs"]
mod mix;

/// Pending once, having woken itself, then ready.
struct YieldOnce(bool);

impl Future for YieldOnce {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            return Poll::Ready(());
        }
        self.0 = true;
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

/// `pages` fresh pages after a yield to the executor.
async fn touch_after_a_yield(pages: usize) -> u64 {
    YieldOnce(false).await;
    touch_fresh_pages(black_box(pages))
}

/// Exactly 16 page faults per iteration.
#[perfbench]
fn async_touch_16(b: &mut Bencher) {
    b.to_async(BlockOn).iter(|| touch_after_a_yield(16));
}

/// Exactly 5 page faults per iteration, the setup's 3 left out.
#[perfbench]
fn async_touch_batched(b: &mut Bencher) {
    let routine = |x| async move { x + touch_after_a_yield(5).await };
    b.to_async(BlockOn)
        .iter_batched(|| touch_fresh_pages(3), routine, BatchSize::SmallInput);
}

/// Busy in one function after a yield: what a profile of an async
/// routine must name.
#[inline(never)]
fn spin_work(x: u64) -> u64 {
    mix::mix(x, 3_000)
}

/// [`spin_work`] awaited, for `--profile`.
#[perfbench]
fn async_spin(b: &mut Bencher) {
    b.to_async(BlockOn).iter(|| async {
        YieldOnce(false).await;
        spin_work(black_box(7))
    });
}

perfbench::main!();
