//! The flags, each one typed definition: its name, the name of its value,
//! its help, the default it shows, another spelling, and what it sets. The
//! parser (`parse.rs`), the environment twins and `--help`
//! ([`usage`]) all come from this one table, so they cannot disagree; the
//! defaults `--help` shows are read from where the run takes them
//! ([`Config::default`], [`Thresholds::default`], [`quick_config`]).

use crate::analysis::comparison::Thresholds;
use crate::measure::Config;
use crate::output::Color;

use super::criterion_flags::CRITERION_FLAGS;
use super::parse::Parsed;
use super::usage_error::UsageError;
use super::values::{
    baseline_name, events, fraction_or_percent, given_twice, number, one_of, output_files,
    output_format, paired_path, percent, percent_text, positive_seconds, profile_event, revision,
    same_file, seconds, seconds_text, whole, MAX_ROUNDS, MAX_SAMPLE_COUNT,
};
use super::{quick_config, Dialect, OutputFormat, Pairing, RegressionGate};

/// What a flag's value sets, given the value and the flag as the user
/// spelled it (for errors).
pub(super) type Set = fn(&mut Parsed, &str, &str) -> Result<(), UsageError>;

/// Whether a flag takes a value, and what it sets.
#[derive(Clone, Copy)]
pub(super) enum Takes {
    /// A switch: `--exact`.
    Nothing(fn(&mut Parsed)),
    /// `--cpu N` or `--cpu=N`: the name of the value, and what it sets.
    Value(&'static str, Set),
    /// `--fail-on-regression[=PCT]`: the value only after `=`, so that a
    /// following word stays a filter. Set with `""` where it is left out.
    Optional(&'static str, Set),
}

/// What `--help` shows of a flag beside its help.
#[derive(Clone, Copy)]
pub(super) enum Shown {
    /// Nothing more.
    Nothing,
    /// `(default 50)`: a value, read from where the run takes it.
    Default(fn() -> String),
    /// `(default: the previous run)`: what happens unasked, in words.
    DefaultWords(&'static str),
    /// `: 0.05 s warm-up, …`: the settings a flag stands for.
    Settings(fn() -> String),
}

/// Whose flag it is: perfbench's own have an environment twin and a line in
/// `--help`'s options; Criterion's, accepted so that a Criterion suite's
/// scripts keep working, a line in its own section and no twin; libtest's,
/// accepted without effect, neither.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Whose {
    /// perfbench's.
    Own,
    /// Criterion's only (`criterion_flags.rs`).
    Criterion,
    /// libtest's, which `cargo test` passes to every target.
    Libtest,
}

/// One flag: a long option with its `PERFBENCH_*` twin.
#[derive(Clone, Copy)]
pub(super) struct Flag {
    /// The long name, without `--`.
    pub name: &'static str,
    /// Its value, and what it sets.
    pub takes: Takes,
    /// One line for `--help`; `None` for libtest's flags, accepted without
    /// effect and without a twin.
    pub help: Option<&'static str>,
    /// Whose flag it is.
    pub origin: Whose,
    /// Its one-letter form (`-s`), Criterion's where it has one.
    pub short: Option<char>,
    /// Said in parentheses after the help, before a default.
    pub note: Option<&'static str>,
    /// What `--help` shows beside the help.
    pub shown: Shown,
    /// Another spelling on the command line, and whose it is (its twin is
    /// this flag's).
    pub alias: Option<(&'static str, &'static str)>,
}

impl Flag {
    /// A switch.
    const fn switch(name: &'static str, help: &'static str, set: fn(&mut Parsed)) -> Flag {
        Flag::new(name, Takes::Nothing(set), Some(help))
    }

    /// A flag that takes a value named `value`.
    const fn value(name: &'static str, value: &'static str, help: &'static str, set: Set) -> Flag {
        Flag::new(name, Takes::Value(value, set), Some(help))
    }

    /// A flag of perfbench's with `help` (`None`: libtest's, with neither
    /// help nor twin).
    pub(super) const fn new(name: &'static str, takes: Takes, help: Option<&'static str>) -> Flag {
        let origin = match help {
            Some(_) => Whose::Own,
            None => Whose::Libtest,
        };
        Flag {
            name,
            takes,
            help,
            origin,
            short: None,
            note: None,
            shown: Shown::Nothing,
            alias: None,
        }
    }

    /// The flag, showing `shown` in `--help`.
    const fn showing(self, shown: Shown) -> Flag {
        Flag { shown, ..self }
    }

    /// The flag, with `note` in parentheses in `--help`.
    const fn noting(self, note: &'static str) -> Flag {
        Flag {
            note: Some(note),
            ..self
        }
    }

    /// Criterion's flag, without a twin, its `help` saying what it does
    /// under perfbench.
    pub(super) const fn criterion(name: &'static str, takes: Takes, help: &'static str) -> Flag {
        Flag {
            origin: Whose::Criterion,
            ..Flag::new(name, takes, Some(help))
        }
    }

    /// The flag, also spelled `-letter`.
    pub(super) const fn short(self, letter: char) -> Flag {
        Flag {
            short: Some(letter),
            ..self
        }
    }

    /// The flag, also spelled `--alias` (`whose` spelling it is).
    pub(super) const fn also(self, alias: &'static str, whose: &'static str) -> Flag {
        Flag {
            alias: Some((alias, whose)),
            ..self
        }
    }

    /// Its environment twin, `PERFBENCH_WARM_UP_TIME` for `--warm-up-time`;
    /// only perfbench's own flags have one.
    pub fn twin(&self) -> Option<String> {
        (self.origin == Whose::Own).then(|| twin_of(self.name))
    }

    /// Its line in `--help`.
    fn usage_line(&self, help: &str) -> String {
        let short = self.short.map(|c| format!("-{c}, ")).unwrap_or_default();
        let left = match self.takes {
            Takes::Optional(v, _) => format!("{short}--{}{v}", self.name),
            Takes::Value(v, _) => format!("{short}--{} {v}", self.name),
            Takes::Nothing(_) => format!("{short}--{}", self.name),
        };
        let mut text = help.to_string();
        let mut aside: Vec<String> = self.note.iter().map(|n| n.to_string()).collect();
        match self.shown {
            Shown::Nothing => {}
            Shown::Default(value) => aside.push(format!("default {}", value())),
            Shown::DefaultWords(words) => aside.push(format!("default: {words}")),
            Shown::Settings(settings) => text.push_str(&format!(": {}", settings())),
        }
        if !aside.is_empty() {
            text.push_str(&format!(" ({})", aside.join("; ")));
        }
        if let Some((alias, whose)) = self.alias {
            text.push_str(&format!("; also --{alias} ({whose})"));
        }
        format!("  {left:<34} {text}\n")
    }
}

/// The environment twin of the flag `--name`.
fn twin_of(name: &str) -> String {
    format!("PERFBENCH_{}", name.to_uppercase().replace('-', "_"))
}

/// The flag named `name` (not an alias).
pub(super) fn find(name: &str) -> Option<&'static Flag> {
    all().find(|f| f.name == name)
}

/// Every flag: perfbench's and libtest's ([`FLAGS`]), then Criterion's
/// ([`CRITERION_FLAGS`]).
pub(super) fn all() -> impl Iterator<Item = &'static Flag> {
    FLAGS.iter().chain(CRITERION_FLAGS)
}

/// The flag `name` stands for, by its name or its alias, and whether it
/// was the alias.
pub(super) fn resolve(name: &str) -> Option<(&'static Flag, bool)> {
    find(name).map(|f| (f, false)).or_else(|| {
        all()
            .find(|f| f.alias.is_some_and(|(alias, _)| alias == name))
            .map(|f| (f, true))
    })
}

/// The flag whose one-letter form is `-letter`.
pub(super) fn resolve_short(letter: char) -> Option<&'static Flag> {
    all().find(|f| f.short == Some(letter))
}

/// Every flag, in the order of `--help`.
pub(super) const FLAGS: &[Flag] = &[
    Flag::switch("bench", "measure (cargo bench passes this)", |p| {
        p.bench = true
    }),
    Flag::switch("test", "run each benchmark once as a test", |p| {
        p.test = true
    }),
    Flag::switch("exact", "filters match whole ids", |p| p.exact = true),
    Flag::value(
        "skip",
        "FILTER",
        "skip benchmarks whose id contains FILTER",
        |p, v, _| {
            p.skip.push(v.into());
            Ok(())
        },
    ),
    Flag::switch("list", "list benchmarks as `ID: benchmark`", |p| {
        p.list = true
    }),
    Flag::value(
        "format",
        "pretty|terse",
        "format of --list",
        |p, v, what| {
            p.terse = one_of(v, what, &["pretty", "terse"])? == 1;
            Ok(())
        },
    ),
    Flag::switch(
        "ignored",
        "run only the ignored benchmarks (#[ignore])",
        |p| p.ignored = true,
    ),
    Flag::switch("include-ignored", "run the ignored benchmarks too", |p| {
        p.include_ignored = true
    }),
    Flag::value(
        "events",
        "SPEC",
        "comma-separated events, perf's spelling",
        |p, v, _| {
            p.events = Some(events(v)?);
            Ok(())
        },
    ),
    Flag::switch(
        "list-events",
        "list the events this machine can count",
        |p| p.list_events = true,
    ),
    Flag::value(
        "cpu",
        "N",
        "pin the measuring thread to CPU N",
        |p, v, what| {
            p.cpu = Some(number(v, what)?);
            Ok(())
        },
    ),
    Flag::value(
        "cpu-type",
        "TYPE",
        "on hybrid CPUs, pin to a core of this type",
        |p, v, _| {
            p.cpu_type = Some(v.into());
            Ok(())
        },
    )
    .noting("its core PMU: cpu_core or core, cpu_atom or atom, armv8_…")
    .showing(Shown::DefaultWords("the performance cores")),
    Flag::switch(
        "pin",
        "pin the measuring thread (and the threads it spawns) to the CPU it starts on",
        |p| p.pin = true,
    ),
    Flag::switch(
        "no-pin",
        "do not pin the measuring thread, not even on hybrid CPUs",
        |p| p.no_pin = true,
    ),
    Flag::value(
        "sample-count",
        "N",
        "samples per benchmark",
        |p, v, what| {
            p.sample_count = Some(whole(v, what, MAX_SAMPLE_COUNT)?);
            Ok(())
        },
    )
    .showing(Shown::Default(|| {
        Config::default().sample_count.to_string()
    }))
    .also("sample-size", "Criterion's"),
    Flag::value("warm-up-time", "S", "warm-up seconds", |p, v, what| {
        p.warm_up = Some(seconds(v, what)?);
        Ok(())
    })
    .showing(Shown::Default(|| seconds_text(Config::default().warm_up))),
    Flag::value(
        "measurement-time",
        "S",
        "measurement seconds",
        |p, v, what| {
            p.measurement = Some(seconds(v, what)?);
            Ok(())
        },
    )
    .showing(Shown::Default(|| {
        seconds_text(Config::default().measurement)
    })),
    Flag::value(
        "rounds",
        "N",
        "measure each benchmark in N rounds interleaved with the others, sharing its time and \
         samples",
        |p, v, what| {
            p.rounds = Some(whole(v, what, MAX_ROUNDS)?);
            Ok(())
        },
    )
    .showing(Shown::Default(|| Config::default().rounds.to_string())),
    Flag::new(
        "profile",
        Takes::Optional("[=EVENT]", |p, v, what| {
            p.profile = Some(profile_event(v, what)?);
            Ok(())
        }),
        Some(
            "after measuring each benchmark, sample its routine for about 0.5 s and store \
             where EVENT happens: a flame graph, folded stacks, top functions; \
             --profile=regressed: only the benchmarks judged regressed",
        ),
    )
    .showing(Shown::DefaultWords("cycles, or cpu-clock without a PMU")),
    Flag::value(
        "profile-time",
        "S",
        "run each routine for about S seconds for a profiler (perf record): no counters, \
         analysis or storing",
        |p, v, what| {
            p.profile_time = Some(positive_seconds(v, what)?);
            Ok(())
        },
    ),
    Flag::switch("quick", "short run", |p| p.quick = true).showing(Shown::Settings(|| {
        let q = quick_config();
        format!(
            "{} s warm-up, {} s measurement, {} samples",
            seconds_text(q.warm_up),
            seconds_text(q.measurement),
            q.sample_count
        )
    })),
    Flag::value(
        "output-format",
        "FORMAT",
        "on stdout: pretty (the table; also Criterion's `criterion`), json (JSON lines), bencher (libtest bench lines), bmf \
         (Bencher), github-action-benchmark or github-action-benchmark-bigger",
        |p, v, what| {
            p.output_format = Some(match v {
                "criterion" => OutputFormat::Pretty,
                v => output_format(v, what)?,
            });
            Ok(())
        },
    )
    .showing(Shown::DefaultWords("pretty")),
    Flag::value(
        "output-file",
        "FORMAT=PATH",
        "also write FORMAT to the file PATH, whole, when the run ends; PATH is a regular file or \
         none yet (repeatable, a file each; the variable takes a comma list)",
        |p, v, what| {
            // All or nothing: a wrong variable the command line overrides
            // leaves no file of its own behind.
            let mut files = p.output_files.clone();
            for (format, path) in output_files(v, what)? {
                if let Some((_, given)) = files.iter().find(|(_, g)| same_file(g, &path)) {
                    return Err(given_twice(what, given, &path));
                }
                files.push((format, path));
            }
            p.output_files = files;
            Ok(())
        },
    ),
    Flag::value(
        "save-baseline",
        "NAME",
        "also store this run as baseline NAME",
        |p, v, _| {
            p.save_baseline = Some(baseline_name(v)?);
            Ok(())
        },
    )
    .short('s'),
    Flag::value(
        "baseline",
        "NAME",
        "compare with baseline NAME",
        |p, v, _| {
            p.baseline = Some(baseline_name(v)?);
            Ok(())
        },
    )
    .showing(Shown::DefaultWords("the previous run"))
    .short('b'),
    Flag::value(
        "paired-with",
        "PATH",
        "measure this bench binary and PATH (the baseline build) in alternating rounds and compare them",
        |p, v, what| {
            p.paired_with = Some(Pairing::Binary(paired_path(v, what)?));
            Ok(())
        },
    ),
    Flag::value(
        "paired-with-rev",
        "REV",
        "build this bench target at git revision REV and pair with it (as --paired-with)",
        |p, v, what| {
            p.paired_with = Some(Pairing::Revision(revision(v, what)?));
            Ok(())
        },
    ),
    Flag::value(
        "paired-timeout",
        "S",
        "wait at most S seconds for a paired run's builds: for each to greet, for each round, \
         and for each to end",
        |p, v, what| {
            p.paired_timeout = Some(positive_seconds(v, what)?);
            Ok(())
        },
    )
    .showing(Shown::DefaultWords(
        "60 s to greet; for a round, 60 s plus 4 times the benchmark's warm-up and measurement \
         time a pass and 4 times what this build's rounds of it took; 10 s to end",
    )),
    Flag::new(
        "fail-on-regression",
        Takes::Optional("[=PCT]", |p, v, what| {
            p.gate = match v {
                "" => RegressionGate::AnyRegression,
                v => RegressionGate::Beyond(percent(v, what)?),
            };
            Ok(())
        }),
        Some("exit 3 on a regression (beyond PCT %)"),
    ),
    Flag::value(
        "noise-threshold",
        "PCT",
        "changes of times within PCT % are noise; under criterion_main!, as in Criterion, a \
         bare number is a fraction: 0.05 is 5 %",
        |p, v, what| {
            p.thresholds.time = match p.dialect {
                Dialect::Perfbench => percent(v, what)?,
                Dialect::Criterion => fraction_or_percent(v, what)?,
            };
            Ok(())
        },
    )
    .showing(Shown::Default(|| percent_text(Thresholds::default().time))),
    Flag::value(
        "count-noise-threshold",
        "PCT",
        "changes of counts within PCT % are noise",
        |p, v, what| {
            p.thresholds.count = percent(v, what)?;
            Ok(())
        },
    )
    .showing(Shown::Default(|| percent_text(Thresholds::default().count))),
    Flag::value(
        "color",
        "auto|always|never",
        "colour the output",
        |p, v, what| {
            let colors = [Color::Auto, Color::Always, Color::Never];
            p.color = Some(colors[one_of(v, what, &["auto", "always", "never"])?]);
            Ok(())
        },
    )
    .short('c')
    .also("colour", "Criterion's"),
    Flag::value(
        "mode",
        "batch|per-iter",
        "counters per sample of many iterations, or per iteration",
        |p, v, what| {
            p.per_iter = Some(one_of(v, what, &["batch", "per-iter"])? == 1);
            Ok(())
        },
    ),
    Flag::switch(
        "subtract-overhead",
        "subtract the measured cost of measuring, its uncertainty included",
        |p| p.subtract_overhead = true,
    ),
    Flag::switch("noplot", "HTML report without plots (faster)", |p| {
        p.noplot = true
    })
    .short('n'),
    Flag::switch(
        "verbose",
        "the table shows every metric, its interval and the cost of measuring",
        |p| p.verbose = true,
    )
    .short('v'),
    Flag::switch("help", "print this help", |p| p.help = true).short('h'),
    // libtest flags that `cargo test` users pass to every target; accepted
    // and without effect here, since benchmarks run one at a time anyway.
    Flag::new("nocapture", Takes::Nothing(|_| {}), None),
    Flag::new("show-output", Takes::Nothing(|_| {}), None),
    Flag::new("quiet", Takes::Nothing(|p| p.quiet = true), None).short('q'),
    Flag::new(
        "test-threads",
        Takes::Value("N", |_, v, what| number(v, what).map(drop)),
        None,
    ),
];

/// The usage text of `--help`.
pub fn usage() -> String {
    let mut s = String::from(
        "Usage: cargo bench [--bench NAME] -- [OPTIONS] [FILTER]...\n\n\
         Runs the #[perfbench] benchmarks whose id contains a FILTER (all without one).\n\
         Without --bench (cargo test --benches) each runs once as a test.\n\nOptions:\n",
    );
    let lines = |origin: Whose| {
        let flags = all().filter(move |f| f.origin == origin);
        flags.filter_map(|f| f.help.map(|help| f.usage_line(help)))
    };
    s.extend(lines(Whose::Own));
    s.push_str(
        "\nEvery option has an environment twin: --warm-up-time is PERFBENCH_WARM_UP_TIME,\n\
                switches take 1 or 0. The command line wins.\n\n\
         Criterion's options, for a Criterion suite's scripts (no twins):\n",
    );
    s.extend(lines(Whose::Criterion));
    s
}
