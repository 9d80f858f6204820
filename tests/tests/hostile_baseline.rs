//! End to end: a paired run's baseline build that lies, floods or hangs
//! (`--paired-with PATH` naming a script). Whatever it does, the run ends
//! within seconds with one line naming it, never a panic: a baseline that
//! never greets, greets and never answers, sends a line without end
//! (first or later), answers with fewer values than metrics or with a
//! sample of no iterations, or ignores the end of its requests.
//!
//! The driving build is tests/benches/paired.rs (build A), which counts
//! allocations wherever it runs, so that every environment of the suite
//! has a metric beyond wall time. The replies that lie are the real
//! build's, bent by `awk` on their way back.

mod common;

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use common::bench_run::BenchRun;
use common::{fresh_dir, Run, RUNS};
use perfbench::run::paired::protocol::PROTOCOL;

/// How long the run waits for the hostile build (`--paired-timeout`),
/// as given and as messages say it.
const WAIT: &str = "2";

/// Longer than any run here should take: a run still going then hangs,
/// and is killed, with its process group.
const HANG: Duration = Duration::from_secs(40);

/// The scratch folder of this file's binaries and scripts.
fn scratch() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| fresh_dir("hostile-baseline", "scripts"))
}

/// Build A of the paired fixtures, built once (as the suite builds it) and copied to the scratch
/// space (tests/tests/paired.rs builds B at cargo's path).
fn driver() -> &'static Path {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(|| {
        let built = common::built(&["--bench", "paired"], "/paired-");
        let copy = scratch().join("build-a");
        std::fs::copy(built, &copy).unwrap();
        copy
    })
}

/// An executable script in the scratch space.
fn script(name: &str, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = scratch().join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// A baseline build's greeting offering `ids`, as a shell word.
fn greeting(ids: &str) -> String {
    greeting_of(PROTOCOL, ids)
}

/// The greeting of a build speaking paired-run protocol `protocol`.
fn greeting_of(protocol: u32, ids: &str) -> String {
    format!(
        r#"'{{"hello":"perfbench-paired","perfbench":"{}","protocol":{protocol},"ids":[{ids}]}}'"#,
        env!("CARGO_PKG_VERSION")
    )
}

/// A script serving as the real build A does, its replies (every line
/// after the greeting) bent by the `sed` commands `bend`: GNU sed's `-u`
/// passes each line on at once (awk may wait for more input, and sed's
/// address `$` reads a line ahead).
fn bent(name: &str, bend: &str) -> PathBuf {
    let real = driver().display().to_string();
    script(
        name,
        &format!("'{real}' \"$@\" | sed -u -e '1!{{ {bend} }}'"),
    )
}

/// Build A measuring `steady` paired with `baseline`: [`paired_on`].
fn paired_with(baseline: &Path) -> (Run, Duration) {
    paired_on(&["steady"], baseline)
}

/// Build A measuring the benchmarks `ids` paired with `baseline`, waiting
/// [`WAIT`] seconds for it; killed (and failing the test) if it runs past
/// [`HANG`]. Returns the run and how long it took.
fn paired_on(ids: &[&str], baseline: &Path) -> (Run, Duration) {
    let driver = driver();
    let _serial = RUNS.lock().unwrap_or_else(|e| e.into_inner());
    let name = baseline.file_name().unwrap().to_string_lossy().to_string();
    let home = fresh_dir("hostile-baseline", &name);
    let (out, err) = (home.join("stdout"), home.join("stderr"));
    let mut cmd = BenchRun::of(driver)
        .args(["--exact"])
        .args(ids)
        .quick()
        .args([Path::new("--paired-with"), baseline])
        .args(["--paired-timeout", WAIT])
        .home(&home.join("store"))
        .command();
    cmd.stdin(Stdio::null())
        // Files, not pipes: a process left holding a pipe cannot hang the
        // test's reading.
        .stdout(File::create(&out).unwrap())
        .stderr(File::create(&err).unwrap());
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    let started = Instant::now();
    let mut child = cmd.spawn().unwrap();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > HANG {
            let group = format!("-{}", child.id());
            let _ = Command::new("kill").args(["-KILL", "--", &group]).status();
            let _ = child.wait();
            panic!(
                "paired with {name}: still running after {HANG:?}, killed; stderr:\n{}",
                std::fs::read_to_string(&err).unwrap()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let took = started.elapsed();
    let run = Run {
        code: status
            .code()
            .unwrap_or_else(|| panic!("{name}: ended by {status}")),
        stdout: std::fs::read_to_string(&out).unwrap(),
        stderr: std::fs::read_to_string(&err).unwrap(),
    };
    assert_ne!(run.code, 101, "{name}: {}", run.stderr);
    assert!(!run.stderr.contains("panicked"), "{name}: {}", run.stderr);
    (run, took)
}

/// `--paired-with `PATH``, as messages name the baseline build.
fn named(baseline: &Path) -> String {
    format!("--paired-with `{}`", baseline.display())
}

/// The one line of stderr starting with `prefix`: exactly one there is.
fn one_line<'a>(run: &'a Run, prefix: &str) -> &'a str {
    let lines = run.stderr_lines(|l| l.starts_with(prefix));
    assert_eq!(lines.len(), 1, "{prefix}\n{}", run.stderr);
    lines[0]
}

/// A benchmark's warning that the baseline build `baseline` failed it:
/// `why` follows its name, and the benchmark is not judged.
fn unjudged(run: &Run, baseline: &Path, why: &str) -> String {
    assert_eq!(run.code, 0, "{}", run.stderr);
    let warning = one_line(
        run,
        &format!(
            "perfbench: warning: benchmark `steady`: {} {why}",
            named(baseline)
        ),
    );
    assert!(warning.ends_with("; its change is not judged"), "{warning}");
    warning.to_string()
}

#[test]
fn a_baseline_that_never_greets_is_refused_within_the_wait() {
    let silent = script("never-greets", "exec sleep 60");
    let (run, took) = paired_with(&silent);
    assert_eq!(run.code, 2, "{}", run.stderr);
    let error = one_line(&run, "perfbench: error:");
    assert_eq!(
        error,
        format!(
            "perfbench: error: {} did not greet within {WAIT} s: is it a bench binary built with \
             this perfbench ({})? (--paired-timeout sets the wait)",
            named(&silent),
            env!("CARGO_PKG_VERSION")
        )
    );
    assert_eq!(run.stdout, "");
    assert!(took < Duration::from_secs(20), "{took:?}");
}

/// A build of this perfbench version from before serving took a token
/// (protocol 1: `PERFBENCH_PAIRED_CHILD=1` alone made it serve, else it
/// ran as a bench binary, here: waited) is refused at once by its
/// protocol, not after the greeting's wait.
#[test]
fn a_build_of_the_protocol_before_the_token_is_refused_at_once_by_its_protocol() {
    let old = script(
        "protocol-1",
        &format!(
            "if [ \"$PERFBENCH_PAIRED_CHILD\" = 1 ]; then echo {}; fi\nexec sleep 60",
            greeting_of(1, r#""steady""#)
        ),
    );
    let (run, _) = paired_with(&old);
    assert_eq!(run.code, 2, "{}", run.stderr);
    let error = one_line(&run, "perfbench: error:");
    assert_eq!(
        error,
        format!(
            "perfbench: error: {} is built with perfbench {v} (paired-run protocol 1), this one \
             with perfbench {v} (protocol {PROTOCOL}); pair builds of one perfbench version",
            named(&old),
            v = env!("CARGO_PKG_VERSION")
        )
    );
}

#[test]
fn a_baseline_that_greets_and_never_answers_is_given_up_within_the_wait() {
    let hung = script(
        "never-answers",
        &format!("echo {}\nexec sleep 60", greeting(r#""grows","steady""#)),
    );
    let (run, took) = paired_on(&["grows", "steady"], &hung);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let warnings = run.stderr_lines(|l| l.starts_with("perfbench: warning: benchmark"));
    // Given up on the first benchmark, it is not waited for again.
    assert_eq!(
        warnings,
        [
            format!(
                "perfbench: warning: benchmark `grows`: {} did not answer within {WAIT} s \
                 (--paired-timeout sets the wait); its change is not judged",
                named(&hung)
            ),
            format!(
                "perfbench: warning: benchmark `steady`: {} was given up earlier; its change is \
                 not judged",
                named(&hung)
            )
        ],
        "{}",
        run.stderr
    );
    assert!(took < Duration::from_secs(20), "{took:?}");
}

#[test]
fn a_first_line_without_end_is_refused_at_the_limit() {
    let flood = script("floods-first", "yes | tr -d '\\n'");
    let (run, took) = paired_with(&flood);
    assert_eq!(run.code, 2, "{}", run.stderr);
    let error = one_line(&run, "perfbench: error:");
    assert_eq!(
        error,
        format!(
            "perfbench: error: {} sent a line longer than 16,777,216 bytes, the most a \
             greeting may take",
            named(&flood)
        )
    );
    assert!(took < Duration::from_secs(20), "{took:?}");
}

#[test]
fn a_reply_without_end_is_refused_at_the_limit() {
    let flood = script(
        "floods-reply",
        &format!("echo {}\nyes | tr -d '\\n'", greeting(r#""steady""#)),
    );
    let (run, took) = paired_with(&flood);
    let warning = unjudged(&run, &flood, "sent a line longer than ");
    assert!(warning.contains(" bytes, the most a reply"), "{warning}");
    assert!(took < Duration::from_secs(20), "{took:?}");
}

#[test]
fn a_reply_with_fewer_values_than_metrics_is_refused() {
    // The last value of each sample left out (its only one, where it has
    // one).
    let fewer = bent("fewer-values", r"s/\[[0-9]*]]/[]]/g; s/,[0-9]*]]/]]/g");
    let (run, took) = paired_with(&fewer);
    let warning = unjudged(&run, &fewer, "sent a round whose sample 1 has ");
    assert!(warning.contains(" counts, not "), "{warning}");
    assert!(took < Duration::from_secs(30), "{took:?}");
}

#[test]
fn a_reply_with_a_sample_of_no_iterations_is_refused() {
    let none = bent(
        "no-iterations",
        r#"s/"samples":\[\[[0-9]*,/"samples":[[0,/"#,
    );
    let (run, took) = paired_with(&none);
    unjudged(&run, &none, "sent a round whose sample 1 ran 0 iterations");
    assert!(took < Duration::from_secs(30), "{took:?}");
}

#[test]
fn a_baseline_that_ignores_the_end_of_its_requests_is_killed_after_the_wait() {
    // Offers no benchmark of the run, so it is asked nothing; it outlives
    // its requests.
    let lingers = script(
        "ignores-end",
        &format!("echo {}\nexec sleep 60", greeting("")),
    );
    let (run, took) = paired_with(&lingers);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        one_line(&run, &format!("perfbench: warning: {}", named(&lingers))),
        format!(
            "perfbench: warning: {} did not end within {WAIT} s of the end of its requests, and \
             was killed",
            named(&lingers)
        )
    );
    assert!(took < Duration::from_secs(20), "{took:?}");
}
