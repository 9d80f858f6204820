//! The oracle's process: `plain-loop NAME -n N` runs the routine NAME
//! exactly N times in one plain loop (`repeat`: each call's output through
//! `black_box` and dropped, as Criterion's `iter` loop does) and nothing
//! else. `perf stat -e task-clock` on it, less the same for `-n 0` (the
//! process, its inputs, start and exit), over N is the ns per iteration
//! of exactly that machine code: the routine both harnesses call, and a
//! loop around it. `plain-loop NAME SECONDS` runs it in doubling batches
//! for about SECONDS and prints how many times, to choose N.
//!
//! A thread is started and joined first, so that glibc's allocator runs
//! as in both harnesses' processes, which have more than one thread
//! (`calloc` and `free` take the arena's lock from then on);
//! `PLAIN_LOOP_ONE_THREAD` set leaves it out.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use perfbench_agreement::{repeat, Inputs};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let run = match args.as_slice() {
        [name, flag, n] if flag == "-n" => n.parse().ok().map(|n| (name, Run::Exactly(n))),
        [name, seconds] => seconds
            .parse()
            .ok()
            .and_then(|s| Duration::try_from_secs_f64(s).ok())
            .map(|time| (name, Run::For(time))),
        _ => None,
    };
    let Some((name, run)) = run else {
        eprintln!("usage: plain-loop NAME -n ITERATIONS | plain-loop NAME SECONDS");
        return ExitCode::from(2);
    };
    if std::env::var_os("PLAIN_LOOP_ONE_THREAD").is_none() {
        // From now on the process is multi-threaded, as glibc's malloc
        // sees it.
        std::thread::spawn(|| ()).join().expect("an empty thread");
    }
    let inputs = Inputs::default();
    let done = match run {
        Run::Exactly(n) => repeat(name, &inputs, n).map(|()| n),
        Run::For(time) => run_for(name, &inputs, time),
    };
    let Some(done) = done else {
        eprintln!("plain-loop: no routine `{name}`");
        return ExitCode::from(2);
    };
    println!("{done}");
    ExitCode::SUCCESS
}

/// How the routine is run: exactly so many times, or for about so long.
enum Run {
    Exactly(u64),
    For(Duration),
}

/// Runs `name` in doubling batches until `time` has passed; how many
/// times it ran (`None` for no such routine).
fn run_for(name: &str, inputs: &Inputs, time: Duration) -> Option<u64> {
    let start = Instant::now();
    let (mut n, mut done) = (1u64, 0u64);
    while start.elapsed() < time {
        repeat(name, inputs, n)?;
        done += n;
        n *= 2;
    }
    Some(done)
}
