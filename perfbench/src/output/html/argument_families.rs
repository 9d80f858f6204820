//! The charts of benchmarks with `args`: per family, each metric against
//! the argument (numbers on a linear or logarithmic axis, categories
//! apart), the declared throughput against the argument, and a line naming
//! the metrics that are zero for every argument. The index has a family
//! per function, drawn as one line; a group page one with a line per
//! member ([`Line`]).

use std::fmt::Write as _;

use super::index::Index;
use plotters::style::RGBColor;

use super::plots::{self, ArgAxis, ArgPoint, ArgSeries, Measure};
use super::text::{esc, figure};
use super::{metric_of, metrics_to_draw};
use crate::analysis::derived::rate_of;
use crate::output::format::{count, plural, printable};
use crate::stats::Estimate;
use crate::store::bench_summary::BenchSummary as Summary;

/// The benchmarks of a family, with their arguments.
pub(super) type Members<'a> = Vec<(&'a str, &'a Summary)>;

/// How a group's arguments lie on the x axis.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Axis {
    /// Numbers spanning more than [`LOG_SPAN`]: powers of ten equally apart.
    Log,
    /// Numbers of a narrower span, or not all above zero.
    Linear,
    /// Not all numbers: categories in the order of the run, not joined.
    Categorical,
}

/// Numbers whose largest is more than this many times their smallest get a
/// logarithmic axis, so that the small ones do not sit on top of each other.
const LOG_SPAN: f64 = 10.0;

/// The axis of `args`, and each argument's x on it: its number, or its
/// position among the categories.
fn choose_axis(args: &[&str]) -> (Axis, Vec<f64>) {
    let numbers: Option<Vec<f64>> = args
        .iter()
        .map(|arg| arg.trim().parse::<f64>().ok().filter(|v| v.is_finite()))
        .collect();
    let Some(xs) = numbers else {
        return (
            Axis::Categorical,
            (0..args.len()).map(|i| i as f64).collect(),
        );
    };
    let lo = xs.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let axis = if lo > 0.0 && hi > LOG_SPAN * lo {
        Axis::Log
    } else {
        Axis::Linear
    };
    (axis, xs)
}

impl Axis {
    /// The axis as the plots take it.
    fn plot<'a>(self, names: &'a [String]) -> ArgAxis<'a> {
        match self {
            Axis::Log => ArgAxis::Numeric { log: true },
            Axis::Linear => ArgAxis::Numeric { log: false },
            Axis::Categorical => ArgAxis::Categorical(names),
        }
    }

    /// Its name in a `data-axis` attribute.
    fn name(self) -> &'static str {
        match self {
            Axis::Log => "log",
            Axis::Linear => "linear",
            Axis::Categorical => "categorical",
        }
    }

    /// How a heading describes it.
    fn describe(self) -> &'static str {
        match self {
            Axis::Log => "logarithmic axis",
            Axis::Linear => "numeric axis",
            Axis::Categorical => "in the order of the run",
        }
    }
}

/// The group (before the first `/`) and argument of an id with one.
fn split_arg(id: &str) -> Option<(&str, &str)> {
    id.split_once('/')
}

/// Groups in the order of their first member; members in the order of this
/// run, then by id (the order of the stored results).
fn argument_groups<'a>(ix: &Index<'a>) -> Vec<(&'a str, Members<'a>)> {
    let mut groups: Vec<(&str, Members)> = Vec::new();
    for e in ix.order.iter().map(|&i| ix.entries[i]) {
        let Some((group, arg)) = split_arg(&e.id) else {
            continue;
        };
        match groups.iter_mut().find(|(g, _)| *g == group) {
            Some((_, members)) => members.push((arg, e)),
            None => groups.push((group, vec![(arg, e)])),
        }
    }
    groups
}

/// The charts of each group of benchmarks with arguments.
pub(super) fn argument_charts(out: &mut String, ix: &Index) {
    let groups = argument_groups(ix);
    if groups.is_empty() {
        return;
    }
    out.push_str("<h2>Benchmarks with arguments</h2>\n");
    let start = out.len();
    let total = groups.len();
    for (gi, (group, members)) in groups.into_iter().enumerate() {
        if out.len() - start > CHARTS_BYTES {
            let _ = writeln!(
                out,
                "<p class=\"note\">{} more function{} with arguments not charted here, so \
                 that this page stays small; the summary lists their figures.</p>",
                total - gi,
                plural(total - gi)
            );
            break;
        }
        group_section(out, gi, group, members);
    }
}

/// Bytes of charts the index holds at most: the rest of the page is the
/// summary's rows, and no page may near 2 MB.
const CHARTS_BYTES: usize = 600_000;

/// One line of a family's charts: a function's benchmarks with their
/// arguments.
pub(super) struct Line<'a> {
    /// Its legend text where a chart has several lines.
    pub label: String,
    /// Its colour.
    pub color: RGBColor,
    /// Its benchmarks, each with its argument.
    pub members: Members<'a>,
}

/// A family's arguments on their axis, for its charts.
pub(super) struct Arguments<'a> {
    /// What the charts' captions name.
    group: &'a str,
    lines: &'a [Line<'a>],
    axis: Axis,
    /// Every argument of the lines, once, in the order they first appear.
    names: Vec<String>,
    /// `names` as the axis writes them: control characters escaped, as
    /// everywhere an id is shown.
    labels: Vec<String>,
    /// The x of each of `names`.
    xs: Vec<f64>,
}

impl<'a> Arguments<'a> {
    /// The arguments of `lines` (named `group` in captions) on their axis.
    pub fn of(group: &'a str, lines: &'a [Line<'a>]) -> Arguments<'a> {
        let mut names: Vec<String> = Vec::new();
        for (arg, _) in lines.iter().flat_map(|l| &l.members) {
            if !names.iter().any(|n| n == arg) {
                names.push(arg.to_string());
            }
        }
        let args: Vec<&str> = names.iter().map(String::as_str).collect();
        let (axis, xs) = choose_axis(&args);
        let labels = names.iter().map(|n| printable(n).into_owned()).collect();
        Arguments {
            group,
            lines,
            axis,
            names,
            labels,
            xs,
        }
    }

    /// How many arguments, and how their axis lies, for a heading.
    pub fn describe(&self) -> String {
        format!(
            "{}, {}",
            count(self.names.len(), "argument"),
            self.axis.describe()
        )
    }

    /// Its axis' name in a `data-axis` attribute.
    pub fn axis_name(&self) -> &'static str {
        self.axis.name()
    }

    /// The x of the argument `arg`.
    fn x_of(&self, arg: &str) -> f64 {
        let i = self.names.iter().position(|n| n == arg);
        i.map_or(f64::NAN, |i| self.xs[i])
    }

    /// A line per line of the family, each with a point per member that
    /// `value` gives a value for.
    fn series(&self, value: impl Fn(&Summary) -> Option<Estimate>) -> Vec<ArgSeries<'_>> {
        self.lines
            .iter()
            .map(|l| ArgSeries {
                label: &l.label,
                color: l.color,
                points: l
                    .members
                    .iter()
                    .filter_map(|(arg, e)| {
                        Some(ArgPoint {
                            x: self.x_of(arg),
                            estimate: value(e)?,
                        })
                    })
                    .collect(),
            })
            .collect()
    }
}

/// One group's section: the throughput and each metric against the
/// argument, and the metrics zero for every argument in one line.
fn group_section(out: &mut String, gi: usize, group: &str, members: Members) {
    let lines = [Line {
        label: group.to_string(),
        color: plots::NEW,
        members,
    }];
    let a = Arguments::of(group, &lines);
    let _ = write!(
        out,
        "<section class=\"group\" id=\"group-{gi}\" data-axis=\"{}\">\n\
         <h3>{} <small>({})</small></h3>\n",
        a.axis_name(),
        esc(group),
        a.describe()
    );
    family_charts(out, &a);
    out.push_str("</section>\n");
}

/// A family's charts: the throughput and each metric against the
/// argument, after a line naming the metrics zero for every argument.
pub(super) fn family_charts(out: &mut String, a: &Arguments) {
    let benchmarks = || a.lines.iter().flat_map(|l| &l.members).map(|(_, e)| *e);
    let charted = metrics_to_draw(out, benchmarks, "argument", "charted");
    out.push_str("<div class=\"plots\">\n");
    throughput_chart(out, a);
    for (metric, unit) in charted {
        metric_chart(out, a, metric, Measure::Metric(unit));
    }
    out.push_str("</div>\n");
}

/// A metric's estimates against the argument.
fn metric_chart(out: &mut String, a: &Arguments, metric: &str, measure: Measure) {
    let series = a.series(|e| Some(metric_of(e, metric)?.estimate));
    let caption = format!(
        "{} of <code>{}</code> against the argument, with 95 % intervals",
        esc(metric),
        esc(a.group)
    );
    let svg = plots::by_argument(metric, &series, &a.axis.plot(&a.labels), measure);
    let data = [
        ("chart", "argument"),
        ("metric", metric),
        ("axis", a.axis.name()),
    ];
    figure(out, svg, &caption, &data);
}

/// The declared throughput per second against the argument, where the
/// family's benchmarks declared one (of the kind the first declared).
fn throughput_chart(out: &mut String, a: &Arguments) {
    let benchmarks = || a.lines.iter().flat_map(|l| &l.members).map(|(_, e)| *e);
    let Some(work) = benchmarks()
        .find_map(|e| rate_of(e.throughput, e.wall_time()?))
        .map(|r| r.work)
    else {
        return;
    };
    let per = work.noun();
    let series = a.series(|e| {
        let r = rate_of(e.throughput, e.wall_time()?).filter(|r| r.work.noun() == per)?;
        Some(r.per_second)
    });
    let drawn = series.iter().map(|s| s.points.len()).sum();
    let title = format!("throughput ({per}s/s)");
    let caption = format!(
        "Throughput of <code>{}</code> against the argument: {per}s per second of wall \
         time, with 95 % intervals{}",
        esc(a.group),
        missing_rates(drawn, benchmarks().count())
    );
    let svg = plots::by_argument(
        &title,
        &series,
        &a.axis.plot(&a.labels),
        Measure::Rate(work),
    );
    let data = [
        ("chart", "throughput"),
        ("metric", "throughput"),
        ("axis", a.axis.name()),
    ];
    figure(out, svg, &caption, &data);
}

/// Why a throughput chart has fewer points than the group has arguments.
fn missing_rates(drawn: usize, members: usize) -> String {
    let missing = members - drawn;
    if missing == 0 {
        return String::new();
    }
    format!(
        " ({missing} argument{} without one: not measured by this run, which is what \
         declares it, or of another kind)",
        plural(missing)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_spanning_more_than_ten_times_get_a_log_axis() {
        assert_eq!(
            choose_axis(&["32768", "268435456"]),
            (Axis::Log, vec![32768.0, 268435456.0])
        );
        assert_eq!(choose_axis(&["1", "17"]).0, Axis::Log);
        assert_eq!(choose_axis(&["1", "11"]).0, Axis::Log);
        // Ten times exactly, or less: linear.
        assert_eq!(choose_axis(&["1", "10"]), (Axis::Linear, vec![1.0, 10.0]));
        assert_eq!(choose_axis(&["64", "128", "256"]).0, Axis::Linear);
        // Zero or negatives have no logarithm.
        assert_eq!(choose_axis(&["0", "1000"]).0, Axis::Linear);
        assert_eq!(choose_axis(&["-5", "5000"]).0, Axis::Linear);
        assert_eq!(choose_axis(&[" 2.5", "1e3"]).0, Axis::Log);
        assert_eq!(choose_axis(&["7"]).0, Axis::Linear);
    }

    #[test]
    fn anything_not_a_number_makes_every_argument_a_category_in_order() {
        assert_eq!(
            choose_axis(&["sorted", "shuffled"]),
            (Axis::Categorical, vec![0.0, 1.0])
        );
        assert_eq!(
            choose_axis(&["1", "2", "large"]),
            (Axis::Categorical, vec![0.0, 1.0, 2.0])
        );
        assert_eq!(choose_axis(&["inf", "1"]).0, Axis::Categorical);
        assert_eq!(choose_axis(&["NaN", "1"]).0, Axis::Categorical);
    }

    #[test]
    fn a_throughput_chart_says_how_many_arguments_it_lacks() {
        assert_eq!(missing_rates(3, 3), "");
        assert!(missing_rates(2, 3).starts_with(" (1 argument without one:"));
        assert!(missing_rates(0, 2).starts_with(" (2 arguments without one:"));
    }
}
