//! Every output of a run, as one closed set of sinks — the terminal table,
//! JSON lines, libtest's bench lines, the formats continuous-benchmarking
//! services read (Bencher's BMF, github-action-benchmark's arrays) and the
//! HTML report — each fed the same analysed benchmarks, each but the
//! report bound for stdout or a file ([`destination`]). The event list
//! (`--list-events`) is here too.

pub mod action_benchmark;
pub mod bencher_lines;
pub mod bmf;
pub mod default_block;
pub mod destination;
pub mod event_list;
pub mod folded;
pub mod format;
pub mod html;
pub mod json_lines;
pub mod profile_lines;
pub mod table;
mod wrap;

use crate::analysis::{Analysed, Calibration};
use crate::counter::event::Event;
use crate::measure::environment::Environment;
use crate::store::StoreError;
use destination::Destination;

/// Whether to colour the output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Color {
    /// When stdout is a terminal and `NO_COLOR` is unset or empty.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// What the outputs know of a run before its first benchmark.
pub struct RunHeader<'a> {
    /// The ids of the benchmarks to run, in order.
    pub ids: &'a [&'a str],
    /// The events measured.
    pub events: &'a [Event],
    /// The events of each pass (one per counter group), where there is more
    /// than one.
    pub passes: Vec<Vec<String>>,
    /// Per-iteration mode rather than batch mode.
    pub per_iter: bool,
    /// Samples per benchmark.
    pub sample_count: u64,
    /// Rounds each benchmark is measured in.
    pub rounds: u64,
    /// Where the run happens, with the pinned CPU.
    pub environment: &'a Environment,
    /// The measurement's own cost.
    pub calibration: &'a Calibration,
}

/// One output of a run.
pub enum Sink {
    /// The table.
    Table(table::TableSink),
    /// One JSON object per benchmark per line.
    JsonLines(json_lines::JsonLinesSink),
    /// libtest's bench lines.
    BencherLines(Destination),
    /// Bencher Metric Format, when the run ends.
    Bmf(bmf::BmfSink),
    /// github-action-benchmark's array, when the run ends.
    Action(action_benchmark::ActionSink),
    /// The HTML report, written when the run ends.
    Report(html::ReportSink),
}

impl Sink {
    /// Starts the output of a run.
    pub fn start(&mut self, header: &RunHeader) {
        if let Sink::Table(t) = self {
            t.start(header);
        }
    }

    /// Adds one benchmark.
    pub fn benchmark(&mut self, a: &Analysed) {
        match self {
            Sink::Table(t) => t.benchmark(a),
            Sink::JsonLines(s) => s.benchmark(a),
            Sink::BencherLines(out) => out.line(&bencher_lines::bencher_line(a.view())),
            Sink::Bmf(b) => b.benchmark(a),
            Sink::Action(s) => s.benchmark(a),
            Sink::Report(r) => r.benchmark(a),
        }
    }

    /// Ends the output, writing a file whole; the report says what it
    /// wrote.
    pub fn finish(self) -> Result<Option<html::Written>, StoreError> {
        match self {
            Sink::Report(r) => return r.finish().map(Some),
            Sink::Table(t) => t.finish(),
            Sink::JsonLines(s) => s.finish(),
            Sink::BencherLines(out) => out.finish(),
            Sink::Bmf(b) => b.finish(),
            Sink::Action(s) => s.finish(),
        }?;
        Ok(None)
    }
}
