//! The stored runs a concluded benchmark needs, each file read once: the
//! run it is compared with (the preparation's target), and the run whose spread
//! widens its intervals (the latest of the same settings), and the
//! target's profile where this run has one. Which files that takes is
//! decided here, and only here.

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

impl StoredRuns {
    /// Reads what `store` holds of the benchmark `new` for a comparison
    /// with `target`: the target's run, then the latest and the previous
    /// run where the target's is not the one to learn from.
    pub fn load(store: &Store, new: &Recording, target: Slot) -> StoredRuns {
        let id = &new.id;
        let (mut base, unreadable) = match store.load(id, &target) {
            Ok(base) => (base, None),
            Err(err) => (None, Some(err)),
        };
        // The profile stored beside the target's run, where this run has
        // one to compare with it.
        let mut unreadable_profile = None;
        if let (Some(base), Some(_)) = (&mut base, &new.profile) {
            match store.load_profile(id, &target) {
                Ok(profile) => base.profile = profile,
                Err(err) => unreadable_profile = Some(err),
            }
        }
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
}
