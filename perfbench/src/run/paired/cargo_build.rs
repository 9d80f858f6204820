//! The cargo side of `--paired-with-rev`: which bench target of a checked
//! out package to build (`cargo metadata`), and building it with the cargo
//! that runs this benchmark (`cargo bench --no-run`), taking the executable
//! from cargo's JSON messages.
//!
//! Cargo reads `.cargo/config.toml` from the folder it runs in and every
//! folder above it, never from the folder of a `--manifest-path` (the
//! Cargo Book, "Hierarchical structure"; cargo issue 2930). The checkout
//! sits in the target directory, which may be restored from an untrusted
//! CI cache: run there, cargo would take a `rustc-wrapper` planted above
//! it, in `target/.cargo/`, which plain `cargo bench` never reads. So both
//! commands run in the user's own package folder, the one the candidate
//! was built from, and are given the checkout by `--manifest-path`: the
//! configuration is the user's, as for their own `cargo bench`.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde::Deserialize;

/// The part of `cargo metadata --no-deps` read here.
#[derive(Debug, Deserialize)]
struct Metadata {
    packages: Vec<MetadataPackage>,
    workspace_root: PathBuf,
}

/// One package of [`Metadata`].
#[derive(Debug, Deserialize)]
struct MetadataPackage {
    name: String,
    targets: Vec<CargoTarget>,
}

/// A target as cargo's messages name it.
#[derive(Debug, Deserialize)]
struct CargoTarget {
    name: String,
    kind: Vec<String>,
}

/// One line of `--message-format=json`, in the parts read here (the
/// others, and unknown fields, are left alone).
#[derive(Debug, Deserialize)]
struct CargoMessage {
    reason: String,
    target: Option<CargoTarget>,
    executable: Option<PathBuf>,
    message: Option<Diagnostic>,
}

/// A compiler diagnostic of a [`CargoMessage`].
#[derive(Debug, Deserialize)]
struct Diagnostic {
    level: String,
    rendered: Option<String>,
}

/// What a line of cargo's JSON messages means for the build.
#[derive(Debug, PartialEq, Eq)]
pub enum BuildEvent {
    /// The bench target's executable was written here.
    Executable(PathBuf),
    /// A compiler error, as rustc would print it.
    Error(String),
    /// Anything else.
    Other,
}

/// The cargo running this benchmark (`cargo bench` sets `CARGO`), else
/// `cargo` from the `PATH`.
fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

/// The name of the bench target of `package` whose crate name is
/// `crate_name` (cargo writes a name's `-` as `_` in the crate name), from
/// the JSON of `cargo metadata`; `Err` where the package or the target is
/// not there.
pub fn bench_target_name(
    metadata: &str,
    package: &str,
    crate_name: &str,
) -> Result<String, String> {
    let metadata: Metadata =
        serde_json::from_str(metadata).map_err(|e| format!("cargo metadata: {e}"))?;
    let Some(found) = metadata.packages.iter().find(|p| p.name == package) else {
        return Err(format!("there is no package `{package}`"));
    };
    found
        .targets
        .iter()
        .find(|t| t.kind.iter().any(|k| k == "bench") && t.name.replace('-', "_") == crate_name)
        .map(|t| t.name.clone())
        .ok_or_else(|| format!("package `{package}` has no bench target `{crate_name}`"))
}

/// The workspace root `cargo metadata` found for a package.
fn workspace_root(metadata: &str) -> Result<PathBuf, String> {
    serde_json::from_str::<Metadata>(metadata)
        .map(|m| m.workspace_root)
        .map_err(|e| format!("cargo metadata: {e}"))
}

/// `cargo metadata --no-deps` of the package at `manifest`, checked to
/// belong to a workspace inside `tree`: cargo looks for a workspace root
/// in the folders above a package, and a copy kept under the user's
/// target directory must not be taken for a member of the user's
/// workspace. Cargo runs in `user_folder` (see the module's doc). `Err`
/// says why in one line; cargo's own errors are on stderr above it.
pub fn metadata_within(manifest: &Path, tree: &Path, user_folder: &Path) -> Result<String, String> {
    let out = cargo()
        .current_dir(user_folder)
        .args(["metadata", "--no-deps", "--format-version", "1"])
        .arg("--manifest-path")
        .arg(manifest)
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "cargo metadata failed on {} (its errors above)",
            manifest.display()
        ));
    }
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let root = workspace_root(&text)?;
    let real = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    if !real(&root).starts_with(real(tree)) {
        return Err(format!(
            "cargo takes {} for a member of the workspace at {}, outside the checked-out commit",
            manifest.display(),
            root.display()
        ));
    }
    Ok(text)
}

/// What the JSON message `line` of `cargo bench --message-format=json`
/// says about building the bench target `name`.
pub fn build_event(line: &str, name: &str) -> BuildEvent {
    let Ok(message) = serde_json::from_str::<CargoMessage>(line) else {
        return BuildEvent::Other;
    };
    match message.reason.as_str() {
        "compiler-artifact" => {
            let ours = message
                .target
                .as_ref()
                .is_some_and(|t| t.name == name && t.kind.iter().any(|k| k == "bench"));
            match message.executable {
                Some(exe) if ours => BuildEvent::Executable(exe),
                _ => BuildEvent::Other,
            }
        }
        "compiler-message" => match message.message {
            Some(Diagnostic {
                level,
                rendered: Some(rendered),
            }) if level == "error" => BuildEvent::Error(rendered),
            _ => BuildEvent::Other,
        },
        _ => BuildEvent::Other,
    }
}

/// Builds the bench target `name` of `package` (at `manifest`) with
/// `cargo bench --no-run` in the target directory `target_dir`, run in
/// `user_folder` (see the module's doc), its progress and compiler errors
/// on stderr; the executable, or `Err` where the build failed or named
/// none.
pub fn build_bench(
    manifest: &Path,
    package: &str,
    name: &str,
    target_dir: &Path,
    user_folder: &Path,
) -> Result<PathBuf, String> {
    let mut child = cargo()
        .current_dir(user_folder)
        .args(["bench", "--no-run", "--message-format=json", "-p", package])
        .args(["--bench", name, "--manifest-path"])
        .arg(manifest)
        .env("CARGO_TARGET_DIR", target_dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    let stdout = child.stdout.take().expect("piped");
    let mut executable = None;
    for line in BufReader::new(stdout).lines() {
        let Ok(line) = line else { break };
        match build_event(&line, name) {
            BuildEvent::Executable(exe) => executable = Some(exe),
            BuildEvent::Error(rendered) => eprint!("{rendered}"),
            BuildEvent::Other => {}
        }
    }
    let status = child.wait().map_err(|e| format!("cargo: {e}"))?;
    match executable {
        Some(exe) if status.success() => Ok(exe),
        _ if !status.success() => Err(format!("cargo could not build it ({status})")),
        _ => Err("cargo built it but named no executable".to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const METADATA: &str = r#"{"packages":[
        {"name":"other","targets":[{"name":"gate","kind":["bench"]}]},
        {"name":"my-crate","version":"0.1.0","targets":[
            {"name":"my-crate","kind":["lib"],"src_path":"/x/src/lib.rs"},
            {"name":"hot-loop","kind":["bench"],"src_path":"/x/benches/hot-loop.rs"},
            {"name":"hot_path","kind":["bin"]}]}],
        "workspace_root":"/x","target_directory":"/x/target","version":1}"#;

    #[test]
    fn the_target_is_found_by_its_crate_name_among_the_packages_benches() {
        assert_eq!(
            bench_target_name(METADATA, "my-crate", "hot_loop"),
            Ok("hot-loop".to_string())
        );
        assert_eq!(
            bench_target_name(METADATA, "other", "gate"),
            Ok("gate".to_string())
        );
        assert_eq!(
            bench_target_name(METADATA, "my-crate", "hot_path"),
            Err("package `my-crate` has no bench target `hot_path`".to_string())
        );
        assert_eq!(
            bench_target_name(METADATA, "gone", "gate"),
            Err("there is no package `gone`".to_string())
        );
        assert!(bench_target_name("{", "my-crate", "hot_loop").is_err());
        assert_eq!(workspace_root(METADATA), Ok(PathBuf::from("/x")));
    }

    #[test]
    fn the_executable_is_taken_from_the_bench_targets_artifact_only() {
        let artifact = |name: &str, kind: &str, exe: &str| {
            format!(
                r#"{{"reason":"compiler-artifact","package_id":"p","target":{{"name":"{name}","kind":["{kind}"]}},"filenames":[],"executable":{exe},"fresh":false}}"#
            )
        };
        let ours = artifact("hot-loop", "bench", r#""/t/release/deps/hot_loop-1a2b""#);
        assert_eq!(
            build_event(&ours, "hot-loop"),
            BuildEvent::Executable(PathBuf::from("/t/release/deps/hot_loop-1a2b"))
        );
        let lib = artifact("hot-loop", "lib", "null");
        let other = artifact("gate", "bench", r#""/t/release/deps/gate-9f""#);
        for line in [lib, other] {
            assert_eq!(build_event(&line, "hot-loop"), BuildEvent::Other, "{line}");
        }
    }

    #[test]
    fn compiler_errors_are_passed_on_and_everything_else_is_not() {
        let message = |level: &str| {
            format!(
                r#"{{"reason":"compiler-message","message":{{"level":"{level}","message":"m","rendered":"{level}: m\n"}}}}"#
            )
        };
        assert_eq!(
            build_event(&message("error"), "b"),
            BuildEvent::Error("error: m\n".to_string())
        );
        for line in [
            message("warning"),
            r#"{"reason":"build-finished","success":true}"#.to_string(),
            "Compiling x".to_string(),
            String::new(),
        ] {
            assert_eq!(build_event(&line, "b"), BuildEvent::Other, "{line}");
        }
    }
}
