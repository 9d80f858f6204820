//! The bench targets of the one package in `cargo metadata --no-deps`'s
//! output: one line each, `NAME FEATURES`, FEATURES being its
//! `required-features` joined by commas (`cargo bench --bench NAME` refuses
//! to build it without them), or `-` where it needs none.

use serde_json::Value;

/// The lines for the metadata `json`.
pub fn bench_targets(json: &str) -> Result<String, String> {
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
        assert_eq!(bench_targets(json).unwrap(), "json std,alloc\nplain -\n");
    }
}
