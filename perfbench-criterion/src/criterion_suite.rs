//! A Criterion suite as perfbench runs it: its group functions, run once
//! to list the benchmarks and once per round to measure them, each
//! `bench_function` handing its routine to the run while it is called.

use std::cell::OnceCell;

use perfbench::run::bench::Routine;
use perfbench::run::cli::Dialect;
use perfbench::run::panics::catch;
use perfbench::run::registry::{Broken, Entry, Registry};
use perfbench::run::suite::Suite;
use scoped_tls_hkt::scoped_thread_local;

scoped_thread_local!(
    /// What the run does with each benchmark a group function reaches,
    /// while the suite visits them ([`Suite::visit`]).
    static mut VISIT: for<'a> &'a mut (dyn FnMut(&Entry, Routine<'_>) + 'a)
);

/// The group functions `criterion_main!` names, with their names.
pub struct CriterionSuite {
    groups: Vec<(&'static str, fn())>,
    /// What they declare, and the flags their configs give, from the one
    /// run of them that lists both.
    declared: OnceCell<(Registry, Vec<String>)>,
}

impl CriterionSuite {
    /// The suite of `groups`, run in this order.
    pub fn new(groups: &[(&'static str, fn())]) -> CriterionSuite {
        CriterionSuite {
            groups: groups.to_vec(),
            declared: OnceCell::new(),
        }
    }

    /// What the group functions declare and the flags their configs give,
    /// from one run of them that measures nothing.
    fn listed(&self) -> &(Registry, Vec<String>) {
        self.declared.get_or_init(|| {
            let mut registry = None;
            let flags = crate::config_flags::collect(|| {
                let mut entries = Vec::new();
                let broken = self.run_groups(&mut |entry, _| entries.push(entry.clone()));
                registry = Some(Registry { entries, broken });
            });
            (registry.expect("listed above"), flags)
        })
    }

    /// Runs every group function, each reaching its benchmarks through
    /// `each`; returns the group functions that panicked outside their
    /// routines, with the panic.
    fn run_groups(&self, each: &mut dyn FnMut(&Entry, Routine<'_>)) -> Vec<Broken> {
        let mut broken = Vec::new();
        VISIT.set(each, || {
            for (name, group) in &self.groups {
                if let Err(panic) = catch(group) {
                    broken.push(Broken {
                        path: name.to_string(),
                        panic,
                        doing: "running the group function, outside its routines",
                    });
                }
            }
        });
        broken
    }
}

impl Suite for CriterionSuite {
    fn declared(&self) -> Registry {
        self.listed().0.clone()
    }

    /// The run-wide settings its configs give, as flags.
    fn arguments(&self) -> Vec<String> {
        self.listed().1.clone()
    }

    fn dialect(&self) -> Dialect {
        Dialect::Criterion
    }

    fn visit(&self, each: &mut dyn FnMut(&Entry, Routine<'_>)) {
        for b in self.run_groups(each) {
            crate::said_once::error_once(&format!("group function `{}` {}", b.path, b.panic));
        }
    }
}

/// Hands benchmark `entry`, whose routine is `routine`, to the run that
/// visits the suite; outside a visit (a group function called from a
/// `main` of the suite's own), says so and fails.
pub(crate) fn reach(entry: &Entry, routine: Routine<'_>) {
    assert!(
        VISIT.is_set(),
        "perfbench-criterion runs benchmarks only through `criterion_main!` (a group \
         function was called from elsewhere, or a benchmark from inside another's routine)"
    );
    VISIT.with(|each| each(entry, routine));
}
