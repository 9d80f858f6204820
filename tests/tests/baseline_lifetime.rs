//! End to end: the processes serving a paired run end with it. A hostile
//! baseline — a script that greets as a perfbench bench binary does,
//! starts a grandchild, ignores SIGTERM and the end of its input, and
//! hangs — is paired with the fixtures, and after the run ends normally,
//! after SIGTERM of the driver and after SIGKILL of the driver, neither the
//! script nor its grandchild may be left running.

mod common;

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::bench_run::BenchRun;
use common::{fresh_dir, RUNS};
use perfbench::run::paired::protocol::{GREETING, PROTOCOL, VERSION};

/// How long a process may take to go once it should: the bound of every
/// wait here, far above what ending one takes.
const GONE_WITHIN: Duration = Duration::from_secs(10);

/// The greeting of a bench binary of this perfbench (protocol::Hello's
/// fields) offering one benchmark the fixtures do not have, so that the run
/// asks it nothing.
fn greeting() -> String {
    serde_json::json!({
        "hello": GREETING,
        "perfbench": VERSION,
        "protocol": PROTOCOL,
        "ids": ["not-in-the-fixtures"],
    })
    .to_string()
}

/// The hostile baseline, in `dir`: it records its pid and its grandchild's
/// in `dir/pids` (written whole, then renamed), greets, and waits on the
/// grandchild, ignoring SIGTERM, SIGINT, SIGHUP and its input's end. The
/// grandchild (`sleep`) ignores them too.
fn hostile_baseline(dir: &Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join("hostile-baseline");
    let pids = dir.join("pids");
    let body = format!(
        "#!/bin/sh\ntrap '' TERM INT HUP\nsleep 1000 &\necho \"$$ $!\" > '{pids}.tmp'\n\
         mv '{pids}.tmp' '{pids}'\necho '{greeting}'\nwait\nwait\n",
        pids = pids.display(),
        greeting = greeting(),
    );
    std::fs::write(&path, body).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// A process as first seen: its pid and start time (`/proc/PID/stat`'s
/// 22nd field), so that a later process given the same pid is not it.
#[derive(Clone, Copy, Debug)]
struct Seen {
    pid: u32,
    started: u64,
}

impl Seen {
    fn of(pid: u32) -> Option<Seen> {
        let (state, started) = stat(pid)?;
        (state != 'Z').then_some(Seen { pid, started })
    }

    /// Whether it still runs: neither gone, nor a zombie, nor replaced.
    fn alive(&self) -> bool {
        stat(self.pid).is_some_and(|(state, started)| state != 'Z' && started == self.started)
    }

    /// SIGKILL, if it is still this process.
    fn kill(&self) {
        if self.alive() {
            let _ = Command::new("kill")
                .args(["-KILL", &self.pid.to_string()])
                .status();
        }
    }
}

/// The state and the start time of process `pid`.
fn stat(pid: u32) -> Option<(char, u64)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The name, in parentheses, may hold spaces: fields count after it.
    let rest = &text[text.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split(' ').collect();
    let state = fields.first()?.chars().next()?;
    Some((state, fields.get(19)?.parse().ok()?))
}

/// What one case started; killed on drop, so that a failing case leaves
/// nothing running: the driver, and the processes the baseline recorded in
/// `pids`, as first seen, or as found then.
struct Started {
    driver: Child,
    others: Vec<Seen>,
    pids: PathBuf,
}

impl Drop for Started {
    fn drop(&mut self) {
        let _ = self.driver.kill();
        let _ = self.driver.wait();
        let recorded = std::fs::read_to_string(&self.pids).unwrap_or_default();
        let found = recorded
            .split_whitespace()
            .filter_map(|p| Seen::of(p.parse().ok()?));
        for seen in self.others.iter().copied().chain(found.collect::<Vec<_>>()) {
            seen.kill();
        }
    }
}

/// How a case ends the driver.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Ending {
    /// The run measures one quick benchmark and ends by itself.
    Normal,
    /// SIGTERM once the baseline has greeted.
    Term,
    /// SIGKILL once the baseline has greeted.
    Kill,
}

/// Runs the fixtures paired with the hostile baseline, ends the run as
/// `ending` says, and checks that the baseline and its grandchild are gone.
fn the_baseline_and_its_child_end(ending: Ending) {
    let binary = common::fixtures_binary();
    let _serial = RUNS.lock().unwrap_or_else(|e| e.into_inner());
    let dir = fresh_dir("baseline-lifetime", &format!("{ending:?}"));
    let baseline = hostile_baseline(&dir);
    let time = if ending == Ending::Normal {
        "0.1"
    } else {
        "60"
    };
    let mut cmd = BenchRun::of(binary)
        .quick()
        .args(["--measurement-time", time, "--exact", "touch_16"])
        .args([Path::new("--paired-with"), baseline.as_ref()])
        .home(&dir.join("home"))
        .command();
    // Files, not pipes: the grandchild holds the driver's stderr, and
    // a pipe would not end while it lives.
    cmd.stdin(Stdio::null())
        .stdout(File::create(dir.join("stdout")).unwrap())
        .stderr(File::create(dir.join("stderr")).unwrap());
    let mut started = Started {
        driver: cmd.spawn().unwrap(),
        others: Vec::new(),
        pids: dir.join("pids"),
    };
    let (script, grandchild) = pids(&dir.join("pids"));
    started.others.extend(script.iter().chain(&grandchild));
    let driver = started.driver.id();
    wait_until("the driver runs the bench binary", || {
        std::fs::read_link(format!("/proc/{driver}/exe")).is_ok_and(|e| e == binary)
    });
    let signal = match ending {
        Ending::Normal => None,
        Ending::Term => Some("-TERM"),
        Ending::Kill => Some("-KILL"),
    };
    if let Some(signal) = signal {
        let sent = Command::new("kill")
            .args([signal, &driver.to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
    }
    let stderr = || std::fs::read_to_string(dir.join("stderr")).unwrap_or_default();
    let deadline = Instant::now() + Duration::from_secs(120);
    let status = loop {
        if let Some(status) = started.driver.try_wait().unwrap() {
            break status;
        }
        assert!(
            Instant::now() < deadline,
            "{ending:?}: the driver does not end: {}",
            stderr()
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    if ending == Ending::Normal {
        assert_eq!(status.code(), Some(0), "{}", stderr());
    }
    let since = Instant::now();
    while alive(&script) || alive(&grandchild) {
        assert!(
            since.elapsed() < GONE_WITHIN,
            "{ending:?}: {} still runs ({status}): {}",
            match alive(&script) {
                true => "the baseline",
                false => "the baseline's child",
            },
            stderr()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The baseline's and its grandchild's processes, once it recorded them;
/// `None` for one already gone.
fn pids(file: &Path) -> (Option<Seen>, Option<Seen>) {
    let mut text = String::new();
    wait_until("the baseline records its pids", || {
        text = std::fs::read_to_string(file).unwrap_or_default();
        !text.is_empty()
    });
    let pids: Vec<u32> = text
        .split_whitespace()
        .map(|p| p.parse().unwrap())
        .collect();
    let [script, grandchild] = pids[..] else {
        panic!("{text}")
    };
    (Seen::of(script), Seen::of(grandchild))
}

/// Whether `seen` still runs.
fn alive(seen: &Option<Seen>) -> bool {
    seen.as_ref().is_some_and(Seen::alive)
}

/// Polls `done` until it holds, for at most a minute.
fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let since = Instant::now();
    while !done() {
        assert!(
            since.elapsed() < Duration::from_secs(60),
            "{what}: timed out"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_hung_baseline_and_its_child_end_with_a_run_that_ends_normally() {
    the_baseline_and_its_child_end(Ending::Normal);
}

#[test]
fn a_hung_baseline_and_its_child_end_with_a_driver_given_sigterm() {
    the_baseline_and_its_child_end(Ending::Term);
}

#[test]
fn a_hung_baseline_and_its_child_end_with_a_driver_given_sigkill() {
    the_baseline_and_its_child_end(Ending::Kill);
}
