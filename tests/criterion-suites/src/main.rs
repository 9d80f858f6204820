//! run.sh's helper, so that the script needs neither jq nor Python:
//!
//! - `suites own-workspace CARGO_TOML` and `suites rename CARGO_TOML PACKAGE PATH`
//!   edit a downloaded crate's manifest in place (rename.rs says exactly
//!   how, and what it refuses);
//! - `suites bench-targets CARGO_TOML < METADATA` lists the Criterion
//!   bench targets (targets.rs);
//! - `suites table CRITERION_HOMES PERFBENCH_JSONS PLAIN_OUTPUTS` prints the wall times
//!   of both harnesses side by side, each the median of its rounds (one
//!   path per round, comma-separated; wall_times.rs), and the rig's
//!   third oracle's beside them; PERFBENCH_JSONS and PLAIN_OUTPUTS may be
//!   `-` where that side has not run.

mod rename;
mod targets;
mod wall_times;

use std::fs;
use std::io::Read;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    match command(&args) {
        Ok(out) => {
            print!("{out}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("suites {}: {e}", args.first().unwrap_or(&""));
            ExitCode::from(2)
        }
    }
}

fn command(args: &[&str]) -> Result<String, String> {
    match args {
        ["own-workspace", file] => edit(file, rename::own_workspace),
        ["rename", file, package, path] => edit(file, |text| rename::rename(text, package, path)),
        ["bench-targets", manifest] => {
            let mut json = String::new();
            std::io::stdin()
                .read_to_string(&mut json)
                .map_err(|e| e.to_string())?;
            let toml = fs::read_to_string(manifest).map_err(|e| format!("{manifest}: {e}"))?;
            targets::bench_targets(&json, &toml)
        }
        ["table", criterion, perfbench, plain] => wall_times::table(criterion, perfbench, plain),
        _ => Err(
            "usage: suites own-workspace CARGO_TOML | rename CARGO_TOML PACKAGE PATH | \
                  bench-targets CARGO_TOML < METADATA | table CRITERION_HOMES PERFBENCH_JSONS|- PLAIN_OUTPUTS|-"
                .into(),
        ),
    }
}

/// Rewrites `file` in place through `change`.
fn edit(file: &str, change: impl Fn(&str) -> Result<String, String>) -> Result<String, String> {
    let text = fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))?;
    let changed = change(&text).map_err(|e| format!("{file}: {e}"))?;
    if changed != text {
        fs::write(file, changed).map_err(|e| format!("{file}: {e}"))?;
    }
    Ok(String::new())
}
