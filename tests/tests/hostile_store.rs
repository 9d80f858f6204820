//! End to end: a store restored from an untrusted cache. Each case starts
//! from a copy of a real store (two runs, a saved baseline, the report),
//! makes it hostile — links at every level, a FIFO, `/dev/zero`, oversized
//! files, absurd numbers — and runs the `store` bench target
//! (tests/benches/store.rs) against it, bounded in time and in memory. No
//! file outside the store may change (a snapshot of every byte, link and
//! name of a folder beside it, made to look like a home folder), and each
//! case ends with one line naming the culprit and exit 2, or, for a
//! benchmark outside the run, a warning and exit 0.

mod common;

use std::collections::BTreeMap;
use std::io::Read;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use common::bench_run::BenchRun;
use common::json::Fields;
use common::{built, fresh_dir, Run, RUNS};
use serde_json::Value;

/// The store bench target, built optimised as `cargo bench` builds it.
fn binary() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| built(&["--bench", "store"], "/store-"))
}

/// Longest a case may run: a quick run takes a second or two.
const TIME_LIMIT: Duration = Duration::from_secs(60);

/// Most memory a run may take (its data segment, `prlimit --data`): a
/// quick run needs a few tens of MB; reading a 1 GB stored file whole, or
/// `/dev/zero`, would fail it.
const DATA_LIMIT: &str = "--data=400000000";

/// A template store, made once: two runs of every benchmark, baseline
/// `main` saved by both, the report.
fn template() -> &'static Path {
    static TEMPLATE: OnceLock<PathBuf> = OnceLock::new();
    TEMPLATE.get_or_init(|| {
        let home = fresh_dir("hostile", "template");
        for _ in 0..2 {
            let made = run(&home, &["--save-baseline", "main"]);
            assert_eq!(made.code, 0, "{}", made.stderr);
        }
        home
    })
}

/// A case: a copy of the template store as `<case>/store`, and beside it
/// `<case>/outside`, a folder of things a run must never touch.
struct Case {
    home: PathBuf,
    outside: PathBuf,
    before: BTreeMap<PathBuf, String>,
}

impl Case {
    fn new(name: &str) -> Case {
        let dir = fresh_dir("hostile", name);
        let home = dir.join("store");
        let copied = Command::new("cp")
            .arg("-a")
            .arg(template())
            .arg(&home)
            .status()
            .unwrap();
        assert!(copied.success());
        let outside = dir.join("outside");
        let result = std::fs::read(home.join("sleeps").join("latest.json")).unwrap();
        for (rel, content) in [
            (".ssh/id_ed25519", &b"private key"[..]),
            (".bashrc", b"export PATH"),
            (".cargo/config.toml", b"[build]"),
            ("index.html", b"<p>their page</p>"),
            ("passwd", b"root:x:0:0"),
            // Results an earlier-layout or baseline link would copy in.
            ("main.json", &result),
            ("old.json", &result),
            (".main.1-00ff/sleeps.json", &result),
            (".x.tmp-1-00", b"looks like debris"),
        ] {
            let path = outside.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, content).unwrap();
        }
        let before = snapshot(&outside);
        Case {
            home,
            outside,
            before,
        }
    }

    /// Runs the store binary against the case's store.
    fn run(&self, args: &[&str]) -> Run {
        run(&self.home, args)
    }

    /// `rel` under the store.
    fn at(&self, rel: &str) -> PathBuf {
        self.home.join(rel)
    }

    /// Replaces `rel` under the store by a link to `target`.
    fn link(&self, rel: &str, target: &Path) {
        let path = self.at(rel);
        remove(&path);
        symlink(target, path).unwrap();
    }

    /// Fails if anything outside the store changed.
    fn assert_outside_untouched(&self) {
        assert_eq!(
            snapshot(&self.outside),
            self.before,
            "a file outside the store changed"
        );
    }

    /// The folder of the benchmark `id`, from its stored latest run.
    fn folder_of(&self, id: &str) -> String {
        for entry in std::fs::read_dir(&self.home).unwrap().flatten() {
            let latest = entry.path().join("latest.json");
            let Ok(text) = std::fs::read_to_string(&latest) else {
                continue;
            };
            let doc: Value = serde_json::from_str(&text).unwrap();
            if doc["id"] == id {
                return entry.file_name().into_string().unwrap();
            }
        }
        panic!("no folder holds {id}")
    }

    /// The version folder baseline `main`'s link points at.
    fn version(&self) -> String {
        let target = std::fs::read_link(self.at("baselines/main")).unwrap();
        target.into_os_string().into_string().unwrap()
    }
}

/// Removes a file, link or folder.
fn remove(path: &Path) {
    match path.symlink_metadata() {
        Ok(m) if m.is_dir() => std::fs::remove_dir_all(path).unwrap(),
        Ok(_) => std::fs::remove_file(path).unwrap(),
        Err(_) => {}
    }
}

/// Every name under `dir` (links not followed) with its content: a file's
/// bytes, a link's target, or `folder`.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, String> {
    let mut found = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        let kind = entry.file_type().unwrap();
        let what = if kind.is_symlink() {
            format!("link to {}", std::fs::read_link(&path).unwrap().display())
        } else if kind.is_dir() {
            found.extend(snapshot(&path));
            "folder".to_string()
        } else {
            String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned()
        };
        found.insert(path, what);
    }
    found
}

/// The store binary, quick, counting page faults, under `home`, bounded in
/// time ([`TIME_LIMIT`]) and memory ([`DATA_LIMIT`]).
fn run(home: &Path, args: &[&str]) -> Run {
    // Built first: building takes the same lock.
    let binary = binary();
    let _serial = RUNS.lock().unwrap_or_else(|e| e.into_inner());
    let mut launcher = Command::new("prlimit");
    launcher
        .args([DATA_LIMIT, "--"])
        .args(common::runner())
        .arg(binary);
    let mut cmd = BenchRun::through(launcher)
        .quick()
        .args(["--events", "page-faults", "--rounds", "1"])
        .args(args)
        .home(home)
        .env("FIXTURE_PAGES", "16")
        .command();
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("starts");
    let (mut out, mut err) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        out.read_to_string(&mut text).unwrap();
        text
    });
    let mut stderr = String::new();
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > TIME_LIMIT {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("{args:?} still running after {TIME_LIMIT:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    err.read_to_string(&mut stderr).unwrap();
    Run {
        code: status
            .code()
            .unwrap_or_else(|| panic!("killed: {status}\n{stderr}")),
        stdout: reader.join().unwrap(),
        stderr,
    }
}

/// The lines of `stderr` that are errors.
fn errors(r: &Run) -> Vec<&str> {
    r.stderr_lines(|l| l.starts_with("perfbench: error"))
}

/// Asserts that the run refused the store with exit 2, its errors naming
/// `culprit` with `reason`, each error one line, no panic.
fn assert_refused(r: &Run, culprit: &Path, reason: &str) {
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
    let said = format!("{}: {reason}", culprit.display());
    let errors = errors(r);
    assert!(
        errors.iter().any(|l| l.contains(&said)),
        "no error says `{said}`:\n{}",
        r.stderr
    );
}

const LINK: &str = "is a link, and perfbench follows no link in its store; remove it";

#[test]
fn links_at_every_level_are_refused_and_nothing_outside_changes() {
    let pages = template_folder("pages_times/1");
    let cases: Vec<(&str, String, Vec<&str>)> = vec![
        // A benchmark's folder.
        ("bench-folder", "sleeps".into(), vec![]),
        ("report", "report".into(), vec![]),
        ("report-data", "report/data".into(), vec![]),
        ("report-bench", "report/bench".into(), vec![]),
        (
            "baselines",
            "baselines".into(),
            vec!["--save-baseline", "main"],
        ),
        (
            "baselines-compare",
            "baselines".into(),
            vec!["--baseline", "main"],
        ),
        ("latest", format!("{pages}/latest.json"), vec![]),
        ("previous", format!("{pages}/previous.json"), vec![]),
    ];
    for (name, rel, args) in cases {
        let case = Case::new(name);
        case.link(&rel, &case.outside);
        let r = case.run(&args);
        assert_refused(&r, &case.at(&rel), LINK);
        case.assert_outside_untouched();
    }
}

/// The folder name of `id` in the template store.
fn template_folder(id: &str) -> String {
    Case {
        home: template().to_path_buf(),
        outside: PathBuf::new(),
        before: BTreeMap::new(),
    }
    .folder_of(id)
}

#[test]
fn a_baseline_link_perfbench_did_not_make_is_refused_and_copies_nothing_in() {
    for (name, target) in [("absolute", None), ("relative-up", Some("../../outside"))] {
        let case = Case::new(&format!("baseline-link-{name}"));
        let to = target.map_or(case.outside.clone(), PathBuf::from);
        case.link("baselines/main", &to);
        for args in [&["--baseline", "main"][..], &["--save-baseline", "main"]] {
            let r = case.run(args);
            assert_refused(
                &r,
                &case.at("baselines/main"),
                "is a link perfbench did not make (to a version in baselines/); remove it",
            );
            case.assert_outside_untouched();
        }
        assert_eq!(
            std::fs::read_link(case.at("baselines/main")).unwrap(),
            to,
            "left for the user to remove"
        );
    }
    // The version folder itself replaced by a link.
    let case = Case::new("baseline-version");
    let version = format!("baselines/{}", case.version());
    case.link(&version, &case.outside);
    let r = case.run(&["--baseline", "main"]);
    assert_refused(&r, &case.at(&version), LINK);
    case.assert_outside_untouched();
}

#[test]
fn a_killed_runs_debris_is_swept_only_inside_the_store() {
    for (name, rel) in [("root-entry", "elsewhere"), ("baselines", "baselines")] {
        let case = Case::new(&format!("debris-{name}"));
        case.link(rel, &case.outside);
        // A killed run's line is still in the lock: the next run sweeps.
        std::fs::write(case.at(".lock"), "pid 4242 on box, since …: bench\n").unwrap();
        let r = case.run(&["sleeps"]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        case.assert_outside_untouched();
        assert!(case.at(rel).symlink_metadata().unwrap().is_symlink());
    }
}

#[test]
fn the_lock_file_is_never_opened_through_a_link() {
    let case = Case::new("lock-link");
    case.link(".lock", &case.outside.join("passwd"));
    let r = case.run(&[]);
    assert_refused(&r, &case.at(".lock"), LINK);
    assert!(r.stdout.is_empty(), "nothing measured: {}", r.stdout);
    case.assert_outside_untouched();

    let case = Case::new("lock-dangling");
    case.link(".lock", &case.outside.join("created"));
    let r = case.run(&[]);
    assert_refused(&r, &case.at(".lock"), LINK);
    assert!(!case.outside.join("created").exists());
    case.assert_outside_untouched();

    let case = Case::new("lock-fifo");
    make_fifo(&case.at(".lock"));
    let r = case.run(&[]);
    assert_refused(&r, &case.at(".lock"), "is not a regular file; remove it");
}

#[test]
fn an_earlier_layout_link_copies_nothing_into_a_baseline() {
    let case = Case::new("earlier-layout");
    let pages = case.folder_of("pages_times/1");
    // `old` has no link in baselines/: its files are looked for in the
    // earlier layout, `<folder>/baselines/old.json`.
    let rel = format!("{pages}/baselines");
    case.link(&rel, &case.outside);
    let r = case.run(&["sleeps", "--save-baseline", "old"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    case.assert_outside_untouched();
    let version = std::fs::read_link(case.at("baselines/old")).unwrap();
    let saved: Vec<String> = std::fs::read_dir(case.at("baselines").join(version))
        .unwrap()
        .flatten()
        .map(|f| f.file_name().into_string().unwrap())
        .collect();
    assert_eq!(saved, ["sleeps.json"], "nothing taken from outside");
    // Looking for a baseline through it is refused.
    let r = case.run(&["--baseline", "old"]);
    assert_refused(&r, &case.at(&rel), LINK);
    case.assert_outside_untouched();
}

/// Makes a FIFO at `path` with mkfifo(1).
fn make_fifo(path: &Path) {
    remove(path);
    let made = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(made.success());
}

/// Makes `path` a sparse file of `len` bytes.
fn make_sparse(path: &Path, len: u64) {
    remove(path);
    let file = std::fs::File::create(path).unwrap();
    file.set_len(len).unwrap();
}

#[test]
fn stored_files_are_read_bounded_never_from_a_device_or_a_fifo() {
    let case = Case::new("dev-zero");
    let pages = case.folder_of("pages_times/1");
    let latest = format!("{pages}/latest.json");
    case.link(&latest, Path::new("/dev/zero"));
    let r = case.run(&[]);
    assert_refused(&r, &case.at(&latest), LINK);

    let case = Case::new("fifo");
    make_fifo(&case.at(&latest));
    let r = case.run(&[]);
    assert_refused(&r, &case.at(&latest), "is not a regular file; remove it");

    let case = Case::new("huge");
    make_sparse(&case.at(&latest), 1 << 30);
    let r = case.run(&[]);
    assert_refused(
        &r,
        &case.at(&latest),
        "1024 MB, past the 64 MB a stored result may have; remove it",
    );
    let case = Case::new("baseline-huge");
    let file = format!("baselines/{}/sleeps.json", case.version());
    make_sparse(&case.at(&file), 1 << 30);
    let r = case.run(&["--baseline", "main"]);
    assert_refused(
        &r,
        &case.at(&file),
        "1024 MB, past the 64 MB a stored result may have; remove it",
    );
}

#[test]
fn a_bad_file_of_a_benchmark_outside_the_run_is_a_warning_and_left_out() {
    let sleeps_latest = "sleeps/latest.json";
    for (name, make) in [
        ("huge", (|p: &Path| make_sparse(p, 1 << 30)) as fn(&Path)),
        ("fifo", make_fifo),
        ("link", |p: &Path| {
            remove(p);
            symlink("/dev/zero", p).unwrap();
        }),
    ] {
        let case = Case::new(&format!("outside-run-{name}"));
        make(&case.at(sleeps_latest));
        let r = case.run(&["pages_times"]);
        assert_eq!(r.code, 0, "{name}: {}", r.stderr);
        let warned = r.stderr_lines(|l| l.contains("left out of the report"));
        assert_eq!(warned.len(), 1, "{name}: {}", r.stderr);
        assert!(
            warned[0].contains(&case.at(sleeps_latest).display().to_string()),
            "{name}: {}",
            warned[0]
        );
        case.assert_outside_untouched();
    }
    // A summary or values file of the report that is no regular file, or
    // too big, is made again from the stored result.
    for (name, rel) in [
        ("summary", "report/data/sleeps.json"),
        ("values", "report/data/sleeps.values.json"),
    ] {
        for (kind, make) in [
            ("fifo", make_fifo as fn(&Path)),
            ("huge", |p: &Path| make_sparse(p, 1 << 30)),
        ] {
            let case = Case::new(&format!("report-{name}-{kind}"));
            make(&case.at(rel));
            let r = case.run(&["pages_times"]);
            assert_eq!(r.code, 0, "{name} {kind}: {}", r.stderr);
            assert!(
                std::fs::read_to_string(case.at("report/index.html"))
                    .unwrap()
                    .contains("sleeps"),
                "{name} {kind}: still listed"
            );
        }
    }
}

/// The last series of a stored result.
fn last_series(doc: &mut Value) -> &mut Value {
    doc["series"].as_array_mut().unwrap().last_mut().unwrap()
}

/// Rewrites the JSON file `path` with `edit`.
fn edit_json(path: &Path, edit: impl FnOnce(&mut Value)) {
    let mut doc: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    edit(&mut doc);
    std::fs::write(path, serde_json::to_string(&doc).unwrap()).unwrap();
}

#[test]
fn absurd_stored_numbers_are_named_never_a_panic_a_hang_or_a_loop() {
    type Edit = fn(&mut Value);
    let spoiled: [(&str, Edit, &str); 4] = [
        (
            "earlier",
            |d| d["series"][0]["earlier"] = serde_json::json!([1e308]),
            "malformed `series.earlier`",
        ),
        (
            "rounds",
            |d| d["rounds"][0] = serde_json::json!(4_294_967_295u64),
            "malformed `rounds`",
        ),
        (
            "null-count",
            // The last series: a count's where one is counted.
            |d| last_series(d)["totals"][0] = Value::Null,
            "malformed `series.totals`",
        ),
        (
            "negative-iterations",
            |d| d["iterations"][0] = serde_json::json!(-1),
            "malformed `iterations`",
        ),
    ];
    for (name, edit, reason) in spoiled {
        let case = Case::new(&format!("numbers-{name}"));
        let latest = case.at("sleeps/latest.json");
        edit_json(&latest, edit);
        // Outside the run: a warning naming it, exit 0.
        let r = case.run(&["pages_times"]);
        assert_eq!(r.code, 0, "{name}: {}", r.stderr);
        assert!(
            r.stderr.contains(&format!(
                "perfbench: warning: left out of the report: {}: {reason}",
                latest.display()
            )),
            "{name}: {}",
            r.stderr
        );
        // In the run: the error names the file, exit 2.
        let r = case.run(&["sleeps"]);
        assert_refused(&r, &latest, reason);
    }
    // A report summary of absurd figures, as new as its result: refused
    // and made again from the result, the chart drawn in bounded time.
    for (name, estimate) in [
        ("huge-interval", serde_json::json!([0.0, -1e308, 1e308])),
        ("inverted", serde_json::json!([5.0, 9.0, 1.0])),
    ] {
        let case = Case::new(&format!("summary-{name}"));
        let summary = case.at("report/data/sleeps.json");
        edit_json(&summary, |d| d["metrics"][0]["estimate"] = estimate);
        let r = case.run(&["pages_times"]);
        assert_eq!(r.code, 0, "{name}: {}", r.stderr);
        let remade: Value =
            serde_json::from_str(&std::fs::read_to_string(&summary).unwrap()).unwrap();
        let remade = remade["metrics"][0].field("estimate").clone();
        assert!(remade.f64_at(0) < 1e9, "{name}: {remade:?}");
        assert!(
            remade[1].as_f64() <= remade[0].as_f64(),
            "{name}: {remade:?}"
        );
    }
}

#[test]
fn a_hostile_stored_profile_is_refused_in_one_line_and_never_read_whole() {
    fn rel(case: &Case) -> String {
        format!("{}/profile.folded", case.folder_of("pages_times/1"))
    }
    fn facts(case: &Case) -> String {
        format!("{}/profile.json", case.folder_of("pages_times/1"))
    }
    /// Makes a case's stored profile hostile; why it is refused.
    type Spoil = fn(&Case) -> String;
    let cases: [(&str, Spoil); 4] = [
        ("fifo", |c| {
            make_fifo(&c.at(&rel(c)));
            "is not a regular file; remove it".into()
        }),
        ("huge", |c| {
            make_sparse(&c.at(&rel(c)), 1 << 30);
            "past the".into()
        }),
        ("link", |c| {
            c.link(&rel(c), Path::new("/dev/zero"));
            LINK.into()
        }),
        ("escape", |c| {
            std::fs::write(c.at(&rel(c)), "pages_times/1;\u{1b}[31mred 5\n").unwrap();
            std::fs::write(c.at(&facts(c)), "{}").unwrap();
            "control character".into()
        }),
    ];
    for (name, make) in cases {
        let case = Case::new(&format!("profile-{name}"));
        let reason = make(&case);
        let r = case.run(&["--profile=cpu-clock", "pages_times/1"]);
        case.assert_outside_untouched();
        if r.stderr.contains("perfbench: note: --profile: ") {
            // Sampling refused here: no profile to compare, nothing read.
            assert_eq!(r.code, 0, "{name}: {}", r.stderr);
            continue;
        }
        assert!(!r.stderr.contains("panicked"), "{name}: {}", r.stderr);
        assert!(!r.stderr.contains('\u{1b}'), "{name}: {}", r.stderr);
        let culprit = case.at(&rel(&case)).display().to_string();
        let said = errors(&r);
        // Said once: read for the comparison, and then left as it is.
        assert_eq!(r.code, 2, "{name}: {}", r.stderr);
        let named = said.iter().filter(|l| l.contains(&culprit)).count();
        assert_eq!(named, 1, "{name}: errors naming {culprit}:\n{}", r.stderr);
        assert!(
            said.iter().any(|l| l.contains(&reason)),
            "{name}: no error says `{reason}`:\n{}",
            r.stderr
        );
    }
}
