//! Per benchmark id, Criterion's wall time per iteration beside
//! perfbench's, and their ratio.
//!
//! Criterion's figure is what it prints as `time:`: the `slope` of its
//! linear sampling, else (flat sampling) the `mean`, its point estimate in
//! ns, from `new/estimates.json` beside each `new/benchmark.json` under
//! CRITERION_HOME (which names the id in `full_id`, so that the folder
//! names Criterion makes safe for the file system need no undoing).
//! perfbench's is the `wall-time` `estimate` of its JSON lines
//! (docs/output-formats.md), whose `id` is the Criterion id, or ends in
//! `::` and the Criterion id (a `TARGET::` prefix).
//!
//! The rig's third oracle, plain-criterion (`plain-criterion/`), prints
//! lines `plain ID MEDIAN MIN MAX` (tab-separated, ns per iteration of a
//! plain loop); given, its median is a third column, with each harness's
//! ratio to it.
//!
//! With several rounds (each harness run once per round, alternating) a
//! harness's figure is the median of its rounds, and `spread` its own
//! max/min − 1 over them: how far it moves against itself on this machine,
//! the yardstick for the ratio of the two.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use serde_json::Value;

/// Per id, one figure per round.
type Rounds = BTreeMap<String, Vec<f64>>;

/// The table for the runs under the comma-separated CRITERION_HOMEs
/// `criterion`, perfbench's comma-separated JSON line files `perfbench`
/// and plain-criterion's comma-separated outputs `plain` (`-`: none).
pub fn table(criterion: &str, perfbench: &str, plain: &str) -> Result<String, String> {
    let mut ours = Rounds::new();
    for home in criterion.split(',') {
        let mut found = BTreeMap::new();
        criterion_estimates(Path::new(home), &mut found)?;
        merge(&mut ours, found);
    }
    let mut theirs = Rounds::new();
    for file in perfbench.split(',').filter(|f| *f != "-") {
        merge(&mut theirs, perfbench_estimates(file)?);
    }
    let mut oracle = Rounds::new();
    for file in plain.split(',').filter(|f| *f != "-") {
        merge(&mut oracle, plain_estimates(file)?);
    }
    let mut out = format!(
        "{:>14} {:>7} {:>14} {:>7} {:>6} {:>14} {:>7} {:>6} {:>6}  id\n",
        "Criterion ns",
        "spread",
        "perfbench ns",
        "spread",
        "p/c",
        "plain ns",
        "spread",
        "p/o",
        "c/o"
    );
    let (mut matched, mut within) = (0, 0);
    let mut seen = Vec::new();
    for (id, c) in &ours {
        let key = theirs
            .keys()
            .find(|k| *k == id || k.ends_with(&format!("::{id}")));
        seen.extend(key);
        let c = median(c);
        let p = key.map(|k| median(&theirs[k]));
        let ratio = p.map(|p| p.0 / c.0);
        if let Some(ratio) = ratio {
            matched += 1;
            within += usize::from((ratio - 1.0).abs() <= 0.10);
        }
        let o = oracle.get(id).map(|o| median(o));
        let to_oracle = |x: Option<(f64, f64)>| ratio_of(x.zip(o).map(|(x, o)| x.0 / o.0));
        out.push_str(&format!(
            "{} {} {:>6} {} {:>6} {:>6}  {id}\n",
            shown(c),
            shown_or_dash(p),
            ratio_of(ratio),
            shown_or_dash(o),
            to_oracle(p),
            to_oracle(Some(c)),
        ));
    }
    for id in theirs.keys().filter(|id| !seen.contains(id)) {
        let p = shown(median(&theirs[id]));
        out.push_str(&format!("{:>14} {:>7} {p} {:>6}  {id}\n", "-", "-", "-"));
    }
    if !theirs.is_empty() {
        out.push_str(&format!("{within} of {matched} matched ids within 10 %\n"));
    }
    Ok(out)
}

/// Adds one round's figures.
fn merge(rounds: &mut Rounds, round: BTreeMap<String, f64>) {
    for (id, ns) in round {
        rounds.entry(id).or_default().push(ns);
    }
}

/// The median of the rounds and their max/min − 1.
fn median(rounds: &[f64]) -> (f64, f64) {
    let mut sorted = rounds.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    let median = (sorted[(n - 1) / 2] + sorted[n / 2]) / 2.0;
    (median, sorted[n - 1] / sorted[0] - 1.0)
}

/// `    1234.5   4.2 %` (0.0 % for one round).
fn shown((ns, spread): (f64, f64)) -> String {
    format!("{ns:>14.1} {:>7}", format!("{:.1} %", spread * 100.0))
}

/// `x` with three decimals, or `-`.
fn ratio_of(x: Option<f64>) -> String {
    x.map_or("-".into(), |x| format!("{x:.3}"))
}

/// A harness's median and spread, or dashes where it has no figure.
fn shown_or_dash(x: Option<(f64, f64)>) -> String {
    x.map_or(format!("{:>14} {:>7}", "-", "-"), shown)
}

/// plain-criterion's lines: id to its median ns per iteration.
fn plain_estimates(path: &str) -> Result<BTreeMap<String, f64>, String> {
    let text = fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let mut found = BTreeMap::new();
    for line in text.lines() {
        let mut fields = line.split('\t');
        if fields.next() != Some("plain") {
            continue;
        }
        let (Some(id), Some(ns)) = (fields.next(), fields.next()) else {
            return Err(format!("{path}: `{line}`: not `plain ID MEDIAN MIN MAX`"));
        };
        let ns = ns
            .parse()
            .map_err(|_| format!("{path}: {id}: `{ns}` is no number"))?;
        found.insert(id.to_string(), ns);
    }
    Ok(found)
}

/// Every `new/benchmark.json` under `dir`: its `full_id` and estimate.
fn criterion_estimates(dir: &Path, found: &mut BTreeMap<String, f64>) -> Result<(), String> {
    let entries = fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry.map_err(|e| e.to_string())?.path();
        if !path.is_dir() {
            continue;
        }
        let file = path.join("benchmark.json");
        if path.ends_with("new") && file.is_file() {
            let id = read_json(&file)?["full_id"].as_str().map(str::to_string);
            let id = id.ok_or(format!("{}: no full_id", file.display()))?;
            found.insert(id, criterion_estimate(&path.join("estimates.json"))?);
        } else {
            criterion_estimates(&path, found)?;
        }
    }
    Ok(())
}

fn criterion_estimate(file: &Path) -> Result<f64, String> {
    let v = read_json(file)?;
    let e = if v["slope"].is_null() {
        &v["mean"]
    } else {
        &v["slope"]
    };
    e["point_estimate"]
        .as_f64()
        .ok_or(format!("{}: no point_estimate", file.display()))
}

fn read_json(file: &Path) -> Result<Value, String> {
    let text = fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", file.display()))
}

/// perfbench's JSON lines: id to its wall-time estimate in ns.
fn perfbench_estimates(path: &str) -> Result<BTreeMap<String, f64>, String> {
    let text = fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let mut found = BTreeMap::new();
    for line in text.lines().filter(|l| l.starts_with('{')) {
        let v: Value = serde_json::from_str(line).map_err(|e| format!("{path}: {e}"))?;
        let Some(id) = v["id"].as_str() else { continue };
        let ns = v["metrics"]["wall-time"]["estimate"].as_f64();
        found.insert(
            id.to_string(),
            ns.ok_or(format!("{path}: {id}: no wall-time estimate"))?,
        );
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_median_of_the_rounds_and_their_spread() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), (2.0, 2.0));
        assert_eq!(median(&[4.0, 2.0]), (3.0, 1.0));
        assert_eq!(median(&[5.0]), (5.0, 0.0));
    }
}
