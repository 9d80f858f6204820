//! A benchmark's stored profile: its stacks in a folded file (as
//! flamegraph.pl, inferno and speedscope read them: `folded_stacks.rs`)
//! and the rest in a JSON file beside it (`json/profile_facts.rs`). The
//! latest run's are `profile.folded` and `profile.json` in the
//! benchmark's folder; as with `latest.json`, saving a profile keeps the
//! one it replaces as `previous-profile.*`: the next run compares with the
//! latest profile, the report with the previous one. A named baseline
//! keeps each saved benchmark's in its version, as
//! `profiles/<folder of the id>.folded` and `.json` (baseline.rs), beside
//! the run saved with it. Every pair is written and read here, one way.
//!
//! The two files are written one after the other, each atomically, the
//! folded stacks first; the facts carry a hash of the stacks they describe,
//! so a pair from two runs (a run killed between the writes) is an error
//! naming the facts' file, never a profile made of both.

use std::path::{Path, PathBuf};

use super::baseline;
use super::folded_stacks::{decode_folded, encode_folded};
use super::folder::Folder;
use super::json::{decode_profile_facts, encode_profile_facts, ProfileFacts};
use super::{error, folder_name, Slot, Store, StoreError};
use crate::measure::environment::stable_hash;
use crate::profile::Profile;

/// The hash of a folded file's text that its facts carry: 16 hex digits.
pub fn folded_hash(folded: &str) -> String {
    format!("{:016x}", stable_hash(folded.as_bytes()))
}

/// The latest profile's files in a benchmark's folder: stacks, facts.
const LATEST: (&str, &str) = ("profile.folded", "profile.json");

/// The previous profile's files in a benchmark's folder.
const PREVIOUS: (&str, &str) = ("previous-profile.folded", "previous-profile.json");

/// Where a profile's two files are: their folder, and their names in it.
pub(super) struct Pair<'a> {
    folder: &'a Folder,
    stacks: String,
    facts: String,
}

impl<'a> Pair<'a> {
    /// The pair of `slot` in a benchmark's folder `folder`.
    fn in_bench_folder(folder: &'a Folder, slot: &Slot) -> Pair<'a> {
        let (stacks, facts) = match slot {
            Slot::Previous => PREVIOUS,
            _ => LATEST,
        };
        Pair {
            folder,
            stacks: stacks.to_string(),
            facts: facts.to_string(),
        }
    }

    /// The pair of the benchmark whose folder is `bench_folder` in a
    /// baseline version's `profiles/` folder `folder`: named after it, as
    /// its run is in the version.
    pub(super) fn in_baseline(folder: &'a Folder, bench_folder: &str) -> Pair<'a> {
        Pair {
            folder,
            stacks: format!("{bench_folder}.folded"),
            facts: format!("{bench_folder}.json"),
        }
    }

    /// The files' names.
    pub(super) fn names(&self) -> [&str; 2] {
        [&self.stacks, &self.facts]
    }

    /// Writes `profile` here, the folded stacks first. A profile that
    /// would not read back (a frame with `;`, a count past 10^15) is
    /// refused before anything is written.
    pub(super) fn write(&self, profile: &Profile) -> Result<(), StoreError> {
        self.write_texts(&self.texts(profile)?)
    }

    /// The texts of `profile`'s files, checked to read back.
    fn texts(&self, profile: &Profile) -> Result<Texts, StoreError> {
        let folded = encode_folded(&profile.stacks);
        let why = match decode_folded(&folded) {
            Ok(back) if back == profile.stacks => None,
            Ok(_) => Some("a frame holds `;`".to_string()),
            Err(e) => Some(e.to_string()),
        };
        if let Some(why) = why {
            let why = format!("cannot store this profile, it would not read back ({why})");
            return Err(error(&self.folder.path_of(&self.stacks), why));
        }
        let facts = encode_profile_facts(&ProfileFacts {
            event: profile.event.clone(),
            folded: folded_hash(&folded),
            iterations: profile.iterations,
            lost: profile.lost,
            samples: profile.samples,
        });
        if decode_profile_facts(&facts).is_err() {
            let why = "cannot store this profile: its event is not a short line of text";
            return Err(error(&self.folder.path_of(&self.facts), why));
        }
        Ok((folded, facts))
    }

    /// Writes the two texts, the folded stacks first, each atomically.
    fn write_texts(&self, (folded, facts): &Texts) -> Result<(), StoreError> {
        self.folder.write(&self.stacks, folded.as_bytes())?;
        self.folder.write(&self.facts, facts.as_bytes())
    }

    /// The profile stored here, with its files' texts, read with every
    /// limit a stored file has; `None` where neither file is there. A
    /// malformed file is an error naming it.
    fn read(&self) -> Result<Option<(Profile, Texts)>, StoreError> {
        let Some((folded, facts)) = self.read_texts()? else {
            return Ok(None);
        };
        let (stacks_path, facts_path) = (
            self.folder.path_of(&self.stacks),
            self.folder.path_of(&self.facts),
        );
        let stacks = decode_folded(&folded).map_err(|e| error(&stacks_path, e.to_string()))?;
        let decoded = decode_profile_facts(&facts);
        let decoded = decoded.map_err(|e| error(&facts_path, e.to_string()))?;
        if decoded.folded != folded_hash(&folded) {
            let why = format!(
                "describes another {} than the one beside it; remove both",
                self.stacks
            );
            return Err(error(&facts_path, why));
        }
        let profile = Profile {
            event: decoded.event,
            iterations: decoded.iterations,
            samples: decoded.samples,
            stacks,
            lost: decoded.lost,
        };
        Ok(Some((profile, (folded, facts))))
    }

    /// The texts of the two files, through the store's bounded reader;
    /// `None` where neither is there, an error naming the one missing
    /// where only one is.
    fn read_texts(&self) -> Result<Option<Texts>, StoreError> {
        let (stacks, facts) = (&self.stacks, &self.facts);
        match (self.folder.read(stacks)?, self.folder.read(facts)?) {
            (None, None) => Ok(None),
            (Some(s), Some(f)) => Ok(Some((s, f))),
            (Some(_), None) => Err(error(
                &self.folder.path_of(stacks),
                format!("has no {facts} beside it; remove it"),
            )),
            (None, Some(_)) => Err(error(
                &self.folder.path_of(facts),
                format!("has no {stacks} beside it; remove it"),
            )),
        }
    }
}

/// The texts of a profile's files: its folded stacks, its facts.
type Texts = (String, String);

impl Store {
    /// The folded-stacks file of benchmark `id`'s latest profile.
    pub fn profile_path(&self, id: &str) -> PathBuf {
        self.root().join(folder_name(id)).join(LATEST.0)
    }

    /// Stores `profile` as the latest profile of benchmark `id`, the one it
    /// replaces kept as the previous. Only files perfbench wrote are
    /// replaced (reading them refuses any other), and a profile that would
    /// not read back (a frame with `;`, a count past 10^15) is refused
    /// before anything is written.
    pub fn save_profile(&self, id: &str, profile: &Profile) -> Result<(), StoreError> {
        let folder = self.folder(Path::new(&folder_name(id)), true)?;
        let folder = folder.expect("made");
        let latest = Pair::in_bench_folder(&folder, &Slot::Latest);
        let texts = latest.texts(profile)?;
        if let Some((_, kept)) = latest.read()? {
            Pair::in_bench_folder(&folder, &Slot::Previous).write_texts(&kept)?;
        }
        latest.write_texts(&texts)
    }

    /// The profile of benchmark `id` in `slot` (the latest or the previous
    /// run's, or the one a baseline saved with its run), read with every
    /// limit a stored file has; `None` where there is none (a baseline of
    /// the earlier layout keeps none). A malformed file is an error naming
    /// it.
    pub fn load_profile(&self, id: &str, slot: &Slot) -> Result<Option<Profile>, StoreError> {
        let folder = match slot {
            Slot::Baseline(name) => baseline::profiles(self.root(), name)?,
            _ => self.folder(Path::new(&folder_name(id)), false)?,
        };
        let Some(folder) = folder else {
            return Ok(None);
        };
        let pair = match slot {
            Slot::Baseline(_) => Pair::in_baseline(&folder, &folder_name(id)),
            _ => Pair::in_bench_folder(&folder, slot),
        };
        Ok(pair.read()?.map(|(profile, _)| profile))
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::store::tests::temp_root;

    /// A profile of benchmark `b` whose light frame has `light` samples.
    pub(in crate::store) fn profile(light: u64) -> Profile {
        let mut p = Profile::new("cpu-clock");
        p.iterations = 1000;
        p.lost = 2;
        p.add(vec!["b".into(), "parse::light".into()], light);
        p.add(vec!["b".into(), "<T as Foo<&'a str>>::bar".into()], 5);
        p
    }

    #[test]
    fn profiles_round_trip_and_the_replaced_one_is_kept() {
        let store = Store::at(temp_root("profile"));
        assert_eq!(store.load_profile("b", &Slot::Latest).unwrap(), None);
        store.save_profile("b", &profile(3)).unwrap();
        let folded = store.root().join("b").join("profile.folded");
        assert_eq!(
            std::fs::read_to_string(&folded).unwrap(),
            "b;<T as Foo<&'a str>>::bar 5\nb;parse::light 3\n"
        );
        assert_eq!(
            store.load_profile("b", &Slot::Latest).unwrap(),
            Some(profile(3))
        );
        assert_eq!(store.load_profile("b", &Slot::Previous).unwrap(), None);
        store.save_profile("b", &profile(9)).unwrap();
        assert_eq!(
            store.load_profile("b", &Slot::Latest).unwrap(),
            Some(profile(9))
        );
        assert_eq!(
            store.load_profile("b", &Slot::Previous).unwrap(),
            Some(profile(3))
        );
        let base = Slot::Baseline("main".into());
        assert_eq!(store.load_profile("b", &base).unwrap(), None);
        let _ = std::fs::remove_dir_all(store.root());
    }

    #[test]
    fn a_profile_that_would_not_read_back_is_not_written() {
        let store = Store::at(temp_root("profile-unwritable"));
        let mut p = profile(1);
        p.add(vec!["b".into(), "a;b".into()], 1);
        let e = store.save_profile("b", &p).unwrap_err();
        let why = "cannot store this profile, it would not read back (a frame holds `;`)";
        assert_eq!(e.reason, why);
        let mut p = profile(1);
        p.add(vec!["b".into(), String::new()], 1);
        let e = store.save_profile("b", &p).unwrap_err();
        let why = "cannot store this profile, it would not read back \
                   (line 1: an empty frame; remove it)";
        assert_eq!(e.reason, why);
        let mut p = profile(1);
        p.event = "a\nb".into();
        let e = store.save_profile("b", &p).unwrap_err();
        assert!(
            e.to_string().ends_with(
                "profile.json: cannot store this profile: its event is not a short line of text"
            ),
            "{e}"
        );
        assert!(std::fs::read_dir(store.root().join("b"))
            .unwrap()
            .next()
            .is_none());
        let _ = std::fs::remove_dir_all(store.root());
    }

    #[test]
    fn hostile_profile_files_are_errors_naming_the_file() {
        let store = Store::at(temp_root("profile-hostile"));
        store.save_profile("b", &profile(3)).unwrap();
        let dir = store.root().join("b");
        let (folded, facts) = (dir.join("profile.folded"), dir.join("profile.json"));
        let good_facts = std::fs::read_to_string(&facts).unwrap();
        let said = |path: &Path, why: &str| format!("{}: {why}", path.display());
        // Stacks that decode, but not the ones the facts describe.
        std::fs::write(&folded, "b;parse::light 4\n").unwrap();
        let e = store.load_profile("b", &Slot::Latest).unwrap_err();
        let why = "describes another profile.folded than the one beside it; remove both";
        assert_eq!(e.to_string(), said(&facts, why));
        // A save refuses to replace what it cannot read.
        assert_eq!(
            store
                .save_profile("b", &profile(1))
                .unwrap_err()
                .to_string(),
            said(&facts, why)
        );
        std::fs::write(&folded, "b;x\u{7}y 4\n").unwrap();
        let e = store.load_profile("b", &Slot::Latest).unwrap_err();
        assert_eq!(
            e.to_string(),
            said(&folded, "line 1: a control character; remove it")
        );
        std::fs::write(&facts, "{\"schema\": 1}").unwrap();
        std::fs::remove_file(&folded).unwrap();
        let e = store.load_profile("b", &Slot::Latest).unwrap_err();
        assert_eq!(
            e.to_string(),
            said(&facts, "has no profile.folded beside it; remove it")
        );
        std::fs::write(&folded, "b 1\n").unwrap();
        let e = store.load_profile("b", &Slot::Latest).unwrap_err();
        assert_eq!(
            e.to_string(),
            said(
                &facts,
                "not a profile's facts of schema `perfbench/profile/v1`"
            )
        );
        // Not text, too large, a FIFO, a link: the bounded reader refuses.
        std::fs::write(&facts, &good_facts).unwrap();
        std::fs::write(&folded, b"b \xff 1\n").unwrap();
        let e = store.load_profile("b", &Slot::Latest).unwrap_err();
        assert_eq!(e.to_string(), said(&folded, "is not UTF-8 text; remove it"));
        let file = std::fs::File::create(&folded).unwrap();
        file.set_len(crate::store::MAX_STORED_BYTES + 1).unwrap();
        let e = store.load_profile("b", &Slot::Latest).unwrap_err();
        assert!(
            e.to_string().starts_with(&said(&folded, "65 MB, past")),
            "{e}"
        );
        std::fs::remove_file(&folded).unwrap();
        let made = std::process::Command::new("mkfifo").arg(&folded).status();
        assert!(made.unwrap().success(), "mkfifo {}", folded.display());
        let e = store.load_profile("b", &Slot::Latest).unwrap_err();
        assert_eq!(
            e.to_string(),
            said(&folded, "is not a regular file; remove it")
        );
        std::fs::remove_file(&folded).unwrap();
        std::os::unix::fs::symlink("/etc/passwd", &folded).unwrap();
        let e = store.load_profile("b", &Slot::Latest).unwrap_err();
        assert!(e.reason.starts_with("is a link"), "{e}");
        let _ = std::fs::remove_dir_all(store.root());
    }
}
