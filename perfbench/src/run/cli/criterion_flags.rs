//! Criterion's command line (0.5 to 0.8, `Criterion::configure_from_args`),
//! so that a Criterion suite's scripts keep working under perfbench: the
//! flags only Criterion has ([`CRITERION_FLAGS`], each doing here what is
//! closest and true, and saying once where it cannot take effect), and
//! every flag of Criterion's with what it does under perfbench
//! ([`CRITERION`]), from which docs/options.md's table of Criterion's flags
//! is written ([`criterion_table`]).

use crate::stats::Bootstrap;

use super::flags::{resolve, Flag, Takes};
use super::values::{baseline_name, level, one_of, whole};

/// The bootstrap's resamples and confidence, which no flag changes.
fn bootstrap() -> Bootstrap {
    Bootstrap::default()
}

/// The flags only Criterion has, in the order of its `--help`.
pub(super) const CRITERION_FLAGS: &[Flag] = &[
    Flag::criterion(
        "discard-baseline",
        Takes::Nothing(|p| {
            p.discard_baseline = true;
            p.note(
                "--discard-baseline: no named baseline is saved (none is without \
                 --save-baseline), but the run is stored as the latest, for the next to \
                 compare with"
                    .into(),
            )
        }),
        "save no named baseline (--save-baseline contradicts it); the run is still stored as the \
         latest (said once)",
    ),
    Flag::criterion(
        "baseline-lenient",
        Takes::Value("NAME", |p, v, _| {
            p.baseline = Some(baseline_name(v)?);
            Ok(())
        }),
        "compare with baseline NAME, as --baseline: a benchmark missing from it is shown as \
         new; a NAME with no results at all is an error",
    ),
    Flag::criterion(
        "load-baseline",
        Takes::Value("NAME", |p, v, _| {
            let name = baseline_name(v)?;
            p.load_baseline = true;
            p.note(format!(
                "--load-baseline {name}: perfbench measures anew rather than loading the \
                 samples of `{name}`, and compares with --baseline as asked"
            ));
            Ok(())
        }),
        "with --baseline: measures anew instead of loading NAME's samples (said once)",
    ),
    Flag::criterion(
        "nresamples",
        Takes::Value("N", |p, v, what| {
            let n = whole(v, what, 1_000_000_000)?;
            let fixed = bootstrap().resamples;
            if n != fixed as u64 {
                p.note(format!(
                    "--nresamples {n} has no effect: the bootstrap always takes {fixed} \
                     resamples, seeded"
                ));
            }
            Ok(())
        }),
        "the bootstrap always takes 1000 resamples: another N is named once",
    ),
    Flag::criterion(
        "confidence-level",
        Takes::Value("F", |p, v, what| {
            let asked = level(v, what)?;
            let fixed = bootstrap().confidence;
            if asked != fixed {
                p.note(format!(
                    "--confidence-level {asked} has no effect: every interval is {} %",
                    fixed * 100.0
                ));
            }
            Ok(())
        }),
        "intervals are always 95 %: 0.95 is taken, another level named once",
    ),
    Flag::criterion(
        "significance-level",
        Takes::Value("F", |p, v, what| {
            let asked = level(v, what)?;
            let fixed = 1.0 - bootstrap().confidence;
            if (asked - fixed).abs() > 1e-12 {
                p.note(format!(
                    "--significance-level {asked} has no effect: a change is significant \
                     where its 95 % interval excludes zero, p < 0.05"
                ));
            }
            Ok(())
        }),
        "a change is significant where its 95 % interval excludes zero (p < 0.05): 0.05 is \
         taken, another level named once",
    ),
    Flag::criterion(
        "plotting-backend",
        Takes::Value("gnuplot|plotters", |p, v, what| {
            one_of(v, what, &["gnuplot", "plotters"])?;
            p.note(format!(
                "--plotting-backend {v} has no effect: perfbench draws its report's plots \
                 itself, as SVG (--noplot leaves them out)"
            ));
            Ok(())
        }),
        "no effect, named once: perfbench draws its report's plots itself",
    ),
    Flag::criterion(
        "version",
        Takes::Nothing(|p| {
            p.note("--version has no effect (Criterion accepts it and does nothing)".into())
        }),
        "no effect, as in Criterion, named once",
    )
    .short('V'),
];

/// Criterion's one-letter flags (`-q` is libtest's only).
pub(super) const CRITERION_LETTERS: &[char] = &['b', 'c', 'h', 'n', 's', 'v', 'V'];

/// Every flag of Criterion 0.5 to 0.8 (its spelling, without `--`), with
/// what it does under perfbench; `None` where the flag is Criterion's only
/// and its help says it.
pub(super) const CRITERION: &[(&str, Option<&str>)] = &[
    ("bench", Some("the same: measure (`cargo bench` passes it)")),
    (
        "test",
        Some("the same: run each benchmark once, as without `--bench` (`cargo test --benches`)"),
    ),
    ("list", Some("the same: `ID: benchmark` lines")),
    (
        "format",
        Some("the same: `terse` lists without the summary line"),
    ),
    ("exact", Some("the same: the filter matches whole ids")),
    (
        "ignored",
        Some(
            "the `#[ignore]`d benchmarks only; a Criterion suite has none, so none run, as in \
             Criterion",
        ),
    ),
    (
        "include-ignored",
        Some("the `#[ignore]`d benchmarks too (Criterion 0.6+ accepts it without effect)"),
    ),
    ("color", Some("the same")),
    ("colour", Some("`--color`")),
    (
        "verbose",
        Some("the table's full block: every metric with its interval, the cost of measuring"),
    ),
    (
        "quiet",
        Some(
            "under `criterion_main!` while measuring, no effect, named once (the table has no \
             quieter form); otherwise libtest's, without effect",
        ),
    ),
    ("noplot", Some("the same: the HTML report without plots")),
    (
        "save-baseline",
        Some(
            "store the run as baseline NAME too; it is compared with the previous run \
             (Criterion: with NAME's previous results). Without it Criterion saves every run \
             as `base`, the next run's comparison: perfbench stores every run as the latest, \
             the next run's comparison",
        ),
    ),
    ("discard-baseline", None),
    (
        "baseline",
        Some(
            "compare with baseline NAME; a NAME with no results is an error before measuring \
             (Criterion: a panic at the first benchmark), a benchmark missing from NAME is \
             shown as new (Criterion: a panic)",
        ),
    ),
    ("baseline-lenient", None),
    ("load-baseline", None),
    (
        "profile-time",
        Some("the same: above 0 s (Criterion: at least 1 s)"),
    ),
    (
        "sample-size",
        Some("`--sample-count`: 1 to 1,000,000 (Criterion: at least 10)"),
    ),
    ("warm-up-time", Some("the same")),
    ("measurement-time", Some("the same")),
    ("nresamples", None),
    (
        "noise-threshold",
        Some(
            "under `criterion_main!` Criterion's fraction (0.05 is 5 %; `5%` also works), \
             elsewhere a percentage: changes of times within it are noise (counts: \
             `--count-noise-threshold`)",
        ),
    ),
    ("confidence-level", None),
    ("significance-level", None),
    (
        "quick",
        Some(
            "a short run of fixed length (Criterion's stops sampling once the significance \
             level is reached)",
        ),
    ),
    ("plotting-backend", None),
    (
        "output-format",
        Some(
            "`criterion` is perfbench's table (`pretty`), `bencher` libtest's `test ID ... \
             bench: N ns/iter (+/- M)` lines, as Criterion's",
        ),
    ),
    (
        "nocapture",
        Some("accepted without effect, as in Criterion"),
    ),
    (
        "show-output",
        Some("accepted without effect, as in Criterion"),
    ),
    ("version", None),
    ("help", Some("perfbench's help")),
];

/// Criterion's flags as docs/options.md's table: how Criterion spells each,
/// what it is here, and what it does under perfbench; every spelling is
/// looked up in the flag table, so that the table cannot name a flag the
/// parser refuses.
pub fn criterion_table() -> String {
    let mut s =
        String::from("| Criterion's flag | perfbench's | under perfbench |\n| --- | --- | --- |\n");
    for (name, here) in CRITERION {
        let (flag, _) = resolve(name).expect("every Criterion flag is accepted");
        let value = match flag.takes {
            Takes::Value(v, _) => format!(" {v}"),
            Takes::Optional(v, _) => v.to_string(),
            Takes::Nothing(_) => String::new(),
        };
        let value = value.replace('|', "\\|");
        let short = match flag.short {
            Some(c) if flag.name == *name && CRITERION_LETTERS.contains(&c) => {
                format!("`-{c}`, ")
            }
            _ => String::new(),
        };
        let here = here.or(flag.help).unwrap_or_default();
        s.push_str(&format!(
            "| {short}`--{name}{value}` | `--{}` | {here} |\n",
            flag.name
        ));
    }
    s
}
