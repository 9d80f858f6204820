//! The suite the regression gate is judged on (`src/bin/coverage/`):
//! routines of different kinds whose work is a percentage (default 100) of
//! their usual, so that a run can be made exactly 25 % dearer without
//! changing the code.
//!
//! The percentage comes from a file beside the executable,
//! `<executable>.work` (its path from `current_exe`, with `.work` added),
//! else from `FIXTURE_GATE_WORK`. The file wins: a paired run
//! (`--paired-with`) gives the baseline binary the candidate's environment,
//! so the two sides of a paired A/B test must differ by build. The coverage
//! tool copies one built binary to two paths with different `.work` files:
//! the very same code doing different work, which is what a test of the
//! pairing wants to see.

use std::sync::OnceLock;

use perfbench::fixtures::touch_fresh_pages;
use perfbench::{black_box, perfbench, Bencher};
use perfbench_tests::compute;

/// `base` scaled by the work percentage.
fn work(base: u64) -> u64 {
    static PERCENT: OnceLock<u64> = OnceLock::new();
    base * *PERCENT.get_or_init(percent) / 100
}

/// The work percentage: `<executable>.work`, else `FIXTURE_GATE_WORK`,
/// else 100. A value that is not a whole number from 1 to 10,000, or a
/// file that is there but cannot be read, ends the run with one line naming
/// where it came from.
fn percent() -> u64 {
    let (text, from) = match sidecar() {
        Some(found) => found,
        None => match std::env::var("FIXTURE_GATE_WORK") {
            Ok(text) => (text, "FIXTURE_GATE_WORK".to_string()),
            Err(_) => return 100,
        },
    };
    match text.trim().parse::<u64>() {
        Ok(p) if (1..=10_000).contains(&p) => p,
        _ => fail(&format!(
            "{from}: `{}` is not a work percentage (1 to 10000)",
            text.trim()
        )),
    }
}

/// The text of `<executable>.work` and its path, or `None` where there is
/// no such file.
fn sidecar() -> Option<(String, String)> {
    let mut name = std::env::current_exe().ok()?.into_os_string();
    name.push(".work");
    let path = std::path::PathBuf::from(name);
    match std::fs::read_to_string(&path) {
        Ok(text) => Some((text, path.display().to_string())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => fail(&format!("{}: {e}", path.display())),
    }
}

/// Ends the run with one line: a fixture's bad setting is the caller's
/// mistake, not a benchmark's failure.
fn fail(message: &str) -> ! {
    eprintln!("gate: {message}");
    std::process::exit(2);
}

/// Dependent integer arithmetic: the CPU alone.
#[perfbench]
fn arithmetic(b: &mut Bencher) {
    let steps = work(2000);
    b.iter(|| compute(black_box(steps)));
}

/// A walk over a 64 KiB buffer per 100 %: loads from L1 and L2.
#[perfbench]
fn memory_walk(b: &mut Bencher) {
    let data: Vec<u64> = (0..work(8192)).collect();
    b.iter(|| {
        black_box(&data)
            .iter()
            .fold(0u64, |a, &x| a.rotate_left(3) ^ x)
    });
}

/// Fresh pages: the kernel's page-fault path, 20 per 100 %, so that each
/// 5 % of work is one page more.
#[perfbench]
fn page_faults(b: &mut Bencher) {
    let pages = work(20) as usize;
    b.iter(|| touch_fresh_pages(black_box(pages)));
}

/// Sorting 1000 pseudo-random keys per 100 %, in runs of 50: branches and
/// memory. In runs, because the time of one sort is not proportional to
/// its length: one sort of 1050 keys took 3 % more than one of 1000, one
/// of 1100 took 12 % more (ipnsort's steps), so "+5 % of work" was no
/// +5 % change; 21 runs of 50 take 5 % more than 20.
#[perfbench]
fn sort(b: &mut Bencher) {
    let n = work(20) * RUN;
    let keys: Vec<u64> = (0..n)
        .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 7)
        .collect();
    b.iter_batched_ref(
        || keys.clone(),
        |k| {
            k.chunks_mut(RUN as usize)
                .for_each(|run| run.sort_unstable())
        },
        perfbench::BatchSize::SmallInput,
    );
}

/// Keys per run of [`sort`].
const RUN: u64 = 50;

perfbench::main!();
