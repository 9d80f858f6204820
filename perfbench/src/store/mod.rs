//! Results on disk: one folder per benchmark under the output directory
//! holding its latest runs, and named baselines saved whole, as versioned
//! JSON.
//!
//! ```text
//! $PERFBENCH_HOME or <cargo target dir>/perfbench/<package>/<bench target>/
//!   .lock                                   held by the run writing here (lock.rs)
//!   <folder of the id>/latest.json          the last run, compared with by the next
//!   <folder of the id>/previous.json        the run before it, for the report
//!   <folder of the id>/history.jsonl        a line per run, the last 1,000 (history.rs)
//!   <folder of the id>/profile.folded       the last run's profile: folded stacks
//!   <folder of the id>/profile.json         and its facts (profile_files.rs)
//!   <folder of the id>/previous-profile.*   the profile before it
//!   baselines/NAME/<folder of the id>.json  --save-baseline NAME (baseline.rs)
//!   report/                                 the HTML report
//! ```
//!
//! Every file is reached from the root one folder at a time through
//! descriptors, following no link (folder.rs): a store restored from an
//! untrusted cache cannot lead perfbench outside it, and a link, a FIFO, a
//! device or a file past [`MAX_STORED_BYTES`] where perfbench keeps its
//! own is an error naming it, never read. Files are written to a temporary
//! name and renamed, so a reader never sees half a file, and no run leaves
//! temporary files behind (files.rs); a file perfbench did not write is
//! never overwritten.

use std::ffi::OsStr;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::analysis::comparison::Target;
use crate::analysis::printable::quoted;
use crate::analysis::{BenchResult, Recording};
use crate::measure::environment::stable_hash;

pub use crate::kernel::dir::Kind;
pub use baseline::BaselineSave;
pub use folded_stacks::{decode_folded, encode_folded, FoldedError};
pub use json::RESULT_SCHEMA;
pub use lock::{LockFailure, LockFile, StoreLock, LOCK_FILE};
pub use profile_files::folded_hash;

use folder::Folder;

mod baseline;
pub mod bench_summary;
mod files;
mod folded_stacks;
mod folder;
pub mod history;
pub mod json;
mod lock;
pub mod par_map;
mod profile_files;
pub mod report_cache;

/// The largest stored file perfbench reads: 64 MiB. A long per-iteration
/// run stores well under it; a file past it is refused, without being read,
/// rather than slowing every run down.
pub const MAX_STORED_BYTES: u64 = 64 << 20;

use json::{decode_recording, encode_recording};

/// Which stored run of a benchmark.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Slot {
    /// The latest run.
    Latest,
    /// The run before the latest: kept when a run replaces the latest, so
    /// that the report can show what changed for benchmarks the last run
    /// did not measure.
    Previous,
    /// A baseline saved under a name.
    Baseline(String),
}

impl From<&Target> for Slot {
    /// The stored run a comparison with `target` reads: the previous run is
    /// the latest stored one, until this run replaces it.
    fn from(target: &Target) -> Slot {
        match target {
            // A paired run reads no stored comparison; its latest run is
            // still the one it learns from.
            Target::PreviousRun | Target::Paired(_) => Slot::Latest,
            Target::Baseline(name) => Slot::Baseline(name.clone()),
        }
    }
}

/// A stored file that cannot be read or written, named.
#[derive(Debug)]
pub struct StoreError {
    /// The file or folder.
    pub path: PathBuf,
    /// What is wrong with it.
    pub reason: String,
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.reason)
    }
}

impl std::error::Error for StoreError {}

fn error(path: &Path, reason: impl Into<String>) -> StoreError {
    StoreError {
        path: path.to_path_buf(),
        reason: reason.into(),
    }
}

/// The output directory of the bench target `bench` of package `package`:
/// `$PERFBENCH_HOME` as it is, else `perfbench/<package>/<bench>/` in the
/// cargo target directory the running benchmark was built in, so that two
/// packages or bench targets sharing a target directory never mix their
/// results (a benchmark of one is never compared with, nor learns its
/// spread from, another's of the same id).
pub fn default_root(package: &str, bench: &str) -> PathBuf {
    if let Some(home) = std::env::var_os("PERFBENCH_HOME").filter(|h| !h.is_empty()) {
        return PathBuf::from(home);
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .filter(|t| !t.is_empty())
        .map(PathBuf::from)
        .or_else(built_in)
        .unwrap_or_else(|| PathBuf::from("target"));
    target
        .join("perfbench")
        .join(folder_name(package))
        .join(folder_name(bench))
}

/// The cargo target directory holding the running bench binary, which
/// lives in `<target>/<profile>/deps/`.
fn built_in() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let deps = exe
        .ancestors()
        .find(|a| a.file_name().is_some_and(|n| n == "deps"))?;
    Some(deps.parent()?.parent()?.to_path_buf())
}

/// Folders of the output directory that are not a benchmark's: an id of
/// one of these names gets a hashed folder.
const RESERVED: [&str; 2] = ["baselines", "report"];

/// A folder name for `id` that cannot leave the output directory: ids of
/// plain characters keep their look (`::` becomes `.`); any other id gets its
/// characters replaced and a hash of the whole id appended, so that two ids
/// never share a folder.
pub fn folder_name(id: &str) -> String {
    let readable: String = id
        .replace("::", ".")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "_-.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .take(80)
        .collect();
    let plain = !id.starts_with('.')
        && !RESERVED.contains(&id)
        && !id.is_empty()
        && id.len() <= 80
        && !id.contains('.')
        && readable.replace('.', "::") == id;
    if plain {
        readable
    } else {
        format!(
            "{}-{:016x}",
            readable.trim_start_matches('.'),
            stable_hash(id.as_bytes())
        )
    }
}

/// Checks a baseline name given on the command line.
pub fn check_baseline_name(name: &str) -> Result<(), BadBaselineName> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c));
    match ok {
        true => Ok(()),
        false => Err(BadBaselineName(name.to_string())),
    }
}

/// A baseline name that cannot name a baseline's folder; it prints the
/// name quoted (escaped and cut: it may hold a newline or 10,000
/// characters).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadBaselineName(pub String);

impl fmt::Display for BadBaselineName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "baseline name `{}`: use letters, digits, `_`, `-` and `.` (not first), at most 64",
            quoted(&self.0)
        )
    }
}

impl std::error::Error for BadBaselineName {}

/// The stored results under one output directory.
#[derive(Clone, Debug)]
pub struct Store {
    root: PathBuf,
}

impl Store {
    /// The store under `root`.
    pub fn at(root: impl Into<PathBuf>) -> Store {
        Store { root: root.into() }
    }

    /// The output directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The file of a benchmark's slot.
    pub fn path(&self, id: &str, slot: &Slot) -> PathBuf {
        let folder = self.root.join(folder_name(id));
        match slot {
            Slot::Latest => folder.join("latest.json"),
            Slot::Previous => folder.join("previous.json"),
            Slot::Baseline(name) => baseline::path(&self.root, name, id),
        }
    }

    /// The names of the baselines saved here; a `baselines` folder that
    /// is a link or no folder is the error.
    pub fn baseline_names(&self) -> Result<Vec<String>, StoreError> {
        baseline::names(&self.root)
    }

    /// Removes what killed runs left: temporary files, and staging folders
    /// of baselines. Only for the holder of the lock.
    fn remove_debris(&self) {
        if let Ok(Some(root)) = Folder::root(&self.root, false) {
            files::remove_debris(&root, 2);
            baseline::remove_debris(&root);
        }
    }

    /// The folder `rel` under the root (plain names only), made where
    /// `create` asks; `None` where it does not exist.
    fn folder(&self, rel: &Path, create: bool) -> Result<Option<Folder>, StoreError> {
        Folder::walk(&self.root, rel, create)
    }

    /// The folder and name of a file `rel` under the root.
    fn file(&self, rel: &Path, create: bool) -> Result<Option<(Folder, String)>, StoreError> {
        let name = rel.file_name().and_then(OsStr::to_str);
        let Some(name) = name else {
            return Err(error(&self.root.join(rel), "is not a file's path"));
        };
        let parent = rel.parent().unwrap_or(Path::new(""));
        Ok(self.folder(parent, create)?.map(|f| (f, name.to_string())))
    }

    /// Writes `bytes` to the file `rel` under the root (plain names only)
    /// whole, through a temporary file and a rename, making its folders;
    /// no link on the way is followed.
    pub fn write(&self, rel: &Path, bytes: &[u8]) -> Result<(), StoreError> {
        let (folder, name) = self.file(rel, true)?.expect("made");
        folder.write(name, bytes)
    }

    /// The text of the file `rel` under the root; `None` where there is
    /// none. Only a regular file of at most [`MAX_STORED_BYTES`] is read,
    /// and no link on the way is followed.
    pub fn read(&self, rel: &Path) -> Result<Option<String>, StoreError> {
        match self.file(rel, false)? {
            Some((folder, name)) => folder.read(name),
            None => Ok(None),
        }
    }

    /// When the regular file `rel` under the root last changed; `None`
    /// where there is none, an error naming it where it is not a regular
    /// file.
    pub fn modified(&self, rel: &Path) -> Result<Option<SystemTime>, StoreError> {
        let Some((folder, name)) = self.file(rel, false)? else {
            return Ok(None);
        };
        Ok(folder.stat_file(name)?.map(|s| s.modified))
    }

    /// The latest run stored in the benchmark folder `folder` of the
    /// root, checked to belong there; `None` where it holds none.
    pub fn stored_run(&self, folder: &str) -> Result<Option<Recording>, StoreError> {
        let Some(bench) = self.folder(Path::new(folder), false)? else {
            return Ok(None);
        };
        let Some(text) = bench.read("latest.json")? else {
            return Ok(None);
        };
        let path = bench.path_of("latest.json");
        let run = decode_recording(&text).map_err(|reason| error(&path, reason.to_string()))?;
        if folder_name(&run.id) != folder {
            return Err(error(
                &path,
                format!(
                    "holds benchmark `{}`, which belongs in another folder; remove it",
                    run.id
                ),
            ));
        }
        Ok(Some(run))
    }

    /// The UTF-8 names in the folder `rel` under the root with what each
    /// is, sorted; none where there is no such folder.
    pub fn list(&self, rel: &Path) -> Result<Vec<(String, Kind)>, StoreError> {
        Ok(self
            .folder(rel, false)?
            .map(|f| f.entries())
            .unwrap_or_default())
    }

    /// The ids of the benchmarks whose latest run is stored here, sorted; a
    /// folder whose `latest.json` cannot be read, or holds an id that belongs
    /// in another folder, gives its error instead (the errors come last). No
    /// output directory means no benchmarks.
    pub fn stored_ids(&self) -> Vec<Result<String, StoreError>> {
        let root = match Folder::root(&self.root, false) {
            Ok(Some(root)) => root,
            Ok(None) => return Vec::new(),
            Err(e) => return vec![Err(e)],
        };
        let (mut ids, mut errors) = (Vec::new(), Vec::new());
        for (folder, kind) in root.entries() {
            if folder.starts_with('.') || kind == Kind::File {
                continue;
            }
            match self.stored_run(&folder) {
                Ok(Some(run)) => ids.push(run.id),
                Ok(None) => {}
                Err(e) => errors.push(e),
            }
        }
        ids.sort();
        ids.into_iter()
            .map(Ok)
            .chain(errors.into_iter().map(Err))
            .collect()
    }

    /// Loads a benchmark's slot; `Ok(None)` if nothing is stored there.
    pub fn load(&self, id: &str, slot: &Slot) -> Result<Option<Recording>, StoreError> {
        Ok(self.read_slot(id, slot)?.map(|(run, _)| run))
    }

    /// The folder and file name of a benchmark's slot, the folders made
    /// where `create` asks; a baseline's is in the version its link points
    /// at (baseline.rs).
    fn slot_file(
        &self,
        id: &str,
        slot: &Slot,
        create: bool,
    ) -> Result<Option<(Folder, String)>, StoreError> {
        let file = match slot {
            Slot::Latest => "latest.json",
            Slot::Previous => "previous.json",
            Slot::Baseline(name) => return baseline::file(&self.root, name, id),
        };
        let folder = self.folder(Path::new(&folder_name(id)), create)?;
        Ok(folder.map(|f| (f, file.to_string())))
    }

    /// The stored run of `id` in `slot`, checked as [`load`](Self::load)
    /// checks it, with the file's text.
    fn read_slot(&self, id: &str, slot: &Slot) -> Result<Option<(Recording, String)>, StoreError> {
        let Some((folder, name)) = self.slot_file(id, slot, false)? else {
            return Ok(None);
        };
        let Some(text) = folder.read(&name)? else {
            return Ok(None);
        };
        let path = folder.path_of(&name);
        let run = decode_recording(&text).map_err(|reason| error(&path, reason.to_string()))?;
        if run.id != id {
            return Err(error(
                &path,
                format!("holds benchmark `{}`, not `{id}`; remove it", run.id),
            ));
        }
        Ok(Some((run, text)))
    }

    /// Stores `run` in `slot` with its estimates, replacing only a file
    /// perfbench wrote itself. A baseline gets a new version with this run
    /// and the other benchmarks' files of the one before; a run saving
    /// many benchmarks uses [`StoreLock::begin_baseline`] instead.
    pub fn save(
        &self,
        run: &Recording,
        slot: &Slot,
        result: &BenchResult,
    ) -> Result<PathBuf, StoreError> {
        if let Slot::Baseline(name) = slot {
            return self.save_baseline(run, name, result);
        }
        // Only a file perfbench wrote is replaced (reading it refuses any
        // other); the latest run is kept as the previous one.
        let kept = self.read_slot(&run.id, slot)?;
        let (folder, name) = self.slot_file(&run.id, slot, true)?.expect("made");
        if let (Some((_, kept)), Slot::Latest) = (kept, slot) {
            folder.write("previous.json", kept.as_bytes())?;
        }
        folder.write(&name, encode_recording(run, result).as_bytes())?;
        Ok(folder.path_of(&name))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::counter::event::parse_list;
    use crate::counter::group::Counts;
    use crate::measure::environment::Environment;
    use crate::measure::{Measurement, Sample};
    use serde_json::Value;

    /// A fresh folder for one test's store.
    pub(crate) fn temp_root(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("perfbench-store-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    /// A run of `id` counting `faults_per_iter` page faults an iteration.
    pub(crate) fn run_of(id: &str, faults_per_iter: u64) -> (Recording, BenchResult) {
        let events = parse_list("page-faults").unwrap();
        let m = Measurement {
            samples: (1..=5)
                .map(|i| Sample {
                    iterations: i * 10,
                    wall_ns: i * 1000 + 7,
                    counts: Counts {
                        time_enabled: 1,
                        time_running: 1,
                        values: vec![faults_per_iter * i * 10],
                    },
                })
                .collect(),
            throughput: None,
        };
        let env = Environment {
            cpu_model: "test cpu".into(),
            kernel: "6.18".into(),
            cpu: Some(0),
            ..Default::default()
        };
        (
            Recording::new(id, &events, &m, env),
            crate::analysis::analyze(
                &crate::analysis::Recording::new(id, &events, &m, Default::default()),
                &Default::default(),
            ),
        )
    }

    #[test]
    fn folder_names_stay_inside_and_never_collide() {
        assert_eq!(folder_name("touch_16"), "touch_16");
        assert_eq!(folder_name("three::touch_16"), "three.touch_16");
        assert!(folder_name("baselines").starts_with("baselines-"));
        assert!(folder_name("report").starts_with("report-"));
        let hostile = [
            "../../etc/passwd",
            "/abs/path",
            "a/b",
            "a_b",
            "a.b",
            "a::b",
            "..",
            ".",
            "",
            "nul\0byte",
            "tab\there",
            "emoji 🦀",
            "emoji 🦐",
            "baselines",
            "report",
            &"x".repeat(500),
            &"x".repeat(501),
        ];
        let names: Vec<String> = hostile.iter().map(|id| folder_name(id)).collect();
        for (id, name) in hostile.iter().zip(&names) {
            assert!(!name.is_empty() && name.len() <= 100, "{id:?} -> {name}");
            assert!(!name.starts_with('.'), "{id:?} -> {name}");
            assert!(
                name.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c)),
                "{id:?} -> {name}"
            );
            assert_eq!(Path::new(name).components().count(), 1, "{id:?} -> {name}");
        }
        let mut unique = names.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), names.len(), "{names:?}");
    }

    #[test]
    fn replacing_the_latest_run_keeps_it_as_the_previous_one() {
        let store = Store::at(temp_root("previous"));
        let (first, result) = run_of("x", 16);
        store.save(&first, &Slot::Latest, &result).unwrap();
        assert_eq!(
            store.load("x", &Slot::Previous).unwrap(),
            None,
            "nothing before the first"
        );
        let (second, result) = run_of("x", 17);
        store.save(&second, &Slot::Latest, &result).unwrap();
        let previous = store.load("x", &Slot::Previous).unwrap().unwrap();
        let latest = store.load("x", &Slot::Latest).unwrap().unwrap();
        assert_eq!(previous.series[1].totals, first.series[1].totals);
        assert_eq!(latest.series[1].totals, second.series[1].totals);
        // Saving a baseline keeps no previous copy of it.
        store
            .save(&second, &Slot::Baseline("b".into()), &result)
            .unwrap();
        store
            .save(&first, &Slot::Baseline("b".into()), &result)
            .unwrap();
        assert_eq!(
            store.load("x", &Slot::Previous).unwrap().unwrap().series[1].totals,
            first.series[1].totals
        );
    }

    #[test]
    fn runs_round_trip_and_write_atomically() {
        let store = Store::at(temp_root("roundtrip"));
        let (mut run, result) = run_of("three::touch_16", 16);
        run.membership = Some(crate::analysis::standings::Membership {
            group: "three".into(),
            member: "touch::<u8>".into(),
            arg: Some("(1, \"a\")".into()),
        });
        assert_eq!(store.load(&run.id, &Slot::Latest).unwrap(), None);
        let path = store.save(&run, &Slot::Latest, &result).unwrap();
        assert!(path.starts_with(store.root()));
        // A stored run keeps each series' name and unit, not its event.
        let mut stored = run.clone();
        stored.series.iter_mut().for_each(|s| s.event = None);
        assert_eq!(store.load(&run.id, &Slot::Latest).unwrap(), Some(stored));
        let base = Slot::Baseline("main".into());
        store.save(&run, &base, &result).unwrap();
        assert_eq!(store.baseline_names().unwrap(), ["main"]);
        let leftovers: Vec<_> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .flatten()
            .filter(|f| f.file_name().to_string_lossy().contains(".tmp-"))
            .collect();
        assert!(leftovers.is_empty());
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(doc["schema"], RESULT_SCHEMA);
        assert_eq!(doc["estimates"]["page-faults"]["estimate"], 16.0);
        let _ = std::fs::remove_dir_all(store.root());
    }

    #[test]
    fn every_read_path_is_stored_and_read_back() {
        let store = Store::at(temp_root("read-paths"));
        for path in crate::counter::group::ReadPath::ALL {
            let (mut run, result) = run_of("p", 1);
            run.read_path = Some(path);
            store.save(&run, &Slot::Latest, &result).unwrap();
            let back = store.load("p", &Slot::Latest).unwrap().unwrap();
            assert_eq!(back.read_path, Some(path));
        }
        let _ = std::fs::remove_dir_all(store.root());
    }

    #[test]
    fn thread_counts_are_stored_and_read_back() {
        let store = Store::at(temp_root("threads"));
        let (mut run, result) = run_of("t", 2);
        let path = store.save(&run, &Slot::Latest, &result).unwrap();
        let one = std::fs::read_to_string(&path).unwrap();
        assert!(!one.contains("threads"), "one thread, as before `threads`");
        assert_eq!(store.load("t", &Slot::Latest).unwrap().unwrap().threads, 1);
        run.threads = 4;
        store.save(&run, &Slot::Latest, &result).unwrap();
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(doc["threads"], 4);
        assert_eq!(store.load("t", &Slot::Latest).unwrap().unwrap().threads, 4);
        for bad in ["0", "-2", "2.5", "\"4\""] {
            let text = one.replace(
                "\"id\": \"t\"",
                &format!("\"threads\": {bad}, \"id\": \"t\""),
            );
            std::fs::write(&path, text).unwrap();
            let e = store.load("t", &Slot::Latest).unwrap_err();
            assert!(e.to_string().contains("malformed `threads`"), "{bad}: {e}");
        }
        let _ = std::fs::remove_dir_all(store.root());
    }

    #[test]
    fn damaged_or_foreign_files_are_named_and_kept() {
        let store = Store::at(temp_root("damaged"));
        let (run, result) = run_of("x", 1);
        let path = store.save(&run, &Slot::Latest, &result).unwrap();
        let good = std::fs::read_to_string(&path).unwrap();
        for (content, needle) in [
            (&good[..good.len() / 2], "not valid JSON"),
            (
                r#"{"schema":"perfbench/result/v0"}"#,
                "has schema `perfbench/result/v0`",
            ),
            (r#"{"hello":"world"}"#, "has schema `none`"),
            (
                &good.replace("\"iterations\": [", "\"iterations\": [-1, "),
                "malformed `iterations`",
            ),
        ] {
            std::fs::write(&path, content).unwrap();
            let e = store.load("x", &Slot::Latest).unwrap_err();
            assert_eq!(e.path, path);
            assert!(e.to_string().contains(needle), "{e}");
            assert!(store.save(&run, &Slot::Latest, &result).is_err());
            assert_eq!(
                std::fs::read_to_string(&path).unwrap(),
                content,
                "overwritten"
            );
        }
        // Another id's file in this id's folder is a collision, not a result.
        let (other, other_result) = run_of("y", 1);
        std::fs::write(&path, encode_recording(&other, &other_result)).unwrap();
        let e = store.load("x", &Slot::Latest).unwrap_err();
        assert!(
            e.to_string().contains("holds benchmark `y`, not `x`"),
            "{e}"
        );
        // A folder where a file should be.
        std::fs::remove_file(&path).unwrap();
        std::fs::create_dir_all(&path).unwrap();
        assert!(store
            .save(&run, &Slot::Latest, &result)
            .unwrap_err()
            .to_string()
            .contains("is a folder"));
        let _ = std::fs::remove_dir_all(store.root());
    }

    #[test]
    fn a_file_where_the_output_folder_should_be_is_named() {
        let root = temp_root("file-as-root");
        std::fs::create_dir_all(root.parent().unwrap()).unwrap();
        std::fs::write(&root, "not a folder").unwrap();
        let store = Store::at(&root);
        let (run, result) = run_of("x", 1);
        let e = store.save(&run, &Slot::Latest, &result).unwrap_err();
        assert_eq!(e.reason, "is not a folder; results are stored in a folder");
        assert_eq!(std::fs::read_to_string(&root).unwrap(), "not a folder");
        let _ = std::fs::remove_file(&root);
    }

    #[test]
    fn stored_ids_lists_every_latest_run_and_names_bad_files() {
        let store = Store::at(temp_root("stored-ids"));
        assert!(store.stored_ids().is_empty(), "no output directory yet");
        for id in ["b::two", "a/<arg>", "c"] {
            let (run, result) = run_of(id, 1);
            store.save(&run, &Slot::Latest, &result).unwrap();
        }
        // A baseline alone is no latest run; other folders are not results.
        let (only_base, result) = run_of("only_base", 1);
        store
            .save(&only_base, &Slot::Baseline("main".into()), &result)
            .unwrap();
        std::fs::create_dir_all(store.root().join("report")).unwrap();
        std::fs::write(store.root().join("stray.txt"), "x").unwrap();
        let ids: Vec<String> = store.stored_ids().into_iter().map(Result::unwrap).collect();
        assert_eq!(ids, ["a/<arg>", "b::two", "c"]);

        let damaged = store.path("c", &Slot::Latest);
        std::fs::write(&damaged, "{").unwrap();
        let (moved, moved_result) = run_of("d", 1);
        let foreign = store.root().join("elsewhere").join("latest.json");
        std::fs::create_dir_all(foreign.parent().unwrap()).unwrap();
        std::fs::write(&foreign, encode_recording(&moved, &moved_result)).unwrap();
        let listed = store.stored_ids();
        assert_eq!(listed.len(), 4);
        assert_eq!(listed[0].as_deref().unwrap(), "a/<arg>");
        assert_eq!(listed[1].as_deref().unwrap(), "b::two");
        let errors: Vec<String> = listed[2..]
            .iter()
            .map(|e| e.as_ref().unwrap_err().to_string())
            .collect();
        assert!(
            errors[0].starts_with(&damaged.display().to_string()),
            "{errors:?}"
        );
        assert!(errors[0].contains("not valid JSON"), "{errors:?}");
        assert!(
            errors[1].contains("holds benchmark `d`, which belongs in another folder"),
            "{errors:?}"
        );
        let _ = std::fs::remove_dir_all(store.root());
    }

    #[test]
    fn a_file_past_the_limit_is_refused_without_being_read() {
        let store = Store::at(temp_root("limit"));
        let (run, result) = run_of("x", 1);
        let path = store.save(&run, &Slot::Latest, &result).unwrap();
        // Sparse: 64 MiB and one byte of nothing, which no reader could parse.
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(MAX_STORED_BYTES + 1)
            .unwrap();
        let said = format!(
            "{}: 65 MB, past the 64 MB a stored result may have; remove it",
            path.display()
        );
        assert_eq!(
            store.load("x", &Slot::Latest).unwrap_err().to_string(),
            said
        );
        let listed = store.stored_ids();
        assert_eq!(listed.len(), 1);
        assert_eq!(listed[0].as_ref().unwrap_err().to_string(), said);
        let _ = std::fs::remove_dir_all(store.root());
    }

    #[test]
    fn baseline_names_are_checked() {
        assert!(check_baseline_name("main").is_ok());
        assert!(check_baseline_name("v1.2-rc_3").is_ok());
        for bad in ["", "../x", ".hidden", "a/b", "with space", &"n".repeat(65)] {
            assert!(
                check_baseline_name(bad)
                    .unwrap_err()
                    .to_string()
                    .contains("baseline name"),
                "{bad}"
            );
        }
    }
}
