//! The two edits run.sh makes to a downloaded crate's Cargo.toml, and no
//! others:
//!
//! - `own_workspace`: an empty `[workspace]` table appended where the
//!   manifest has none, so that the unpacked crate is a workspace of its
//!   own and not taken for a member of whatever folder holds it.
//! - `rename`: the `criterion` dev-dependency pointed at
//!   perfbench-criterion (or the rig's oracle, plain-criterion), in place:
//!   `version` gives way to `package = "perfbench-criterion"` and
//!   `path = "…"`; `features`,
//!   `default-features` and every comment stay as they were (the feature
//!   names are Criterion's, which perfbench-criterion declares too). The
//!   three spellings cargo accepts are handled: `criterion = "0.5"`,
//!   `criterion = { version = …, features = […] }` under
//!   `[dev-dependencies]`, and a `[dev-dependencies.criterion]` table (the
//!   form `cargo publish` normalises to). Anything else, which a one-line
//!   rename might get wrong (criterion also a normal, build or
//!   target-specific dependency, renamed already, from git or a path, a
//!   key we do not know), is refused with the reason, never guessed at.

use toml_edit::{DocumentMut, InlineTable, Item, Table, Value};

/// The keys a `criterion` entry may have for the rename to be exact.
const KNOWN_KEYS: [&str; 4] = [
    "version",
    "features",
    "default-features",
    "default_features",
];

/// `text` with an empty `[workspace]` table appended if it has none.
pub fn own_workspace(text: &str) -> Result<String, String> {
    let doc: DocumentMut = text.parse().map_err(|e| format!("not TOML: {e}"))?;
    if doc.contains_key("workspace") {
        return Ok(text.to_string());
    }
    if doc
        .get("package")
        .and_then(|p| p.get("workspace"))
        .is_some()
    {
        return Err("package.workspace names another workspace".into());
    }
    let sep = if text.ends_with('\n') { "" } else { "\n" };
    Ok(format!("{text}{sep}\n[workspace]\n"))
}

/// `text` with its `criterion` dev-dependency renamed to the crate
/// `package` (perfbench-criterion, or the rig's plain-criterion) at `path`.
pub fn rename(text: &str, package: &str, path: &str) -> Result<String, String> {
    let mut doc: DocumentMut = text.parse().map_err(|e| format!("not TOML: {e}"))?;
    refuse_elsewhere(&doc)?;
    let dev = doc
        .get_mut("dev-dependencies")
        .and_then(Item::as_table_like_mut)
        .ok_or("no [dev-dependencies]")?;
    let entry = dev
        .get_mut("criterion")
        .ok_or("no `criterion` in [dev-dependencies]")?;
    match entry {
        Item::Value(Value::String(_)) => {
            let mut table = InlineTable::new();
            table.insert("package", package.into());
            table.insert("path", path.into());
            let decor = entry.as_value().map(|v| v.decor().clone());
            let mut value = Value::InlineTable(table);
            if let Some(decor) = decor {
                *value.decor_mut() = decor;
            }
            *entry = Item::Value(value);
        }
        Item::Value(Value::InlineTable(table)) => retarget(table, package, path)?,
        Item::Table(table) => retarget_table(table, package, path)?,
        _ => return Err("`criterion` is neither a version nor a table".into()),
    }
    Ok(doc.to_string())
}

/// Refuses a manifest where criterion is more than a plain dev-dependency.
fn refuse_elsewhere(doc: &DocumentMut) -> Result<(), String> {
    for kind in ["dependencies", "build-dependencies", "build_dependencies"] {
        if doc.get(kind).and_then(|t| t.get("criterion")).is_some() {
            return Err(format!("`criterion` is also in [{kind}]"));
        }
    }
    if let Some(targets) = doc.get("target").and_then(Item::as_table_like) {
        for (cfg, t) in targets.iter() {
            for kind in ["dependencies", "dev-dependencies", "dev_dependencies"] {
                if t.get(kind).and_then(|d| d.get("criterion")).is_some() {
                    return Err(format!("`criterion` is in [target.{cfg}.{kind}]"));
                }
            }
        }
    }
    if doc.get("dev_dependencies").is_some() {
        return Err("[dev_dependencies] (the old spelling) is not handled".into());
    }
    let dev = doc.get("dev-dependencies").and_then(Item::as_table_like);
    for (name, dep) in dev.into_iter().flat_map(|d| d.iter()) {
        let package = dep.get("package").and_then(Item::as_str);
        if name != "criterion" && package == Some("criterion") {
            return Err(format!(
                "Criterion is a dev-dependency under the name `{name}`"
            ));
        }
    }
    Ok(())
}

/// Checks that every key of the entry is one the rename keeps or replaces.
fn known_keys<'a>(mut keys: impl Iterator<Item = &'a str>) -> Result<(), String> {
    match keys.find(|k| !KNOWN_KEYS.contains(k)) {
        Some(k) => Err(format!(
            "`criterion` has `{k}`, which the rename does not handle"
        )),
        None => Ok(()),
    }
}

fn retarget(table: &mut InlineTable, package: &str, path: &str) -> Result<(), String> {
    known_keys(table.iter().map(|(k, _)| k))?;
    table.remove("version");
    // First, where the version was, so the line reads as a rename.
    table.insert("path", path.into());
    table.insert("package", package.into());
    table.sort_values_by(|a, _, b, _| first(a.get()).cmp(&first(b.get())));
    Ok(())
}

fn retarget_table(table: &mut Table, package: &str, path: &str) -> Result<(), String> {
    known_keys(table.iter().map(|(k, _)| k))?;
    table.remove("version");
    table.insert("path", toml_edit::value(path));
    table.insert("package", toml_edit::value(package));
    table.sort_values_by(|a, _, b, _| first(a.get()).cmp(&first(b.get())));
    Ok(())
}

/// The order the rewritten entry's keys are written in: `package`, `path`,
/// then the kept ones as they were (the sort is stable).
fn first(key: &str) -> u8 {
    match key {
        "package" => 0,
        "path" => 1,
        _ => 2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_version_string_becomes_the_rename() {
        let text = "[dev-dependencies]\ncriterion = \"0.5\" # bench\nfoo = \"1\"\n";
        assert_eq!(
            rename(text, "perfbench-criterion", "/p").unwrap(),
            "[dev-dependencies]\ncriterion = { package = \"perfbench-criterion\", path = \"/p\" } # bench\nfoo = \"1\"\n"
        );
    }

    #[test]
    fn an_inline_table_keeps_features_and_default_features() {
        let text = "[dev-dependencies]\ncriterion = { version = \"0.5\", default-features = false, features = [\"async_tokio\"] }\n";
        assert_eq!(
            rename(text, "perfbench-criterion", "/p").unwrap(),
            "[dev-dependencies]\ncriterion = { package = \"perfbench-criterion\", path = \"/p\", default-features = false, features = [\"async_tokio\"] }\n"
        );
    }

    #[test]
    fn a_dotted_table_keeps_its_place_and_features() {
        let text = "[dev-dependencies.criterion]\nversion = \"0.8\"\nfeatures = [\n    \"html_reports\",\n    \"async_tokio\",\n]\n\n[dev-dependencies.itertools]\nversion = \"0.13\"\n";
        assert_eq!(
            rename(text, "perfbench-criterion", "/p").unwrap(),
            "[dev-dependencies.criterion]\npackage = \"perfbench-criterion\"\npath = \"/p\"\nfeatures = [\n    \"html_reports\",\n    \"async_tokio\",\n]\n\n[dev-dependencies.itertools]\nversion = \"0.13\"\n"
        );
    }

    #[test]
    fn what_the_rename_cannot_do_exactly_is_refused() {
        let cases = [
            (
                "[dependencies]\ncriterion = \"0.5\"\n[dev-dependencies]\ncriterion = \"0.5\"\n",
                "`criterion` is also in [dependencies]",
            ),
            (
                "[dev-dependencies]\ncriterion = { git = \"https://x\" }\n",
                "`criterion` has `git`, which the rename does not handle",
            ),
            (
                "[dev-dependencies]\nc = { package = \"criterion\", version = \"0.5\" }\n",
                "Criterion is a dev-dependency under the name `c`",
            ),
            (
                "[target.'cfg(unix)'.dev-dependencies]\ncriterion = \"0.5\"\n",
                "`criterion` is in [target.cfg(unix).dev-dependencies]",
            ),
            (
                "[dev-dependencies]\nfoo = \"1\"\n",
                "no `criterion` in [dev-dependencies]",
            ),
        ];
        for (text, error) in cases {
            assert_eq!(
                rename(text, "perfbench-criterion", "/p").unwrap_err(),
                error,
                "{text}"
            );
        }
    }

    #[test]
    fn a_workspace_is_appended_once() {
        let once = own_workspace("[package]\nname = \"a\"\n").unwrap();
        assert_eq!(once, "[package]\nname = \"a\"\n\n[workspace]\n");
        assert_eq!(own_workspace(&once).unwrap(), once);
    }
}
