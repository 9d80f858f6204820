//! Command-line options, libtest-compatible where libtest has the flag, each
//! with a `PERFBENCH_*` environment twin (`--warm-up-time` ↔
//! `PERFBENCH_WARM_UP_TIME`). The command line wins over the environment.

use std::ffi::OsString;
use std::time::Duration;

use crate::analysis::comparison::Thresholds;
use crate::counter::event::{close_names, parse_list};
use crate::measure::Config;
use crate::output::format::{quoted, thousands};
use crate::output::Color;
use crate::run::registry::Settings;
use crate::store::check_baseline_name;

/// Whether to measure, to run each routine once as a test, or to run it
/// for a profiler.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunMode {
    /// `cargo bench` (`--bench`): measure.
    Bench,
    /// `cargo test --benches` (no `--bench`) or `--test`: run each once.
    Test,
    /// `--profile-time S` under `cargo bench`: run each routine for about
    /// this long, without counters, analysis or storing.
    Profile(Duration),
}

/// How results are written to stdout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputFormat {
    /// A table for people.
    Pretty,
    /// One JSON object per benchmark per line.
    Json,
    /// libtest's `test ID ... bench: N ns/iter (+/- M)` lines.
    Bencher,
}

/// Everything the command line and environment asked for.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// Substrings (or exact ids with `exact`) selecting benchmarks.
    pub filters: Vec<String>,
    /// Substrings (or exact ids) excluding benchmarks.
    pub skip: Vec<String>,
    /// Match filters against whole ids.
    pub exact: bool,
    /// List the benchmarks instead of running them.
    pub list: bool,
    /// `--format terse` with `--list`: ids only, no summary line.
    pub terse: bool,
    /// `--ignored`: run only the ignored benchmarks.
    pub ignored: bool,
    /// `--include-ignored`: run the ignored benchmarks too.
    pub include_ignored: bool,
    /// List the events this machine can count.
    pub list_events: bool,
    /// Measure, or run once as tests.
    pub mode: RunMode,
    /// `--events`, as written.
    pub events: Option<String>,
    /// `--cpu N`: the CPU to pin to.
    pub cpu: Option<usize>,
    /// `--cpu-type`: pin to a CPU of this hybrid core type (a core PMU's
    /// name, `measure::choose_core`).
    pub cpu_type: Option<String>,
    /// `--pin`: pin to the CPU the thread starts on.
    pub pin: bool,
    /// `--no-pin`: do not pin at all, not even on hybrid CPUs.
    pub no_pin: bool,
    /// Warm-up, measurement time, sample count and rounds of a benchmark
    /// whose attribute sets none of them ([`Options::config_for`] gives a
    /// benchmark's own).
    pub config: Config,
    /// The measurement settings the run was given (command line,
    /// environment, `--quick`), which win over a benchmark's attribute.
    pub given: Given,
    /// Output format.
    pub output_format: OutputFormat,
    /// Colour.
    pub color: Color,
    /// Print usage and exit.
    pub help: bool,
    /// `--save-baseline NAME`.
    pub save_baseline: Option<String>,
    /// `--baseline NAME`: compare with it instead of the previous run.
    pub baseline: Option<String>,
    /// `--fail-on-regression[=PCT]`: `Some(None)` fails on any regression,
    /// `Some(Some(f))` on one beyond the fraction `f`.
    pub fail_on_regression: Option<Option<f64>>,
    /// Noise thresholds and significance of comparisons.
    pub thresholds: Thresholds,
    /// `--noplot`: the HTML report without plots.
    pub noplot: bool,
    /// `--mode per-iter`: each iteration bracketed by counter reads.
    pub per_iter: bool,
    /// `--subtract-overhead`: report values less the calibrated overhead.
    pub subtract_overhead: bool,
    /// What the environment set that the command line overrides and that
    /// would have been an error on its own, one line each.
    pub warnings: Vec<String>,
}

/// The measurement settings given to the whole run: by the command line or
/// the environment (`Some`), or by `--quick`. (`--events` is
/// [`Options::events`], which is given where it is `Some`.)
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Given {
    /// `--quick`: shorter defaults.
    pub quick: bool,
    /// `--mode`: per-iteration (`true`) or batch.
    pub per_iter: Option<bool>,
    /// `--warm-up-time`.
    pub warm_up: Option<Duration>,
    /// `--measurement-time`.
    pub measurement: Option<Duration>,
    /// `--sample-count`.
    pub sample_count: Option<u64>,
}

impl Options {
    /// How long and how often to measure a benchmark with these attribute
    /// settings. Each setting comes from the first of: the command line,
    /// the environment, `--quick`, the benchmark's attribute, the default.
    /// The attribute is the benchmark's own default; a setting given for
    /// the run is a request for every benchmark in it.
    pub fn config_for(&self, settings: &Settings) -> Config {
        let t = &self.given;
        let own = if t.quick {
            quick_config()
        } else {
            let d = Config::default();
            Config {
                warm_up: settings.warm_up.unwrap_or(d.warm_up),
                measurement: settings.measurement.unwrap_or(d.measurement),
                sample_count: settings.sample_count.unwrap_or(d.sample_count),
                ..d
            }
        };
        Config {
            warm_up: t.warm_up.unwrap_or(own.warm_up),
            measurement: t.measurement.unwrap_or(own.measurement),
            sample_count: t.sample_count.unwrap_or(own.sample_count),
            rounds: self.config.rounds,
        }
    }

    /// What a benchmark with these attribute settings is measured with:
    /// its events as `--events` writes them (`None`: the default set) and
    /// whether in per-iteration mode. The command line or the environment
    /// win over the attribute, as for [`Options::config_for`].
    pub fn setup_for(&self, settings: &Settings) -> (Option<String>, bool) {
        let events = self.events.clone().or(settings.events.map(String::from));
        let per_iter = self.given.per_iter.or(settings.per_iter).unwrap_or(false);
        (events, per_iter)
    }
}

/// `--quick`'s settings.
fn quick_config() -> Config {
    Config {
        warm_up: Duration::from_millis(50),
        measurement: Duration::from_millis(200),
        sample_count: 20,
        ..Config::default()
    }
}

/// A flag: its long name, whether it takes a value, and what it sets.
struct Flag {
    name: &'static str,
    value: Option<&'static str>,
    help: &'static str,
    apply: fn(&mut Parsed, &str) -> Result<(), String>,
}

/// Options as parsed, before `--quick` fills in what was not set.
#[derive(Default)]
struct Parsed {
    options: Option<Options>,
    bench: bool,
    test: bool,
    quick: bool,
    warm_up: Option<Duration>,
    measurement: Option<Duration>,
    sample_count: Option<u64>,
    per_iter: Option<bool>,
    profile_time: Option<Duration>,
}

impl Parsed {
    fn o(&mut self) -> &mut Options {
        self.options
            .as_mut()
            .expect("options are initialised before parsing")
    }
}

#[rustfmt::skip]
const FLAGS: &[Flag] = &[
    Flag { name: "bench", value: None, help: "measure (cargo bench passes this)", apply: |p, _| { p.bench = true; Ok(()) } },
    Flag { name: "test", value: None, help: "run each benchmark once as a test", apply: |p, _| { p.test = true; Ok(()) } },
    Flag { name: "exact", value: None, help: "filters match whole ids", apply: |p, _| { p.o().exact = true; Ok(()) } },
    Flag { name: "skip", value: Some("FILTER"), help: "skip benchmarks whose id contains FILTER", apply: |p, v| { p.o().skip.push(v.into()); Ok(()) } },
    Flag { name: "list", value: None, help: "list benchmarks as `ID: benchmark`", apply: |p, _| { p.o().list = true; Ok(()) } },
    Flag { name: "format", value: Some("pretty|terse"), help: "format of --list", apply: |p, v| { p.o().terse = one_of(v, "--format", &["pretty", "terse"])? == 1; Ok(()) } },
    Flag { name: "ignored", value: None, help: "run only the ignored benchmarks (#[ignore])", apply: |p, _| { p.o().ignored = true; Ok(()) } },
    Flag { name: "include-ignored", value: None, help: "run the ignored benchmarks too", apply: |p, _| { p.o().include_ignored = true; Ok(()) } },
    Flag { name: "events", value: Some("SPEC"), help: "comma-separated events, perf's spelling", apply: |p, v| { p.o().events = Some(events(v)?); Ok(()) } },
    Flag { name: "list-events", value: None, help: "list the events this machine can count", apply: |p, _| { p.o().list_events = true; Ok(()) } },
    Flag { name: "cpu", value: Some("N"), help: "pin the measuring thread to CPU N", apply: |p, v| { p.o().cpu = Some(number(v, "--cpu")?); Ok(()) } },
    Flag { name: "cpu-type", value: Some("TYPE"), help: "on hybrid CPUs, pin to a core of this type (its core PMU: cpu_core or core, cpu_atom or atom, armv8_…; default: the performance cores)", apply: |p, v| { p.o().cpu_type = Some(v.into()); Ok(()) } },
    Flag { name: "pin", value: None, help: "pin the measuring thread (and the threads it spawns) to the CPU it starts on", apply: |p, _| { p.o().pin = true; Ok(()) } },
    Flag { name: "no-pin", value: None, help: "do not pin the measuring thread, not even on hybrid CPUs", apply: |p, _| { p.o().no_pin = true; Ok(()) } },
    Flag { name: "sample-count", value: Some("N"), help: "samples per benchmark (default 50)", apply: |p, v| { p.sample_count = Some(whole(v, "--sample-count", MAX_SAMPLE_COUNT)?); Ok(()) } },
    Flag { name: "warm-up-time", value: Some("S"), help: "warm-up seconds (default 0.15)", apply: |p, v| { p.warm_up = Some(seconds(v, "--warm-up-time")?); Ok(()) } },
    Flag { name: "measurement-time", value: Some("S"), help: "measurement seconds (default 0.7)", apply: |p, v| { p.measurement = Some(seconds(v, "--measurement-time")?); Ok(()) } },
    Flag { name: "rounds", value: Some("N"), help: "measure each benchmark in N rounds interleaved with the others, sharing its time and samples (default 10)", apply: |p, v| { p.o().config.rounds = whole(v, "--rounds", MAX_ROUNDS)?; Ok(()) } },
    Flag { name: "profile-time", value: Some("S"), help: "run each routine for about S seconds for a profiler (perf record): no counters, analysis or storing", apply: |p, v| { p.profile_time = Some(positive_seconds(v, "--profile-time")?); Ok(()) } },
    Flag { name: "quick", value: None, help: "short run: 0.05 s warm-up, 0.2 s measurement, 20 samples", apply: |p, _| { p.quick = true; Ok(()) } },
    Flag { name: "output-format", value: Some("pretty|json|bencher"), help: "table, JSON lines, or libtest bench lines", apply: |p, v| { p.o().output_format = [OutputFormat::Pretty, OutputFormat::Json, OutputFormat::Bencher][one_of(v, "--output-format", &["pretty", "json", "bencher"])?]; Ok(()) } },
    Flag { name: "save-baseline", value: Some("NAME"), help: "also store this run as baseline NAME", apply: |p, v| { p.o().save_baseline = Some(baseline_name(v)?); Ok(()) } },
    Flag { name: "baseline", value: Some("NAME"), help: "compare with baseline NAME (default: the previous run)", apply: |p, v| { p.o().baseline = Some(baseline_name(v)?); Ok(()) } },
    Flag { name: "fail-on-regression", value: Some("[=PCT]"), help: "exit 3 on a regression (beyond PCT %)", apply: |p, v| { p.o().fail_on_regression = Some(if v.is_empty() { None } else { Some(percent(v, "--fail-on-regression")?) }); Ok(()) } },
    Flag { name: "noise-threshold", value: Some("PCT"), help: "changes of times within PCT % are noise (default 3)", apply: |p, v| { p.o().thresholds.time = percent(v, "--noise-threshold")?; Ok(()) } },
    Flag { name: "count-noise-threshold", value: Some("PCT"), help: "changes of counts within PCT % are noise (default 1)", apply: |p, v| { p.o().thresholds.count = percent(v, "--count-noise-threshold")?; Ok(()) } },
    Flag { name: "color", value: Some("auto|always|never"), help: "colour the output", apply: |p, v| { p.o().color = [Color::Auto, Color::Always, Color::Never][one_of(v, "--color", &["auto", "always", "never"])?]; Ok(()) } },
    Flag { name: "mode", value: Some("batch|per-iter"), help: "counters per sample of many iterations, or per iteration", apply: |p, v| { p.per_iter = Some(one_of(v, "--mode", &["batch", "per-iter"])? == 1); Ok(()) } },
    Flag { name: "subtract-overhead", value: None, help: "subtract the measured cost of measuring, its uncertainty included", apply: |p, _| { p.o().subtract_overhead = true; Ok(()) } },
    Flag { name: "noplot", value: None, help: "HTML report without plots (faster)", apply: |p, _| { p.o().noplot = true; Ok(()) } },
    Flag { name: "help", value: None, help: "print this help", apply: |p, _| { p.o().help = true; Ok(()) } },
    // libtest flags that `cargo test` users pass to every target; accepted
    // and without effect here, since benchmarks run one at a time anyway.
    Flag { name: "nocapture", value: None, help: "", apply: |_, _| Ok(()) },
    Flag { name: "show-output", value: None, help: "", apply: |_, _| Ok(()) },
    Flag { name: "quiet", value: None, help: "", apply: |_, _| Ok(()) },
    Flag { name: "test-threads", value: Some("N"), help: "", apply: |_, v| number(v, "--test-threads").map(drop) },
];

/// Other spellings of our flags, and whose they are: `--sample-size` is
/// `--sample-count`. On the command line only; the environment twin is the
/// flag's.
const ALIASES: &[(&str, &str, &str)] = &[("sample-size", "sample-count", "Criterion's")];

/// Options of Criterion and libtest that perfbench does not have, and what
/// to do instead.
#[rustfmt::skip]
const FOREIGN: &[(&str, &str)] = &[
    ("baseline-lenient", "Criterion's; --baseline NAME is lenient already: a benchmark missing from NAME is shown as new"),
    ("confidence-level", "Criterion's; intervals are always 95 %"),
    ("discard-baseline", "Criterion's; every run is stored as the latest, for the next to compare with"),
    ("load-baseline", "Criterion's; perfbench always measures: compare with a stored run with --baseline NAME"),
    ("nresamples", "Criterion's; the bootstrap always takes 1000 resamples, seeded"),
    ("plotting-backend", "Criterion's; the report's plots are always SVG, --noplot leaves them out"),
    ("significance-level", "Criterion's; a change is judged by its 95 % interval against --noise-threshold"),
    ("verbose", "Criterion's; the table always shows intervals and changes, --output-format json every statistic"),
    ("logfile", "libtest's; redirect stdout instead (--output-format json for a file a program reads)"),
    ("shuffle", "libtest's; benchmarks run in source order, interleaved in rounds (--rounds)"),
    ("shuffle-seed", "libtest's; benchmarks run in source order, interleaved in rounds (--rounds)"),
];

/// Criterion's one-letter options and the flags they stand for.
const CRITERION_SHORT: &[(char, &str)] = &[
    ('b', "baseline"),
    ('c', "color"),
    ('s', "save-baseline"),
    ('v', "verbose"),
];

/// Why `--name` is no option: `unknown option `--name` (hint)`.
fn unknown_option(name: &str) -> String {
    format!("unknown option `--{}` ({})", quoted(name), hint(name))
}

/// What to write instead of the unknown `--name`: the way to do what a
/// Criterion or libtest option does, else the flag it is likely a typo of,
/// else `see --help`.
fn hint(name: &str) -> String {
    if let Some((_, instead)) = FOREIGN.iter().find(|(n, _)| *n == name) {
        return instead.to_string();
    }
    let known: Vec<&str> = FLAGS
        .iter()
        .map(|f| f.name)
        .chain(ALIASES.iter().map(|a| a.0))
        .collect();
    match close_names(name, &known).first() {
        Some(flag) => format!("did you mean `--{flag}`?"),
        None => "see --help".into(),
    }
}

/// Why `-c` is no option: perfbench has long options only (but for `-h`
/// and libtest's `-q`); Criterion's one-letter forms get the long one.
fn unknown_short(c: char) -> String {
    let hint = match CRITERION_SHORT.iter().find(|(s, _)| *s == c) {
        Some((_, long)) if FLAGS.iter().any(|f| f.name == *long) => {
            format!("Criterion's; here it is `--{long}`")
        }
        Some((_, long)) => hint(long),
        None => "see --help".into(),
    };
    format!("unknown option `-{}` ({hint})", quoted(&c.to_string()))
}

fn env_name(flag: &str) -> String {
    format!("PERFBENCH_{}", flag.to_uppercase().replace('-', "_"))
}

fn number(v: &str, what: &str) -> Result<usize, String> {
    v.trim()
        .parse()
        .map_err(|_| format!("{what} takes a whole number, not `{}`", quoted(v)))
}

/// The most samples a benchmark may take: more would not fit in memory on
/// a small machine, and no statistic needs them.
pub const MAX_SAMPLE_COUNT: u64 = 1_000_000;

/// The most rounds a run may take (each round keeps at least 5 samples).
pub const MAX_ROUNDS: u64 = 10_000;

/// The longest time any time option takes: a day, in seconds.
pub const MAX_SECONDS: u64 = 86_400;

/// The largest percentage a threshold takes.
pub const MAX_PERCENT: f64 = 1_000.0;

/// A whole number from 1 to `max`.
fn whole(v: &str, what: &str, max: u64) -> Result<u64, String> {
    match v.trim().parse::<u64>() {
        Ok(n) if (1..=max).contains(&n) => Ok(n),
        _ => Err(format!(
            "{what} takes a whole number from 1 to {}, not `{}`",
            thousands(max as f64),
            quoted(v)
        )),
    }
}

/// Seconds as a decimal number, or with an `s` or `ms` suffix, at most a
/// day.
fn seconds(v: &str, what: &str) -> Result<Duration, String> {
    let t = v.trim();
    let (num, scale) = if let Some(ms) = t.strip_suffix("ms") {
        (ms, 1e-3)
    } else {
        (t.strip_suffix('s').unwrap_or(t), 1.0)
    };
    match num.trim().parse::<f64>() {
        Ok(s) if s.is_finite() && s >= 0.0 && s * scale <= MAX_SECONDS as f64 => {
            Ok(Duration::from_secs_f64(s * scale))
        }
        _ => Err(format!(
            "{what} takes seconds from 0 to {MAX_SECONDS} (e.g. 0.5 or 500ms), not `{}`",
            quoted(v)
        )),
    }
}

/// [`seconds`], above zero.
fn positive_seconds(v: &str, what: &str) -> Result<Duration, String> {
    match seconds(v, what) {
        Ok(d) if !d.is_zero() => Ok(d),
        _ => Err(format!(
            "{what} takes seconds above 0, up to {MAX_SECONDS} (e.g. 5 or 500ms), not `{}`",
            quoted(v)
        )),
    }
}

/// A percentage (`5`, `2.5`, `5%`) as a fraction.
fn percent(v: &str, what: &str) -> Result<f64, String> {
    match v.trim().trim_end_matches('%').parse::<f64>() {
        Ok(p) if p.is_finite() && (0.0..=MAX_PERCENT).contains(&p) => Ok(p / 100.0),
        _ => Err(format!(
            "{what} takes a percentage from 0 to {MAX_PERCENT}, such as 5 or 2.5%, not `{}`",
            quoted(v)
        )),
    }
}

/// A baseline name [`check_baseline_name`] accepts. Its error quotes the
/// name whole and raw, a newline or 10,000 characters of it: the name is
/// quoted here instead (escaped and cut). Only a name with such characters,
/// or too long, is changed by [`quoted`], and no such text is in the rest
/// of the error, so the one replaced is the name.
fn baseline_name(v: &str) -> Result<String, String> {
    match check_baseline_name(v) {
        Ok(()) => Ok(v.into()),
        Err(e) => Err(e.replacen(v, &quoted(v), 1)),
    }
}

/// `--events`, checked now, so that a wrong spelling is an error naming
/// where it came from even in a run that measures nothing.
fn events(v: &str) -> Result<String, String> {
    parse_list(v).map_err(|e| format!("--events: {e}"))?;
    Ok(v.into())
}

/// The limits of a benchmark's own settings (its attribute's values the
/// macro could not check), as the command line's: an error naming the
/// function `path` and the key.
pub fn check_settings(path: &str, s: &Settings) -> Result<(), String> {
    if let Some(n) = s
        .sample_count
        .filter(|n| !(1..=MAX_SAMPLE_COUNT).contains(n))
    {
        return Err(format!(
            "`{path}`: sample_count takes a whole number from 1 to {}, not {n}",
            thousands(MAX_SAMPLE_COUNT as f64)
        ));
    }
    for (key, time) in [
        ("warm_up_time", s.warm_up),
        ("measurement_time", s.measurement),
    ] {
        if let Some(t) = time.filter(|t| t.as_secs_f64() > MAX_SECONDS as f64) {
            return Err(format!(
                "`{path}`: {key} takes seconds from 0 to {MAX_SECONDS}, not {}",
                t.as_secs_f64()
            ));
        }
    }
    Ok(())
}

/// Whether a flag's value may be left out (`--fail-on-regression[=PCT]`).
fn optional(flag: &Flag) -> bool {
    flag.value.is_some_and(|v| v.starts_with("[="))
}

/// The position of `v` among `choices`.
fn one_of(v: &str, what: &str, choices: &[&str]) -> Result<usize, String> {
    choices
        .iter()
        .position(|c| *c == v)
        .ok_or_else(|| format!("{what} takes {}, not `{}`", choices.join(" | "), quoted(v)))
}

/// A switch's value in the environment: 1 or 0 (also true/false, yes/no,
/// on/off).
fn boolean(v: &str) -> Result<bool, String> {
    match v.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" | "" => Ok(false),
        _ => Err(format!("a switch takes 1 or 0, not `{}`", quoted(v))),
    }
}

/// Parses `args` (without the program name) and the `PERFBENCH_*` variables
/// `env` gives; the command line wins. A variable whose value is wrong is
/// an error naming it, unless the command line gives its flag: then it is
/// a warning in [`Options::warnings`].
pub fn parse(
    args: impl IntoIterator<Item = OsString>,
    env: impl Fn(&str) -> Option<String>,
) -> Result<Options, String> {
    let mut p = Parsed {
        options: Some(defaults()),
        ..Parsed::default()
    };
    let wrong = apply_environment(&mut p, env);
    let given = apply_arguments(&mut p, args)?;
    let mut warnings = Vec::new();
    for (flag, error) in wrong {
        if !given.contains(&flag) {
            return Err(error);
        }
        warnings.push(format!("{error} (ignored: --{flag} is given)"));
    }
    let mut o = finish(p);
    o.warnings = warnings;
    Ok(o)
}

/// Variables perfbench reads that are no flag's twin.
const OTHER_VARIABLES: &[&str] = &[
    "PERFBENCH_HOME",
    "PERFBENCH_WRITE_GOLDEN",
    "PERFBENCH_PMU_VM_CACHE",
];

/// A warning for each of `names` that looks like ours (`PERFBENCH_…`) but
/// that perfbench does not read, with the nearest variable it does.
pub fn unknown_variables<S: AsRef<str>>(names: &[S]) -> Vec<String> {
    // Compared without the prefix they share, which would make any two
    // look close.
    let known: Vec<String> = FLAGS
        .iter()
        .filter(|f| !f.help.is_empty())
        .map(|f| env_name(f.name))
        .chain(OTHER_VARIABLES.iter().map(|v| v.to_string()))
        .map(|v| v["PERFBENCH_".len()..].to_string())
        .collect();
    names
        .iter()
        .filter_map(|n| n.as_ref().strip_prefix("PERFBENCH_"))
        .filter(|rest| !known.iter().any(|k| k == rest))
        .map(|rest| {
            let hint = match close_names(rest, &known).first() {
                Some(var) => format!("did you mean `PERFBENCH_{var}`?"),
                None => "`--help` lists the options; each has a PERFBENCH_ twin".into(),
            };
            format!(
                "unknown variable `PERFBENCH_{}` is ignored ({hint})",
                quoted(rest)
            )
        })
        .collect()
}

/// The options when nothing asks otherwise.
fn defaults() -> Options {
    Options {
        filters: Vec::new(),
        skip: Vec::new(),
        exact: false,
        list: false,
        terse: false,
        ignored: false,
        include_ignored: false,
        list_events: false,
        mode: RunMode::Test,
        events: None,
        cpu: None,
        cpu_type: None,
        no_pin: false,
        pin: false,
        config: Config::default(),
        given: Given::default(),
        output_format: OutputFormat::Pretty,
        color: Color::Auto,
        help: false,
        save_baseline: None,
        baseline: None,
        fail_on_regression: None,
        thresholds: Thresholds::default(),
        noplot: false,
        per_iter: false,
        subtract_overhead: false,
        warnings: Vec::new(),
    }
}

/// Applies the `PERFBENCH_*` twin of every flag that `env` sets: switches
/// take 1 or 0, `PERFBENCH_FAIL_ON_REGRESSION` also a percentage. Returns
/// the flags whose variable is wrong, each with its error.
fn apply_environment(
    p: &mut Parsed,
    env: impl Fn(&str) -> Option<String>,
) -> Vec<(&'static str, String)> {
    let mut wrong = Vec::new();
    for flag in FLAGS.iter().filter(|f| !f.help.is_empty()) {
        let var = env_name(flag.name);
        let Some(value) = env(&var) else { continue };
        if let Err(e) = apply_variable(p, flag, &value) {
            wrong.push((flag.name, format!("{var}: {e}")));
        }
    }
    wrong
}

/// Applies `flag`'s variable, set to `value`.
fn apply_variable(p: &mut Parsed, flag: &Flag, value: &str) -> Result<(), String> {
    match flag.value {
        Some(_) if optional(flag) => match value.trim().to_ascii_lowercase().as_str() {
            "0" | "false" | "no" | "off" => Ok(()),
            "" | "1" | "true" | "yes" | "on" => (flag.apply)(p, ""),
            _ => (flag.apply)(p, value),
        },
        Some(_) => (flag.apply)(p, value),
        None if boolean(value)? => (flag.apply)(p, ""),
        None => Ok(()),
    }
}

/// Applies the command line: flags, `-h`, libtest's `-q`, and filters.
/// Returns the flags it gave (by their names, not their aliases).
fn apply_arguments(
    p: &mut Parsed,
    args: impl IntoIterator<Item = OsString>,
) -> Result<Vec<&'static str>, String> {
    use lexopt::Arg;
    let mut given = Vec::new();
    let mut parser = lexopt::Parser::from_args(args);
    while let Some(arg) = parser.next().map_err(|e| e.to_string())? {
        match arg {
            Arg::Long(name) => {
                let name = name.to_string();
                given.push(apply_flag(p, &mut parser, &name)?);
            }
            Arg::Short('h') => p.o().help = true,
            Arg::Short('q') => {}
            Arg::Short(c) => return Err(unknown_short(c)),
            Arg::Value(v) => {
                let v = string(v, "FILTER")?;
                p.o().filters.push(v);
            }
        }
    }
    Ok(given)
}

/// Applies `--name` (or an alias of a flag), taking its value from
/// `parser` where it has one; returns the flag's name.
fn apply_flag(
    p: &mut Parsed,
    parser: &mut lexopt::Parser,
    name: &str,
) -> Result<&'static str, String> {
    let alias = ALIASES.iter().find(|a| a.0 == name);
    let flag_name = alias.map_or(name, |a| a.1);
    let flag = FLAGS
        .iter()
        .find(|f| f.name == flag_name)
        .ok_or_else(|| unknown_option(name))?;
    let value = match flag.value {
        Some(_) if optional(flag) => match parser.optional_value() {
            Some(v) => string(v, name)?,
            None => String::new(),
        },
        Some(_) => string(parser.value().map_err(|e| e.to_string())?, name)?,
        None => String::new(),
    };
    // Errors name the flag; say which the user's spelling stands for.
    (flag.apply)(p, &value).map_err(|e| match alias {
        Some(_) => format!("--{name}: {e}"),
        None => e,
    })?;
    Ok(flag.name)
}

/// The options, with the mode and the timing settings resolved: `--quick`
/// first, then the explicit settings over it.
fn finish(mut p: Parsed) -> Options {
    let mut o = p.options.take().expect("options are initialised");
    // As in Criterion, test mode wins over profiling.
    o.mode = match (p.bench && !p.test, p.profile_time) {
        (true, Some(time)) => RunMode::Profile(time),
        (true, None) => RunMode::Bench,
        (false, _) => RunMode::Test,
    };
    o.per_iter = p.per_iter.unwrap_or(false);
    o.given = Given {
        quick: p.quick,
        per_iter: p.per_iter,
        warm_up: p.warm_up,
        measurement: p.measurement,
        sample_count: p.sample_count,
    };
    o.config = o.config_for(&Settings::NONE);
    o
}

/// A value of the command line as text, or an error naming what it is for.
fn string(v: OsString, what: &str) -> Result<String, String> {
    v.into_string().map_err(|v| {
        format!(
            "{what}: `{}` is not valid UTF-8",
            quoted(&v.to_string_lossy())
        )
    })
}

/// The usage text of `--help`.
pub fn usage() -> String {
    let mut s = String::from(
        "Usage: cargo bench [--bench NAME] -- [OPTIONS] [FILTER]...\n\n\
         Runs the #[perfbench] benchmarks whose id contains a FILTER (all without one).\n\
         Without --bench (cargo test --benches) each runs once as a test.\n\nOptions:\n",
    );
    for f in FLAGS.iter().filter(|f| !f.help.is_empty()) {
        let left = match f.value {
            Some(v) if optional(f) => format!("--{}{v}", f.name),
            Some(v) => format!("--{} {v}", f.name),
            None => format!("--{}", f.name),
        };
        let aliases: String = ALIASES
            .iter()
            .filter(|a| a.1 == f.name)
            .map(|(alias, _, whose)| format!("; also --{alias} ({whose})"))
            .collect();
        s.push_str(&format!("  {left:<34} {}{aliases}\n", f.help));
    }
    s.push_str(
        "\nEvery option has an environment twin: --warm-up-time is PERFBENCH_WARM_UP_TIME,\n\
                switches take 1 or 0. The command line wins.\n",
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_with(args: &[&str], env: &[(&str, &str)]) -> Result<Options, String> {
        let env: Vec<(String, String)> = env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        parse(args.iter().map(OsString::from), move |k| {
            env.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone())
        })
    }

    #[test]
    fn cargo_bench_arguments_select_bench_mode_and_filters() {
        let o = parse_with(&["--bench", "three::", "many"], &[]).unwrap();
        assert_eq!(o.mode, RunMode::Bench);
        assert_eq!(o.filters, ["three::", "many"]);
        assert_eq!(parse_with(&[], &[]).unwrap().mode, RunMode::Test);
        assert_eq!(
            parse_with(&["--bench", "--test"], &[]).unwrap().mode,
            RunMode::Test
        );
    }

    #[test]
    fn values_parse_in_both_spellings() {
        let o = parse_with(
            &[
                "--events=task-clock",
                "--cpu",
                "1",
                "--warm-up-time",
                "250ms",
                "--measurement-time=2",
                "--sample-count",
                "7",
            ],
            &[],
        )
        .unwrap();
        assert_eq!(o.events.as_deref(), Some("task-clock"));
        assert_eq!(o.cpu, Some(1));
        assert_eq!(o.config.warm_up, Duration::from_millis(250));
        assert_eq!(o.config.measurement, Duration::from_secs(2));
        assert_eq!(o.config.sample_count, 7);
    }

    #[test]
    fn environment_twins_apply_and_the_command_line_wins() {
        let env = [
            ("PERFBENCH_EVENTS", "page-faults"),
            ("PERFBENCH_SAMPLE_COUNT", "9"),
            ("PERFBENCH_NO_PIN", "1"),
            ("PERFBENCH_OUTPUT_FORMAT", "json"),
            ("PERFBENCH_EXACT", "0"),
        ];
        let o = parse_with(&["--sample-count", "3"], &env).unwrap();
        assert_eq!(o.events.as_deref(), Some("page-faults"));
        assert_eq!(o.config.sample_count, 3);
        assert!(o.no_pin);
        assert!(!o.exact);
        assert_eq!(o.output_format, OutputFormat::Json);
    }

    #[test]
    fn quick_fills_only_what_was_not_set() {
        let o = parse_with(&["--sample-count", "5", "--quick"], &[]).unwrap();
        assert_eq!(o.config.sample_count, 5);
        assert_eq!(o.config.measurement, Duration::from_millis(200));
    }

    #[test]
    fn bad_input_is_a_one_line_error_naming_the_culprit() {
        for (args, env, needle) in [
            (&["--frobnicate"][..], &[][..], "`--frobnicate`"),
            (&["-x"], &[], "`-x`"),
            (&["--sample-count", "0"], &[], "not `0`"),
            (&["--warm-up-time", "soon"], &[], "not `soon`"),
            (
                &["--output-format", "xml"],
                &[],
                "pretty | json | bencher, not `xml`",
            ),
            (&["--cpu"], &[], "--cpu"),
            (&[], &[("PERFBENCH_NO_PIN", "maybe")], "PERFBENCH_NO_PIN"),
            (
                &[],
                &[("PERFBENCH_CPU", "one")],
                "PERFBENCH_CPU: --cpu takes a whole number",
            ),
        ] {
            let e = parse_with(args, env).unwrap_err();
            assert!(e.contains(needle), "{args:?}: {e}");
            assert!(!e.contains('\n'), "{e}");
        }
    }

    #[test]
    fn numbers_out_of_range_are_one_line_errors_naming_the_flag() {
        let count = "takes a whole number from 1 to 1,000,000";
        let seconds = "takes seconds from 0 to 86400 (e.g. 0.5 or 500ms)";
        let pct = "takes a percentage from 0 to 1000, such as 5 or 2.5%";
        for (flag, bad, says) in [
            ("--sample-count", "1000000000", count),
            ("--sample-count", "18446744073709551615", count),
            ("--sample-count", "18446744073709551616", count),
            ("--sample-count", "-1", count),
            ("--rounds", "10001", "takes a whole number from 1 to 10,000"),
            ("--warm-up-time", "86401", seconds),
            ("--warm-up-time", "1e300", seconds),
            ("--measurement-time", "inf", seconds),
            ("--measurement-time", "NaN", seconds),
            ("--measurement-time", "-0.5", seconds),
            ("--measurement-time", "86400001ms", seconds),
            ("--noise-threshold", "1001", pct),
            ("--count-noise-threshold", "1e308", pct),
            ("--count-noise-threshold", "-1", pct),
            ("--fail-on-regression", "NaN", pct),
        ] {
            let e = parse_with(&[&format!("{flag}={bad}")], &[]).unwrap_err();
            assert_eq!(e, format!("{flag} {says}, not `{bad}`"));
            let var = format!("PERFBENCH_{}", flag[2..].to_uppercase().replace('-', "_"));
            let e = parse_with(&[], &[(&var, bad)]).unwrap_err();
            assert_eq!(e, format!("{var}: {flag} {says}, not `{bad}`"));
        }
        // The limits themselves are taken.
        let o = parse_with(
            &[
                "--sample-count=1000000",
                "--measurement-time=86400",
                "--noise-threshold=1000",
            ],
            &[],
        )
        .unwrap();
        assert_eq!(o.config.sample_count, 1_000_000);
        assert_eq!(o.config.measurement, Duration::from_secs(86_400));
        assert_eq!(o.thresholds.time, 10.0);
    }

    #[test]
    fn an_attributes_own_settings_beyond_the_limits_name_the_function() {
        let ok = Settings {
            sample_count: Some(1_000_000),
            measurement: Some(Duration::from_secs(86_400)),
            ..Settings::NONE
        };
        assert_eq!(check_settings("m::f", &ok), Ok(()));
        let many = Settings {
            sample_count: Some(u64::MAX),
            ..Settings::NONE
        };
        assert_eq!(
            check_settings("m::f", &many).unwrap_err(),
            "`m::f`: sample_count takes a whole number from 1 to 1,000,000, not 18446744073709551615"
        );
        let long = Settings {
            warm_up: Some(Duration::from_secs(86_401)),
            ..Settings::NONE
        };
        assert_eq!(
            check_settings("m::f", &long).unwrap_err(),
            "`m::f`: warm_up_time takes seconds from 0 to 86400, not 86401"
        );
    }

    #[test]
    fn a_wrong_variable_is_an_error_unless_its_flag_is_given_then_a_warning() {
        let env = [("PERFBENCH_SAMPLE_COUNT", "lots")];
        let e = parse_with(&[], &env).unwrap_err();
        assert_eq!(
            e,
            "PERFBENCH_SAMPLE_COUNT: --sample-count takes a whole number from 1 to 1,000,000, not `lots`"
        );
        // Given on the command line (in any spelling), the flag wins.
        for args in [&["--sample-count", "7"][..], &["--sample-size=7"]] {
            let o = parse_with(args, &env).unwrap();
            assert_eq!(o.config.sample_count, 7);
            assert_eq!(
                o.warnings,
                [format!("{e} (ignored: --sample-count is given)")]
            );
        }
        let e = parse_with(&[], &[("PERFBENCH_NO_PIN", "maybe")]).unwrap_err();
        assert_eq!(e, "PERFBENCH_NO_PIN: a switch takes 1 or 0, not `maybe`");
        let o = parse_with(&["--no-pin"], &[("PERFBENCH_NO_PIN", "maybe")]).unwrap();
        assert!(o.no_pin);
        assert_eq!(o.warnings.len(), 1);
        assert!(parse_with(&[], &[]).unwrap().warnings.is_empty());
    }

    #[test]
    fn wrong_events_in_the_environment_are_an_error_naming_the_variable() {
        let env = [("PERFBENCH_EVENTS", "junk")];
        let e = parse_with(&["--list"], &env).unwrap_err();
        assert!(
            e.starts_with("PERFBENCH_EVENTS: --events: event `junk`"),
            "{e}"
        );
        assert!(!e.contains('\n'), "{e}");
        let o = parse_with(&["--events", "page-faults"], &env).unwrap();
        assert_eq!(o.events.as_deref(), Some("page-faults"));
        assert_eq!(o.warnings.len(), 1, "{:?}", o.warnings);
        let e = parse_with(&["--events", "cyclez"], &[]).unwrap_err();
        assert!(e.starts_with("--events: event `cyclez`"), "{e}");
    }

    #[test]
    fn unknown_perfbench_variables_are_warned_with_the_nearest_known_one() {
        let names = [
            "PERFBENCH_SAMPEL_COUNT",
            "PERFBENCH_SAMPLE_COUNT",
            "PERFBENCH_HOME",
            "PERFBENCH_WRITE_GOLDEN",
            "PERFBENCH_FROBNICATE_EVERYTHING",
            "PERFBENCH_A\nB",
            "NO_COLOR",
            "HOME",
        ];
        assert_eq!(
            unknown_variables(&names),
            [
                "unknown variable `PERFBENCH_SAMPEL_COUNT` is ignored (did you mean `PERFBENCH_SAMPLE_COUNT`?)",
                "unknown variable `PERFBENCH_FROBNICATE_EVERYTHING` is ignored (`--help` lists the options; each has a PERFBENCH_ twin)",
                "unknown variable `PERFBENCH_A\\nB` is ignored (`--help` lists the options; each has a PERFBENCH_ twin)",
            ]
        );
    }

    #[test]
    fn a_close_typo_is_suggested_and_a_far_off_name_is_not() {
        let e = parse_with(&["--sampel-count", "5"], &[]).unwrap_err();
        assert_eq!(
            e,
            "unknown option `--sampel-count` (did you mean `--sample-count`?)"
        );
        let e = parse_with(&["--warmup-time=1"], &[]).unwrap_err();
        assert_eq!(
            e,
            "unknown option `--warmup-time` (did you mean `--warm-up-time`?)"
        );
        // Aliases are suggested too.
        let e = parse_with(&["--sample-sise"], &[]).unwrap_err();
        assert!(e.ends_with("(did you mean `--sample-size`?)"), "{e}");
        for far in ["--frobnicate", "--fast", "--xy"] {
            let e = parse_with(&[far], &[]).unwrap_err();
            assert_eq!(e, format!("unknown option `{far}` (see --help)"));
        }
    }

    #[test]
    fn criterion_and_libtest_options_we_lack_say_what_to_use_instead() {
        for (args, hint) in [
            (
                &["--nresamples", "5000"][..],
                "(Criterion's; the bootstrap always takes 1000 resamples, seeded)",
            ),
            (
                &["--load-baseline", "main"],
                "compare with a stored run with --baseline NAME)",
            ),
            (
                &["--baseline-lenient", "main"],
                "--baseline NAME is lenient already",
            ),
            (
                &["--logfile", "out.txt"],
                "(libtest's; redirect stdout instead",
            ),
            (
                &["-s", "main"],
                "(Criterion's; here it is `--save-baseline`)",
            ),
            (
                &["-v"],
                "(Criterion's; the table always shows intervals and changes",
            ),
        ] {
            let e = parse_with(args, &[]).unwrap_err();
            assert!(
                e.starts_with(&format!("unknown option `{}` (", args[0])),
                "{e}"
            );
            assert!(e.contains(hint), "{args:?}: {e}");
            assert!(!e.contains('\n'), "{e}");
        }
    }

    #[test]
    fn sample_size_is_criterion_s_spelling_of_sample_count() {
        let size = parse_with(&["--sample-size", "12"], &[]).unwrap();
        let count = parse_with(&["--sample-count", "12"], &[]).unwrap();
        assert_eq!(size, count);
        assert_eq!(size.config.sample_count, 12);
        assert_eq!(
            parse_with(&["--sample-size=7", "--quick"], &[])
                .unwrap()
                .config
                .sample_count,
            7
        );
        // An error names the spelling used and the flag it stands for.
        assert_eq!(
            parse_with(&["--sample-size", "0"], &[]).unwrap_err(),
            "--sample-size: --sample-count takes a whole number from 1 to 1,000,000, not `0`"
        );
        let help = usage();
        let line = help
            .lines()
            .find(|l| l.contains("--sample-count N"))
            .unwrap();
        assert!(
            line.ends_with("(default 50); also --sample-size (Criterion's)"),
            "{line}"
        );
    }

    #[test]
    fn profile_time_profiles_when_measuring_and_takes_seconds_above_zero() {
        let o = parse_with(&["--bench", "--profile-time", "0.2"], &[]).unwrap();
        assert_eq!(o.mode, RunMode::Profile(Duration::from_millis(200)));
        let o = parse_with(&["--bench", "--profile-time=5"], &[]).unwrap();
        assert_eq!(o.mode, RunMode::Profile(Duration::from_secs(5)));
        // Test mode wins, as in Criterion.
        let o = parse_with(&["--profile-time", "1"], &[]).unwrap();
        assert_eq!(o.mode, RunMode::Test);
        let o = parse_with(&["--bench"], &[("PERFBENCH_PROFILE_TIME", "250ms")]).unwrap();
        assert_eq!(o.mode, RunMode::Profile(Duration::from_millis(250)));
        for bad in ["0", "0ms", "-1", "soon", "inf", "NaN", "1e10", ""] {
            let e = parse_with(&["--bench", "--profile-time", bad], &[]).unwrap_err();
            assert_eq!(
                e,
                format!(
                    "--profile-time takes seconds above 0, up to 86400 (e.g. 5 or 500ms), not `{bad}`"
                )
            );
        }
        let e = parse_with(&["--bench", "--profile-time"], &[]).unwrap_err();
        assert!(e.contains("--profile-time"), "{e}");
    }

    #[test]
    fn a_hostile_baseline_name_is_quoted_escaped_and_cut() {
        for flag in ["--baseline", "--save-baseline"] {
            let e = parse_with(&[flag, "a\nb\r\x1b]0;x\x07\u{202e}"], &[]).unwrap_err();
            assert!(
                e.starts_with("baseline name `a\\nb\\r\\u{1b}]0;x\\u{7}\\u{202e}`: use "),
                "{e}"
            );
            let long = "n".repeat(10_000);
            let e = parse_with(&[flag, &long], &[]).unwrap_err();
            let cut = format!(
                "baseline name `{}… (9,800 more characters)`: ",
                "n".repeat(200)
            );
            assert!(e.starts_with(&cut), "{e}");
            assert!(e.ends_with("at most 64"), "{e}");
        }
        let env = [("PERFBENCH_BASELINE", "x\u{2066}\x1b[2K")];
        let e = parse_with(&[], &env).unwrap_err();
        assert!(
            e.starts_with("PERFBENCH_BASELINE: baseline name `x\\u{2066}\\u{1b}[2K`"),
            "{e}"
        );
    }

    #[test]
    fn values_and_unknown_options_are_quoted_escaped_and_cut() {
        let long = "9".repeat(10_000);
        let cut = format!("not `{}… (9,800 more characters)`", "9".repeat(200));
        let e = parse_with(&["--sample-count", &long], &[]).unwrap_err();
        assert!(e.ends_with(&cut), "{e}");
        for (args, needle) in [
            (&["--sample-count", "\x1b[2K"][..], "not `\\u{1b}[2K`"),
            (
                &["--color", "\x1b]52;c;ZXZpbA==\x07"],
                "not `\\u{1b}]52;c;ZXZpbA==\\u{7}`",
            ),
            (&["--no\rpe\u{202e}"], "`--no\\rpe\\u{202e}`"),
            (&["-\x1b"], "`-\\u{1b}`"),
        ] {
            let e = parse_with(args, &[]).unwrap_err();
            assert!(e.contains(needle), "{e}");
            assert!(!e.contains(['\x1b', '\r', '\u{202e}']), "{e}");
        }
        let env = [("PERFBENCH_MEASUREMENT_TIME", "1\x1b")];
        let e = parse_with(&[], &env).unwrap_err();
        assert!(e.starts_with("PERFBENCH_MEASUREMENT_TIME: "), "{e}");
        assert!(e.ends_with("not `1\\u{1b}`"), "{e}");
    }

    #[test]
    fn baselines_and_the_regression_gate() {
        let o = parse_with(
            &[
                "--save-baseline",
                "main",
                "--baseline=v1",
                "--fail-on-regression",
            ],
            &[],
        )
        .unwrap();
        assert_eq!(o.save_baseline.as_deref(), Some("main"));
        assert_eq!(o.baseline.as_deref(), Some("v1"));
        assert_eq!(o.fail_on_regression, Some(None));
        let o = parse_with(
            &["--fail-on-regression=5", "--noise-threshold", "2.5%"],
            &[],
        )
        .unwrap();
        assert_eq!(o.fail_on_regression, Some(Some(0.05)));
        assert_eq!(o.thresholds.time, 0.025);
        // The value is optional: a following word is a filter, not a percentage.
        let o = parse_with(&["--fail-on-regression", "touch"], &[]).unwrap();
        assert_eq!(
            (o.fail_on_regression, o.filters),
            (Some(None), vec!["touch".to_string()])
        );
        let o = parse_with(&[], &[("PERFBENCH_FAIL_ON_REGRESSION", "true")]).unwrap();
        assert_eq!(o.fail_on_regression, Some(None));
        let o = parse_with(&[], &[("PERFBENCH_FAIL_ON_REGRESSION", "7%")]).unwrap();
        assert_eq!(o.fail_on_regression, Some(Some(0.07)));
        let o = parse_with(&[], &[("PERFBENCH_FAIL_ON_REGRESSION", "0")]).unwrap();
        assert_eq!(o.fail_on_regression, None);
        assert!(parse_with(&["--baseline", "../etc"], &[])
            .unwrap_err()
            .contains("baseline name `../etc`"));
        assert!(parse_with(&["--fail-on-regression=lots"], &[])
            .unwrap_err()
            .contains("not `lots`"));
    }

    #[test]
    fn measurement_modes() {
        assert!(!parse_with(&[], &[]).unwrap().per_iter);
        assert!(parse_with(&["--mode", "per-iter"], &[]).unwrap().per_iter);
        assert!(
            parse_with(&[], &[("PERFBENCH_MODE", "per-iter")])
                .unwrap()
                .per_iter
        );
        assert!(
            !parse_with(&["--mode=batch"], &[("PERFBENCH_MODE", "per-iter")])
                .unwrap()
                .per_iter
        );
        assert!(parse_with(&["--mode", "sometimes"], &[])
            .unwrap_err()
            .contains("batch | per-iter, not `sometimes`"));
        assert!(
            parse_with(&["--subtract-overhead"], &[])
                .unwrap()
                .subtract_overhead
        );
    }

    #[test]
    fn libtest_flags_from_cargo_test_are_accepted() {
        let o = parse_with(
            &[
                "--test-threads",
                "1",
                "--nocapture",
                "-q",
                "--list",
                "--format",
                "terse",
            ],
            &[],
        )
        .unwrap();
        assert!(o.list && o.terse);
    }
}
