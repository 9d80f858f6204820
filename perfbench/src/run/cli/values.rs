//! The values flags take, and their limits: each parser turns the text of
//! the command line or of an environment twin into a typed value, or into a
//! [`UsageError`] naming the flag (`what`) and holding the text.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::usage_error::{Expected, SettingError, Unwritable, UsageError};
use super::{EventsAsked, OutputFormat, ProfileEvent};

use crate::counter::event::parse_list;
use crate::output::destination;
use crate::run::registry::Settings;
use crate::store::check_baseline_name;

/// The most samples a benchmark may take: the most a stored run may hold
/// (more would not fit in memory on a small machine, and no statistic
/// needs them), so that every run perfbench stores reads back.
pub const MAX_SAMPLE_COUNT: u64 = crate::store::json::MAX_SAMPLES as u64;

/// The most rounds a run may take (each round keeps at least 5 samples).
pub const MAX_ROUNDS: u64 = 10_000;

/// The longest time any time option takes: a day, in seconds.
pub const MAX_SECONDS: u64 = 86_400;

/// The largest percentage a threshold takes.
pub const MAX_PERCENT: f64 = 1_000.0;

/// The error of `what`, which takes `expected`, given `v`.
fn wrong(what: &str, expected: Expected, v: &str) -> UsageError {
    UsageError::Value {
        flag: what.into(),
        expected,
        value: v.into(),
    }
}

/// Any whole number (`--cpu`, libtest's `--test-threads`).
pub(super) fn number(v: &str, what: &str) -> Result<usize, UsageError> {
    v.trim()
        .parse()
        .map_err(|_| wrong(what, Expected::Number, v))
}

/// A whole number from 1 to `max`.
pub(super) fn whole(v: &str, what: &str, max: u64) -> Result<u64, UsageError> {
    match v.trim().parse::<u64>() {
        Ok(n) if (1..=max).contains(&n) => Ok(n),
        _ => Err(wrong(what, Expected::Whole(max), v)),
    }
}

/// Seconds as a decimal number, or with an `s` or `ms` suffix, at most a
/// day.
pub(super) fn seconds(v: &str, what: &str) -> Result<Duration, UsageError> {
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
        _ => Err(wrong(what, Expected::Seconds, v)),
    }
}

/// [`seconds`], above zero.
pub(super) fn positive_seconds(v: &str, what: &str) -> Result<Duration, UsageError> {
    match seconds(v, what) {
        Ok(d) if !d.is_zero() => Ok(d),
        _ => Err(wrong(what, Expected::PositiveSeconds, v)),
    }
}

/// A percentage (`5`, `2.5`, `5%`) as a fraction.
pub(super) fn percent(v: &str, what: &str) -> Result<f64, UsageError> {
    match v.trim().trim_end_matches('%').parse::<f64>() {
        Ok(p) if p.is_finite() && (0.0..=MAX_PERCENT).contains(&p) => Ok(p / 100.0),
        _ => Err(wrong(what, Expected::Percent, v)),
    }
}

/// Criterion's `--noise-threshold`: a fraction (`0.05` is 5 %), or, with
/// `%`, a percentage as perfbench's; as a fraction.
pub(super) fn fraction_or_percent(v: &str, what: &str) -> Result<f64, UsageError> {
    if v.trim().ends_with('%') {
        return percent(v, what);
    }
    match v.trim().parse::<f64>() {
        Ok(f) if f.is_finite() && (0.0..=MAX_PERCENT / 100.0).contains(&f) => Ok(f),
        _ => Err(wrong(what, Expected::FractionOrPercent, v)),
    }
}

/// Criterion's `--confidence-level` and `--significance-level`: strictly
/// between 0 and 1.
pub(super) fn level(v: &str, what: &str) -> Result<f64, UsageError> {
    match v.trim().parse::<f64>() {
        Ok(l) if l > 0.0 && l < 1.0 => Ok(l),
        _ => Err(wrong(what, Expected::Level, v)),
    }
}

/// A baseline name [`check_baseline_name`] accepts.
pub(super) fn baseline_name(v: &str) -> Result<String, UsageError> {
    check_baseline_name(v).map_err(UsageError::BaselineName)?;
    Ok(v.into())
}

/// `--paired-with`'s path: not empty.
pub(super) fn paired_path(v: &str, what: &str) -> Result<std::path::PathBuf, UsageError> {
    if v.is_empty() {
        return Err(wrong(what, Expected::BinaryPath, v));
    }
    Ok(v.into())
}

/// `--paired-with-rev`'s git revision: not empty, not starting with `-`
/// (which git would read as an option), and printable.
pub(super) fn revision(v: &str, what: &str) -> Result<String, UsageError> {
    let fits = !v.is_empty()
        && !v.starts_with('-')
        && v.len() <= 256
        && !v.chars().any(|c| c.is_control() || c.is_whitespace());
    if !fits {
        return Err(wrong(what, Expected::Revision, v));
    }
    Ok(v.into())
}

/// `--events`, checked now, so that a wrong spelling is an error naming
/// where it came from even in a run that measures nothing.
pub(super) fn events(v: &str) -> Result<EventsAsked, UsageError> {
    let events = parse_list(v).map_err(UsageError::Events)?;
    Ok(EventsAsked {
        spec: v.into(),
        events,
    })
}

/// The one event `--profile=EVENT` samples.
pub(super) fn profile_event(v: &str, what: &str) -> Result<ProfileEvent, UsageError> {
    match v {
        "" => return Ok(ProfileEvent::Default),
        "regressed" => return Ok(ProfileEvent::Regressed),
        _ => {}
    }
    let events = parse_list(v).map_err(UsageError::ProfileEvent)?;
    match events.len() {
        1 => Ok(ProfileEvent::Given(EventsAsked {
            spec: v.into(),
            events,
        })),
        _ => Err(wrong(what, Expected::OneEvent, v)),
    }
}

/// The position of `v` among `choices`.
pub(super) fn one_of(v: &str, what: &str, choices: &[&'static str]) -> Result<usize, UsageError> {
    choices
        .iter()
        .position(|c| *c == v)
        .ok_or_else(|| wrong(what, Expected::OneOf(choices.to_vec()), v))
}

/// Every output format by its name, in the order `--help` gives them.
const FORMATS: [(&str, OutputFormat); 6] = [
    ("pretty", OutputFormat::Pretty),
    ("json", OutputFormat::Json),
    ("bencher", OutputFormat::Bencher),
    ("bmf", OutputFormat::Bmf),
    ("github-action-benchmark", OutputFormat::ActionSmaller),
    ("github-action-benchmark-bigger", OutputFormat::ActionBigger),
];

/// An output format by its name.
pub(super) fn output_format(v: &str, what: &str) -> Result<OutputFormat, UsageError> {
    let names = FORMATS.map(|(name, _)| name);
    Ok(FORMATS[one_of(v, what, &names)?].1)
}

/// `--output-file`'s comma list of `FORMAT=PATH`, each path one a file can
/// be written at now, checked before anything is measured.
pub(super) fn output_files(
    v: &str,
    what: &str,
) -> Result<Vec<(OutputFormat, PathBuf)>, UsageError> {
    v.split(',').map(|one| output_file(one, what)).collect()
}

/// One `FORMAT=PATH`.
fn output_file(v: &str, what: &str) -> Result<(OutputFormat, PathBuf), UsageError> {
    let Some((format, path)) = v.split_once('=') else {
        return Err(wrong(what, Expected::FormatAndPath, v));
    };
    let format = output_format(format, what)?;
    match unwritable(Path::new(path)) {
        Some(why) => Err(UsageError::Unwritable {
            flag: what.into(),
            path: path.into(),
            why,
        }),
        None => Ok((format, path.into())),
    }
}

/// Why no file can be written at `path`: none given, a folder there,
/// something else that is not a regular file (a link, a FIFO, a socket, a
/// device: [`destination::refusal`]), or no folder to hold it.
fn unwritable(path: &Path) -> Option<Unwritable> {
    if path.as_os_str().is_empty() {
        return Some(Unwritable::NoPath);
    }
    if path.is_dir() || path.as_os_str().to_string_lossy().ends_with('/') {
        return Some(Unwritable::Folder);
    }
    if let Some(why) = destination::refusal(path) {
        return Some(Unwritable::NotAFile(why));
    }
    let folder = path.parent().filter(|f| !f.as_os_str().is_empty());
    let folder = folder.unwrap_or(Path::new("."));
    (!folder.is_dir()).then(|| Unwritable::NoFolder(folder.to_string_lossy().into_owned()))
}

/// Whether the `--output-file` paths `a` and `b` name one file: one name
/// in one folder, the folders compared as the system knows them (device
/// and inode), so that `o.json`, `./o.json`, `sub/../o.json` and a path
/// through a link to the folder are one, where a comparison of the text
/// would let one format silently replace the other's file. Both folders
/// exist ([`unwritable`] checked).
pub(super) fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    let key = |p: &Path| {
        let folder = p.parent().filter(|f| !f.as_os_str().is_empty());
        let meta = std::fs::metadata(folder.unwrap_or(Path::new("."))).ok()?;
        Some((meta.dev(), meta.ino(), p.file_name()?.to_owned()))
    };
    a == b || key(a).is_some_and(|k| Some(k) == key(b))
}

/// The error for `path`, one file with `given` earlier in the list:
/// named once where both are spelled alike, else both spellings.
pub(super) fn given_twice(what: &str, given: &Path, path: &Path) -> UsageError {
    UsageError::GivenTwice {
        flag: what.into(),
        given: given.to_string_lossy().into_owned(),
        path: path.to_string_lossy().into_owned(),
    }
}

/// A switch's value in the environment: 1 or 0 (also true/false, yes/no,
/// on/off).
pub(super) fn boolean(v: &str) -> Result<bool, UsageError> {
    match v.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" | "" => Ok(false),
        _ => Err(UsageError::Switch(v.into())),
    }
}

/// A value of the command line as text, or an error naming what it is for.
pub(super) fn string(v: OsString, what: &str) -> Result<String, UsageError> {
    v.into_string().map_err(|v| UsageError::NotUtf8 {
        what: what.into(),
        value: v.to_string_lossy().into_owned(),
    })
}

/// A duration as `--help` writes a default: seconds, `0.15`.
pub(super) fn seconds_text(d: Duration) -> String {
    d.as_secs_f64().to_string()
}

/// A fraction as `--help` writes a default percentage: `0.03` is `3`.
pub(super) fn percent_text(fraction: f64) -> String {
    // Rounded to a millionth of a percent, so that the product's last bit
    // (0.07 × 100 is 7.000000000000001) does not show.
    ((fraction * 100.0 * 1e6).round() / 1e6).to_string()
}

/// The limits of a benchmark's own settings (its attribute's values the
/// macro could not check), as the command line's: an error naming the
/// function `path` and the key.
pub fn check_settings(path: &str, s: &Settings) -> Result<(), SettingError> {
    if let Some(count) = s
        .sample_count
        .filter(|n| !(1..=MAX_SAMPLE_COUNT).contains(n))
    {
        return Err(SettingError::SampleCount {
            function: path.into(),
            count,
            max: MAX_SAMPLE_COUNT,
        });
    }
    for (key, time) in [
        ("warm_up_time", s.warm_up),
        ("measurement_time", s.measurement),
    ] {
        if let Some(t) = time.filter(|t| t.as_secs_f64() > MAX_SECONDS as f64) {
            return Err(SettingError::Time {
                function: path.into(),
                key,
                seconds: t.as_secs_f64(),
            });
        }
    }
    Ok(())
}
