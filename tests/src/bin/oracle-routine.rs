//! `oracle-routine NAME M`: runs the routine `NAME` of
//! [`perfbench_tests::ROUTINES`] `M` times, for `perf stat` to count. The
//! oracle is the difference between `M` and `0` runs, divided by `M`.

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(name), Some(times)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: oracle-routine NAME M");
        std::process::exit(2);
    };
    let Some(routine) = perfbench_tests::routine(name) else {
        eprintln!("oracle-routine: no routine `{name}`");
        std::process::exit(2);
    };
    let Ok(times) = times.parse::<u64>() else {
        eprintln!("oracle-routine: `{times}` is not a count");
        std::process::exit(2);
    };
    for _ in 0..times {
        routine();
    }
}
