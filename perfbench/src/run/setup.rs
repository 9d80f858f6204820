//! A setup benchmarks are measured with: which events, opened in which
//! counter groups, in which mode, and the measurement's own cost that way;
//! the key a benchmark asks for one by ([`Want`]), and the events this
//! machine can count of those asked.

use std::sync::OnceLock;

use crate::analysis::Calibration;
use crate::counter::event::{self, Event, Source};
use crate::counter::group::{self, Groups, ReadPath};
use crate::kernel::{alloc, pmu, sys};
use crate::measure::{self, Method};
use crate::run::setup_error::SetupError;
use crate::run::stderr;

/// What a benchmark asks to be measured with, its settings merged under
/// the run's ([`crate::run::cli::RunOptions::wanted_setup`]): the key the preparation opens one
/// [`Setup`] for, however many benchmarks ask for it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Want {
    /// Its events as `--events` writes them (`None`: the default set).
    pub events: Option<String>,
    /// Per-iteration mode rather than batch mode.
    pub per_iter: bool,
}

/// Which of the preparation's setups a benchmark is measured with
/// ([`crate::run::preparation::Preparation::setup_id`]), found once when its job is made.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SetupId(pub(super) usize);

impl SetupId {
    /// The run's own setup, for every benchmark that asks for no other.
    pub const RUN: SetupId = SetupId(0);
}

/// How benchmarks are measured: their events, opened in counter groups, in one
/// mode, and the measurement's own cost that way.
pub struct Setup {
    /// The events that open here, in the order asked (hybrid CPUs: mapped
    /// to the pinned core's PMU).
    pub events: Vec<Event>,
    /// The events split into counter groups, each counted at once, in a pass
    /// of its own.
    pub counter_groups: Groups,
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
        match self.counter_groups.len() {
            1 => Vec::new(),
            _ => group::names(&self.counter_groups, &self.events),
        }
    }
}

/// Opens the setup `want`, not yet calibrated ([`crate::run::calibration::calibrate_setup`]): its
/// events (`parsed` where the options parsed them already), minus those
/// this machine cannot count, in as few counter groups as the PMU holds.
pub fn open_setup(
    want: &Want,
    parsed: Option<&[Event]>,
    cpu: Option<usize>,
) -> Result<Setup, SetupError> {
    let (spec, per_iter) = (&want.events, &want.per_iter);
    let mut events = countable_events(spec.as_deref(), parsed, cpu.is_some())?;
    if *per_iter {
        let (measurable, left_out) = measure::measurable_per_iteration(events);
        events = measurable;
        left_out.into_iter().for_each(|n| once(&n, stderr::note));
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
    let groups = open_groups(&events)?;
    let (events, groups) = if *per_iter {
        without_kernel_reads(events, groups)?
    } else {
        (events, groups)
    };
    if *per_iter && groups.len() > 1 {
        return Err(SetupError::PerIterCounterGroups {
            count: groups.len(),
            together: group::together(&group::names(&groups, &events)),
        });
    }
    Ok(Setup {
        events,
        counter_groups: groups,
        per_iter: *per_iter,
        calibration: Calibration::default(),
        methods: Vec::new(),
    })
}

/// `events` opened in as few groups as the PMU holds.
fn open_groups(events: &[Event]) -> Result<Groups, SetupError> {
    group::open_groups(events).map_err(|e| SetupError::CounterGroups(e.to_string()))
}

/// A per-iteration setup whose counters are read with `read()` without
/// the events that count that call's kernel half
/// ([`measure::measurable_by_read`]), opened again, with one note naming
/// them; as it is otherwise.
fn without_kernel_reads(
    events: Vec<Event>,
    mut groups: Groups,
) -> Result<(Vec<Event>, Groups), SetupError> {
    let by_read = (groups.first_mut()).is_some_and(|(g, _)| g.reader().path() == ReadPath::Syscall);
    if !by_read {
        return Ok((events, groups));
    }
    let (kept, note) = measure::measurable_by_read(events.clone());
    let Some(note) = note else {
        return Ok((events, groups));
    };
    once(&note, stderr::note);
    drop(groups);
    let groups = open_groups(&kept)?;
    Ok((kept, groups))
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
) -> Result<Vec<Event>, SetupError> {
    let asked = match (parsed, spec) {
        (Some(parsed), _) => parsed.to_vec(),
        (None, Some(spec)) => event::parse_list(spec).map_err(SetupError::Spec)?,
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
            Err(err) if spec.is_some() => once(&err.to_string(), stderr::warning),
            Err(err) => refused.push(err),
        }
    }
    for note in refused_notes(&refused) {
        once(&note, stderr::note);
    }
    if !narrowed.is_empty() {
        once(&user_only_note(&narrowed), stderr::note);
    }
    if countable.is_empty() {
        once(
            "no event left to count: measuring wall time alone",
            stderr::note,
        );
    }
    Ok(countable)
}

/// Says `line` (a note or a warning, through `say`) once per process: a
/// run opens a setup for each mode and events its benchmarks ask for, and
/// the same events refused, narrowed or left out in two of them are one
/// fact of this machine.
fn once(line: &str, say: fn(&str)) {
    static SAID: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let mut said = SAID.lock().unwrap_or_else(|e| e.into_inner());
    if !said.iter().any(|s| s == line) {
        said.push(line.to_string());
        say(line);
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
    HARDWARE.get_or_init(|| group::probe(&event::parse(event::CYCLES).expect("cycles parses")))
}

/// Whether hardware counters open here.
fn hardware_counters() -> bool {
    hardware_probe().is_ok()
}

/// The note for a run of the default set where this machine has no
/// hardware counters. Where perf events are refused altogether (a filter,
/// the kernel's setting), the note on the default set's events says why.
pub fn note_missing_hardware() {
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
        events.retain(|e| e.name != event::CPU_MIGRATIONS);
    }
    if alloc::installed() {
        events.extend(event::allocation_list());
    }
    events
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
