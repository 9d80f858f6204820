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
        *slot == self.target && self.unreadable.is_some()
    }

    /// Whether the profile of `slot` is left as it is: the target's, which
    /// could not be read. (A baseline's is never written over: a save
    /// makes a new version.)
    pub fn keeps_profile(&self, slot: &Slot) -> bool {
        *slot == self.target && self.unreadable_profile.is_some()
    }
}
