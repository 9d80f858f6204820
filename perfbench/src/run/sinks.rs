//! The outputs of a run, made from its options: the format asked for on
//! stdout, each `--output-file`, and the report.

use crate::output::action_benchmark::{ActionSink, Better};
use crate::output::bencher_lines::spaced_ids_warning;
use crate::output::bmf::BmfSink;
use crate::output::destination::Destination;
use crate::output::html::{ReportOptions, ReportSink};
use crate::output::json_lines::JsonLinesSink;
use crate::output::table::TableSink;
use crate::output::Sink;
use crate::run::cli::{OutputFormat, RunOptions};
use crate::run::preparation::Preparation;
use crate::run::stderr;

/// The outputs of a run: the format asked for on stdout, each of
/// `--output-file`, and the report. Where bencher lines are among them,
/// ids with white space are warned of once.
pub fn sinks(options: &RunOptions, prep: &Preparation, ids: &[&str]) -> Vec<Sink> {
    let files =
        (options.output_files.iter()).map(|(f, path)| (*f, Destination::file(path.clone())));
    let mut sinks: Vec<Sink> = std::iter::once((options.output_format, Destination::Stdout))
        .chain(files)
        .map(|(format, out)| sink(format, out, options, prep))
        .collect();
    let bencher = sinks.iter().any(|s| matches!(s, Sink::BencherLines(_)));
    if let Some(warning) = spaced_ids_warning(ids).filter(|_| bencher) {
        stderr::warning(&warning);
    }
    let report = ReportOptions {
        plots: !options.noplot,
        against: prep.target.clone(),
        thresholds: options.thresholds,
    };
    sinks.push(Sink::Report(ReportSink::new(prep.store.clone(), report)));
    sinks
}

/// The sink writing `format` to `out`.
fn sink(format: OutputFormat, out: Destination, options: &RunOptions, prep: &Preparation) -> Sink {
    let env = prep.environment.clone();
    match format {
        OutputFormat::Pretty => Sink::Table(TableSink::new(options.color, options.verbose, out)),
        OutputFormat::Json => Sink::JsonLines(JsonLinesSink::new(env, out, prep.store.clone())),
        OutputFormat::Bencher => Sink::BencherLines(out),
        OutputFormat::Bmf => Sink::Bmf(BmfSink::new(out)),
        OutputFormat::ActionSmaller => Sink::Action(ActionSink::new(out, Better::Smaller, env)),
        OutputFormat::ActionBigger => Sink::Action(ActionSink::new(out, Better::Bigger, env)),
    }
}
