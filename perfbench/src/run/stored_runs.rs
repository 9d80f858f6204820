//! The stored runs a concluded benchmark needs, each file read once: the
//! run it is compared with (the preparation's target), and the run whose spread
//! widens its intervals (the latest of the same settings), and the
//! target's profile where this run has one. Which files that takes is
//! decided here, and only here: [`compared_profile`] too, for a profile a
//! run takes after its conclusion (`--profile=regressed`).

use crate::analysis::comparison::Target;
use crate::analysis::Recording;
use crate::store::{Slot, Store, StoreError};

/// What the store holds of one benchmark for its conclusion.
pub struct StoredRuns {
    /// The slot it is compared with.
    pub target: Slot,
    /// The run stored there, where one is and could be read.
    pub base: Option<Recording>,
    /// Why the target's run could not be read: it is then left as it is,
    /// never overwritten by this run.
    pub unreadable: Option<StoreError>,
    /// The latest stored run of the same settings as this one, which it
    /// learns the spread between runs from: the latest run, or where that
    /// had other settings (a `--quick` try-out) the run before it.
    pub earlier: Option<Recording>,
    /// Why the target's profile could not be read, where this run has a
    /// profile to compare with it: the run is then compared without it.
    pub unreadable_profile: Option<StoreError>,
}

/// Gives `base`, the run a comparison with `target` reads, the profile the
/// comparison gets, where it has none yet: the one stored beside it (the
/// latest run's, or a baseline's). A paired build's run brings its own,
/// taken by its pass, and never a stored one. Where the stored profile
/// cannot be read, `base` keeps none and the error says why.
pub fn compared_profile(
    store: &Store,
    target: &Target,
    base: &mut Recording,
) -> Result<(), StoreError> {
    if matches!(target, Target::Paired(_)) || base.profile.is_some() {
        return Ok(());
    }
    base.profile = store.load_profile(&base.id, &Slot::from(target))?;
    Ok(())
}

impl StoredRuns {
    /// Reads what `store` holds of the benchmark `new` for a comparison
    /// with `compared`: the target's run, then the latest and the previous
    /// run where the target's is not the one to learn from.
    pub fn load(store: &Store, new: &Recording, compared: &Target) -> StoredRuns {
        let (id, target) = (&new.id, Slot::from(compared));
        let (mut base, unreadable) = match store.load(id, &target) {
            Ok(base) => (base, None),
            Err(err) => (None, Some(err)),
        };
        // The profile stored beside the target's run, where this run has
        // one to compare with it.
        let unreadable_profile = match (&mut base, &new.profile) {
            (Some(base), Some(_)) => compared_profile(store, compared, base).err(),
            _ => None,
        };
        let latest = match (&target, &unreadable) {
            (Slot::Latest, None) => base.clone(),
            _ => store.load(id, &Slot::Latest).ok().flatten(),
        };
        let earlier = match latest {
            Some(l) if l.settings != new.settings => store.load(id, &Slot::Previous).ok().flatten(),
            other => other,
        };
        StoredRuns {
            target,
            base,
            unreadable,
            earlier,
            unreadable_profile,
        }
    }

    /// Whether `slot` is left as it is: the target's, which could not be
    /// read (a restored cache's, say), and might be repaired by hand.
    pub fn keeps(&self, slot: &Slot) -> bool {
        left_as_is(slot, &self.target, self.unreadable.is_some())
    }

    /// Whether the profile of `slot` is left as it is: the target's, which
    /// could not be read. (A baseline's is never written over: a save
    /// makes a new version.)
    pub fn keeps_profile(&self, slot: &Slot) -> bool {
        left_as_is(slot, &self.target, self.unreadable_profile.is_some())
    }
}

/// Whether a file of `slot` is left as it is: it is the `target`'s, which
/// could not be read (a restored cache's, say), and might be repaired by
/// hand.
pub fn left_as_is(slot: &Slot, target: &Slot, unreadable: bool) -> bool {
    slot == target && unreadable
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::{folded_profile, Profile};
    use crate::store::tests::{run_of, temp_root};

    fn profile(light: u64) -> Profile {
        folded_profile(10, &[("b;light", light)])
    }

    #[test]
    fn a_comparison_gets_its_target_s_stored_profile_and_a_paired_build_its_own() {
        let store = Store::at(temp_root("compared-profile"));
        let (run, result) = run_of("b", 16);
        store.save(&run, &Slot::Latest, &result).unwrap();
        store.save_profile("b", &profile(3)).unwrap();
        let lock = store.lock(|_| {}).unwrap();
        let saving = lock.begin_baseline("main").unwrap();
        saving.save(&run, &result).unwrap();
        saving.save_profile("b", &profile(5)).unwrap();
        saving.commit().unwrap();
        drop(lock);
        let given = |target: &Target, had: Option<Profile>| {
            let mut base = run.clone();
            base.profile = had;
            compared_profile(&store, target, &mut base).unwrap();
            base.profile
        };
        let main = Target::Baseline("main".into());
        let paired = Target::Paired("old".into());
        assert_eq!(given(&Target::PreviousRun, None), Some(profile(3)));
        assert_eq!(given(&main, None), Some(profile(5)));
        assert_eq!(given(&Target::Baseline("other".into()), None), None);
        assert_eq!(given(&paired, None), None, "never a stored one");
        assert_eq!(given(&paired, Some(profile(7))), Some(profile(7)));
        assert_eq!(given(&main, Some(profile(7))), Some(profile(7)));

        // The run's base gets it where the run has a profile to compare.
        let mut new = run.clone();
        new.profile = Some(profile(9));
        let stored = StoredRuns::load(&store, &new, &main);
        assert_eq!(stored.base.unwrap().profile, Some(profile(5)));
        let stored = StoredRuns::load(&store, &run, &main);
        assert_eq!(stored.base.unwrap().profile, None);

        // An unreadable baseline profile keeps that one, not the latest's.
        let kept = store.root().join("baselines/main/profiles/b.folded");
        std::fs::write(&kept, "b;light 4\n").unwrap();
        let stored = StoredRuns::load(&store, &new, &main);
        let e = stored.unreadable_profile.as_ref().expect("unreadable");
        assert_eq!(e.path.file_name().unwrap(), "b.json");
        assert_eq!(stored.base.as_ref().unwrap().profile, None);
        assert!(stored.keeps_profile(&Slot::Baseline("main".into())));
        assert!(!stored.keeps_profile(&Slot::Latest));
        let _ = std::fs::remove_dir_all(store.root());
    }
}
