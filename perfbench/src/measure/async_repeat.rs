//! The polls of an async routine's iterations: the async twin of
//! `bencher::repeat`, a loop neither inlined nor generic, so that the code
//! around every routine's futures is the same machine code, and
//! calibration on an empty future measures it.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};
use std::time::{Duration, Instant};

use super::batch_mode::{start_counting, stop_counting, Measured};
use super::batch_windows::Windows;
use super::per_iter::Bracket;
use crate::counter::group::CounterGroup;

/// One iteration of an async routine, polled until it is done.
pub(super) trait AsyncStep {
    /// Makes the iteration's future, if it has none in flight, and polls
    /// it: `Ready` when it is done and its output handed on.
    fn poll_step(&mut self, cx: &mut Context<'_>) -> Poll<()>;
}

/// A routine's futures, made by `make` one at a time in a pinned slot
/// (safe code: `Pin::set` and `Option::as_pin_mut`, no allocation), each
/// output handed to `done`.
pub(super) struct RoutineFutures<'s, M, D, F> {
    make: M,
    done: D,
    slot: Pin<&'s mut Option<F>>,
}

impl<'s, M, D, F> RoutineFutures<'s, M, D, F>
where
    M: FnMut() -> F,
    D: FnMut(F::Output),
    F: Future,
{
    /// The futures `make` makes, in `slot` (empty), handed to `done`.
    pub(super) fn new(make: M, done: D, slot: Pin<&'s mut Option<F>>) -> Self {
        RoutineFutures { make, done, slot }
    }
}

impl<M, D, F> AsyncStep for RoutineFutures<'_, M, D, F>
where
    M: FnMut() -> F,
    D: FnMut(F::Output),
    F: Future,
{
    #[inline]
    fn poll_step(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        if self.slot.is_none() {
            self.slot.set(Some((self.make)()));
        }
        let Some(future) = self.slot.as_mut().as_pin_mut() else {
            unreachable!("the slot was just filled")
        };
        let output = ready!(future.poll(cx));
        // The future is dropped before its output, both inside the
        // measurement, as `Bencher::iter` drops its routine's output.
        self.slot.set(None);
        (self.done)(output);
        Poll::Ready(())
    }
}

/// `n` iterations of `step`, one after the other.
pub(super) struct RepeatPolls<'s> {
    step: &'s mut dyn AsyncStep,
    left: u64,
}

impl<'s> RepeatPolls<'s> {
    /// `n` iterations of `step`.
    pub(super) fn new(step: &'s mut dyn AsyncStep, n: u64) -> Self {
        RepeatPolls { step, left: n }
    }
}

impl Future for RepeatPolls<'_> {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = &mut *self;
        poll_repeat(this.step, &mut this.left, cx)
    }
}

/// Polls `step` until `left` iterations are done or one is pending: not
/// inlined and not generic, as `bencher::repeat`.
#[inline(never)]
fn poll_repeat(step: &mut dyn AsyncStep, left: &mut u64, cx: &mut Context<'_>) -> Poll<()> {
    while *left > 0 {
        ready!(step.poll_step(cx));
        *left -= 1;
    }
    Poll::Ready(())
}

/// `n` iterations of `step` with the group counting, if there is one,
/// from inside the executor's first poll of this future to its last: the
/// executor's entry and exit are outside, what it does while an iteration
/// waits (its park and wake) inside. The clock is read outside the
/// counted window, as `Bencher::iter` reads it.
pub(super) async fn counted(
    group: Option<&CounterGroup>,
    step: &mut dyn AsyncStep,
    n: u64,
) -> io::Result<Measured> {
    let start = Instant::now();
    start_counting(group)?;
    RepeatPolls::new(step, n).await;
    stop_counting(group)?;
    Ok(start.elapsed().into())
}

/// `n` iterations of `step` in one window of `windows`
/// (`iter_batched`'s), opened and closed inside the executor's polls.
pub(super) async fn in_window(
    windows: &mut Windows<'_>,
    step: &mut dyn AsyncStep,
    n: u64,
) -> io::Result<()> {
    let opened = windows.open()?;
    RepeatPolls::new(step, n).await;
    windows.close(opened)
}

/// One iteration of `step` between the inline reads of `bracket`
/// (per-iteration mode), inside the executor's polls.
pub(super) async fn in_bracket(
    bracket: &mut Bracket<'_>,
    step: &mut dyn AsyncStep,
) -> io::Result<()> {
    let opened = bracket.open()?;
    RepeatPolls::new(step, 1).await;
    bracket.close(opened)
}

/// `future` awaited between the inline reads of `bracket`: for a routine
/// that times itself, whose one future is the iteration. Not generic, so
/// that the reads are the same machine code around every routine's future
/// (made just before, which for an async block only stores what it
/// captures).
pub(super) async fn future_in_bracket(
    bracket: &mut Bracket<'_>,
    future: Pin<&mut dyn Future<Output = Duration>>,
) -> io::Result<Duration> {
    let opened = bracket.open()?;
    let output = future.await;
    bracket.close(opened)?;
    Ok(output)
}
