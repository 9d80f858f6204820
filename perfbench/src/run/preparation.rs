//! The preparation of a run, made once before the first benchmark: which events
//! in which counter groups, the pinned CPU, where results are stored and
//! what they are compared with, the environment, and the measurement's own
//! cost.

use std::collections::HashMap;

use crate::analysis::comparison::Target;
use crate::counter::event::Event;
use crate::kernel::{pmu, sys};
use crate::measure::environment::Environment;
use crate::measure::{self, PinError, ThreadPin};
use crate::run::calibration::calibrate_setup;
use crate::run::cli::{Pairing, Pinning, RunOptions};
use crate::run::setup::{note_missing_hardware, open_setup, Setup, SetupId, Want};
use crate::run::setup_error::SetupError;
use crate::run::stderr;
use crate::store::{BaselineSave, Store, StoreLock};

/// Everything a run decides before measuring.
pub struct Preparation {
    /// The setups benchmarks are measured with: first the run's own
    /// ([`SetupId::RUN`]), then one for each other `events` or `mode` a
    /// benchmark asks for.
    pub setups: Vec<Setup>,
    /// Where each asked-for setup is among [`Preparation::setups`].
    pub ids: HashMap<Want, SetupId>,
    /// The pin of the measuring thread, released when the preparation is dropped.
    pub pin: Option<ThreadPin>,
    /// Where results are stored.
    pub store: Store,
    /// The store's lock, held for the run (`None` in tests).
    pub lock: Option<StoreLock>,
    /// The baseline `--save-baseline` is saving, made whole when the run
    /// ends.
    pub saving: Option<BaselineSave>,
    /// What each benchmark is compared with.
    pub target: Target,
    /// Where the run happens.
    pub environment: Environment,
}

impl Preparation {
    /// Which setup a benchmark asking for `want` is measured with: the one
    /// opened for it, else the run's.
    pub fn setup_id(&self, want: &Want) -> SetupId {
        self.ids.get(want).copied().unwrap_or(SetupId::RUN)
    }

    /// The setup `id`.
    pub fn setup(&self, id: SetupId) -> &Setup {
        &self.setups[id.0]
    }

    /// The setup `id`, to calibrate or measure with.
    pub fn setup_mut(&mut self, id: SetupId) -> &mut Setup {
        &mut self.setups[id.0]
    }

    /// The run's own setup, which the header describes.
    pub fn run_setup(&self) -> &Setup {
        self.setup(SetupId::RUN)
    }

    /// The pinned CPU, if any.
    pub fn cpu(&self) -> Option<usize> {
        self.pin.as_ref().map(ThreadPin::cpu)
    }
}

/// Which build a preparation is for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    /// The build that measures, analyses and stores.
    Driving,
    /// A build serving a paired run, which measures only.
    Serving,
}

/// Makes the preparation: pins the thread, opens the counter groups of the run's setup and
/// of each other setup the benchmarks `want` (with the id of the first to
/// ask for it), takes the lock of `store` (the run's output directory)
/// and calibrates each setup. Errors are for the user (bad events, CPUs,
/// output folder or baselines), and name the benchmark whose attribute is
/// at fault.
pub fn prepare(
    options: &RunOptions,
    wants: &[(Want, &str)],
    store: Store,
) -> Result<Preparation, SetupError> {
    prepare_as(options, wants, store, Role::Driving)
}

/// The preparation of a build serving a paired run ([`crate::run::paired`]): as
/// [`prepare`], but it neither takes the store (the driving build holds
/// it, and stores what both measured), nor calibrates (the driving build
/// analyses), nor says again the notes and warnings the driving build
/// says.
pub fn prepare_serving_build(
    options: &RunOptions,
    wants: &[(Want, &str)],
    store: Store,
) -> Result<Preparation, SetupError> {
    prepare_as(options, wants, store, Role::Serving)
}

/// [`prepare`], or for a paired run's serving build
/// [`prepare_serving_build`].
fn prepare_as(
    options: &RunOptions,
    wants: &[(Want, &str)],
    store: Store,
    role: Role,
) -> Result<Preparation, SetupError> {
    let pin = pin(options)?;
    let cpu = pin.as_ref().map(ThreadPin::cpu);
    let own = Want {
        events: options.events.as_ref().map(|e| e.spec.clone()),
        per_iter: options.per_iter,
    };
    // The run's own events were parsed with the options.
    let parsed = options.events.as_ref().map(|e| e.events.as_slice());
    if own.events.is_none() && role == Role::Driving {
        note_missing_hardware();
    }
    let Opened {
        mut setups,
        ids,
        askers,
    } = open_setups(own, parsed, wants, cpu)?;
    // Events are checked before waiting for another run; measuring, the
    // calibration first, waits until this run holds the store. A build
    // serving a paired run analyses nothing.
    let (mut lock, mut saving, mut target) = (None, None, Target::PreviousRun);
    if role == Role::Driving {
        let (held, save) = self::lock(options, &store)?;
        (lock, saving) = (Some(held), save);
        for (setup, asker) in setups.iter_mut().zip(&askers) {
            calibrate_setup(options, setup).map_err(|e| match asker {
                Some((id, want)) => asked_by(id, want, e.into()),
                None => e.into(),
            })?;
        }
        target = self::target(options, &store)?;
    }
    let environment = Environment::current(cpu);
    if role == Role::Driving {
        for warning in environment.warnings() {
            stderr::warning(&warning);
        }
    }
    Ok(Preparation {
        setups,
        ids,
        pin,
        store,
        lock,
        saving,
        target,
        environment,
    })
}

/// The setups a run opened, before they are calibrated.
struct Opened<'a> {
    /// The run's own first, then the others.
    setups: Vec<Setup>,
    /// Where each asked-for setup is among them.
    ids: HashMap<Want, SetupId>,
    /// Per setup, the benchmark that first asked for it and what it asked
    /// for (`None`: the run's own), which its errors name.
    askers: Vec<Option<(&'a str, Want)>>,
}

/// Opens the run's own setup `own` and one for each other setup `wants`
/// holds (the first benchmark to ask for it named in its errors): the
/// setups, where each want is among them, and who asked for each.
fn open_setups<'a>(
    own: Want,
    parsed: Option<&[Event]>,
    wants: &[(Want, &'a str)],
    cpu: Option<usize>,
) -> Result<Opened<'a>, SetupError> {
    let mut setups = vec![open_setup(&own, parsed, cpu)?];
    let mut askers = vec![None];
    let mut ids = HashMap::from([(own, SetupId::RUN)]);
    for (want, id) in wants {
        if ids.contains_key(want) {
            continue;
        }
        let opened = open_setup(want, None, cpu).map_err(|e| asked_by(id, want, e))?;
        ids.insert(want.clone(), SetupId(setups.len()));
        setups.push(opened);
        askers.push(Some((*id, want.clone())));
    }
    Ok(Opened {
        setups,
        ids,
        askers,
    })
}

/// Takes the store's lock, saying whom it waits for, and starts the
/// baseline `--save-baseline` saves.
fn lock(
    options: &RunOptions,
    store: &Store,
) -> Result<(StoreLock, Option<BaselineSave>), SetupError> {
    let root = store.root().display();
    let lock = store
        // The holder is what the lock file says: stored text, escaped.
        .lock(|holder| stderr::say(&format!("waiting for {root}, in use by {holder}")))?;
    let saving = match &options.save_baseline {
        Some(name) => Some(lock.begin_baseline(name)?),
        None => None,
    };
    Ok((lock, saving))
}

/// An error opening the setup `want`, which benchmark `id` asked for.
fn asked_by(id: &str, want: &Want, error: SetupError) -> SetupError {
    let mut asked = Vec::new();
    if let Some(events) = &want.events {
        asked.push(format!("events = \"{events}\""));
    }
    if want.per_iter {
        asked.push("mode = \"per-iter\"".to_string());
    }
    SetupError::AskedBy {
        id: id.to_string(),
        asked: asked.join(", "),
        error: Box::new(error),
    }
}

/// Pins the measuring thread as asked: `--cpu N`, `--cpu-type`, or `--pin`
/// (the CPU it runs on, whatever its kind). Unasked, only where the CPU has
/// more than one kind of core (hybrid), whose events count on one kind
/// only: then on the performance cores, so that every run measures the
/// same kind ([`measure::choose_core`]). The threads a routine spawns
/// inherit the pin, so unpinned they run wherever the scheduler puts them.
fn pin(options: &RunOptions) -> Result<Option<ThreadPin>, SetupError> {
    let cpu = match &options.pinning {
        Pinning::Off => return Ok(None),
        Pinning::Conflicting => return Err(SetupError::ConflictingPins),
        Pinning::Cpu(cpu) => Some(*cpu),
        // `--pin` alone: where it starts, whatever its kind.
        Pinning::StartingCpu => None,
        Pinning::CoreType(kind) => core_of_type(Some(kind))?,
        Pinning::Auto => match core_of_type(None)? {
            Some(cpu) => Some(cpu),
            None => return Ok(None),
        },
    };
    ThreadPin::new(cpu).map(Some).map_err(SetupError::Pin)
}

/// On a hybrid CPU, the CPU of the core type `kind` (`--cpu-type`), else
/// of the performance cores, that this process may run on; `None` on a CPU
/// with one kind of core, unless a kind was asked for (an error then).
fn core_of_type(kind: Option<&str>) -> Result<Option<usize>, SetupError> {
    let types = pmu::core_types(pmu::live_root(), pmu::live_cpu_root());
    if types.is_empty() && kind.is_none() {
        return Ok(None);
    }
    let allowed = sys::thread_affinity().map_err(|e| SetupError::Pin(PinError::Affinity(e)))?;
    let allowed = allowed.cpus();
    let current = sys::current_cpu().ok();
    let choice = measure::choose_core(&types, kind, &allowed, current);
    let Some(choice) = choice.map_err(SetupError::Pin)? else {
        return Ok(None);
    };
    if let Some(note) = &choice.note {
        stderr::note(note);
    }
    Ok(Some(choice.cpu))
}

/// What to compare with: the paired build, `--baseline NAME`, which must
/// exist, or the previous run. (`--baseline` with a paired build was
/// refused before the preparation, by `paired::paired_build`.)
fn target(options: &RunOptions, store: &Store) -> Result<Target, SetupError> {
    if let Some(pairing) = &options.paired_with {
        return Ok(Target::Paired(match pairing {
            Pairing::Binary(path) => path.display().to_string(),
            Pairing::Revision(rev) => rev.clone(),
        }));
    }
    let Some(name) = &options.baseline else {
        return Ok(Target::PreviousRun);
    };
    let saved = store.baseline_names()?;
    if !saved.contains(name) {
        return Err(SetupError::BaselineNotFound {
            name: name.clone(),
            root: store.root().display().to_string(),
            saved,
        });
    }
    Ok(Target::Baseline(name.clone()))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::analysis::Calibration;
    use crate::counter::event;
    use crate::counter::group;
    use crate::measure::Method;
    use crate::run::calibration::calibrate_method;
    use crate::run::cli::tests::parse_args;

    /// A preparation counting page faults in batch mode, storing under `root`,
    /// without calibration: what the step and run tests measure with.
    pub(crate) fn page_faults(root: &std::path::Path) -> Preparation {
        let events = event::parse_list("page-faults").unwrap();
        Preparation {
            setups: vec![Setup {
                counter_groups: group::open_groups(&events).unwrap(),
                events,
                per_iter: false,
                calibration: Calibration::default(),
                methods: Vec::new(),
            }],
            ids: HashMap::new(),
            pin: None,
            store: Store::at(root),
            lock: None,
            saving: None,
            target: Target::PreviousRun,
            environment: Environment::default(),
        }
    }

    #[test]
    fn each_method_is_calibrated_once_through_its_own_code() {
        let options = parse_args(&["--bench", "--quick", "--subtract-overhead"]);
        let mut setup = page_faults(std::path::Path::new("/nonexistent"))
            .setups
            .remove(0);
        let batched = Method::IterBatched(measure::BatchSize::PerIteration);
        for method in [Method::Iter, batched, Method::IterCustom, batched] {
            calibrate_method(&options, &mut setup, method).unwrap();
        }
        let methods: Vec<Method> = setup.methods.iter().map(|c| c.method).collect();
        assert_eq!(
            methods,
            [batched, Method::IterCustom],
            "iter's is the setup's own"
        );
        let c = setup.calibration_for(batched);
        assert_eq!((c.method, c.subtract), (batched, true));
        // An empty routine faults nothing, whatever the method.
        let faults = c.empty.iter().find(|(n, _)| n == "page-faults").unwrap();
        assert_eq!(faults.1.slope.point, 0.0);
        assert_eq!(setup.calibration_for(Method::Iter).method, Method::Iter);
        let shared = Method::IterShared(2);
        assert_eq!(
            setup.calibration_for(shared).method,
            Method::Iter,
            "none yet"
        );
    }

    #[test]
    fn a_missing_baseline_names_the_saved_ones_escaped_and_cut() {
        let root = std::env::temp_dir().join(format!("perfbench-names-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        // Earlier layout: `<bench>/baselines/<name>.json`, named by a
        // restored store as it likes.
        let dir = root.join("b").join("baselines");
        std::fs::create_dir_all(&dir).unwrap();
        let long = "n".repeat(250);
        for name in ["main", "x\x1b]52;c;ZXZpbA==\x07\ny\u{202e}", long.as_str()] {
            std::fs::write(dir.join(format!("{name}.json")), "{}").unwrap();
        }
        let err = target(&parse_args(&["--baseline", "dev"]), &Store::at(&root)).unwrap_err();
        let err = err.to_string();
        std::fs::remove_dir_all(&root).unwrap();
        assert!(!err.chars().any(char::is_control), "{err}");
        assert!(!err.contains('\u{202e}'), "{err}");
        let cut = format!("`{}… (50 more characters)`", "n".repeat(200));
        let names = format!(
            "(saved baselines: `main`, {cut}, `x\\u{{1b}}]52;c;ZXZpbA==\\u{{7}}\\ny\\u{{202e}}`)"
        );
        assert!(err.starts_with("baseline `dev` not found under "), "{err}");
        assert!(err.ends_with(&names), "{err}");
    }
}
