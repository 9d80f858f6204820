//! `agreement-table PERFBENCH_JSON CRITERION_DIR ORACLE`: per routine, the
//! oracle's ns per iteration (the plain loop under `perf stat`: lines
//! `NAME MEDIAN MIN MAX`; the file may be empty), perfbench's figure and
//! 95 % interval (from its JSON lines), Criterion's (from
//! `CRITERION_DIR/GROUP/NAME/new/estimates.json`: the slope, or the mean
//! where Criterion sampled flat), each harness's ratio to the oracle and
//! perfbench's to Criterion's, in two tables: wall time (perfbench's
//! `wall-time`, Criterion's group `wall-time`) and CPU time (perfbench's
//! `task-clock`, Criterion's group `cpu-time`). The oracle is task-clock
//! in both: on a quiet machine wall time is the same.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::process::ExitCode;

use serde_json::Value;

/// An estimate in ns with its 95 % interval.
type Estimate = (f64, f64, f64);

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [ours, criterion, plain] = args.as_slice() else {
        eprintln!("usage: agreement-table PERFBENCH_JSON CRITERION_DIR ORACLE");
        return ExitCode::from(2);
    };
    match tables(ours, Path::new(criterion), plain) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("agreement-table: {e}");
            ExitCode::from(2)
        }
    }
}

fn tables(ours: &str, criterion: &Path, oracle: &str) -> Result<(), String> {
    let oracle = oracle_lines(oracle)?;
    let lines = perfbench_lines(ours)?;
    for (metric, group) in [("wall-time", "wall-time"), ("task-clock", "cpu-time")] {
        println!(
            "{:<20} {:>24} {:>26} {:>26} {:>5} {:>5} {:>5}",
            format!("{metric} (ns)"),
            "oracle [min, max]",
            "perfbench [95% CI]",
            format!("Criterion {group} [95% CI]"),
            "p/o",
            "c/o",
            "p/c",
        );
        for (name, line) in &lines {
            let p =
                perfbench_estimate(line, metric).ok_or(format!("{ours}: {name}: no {metric}"))?;
            let c = criterion_estimate(&criterion.join(group).join(name))?;
            let (o, to_oracle) = match oracle.get(name) {
                Some(o) => (shown(o), format!("{:>5.3} {:>5.3}", p.0 / o.0, c.0 / o.0)),
                None => (String::new(), format!("{:>5} {:>5}", "", "")),
            };
            println!(
                "{name:<20} {o:>24} {:>26} {:>26} {to_oracle} {:>5.3}",
                shown(&p),
                shown(&c),
                p.0 / c.0
            );
        }
    }
    Ok(())
}

/// `12.34 [11.00, 13.00]`.
fn shown((estimate, lo, hi): &Estimate) -> String {
    format!("{estimate:.2} [{lo:.2}, {hi:.2}]")
}

/// perfbench's JSON lines, by the name after the id's last `::`.
fn perfbench_lines(path: &str) -> Result<BTreeMap<String, Value>, String> {
    let text = fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let mut found = BTreeMap::new();
    for line in text.lines().filter(|l| l.starts_with('{')) {
        let v: Value = serde_json::from_str(line).map_err(|e| format!("{path}: {e}"))?;
        if let Some(id) = v["id"].as_str() {
            let name = id.rsplit("::").next().unwrap_or(id).to_string();
            found.insert(name, v);
        }
    }
    Ok(found)
}

/// The headline of `metric` in one of perfbench's JSON lines.
fn perfbench_estimate(line: &Value, metric: &str) -> Option<Estimate> {
    let m = line["metrics"].get(metric)?;
    Some((
        m["estimate"].as_f64()?,
        m["ci"][0].as_f64()?,
        m["ci"][1].as_f64()?,
    ))
}

/// Criterion's estimate in the benchmark folder `dir`: the slope of
/// linear sampling, or the mean of flat sampling, which is what it prints
/// as `time:`.
fn criterion_estimate(dir: &Path) -> Result<Estimate, String> {
    let path = dir.join("new").join("estimates.json");
    let shown = path.display();
    let text = fs::read_to_string(&path).map_err(|e| format!("{shown}: {e}"))?;
    let v: Value = serde_json::from_str(&text).map_err(|e| format!("{shown}: {e}"))?;
    let e = if v["slope"].is_null() {
        &v["mean"]
    } else {
        &v["slope"]
    };
    let ci = &e["confidence_interval"];
    match (
        e["point_estimate"].as_f64(),
        ci["lower_bound"].as_f64(),
        ci["upper_bound"].as_f64(),
    ) {
        (Some(est), Some(lo), Some(hi)) => Ok((est, lo, hi)),
        _ => Err(format!("{shown}: an estimate without its numbers")),
    }
}

/// `NAME MEDIAN MIN MAX` lines: the oracle's ns per iteration.
fn oracle_lines(path: &str) -> Result<BTreeMap<String, Estimate>, String> {
    let text = fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let mut found = BTreeMap::new();
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        let [name, median, min, max] = words.as_slice() else {
            return Err(format!("{path}: `{line}` is not NAME MEDIAN MIN MAX"));
        };
        let number = |s: &str| {
            s.parse()
                .map_err(|_| format!("{path}: `{s}` is not a number"))
        };
        found.insert(
            name.to_string(),
            (number(median)?, number(min)?, number(max)?),
        );
    }
    Ok(found)
}
