//! Named baselines, saved whole.
//!
//! ```text
//! <root>/baselines/NAME                   a link to the version in use
//! <root>/baselines/.NAME.<pid>-<random>/  a version: <folder of the id>.json each
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
//! Baselines of the earlier layout, `<folder of the id>/baselines/NAME.json`,
//! are read while NAME has no link; the first save in the new layout takes
//! their files over and removes them.

use std::path::{Path, PathBuf};

use super::files::{self, Unfinished};
use super::json::encode_recording;
use super::lock::StoreLock;
use super::{error, folder_name, Store, StoreError};
use crate::analysis::{BenchResult, Recording};

/// The folder of the baselines' links and versions under a root.
pub(super) fn folder(root: &Path) -> PathBuf {
    root.join("baselines")
}

/// The file of `id` in baseline `name`: in the version the link points at,
/// else in the earlier layout.
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
        .join("baselines")
        .join(format!("{name}.json"))
}

/// The names of the saved baselines, in both layouts, sorted.
pub(super) fn names(root: &Path) -> Vec<String> {
    let dir = folder(root);
    let linked = list(&dir)
        .into_iter()
        .filter(|n| !n.starts_with('.'))
        .filter(|n| dir.join(n).symlink_metadata().is_ok_and(|m| m.is_symlink()));
    let earlier = list(root)
        .into_iter()
        .flat_map(|bench| list(&root.join(bench).join("baselines")))
        .filter_map(|f| f.strip_suffix(".json").map(String::from));
    let mut names: Vec<String> = linked.chain(earlier).collect();
    names.sort();
    names.dedup();
    names
}

/// The UTF-8 names in a folder; none if it cannot be listed.
fn list(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|f| f.file_name().into_string().ok())
        .collect()
}

/// A baseline being saved: its files go to a staging folder, which
/// [`BaselineSave::commit`] makes the baseline's version in use. Dropped
/// without a commit, the staging folder is removed.
#[derive(Debug)]
pub struct BaselineSave {
    root: PathBuf,
    name: String,
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
        let dir = folder(root).join(format!(".{name}.{}", files::unique_suffix()));
        let staging = Unfinished::register(dir);
        std::fs::create_dir_all(staging.path())
            .map_err(|e| error(&folder(root), format!("cannot create the folder: {e}")))?;
        Ok(BaselineSave {
            root: root.to_path_buf(),
            name: name.to_string(),
            staging: Some(staging),
        })
    }

    fn staging(&self) -> &Path {
        self.staging.as_ref().expect("until committed").path()
    }

    /// Writes `run` with its estimates into the new version.
    pub fn save(&self, run: &Recording, result: &BenchResult) -> Result<(), StoreError> {
        let path = self
            .staging()
            .join(format!("{}.json", folder_name(&run.id)));
        files::write_atomically(&path, encode_recording(run, result).as_bytes())
            .map_err(|e| self.named(e))
    }

    /// An error about a file of the staging folder, named as the file of
    /// the baseline it will be.
    fn named(&self, e: StoreError) -> StoreError {
        let file = e.path.file_name().map(PathBuf::from).unwrap_or_default();
        error(&folder(&self.root).join(&self.name).join(file), e.reason)
    }

    /// Makes the new version the baseline in use, with the files of the
    /// version before it that this save did not write.
    pub fn commit(mut self) -> Result<(), StoreError> {
        let _gate = files::gate();
        let link = folder(&self.root).join(&self.name);
        let before = version_in_use(&link).map(|v| folder(&self.root).join(v));
        self.carry_over(before.as_deref())?;
        let staging = self.staging.take().expect("committed once");
        let version = staging.path().file_name().expect("a folder name");
        let new_link =
            folder(&self.root).join(format!(".{}.link-{}", self.name, files::unique_suffix()));
        let linked = std::os::unix::fs::symlink(version, &new_link)
            .and_then(|()| std::fs::rename(&new_link, &link));
        if let Err(e) = linked {
            let _ = std::fs::remove_file(&new_link);
            let _ = std::fs::remove_dir_all(staging.path());
            return Err(error(
                &link,
                format!("cannot switch to the new version: {e}"),
            ));
        }
        drop(staging);
        match before {
            Some(old) => {
                let _ = std::fs::remove_dir_all(old);
            }
            None => self.remove_earlier_layout(),
        }
        Ok(())
    }

    /// Links into the staging folder each file of the version `before` (or
    /// of the earlier layout, where there is none) that it lacks.
    fn carry_over(&self, before: Option<&Path>) -> Result<(), StoreError> {
        let kept: Vec<(PathBuf, String)> = match before {
            Some(dir) => list(dir)
                .into_iter()
                .filter(|f| f.ends_with(".json") && !f.starts_with('.'))
                .map(|f| (dir.join(&f), f))
                .collect(),
            None => list(&self.root)
                .into_iter()
                .map(|bench| {
                    (
                        earlier_path(&self.root, &bench, &self.name),
                        format!("{bench}.json"),
                    )
                })
                .filter(|(from, _)| from.is_file())
                .collect(),
        };
        for (from, file) in kept {
            let to = self.staging().join(&file);
            if to.exists() {
                continue;
            }
            let copied =
                std::fs::hard_link(&from, &to).or_else(|_| std::fs::copy(&from, &to).map(drop));
            copied.map_err(|e| error(&from, format!("cannot keep it in the new version: {e}")))?;
        }
        Ok(())
    }

    /// Removes the earlier layout's files of this baseline, now taken over.
    fn remove_earlier_layout(&self) {
        for bench in list(&self.root) {
            let file = earlier_path(&self.root, &bench, &self.name);
            if std::fs::remove_file(&file).is_ok() {
                // Only if it is now empty.
                let _ = std::fs::remove_dir(file.parent().expect("a folder"));
            }
        }
    }
}

impl Drop for BaselineSave {
    fn drop(&mut self) {
        if let Some(staging) = &self.staging {
            let _ = std::fs::remove_dir_all(staging.path());
        }
    }
}

/// The version a baseline's link points at: a name in the baselines'
/// folder that perfbench made (a link made by hand to anywhere else is
/// never removed with the version it replaces).
fn version_in_use(link: &Path) -> Option<String> {
    let version = std::fs::read_link(link)
        .ok()?
        .into_os_string()
        .into_string()
        .ok()?;
    (version.starts_with('.') && !version.contains('/')).then_some(version)
}

/// Removes what killed saves left under `root`'s baselines: staging
/// folders and links no link in use points at and no save of this process
/// is writing.
pub(super) fn remove_debris(root: &Path) {
    let dir = folder(root);
    let names = list(&dir);
    let in_use: Vec<String> = names
        .iter()
        .filter(|n| !n.starts_with('.'))
        .filter_map(|n| version_in_use(&dir.join(n)))
        .collect();
    for name in names
        .iter()
        .filter(|n| n.starts_with('.') && !in_use.contains(n))
    {
        let path = dir.join(name);
        if files::is_unfinished(&path) {
            continue;
        }
        match path.symlink_metadata() {
            Ok(m) if m.is_dir() => {
                let _ = std::fs::remove_dir_all(&path);
            }
            Ok(_) => {
                let _ = std::fs::remove_file(&path);
            }
            Err(_) => {}
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
    use crate::store::tests::{run_of, temp_root};
    use crate::store::Slot;

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
        assert_eq!(store.baseline_names(), Vec::<String>::new(), "not yet");
        first.commit().unwrap();
        assert_eq!(store.baseline_names(), ["main"]);

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
        assert_eq!(store.baseline_names(), ["old"]);
        assert_eq!(faults(&store, "a", "old"), Some(16));

        let (b, result) = run_of("b", 17);
        store
            .save(&b, &Slot::Baseline("old".into()), &result)
            .unwrap();
        assert_eq!(faults(&store, "a", "old"), Some(16));
        assert_eq!(faults(&store, "b", "old"), Some(17));
        assert!(!earlier.exists(), "taken over");
        assert!(!earlier.parent().unwrap().exists(), "emptied, removed");
        assert_eq!(store.baseline_names(), ["old"]);
        let _ = std::fs::remove_dir_all(store.root());
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
        assert!(saving.staging().is_dir());
        drop((saving, lock));
        let _ = std::fs::remove_dir_all(store.root());
    }
}
