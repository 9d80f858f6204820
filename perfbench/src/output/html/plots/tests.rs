//! Tests of the charts: absurd values drawn quickly and finitely, ranges,
//! each family's marks; `shapes`, `circles` and `joining` read an SVG's
//! marks back for the report's tests too.

use super::axes::{drawable, span};
use super::*;
use crate::analysis::test_support::estimate;
use crate::counter::event::Unit;
use crate::measure::Throughput;
use crate::stats::{Estimate, Interval};

fn exact(v: f64) -> Estimate {
    Estimate {
        point: v,
        ci: Interval { low: v, high: v },
    }
}

/// The vertices of every `<tag points="…">` element of `svg`.
pub(in crate::output::html) fn shapes(svg: &str, tag: &str) -> Vec<Vec<(i32, i32)>> {
    svg.split(&format!("<{tag} "))
        .skip(1)
        .map(|element| {
            let points = element.split("points=\"").nth(1).unwrap();
            points[..points.find('"').unwrap()]
                .split_whitespace()
                .map(|xy| {
                    let (x, y) = xy.split_once(',').unwrap();
                    (x.parse().unwrap(), y.parse().unwrap())
                })
                .collect()
        })
        .collect()
}

/// The centres of the circles of `svg`.
pub(in crate::output::html) fn circles(svg: &str) -> Vec<(i32, i32)> {
    let attr = |element: &str, name: &str| -> i32 {
        let v = element.split(&format!(" {name}=\"")).nth(1).unwrap();
        v[..v.find('"').unwrap()].parse().unwrap()
    };
    svg.split("<circle")
        .skip(1)
        .map(|c| (attr(c, "cx"), attr(c, "cy")))
        .collect()
}

/// The vertical bars of `lines` through `c`.
fn bar_through(lines: &[Vec<(i32, i32)>], c: (i32, i32)) -> Vec<&Vec<(i32, i32)>> {
    lines
        .iter()
        .filter(|l| {
            l.len() == 2
                && l[0].0 == c.0
                && l[1].0 == c.0
                && l[0].1.min(l[1].1) <= c.1
                && c.1 <= l[0].1.max(l[1].1)
        })
        .collect()
}

/// The polylines through two or more of `points`.
pub(in crate::output::html) fn joining(svg: &str, points: &[(i32, i32)]) -> usize {
    shapes(svg, "polyline")
        .iter()
        .filter(|line| points.iter().filter(|p| line.contains(p)).count() >= 2)
        .count()
}

/// `points` as the one line of a chart.
fn alone(points: Vec<ArgPoint>) -> Vec<ArgSeries<'static>> {
    vec![ArgSeries {
        label: "",
        color: NEW,
        points,
    }]
}

fn numbers_are_finite(svg: &str) {
    for bad in ["NaN", "inf"] {
        assert!(!svg.contains(bad), "{bad} in {svg}");
    }
}

/// What `draw` returns, failing where it is still drawing after 10 s
/// (plotters looped forever on an infinite range).
fn within_10_s<T: Send + 'static>(draw: impl FnOnce() -> T + Send + 'static) -> T {
    let (done, result) = std::sync::mpsc::channel();
    std::thread::spawn(move || done.send(draw()));
    let ten = std::time::Duration::from_secs(10);
    result.recv_timeout(ten).expect("drawn within 10 s")
}

#[test]
fn absurd_values_draw_quickly_and_finitely() {
    let huge = [-1e308, f64::NAN, 1e308, 0.0, f64::INFINITY];
    for values in [vec![-1e308, 1e308], vec![0.0, 1e308], huge.to_vec()] {
        let svg = within_10_s(move || {
            let set = |values| DistributionSet {
                label: "this run",
                values,
                samples: 3,
                color: NEW,
            };
            distribution(&[set(&values), set(&[1.0, 2.0])], Unit::Count).unwrap()
        });
        assert!(svg.starts_with("<svg"), "{svg}");
        numbers_are_finite(&svg);
    }
    let svg = within_10_s(|| {
        let slope = estimate(f64::NAN, -1e308, 1e308);
        regression(&[1, u64::MAX], &[u64::MAX, 0], &slope, 1e308, Unit::Count).unwrap()
    });
    assert!(svg.starts_with("<svg"), "{svg}");
    numbers_are_finite(&svg);
    let svg = within_10_s(|| {
        let points = [
            (1e308, estimate(1.0, -1e308, 1e308)),
            (f64::NAN, exact(1e308)),
        ]
        .map(|(x, estimate)| ArgPoint { x, estimate });
        let series = [ArgSeries {
            label: "f",
            color: NEW,
            points: points.to_vec(),
        }];
        let metric = Measure::Metric(Unit::Nanoseconds);
        by_argument("f", &series, &ArgAxis::Numeric { log: false }, metric).unwrap()
    });
    assert!(svg.starts_with("<svg"), "{svg}");
    numbers_are_finite(&svg);
}

#[test]
fn axes_are_finite_bounded_and_wide_enough() {
    assert_eq!(drawable(-1e308, 1e308), -1e100..1e100);
    assert_eq!(drawable(f64::NAN, f64::INFINITY), 0.0..1e100);
    assert_eq!(drawable(2.0, 1.0), 1.0..2.0);
    assert_eq!(drawable(1e15, 1e15 + 0.125), 1e15 - 1e6..1e15 + 1e6);
    assert_eq!(drawable(0.0, 0.0), -1e-300..1e-300);
}

#[test]
fn spans_are_finite_and_never_empty() {
    for (lo, hi) in [
        (16.0, 16.0),
        (0.0, 0.0),
        (-3.0, -3.0),
        (1.0, 2.0),
        (f64::NAN, 1.0),
        (1e18, 1e18),
    ] {
        let (a, b) = span(lo, hi);
        assert!(
            a.is_finite() && b.is_finite() && b > a,
            "{lo} {hi} -> {a} {b}"
        );
    }
}

#[test]
fn a_constant_set_is_a_single_marked_value_and_a_varying_one_a_curve() {
    let exact = [16.0; 50];
    let svg = distribution(
        &[DistributionSet {
            label: "this run",
            values: &exact,
            samples: exact.len(),
            color: NEW,
        }],
        Unit::Count,
    )
    .unwrap();
    numbers_are_finite(&svg);
    assert!(svg.contains("50 samples: 16"), "{svg}");
    assert!(!svg.contains("<polygon"), "no density area for a constant");

    let varying: Vec<f64> = (0..50).map(|i| 100.0 + f64::from(i % 7)).collect();
    let svg = distribution(
        &[
            DistributionSet {
                label: "this run",
                values: &varying,
                samples: varying.len(),
                color: NEW,
            },
            DistributionSet {
                label: "baseline <main>",
                values: &exact,
                samples: exact.len(),
                color: BASE,
            },
        ],
        Unit::Nanoseconds,
    )
    .unwrap();
    numbers_are_finite(&svg);
    assert!(svg.contains("<polygon"), "a density area");
    assert!(svg.contains("baseline &lt;main&gt;"), "legend, escaped");
    assert!(svg.contains("this run"));
}

#[test]
fn the_regression_has_its_points_and_line() {
    let svg = regression(
        &[1, 2, 3],
        &[10, 20, 30],
        &exact(10.0),
        0.0,
        Unit::Nanoseconds,
    )
    .unwrap();
    numbers_are_finite(&svg);
    assert_eq!(
        svg.matches("<circle").count(),
        3 + 1,
        "3 samples and a legend mark"
    );
    assert!(svg.contains("fit: 10.00 ns per iteration"), "{svg}");
    // One sample size only, and a zero total: still a drawable plot.
    let svg = regression(&[5, 5], &[0, 0], &exact(0.0), 0.0, Unit::Count).unwrap();
    numbers_are_finite(&svg);
}

#[test]
fn the_regression_band_spans_the_slope_interval_from_the_intercept() {
    let iterations = [10, 20, 30, 40];
    let totals = [1000, 2000, 3000, 4000];
    let svg = regression(
        &iterations,
        &totals,
        &estimate(100.0, 80.0, 120.0),
        0.0,
        Unit::Nanoseconds,
    )
    .unwrap();
    assert!(svg.contains("95 % interval of the slope"), "the legend");
    let bands = shapes(&svg, "polygon");
    assert_eq!(bands.len(), 1, "{svg}");
    let band = &bands[0];
    let fit = shapes(&svg, "polyline")
        .into_iter()
        .find(|l| l.len() == 2 && l[0] == band[0])
        .expect("the fitted line starts where the band does");
    let (left, right) = (fit[0], fit[1]);
    // The band's far side spans 80..120 per iteration at 40 iterations:
    // 40 % of the line's rise, evenly about it.
    let (high, low) = (band[1], band[2]);
    assert_eq!((high.0, low.0), (right.0, right.0));
    let rise = f64::from(left.1 - right.1);
    assert!(
        (f64::from(low.1 - high.1) - 0.4 * rise).abs() <= 2.0,
        "{band:?} {fit:?}"
    );
    assert!(
        ((right.1 - high.1) - (low.1 - right.1)).abs() <= 1,
        "{band:?}"
    );

    // An exact slope: a band of no height.
    let svg = regression(&iterations, &totals, &exact(100.0), 0.0, Unit::Count).unwrap();
    let band = &shapes(&svg, "polygon")[0];
    assert_eq!(band[1], band[2]);
}

#[test]
fn numbers_are_joined_on_a_log_axis_and_categories_stand_apart() {
    let points = |xs: &[f64]| -> Vec<ArgPoint> {
        xs.iter()
            .enumerate()
            .map(|(i, &x)| ArgPoint {
                x,
                estimate: estimate(
                    10.0 * (i + 1) as f64,
                    10.0 * i as f64,
                    10.0 * (i + 2) as f64,
                ),
            })
            .collect()
    };
    let count = Measure::Metric(Unit::Count);
    let svg = by_argument(
        "page-faults",
        &alone(points(&[64.0, 4096.0, 65536.0])),
        &ArgAxis::Numeric { log: true },
        count,
    )
    .unwrap();
    numbers_are_finite(&svg);
    let at = circles(&svg);
    assert_eq!(at.len(), 3);
    // log10: 1.81, 3.61, 4.82; the middle lies 60 % of the way across,
    // where a linear axis would put it at 6 %.
    let share = f64::from(at[1].0 - at[0].0) / f64::from(at[2].0 - at[0].0);
    assert!((share - 0.6).abs() < 0.02, "{at:?}");
    assert!(svg.contains("\n1000\n"), "a power of ten labelled: {svg}");
    assert_eq!(joining(&svg, &at), 1, "one line through the numbers");

    let names = ["ascii".to_string(), "<b>".to_string(), "c".to_string()];
    let svg = by_argument(
        "wall-time",
        &alone(points(&[0.0, 1.0, 2.0])),
        &ArgAxis::Categorical(&names),
        Measure::Metric(Unit::Nanoseconds),
    )
    .unwrap();
    numbers_are_finite(&svg);
    assert!(svg.contains("ascii") && svg.contains("&lt;b&gt;"), "{svg}");
    assert!(!svg.contains("<b>"));
    let at = circles(&svg);
    assert_eq!(at.len(), 3);
    assert_eq!(joining(&svg, &at), 0, "categories are not joined: {svg}");
    // Each still has its interval as a bar through it.
    let lines = shapes(&svg, "polyline");
    for c in &at {
        assert_eq!(bar_through(&lines, *c).len(), 1, "{c:?} {svg}");
    }
}

#[test]
fn several_lines_each_join_their_own_points_in_their_colour_with_a_legend() {
    let line = |label: &'static str, i: usize, per: f64| ArgSeries {
        label,
        color: member_color(i),
        points: [1.0, 2.0, 4.0]
            .iter()
            .map(|&x| ArgPoint {
                x,
                estimate: estimate(per * x, per * x - 0.5, per * x + 0.5),
            })
            .collect(),
    };
    let series = [line("single", 0, 1.0), line("<triple>", 1, 3.0)];
    let svg = by_argument(
        "page-faults",
        &series,
        &ArgAxis::Numeric { log: false },
        Measure::Metric(Unit::Count),
    )
    .unwrap();
    numbers_are_finite(&svg);
    let at = circles(&svg);
    assert_eq!(at.len(), 6, "three points a line, no mark in the legend");
    let (single, triple) = at.split_at(3);
    assert_eq!(joining(&svg, single), 1);
    assert_eq!(joining(&svg, triple), 1);
    assert_eq!(
        joining(&svg, &at),
        2,
        "no line from one member to the other"
    );
    assert!(
        svg.contains("single") && svg.contains("&lt;triple&gt;"),
        "{svg}"
    );
    let fill = |c: RGBColor| format!("fill=\"#{:02X}{:02X}{:02X}\"", c.0, c.1, c.2);
    assert_eq!(svg.matches(&fill(BASE)).count(), 3 + 1, "points and swatch");

    // Categories: no line at all, the legend still.
    let names = ["1".to_string(), "2".to_string(), "4".to_string()];
    let series = series.map(|mut s| {
        s.points
            .iter_mut()
            .enumerate()
            .for_each(|(i, p)| p.x = i as f64);
        s
    });
    let svg = by_argument(
        "page-faults",
        &series,
        &ArgAxis::Categorical(&names),
        Measure::Metric(Unit::Count),
    )
    .unwrap();
    assert_eq!(joining(&svg, &circles(&svg)), 0);
    assert!(svg.contains("&lt;triple&gt;"));
}

#[test]
fn rates_label_their_axis_and_an_open_interval_reaches_the_top() {
    let gib = 1024.0 * 1024.0 * 1024.0;
    let points = [
        ArgPoint {
            x: 1.0,
            estimate: estimate(gib, 0.5 * gib, 2.0 * gib),
        },
        ArgPoint {
            x: 100.0,
            estimate: estimate(3.0 * gib, 2.0 * gib, f64::INFINITY),
        },
    ];
    let svg = by_argument(
        "throughput (bytes/s)",
        &alone(points.into()),
        &ArgAxis::Numeric { log: true },
        Measure::Rate(Throughput::Bytes(1)),
    )
    .unwrap();
    numbers_are_finite(&svg);
    assert!(svg.contains(" GB/s\n"), "{svg}");
    let at = circles(&svg);
    let lines = shapes(&svg, "polyline");
    let bar = bar_through(&lines, at[1])[0];
    // The y axis is the longest vertical line; its top, the chart's.
    let axis_top = lines
        .iter()
        .filter(|l| l.len() == 2 && l[0].0 == l[1].0)
        .max_by_key(|l| (l[0].1 - l[1].1).abs())
        .map(|l| l[0].1.min(l[1].1))
        .unwrap();
    assert_eq!(bar[0].1.min(bar[1].1), axis_top, "{bar:?}");
}

/// A trend of 1,000 runs stepping by +5 % at index 600, whose branch is
/// hostile text.
fn stepping_trend() -> crate::store::history::Trend {
    use crate::analysis::comparison::Thresholds;
    use crate::store::history::{tests::run_at, History, Trend};
    let mut history = History::default();
    for i in 0..1000 {
        let wobble = [0.0, 0.004, -0.003, 0.002, -0.005][i % 5];
        let level = if i < 600 { 1000.0 } else { 1050.0 };
        let mut run = run_at(i, level * (1.0 + wobble));
        run.branch = Some(crate::output::html::tests::HOSTILE.into());
        history.runs.push(run);
    }
    Trend::of(&history, &Thresholds::default()).unwrap()
}

#[test]
fn the_history_chart_marks_its_change_point_and_escapes_stored_text() {
    use crate::output::html::tests::{ESCAPED, HOSTILE};
    let trend = stepping_trend();
    assert_eq!(trend.changes.len(), 1);
    let svg = history(&trend).unwrap();
    assert!(!svg.contains(HOSTILE) && svg.contains(ESCAPED));
    assert_eq!(
        svg.matches("<g class=\"change-point\" data-run=\"601\">")
            .count(),
        1
    );
    assert!(svg.contains(">+5.00%</text>"), "the step's size labelled");
    // Thinned, but both sides of the step and the latest run are drawn.
    let runs = svg.matches("<circle class=\"run\"").count();
    assert!((300..=303).contains(&runs), "{runs}");
    for run in [600, 601, 1000] {
        assert!(svg.contains(&format!("<title>run {run}: ")), "run {run}");
    }
    assert!(
        svg.contains("commit 00003e7+dirty on "),
        "the latest, dirty"
    );
    assert!(svg.len() < 300_000, "{} bytes", svg.len());
    // Absurd but stored-legal values still draw.
    let mut wild = trend.clone();
    wild.runs[0].estimate = exact(1e100);
    wild.runs[1].estimate = exact(-1e100);
    assert!(history(&wild).is_ok());
}
