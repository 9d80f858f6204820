//! `plain-loop NAME SECONDS`: runs the routine NAME in doubling batches
//! for about SECONDS and nothing else, and prints how many times, for
//! `perf stat` to time (ns per iteration = task-clock / iterations). With
//! `PLAIN_LOOP_THREAD` set, a thread is started and joined first, so that
//! glibc's allocator runs as in a process of many threads, as under both
//! harnesses.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use perfbench_agreement::{repeat, Inputs};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [name, seconds] = args.as_slice() else {
        eprintln!("usage: plain-loop NAME SECONDS");
        return ExitCode::from(2);
    };
    let Some(time) = seconds
        .parse()
        .ok()
        .and_then(|s| Duration::try_from_secs_f64(s).ok())
    else {
        eprintln!("plain-loop: `{seconds}` is not a number of seconds");
        return ExitCode::from(2);
    };
    if std::env::var_os("PLAIN_LOOP_THREAD").is_some() {
        // A thread started and joined: the process is multi-threaded from
        // now on, as glibc's malloc sees it.
        std::thread::spawn(|| ()).join().expect("an empty thread");
    }
    let inputs = Inputs::default();
    let start = Instant::now();
    let (mut n, mut done) = (1u64, 0u64);
    while start.elapsed() < time {
        if repeat(name, &inputs, n).is_none() {
            eprintln!("plain-loop: no routine `{name}`");
            return ExitCode::from(2);
        }
        done += n;
        n *= 2;
    }
    println!("{done}");
    ExitCode::SUCCESS
}
