//! Named baselines, saved whole.
//!
//! ```text
//! <root>/baselines/NAME                   a link to the version in use
//! <root>/baselines/.NAME.<pid>-<random>/  a version: <folder of the id>.json each,
//!     profiles/<folder of the id>.folded  and the profile saved with it, where
//!     profiles/<folder of the id>.json    the run took one (profile_files.rs)
//! ```
//!
//! A run saving a baseline writes into a new version (the staging folder)
//! and, when it ends, hard-links into it the files of the version in use
//! that it did not write (a filtered save adds to a baseline), then points
//! the link at it with one rename. A reader therefore sees the old version
//! or the new one, whole; a killed save leaves only a staging folder, which
//! the next run holding the lock removes. (A link renamed over a link needs
//! nothing from the kernel layer, and works on any file system; exchanging
//! two folders with `renameat2` would not.)
//!
//! A benchmark's profile is carried over with its run, never alone: a run
//! saved again without a profile does not keep the profile of the one it
//! replaces. (Profiles have a folder of their own: `<folder of the
//! id>.profile.json` beside the runs could be the run of a benchmark whose
//! folder ends in `.profile`.)
//!
//! Baselines of the earlier layout, `<folder of the id>/baselines/NAME.json`,
//! are read while NAME has no link; the first save in the new layout takes
//! their files over and removes them. That layout kept no profiles.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use super::files::{self, Unfinished};
use super::folder::Folder;
use super::json::encode_recording;
use super::lock::StoreLock;
use super::profile_files::Pair;
use super::{error, folder_name, Kind, Store, StoreError};
use crate::analysis::{BenchResult, Recording};
use crate::profile::Profile;

/// The name of the baselines' folder in the root.
const BASELINES: &str = "baselines";

/// The name of a version's folder of profiles.
const PROFILES: &str = "profiles";

/// The folder of the baselines' links and versions under a root.
pub(super) fn folder(root: &Path) -> PathBuf {
    root.join(BASELINES)
}

/// The file of `id` in baseline `name`, for messages: in the version the
/// link points at, else in the earlier layout.
pub(super) fn path(root: &Path, name: &str, id: &str) -> PathBuf {
    let link = folder(root).join(name);
    if link.symlink_metadata().is_ok() {
        link.join(format!("{}.json", folder_name(id)))
    } else {
        earlier_path(root, &folder_name(id), name)
    }
}

/// Where the earlier layout keeps the baseline `name` of a benchmark folder.
fn earlier_path(root: &Path, bench_folder: &str, name: &str) -> PathBuf {
    root.join(bench_folder)
        .join(BASELINES)
        .join(format!("{name}.json"))
}

/// The folder and file name of `id` in baseline `name`: in the version its
/// link points at, else in the earlier layout; `None` where neither has
/// one. The link must be one perfbench made: to a version folder in
/// `baselines/`.
pub(super) fn file(
    root: &Path,
    name: &str,
    id: &str,
) -> Result<Option<(Folder, String)>, StoreError> {
    let file = format!("{}.json", folder_name(id));
    let Some(root) = Folder::root(root, false)? else {
        return Ok(None);
    };
    if let Some(baselines) = root.sub(OsStr::new(BASELINES), false)? {
        if let Some(version) = version_folder(&baselines, name)? {
            return Ok(Some((version, file)));
        }
    }
    let earlier = root
        .sub(OsStr::new(&folder_name(id)), false)?
        .map(|bench| bench.sub(OsStr::new(BASELINES), false))
        .transpose()?
        .flatten();
    Ok(earlier.map(|f| (f, format!("{name}.json"))))
}

/// The folder of profiles in the version of baseline `name` in use;
/// `None` where it has none, or is of the earlier layout (which kept no
/// profiles).
pub(super) fn profiles(root: &Path, name: &str) -> Result<Option<Folder>, StoreError> {
    let Some(root) = Folder::root(root, false)? else {
        return Ok(None);
    };
    let Some(baselines) = root.sub(OsStr::new(BASELINES), false)? else {
        return Ok(None);
    };
    match version_folder(&baselines, name)? {
        Some(version) => version.sub(OsStr::new(PROFILES), false),
        None => Ok(None),
    }
}

/// The version folder the link `name` in `baselines` points at; `None`
/// where there is no such link. A link elsewhere, or anything else of that
/// name, is refused.
fn version_folder(baselines: &Folder, name: &str) -> Result<Option<Folder>, StoreError> {
    let link = baselines.path_of(name);
    match baselines.stat(name)?.map(|s| s.kind) {
        None => return Ok(None),
        Some(Kind::Link) => {}
        Some(_) => {
            return Err(error(
                &link,
                "is not a link to a version of the baseline; remove it",
            ))
        }
    }
    let Some(version) = version_in_use(baselines, name) else {
        return Err(error(
            &link,
            "is a link perfbench did not make (to a version in baselines/); remove it",
        ));
    };
    match baselines.sub(OsStr::new(&version), false)? {
        Some(v) => Ok(Some(v)),
        None => Err(error(&link, "points at a version that is gone; remove it")),
    }
}

/// The names of the saved baselines, in both layouts, sorted. A
/// `baselines` folder, here or in a benchmark's folder, that is a link or
/// no folder at all is the error.
pub(super) fn names(root: &Path) -> Result<Vec<String>, StoreError> {
    let Some(root) = Folder::root(root, false)? else {
        return Ok(Vec::new());
    };
    let mut names = Vec::new();
    if let Some(baselines) = root.sub(OsStr::new(BASELINES), false)? {
        let linked = baselines.entries().into_iter();
        names.extend(
            linked
                .filter(|(n, kind)| !n.starts_with('.') && *kind == Kind::Link)
                .map(|(n, _)| n),
        );
    }
    for found in earlier_folders(&root) {
        let (_, earlier) = found?;
        let files = earlier.entries().into_iter();
        names.extend(
            files
                .filter(|(_, kind)| *kind == Kind::File)
                .filter_map(|(f, _)| f.strip_suffix(".json").map(String::from)),
        );
    }
    names.sort();
    names.dedup();
    Ok(names)
}

/// A baseline being saved: its files go to a staging folder, which
/// [`BaselineSave::commit`] makes the baseline's version in use. Dropped
/// without a commit, the staging folder is removed.
#[derive(Debug)]
pub struct BaselineSave {
    root: PathBuf,
    name: String,
    /// The staging folder's name in `baselines/`, registered as unfinished
    /// until committed.
    staging: Option<Unfinished>,
}

impl StoreLock {
    /// Starts saving the baseline `name` (a name [`super::check_baseline_name`]
    /// accepts) under the locked root.
    pub fn begin_baseline(&self, name: &str) -> Result<BaselineSave, StoreError> {
        BaselineSave::begin(self.root(), name)
    }
}

impl BaselineSave {
    /// Makes the staging folder of a new version of `name`.
    fn begin(root: &Path, name: &str) -> Result<BaselineSave, StoreError> {
        let baselines = Folder::walk(root, Path::new(BASELINES), true)?.expect("made");
        let version = format!(".{name}.{}", files::unique_suffix());
        let staging = Unfinished::register(baselines.path_of(&version));
        baselines
            .dir()
            .make_dir(OsStr::new(&version))
            .map_err(|e| error(baselines.path(), format!("cannot create the folder: {e}")))?;
        Ok(BaselineSave {
            root: root.to_path_buf(),
            name: name.to_string(),
            staging: Some(staging),
        })
    }

    /// The name of the staging folder in `baselines/`.
    fn version(&self) -> &OsStr {
        let staging = self.staging.as_ref().expect("until committed");
        staging.path().file_name().expect("a folder name")
    }

    /// The open folders `baselines/` and the staging folder in it.
    fn folders(&self) -> Result<(Folder, Folder), StoreError> {
        let baselines = Folder::walk(&self.root, Path::new(BASELINES), false)?;
        let baselines = baselines.ok_or_else(|| error(&folder(&self.root), "is gone"))?;
        let staging = baselines.sub(self.version(), false)?;
        let staging =
            staging.ok_or_else(|| error(&baselines.path_of(self.version()), "is gone"))?;
        Ok((baselines, staging))
    }

    /// Writes `run` with its estimates into the new version.
    pub fn save(&self, run: &Recording, result: &BenchResult) -> Result<(), StoreError> {
        let file = format!("{}.json", folder_name(&run.id));
        let written = self.folders().and_then(|(_, staging)| {
            staging.write(&file, encode_recording(run, result).as_bytes())
        });
        written.map_err(|e| self.named(e))
    }

    /// Writes the profile of `id`, taken with the run this save wrote for
    /// it, into the new version. Where this save wrote no run of `id` (it
    /// was left as it is, or could not be written) the profile is not kept
    /// either: a profile is only ever beside its own run.
    pub fn save_profile(&self, id: &str, profile: &Profile) -> Result<(), StoreError> {
        let bench_folder = folder_name(id);
        let written = self.folders().and_then(|(_, staging)| {
            if staging.stat_file(format!("{bench_folder}.json"))?.is_none() {
                return Ok(());
            }
            let profiles = staging.sub(OsStr::new(PROFILES), true)?.expect("made");
            Pair::in_baseline(&profiles, &bench_folder).write(profile)
        });
        written.map_err(|e| self.named(e))
    }

    /// An error about a file of the staging folder, named as the file of
    /// the baseline it will be.
    fn named(&self, e: StoreError) -> StoreError {
        // Its path in the version: a run's file, or `profiles/…`.
        let staging = self.staging.as_ref().map(Unfinished::path);
        let inside = staging.and_then(|s| e.path.strip_prefix(s).ok());
        let file = inside.or(e.path.file_name().map(Path::new));
        let file = file.unwrap_or(Path::new(""));
        error(&folder(&self.root).join(&self.name).join(file), e.reason)
    }

    /// Makes the new version the baseline in use, with the files of the
    /// version before it that this save did not write.
    pub fn commit(mut self) -> Result<(), StoreError> {
        let _gate = files::gate();
        let (baselines, staging) = self.folders()?;
        let before = version_folder(&baselines, &self.name)?;
        self.carry_over(before.as_ref(), &staging)?;
        let version = self.version().to_os_string();
        let link = baselines.path_of(&self.name);
        let new_link = format!(".{}.link-{}", self.name, files::unique_suffix());
        let linked = baselines
            .dir()
            .symlink(&version, OsStr::new(&new_link))
            .and_then(|()| {
                baselines.dir().rename(
                    OsStr::new(&new_link),
                    baselines.dir(),
                    OsStr::new(&self.name),
                )
            });
        if let Err(e) = linked {
            baselines.remove(&new_link);
            return Err(error(
                &link,
                format!("cannot switch to the new version: {e}"),
            ));
        }
        self.staging = None;
        match before {
            Some(old) => baselines.remove(old.name()),
            None => self.remove_earlier_layout(),
        }
        Ok(())
    }

    /// Links into `staging` each run of the version `before` (or of the
    /// earlier layout, where there is none) that it lacks, with its
    /// profile; links and anything else that is no regular file (a
    /// `profiles` that is no folder too) are left behind.
    fn carry_over(&self, before: Option<&Folder>, staging: &Folder) -> Result<(), StoreError> {
        let Some(dir) = before else {
            return self.carry_over_earlier(staging);
        };
        let profiles = dir.sub(OsStr::new(PROFILES), false).ok().flatten();
        for (file, kind) in dir.entries() {
            let run = file.strip_suffix(".json").filter(|_| kind == Kind::File);
            let Some(bench_folder) = run.filter(|_| !file.starts_with('.')) else {
                continue;
            };
            // A run this save wrote comes with its own profile, or none.
            if staging.stat(&file)?.is_some() {
                continue;
            }
            keep(dir, &file, staging, &file)?;
            if let Some(profiles) = &profiles {
                carry_profile(profiles, bench_folder, staging)?;
            }
        }
        Ok(())
    }

    /// Links into `staging` this baseline's files of the earlier layout;
    /// a link in that layout is no baseline's, and is skipped.
    fn carry_over_earlier(&self, staging: &Folder) -> Result<(), StoreError> {
        let Some(root) = Folder::root(&self.root, false)? else {
            return Ok(());
        };
        let from = format!("{}.json", self.name);
        for (bench, dir) in earlier_folders(&root).filter_map(Result::ok) {
            if dir.stat(&from)?.is_some_and(|s| s.kind == Kind::File) {
                let to = format!("{}.json", bench.name().to_string_lossy());
                keep(&dir, &from, staging, &to)?;
            }
        }
        Ok(())
    }

    /// Removes the earlier layout's files of this baseline, now taken over.
    fn remove_earlier_layout(&self) {
        let file = format!("{}.json", self.name);
        let Ok(Some(root)) = Folder::root(&self.root, false) else {
            return;
        };
        for (bench, dir) in earlier_folders(&root).filter_map(Result::ok) {
            if dir.stat_file(&file).ok().flatten().is_some()
                && dir.dir().remove_file(OsStr::new(&file)).is_ok()
            {
                // Only if it is now empty.
                let _ = bench.dir().remove_dir(OsStr::new(BASELINES));
            }
        }
    }
}

/// The `<folder of the id>/baselines` folders of the earlier layout under
/// `root`, each with its benchmark's folder; one that is a link, or no
/// folder, is the error in its place.
fn earlier_folders(
    root: &Folder,
) -> impl Iterator<Item = Result<(Folder, Folder), StoreError>> + '_ {
    root.entries()
        .into_iter()
        .filter(|(name, kind)| *kind == Kind::Dir && name != BASELINES && !name.starts_with('.'))
        .filter_map(|(bench, _)| {
            let found = root.sub(OsStr::new(&bench), false).and_then(|bench| {
                let Some(bench) = bench else { return Ok(None) };
                let earlier = bench.sub(OsStr::new(BASELINES), false)?;
                Ok(earlier.map(|earlier| (bench, earlier)))
            });
            found.transpose()
        })
}

/// Links into `staging`'s profiles the profile files of the benchmark whose
/// folder is `bench_folder` in a version's `profiles`, as they are (a
/// reader names a bad one): regular files only.
fn carry_profile(
    profiles: &Folder,
    bench_folder: &str,
    staging: &Folder,
) -> Result<(), StoreError> {
    let mut to = None;
    for name in Pair::in_baseline(profiles, bench_folder).names() {
        if profiles.stat(name)?.is_some_and(|s| s.kind == Kind::File) {
            if to.is_none() {
                to = staging.sub(OsStr::new(PROFILES), true)?;
            }
            keep(profiles, name, to.as_ref().expect("made"), name)?;
        }
    }
    Ok(())
}

/// Makes `to` in `staging` a second name of the file `from` in `dir`, or a
/// copy where the file system refuses the link.
fn keep(dir: &Folder, from: &str, staging: &Folder, to: &str) -> Result<(), StoreError> {
    if staging.stat(to)?.is_some() {
        return Ok(());
    }
    let linked = dir
        .dir()
        .hard_link(OsStr::new(from), staging.dir(), OsStr::new(to));
    if linked.is_ok() {
        return Ok(());
    }
    let text = dir.read(from)?.unwrap_or_default();
    staging.write(to, text.as_bytes()).map_err(|e| {
        error(
            &dir.path_of(from),
            format!("cannot keep it in the new version: {}", e.reason),
        )
    })
}

impl Drop for BaselineSave {
    fn drop(&mut self) {
        if let Some(staging) = &self.staging {
            if let Ok(Some(baselines)) = Folder::walk(&self.root, Path::new(BASELINES), false) {
                baselines.remove(staging.path().file_name().unwrap_or_default());
            }
        }
    }
}

/// The version the link `name` in `baselines` points at: a name in the
/// baselines' folder that perfbench made (a link made by hand to anywhere
/// else is never followed, nor removed with the version it replaces).
fn version_in_use(baselines: &Folder, name: &str) -> Option<String> {
    let version = baselines.dir().read_link(OsStr::new(name)).ok()?;
    let version = version.into_string().ok()?;
    let made = version.starts_with('.') && version != ".." && !version.contains('/');
    made.then_some(version)
}

/// Removes what killed saves left in the root's baselines: staging
/// folders and links no link in use points at and no save of this process
/// is writing.
pub(super) fn remove_debris(root: &Folder) {
    let Ok(Some(baselines)) = root.sub(OsStr::new(BASELINES), false) else {
        return;
    };
    let entries = baselines.entries();
    let in_use: Vec<String> = entries
        .iter()
        .filter(|(n, kind)| !n.starts_with('.') && *kind == Kind::Link)
        .filter_map(|(n, _)| version_in_use(&baselines, n))
        .collect();
    for (name, _) in entries
        .iter()
        .filter(|(n, _)| n.starts_with('.') && !in_use.contains(n))
    {
        if !files::is_unfinished(&baselines.path_of(name)) {
            baselines.remove(name);
        }
    }
}

impl Store {
    /// Saves `run` alone into baseline `name`, whole: the baseline's other
    /// files are kept.
    pub(super) fn save_baseline(
        &self,
        run: &Recording,
        name: &str,
        result: &BenchResult,
    ) -> Result<PathBuf, StoreError> {
        let save = BaselineSave::begin(self.root(), name)?;
        save.save(run, result)?;
        save.commit()?;
        Ok(path(self.root(), name, &run.id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::profile_files::tests::profile;
    use crate::store::tests::{run_of, temp_root};
    use crate::store::Slot;

    /// The names in `dir`.
    fn list(dir: &Path) -> Vec<String> {
        let names = std::fs::read_dir(dir).unwrap().flatten();
        names
            .map(|f| f.file_name().into_string().unwrap())
            .collect()
    }

    /// The page faults per iteration of `id` in baseline `name`.
    fn faults(store: &Store, id: &str, name: &str) -> Option<u64> {
        let run = store.load(id, &Slot::Baseline(name.into())).unwrap()?;
        Some(run.series[1].totals[0] / run.iterations[0])
    }

    fn save(saving: &BaselineSave, id: &str, faults: u64) {
        let (run, result) = run_of(id, faults);
        saving.save(&run, &result).unwrap();
    }

    #[test]
    fn a_save_replaces_the_baseline_whole_when_committed_and_keeps_what_it_did_not_run() {
        let store = Store::at(temp_root("whole"));
        let lock = store.lock(|_| panic!("no one holds it")).unwrap();
        let first = lock.begin_baseline("main").unwrap();
        save(&first, "a", 16);
        save(&first, "b", 16);
        assert_eq!(
            store.baseline_names().unwrap(),
            Vec::<String>::new(),
            "not yet"
        );
        first.commit().unwrap();
        assert_eq!(store.baseline_names().unwrap(), ["main"]);

        let second = lock.begin_baseline("main").unwrap();
        save(&second, "a", 17);
        assert_eq!(
            faults(&store, "a", "main"),
            Some(16),
            "the old one until committed"
        );
        second.commit().unwrap();
        assert_eq!(faults(&store, "a", "main"), Some(17));
        assert_eq!(
            faults(&store, "b", "main"),
            Some(16),
            "kept from the version before"
        );

        let dropped = lock.begin_baseline("main").unwrap();
        save(&dropped, "a", 18);
        drop(dropped);
        assert_eq!(faults(&store, "a", "main"), Some(17));
        let mut left = list(&folder(store.root()));
        left.sort();
        assert_eq!(left.len(), 2, "the link and its version: {left:?}");
        assert_eq!(left[1], "main");
        let _ = std::fs::remove_dir_all(store.root());
    }

    #[test]
    fn baselines_of_the_earlier_layout_are_read_and_taken_over_by_the_next_save() {
        let store = Store::at(temp_root("earlier-layout"));
        let (a, result) = run_of("a", 16);
        let earlier = store.root().join("a").join("baselines").join("old.json");
        std::fs::create_dir_all(earlier.parent().unwrap()).unwrap();
        std::fs::write(&earlier, encode_recording(&a, &result)).unwrap();
        assert_eq!(store.baseline_names().unwrap(), ["old"]);
        assert_eq!(faults(&store, "a", "old"), Some(16));

        let (b, result) = run_of("b", 17);
        store
            .save(&b, &Slot::Baseline("old".into()), &result)
            .unwrap();
        assert_eq!(faults(&store, "a", "old"), Some(16));
        assert_eq!(faults(&store, "b", "old"), Some(17));
        assert!(!earlier.exists(), "taken over");
        assert!(!earlier.parent().unwrap().exists(), "emptied, removed");
        assert_eq!(store.baseline_names().unwrap(), ["old"]);
        assert_eq!(
            store
                .load_profile("a", &Slot::Baseline("old".into()))
                .unwrap(),
            None
        );
        let _ = std::fs::remove_dir_all(store.root());
    }

    /// The profile of `id` in baseline `name`.
    fn profile_in(store: &Store, id: &str, name: &str) -> Option<Profile> {
        store
            .load_profile(id, &Slot::Baseline(name.into()))
            .unwrap()
    }

    #[test]
    fn profiles_are_saved_with_their_runs_and_carried_with_them_only() {
        let store = Store::at(temp_root("baseline-profiles"));
        let lock = store.lock(|_| panic!("no one holds it")).unwrap();
        let first = lock.begin_baseline("main").unwrap();
        save(&first, "a", 16);
        first.save_profile("a", &profile(3)).unwrap();
        save(&first, "b", 16);
        first.save_profile("b", &profile(5)).unwrap();
        save(&first, "c", 16);
        assert_eq!(profile_in(&store, "a", "main"), None, "not yet");
        first.commit().unwrap();
        let profiles = folder(store.root()).join("main").join(PROFILES);
        assert_eq!(
            std::fs::read_to_string(profiles.join("a.folded")).unwrap(),
            "b;<T as Foo<&'a str>>::bar 5\nb;parse::light 3\n",
            "the latest profile's format"
        );
        assert_eq!(profile_in(&store, "a", "main"), Some(profile(3)));
        assert_eq!(profile_in(&store, "b", "main"), Some(profile(5)));
        assert_eq!(profile_in(&store, "c", "main"), None);

        // `a` again without a profile, `b` not run, `z` not saved: its
        // profile is not kept.
        let second = lock.begin_baseline("main").unwrap();
        save(&second, "a", 17);
        second.save_profile("z", &profile(7)).unwrap();
        let mut bad = profile(1);
        bad.add(vec!["b".into(), "a;b".into()], 1);
        let e = second.save_profile("a", &bad).unwrap_err();
        let named = folder(store.root()).join("main/profiles/a.folded");
        assert_eq!(e.path, named, "named as the baseline's file");
        second.commit().unwrap();
        assert_eq!(faults(&store, "a", "main"), Some(17));
        assert_eq!(profile_in(&store, "a", "main"), None, "no stale profile");
        assert_eq!(faults(&store, "b", "main"), Some(16));
        assert_eq!(profile_in(&store, "b", "main"), Some(profile(5)), "carried");
        assert_eq!(faults(&store, "z", "main"), None);
        let mut left = list(&profiles);
        left.sort();
        assert_eq!(left, ["b.folded", "b.json"]);

        // A save writing a profile anew replaces the one before it.
        let third = lock.begin_baseline("main").unwrap();
        save(&third, "b", 18);
        third.save_profile("b", &profile(9)).unwrap();
        third.commit().unwrap();
        assert_eq!(profile_in(&store, "b", "main"), Some(profile(9)));
        assert_eq!(profile_in(&store, "a", "main"), None);
        assert_eq!(profile_in(&store, "b", "other"), None, "no such baseline");
        drop(lock);
        let _ = std::fs::remove_dir_all(store.root());
    }

    #[test]
    fn hostile_baseline_profiles_are_errors_naming_the_file_and_left_as_they_are() {
        let store = Store::at(temp_root("baseline-profiles-hostile"));
        let lock = store.lock(|_| panic!("no one holds it")).unwrap();
        let saving = lock.begin_baseline("main").unwrap();
        save(&saving, "b", 16);
        saving.save_profile("b", &profile(3)).unwrap();
        save(&saving, "c", 16);
        saving.save_profile("c", &profile(4)).unwrap();
        saving.commit().unwrap();
        let link = folder(store.root()).join("main");
        let version = folder(store.root()).join(std::fs::read_link(&link).unwrap());
        let profiles = version.join(PROFILES);
        let (folded, facts) = (profiles.join("b.folded"), profiles.join("b.json"));
        let load = |id: &str| store.load_profile(id, &Slot::Baseline("main".into()));
        let said = |path: &Path, why: &str| format!("{}: {why}", path.display());
        // Stacks of another save than the facts beside them.
        std::fs::write(&folded, "b;parse::light 4\n").unwrap();
        let why = "describes another b.folded than the one beside it; remove both";
        assert_eq!(load("b").unwrap_err().to_string(), said(&facts, why));
        assert_eq!(
            std::fs::read_to_string(&folded).unwrap(),
            "b;parse::light 4\n"
        );
        // Another benchmark's pair, well formed, is no pair of `b`'s.
        std::fs::copy(profiles.join("c.folded"), &folded).unwrap();
        assert_eq!(load("b").unwrap_err().to_string(), said(&facts, why));
        // Too large, a link, a FIFO: the bounded reader refuses, unread.
        let file = std::fs::File::create(&folded).unwrap();
        file.set_len(crate::store::MAX_STORED_BYTES + 1).unwrap();
        let e = load("b").unwrap_err();
        assert!(
            e.to_string().starts_with(&said(&folded, "65 MB, past")),
            "{e}"
        );
        std::fs::remove_file(&folded).unwrap();
        std::os::unix::fs::symlink("/etc/passwd", &folded).unwrap();
        let e = load("b").unwrap_err();
        assert_eq!(e.path, folded);
        assert!(e.reason.starts_with("is a link"), "{e}");
        std::fs::remove_file(&folded).unwrap();
        let made = std::process::Command::new("mkfifo").arg(&folded).status();
        assert!(made.unwrap().success(), "mkfifo {}", folded.display());
        let e = load("b").unwrap_err();
        assert_eq!(
            e.to_string(),
            said(&folded, "is not a regular file; remove it")
        );
        assert_eq!(load("c").unwrap(), Some(profile(4)), "its neighbour reads");
        // A `profiles` that is a link is never followed.
        let elsewhere = temp_root("baseline-profiles-elsewhere");
        std::fs::create_dir_all(&elsewhere).unwrap();
        std::fs::rename(&profiles, elsewhere.join("p")).unwrap();
        std::os::unix::fs::symlink(elsewhere.join("p"), &profiles).unwrap();
        let e = load("c").unwrap_err();
        assert_eq!(e.path, profiles);
        assert!(e.reason.starts_with("is a link"), "{e}");
        // Nor carried over: the next version keeps the runs alone.
        let next = lock.begin_baseline("main").unwrap();
        save(&next, "a", 16);
        next.commit().unwrap();
        assert_eq!(faults(&store, "c", "main"), Some(16));
        assert_eq!(load("c").unwrap(), None);
        assert!(
            elsewhere.join("p").join("c.folded").is_file(),
            "left as it is"
        );
        drop(lock);
        let _ = std::fs::remove_dir_all(store.root());
        let _ = std::fs::remove_dir_all(&elsewhere);
    }

    #[test]
    fn the_next_lock_holder_removes_what_a_killed_save_left() {
        let store = Store::at(temp_root("killed-save"));
        let (a, result) = run_of("a", 16);
        store
            .save(&a, &Slot::Baseline("main".into()), &result)
            .unwrap();
        let dir = folder(store.root());
        let staging = dir.join(".main.4242-00000000000000ff");
        std::fs::create_dir_all(&staging).unwrap();
        std::fs::write(staging.join("a.json"), "half").unwrap();
        std::fs::write(staging.join(".a.json.tmp-4242-01"), "half").unwrap();
        std::os::unix::fs::symlink(
            ".main.4242-00000000000000ff",
            dir.join(".main.link-4242-02"),
        )
        .unwrap();
        // The killed run's line is still in the lock file.
        std::fs::write(
            store.root().join(".lock"),
            "pid 4242 on box, since …: bench\n",
        )
        .unwrap();
        let lock = store.lock(|_| {}).unwrap();
        assert!(!staging.exists());
        assert_eq!(
            list(&dir).len(),
            2,
            "the link and its version: {:?}",
            list(&dir)
        );
        assert_eq!(faults(&store, "a", "main"), Some(16));
        // This run's own staging folder is not debris.
        let saving = lock.begin_baseline("main").unwrap();
        store.remove_debris();
        assert!(saving.staging.as_ref().unwrap().path().is_dir());
        drop((saving, lock));
        let _ = std::fs::remove_dir_all(store.root());
    }
}
