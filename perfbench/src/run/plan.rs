//! The plan of a run, made once before the first benchmark: which events
//! in which counter groups, the pinned CPU, where results are stored and
//! what they are compared with, the environment, and the measurement's own
//! cost.

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::analysis::comparison::Target;
use crate::analysis::Calibration;
use crate::counter::event::{self, Event, Source};
use crate::counter::group::{self, Groups};
use crate::kernel::{alloc, pmu, sys};
use crate::measure::environment::Environment;
use crate::measure::{self, Method, ThreadPin};
use crate::output::format::quoted;
use crate::run::calibration::calibrate_setup;
use crate::run::cli::{Pairing, Pinning, RunOptions};
use crate::run::stderr;
use crate::store::{BaselineSave, Store, StoreLock};

/// What a benchmark asks to be measured with, its settings merged under
/// the run's ([`RunOptions::wanted_setup`]): the key the plan opens one
/// [`Setup`] for, however many benchmarks ask for it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Want {
    /// Its events as `--events` writes them (`None`: the default set).
    pub events: Option<String>,
    /// Per-iteration mode rather than batch mode.
    pub per_iter: bool,
}

/// Which of the plan's setups a benchmark is measured with
/// ([`Plan::setup_id`]), found once when its job is made.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SetupId(usize);

impl SetupId {
    /// The run's own setup, for every benchmark that asks for no other.
    pub const RUN: SetupId = SetupId(0);
}

/// How benchmarks are measured: their events, opened in groups, in one
/// mode, and the measurement's own cost that way.
pub struct Setup {
    /// The events that open here, in the order asked (hybrid CPUs: mapped
    /// to the pinned core's PMU).
    pub events: Vec<Event>,
    /// The events split into groups that the PMU counts at once.
    pub groups: Groups,
    /// Per-iteration mode rather than batch mode.
    pub per_iter: bool,
    /// The measurement's own cost per iteration and metric, through
    /// `iter`.
    pub calibration: Calibration,
    /// The same through the other `Bencher` methods the benchmarks used,
    /// each calibrated once the first benchmark it measured has run
    /// ([`crate::run::calibration::calibrate_method`]).
    pub methods: Vec<Calibration>,
}

impl Setup {
    /// The calibration of `method`: its own, or `iter`'s where it has
    /// none yet.
    pub fn calibration_for(&self, method: Method) -> &Calibration {
        self.methods
            .iter()
            .find(|c| c.method == method)
            .unwrap_or(&self.calibration)
    }

    /// The events measured together in each pass, where there is more than
    /// one pass; empty otherwise.
    pub fn pass_names(&self) -> Vec<Vec<String>> {
        match self.groups.len() {
            1 => Vec::new(),
            _ => group::names(&self.groups, &self.events),
        }
    }
}

/// Everything a run decides before measuring.
pub struct Plan {
    /// The setups benchmarks are measured with: first the run's own
    /// ([`SetupId::RUN`]), then one for each other `events` or `mode` a
    /// benchmark asks for.
    pub setups: Vec<Setup>,
    /// Where each asked-for setup is among [`Plan::setups`].
    pub ids: HashMap<Want, SetupId>,
    /// The pin of the measuring thread, released when the plan is dropped.
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

impl Plan {
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

/// Which build a plan is for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    /// The build that measures, analyses and stores.
    Driving,
    /// A build serving a paired run, which measures only.
    Serving,
}

/// Makes the plan: pins the thread, opens the groups of the run's setup and
/// of each other setup the benchmarks `want` (with the id of the first to
/// ask for it), takes the lock of `store` (the run's output directory)
/// and calibrates each setup. Errors are for the user (bad events, CPUs,
/// output folder or baselines), and name the benchmark whose attribute is
/// at fault.
pub fn prepare(options: &RunOptions, wants: &[(Want, &str)], store: Store) -> Result<Plan, String> {
    prepare_as(options, wants, store, Role::Driving)
}

/// The plan of a build serving a paired run ([`crate::run::paired`]): as
/// [`prepare`], but it neither takes the store (the driving build holds
/// it, and stores what both measured), nor calibrates (the driving build
/// analyses), nor says again the notes and warnings the driving build
/// says.
pub fn prepare_baseline_build(
    options: &RunOptions,
    wants: &[(Want, &str)],
    store: Store,
) -> Result<Plan, String> {
    prepare_as(options, wants, store, Role::Serving)
}

/// [`prepare`], or for a paired run's serving build
/// [`prepare_baseline_build`].
fn prepare_as(
    options: &RunOptions,
    wants: &[(Want, &str)],
    store: Store,
    role: Role,
) -> Result<Plan, String> {
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
                Some((id, want)) => asked_by(id, want, &e),
                None => e,
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
    Ok(Plan {
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
) -> Result<Opened<'a>, String> {
    let mut setups = vec![open_setup(&own, parsed, cpu)?];
    let mut askers = vec![None];
    let mut ids = HashMap::from([(own, SetupId::RUN)]);
    for (want, id) in wants {
        if ids.contains_key(want) {
            continue;
        }
        let opened = open_setup(want, None, cpu).map_err(|e| asked_by(id, want, &e))?;
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
fn lock(options: &RunOptions, store: &Store) -> Result<(StoreLock, Option<BaselineSave>), String> {
    let root = store.root().display();
    let lock = store
        // The holder is what the lock file says: stored text, escaped.
        .lock(|holder| stderr::say(&format!("waiting for {root}, in use by {holder}")))
        .map_err(|e| e.to_string())?;
    let saving = match &options.save_baseline {
        Some(name) => Some(lock.begin_baseline(name).map_err(|e| e.to_string())?),
        None => None,
    };
    Ok((lock, saving))
}

/// An error opening the setup `want`, which benchmark `id` asked for.
fn asked_by(id: &str, want: &Want, error: &str) -> String {
    let mut asked = Vec::new();
    if let Some(events) = &want.events {
        asked.push(format!("events = \"{events}\""));
    }
    if want.per_iter {
        asked.push("mode = \"per-iter\"".to_string());
    }
    format!("benchmark `{id}` ({}): {error}", asked.join(", "))
}

/// Opens the setup `want`, not yet calibrated ([`calibrate_setup`]): its
/// events (`parsed` where the options parsed them already), minus those
/// this machine cannot count, in as few groups as the PMU holds.
fn open_setup(want: &Want, parsed: Option<&[Event]>, cpu: Option<usize>) -> Result<Setup, String> {
    let (spec, per_iter) = (&want.events, &want.per_iter);
    let mut events = countable_events(spec.as_deref(), parsed, cpu.is_some())?;
    if *per_iter {
        let (measurable, left_out) = measure::measurable_per_iteration(events);
        events = measurable;
        left_out.into_iter().for_each(|n| say_once(&n));
    }
    // A group reads allocation counts after the kernel's counters, so they
    // go last (stable: the rest keep the order asked).
    events.sort_by_key(|e| e.source == Source::Allocator);
    // Batch mode counts the threads the routine spawns too; per-iteration
    // mode reads its counters from user space, which inherited counters
    // do not allow, so it counts the measuring thread only.
    for e in &mut events {
        e.attr.inherit = !per_iter;
    }
    let events = for_pinned_core(events, cpu);
    let groups = group::open_groups(&events).map_err(|e| {
        format!("{e} (together with the other events: a PMU holds only so many counters at once; ask for fewer)")
    })?;
    if *per_iter && groups.len() > 1 {
        return Err(format!(
            "per-iteration mode needs events that fit one counter group; these need {}: {}",
            groups.len(),
            group::together(&group::names(&groups, &events))
        ));
    }
    Ok(Setup {
        events,
        groups,
        per_iter: *per_iter,
        calibration: Calibration::default(),
        methods: Vec::new(),
    })
}

/// The events to measure: those asked for, or the default set, minus those
/// this machine cannot count. Software events count the kernel's work for
/// the task too; where privilege forbids that they count user space only,
/// named with `:u`, and one note names them. An event asked for by name
/// that cannot be counted is a warning; events of the default set that
/// cannot be are named in one note per cause. Where none is left, the run
/// measures wall time alone (and says so): a container or a locked-down
/// kernel still gets a measurement.
fn countable_events(
    spec: Option<&str>,
    parsed: Option<&[Event]>,
    pinned: bool,
) -> Result<Vec<Event>, String> {
    let asked = match (parsed, spec) {
        (Some(parsed), _) => parsed.to_vec(),
        (None, Some(spec)) => event::parse_list(spec).map_err(|e| e.to_string())?,
        (None, None) => default_events(pinned),
    };
    let mut countable = Vec::new();
    let mut narrowed = Vec::new();
    let mut refused = Vec::new();
    for e in asked {
        match group::countable(e) {
            Ok(group::Countable::AsAsked(e)) => countable.push(e),
            Ok(group::Countable::UserOnly(e)) => {
                narrowed.push(e.name.clone());
                countable.push(e);
            }
            Err(err) if spec.is_some() => stderr::warning(&err.to_string()),
            Err(err) => refused.push(err),
        }
    }
    for note in refused_notes(&refused) {
        stderr::note(&note);
    }
    if !narrowed.is_empty() {
        stderr::note(&user_only_note(&narrowed));
    }
    if countable.is_empty() {
        stderr::note("no event left to count: measuring wall time alone");
    }
    Ok(countable)
}

/// Says `note` unless this process said it already (each setup asks).
fn say_once(note: &str) {
    static SAID: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let mut said = SAID.lock().unwrap_or_else(|e| e.into_inner());
    if !said.iter().any(|s| s == note) {
        said.push(note.to_string());
        stderr::note(note);
    }
}

/// One note per cause for the events of the default set that cannot be
/// counted, naming them: a container's filter refuses four events for one
/// reason, and says so once.
fn refused_notes(refused: &[group::OpenError]) -> Vec<String> {
    let mut notes: Vec<(String, Vec<&str>)> = Vec::new();
    for err in refused {
        let reason = err.reason();
        match notes.iter_mut().find(|(r, _)| *r == reason) {
            Some((_, names)) => names.push(err.event()),
            None => notes.push((reason, vec![err.event()])),
        }
    }
    notes
        .into_iter()
        .map(|(reason, names)| format!("not counting {}: {reason}", names.join(", ")))
        .collect()
}

/// `kernel.perf_event_paranoid` as notes print it.
fn paranoid_setting() -> String {
    sys::perf_event_paranoid().map_or("unreadable".into(), |p| p.to_string())
}

/// The note for software events narrowed to user space.
fn user_only_note(names: &[String]) -> String {
    let paranoid = paranoid_setting();
    format!(
        "counting {} in user space only: kernel.perf_event_paranoid is {paranoid}, so what the \
         kernel does on your behalf (a fault taken while it copies into fresh pages, say) is \
         missed; \
         `sudo sysctl kernel.perf_event_paranoid=1` or CAP_PERFMON counts them",
        names.join(", ")
    )
}

/// Whether hardware counters open here, or why not.
///
/// Probed once: the note and every setup of the default set ask.
fn hardware_probe() -> &'static Result<(), group::OpenError> {
    static HARDWARE: OnceLock<Result<(), group::OpenError>> = OnceLock::new();
    HARDWARE.get_or_init(|| group::probe(&event::parse("cycles").expect("cycles parses")))
}

/// Whether hardware counters open here.
fn hardware_counters() -> bool {
    hardware_probe().is_ok()
}

/// The note for a run of the default set where this machine has no
/// hardware counters. Where perf events are refused altogether (a filter,
/// the kernel's setting), the note on the default set's events says why.
fn note_missing_hardware() {
    if let Err(group::OpenError::Unsupported { .. }) = hardware_probe() {
        let paranoid = paranoid_setting();
        stderr::note(&format!(
            "no hardware counters here (no CPU PMU, usual in VMs and CI; \
             kernel.perf_event_paranoid = {paranoid}): measuring software events and wall time; \
             on bare metal or with a virtual PMU you get cycles, instructions and cache misses"
        ));
    }
}

/// The default set: without `cpu-migrations` on a pinned thread, where it
/// is always 0, and with the allocation counts where the bench target
/// installs the counting allocator.
fn default_events(pinned: bool) -> Vec<Event> {
    let mut events = event::default_list(hardware_counters());
    if pinned {
        events.retain(|e| e.name != "cpu-migrations");
    }
    if alloc::installed() {
        events.extend(event::allocation_list());
    }
    events
}

/// Pins the measuring thread as asked: `--cpu N`, `--cpu-type`, or `--pin`
/// (the CPU it runs on, whatever its kind). Unasked, only where the CPU has
/// more than one kind of core (hybrid), whose events count on one kind
/// only: then on the performance cores, so that every run measures the
/// same kind ([`measure::choose_core`]). The threads a routine spawns
/// inherit the pin, so unpinned they run wherever the scheduler puts them.
fn pin(options: &RunOptions) -> Result<Option<ThreadPin>, String> {
    let cpu = match &options.pinning {
        Pinning::Off => return Ok(None),
        Pinning::Conflicting => return Err("--cpu and --cpu-type exclude each other".into()),
        Pinning::Cpu(cpu) => Some(*cpu),
        // `--pin` alone: where it starts, whatever its kind.
        Pinning::StartingCpu => None,
        Pinning::CoreType(kind) => core_of_type(Some(kind))?,
        Pinning::Auto => match core_of_type(None)? {
            Some(cpu) => Some(cpu),
            None => return Ok(None),
        },
    };
    ThreadPin::new(cpu).map(Some).map_err(|e| e.to_string())
}

/// On a hybrid CPU, the CPU of the core type `kind` (`--cpu-type`), else
/// of the performance cores, that this process may run on; `None` on a CPU
/// with one kind of core, unless a kind was asked for (an error then).
fn core_of_type(kind: Option<&str>) -> Result<Option<usize>, String> {
    let types = pmu::core_types(pmu::live_root(), pmu::live_cpu_root());
    if types.is_empty() && kind.is_none() {
        return Ok(None);
    }
    let allowed = sys::thread_affinity()
        .map_err(|e| format!("cannot read the CPU affinity: {e}"))?
        .cpus();
    let current = sys::current_cpu().ok();
    let chosen = measure::choose_core(&types, kind, &allowed, current);
    let Some(choice) = chosen.map_err(|e| e.to_string())? else {
        return Ok(None);
    };
    if let Some(note) = &choice.note {
        stderr::note(note);
    }
    Ok(Some(choice.cpu))
}

/// On hybrid CPUs, generalized events go to the PMU of the pinned core.
fn for_pinned_core(events: Vec<Event>, cpu: Option<usize>) -> Vec<Event> {
    let hybrid = cpu.and_then(|c| event::hybrid_type_for_cpu(pmu::live_root(), c as u32));
    match hybrid {
        Some(pmu_type) => events
            .iter()
            .map(|e| event::with_extended_type(e, pmu_type))
            .collect(),
        None => events,
    }
}

/// What to compare with: the paired build, `--baseline NAME`, which must
/// exist, or the previous run. (`--baseline` with a paired build was
/// refused before the plan, by `paired::baseline_binary`.)
fn target(options: &RunOptions, store: &Store) -> Result<Target, String> {
    if let Some(pairing) = &options.paired_with {
        return Ok(Target::Paired(match pairing {
            Pairing::Binary(path) => path.display().to_string(),
            Pairing::Revision(rev) => rev.clone(),
        }));
    }
    let Some(name) = &options.baseline else {
        return Ok(Target::PreviousRun);
    };
    let saved = store.baseline_names().map_err(|e| e.to_string())?;
    if !saved.contains(name) {
        return Err(not_found(name, store.root(), &saved));
    }
    Ok(Target::Baseline(name.clone()))
}

/// The error for `--baseline name` missing from the store at `root`, which
/// holds the baselines `saved`: folder names there, which a restored store
/// may have made anything, so each is quoted (escaped and cut).
fn not_found(name: &str, root: &std::path::Path, saved: &[String]) -> String {
    let saved: Vec<String> = saved.iter().map(|s| format!("`{}`", quoted(s))).collect();
    format!(
        "baseline `{}` not found under {} (saved baselines: {})",
        quoted(name),
        quoted(&root.display().to_string()),
        if saved.is_empty() {
            "none".to_string()
        } else {
            saved.join(", ")
        }
    )
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::run::calibration::calibrate_method;
    use crate::run::cli::tests::parse_args;

    /// A plan counting page faults in batch mode, storing under `root`,
    /// without calibration: what the step and run tests measure with.
    pub(crate) fn page_faults(root: &std::path::Path) -> Plan {
        let events = event::parse_list("page-faults").unwrap();
        Plan {
            setups: vec![Setup {
                groups: group::open_groups(&events).unwrap(),
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
