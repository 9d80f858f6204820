//! `threads = [1, 2, 4]`: one routine run on several threads at once
//! ([`Bencher::iter_shared`]), the measuring thread among them.
//!
//! An iteration is one call of the routine on each of the `N` threads,
//! started together: a sample of `n` iterations makes `n` calls on every
//! thread. In batch mode the counters are inherited (`attr.inherit`), so
//! they count every thread and the counts are totals over the threads; the
//! sample's wall time runs from the start to the last thread's finish.
//!
//! The other `N - 1` threads start when the routine is given, after the plan
//! opened the counters (a thread inherits only counters open when it
//! starts), and serve every sample of the measurement. For each sample the
//! measuring thread posts the iterations and all threads meet three times:
//! once all have the iterations (then the counters are enabled), to start
//! together, and once all are done (then the counters are disabled). So a
//! thread's wake-up to take its orders lands outside the counted window, and
//! no call starts before the counters count; what the meetings cost inside
//! the window is the same in every sample, and lands in the intercept.

use std::any::Any;
use std::hint::black_box;
use std::io;
use std::panic;
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::{self, Scope, ScopedJoinHandle};
use std::time::Instant;

use super::batch_mode::{start_counting, stop_counting, Measured};
use super::bencher::{Bencher, Task};
use super::method::Method;
use super::MeasureError;
use crate::counter::group::CounterGroup;

impl Bencher<'_> {
    /// Measures `routine` as [`iter`](Self::iter) does, on every thread of
    /// `#[perfbench(threads = [...])]` at once: the threads share the one
    /// routine, so it must be `Fn + Sync`, and state it captures (a lock, a
    /// map, an atomic) is contended as it would be in use. An iteration is
    /// one call on each thread; counts are totals over the threads and wall
    /// time is the iteration's, from the start to the last thread's finish.
    /// Without `threads` it is [`iter`](Self::iter).
    ///
    /// The other methods (`iter`, `iter_custom`, `iter_batched`,
    /// `iter_batched_ref`) take routines for one thread, and fail a
    /// benchmark that asks for more.
    ///
    /// ```no_run
    /// use std::sync::Mutex;
    /// use perfbench::{perfbench, Bencher};
    ///
    /// #[perfbench(threads = [1, 2, 4])]
    /// fn contended_push(b: &mut Bencher) {
    ///     let log = Mutex::new(Vec::new()); // shared by the threads
    ///     b.iter_shared(|| log.lock().unwrap().push(1u8));
    /// }
    /// ```
    pub fn iter_shared<O, R: Fn() -> O + Sync>(&mut self, routine: R) {
        if self.threads <= 1 {
            return self.iter(routine);
        }
        let body = || {
            black_box(routine());
        };
        // The rest is compiled once for every routine.
        self.iter_on_threads(&body);
    }

    /// [`iter_shared`](Self::iter_shared) on more than one thread.
    fn iter_on_threads(&mut self, body: &(dyn Fn() + Sync)) {
        if let Task::PerIter(..) = self.task {
            return self.fail(MeasureError::PerIterThreads(self.threads));
        }
        self.method = Method::IterShared(self.threads);
        let crew = Crew::new(self.threads);
        let panicked = thread::scope(|scope| {
            // Whatever happens here, the other threads must stop waiting.
            let _leaving = Leaving(&crew);
            let workers = match crew.start(scope, body) {
                Ok(workers) => workers,
                Err(e) => {
                    self.fail(MeasureError::Spawn(e));
                    return None;
                }
            };
            self.drive(|iterations, _, group| crew.lead(iterations, group, body));
            crew.disband();
            first_panic(workers)
        });
        if let Some(payload) = panicked {
            // The thread's own panic, as if the routine had panicked here.
            panic::resume_unwind(payload);
        }
    }

    /// Sets the threads [`iter_shared`](Self::iter_shared) runs its routine
    /// on (`threads = [...]`).
    pub(crate) fn set_threads(&mut self, threads: usize) {
        self.threads = threads.max(1);
    }

    /// Whether `method`, which runs its routine on one thread, must refuse
    /// the threads asked for; the refusal is the benchmark's outcome.
    pub(super) fn refuses_threads(&mut self, method: &'static str) -> bool {
        if self.threads <= 1 {
            return false;
        }
        let threads = self.threads;
        self.fail(match self.task {
            Task::PerIter(..) => MeasureError::PerIterThreads(threads),
            _ => MeasureError::OneThreadRoutine { method, threads },
        });
        true
    }

    /// Ends the measurement with `why`, unless an `iter` method already
    /// ran: then the benchmark called two.
    pub(super) fn fail(&mut self, why: MeasureError) {
        let why = match self.outcome {
            Some(_) => MeasureError::IteratedTwice,
            None => why,
        };
        self.outcome = Some(Err(why));
    }

    /// The work of one iteration: what the benchmark declared, once per
    /// thread.
    pub(super) fn total_throughput(&self) -> Option<super::Throughput> {
        self.throughput.map(|t| t.times(self.threads))
    }
}

/// The payload of the first of `workers` that panicked, once all ended.
fn first_panic(workers: Vec<ScopedJoinHandle<'_, ()>>) -> Option<Box<dyn Any + Send>> {
    let mut first = None;
    for w in workers {
        if let Err(payload) = w.join() {
            first.get_or_insert(payload);
        }
    }
    first
}

/// The threads running one routine together: where they meet, and the
/// iterations of the sample the measuring thread posted.
struct Crew {
    /// Threads in all, the measuring one included.
    size: usize,
    meeting: Mutex<Meeting>,
    changed: Condvar,
}

/// The state of the crew's meetings.
struct Meeting {
    /// The iterations of the current sample.
    iterations: u64,
    /// Threads waiting at the current meeting.
    arrived: usize,
    /// Meetings held so far.
    held: u64,
    /// A thread left (the measurement ended, failed or panicked): nobody
    /// waits any more.
    disbanded: bool,
}

/// A meeting that will never be complete: a thread left.
#[derive(Debug)]
struct Disbanded;

impl From<Disbanded> for io::Error {
    fn from(_: Disbanded) -> io::Error {
        io::Error::other("another thread of the benchmark stopped")
    }
}

/// Disbands the crew when dropped: a thread that leaves, by returning or by
/// a panic, must not leave the others waiting for it.
struct Leaving<'c>(&'c Crew);

impl Drop for Leaving<'_> {
    fn drop(&mut self) {
        self.0.disband();
    }
}

impl Crew {
    fn new(size: usize) -> Crew {
        Crew {
            size,
            meeting: Mutex::new(Meeting {
                iterations: 0,
                arrived: 0,
                held: 0,
                disbanded: false,
            }),
            changed: Condvar::new(),
        }
    }

    /// The meeting's state; no thread panics while holding it.
    fn state(&self) -> MutexGuard<'_, Meeting> {
        self.meeting.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Starts the `size - 1` other threads, each calling `body` as the
    /// samples ask.
    fn start<'scope>(
        &'scope self,
        scope: &'scope Scope<'scope, '_>,
        body: &'scope (dyn Fn() + Sync),
    ) -> io::Result<Vec<ScopedJoinHandle<'scope, ()>>> {
        (1..self.size)
            .map(|i| {
                thread::Builder::new()
                    .name(format!("perfbench-{i}"))
                    .spawn_scoped(scope, move || self.follow(body))
            })
            .collect()
    }

    /// Waits until every thread has come, and returns the iterations
    /// posted; `Err` once the crew disbanded.
    fn meet(&self) -> Result<u64, Disbanded> {
        let mut m = self.state();
        if m.disbanded {
            return Err(Disbanded);
        }
        m.arrived += 1;
        if m.arrived == self.size {
            m.arrived = 0;
            m.held += 1;
            self.changed.notify_all();
        } else {
            let held = m.held;
            m = self
                .changed
                .wait_while(m, |m| m.held == held && !m.disbanded)
                .unwrap_or_else(PoisonError::into_inner);
            if m.held == held {
                return Err(Disbanded);
            }
        }
        Ok(m.iterations)
    }

    /// Releases every thread from its meeting, for good.
    fn disband(&self) {
        self.state().disbanded = true;
        self.changed.notify_all();
    }

    /// One sample, on the measuring thread: posts `iterations`, enables
    /// the counters once every thread has them, runs its own share with
    /// the others, and disables the counters once all are done. The wall
    /// time runs from just before the enable to just after the disable.
    fn lead(
        &self,
        iterations: u64,
        group: Option<&mut CounterGroup>,
        body: &(dyn Fn() + Sync),
    ) -> io::Result<Measured> {
        self.state().iterations = iterations;
        self.meet()?;
        let start = Instant::now();
        start_counting(group.as_deref())?;
        let ran = self
            .meet()
            .map(|_| repeat_shared(body, iterations))
            .and_then(|()| self.meet());
        stop_counting(group.as_deref())?;
        ran?;
        Ok(start.elapsed().into())
    }

    /// Every sample, on one of the other threads: takes the iterations,
    /// starts with the others, runs them and meets them when done.
    fn follow(&self, body: &(dyn Fn() + Sync)) {
        let _leaving = Leaving(self);
        while let Ok(iterations) = self.meet() {
            if self.meet().is_err() {
                return;
            }
            repeat_shared(body, iterations);
            if self.meet().is_err() {
                return;
            }
        }
    }
}

/// Calls `body` `n` times, one dynamic call each, on any thread of a crew
/// (the leader's and the others' iterations cost alike).
#[inline(never)]
fn repeat_shared(body: &(dyn Fn() + Sync), n: u64) {
    for _ in 0..n {
        body();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::counter::event::parse_list;
    use crate::fixtures::touch_fresh_pages;
    use crate::measure::{measure, measure_per_iter, profile, run_once, BatchSize, Throughput};
    use std::collections::HashSet;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Barrier;
    use std::time::Duration;

    use crate::measure::tests::quick;

    /// Page faults, inherited by the threads the measuring one starts (as
    /// the plan opens them in batch mode), or not.
    fn page_faults(inherit: bool) -> CounterGroup {
        let mut events = parse_list("page-faults").unwrap();
        events[0].attr.inherit = inherit;
        CounterGroup::open(&events).unwrap()
    }

    /// The page faults of each sample of a routine touching 2 fresh pages
    /// a call, per iteration, on `threads` threads.
    fn faults_per_iteration(threads: usize, inherit: bool) -> Vec<u64> {
        let mut group = page_faults(inherit);
        let m = measure(&quick(), &mut group, |b| {
            b.set_threads(threads);
            b.iter_shared(|| touch_fresh_pages(2))
        })
        .unwrap();
        // A busy machine makes the plan take fewer samples than asked (3
        // were seen); what each one counts is this test's subject.
        assert!(!m.samples.is_empty());
        m.samples
            .iter()
            .map(|s| {
                assert_eq!(s.counts.values[0] % s.iterations, 0, "{s:?}");
                s.counts.values[0] / s.iterations
            })
            .collect()
    }

    #[test]
    fn inherited_counters_count_exact_totals_over_the_threads() {
        for (threads, faults) in [(1, 2), (2, 4), (4, 8)] {
            let got = faults_per_iteration(threads, true);
            assert_eq!(got, vec![faults; got.len()], "{threads} threads");
        }
        // Not inherited, the counters see the measuring thread's share alone:
        // it is one of the threads, and the others count through inheritance.
        let got = faults_per_iteration(4, false);
        assert_eq!(got, vec![2; got.len()]);
    }

    #[test]
    fn an_iteration_is_one_call_on_each_thread_at_once() {
        // A barrier of 3 lets the calls through only when all 3 run at once.
        let barrier = Barrier::new(3);
        let callers = Mutex::new(HashSet::new());
        run_once(|b| {
            b.set_threads(3);
            b.iter_shared(|| {
                barrier.wait();
                callers.lock().unwrap().insert(thread::current().id());
            })
        })
        .unwrap();
        assert_eq!(callers.into_inner().unwrap().len(), 3, "3 threads");
        let calls = AtomicU64::new(0);
        let ran = profile(Duration::from_millis(20), |b| {
            b.set_threads(2);
            b.iter_shared(|| calls.fetch_add(1, Ordering::Relaxed))
        })
        .unwrap();
        assert_eq!(calls.into_inner(), 2 * ran.iterations);
    }

    #[test]
    fn a_declared_throughput_is_of_one_call_so_an_iteration_does_it_on_each_thread() {
        let mut group = page_faults(true);
        let m = measure(&quick(), &mut group, |b| {
            b.set_threads(3);
            b.throughput(Throughput::Bytes(64)).iter_shared(|| 0u8)
        })
        .unwrap();
        assert_eq!(m.throughput, Some(Throughput::Bytes(192)));
    }

    #[test]
    fn routines_for_one_thread_are_refused_naming_the_way_out() {
        type Bench = Box<dyn Fn(&mut Bencher<'_>)>;
        let forms: [(&str, Bench); 4] = [
            ("iter", Box::new(|b| b.iter(|| 1))),
            (
                "iter_custom",
                Box::new(|b| b.iter_custom(|_| Duration::ZERO)),
            ),
            (
                "iter_batched",
                Box::new(|b| b.iter_batched(|| 1, |x| x, BatchSize::SmallInput)),
            ),
            (
                "iter_batched_ref",
                Box::new(|b| b.iter_batched_ref(|| 1, |x| *x, BatchSize::SmallInput)),
            ),
        ];
        for (name, bench) in forms {
            let e = run_once(|b| {
                b.set_threads(2);
                bench(b)
            })
            .unwrap_err();
            assert!(
                matches!(e, MeasureError::OneThreadRoutine { method, threads: 2 } if method == name),
                "{name}: {e:?}"
            );
            let said = e.to_string();
            assert!(!said.contains('\n'), "{said}");
            assert!(said.contains(&format!("`Bencher::{name}`")), "{said}");
            assert!(said.contains("`Bencher::iter_shared`"), "{said}");
            // One thread is what they run on.
            run_once(|b| {
                b.set_threads(1);
                bench(b)
            })
            .unwrap();
        }
    }

    #[test]
    fn per_iteration_mode_refuses_more_than_one_thread() {
        let mut group = page_faults(false);
        let mut refused = |bench: &dyn Fn(&mut Bencher<'_>)| {
            measure_per_iter(&quick(), &mut group, |b| {
                b.set_threads(2);
                bench(b)
            })
            .unwrap_err()
        };
        for e in [
            refused(&|b| b.iter_shared(|| 1)),
            refused(&|b| b.iter(|| 1)),
        ] {
            assert!(matches!(e, MeasureError::PerIterThreads(2)), "{e:?}");
            let said = e.to_string();
            assert!(!said.contains('\n'), "{said}");
            assert!(
                said.starts_with(
                    "per-iteration mode counts the measuring thread only, not 2 threads"
                ),
                "{said}"
            );
        }
    }

    #[test]
    fn a_panic_on_any_thread_ends_the_measurement_with_its_own_message() {
        let on_worker = |name: Option<&str>| name == Some("perfbench-2");
        let on_measuring = |name: Option<&str>| !name.is_some_and(|n| n.starts_with("perfbench-"));
        for culprit in [on_worker, on_measuring] {
            let outcome = panic::catch_unwind(panic::AssertUnwindSafe(|| {
                let mut group = page_faults(true);
                measure(&quick(), &mut group, |b| {
                    b.set_threads(3);
                    b.iter_shared(|| {
                        if culprit(thread::current().name()) {
                            panic!("deliberate");
                        }
                    })
                })
            }));
            let payload = outcome.expect_err("the panic reaches the caller");
            assert_eq!(payload.downcast_ref::<&str>(), Some(&"deliberate"));
        }
    }
}
