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

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use serde_json::Value;

/// The table for the run under `criterion` and perfbench's JSON lines
/// `perfbench` (`-`: none yet).
pub fn table(criterion: &Path, perfbench: &str) -> Result<String, String> {
    let mut ours = BTreeMap::new();
    criterion_estimates(criterion, &mut ours)?;
    let theirs = if perfbench == "-" {
        BTreeMap::new()
    } else {
        perfbench_estimates(perfbench)?
    };
    let mut out = format!(
        "{:<56} {:>16} {:>16} {:>6}\n",
        "id", "Criterion ns", "perfbench ns", "p/c"
    );
    let (mut matched, mut within) = (0, 0);
    let mut seen = Vec::new();
    for (id, c) in &ours {
        let key = theirs
            .keys()
            .find(|k| *k == id || k.ends_with(&format!("::{id}")));
        seen.extend(key);
        let p = key.map(|k| theirs[k]);
        let (shown, ratio) = match p {
            Some(p) => (format!("{p:.1}"), format!("{:.3}", p / c)),
            None => ("-".into(), "-".into()),
        };
        if let Some(p) = p {
            matched += 1;
            within += usize::from((p / c - 1.0).abs() <= 0.10);
        }
        out.push_str(&format!("{c:>16.1} {shown:>16} {ratio:>6}  {id}\n"));
    }
    for id in theirs.keys().filter(|id| !seen.contains(id)) {
        out.push_str(&format!(
            "{id:<56} {:>16} {:>16.1} {:>6}\n",
            "-", theirs[id], "-"
        ));
    }
    if !theirs.is_empty() {
        out.push_str(&format!("{within} of {matched} matched ids within 10 %\n"));
    }
    Ok(out)
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
