//! `oracle-routine NAME M CTL ACK`: runs the routine `NAME` of
//! [`perfbench_tests::ROUTINES`] `M / 10` times to warm up, then `M` times
//! with `perf stat` counting: it asks `perf stat --delay=-1 --control
//! fifo:CTL,ACK` to enable the counters through the fifo `CTL`, waits for
//! the acknowledgement on `ACK`, and asks it to disable them at the end.
//! The oracle is the count over `M`: start-up and the first, colder
//! iterations are not counted, as perfbench's warm-up and slope leave them
//! out.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};

/// Sends `command` to `perf stat` and waits for its `ack`.
fn control(ctl: &mut File, ack: &mut File, command: &str) {
    ctl.write_all(command.as_bytes())
        .expect("perf stat's control fifo");
    let mut reply = [0u8; 4];
    ack.read_exact(&mut reply).expect("perf stat's ack fifo");
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, name, times, ctl, ack] = args.as_slice() else {
        eprintln!("usage: oracle-routine NAME M CTL-FIFO ACK-FIFO");
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
    let mut ctl = OpenOptions::new().write(true).open(ctl).expect("CTL-FIFO");
    let mut ack = File::open(ack).expect("ACK-FIFO");
    for _ in 0..times / 10 {
        routine();
    }
    control(&mut ctl, &mut ack, "enable\n");
    for _ in 0..times {
        routine();
    }
    control(&mut ctl, &mut ack, "disable\n");
}
