//! `cargo fuzz run stored`: any text given to the readers of stored files
//! (results, report summaries, sampled values, history lines) must come
//! back as a value or a one-line error, never a panic or a long loop; what
//! decodes goes where a run takes it: analysed, compared (with itself, as
//! the report's stored benchmarks are), its earlier runs carried, encoded
//! again (which must decode: perfbench reads what it writes), and drawn in
//! a report, with a summary and values in the report's index and group
//! page; a history's runs re-encoded (which must decode) and charted on
//! the run's pages.

#![no_main]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use perfbench::analysis::comparison::{carry_earlier, Comparison, Target, Thresholds};
use perfbench::analysis::standings::Membership;
use perfbench::analysis::{analyze, Analysed, Calibration, Recording, Series};
use perfbench::counter::event::Unit;
use perfbench::measure::environment::Environment;
use perfbench::output::html::{write_report, ReportOptions};
use perfbench::store::bench_summary::{values_of, BenchSummary, SampledValues};
use perfbench::store::history::{parse_history, History, HISTORY_FILE};
use perfbench::store::json::{
    decode_history_run, decode_recording, decode_summary, decode_values, encode_history_run,
    encode_recording, encode_summary, encode_values, DecodeError,
};
use perfbench::store::{folder_name, Store};

/// The value, or `None` where the error is one line, as every error of a
/// stored file must be.
fn one_line<T>(decoded: Result<T, DecodeError>) -> Option<T> {
    decoded
        .map_err(|e| assert!(!e.to_string().contains('\n'), "{e}"))
        .ok()
}

/// A store of this process's own, emptied for each input.
fn root() -> &'static Path {
    static ROOT: OnceLock<PathBuf> = OnceLock::new();
    ROOT.get_or_init(|| std::env::temp_dir().join(format!("perfbench-fuzz-{}", std::process::id())))
}

/// A small run of the benchmark `id`, in two rounds.
fn small_run(id: &str, membership: Option<Membership>) -> Analysed {
    let series = Series {
        name: "wall-time".into(),
        unit: Unit::Nanoseconds,
        totals: vec![10, 21, 29, 11, 20, 31],
        event: None,
        user_only: None,
        earlier: Vec::new(),
    };
    let iterations = (vec![1, 2, 3, 1, 2, 3], vec![0, 0, 0, 1, 1, 1]);
    let mut recording =
        Recording::stored(id.into(), Environment::default(), iterations, vec![series]);
    recording.membership = membership;
    Analysed::of(recording, &Calibration::default())
}

/// A stored result, analysed and compared with itself as a run and the
/// report take it; what it encodes to must decode.
fn run_with(recording: Recording) -> Analysed {
    let thresholds = Thresholds::default();
    let result = analyze(&recording, &Calibration::default());
    let again = encode_recording(&recording, &result);
    assert!(decode_recording(&again).is_ok(), "{again}");
    let mut next = recording.clone();
    carry_earlier(Some(&recording), &mut next, &thresholds);
    let a = Analysed {
        comparison: Some(Comparison::of(
            &Target::PreviousRun,
            Some(&recording),
            &next,
            &thresholds,
        )),
        result,
        compared_with: Some(recording.clone()),
        recording: next,
    };
    let summary = encode_summary(&BenchSummary::of(&a));
    assert!(decode_summary(&summary).is_ok(), "{summary}");
    let values = encode_values(&values_of(&a));
    assert!(decode_values(&values).is_ok(), "{values}");
    a
}

/// Leaves `summary` and `values` in the store as an earlier run's, in a
/// group with `run`'s benchmark where it has one.
fn store_summary(
    summary: Option<BenchSummary>,
    values: Option<Vec<SampledValues>>,
    run: &mut Vec<Analysed>,
) {
    let mut summary = summary.unwrap_or_else(|| {
        let group = Membership {
            group: "g".into(),
            member: "stored".into(),
            arg: None,
        };
        BenchSummary::of(&small_run("stored", Some(group)))
    });
    if summary.id == "run" {
        summary.id.push('_');
    }
    let folder = folder_name(&summary.id);
    let data = root().join("report/data");
    std::fs::create_dir_all(root().join(&folder)).unwrap();
    std::fs::create_dir_all(&data).unwrap();
    // The summary is at least as new as the latest run: it is read, not made.
    std::fs::write(root().join(&folder).join("latest.json"), "{}").unwrap();
    std::fs::write(
        data.join(format!("{folder}.json")),
        encode_summary(&summary),
    )
    .unwrap();
    let values = encode_values(&values.unwrap_or_default());
    std::fs::write(data.join(format!("{folder}.values.json")), values).unwrap();
    let group = summary.membership.as_ref().map(|m| Membership {
        member: format!("{}_", m.member),
        ..m.clone()
    });
    run.push(small_run("run", group));
}

/// Leaves `text`, whose runs are `history`, as the history of each
/// benchmark of `run` (one at least), to be charted on its page; each run
/// must encode to a line that decodes (serde_json reads a float back
/// within an ulp, so not always to the same run).
fn store_history(history: &History, text: &str, run: &mut Vec<Analysed>) {
    if history.runs.is_empty() {
        return;
    }
    for r in &history.runs {
        let line = encode_history_run(r);
        assert!(decode_history_run(&line).is_ok(), "{line}");
    }
    if run.is_empty() {
        run.push(small_run("run", None));
    }
    for a in run.iter() {
        let folder = root().join(folder_name(&a.recording.id));
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join(HISTORY_FILE), text).unwrap();
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let recording = one_line(decode_recording(text));
    let summary = one_line(decode_summary(text));
    let values = one_line(decode_values(text));
    let history = parse_history(text);
    if recording.is_none() && summary.is_none() && values.is_none() && history.runs.is_empty() {
        return;
    }
    let _ = std::fs::remove_dir_all(root());
    let mut run: Vec<Analysed> = recording.into_iter().map(run_with).collect();
    if summary.is_some() || values.is_some() {
        store_summary(summary, values, &mut run);
    }
    store_history(&history, text, &mut run);
    let options = ReportOptions {
        plots: true,
        against: Target::PreviousRun,
        thresholds: Thresholds::default(),
    };
    if let Err(e) = write_report(&Store::at(root()), &run, &options) {
        assert!(!e.to_string().contains('\n'), "{e}");
    }
});
