//! `agreement-table PERFBENCH_JSON CRITERION_DIR PLAIN_LOOP`: per routine,
//! perfbench's figure and 95 % interval (from its JSON lines), Criterion's
//! (from `CRITERION_DIR/GROUP/NAME/new/estimates.json`: the slope, or the
//! mean where Criterion sampled flat) and their ratio, in two tables:
//! wall time (perfbench's `wall-time`, Criterion's group `wall-time`) and
//! CPU time (perfbench's `task-clock`, Criterion's group `cpu-time`), the
//! second beside the plain loop's ns per iteration under `perf stat`
//! (lines `NAME NS_ONE_THREAD NS_TWO_THREADS`; the file may be empty).

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
        eprintln!("usage: agreement-table PERFBENCH_JSON CRITERION_DIR PLAIN_LOOP");
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

fn tables(ours: &str, criterion: &Path, plain: &str) -> Result<(), String> {
    let plain = plain_loop(plain)?;
    let lines = perfbench_lines(ours)?;
    for (metric, group) in [("wall-time", "wall-time"), ("task-clock", "cpu-time")] {
        println!(
            "{:<24} {:>28} {:>28} {:>6} {:>18}",
            format!("{metric} (ns)"),
            "perfbench [95% CI]",
            format!("Criterion {group} [95% CI]"),
            "ratio",
            if group == "cpu-time" {
                "perf stat 1t / 2t"
            } else {
                ""
            },
        );
        for (name, line) in &lines {
            let p =
                perfbench_estimate(line, metric).ok_or(format!("{ours}: {name}: no {metric}"))?;
            let c = criterion_estimate(&criterion.join(group).join(name))?;
            let stat = match plain.get(name) {
                Some((one, two)) if group == "cpu-time" => format!("{one:.2} / {two:.2}"),
                _ => String::new(),
            };
            let ratio = p.0 / c.0;
            println!(
                "{name:<24} {:>28} {:>28} {ratio:>6.3} {stat:>18}",
                shown(&p),
                shown(&c)
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

/// `NAME NS_ONE_THREAD NS_TWO_THREADS` lines: the plain loop's ns per
/// iteration in a process of one thread, and of two.
fn plain_loop(path: &str) -> Result<BTreeMap<String, (f64, f64)>, String> {
    let text = fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let mut found = BTreeMap::new();
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        let [name, one, two] = words.as_slice() else {
            return Err(format!("{path}: `{line}` is not NAME NS NS"));
        };
        let number = |s: &str| {
            s.parse()
                .map_err(|_| format!("{path}: `{s}` is not a number"))
        };
        found.insert(name.to_string(), (number(one)?, number(two)?));
    }
    Ok(found)
}
