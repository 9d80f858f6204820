//! The command line, read once: what to run and for how long.

use std::sync::OnceLock;
use std::time::Duration;

/// What the command line asks.
pub(crate) struct Options {
    /// `--list`: print the ids, run nothing.
    pub list: bool,
    /// Only ids containing this.
    pub filter: Option<String>,
    /// How long the count doubles before the loops are timed.
    pub warm_up: Duration,
    /// How long the ten timed loops take together.
    pub measurement: Duration,
    /// Inputs made before each timed run of a batched routine.
    pub batch: u64,
    /// `PLAIN_LOOP=dyn`: `iter`'s routine called through a pointer.
    pub dyn_loop: bool,
}

/// Criterion's flags that take a value, read past.
const WITH_VALUE: &[&str] = &[
    "--warm-up-time",
    "--measurement-time",
    "--sample-size",
    "--save-baseline",
    "-s",
    "--baseline",
    "-b",
    "--baseline-lenient",
    "--load-baseline",
    "--noise-threshold",
    "--nresamples",
    "--confidence-level",
    "--significance-level",
    "--profile-time",
    "--output-format",
    "--plotting-backend",
    "--format",
    "--color",
    "--colour",
    "-c",
];

/// The options, from the command line the first time.
pub(crate) fn options() -> &'static Options {
    static OPTIONS: OnceLock<Options> = OnceLock::new();
    OPTIONS.get_or_init(|| parse(std::env::args().skip(1)))
}

fn parse(mut args: impl Iterator<Item = String>) -> Options {
    let mut options = Options {
        list: false,
        filter: None,
        warm_up: Duration::from_secs(1),
        measurement: Duration::from_secs(2),
        batch: batch_from_env(),
        dyn_loop: loop_from_env(),
    };
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--list" => options.list = true,
            "--warm-up-time" => options.warm_up = seconds(&arg, args.next()),
            "--measurement-time" => options.measurement = seconds(&arg, args.next()),
            flag if WITH_VALUE.contains(&flag) => {
                args.next();
            }
            flag if flag.starts_with('-') => {}
            filter => options.filter = Some(filter.to_string()),
        }
    }
    options
}

fn seconds(flag: &str, value: Option<String>) -> Duration {
    value
        .and_then(|v| v.parse().ok())
        .and_then(|s| Duration::try_from_secs_f64(s).ok())
        .unwrap_or_else(|| exit(&format!("{flag} needs a number of seconds")))
}

fn batch_from_env() -> u64 {
    match std::env::var("PLAIN_BATCH") {
        Err(_) => 1,
        Ok(b) => b
            .parse()
            .ok()
            .filter(|&b| b > 0)
            .unwrap_or_else(|| exit(&format!("PLAIN_BATCH={b}: not a count above 0"))),
    }
}

fn loop_from_env() -> bool {
    match std::env::var("PLAIN_LOOP").as_deref() {
        Err(_) | Ok("inline") => false,
        Ok("dyn") => true,
        Ok(other) => exit(&format!("PLAIN_LOOP={other}: `inline` or `dyn`")),
    }
}

fn exit(message: &str) -> ! {
    eprintln!("plain-criterion: {message}");
    std::process::exit(2)
}
