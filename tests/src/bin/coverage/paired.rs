//! `coverage --paired [--work PCT | --works PCT,PCT…] [--ordinary-every K]
//! [--minutes M] RUNS [BENCH ARGS…]`: how well a paired run
//! (`--paired-with`) catches a change, and what it costs (issue 25's
//! figures; a benchmark to quote, not a test).
//!
//! Builds the gate suite (`benches/gate.rs`) once, copies the binary to
//! `base` and `new` in a scratch folder, with `base.work` holding 100 and
//! `new.work` each PCT in turn: one build, two paths, different work (the
//! suite reads its work from that file, since a paired run gives both
//! sides the same environment). Then runs `new --bench [BENCH ARGS…]
//! --paired-with base --output-format json --fail-on-regression` RUNS
//! times for each PCT (the PCTs taking turns, so that a slow spell of the
//! machine falls on all of them), and every K-th time (default 4) an
//! ordinary run, `new --bench [BENCH ARGS…]`, for the cost. `--minutes M`
//! starts no new turn after M minutes, for a sweep that must end in time.
//!
//! Prints one table, a column per PCT: the runs the gate failed, per
//! benchmark's metric the runs that found it `regressed` (PCT 100: false
//! alarms; above: catches), the median run times, paired and ordinary, and
//! their ratio; with more than one PCT above 100, the smallest each
//! benchmark's metric was caught in at least 95 % of the runs.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::tally::{self, Outcome, Tally};

/// What to run.
struct Plan {
    /// `new`'s work percentages, 100 being A/A.
    works: Vec<u32>,
    runs: usize,
    /// An ordinary run after every this many paired runs of a work.
    every: usize,
    /// Start no new turn after this long.
    limit: Option<Duration>,
    /// Arguments for the bench binary (a filter, `--rounds`, …).
    extra: Vec<String>,
}

const USAGE: &str = "usage: coverage --paired [--work PCT | --works PCT,PCT…] \
    [--ordinary-every K] [--minutes M] RUNS [BENCH ARGS…]";

fn parse(mut args: Vec<String>) -> Result<Plan, String> {
    let mut plan = Plan {
        works: vec![100],
        runs: 0,
        every: 4,
        limit: None,
        extra: Vec::new(),
    };
    while let Some(flag) = args.first().filter(|a| a.starts_with("--")).cloned() {
        args.remove(0);
        let value = if args.is_empty() {
            None
        } else {
            Some(args.remove(0))
        };
        let value = value.ok_or_else(|| format!("{flag} wants a value"))?;
        let bad = || format!("{flag}: `{value}` is not what it takes");
        match flag.as_str() {
            "--work" | "--works" => {
                plan.works = value
                    .split(',')
                    .map(|w| w.trim().parse().ok().filter(|w| (1..=10_000).contains(w)))
                    .collect::<Option<_>>()
                    .ok_or_else(bad)?;
            }
            "--ordinary-every" => {
                plan.every = value.parse().ok().filter(|k| *k > 0).ok_or_else(bad)?
            }
            "--minutes" => {
                let m: f64 = value
                    .parse()
                    .ok()
                    .filter(|m: &f64| m.is_finite() && *m > 0.0)
                    .ok_or_else(bad)?;
                plan.limit = Some(Duration::from_secs_f64(m * 60.0));
            }
            _ => return Err(format!("unknown option `{flag}`")),
        }
    }
    let runs = args.first().ok_or("RUNS is missing")?;
    plan.runs = runs
        .parse()
        .ok()
        .filter(|r| *r > 0)
        .ok_or_else(|| format!("RUNS: `{runs}` is not a positive whole number"))?;
    plan.extra = args[1..].to_vec();
    Ok(plan)
}

/// The `--paired` mode, given the arguments after `--paired`.
pub fn main(args: Vec<String>) {
    let plan = parse(args).unwrap_or_else(|e| fail(&format!("{e}\n{USAGE}")));
    let exe = build().unwrap_or_else(|e| fail(&e));
    let scratch = std::env::temp_dir().join(format!("perfbench-paired-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    let sides = Sides::copy(&exe, &scratch).unwrap_or_else(|e| fail(&e));
    let tallies = measure(&plan, &sides);
    let _ = std::fs::remove_dir_all(&scratch);
    let columns: Vec<(String, &Tally)> = plan
        .works
        .iter()
        .zip(&tallies)
        .map(|(w, t)| (format!("paired, work {w}"), t))
        .collect();
    print!("{}", tally::table(&columns));
    print!("{}", tally::notes(&columns));
    print!("{}", smallest_caught(&plan.works, &tallies));
}

/// Ends the program with one line (or the usage after it).
fn fail(message: &str) -> ! {
    eprintln!("coverage: {message}");
    std::process::exit(2);
}

/// Builds the gate suite and returns its executable, named by cargo's
/// `compiler-artifact` message.
fn build() -> Result<PathBuf, String> {
    let out = Command::new("cargo")
        .args([
            "bench",
            "-p",
            "perfbench-tests",
            "--bench",
            "gate",
            "--no-run",
            "--message-format=json",
        ])
        .stderr(std::process::Stdio::inherit())
        .output()
        .map_err(|e| format!("cargo: {e}"))?;
    if !out.status.success() {
        return Err(format!("building the gate suite failed ({})", out.status));
    }
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == "gate")
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
        .ok_or_else(|| "cargo named no executable of the gate suite".to_string())
}

/// The two copies of the suite and the stores of the runs.
struct Sides {
    base: PathBuf,
    new: PathBuf,
    /// The paired runs' store, and the ordinary runs'.
    home: PathBuf,
    ordinary_home: PathBuf,
}

impl Sides {
    /// Copies `exe` to `base` and `new` under `scratch`, `base` doing the
    /// usual work.
    fn copy(exe: &Path, scratch: &Path) -> Result<Sides, String> {
        let sides = Sides {
            base: scratch.join("base"),
            new: scratch.join("new"),
            home: scratch.join("home"),
            ordinary_home: scratch.join("ordinary-home"),
        };
        std::fs::create_dir_all(scratch).map_err(at(scratch))?;
        for copy in [&sides.base, &sides.new] {
            std::fs::copy(exe, copy).map_err(at(copy))?;
        }
        sides.set_work(&sides.base, 100)?;
        Ok(sides)
    }

    /// Writes `work` beside `binary` (`<binary>.work`).
    fn set_work(&self, binary: &Path, work: u32) -> Result<(), String> {
        let mut name = binary.as_os_str().to_owned();
        name.push(".work");
        std::fs::write(&name, format!("{work}\n"))
            .map_err(|e| format!("{}: {e}", name.to_string_lossy()))
    }
}

/// An I/O error as one line naming the path.
fn at(path: &Path) -> impl Fn(std::io::Error) -> String + '_ {
    move |e| format!("{}: {e}", path.display())
}

/// The runs of every work, taking turns; a tally per work.
fn measure(plan: &Plan, sides: &Sides) -> Vec<Tally> {
    let mut tallies: Vec<Tally> = plan.works.iter().map(|_| Tally::default()).collect();
    let start = Instant::now();
    for k in 0..plan.runs {
        if plan.limit.is_some_and(|limit| start.elapsed() > limit) {
            eprintln!(
                "coverage: --minutes reached: {k} of {} runs per work",
                plan.runs
            );
            break;
        }
        for (&work, tally) in plan.works.iter().zip(&mut tallies) {
            sides
                .set_work(&sides.new, work)
                .unwrap_or_else(|e| fail(&e));
            let outcome = run_paired(plan, sides);
            eprintln!(
                "work {work} run {}: exit {:?}, {:.1} s; wall time %: {}; regressed: {}",
                k + 1,
                outcome.code,
                outcome.took.as_secs_f64(),
                outcome.wall_changes.join(", "),
                outcome.regressed().join(" ")
            );
            tally.add(&outcome, true);
            if k % plan.every == 0 {
                tally.ordinary.push(run_ordinary(plan, sides));
            }
        }
    }
    tallies
}

/// One paired run: `new` the candidate, `base` the baseline.
fn run_paired(plan: &Plan, sides: &Sides) -> Outcome {
    let start = Instant::now();
    let out = Command::new(&sides.new)
        .arg("--bench")
        .args(&plan.extra)
        .arg("--paired-with")
        .arg(&sides.base)
        .args(["--output-format", "json", "--fail-on-regression"])
        .env("PERFBENCH_HOME", &sides.home)
        .output()
        .unwrap_or_else(|e| fail(&format!("{}: {e}", sides.new.display())));
    tally::read(&out, start.elapsed()).1
}

/// One ordinary run of `new` at the same settings: how long it took.
fn run_ordinary(plan: &Plan, sides: &Sides) -> Duration {
    let start = Instant::now();
    let status = Command::new(&sides.new)
        .arg("--bench")
        .args(&plan.extra)
        .env("PERFBENCH_HOME", &sides.ordinary_home)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status();
    let took = start.elapsed();
    if !status.as_ref().is_ok_and(|s| s.success()) {
        eprintln!("coverage: an ordinary run failed ({status:?})");
    }
    took
}

/// Per benchmark's metric, the smallest work above 100 whose runs found it
/// regressed at least 95 % of the time (19 of 20), where more than one
/// such work was run.
fn smallest_caught(works: &[u32], tallies: &[Tally]) -> String {
    let mut above: Vec<(u32, &Tally)> = works
        .iter()
        .copied()
        .zip(tallies)
        .filter(|(w, _)| *w > 100)
        .collect();
    if above.len() < 2 {
        return String::new();
    }
    above.sort_by_key(|(w, _)| *w);
    let keys = tally::shown_keys(above.iter().map(|(_, t)| *t));
    let mut out = String::from("smallest work caught in at least 95 % of runs:\n");
    for key in keys {
        let caught = above.iter().find(|(_, t)| {
            let (regressed, judged) = t.regressed(key);
            judged > 0 && 20 * regressed >= 19 * judged
        });
        let said = caught.map_or("none of these".to_string(), |(w, _)| {
            format!("{w} (+{} %)", w - 100)
        });
        out += &format!("  {} {}: {said}\n", key.0, key.1);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn the_options_are_read_and_the_rest_goes_to_the_bench() {
        let plan = parse(args(
            "--works 101,105 --minutes 0.5 --ordinary-every 3 20 --rounds 4",
        ))
        .unwrap();
        assert_eq!(plan.works, [101, 105]);
        assert_eq!((plan.runs, plan.every), (20, 3));
        assert_eq!(plan.limit, Some(Duration::from_secs(30)));
        assert_eq!(plan.extra, ["--rounds", "4"]);
        assert_eq!(parse(args("--work 125 1")).unwrap().works, [125]);
    }

    #[test]
    fn bad_options_are_named() {
        let said = |s| parse(args(s)).err().unwrap();
        assert_eq!(
            said("--works 105,0 20"),
            "--works: `105,0` is not what it takes"
        );
        assert_eq!(
            said("--minutes -1 20"),
            "--minutes: `-1` is not what it takes"
        );
        assert_eq!(said("--works"), "--works wants a value");
        assert_eq!(said("--fast 1 20"), "unknown option `--fast`");
        assert_eq!(
            said("twenty"),
            "RUNS: `twenty` is not a positive whole number"
        );
        assert_eq!(said(""), "RUNS is missing");
    }

    /// A tally whose runs found arithmetic's wall time regressed in
    /// `regressed` of `runs`.
    fn tally(regressed: usize, runs: usize) -> Tally {
        let key = ("arithmetic".to_string(), "wall-time".to_string());
        let mut tally = Tally {
            runs,
            ..Tally::default()
        };
        tally.judged.insert(key, [runs, regressed, 0]);
        tally
    }

    #[test]
    fn the_smallest_work_caught_19_of_20_is_named() {
        let tallies = [tally(0, 20), tally(18, 20), tally(19, 20), tally(20, 20)];
        let said = smallest_caught(&[100, 105, 110, 125], &tallies);
        assert_eq!(
            said.lines().nth(1),
            Some("  arithmetic wall-time: 110 (+10 %)")
        );
        let said = smallest_caught(&[101, 102], &[tally(1, 20), tally(18, 20)]);
        assert!(said.contains("wall-time: none of these"), "{said}");
        assert_eq!(smallest_caught(&[100, 125], &tallies[..2]), "");
    }
}
