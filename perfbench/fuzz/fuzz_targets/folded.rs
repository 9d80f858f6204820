//! `cargo fuzz run folded`: any text given to the readers of a stored
//! profile (its folded stacks, its facts) must come back as a value or a
//! one-line error, never a panic or a long loop; stacks that decode must
//! encode to the same stacks again (perfbench reads what it writes), and
//! be read back through the store as a benchmark's profile with the facts
//! that describe them, and drawn as a report page draws them (a flame
//! graph, a differential one against itself less its first stack).

#![no_main]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use perfbench::output::html::{differential_flame_graph, flame_graph};
use perfbench::profile::Profile;
use perfbench::store::json::{
    decode_profile_facts, encode_profile_facts, ProfileFacts,
};
use perfbench::store::{decode_folded, encode_folded, folded_hash, Slot, Store};

/// A store of this process's own, emptied for each input.
fn root() -> &'static Path {
    static ROOT: OnceLock<PathBuf> = OnceLock::new();
    ROOT.get_or_init(|| {
        std::env::temp_dir().join(format!("perfbench-fuzz-folded-{}", std::process::id()))
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(facts) = decode_profile_facts(text).map_err(|e| assert!(!e.to_string().contains('\n'))) {
        assert_eq!(decode_profile_facts(&encode_profile_facts(&facts)).ok(), Some(facts));
    }
    let stacks = match decode_folded(text) {
        Ok(stacks) => stacks,
        Err(e) => return assert!(!e.to_string().contains('\n'), "{e}"),
    };
    let again = encode_folded(&stacks);
    assert_eq!(decode_folded(&again).as_ref(), Ok(&stacks), "{again}");
    // The file as a store holds it, beside facts that describe it.
    let _ = std::fs::remove_dir_all(root());
    let folder = root().join("b");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("profile.folded"), text).unwrap();
    let facts = ProfileFacts {
        event: "cpu-clock".into(),
        folded: folded_hash(text),
        iterations: 10,
        lost: 0,
        samples: 1,
    };
    std::fs::write(folder.join("profile.json"), encode_profile_facts(&facts)).unwrap();
    let profile = Store::at(root()).load_profile("b", &Slot::Latest).unwrap();
    let profile: Profile = profile.expect("stored");
    assert_eq!(profile.stacks, stacks);
    assert!(flame_graph(&profile).ends_with("</section>\n"));
    let mut before = profile.clone();
    before.stacks.pop_first();
    assert!(differential_flame_graph(&before, &profile).ends_with("</section>\n"));
});
