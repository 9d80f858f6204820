//! The report's data in the store (`report/data/`): each benchmark's
//! summary and sampled values, written by the run that measured it, and
//! those of the benchmarks a run did not measure, read back, or made once
//! from their stored latest run (re-read and re-analysed) where a summary
//! is missing or older. So the report costs what the run costs, not what
//! the store holds, and the output layer only renders.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::bench_summary::{values_of, BenchSummary, SampledValues};
use super::history::stored_changes;
use super::json::{decode_summary, decode_values, encode_summary, encode_values};
use super::par_map::par_map;
use super::{folder_name, Kind, Slot, Store, StoreError};
use crate::analysis::comparison::{Comparison, Target, Thresholds};
use crate::analysis::{analyze, Analysed, Calibration, Recording};

/// The summary file of the benchmark in `folder` under `data`.
fn summary_path(data: &Path, folder: &str) -> PathBuf {
    data.join(format!("{folder}.json"))
}

/// The file of sampled values of the benchmark in `folder` under `data`.
fn values_path(data: &Path, folder: &str) -> PathBuf {
    data.join(format!("{folder}.values.json"))
}

/// Writes a benchmark's summary and sampled values under `data`.
pub fn write_summary(
    store: &Store,
    data: &Path,
    s: &BenchSummary,
    values: &[SampledValues],
) -> Result<(), StoreError> {
    let folder = folder_name(&s.id);
    store.write(
        &values_path(data, &folder),
        encode_values(values).as_bytes(),
    )?;
    store.write(&summary_path(data, &folder), encode_summary(s).as_bytes())
}

/// The summaries of the benchmarks stored under the root that are not in
/// the run, and the stored results that could not be read.
pub fn stored_summaries(
    store: &Store,
    data: &Path,
    run: &BTreeSet<&str>,
) -> (Vec<BenchSummary>, Vec<String>) {
    let run_folders: BTreeSet<String> = run.iter().map(|id| folder_name(id)).collect();
    let listed = store.list(Path::new("")).map_err(|e| e.to_string());
    let (mut entries, mut problems) = (Vec::new(), Vec::new());
    // Folders perfbench made have ASCII names; no other holds its results.
    let mut folders = Vec::new();
    for (name, kind) in listed.unwrap_or_else(|e| {
        problems.push(e);
        Vec::new()
    }) {
        if name.starts_with('.') || run_folders.contains(&name) {
            continue;
        }
        // A link is walked into like a folder, so that the walk names it.
        if matches!(kind, Kind::Dir | Kind::Link) {
            folders.push(name);
        }
    }
    for found in par_map(&folders, |folder| stored_summary(store, data, folder)) {
        match found {
            Ok(Some(s)) => entries.push(s),
            Ok(None) => {}
            Err(e) => problems.push(e.to_string()),
        }
    }
    (entries, problems)
}

/// The summary of the benchmark stored in `folder`: its summary file where
/// that is at least as new as its latest run, else one made from the
/// latest run (and written for the next report); `None` where the folder
/// holds no latest run.
fn stored_summary(
    store: &Store,
    data: &Path,
    folder: &str,
) -> Result<Option<BenchSummary>, StoreError> {
    let latest = Path::new(folder).join("latest.json");
    let Some(stored_at) = store.modified(&latest)? else {
        return Ok(None);
    };
    let path = summary_path(data, folder);
    // A summary that cannot be read is made again, and replaced.
    let summarised_at = store.modified(&path).ok().flatten();
    if summarised_at.is_some_and(|t| t >= stored_at) {
        let summary = store
            .read(&path)
            .ok()
            .flatten()
            .and_then(|text| decode_summary(&text).ok());
        if let Some(s) = summary.filter(|s| folder_name(&s.id) == folder) {
            return Ok(Some(s));
        }
    }
    let Some(recording) = store.stored_run(folder)? else {
        return Ok(None);
    };
    let a = analysed_stored(store, recording)?;
    let mut summary = BenchSummary::of(&a);
    summary.changed = stored_changes(store, &summary.id);
    write_summary(store, data, &summary, &values_of(&a))?;
    Ok(Some(summary))
}

/// A stored latest run, analysed and compared with the run before it (kept
/// as `previous.json`), as its own run compared it.
fn analysed_stored(store: &Store, recording: Recording) -> Result<Analysed, StoreError> {
    let result = analyze(&recording, &Calibration::default());
    let base = store.load(&recording.id, &Slot::Previous)?;
    let comparison = Comparison::of(
        &Target::PreviousRun,
        base.as_ref(),
        &recording,
        &Thresholds::default(),
    );
    Ok(Analysed {
        recording,
        result,
        comparison: Some(comparison),
        compared_with: None,
    })
}

/// The sampled values stored for the benchmark `id` under `data`: none
/// where the file cannot be read or decoded, since they are only drawn
/// (its summary, read before, names a bad folder).
pub fn stored_values(store: &Store, data: &Path, id: &str) -> Vec<SampledValues> {
    store
        .read(&values_path(data, &folder_name(id)))
        .ok()
        .flatten()
        .and_then(|text| decode_values(&text).ok())
        .unwrap_or_default()
}
