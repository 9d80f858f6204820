//! The program `perfbench::main!()` expands to: parse options, select
//! benchmarks, measure them and print the results.

pub mod cli;
pub mod registry;

use std::collections::BTreeSet;
use std::io::{IsTerminal, Write};
use std::ops::Range;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::analysis::compare::{self, Comparison};
use crate::analysis::{self, analyze, WALL_TIME};
use crate::counter::event::{self, Event};
use crate::counter::group::{self, CounterGroup};
use crate::measure::environment::Environment;
use crate::measure::{self, ThreadPin};
use crate::output::html;
use crate::output::report::{self, Table};
use crate::run::cli::{Color, Options, OutputFormat, RunMode};
use crate::run::registry::Entry;
use crate::stats::Bootstrap;
use crate::store::{self, Slot, Store, StoredRun};

/// Exit code when a benchmark failed (libtest's).
const EXIT_FAILED: i32 = 101;
/// Exit code for bad options or events, or unusable stored results.
const EXIT_USAGE: i32 = 2;
/// Exit code of `--fail-on-regression` when a metric regressed.
const EXIT_REGRESSED: i32 = 3;

/// Runs the benchmarks of this binary as the command line asks and exits.
pub fn main() -> ! {
    let code = match cli::parse(std::env::args_os().skip(1), |var| std::env::var(var).ok()) {
        Ok(options) => run(&options),
        Err(e) => {
            eprintln!("perfbench: error: {e}");
            EXIT_USAGE
        }
    };
    std::process::exit(code)
}

/// Runs with `options` and returns the exit code.
pub fn run(options: &Options) -> i32 {
    if options.help {
        print!("{}", cli::usage());
        return 0;
    }
    if options.list_events {
        print!(
            "{}",
            event::list_events(crate::kernel::pmu::live_root(), |e| group::probe(e)
                .map_err(|err| err.reason()))
        );
        return 0;
    }
    let all = registry::all();
    let total = all.len();
    let selected: Vec<Entry> = all
        .into_iter()
        .filter(|e| {
            !options.ignored
                && registry::matches(&e.id, &options.filters, &options.skip, options.exact)
        })
        .collect();
    if options.list {
        for e in &selected {
            println!("{}: benchmark", e.id);
        }
        if !options.terse {
            println!("\n{} benchmarks", selected.len());
        }
        return 0;
    }
    if selected.is_empty() && !options.filters.is_empty() {
        eprintln!(
            "perfbench: no benchmark matches {} ({total} registered; `--list` shows them)",
            options
                .filters
                .iter()
                .map(|f| format!("`{f}`"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let filtered_out = total - selected.len();
    match options.mode {
        RunMode::Test => run_tests(&selected, filtered_out),
        RunMode::Bench => match run_benches(options, &selected) {
            Ok(code) => code,
            Err(e) => {
                eprintln!("perfbench: error: {e}");
                EXIT_USAGE
            }
        },
    }
}

/// The message and location of the last panic, recorded by the hook that
/// [`catch`] installs instead of the default, which would print a backtrace
/// hint in the middle of the output.
static LAST_PANIC: Mutex<Option<String>> = Mutex::new(None);

/// Runs `f`, turning a panic into `Err(message)`.
fn catch<T>(f: impl FnOnce() -> T) -> Result<T, String> {
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

/// Test mode: each routine once, reported the way libtest does.
fn run_tests(entries: &[Entry], filtered_out: usize) -> i32 {
    println!("\nrunning {} tests", entries.len());
    let mut failures = Vec::new();
    for e in entries {
        let outcome = match catch(|| measure::run_once(e.bench.run)) {
            Ok(Ok(())) => Ok(()),
            Ok(Err(err)) => Err(err.to_string()),
            Err(panic) => Err(panic),
        };
        match outcome {
            Ok(()) => println!("test {} ... ok", e.id),
            Err(why) => {
                println!("test {} ... FAILED", e.id);
                failures.push((e.id.as_str(), why));
            }
        }
    }
    if !failures.is_empty() {
        println!("\nfailures:");
        for (id, why) in &failures {
            println!("    {id}: {why}");
        }
    }
    let verdict = if failures.is_empty() { "ok" } else { "FAILED" };
    println!(
        "\ntest result: {verdict}. {} passed; {} failed; 0 ignored; 0 measured; {filtered_out} filtered out\n",
        entries.len() - failures.len(),
        failures.len()
    );
    if failures.is_empty() {
        0
    } else {
        EXIT_FAILED
    }
}

/// The events to measure: those asked for, or the default set, minus those
/// this machine cannot count (each named in a warning).
fn countable_events(options: &Options) -> Result<Vec<Event>, String> {
    let asked = match &options.events {
        Some(spec) => event::parse_list(spec).map_err(|e| e.to_string())?,
        None => {
            let hardware = group::probe(&event::parse("cycles").expect("cycles parses")).is_ok();
            if !hardware {
                let paranoid = crate::kernel::sys::perf_event_paranoid()
                    .map_or("unreadable".into(), |p| p.to_string());
                eprintln!(
                    "perfbench: note: no hardware counters here (no CPU PMU, usual in VMs and CI; \
                     kernel.perf_event_paranoid = {paranoid}): measuring software events and wall time; \
                     on bare metal or with a virtual PMU you get cycles, instructions and cache misses"
                );
            }
            event::default_list(hardware)
        }
    };
    let mut countable = Vec::new();
    let mut last_error = None;
    for e in asked {
        match group::probe(&e) {
            Ok(()) => countable.push(e),
            Err(err) => {
                eprintln!("perfbench: warning: {err}");
                last_error = Some(err);
            }
        }
    }
    match (countable.is_empty(), last_error) {
        (true, Some(err)) => Err(format!("no event left to count (last: {err})")),
        _ => Ok(countable),
    }
}

fn run_benches(options: &Options, entries: &[Entry]) -> Result<i32, String> {
    if entries.is_empty() {
        return Ok(0);
    }
    let events = countable_events(options)?;
    let pin = if options.no_pin {
        None
    } else {
        let cpu = match (&options.cpu_type, options.cpu) {
            (Some(_), Some(_)) => return Err("--cpu and --cpu-type exclude each other".into()),
            (Some(kind), None) => {
                let allowed = crate::kernel::sys::thread_affinity()
                    .map_err(|e| format!("cannot read the CPU affinity: {e}"))?
                    .cpus();
                Some(crate::kernel::pmu::cpu_of_type(
                    crate::kernel::pmu::live_root(),
                    kind,
                    &allowed,
                )?)
            }
            (None, cpu) => cpu,
        };
        Some(ThreadPin::new(cpu)?)
    };
    let cpu = pin.as_ref().map(ThreadPin::cpu);
    // On hybrid CPUs, generalized events go to the PMU of the pinned core.
    let hybrid =
        cpu.and_then(|c| event::hybrid_type_for_cpu(crate::kernel::pmu::live_root(), c as u32));
    let events: Vec<Event> = match hybrid {
        Some(pmu_type) => events
            .iter()
            .map(|e| event::with_extended_type(e, pmu_type))
            .collect(),
        None => events,
    };
    let mut groups = group::open_groups(&events).map_err(|e| {
        format!("{e} (together with the other events: a PMU holds only so many counters at once; ask for fewer)")
    })?;

    let store = Store::at(store::default_root());
    let against = match &options.baseline {
        Some(name) => {
            let saved = store.baseline_names();
            if !saved.contains(name) {
                return Err(format!(
                    "baseline `{name}` not found under {} (saved baselines: {})",
                    store.root().display(),
                    if saved.is_empty() {
                        "none".to_string()
                    } else {
                        saved.join(", ")
                    }
                ));
            }
            Slot::Baseline(name.clone())
        }
        None => Slot::Latest,
    };
    let label = options.baseline.clone().unwrap_or_else(|| "latest".into());
    let environment = Environment::current(cpu);
    for warning in environment.warnings() {
        eprintln!("perfbench: warning: {warning}");
    }
    let bootstrap = Bootstrap::default();
    let mut warned = BTreeSet::new();
    let mut store_errors = 0;
    let mut regressions = Vec::new();
    let mut measured = Vec::new();
    let mut read_paths = BTreeSet::new();
    if options.per_iter && groups.len() > 1 {
        return Err(format!(
            "--mode per-iter needs events that fit one counter group; these need {}: {}",
            groups.len(),
            together(&groups, &events)
        ));
    }
    let overhead = calibrate(options, &mut groups, &events)?;

    let format = options.output_format;
    let color = match options.color {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
    };
    let width = std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(80);
    let mut metric_units = vec![crate::counter::event::Unit::Nanoseconds];
    metric_units.extend(events.iter().map(|e| e.unit));
    let mut metric_names = vec![WALL_TIME.to_string()];
    metric_names.extend(events.iter().map(|e| e.name.clone()));
    let has_ipc = analysis::has_ipc(&events);
    let ids: Vec<&str> = entries.iter().map(|e| e.id.as_str()).collect();
    let table = Table::new(&ids, &metric_names, has_ipc, width, color);
    let progress = std::io::stderr().is_terminal();

    if format == OutputFormat::Pretty {
        println!(
            "perfbench: {} benchmark{}, {} mode, {} samples, {}",
            entries.len(),
            if entries.len() == 1 { "" } else { "s" },
            if options.per_iter {
                "per-iteration"
            } else {
                "batch"
            },
            options.config.sample_count,
            cpu.map_or("not pinned".into(), |c| format!("pinned to CPU {c}"))
        );
        println!("{}", wrap("perfbench: ", &environment.summary(), width));
        if groups.len() > 1 {
            println!(
                "{}",
                wrap(
                    "perfbench: more events than the PMU holds at once, measured in one pass per group: ",
                    &together(&groups, &events),
                    width
                )
            );
        }
        let costs: Vec<String> = overhead
            .iter()
            .zip(&metric_units)
            .map(|((name, v), unit)| format!("{name} {}", report::format_value(*v, *unit)))
            .collect();
        println!(
            "{}",
            wrap(
                &format!(
                    "perfbench: measuring costs per iteration{}: ",
                    if options.subtract_overhead {
                        " (subtracted)"
                    } else {
                        ""
                    }
                ),
                &costs.join(", "),
                width
            )
        );
        let header = table.header();
        if !header.is_empty() {
            println!("{header}");
        }
    }
    let mut failed = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        if progress {
            eprint!("\r\x1b[K[{}/{}] {} ...", i + 1, entries.len(), e.id);
            let _ = std::io::stderr().flush();
        }
        let started = Instant::now();
        let outcome = catch(|| measure_one(options, &mut groups, e.bench.run));
        let took = started.elapsed();
        // A panic may have left the group running.
        for (group, _) in &groups {
            let _ = group.disable();
        }
        if progress {
            eprint!("\r\x1b[K");
        }
        let why = match outcome {
            Ok(Ok((m, read_path))) => {
                if let Some(warning) = slow_warning(&e.id, took, &options.config) {
                    eprintln!("{warning}");
                }
                let mut result = analyze(&e.id, &events, &m);
                if groups.len() > 1 {
                    result.groups = groups
                        .iter()
                        .map(|(_, r)| events[r.clone()].iter().map(|e| e.name.clone()).collect())
                        .collect();
                }
                if let Some((path, multiplexed)) = read_path {
                    result.read_path = Some(path);
                    result.multiplexed_samples = multiplexed;
                    read_paths.insert(path.name());
                }
                analysis::apply_overhead(&mut result, &overhead, options.subtract_overhead);
                let run = StoredRun::new(&events, &m, environment.clone(), &e.id);
                let mut slots = vec![Slot::Latest];
                let comparison = match store.load(&e.id, &against) {
                    Ok(base) => Some(Comparison {
                        against: label.clone(),
                        changes: base.map(|base| {
                            if let Some(why) = environment.mismatch(&base.environment) {
                                if warned.insert(why.clone()) {
                                    eprintln!(
                                        "perfbench: warning: comparing with results from {why}: \
                                         changes may come from that alone"
                                    );
                                }
                            }
                            compare::compare_runs(&base, &run, &options.thresholds, &bootstrap)
                        }),
                    }),
                    Err(err) => {
                        eprintln!("perfbench: error: {err}");
                        store_errors += 1;
                        // Leave the damaged file as it is.
                        slots.retain(|s| *s != against);
                        None
                    }
                };
                if let Some(name) = &options.save_baseline {
                    slots.push(Slot::Baseline(name.clone()));
                }
                for slot in &slots {
                    if let Err(err) = store.save(&run, slot, &result) {
                        eprintln!("perfbench: error: {err}");
                        store_errors += 1;
                    }
                }
                if let (Some(limit), Some(changes)) = (
                    options.fail_on_regression,
                    comparison.as_ref().and_then(|c| c.changes.as_ref()),
                ) {
                    for c in changes.iter().filter(|c| compare::fails(c, limit)) {
                        regressions.push(format!(
                            "  {} {}: {}",
                            e.id,
                            c.name,
                            report::change_text(&c.change)
                        ));
                    }
                }
                measured.push(e.id.clone());
                match format {
                    OutputFormat::Json => {
                        println!(
                            "{}",
                            report::json_line(&result, &environment, comparison.as_ref())
                        )
                    }
                    OutputFormat::Bencher => println!("{}", report::bencher_line(&result)),
                    OutputFormat::Pretty => {
                        println!("{}", table.row(&result));
                        if let Some(line) = comparison
                            .as_ref()
                            .and_then(|c| table.change_line(&result, c))
                        {
                            println!("{line}");
                        }
                    }
                }
                continue;
            }
            Ok(Err(err)) => format!(": {err}"),
            Err(panic) => format!(" {panic}"),
        };
        eprintln!("perfbench: error: benchmark `{}`{why}", e.id);
        failed.push(e.id.as_str());
    }
    drop(pin);
    if !read_paths.is_empty() {
        let paths: Vec<&str> = read_paths.into_iter().collect();
        eprintln!(
            "perfbench: per-iteration counts were read with {}{}",
            paths.join(" and "),
            if paths == ["read()"] {
                " (rdpmc needs a hardware PMU that allows user-space reads)"
            } else {
                ""
            }
        );
    }
    if !measured.is_empty() {
        let report = html::ReportOptions {
            plots: !options.noplot,
            against: against.clone(),
            thresholds: options.thresholds,
        };
        match html::write_report(&store, &measured, &report) {
            Ok(index) => eprintln!("perfbench: report: {}", index.display()),
            Err(err) => {
                eprintln!("perfbench: error: {err}");
                store_errors += 1;
            }
        }
    }
    if !regressions.is_empty() {
        eprintln!(
            "perfbench: {} regression{} against {label}:",
            regressions.len(),
            if regressions.len() == 1 { "" } else { "s" }
        );
        for r in &regressions {
            eprintln!("{r}");
        }
    }
    if !failed.is_empty() {
        eprintln!(
            "perfbench: {} of {} benchmarks failed: {}",
            failed.len(),
            entries.len(),
            failed.join(", ")
        );
        return Ok(EXIT_FAILED);
    }
    if store_errors > 0 {
        return Ok(EXIT_USAGE);
    }
    Ok(if regressions.is_empty() {
        0
    } else {
        EXIT_REGRESSED
    })
}

/// Counter groups with the positions of their events in the event list:
/// one pass over each benchmark per group.
type Groups = Vec<(CounterGroup, Range<usize>)>;

/// Measures one benchmark in the mode asked for, one pass per group;
/// per-iteration mode (one group only) also says how it read the counters
/// and in how many samples the group was multiplexed.
#[allow(clippy::type_complexity)]
fn measure_one(
    options: &Options,
    groups: &mut Groups,
    bench: fn(&mut crate::measure::Bencher<'_>),
) -> Result<
    (
        measure::Measurement,
        Option<(crate::counter::group::ReadPath, usize)>,
    ),
    measure::MeasureError,
> {
    if options.per_iter {
        let pm = measure::measure_per_iter(&options.config, &mut groups[0].0, bench)?;
        return Ok((
            pm.as_measurement(),
            Some((pm.read_path, pm.multiplexed as usize)),
        ));
    }
    let mut passes = groups.iter_mut();
    let (first, _) = passes.next().expect("at least one group");
    let mut m = measure::measure(&options.config, first, bench)?;
    // Later passes take the first pass's step, so their samples line up.
    let step = m.samples.first().map(|s| s.iterations);
    for (group, _) in passes {
        m.merge_pass(&measure::measure_with_step(
            &options.config,
            group,
            step,
            bench,
        )?);
    }
    Ok((m, None))
}

/// The measurement's own cost per iteration and metric, measured on an
/// empty routine in the same mode with the same groups.
fn calibrate(
    options: &Options,
    groups: &mut Groups,
    events: &[Event],
) -> Result<Vec<(String, f64)>, String> {
    let config = measure::Config {
        warm_up: options.config.warm_up.min(Duration::from_millis(50)),
        measurement: options.config.measurement.min(Duration::from_millis(100)),
        sample_count: options.config.sample_count,
    };
    let fail = |e: measure::MeasureError| format!("calibrating on an empty routine: {e}");
    let mut overhead = Vec::new();
    for (pass, (group, range)) in groups.iter_mut().enumerate() {
        let events = &events[range.clone()];
        let result = if options.per_iter {
            let pm = measure::calibrate_per_iter(&config, group).map_err(fail)?;
            let mut r = analyze("(empty)", events, &pm.as_measurement());
            r.read_path = Some(pm.read_path);
            r
        } else {
            analyze(
                "(empty)",
                events,
                &measure::calibrate(&config, group).map_err(fail)?,
            )
        };
        // Wall time is the first pass's, as in the measurement.
        overhead.extend(
            analysis::overhead(&result)
                .into_iter()
                .skip(usize::from(pass > 0)),
        );
    }
    Ok(overhead)
}

/// The events of each group, as `[a, b], [c]`.
fn together(groups: &Groups, events: &[Event]) -> String {
    let names = |r: &Range<usize>| {
        events[r.clone()]
            .iter()
            .map(|e| e.name.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    };
    groups
        .iter()
        .map(|(_, r)| format!("[{}]", names(r)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `text`'s comma-separated parts after `prefix`, wrapped to `width`
/// columns with continuation lines indented.
fn wrap(prefix: &str, text: &str, width: usize) -> String {
    let mut out = prefix.to_string();
    let mut line = prefix.chars().count();
    let parts: Vec<&str> = text.split(", ").collect();
    for (i, part) in parts.iter().enumerate() {
        let piece = if i + 1 < parts.len() {
            format!("{part},")
        } else {
            part.to_string()
        };
        let len = piece.chars().count();
        if i > 0 && line + 1 + len > width {
            out.push_str("\n  ");
            line = 2;
        } else if i > 0 {
            out.push(' ');
            line += 1;
        }
        out.push_str(&piece);
        line += len;
    }
    out
}

/// Linear sampling runs at least `n(n+1)/2` iterations; for a slow routine
/// that can far exceed the time asked for. Say so, with the remedy.
fn slow_warning(id: &str, took: Duration, config: &measure::Config) -> Option<String> {
    let budget = config.warm_up + config.measurement;
    (took > budget * 3 && took > Duration::from_secs(2)).then(|| {
        format!(
            "perfbench: warning: `{id}` took {:.1} s for a budget of {:.1} s: at one iteration per \
             step, {} samples need that long; lower --sample-count or raise --measurement-time",
            took.as_secs_f64(),
            budget.as_secs_f64(),
            config.sample_count
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_header_lines_wrap_at_commas() {
        let text = "AMD EPYC, kernel 6.18.44, CPU 1, virtual machine, PMUs: msr power software, perf_event_paranoid 2";
        let out = wrap("perfbench: ", text, 40);
        assert!(out.lines().all(|l| l.chars().count() <= 40), "{out}");
        assert_eq!(out.replace("\n  ", " "), format!("perfbench: {text}"));
        assert_eq!(wrap("p: ", "a, b", 80), "p: a, b");
    }

    #[test]
    fn slow_benchmarks_get_a_warning_with_the_remedy() {
        let config = measure::Config::default(); // 0.85 s in all
        assert_eq!(slow_warning("x", Duration::from_secs(1), &config), None);
        assert_eq!(
            slow_warning("x", Duration::from_millis(2500), &config),
            None
        );
        let w = slow_warning("x", Duration::from_secs(9), &config).unwrap();
        assert!(w.contains("`x` took 9.0 s for a budget of 0.8 s"), "{w}");
        assert!(w.contains("--sample-count"), "{w}");
    }
}
