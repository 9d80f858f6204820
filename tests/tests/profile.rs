//! End to end: the sampling profile (`--profile`) of tests/benches/profiled.rs,
//! whose routines have a known call structure. Where sampling opens, each
//! benchmark's JSON line carries its profile, whose stacks start at the
//! benchmark and are right on a default release build (no frame
//! pointers, no debug info: unwound with `.eh_frame`); where it cannot
//! (a seccomp filter, a closed kernel), one note says so and nothing else
//! changes.

mod common;

use std::path::{Path, PathBuf};

use common::browser::check_in_browser_with;
use common::json::Fields;
use common::{bench_target_with_env, fresh_dir, under, Run, Under, QUICK};
use serde_json::Value;

/// `cargo bench --bench profiled -- QUICK --output-format json ARGS`,
/// storing under a fresh home.
fn profiled(name: &str, args: &[&str]) -> (Run, PathBuf) {
    profiled_in(&fresh_dir("profile", name), args)
}

/// As [`profiled`], storing under `home`.
fn profiled_in(home: &Path, args: &[&str]) -> (Run, PathBuf) {
    profiled_with(home, args, &[])
}

/// As [`profiled_in`], with `env` set.
fn profiled_with(home: &Path, args: &[&str], env: &[(&str, &str)]) -> (Run, PathBuf) {
    let home = home.to_path_buf();
    let args: Vec<&str> = QUICK
        .iter()
        .copied()
        .chain(["--output-format", "json"])
        .chain(args.iter().copied())
        .collect();
    let home_text = home.display().to_string();
    let env: Vec<(&str, &str)> = [("PERFBENCH_HOME", home_text.as_str())]
        .into_iter()
        .chain(env.iter().copied())
        .collect();
    let run = bench_target_with_env("profiled", &args, &env);
    (run, home)
}

/// The JSON line of benchmark `id`.
fn line<'a>(lines: &'a [Value], id: &str) -> &'a Value {
    lines
        .iter()
        .find(|l| l["id"] == id)
        .unwrap_or_else(|| panic!("no line of {id}"))
}

/// A function's self and total shares in a line's profile (0 where it is
/// not listed).
fn shares(line: &Value, name: &str) -> (f64, f64) {
    let functions = line["profile"].array_at("functions");
    let f = functions.iter().find(|f| f.str_at("name") == name);
    f.map_or((0.0, 0.0), |f| (f.f64_at("self"), f.f64_at("total")))
}

/// The notes saying that sampling was refused.
fn refusals(run: &Run) -> Vec<&str> {
    run.stderr_lines(|l| l.starts_with("perfbench: note: --profile: "))
}

#[test]
fn a_profile_names_the_routine_s_functions_from_the_benchmark_down() {
    let (run, home) = profiled("cpu-clock", &["--profile=cpu-clock"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines = run.json();
    let nested = line(&lines, "nested");
    if nested.get("profile").is_none() {
        // Refused here: said once, and the run is as without --profile.
        assert_ne!(under(), Under::AsIs, "no profile as root: {}", run.stderr);
        assert_eq!(refusals(&run).len(), 1, "{}", run.stderr);
        assert!(lines.iter().all(|l| l.get("profile").is_none()));
        return;
    }
    assert!(refusals(&run).is_empty(), "{}", run.stderr);
    let p = &nested["profile"];
    assert_eq!(p.str_at("event"), "cpu-clock");
    assert_eq!(p.u64_at("lost"), 0);
    assert!(p.u64_at("samples") >= 200, "{p}");
    // Every stack starts at the benchmark: its root holds all.
    assert_eq!(shares(nested, "nested").1, 1.0, "{p}");
    // `work` calls `three_k` (3,000 rounds) and `one_k` (1,000): 75 % and
    // 25 % of the samples, in those functions themselves, within 8 points.
    let (three_k, one_k, work) = (
        shares(nested, "profiled::three_k"),
        shares(nested, "profiled::one_k"),
        shares(nested, "profiled::work"),
    );
    assert!((three_k.0 - 0.75).abs() <= 0.08, "three_k {three_k:?}: {p}");
    assert!((one_k.0 - 0.25).abs() <= 0.08, "one_k {one_k:?}: {p}");
    assert!(work.1 > 0.95, "work {work:?}: {p}");
    // No frame of the harness.
    let functions = p.array_at("functions");
    let harness = |f: &&Value| f.str_at("name").contains("perfbench::measure");
    assert!(!functions.iter().any(|f| harness(&f)), "{p}");
    // The setup of `batched` runs outside the windows: never sampled.
    let batched = line(&lines, "batched");
    assert_eq!(
        shares(batched, "profiled::setup_spin"),
        (0.0, 0.0),
        "{}",
        batched["profile"]
    );
    assert!(
        shares(batched, "profiled::three_k").0 > 0.5,
        "{}",
        batched["profile"]
    );

    // The folded stacks are stored beside the result, each line from the
    // benchmark down, and named in the line.
    let folded = std::path::PathBuf::from(p.str_at("folded"));
    assert!(folded.starts_with(&home), "{}", folded.display());
    let text = std::fs::read_to_string(&folded).unwrap();
    assert!(text.lines().count() >= 2, "{text}");
    let from_the_benchmark = |l: &str| l.starts_with("nested;") || l.starts_with("nested ");
    assert!(text.lines().all(from_the_benchmark), "{text}");
    assert!(
        text.contains("nested;profiled::work;profiled::three_k "),
        "{text}"
    );
    let count = |l: &str| l.rsplit(' ').next().unwrap().parse::<u64>().unwrap();
    assert_eq!(text.lines().map(count).sum::<u64>(), p.u64_at("events"));
    // The benchmark's page draws it.
    let flame = "<section id=\"profile\" class=\"flame\">";
    assert_eq!(page(&home, "nested").matches(flame).count(), 1);

    // The next run compares with this one's profile: what moved, per
    // iteration, and a differential flame graph.
    let (again, _) = profiled_in(&home, &["--profile=cpu-clock"]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    let lines = again.json();
    let moved = line(&lines, "nested").array_at("profile_change");
    assert!(!moved.is_empty() && moved.len() <= 10, "{moved:?}");
    let change = "<section id=\"profile-change\" class=\"flame\">";
    assert_eq!(page(&home, "nested").matches(change).count(), 1);
}

/// The report page of benchmark `id` under `home`.
fn page(home: &Path, id: &str) -> String {
    let path = home.join("report/bench").join(format!("{id}.html"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn regressed_profiles_only_what_the_gate_judged_regressed_and_says_where() {
    let home = fresh_dir("profile", "regressed");
    let nested = |run: &Run| line(&run.json(), "nested").clone();
    // Nothing to judge against: nothing regressed, nothing profiled.
    let (first, _) = profiled_in(&home, &["--exact", "nested", "--profile=regressed"]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert!(nested(&first).get("profile").is_none(), "{}", first.stdout);
    // A profile of the routine as it was, then `one_k` four times dearer:
    // regressed, profiled, and `one_k` moved most.
    let (plain, _) = profiled_in(&home, &["--exact", "nested", "--profile=cpu-clock"]);
    assert_eq!(plain.code, 0, "{}", plain.stderr);
    if nested(&plain).get("profile").is_none() {
        assert_ne!(under(), Under::AsIs, "no profile as root: {}", plain.stderr);
        return;
    }
    let dearer = [("PROFILED_ONE_K_DEARER", "1")];
    let table = home.join("table.txt");
    let to_table = format!("pretty={}", table.display());
    let args = [
        "--exact",
        "nested",
        "--profile=regressed",
        "--save-baseline",
        "r",
        "--output-file",
        &to_table,
    ];
    let (regressed, _) = profiled_with(&home, &args, &dearer);
    assert_eq!(regressed.code, 0, "{}", regressed.stderr);
    let line = nested(&regressed);
    // An allocation an iteration where there was none: exactly regressed.
    let allocs = &line["metrics"]["allocs"]["change"];
    assert_eq!(allocs.str_at("verdict"), "regressed", "{line}");
    let moved = line.array_at("profile_change");
    assert_eq!(moved[0].str_at("name"), "profiled::one_k", "{line}");
    // The profile taken after the conclusion goes to the baseline saved
    // with the run too.
    let kept = home.join("baselines/r/profiles/nested.folded");
    let latest = std::fs::read_to_string(home.join("nested/profile.folded")).unwrap();
    assert_eq!(std::fs::read_to_string(&kept).unwrap(), latest);
    // The table says where at the end of the benchmark's change line, not
    // on a line of its own.
    let text = std::fs::read_to_string(&table).unwrap();
    let said: Vec<String> = unwrapped(&text)
        .into_iter()
        .filter(|l| l.contains("where:"))
        .collect();
    assert_eq!(said.len(), 1, "{text}");
    assert!(said[0].starts_with("  vs previous run"), "{text}");
    assert!(said[0].contains("where: profiled::one_k "), "{text}");
    // The same code again: not regressed, not profiled; the baseline's run
    // is replaced, and its profile, of the run before, not kept.
    let (same, _) = profiled_with(&home, &args, &dearer);
    assert_eq!(same.code, 0, "{}", same.stderr);
    assert!(nested(&same).get("profile").is_none(), "{}", same.stdout);
    assert!(home.join("baselines/r/nested.json").is_file());
    assert!(!kept.exists(), "a stale profile beside a new run");
}

/// The table's lines with their continuation lines (indented by four)
/// joined to them.
fn unwrapped(text: &str) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for l in text.lines() {
        match (l.strip_prefix("    "), lines.last_mut()) {
            (Some(rest), Some(last)) => {
                last.push(' ');
                last.push_str(rest);
            }
            _ => lines.push(l.to_string()),
        }
    }
    lines
}

/// The name of `generic`'s function: `<`, `&` and `>`.
const GENERIC: &str = "<&profiled::Lines as profiled::Work>::work";

#[test]
fn the_flame_graph_hovers_zooms_and_shows_a_generic_name_as_text() {
    let args = ["--exact", "generic", "nested", "--profile=cpu-clock"];
    let (run, home) = profiled("browser", &args);
    assert_eq!(run.code, 0, "{}", run.stderr);
    if line(&run.json(), "generic").get("profile").is_none() {
        assert_ne!(under(), Under::AsIs, "no profile as root: {}", run.stderr);
        return;
    }
    let page_of = |id: &str| home.join(format!("report/bench/{id}.html"));
    let html = std::fs::read_to_string(page_of("generic")).unwrap();
    assert!(!html.contains(GENERIC), "unescaped: {html}");
    assert!(html.contains("&lt;&amp;profiled::Lines as profiled::Work&gt;::work"));
    // The generic name, hovered, shows as text.
    let env = [("FLAME_FRAME", GENERIC)];
    let Some(results) = check_in_browser_with(&[page_of("generic")], &[], &env) else {
        return;
    };
    let flame = &results[0]["flame"];
    assert_eq!(flame["found"], true, "{flame}");
    let hover = flame.str_at("hover");
    assert!(hover.starts_with(&format!("{GENERIC} — ")), "{hover}");
    assert!(hover.contains(" events ("), "{hover}");
    // `one_k`, a quarter of `nested`, clicked: it takes the graph's whole
    // width; reset: its own again.
    let env = [("FLAME_FRAME", "profiled::one_k")];
    let results = check_in_browser_with(&[page_of("nested")], &[], &env).expect("checked above");
    let flame = &results[0]["flame"];
    assert_eq!(flame["found"], true, "{flame}");
    let whole = flame.f64_at("graph_width");
    let (before, zoomed, reset) = (
        flame.f64_at("before"),
        flame.f64_at("zoomed"),
        flame.f64_at("reset"),
    );
    assert!(before > 0.1 * whole && before < 0.4 * whole, "{flame}");
    assert!((zoomed - whole).abs() <= 1.0, "{flame}");
    assert!((reset - before).abs() <= 0.5, "{flame}");
    assert!(flame.u64_at("hidden") >= 1, "{flame}");
}

#[test]
fn a_named_baseline_keeps_each_profile_and_a_run_against_it_shows_what_moved() {
    let home = fresh_dir("profile", "baseline");
    let args = |more: &[&'static str]| {
        let mut args = vec!["--exact", "nested", "--profile=cpu-clock"];
        args.extend_from_slice(more);
        args
    };
    let (saved, _) = profiled_in(&home, &args(&["--save-baseline", "b"]));
    assert_eq!(saved.code, 0, "{}", saved.stderr);
    let kept = home.join("baselines/b/profiles");
    let against_b = |run: &Run, code: i32| {
        assert_eq!(run.code, code, "{}", run.stderr);
        let nested = line(&run.json(), "nested").clone();
        assert_eq!(nested["baseline"]["name"], "b", "{nested}");
        nested
    };
    if line(&saved.json(), "nested").get("profile").is_none() {
        // Refused here: the baseline keeps the run alone, and a run
        // against it compares without a profile, saying so once.
        assert_ne!(under(), Under::AsIs, "no profile as root: {}", saved.stderr);
        assert!(home.join("baselines/b/nested.json").is_file());
        assert!(!kept.exists(), "no profile, no folder of profiles");
        let (run, _) = profiled_in(&home, &args(&["--baseline", "b"]));
        let nested = against_b(&run, 0);
        assert!(nested.get("profile_change").is_none(), "{nested}");
        assert_eq!(refusals(&run).len(), 1, "{}", run.stderr);
        return;
    }
    // The baseline's profile is the one the run stored as its latest.
    let latest = std::fs::read_to_string(home.join("nested/profile.folded")).unwrap();
    let in_baseline = std::fs::read_to_string(kept.join("nested.folded")).unwrap();
    assert_eq!(in_baseline, latest);
    assert!(kept.join("nested.json").is_file());
    // Without the latest profile, a run against the baseline compares
    // with the baseline's: what moved, and a differential flame graph.
    std::fs::remove_file(home.join("nested/profile.folded")).unwrap();
    std::fs::remove_file(home.join("nested/profile.json")).unwrap();
    let (run, _) = profiled_in(&home, &args(&["--baseline", "b"]));
    let nested = against_b(&run, 0);
    let moved = nested.array_at("profile_change");
    assert!(!moved.is_empty() && moved.len() <= 10, "{nested}");
    let change = "<section id=\"profile-change\" class=\"flame\">";
    assert_eq!(page(&home, "nested").matches(change).count(), 1);
    // A baseline profile of another run than its facts: named once (a
    // stored file that could not be read: exit code 2), left as it is, and
    // the run goes on without it.
    let forged = "nested;profiled::work 7\n";
    std::fs::write(kept.join("nested.folded"), forged).unwrap();
    std::fs::remove_file(home.join("nested/profile.folded")).unwrap();
    std::fs::remove_file(home.join("nested/profile.json")).unwrap();
    let (run, _) = profiled_in(&home, &args(&["--baseline", "b"]));
    let nested = against_b(&run, 2);
    assert!(nested.get("profile").is_some(), "{nested}");
    assert!(nested.get("profile_change").is_none(), "{nested}");
    let named = run.stderr_lines(|l| l.contains("nested.json: describes another nested.folded"));
    assert_eq!(named.len(), 1, "{}", run.stderr);
    let errors = run.stderr_lines(|l| l.starts_with("perfbench: error: "));
    assert_eq!(errors.len(), 1, "{}", run.stderr);
    assert_eq!(page(&home, "nested").matches(change).count(), 0);
    // The run's own profile is still stored as the latest.
    assert!(home.join("nested/profile.folded").is_file());
    let left = std::fs::read_to_string(home.join("baselines/b/profiles/nested.folded"));
    assert_eq!(left.unwrap(), forged);
}
