//! End to end: stored results under faults — killed and interrupted saves,
//! concurrent runs (in one PID namespace and in two), a full disk, a
//! read-only one, debris of killed runs, a huge stored file and an output
//! path that is a file — through the `store` bench target
//! (tests/benches/store.rs) run directly, so that a test can signal it.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use common::bench_run::BenchRun;
use common::json::Fields;
use common::{built, files_under, fresh_dir, Run, RUNS};
use serde_json::Value;

/// The store bench target, built optimised as `cargo bench` builds it.
fn binary() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| built(&["--bench", "store"], "/store-"))
}

/// A fresh output directory for one test.
fn home(name: &str) -> PathBuf {
    fresh_dir("store", name)
}

/// The store binary measuring page faults under `home`, its fixtures
/// touching `pages` pages per iteration (times their argument) and sleeping
/// `sleep_ms` per iteration.
fn command(home: &Path, pages: u32, sleep_ms: u32, args: &[&str]) -> Command {
    configured(common::command(binary()), home, pages, sleep_ms, args)
}

/// [`command`] in a PID namespace of its own, where it is process 1.
fn in_own_pid_namespace(home: &Path, pages: u32, sleep_ms: u32, args: &[&str]) -> Command {
    let mut unshare = Command::new("unshare");
    unshare
        .args(["--pid", "--fork", "--kill-child", "--"])
        .args(common::runner())
        .arg(binary());
    configured(unshare, home, pages, sleep_ms, args)
}

/// `cmd` (the store binary, or a launcher of it) given [`command`]'s
/// arguments and environment.
fn configured(cmd: Command, home: &Path, pages: u32, sleep_ms: u32, args: &[&str]) -> Command {
    BenchRun::through(cmd)
        .quick()
        .args(["--events", "page-faults"])
        .args(args)
        .home(home)
        .env("FIXTURE_PAGES", pages.to_string())
        .env("FIXTURE_SLEEP_MS", sleep_ms.to_string())
        .command()
}

fn run(mut cmd: Command) -> Run {
    Run::finish(cmd.output().expect("runs"))
}

fn spawn(mut cmd: Command) -> Child {
    cmd.stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starts")
}

/// Runs are serialised with the other tests' (two cores); a test that runs
/// two at once holds this for both.
fn serial() -> std::sync::MutexGuard<'static, ()> {
    binary();
    RUNS.lock().unwrap_or_else(|e| e.into_inner())
}

/// Waits up to a minute for `ready`, failing the test otherwise.
fn wait_for(what: &str, mut ready: impl FnMut() -> bool) {
    let start = Instant::now();
    while !ready() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no {what} within a minute"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// Staging folders of baselines (named `.NAME.<pid>-<random>`) under
/// `home`, with how many result files each holds.
fn staging(home: &Path) -> Vec<(PathBuf, usize)> {
    std::fs::read_dir(home.join("baselines"))
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_type().unwrap().is_dir())
        .map(|e| (e.path(), files_under(&e.path()).len()))
        .filter(|(p, _)| !is_in_use(home, p))
        .collect()
}

/// Whether `version` is what a baseline's link points at.
fn is_in_use(home: &Path, version: &Path) -> bool {
    std::fs::read_dir(home.join("baselines"))
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| std::fs::read_link(e.path()).ok())
        .any(|target| version.file_name() == Some(target.as_os_str()))
}

/// Temporary files (`.NAME.tmp-…`) under `home`.
fn temporary_files(home: &Path) -> Vec<PathBuf> {
    files_under(home)
        .into_iter()
        .filter(|f| f.file_name().unwrap().to_string_lossy().contains(".tmp-"))
        .collect()
}

/// Page faults per iteration over the argument of each `pages_times` file
/// of baseline `name` (where page faults are counted), by id.
fn baseline_faults(home: &Path, name: &str) -> Vec<(String, Option<f64>)> {
    let mut found: Vec<(String, Option<f64>)> = files_under(&home.join("baselines").join(name))
        .iter()
        .map(|f| {
            let doc: Value = serde_json::from_str(&std::fs::read_to_string(f).unwrap()).unwrap();
            let id = doc.str_at("id").to_string();
            let times: f64 = id.rsplit('/').next().unwrap().parse().unwrap_or(1.0);
            let faults =
                common::faults_metric(&doc["estimates"]).map(|m| m.f64_at("estimate") / times);
            (id, faults)
        })
        .collect();
    found.sort_by(|a, b| a.0.cmp(&b.0));
    found
}

const ALL: &[&str] = &["pages_times", "sleeps"];

fn args<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    ALL.iter().chain(extra).copied().collect()
}

/// Starts a save of baseline `name` at 17 pages that sleeps in its last
/// benchmark, and returns it once the other three are in its staging
/// folder.
fn save_caught_midway(home: &Path, name: &str) -> Child {
    let save = ["--save-baseline", name, "--rounds", "1"];
    let child = spawn(command(home, 17, 200, &args(&save)));
    wait_for("half-saved baseline", || {
        staging(home).iter().any(|(_, files)| *files == 3)
    });
    child
}

/// A fresh output directory `name` with baseline `kc` saved at 16 pages
/// per iteration.
fn saved_at_16(name: &str) -> PathBuf {
    let home = home(name);
    let saved = run(command(&home, 16, 0, &args(&["--save-baseline", "kc"])));
    assert_eq!(saved.code, 0, "{}", saved.stderr);
    home
}

/// Baseline `name` saved whole at `pages` pages per iteration: each of the
/// four files says `pages`, and `sleeps` its one page (where page faults
/// are counted: else the four files alone tell).
fn assert_saved_at(home: &Path, name: &str, pages: u32) {
    let faults = baseline_faults(home, name);
    assert_eq!(faults.len(), 4, "{faults:?}");
    let counts = common::counted("page-faults").is_some();
    for (id, per) in &faults {
        let expected = if id == "sleeps" {
            1.0
        } else {
            f64::from(pages)
        };
        assert_eq!(*per, counts.then_some(expected), "{id}");
    }
}

/// Waits until the lock file of `home` names `holder` (`pid N on `).
fn wait_for_lock_holder(home: &Path, holder: &str) {
    let lock = home.join(".lock");
    wait_for("lock holder", || {
        std::fs::read_to_string(&lock).is_ok_and(|t| t.starts_with(holder))
    });
}

#[test]
fn a_save_killed_midway_leaves_the_previous_baseline_whole() {
    let _serial = serial();
    let home = saved_at_16("killed");

    let mut killed = save_caught_midway(&home, "kc");
    killed.kill().unwrap();
    killed.wait().unwrap();
    assert_eq!(staging(&home).len(), 1, "the killed save's staging folder");
    assert_saved_at(&home, "kc", 16);

    let compared = run(command(
        &home,
        16,
        0,
        &args(&["--baseline", "kc", "--output-format", "json"]),
    ));
    assert_eq!(compared.code, 0, "{}", compared.stderr);
    let lines = compared.json();
    assert_eq!(lines.len(), 4);
    for v in &lines {
        assert_eq!(v["baseline"]["name"], "kc");
        assert_eq!(v["baseline"]["new"], false, "{v}");
        if let Some(faults) = common::faults_metric(&v["metrics"]) {
            assert_eq!(faults["change"]["relative"], 0.0, "{v}");
        }
    }
    assert_eq!(staging(&home), [], "removed by the next run");
}

#[test]
fn concurrent_saves_under_one_name_never_mix() {
    // Only the counts tell the two saves' files apart.
    if common::page_faults().is_none() {
        return;
    }
    let _serial = serial();
    let home = home("concurrent");
    for attempt in 0..3 {
        let save = ["pages_times", "--save-baseline", "mix"];
        let first = spawn(command(&home, 16, 0, &save));
        let second = spawn(command(&home, 17, 0, &save));
        for child in [first, second] {
            let run = Run::finish(child.wait_with_output().unwrap());
            assert_eq!(run.code, 0, "{}", run.stderr);
        }
        let faults = baseline_faults(&home, "mix");
        assert_eq!(faults.len(), 3, "{faults:?}");
        let one = faults[0].1;
        assert!(one == Some(16.0) || one == Some(17.0), "{faults:?}");
        assert!(
            faults.iter().all(|(_, f)| *f == one),
            "attempt {attempt}: mixed: {faults:?}"
        );
    }
}

#[test]
fn a_second_run_waits_for_the_lock_and_names_its_holder() {
    let _serial = serial();
    let home = home("lock");
    let mut first = spawn(command(&home, 16, 50, &["sleeps"]));
    let holder = format!("pid {} on ", first.id());
    wait_for_lock_holder(&home, &holder);
    let second = run(command(&home, 16, 0, &["pages_times"]));
    assert!(
        first.try_wait().unwrap().is_some(),
        "the second run ended while the first held the lock"
    );
    assert_eq!(second.code, 0, "{}", second.stderr);
    let waited = format!(
        "perfbench: waiting for {}, in use by {holder}",
        home.display()
    );
    let line = second
        .stderr
        .lines()
        .find(|l| l.starts_with(&waited))
        .unwrap_or_else(|| panic!("no `{waited}` in: {}", second.stderr));
    assert!(
        line.contains(binary().to_str().unwrap()),
        "the command: {line}"
    );
    assert!(first.wait().unwrap().success());
}

#[test]
fn ctrl_c_and_sigterm_remove_the_runs_unfinished_files() {
    let _serial = serial();
    let home = saved_at_16("interrupted");
    for (signal, code) in [("INT", 130), ("TERM", 143)] {
        let child = save_caught_midway(&home, "kc");
        let sent = Command::new("kill")
            .args([&format!("-{signal}"), &child.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
        let run = Run::finish(child.wait_with_output().unwrap());
        assert_eq!(run.code, code, "SIG{signal}: {}", run.stderr);
        assert_eq!(staging(&home), [], "SIG{signal}");
        assert_eq!(temporary_files(&home), Vec::<PathBuf>::new(), "SIG{signal}");
        assert_saved_at(&home, "kc", 16);
    }
}

#[test]
fn temporary_files_and_staging_folders_of_killed_runs_are_removed_by_the_next_run() {
    let _serial = serial();
    let home = home("debris");
    let debris = [
        home.join("pages_times_1-x")
            .join(".latest.json.tmp-77-00ff"),
        home.join("report").join(".index.html.tmp-77"),
        home.join("report/bench/.sleeps.html.tmp-1-2"),
        home.join("baselines/.kc.77-00ff/sleeps.json"),
    ];
    for file in &debris {
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, "half").unwrap();
    }
    // The killed run's line is still in the lock file (a run that ends
    // empties it, and then the next one does not walk the store).
    std::fs::write(home.join(".lock"), "pid 77 on box, since …: bench\n").unwrap();
    let ran = run(command(&home, 16, 0, &["sleeps"]));
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    for file in &debris {
        assert!(!file.exists(), "{}", file.display());
    }
    assert!(!home.join("baselines/.kc.77-00ff").exists());
    assert!(home.join("report/index.html").is_file());
    let lock = std::fs::read_to_string(home.join(".lock")).unwrap();
    assert_eq!(
        lock, "",
        "a run that ended says so by emptying the lock file"
    );
}

/// A tmpfs of `size` mounted at `dir` until dropped.
struct Tmpfs(PathBuf);

impl Tmpfs {
    /// Makes the file system read-only.
    fn remount_read_only(&self) {
        run_mount(&["-o", "remount,ro"], &self.0, "remount read-only");
    }

    fn mount(dir: &Path, size: &str) -> Tmpfs {
        std::fs::create_dir_all(dir).unwrap();
        let size = format!("size={size}");
        run_mount(
            &["-t", "tmpfs", "-o", &size, "tmpfs"],
            dir,
            "THIS TEST NEEDS `mount -t tmpfs` (root) TO FILL A DISK, and it failed",
        );
        Tmpfs(dir.to_path_buf())
    }
}

/// Runs `mount ARGS DIR`, failing the test with `what` and mount's error.
fn run_mount(args: &[&str], dir: &Path, what: &str) {
    let out = Command::new("mount")
        .args(args)
        .arg(dir)
        .output()
        .expect("mount runs");
    assert!(
        out.status.success(),
        "{what}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

#[test]
fn a_full_disk_leaves_no_temporary_file_and_names_the_real_file() {
    let _serial = serial();
    let disk = Tmpfs::mount(&home("full-disk"), "16k");
    let home = disk.0.join("home");
    // 16 KiB: the three results fit, the report's pages do not.
    let ran = run(command(&home, 16, 0, &["pages_times"]));
    assert_eq!(ran.code, 2, "{}", ran.stderr);
    let full = ran.stderr_lines(|l| l.contains("No space left on device"));
    assert!(!full.is_empty(), "the disk never filled: {}", ran.stderr);
    for line in full {
        let path = line
            .strip_prefix("perfbench: error: ")
            .and_then(|l| l.split(": cannot write: ").next())
            .unwrap_or_else(|| panic!("{line}"));
        let name = Path::new(path).file_name().unwrap().to_string_lossy();
        assert!(path.starts_with(home.to_str().unwrap()), "{line}");
        assert!(!name.starts_with('.') && !name.contains(".tmp-"), "{line}");
    }
    assert_eq!(temporary_files(&home), Vec::<PathBuf>::new());
}

#[test]
fn a_stored_file_past_the_limit_is_refused_in_one_line_and_the_run_goes_on() {
    let _serial = serial();
    let home = home("huge");
    assert_eq!(run(command(&home, 16, 0, &["sleeps"])).code, 0);
    let latest = home.join("sleeps/latest.json");
    // Sparse: 100 MiB that take no room, and would take long to parse.
    std::fs::File::options()
        .write(true)
        .open(&latest)
        .unwrap()
        .set_len(100 << 20)
        .unwrap();
    let started = Instant::now();
    let ran = run(command(
        &home,
        16,
        0,
        &["sleeps", "--output-format", "json"],
    ));
    let said = format!(
        "perfbench: error: {}: 100 MB, past the 64 MB a stored result may have; remove it",
        latest.display()
    );
    assert_eq!(
        ran.stderr.matches("past the 64 MB").count(),
        1,
        "{}",
        ran.stderr
    );
    assert!(ran.stderr.lines().any(|l| l == said), "{}", ran.stderr);
    assert_eq!(ran.code, 2, "{}", ran.stderr);
    if let Some(faults) = common::faults_metric(&ran.json()[0]["metrics"]) {
        assert_eq!(faults["estimate"], 1.0);
    }
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(
        std::fs::metadata(&latest).unwrap().len(),
        100 << 20,
        "left alone"
    );
}

#[test]
fn an_output_path_that_is_a_file_is_one_error_before_anything_is_measured() {
    let _serial = serial();
    let file = home("file-home").join("not-a-folder");
    std::fs::write(&file, "x").unwrap();
    let ran = run(command(&file, 16, 0, ALL));
    assert_eq!(ran.code, 2, "{}", ran.stderr);
    assert_eq!(
        ran.stderr_beyond_events(),
        format!(
            "perfbench: error: {}: is not a folder; results are stored in a folder\n",
            file.display()
        )
    );
    assert_eq!(ran.stdout, "");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "x");
    // Runs that write nothing take no lock, so never look at the folder.
    for nothing in ["--list", "--test", "--list-events"] {
        let ran = run(command(&file, 16, 0, &[nothing]));
        assert_eq!(ran.code, 0, "{nothing}: {}", ran.stderr);
    }
}

/// Every file under `dir` with its bytes.
fn contents_under(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files: Vec<_> = files_under(dir)
        .into_iter()
        .map(|f| {
            let bytes = std::fs::read(&f).unwrap();
            (f, bytes)
        })
        .collect();
    files.sort();
    files
}

#[test]
fn a_read_only_store_is_one_error_before_anything_is_measured() {
    let _serial = serial();
    let disk = Tmpfs::mount(&home("read-only"), "2m");
    let home = disk.0.join("home");
    let stored = run(command(&home, 16, 0, &["pages_times"]));
    assert_eq!(stored.code, 0, "{}", stored.stderr);
    let before = contents_under(&home);
    disk.remount_read_only();
    let ran = run(command(&home, 17, 0, ALL));
    assert_eq!(ran.code, 2, "{}", ran.stderr);
    assert_eq!(
        ran.stderr_beyond_events(),
        format!(
            "perfbench: error: {}: cannot write in the folder: Read-only file system (os error 30)\n",
            home.display()
        )
    );
    assert_eq!(ran.stdout, "", "nothing was measured");
    assert_eq!(contents_under(&home), before, "the store is as it was");
    for nothing in ["--list", "--test"] {
        let ran = run(command(&home, 16, 0, &[nothing]));
        assert_eq!(ran.code, 0, "{nothing}: {}", ran.stderr);
    }
}

#[test]
fn runs_in_pid_namespaces_of_their_own_share_a_store_without_mixing() {
    let _serial = serial();
    let home = home("pid-namespaces");
    let holder = "pid 1 on ";
    for attempt in 0..2 {
        let save = ["--save-baseline", "ns"];
        let mut first = spawn(in_own_pid_namespace(&home, 16, 30, &args(&save)));
        wait_for_lock_holder(&home, holder);
        // Both are process 1: only the lock and the temporary names'
        // random part keep them apart.
        let second = run(in_own_pid_namespace(&home, 17, 0, &args(&save)));
        assert!(first.try_wait().unwrap().is_some(), "attempt {attempt}");
        assert_eq!(second.code, 0, "{}", second.stderr);
        let waited = format!(
            "perfbench: waiting for {}, in use by {holder}",
            home.display()
        );
        assert!(second.stderr.contains(&waited), "{}", second.stderr);
        assert!(first.wait().unwrap().success(), "attempt {attempt}");
        // Wholly the second save's.
        assert_saved_at(&home, "ns", 17);
        assert_eq!(temporary_files(&home), Vec::<PathBuf>::new());
        assert_eq!(staging(&home), []);
    }
}
