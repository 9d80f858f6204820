//! The README's bench file is `tests/benches/readme/hashing.rs`, verbatim,
//! which the bench target `readme` includes: so it compiles, and runs as a
//! user's would.

mod common;

use common::{bench_target_with_env, workspace};

/// The one Rust block of README.md.
fn readme_code() -> String {
    let readme = std::fs::read_to_string(workspace().join("README.md")).unwrap();
    let start = readme.find("```rust\n").expect("a Rust block") + "```rust\n".len();
    let end = start + readme[start..].find("```").unwrap();
    readme[start..end].to_string()
}

#[test]
fn the_readme_bench_file_is_the_compiled_one() {
    let compiled =
        std::fs::read_to_string(workspace().join("tests/benches/readme/hashing.rs")).unwrap();
    assert_eq!(
        readme_code(),
        compiled,
        "README.md's bench file and tests/benches/readme/hashing.rs differ: make them one again"
    );
}

#[test]
fn the_readme_bench_file_runs_with_the_ids_it_says() {
    let run = bench_target_with_env("readme", &["--list"], &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let ids: Vec<&str> = run
        .stdout
        .lines()
        .filter_map(|l| l.strip_suffix(": benchmark"))
        .collect();
    // As its comments say: an id per argument; fib_35 is listed, but
    // ignored unless asked.
    assert_eq!(
        ids,
        [
            "fib_20",
            "sum_1000",
            "zeroed/64",
            "zeroed/4096",
            "zeroed/65536",
            "parse/ascii",
            "parse/emoji 🦀",
            "fib_35",
        ],
        "{}",
        run.stdout
    );
    let quick = bench_target_with_env("readme", &["--quick", "--exact", "fib_20"], &[]);
    assert_eq!(quick.code, 0, "{}", quick.stderr);
    assert!(quick.stdout.contains("fib_20"), "{}", quick.stdout);
    let ignored = bench_target_with_env("readme", &["--quick", "--exact", "fib_35"], &[]);
    assert_eq!(ignored.code, 0, "{}", ignored.stderr);
    assert!(
        ignored
            .stderr
            .contains("perfbench: 1 benchmark ignored: fib_35"),
        "{}",
        ignored.stderr
    );
}
