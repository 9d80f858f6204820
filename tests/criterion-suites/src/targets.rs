//! The Criterion bench targets of the one package in `cargo metadata
//! --no-deps`'s output: one line each, `NAME FEATURES`, FEATURES being its
//! `required-features` joined by commas (`cargo bench --bench NAME` refuses
//! to build it without them), or `-` where it needs none.
//!
//! A Criterion suite is a `[[bench]]` of the manifest with `harness =
//! false`; the others (libtest benches, or a helper module `cargo publish`
//! took for one, as string-interner's `benches/setup.rs`) are left out,
//! and named on stderr. The metadata has no `harness`: the manifest says.

use serde_json::Value;
use toml_edit::DocumentMut;

/// The lines for the metadata `json` of the package whose Cargo.toml is
/// `manifest`.
pub fn bench_targets(json: &str, manifest: &str) -> Result<String, String> {
    let manifest: DocumentMut = manifest.parse().map_err(|e| format!("manifest: {e}"))?;
    let declared = manifest.get("bench").and_then(|b| b.as_array_of_tables());
    let own_harness = |name: &str| {
        let entry = declared
            .into_iter()
            .flatten()
            .find(|t| t.get("name").and_then(|n| n.as_str()) == Some(name));
        entry
            .and_then(|t| t.get("harness"))
            .and_then(|h| h.as_bool())
            == Some(false)
    };
    let v: Value = serde_json::from_str(json).map_err(|e| format!("metadata: {e}"))?;
    let packages = v["packages"].as_array().ok_or("metadata: no packages")?;
    let [package] = packages.as_slice() else {
        return Err(format!("metadata: {} packages, not one", packages.len()));
    };
    let mut out = String::new();
    for target in package["targets"].as_array().into_iter().flatten() {
        let is_bench = target["kind"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|k| k == "bench");
        if !is_bench {
            continue;
        }
        let name = target["name"]
            .as_str()
            .ok_or("metadata: a target without a name")?;
        if !own_harness(name) {
            eprintln!(
                "bench target `{name}` has libtest's harness: not a Criterion suite, left out"
            );
            continue;
        }
        let features: Vec<&str> = target["required-features"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let features = if features.is_empty() {
            "-".to_string()
        } else {
            features.join(",")
        };
        out.push_str(&format!("{name} {features}\n"));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_bench_targets_with_their_features() {
        let json = r#"{"packages":[{"targets":[
            {"name":"lib","kind":["lib"]},
            {"name":"json","kind":["bench"],"required-features":["std","alloc"]},
            {"name":"plain","kind":["bench"],"required-features":[]}]}]}"#;
        let manifest = "[[bench]]\nname = \"json\"\nharness = false\n\
                        [[bench]]\nname = \"plain\"\nharness = false\n";
        assert_eq!(
            bench_targets(json, manifest).unwrap(),
            "json std,alloc\nplain -\n"
        );
    }

    #[test]
    fn a_libtest_bench_is_left_out() {
        let json = r#"{"packages":[{"targets":[
            {"name":"bench","kind":["bench"]},
            {"name":"setup","kind":["bench"]},
            {"name":"auto","kind":["bench"]}]}]}"#;
        let manifest = "[[bench]]\nname = \"bench\"\nharness = false\n\
                        [[bench]]\nname = \"setup\"\npath = \"benches/setup.rs\"\n";
        assert_eq!(bench_targets(json, manifest).unwrap(), "bench -\n");
    }
}
