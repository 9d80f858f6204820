//! The options chapter of the manual (docs/options.md) holds `--help` as the
//! flag table prints it: this test fails when the two differ, and
//! `PERFBENCH_WRITE_GOLDEN=1 cargo test -p perfbench --test options_chapter`
//! writes the chapter's block again from the table. The chapter's own table
//! of options, written by hand for the detail `--help` has no room for, is
//! checked against the flag table too: the same flags, the same defaults
//! and limits.

use std::path::Path;

const BEGIN: &str = "<!-- `--help`, from the flag table (run/cli/flags.rs): begin -->\n";
const CRITERION_BEGIN: &str =
    "<!-- Criterion's flags, from the flag table (run/cli/criterion_flags.rs): begin -->\n";
const END: &str = "<!-- end -->\n";

/// Checks that the chapter holds `want` between `begin` and the end marker
/// after it, or writes it there under `PERFBENCH_WRITE_GOLDEN`.
fn generated_block(begin: &str, want: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/options.md");
    let chapter = std::fs::read_to_string(&path).unwrap();
    let start = chapter.find(begin).expect("the begin marker") + begin.len();
    let end = start + chapter[start..].find(END).expect("the end marker");
    if std::env::var_os("PERFBENCH_WRITE_GOLDEN").is_some() {
        let written = format!("{}{want}{}", &chapter[..start], &chapter[end..]);
        std::fs::write(&path, written).unwrap();
        return;
    }
    assert_eq!(
        chapter[start..end],
        *want,
        "docs/options.md differs from the flag table: run PERFBENCH_WRITE_GOLDEN=1 cargo test -p perfbench --test options_chapter"
    );
}

#[test]
fn the_options_chapter_shows_the_flag_table_s_help() {
    let want = format!("```text\n{}```\n", perfbench::run::cli::usage());
    generated_block(BEGIN, &want);
}

#[test]
fn the_options_chapter_shows_the_flag_table_s_criterion_flags() {
    generated_block(CRITERION_BEGIN, &perfbench::run::cli::criterion_table());
}

/// The chapter, whole.
fn chapter() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/options.md");
    std::fs::read_to_string(path).unwrap()
}

/// The cells of a Markdown table's row, split where a `|` is not escaped.
fn cells(row: &str) -> Vec<String> {
    let mut cells = vec![String::new()];
    let mut escaped = false;
    for c in row.trim().trim_matches('|').chars() {
        match c {
            '|' if !escaped => cells.push(String::new()),
            c => cells.last_mut().unwrap().push(c),
        }
        escaped = c == '\\';
    }
    cells.iter().map(|c| c.trim().to_string()).collect()
}

/// The long options a text names: `--name`, without a value.
fn flags_in(text: &str) -> Vec<String> {
    let name = |s: &str| -> String {
        let end = s.find(|c: char| !(c.is_ascii_lowercase() || c == '-'));
        s[..end.unwrap_or(s.len())].to_string()
    };
    text.match_indices("--")
        .map(|(i, _)| name(&text[i + 2..]))
        .filter(|n| !n.is_empty())
        .collect()
}

/// The chapter's table of options: (flags of the first cell, meaning,
/// default), a row each.
fn table() -> Vec<(Vec<String>, String, String)> {
    chapter()
        .lines()
        .skip_while(|l| !l.starts_with("| option | meaning | default |"))
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|row| {
            let c = cells(row);
            (flags_in(&c[0]), c[1].clone(), c[2].clone())
        })
        .collect()
}

/// `--help`'s flags, perfbench's own (Criterion's have their own table),
/// each with the value it shows as `(default V)`.
fn help_flags() -> Vec<(String, Option<String>)> {
    perfbench::run::cli::usage()
        .lines()
        .take_while(|l| !l.starts_with("Criterion's options"))
        .filter(|l| l.starts_with("  -"))
        .map(|l| {
            let default = l.split_once("(default ").map(|(_, rest)| {
                let end = rest.find([')', ';']).unwrap();
                rest[..end].to_string()
            });
            (flags_in(l)[0].clone(), default)
        })
        .collect()
}

#[test]
fn the_chapter_s_table_names_the_flags_of_the_flag_table() {
    let usage = perfbench::run::cli::usage();
    let known = flags_in(&usage);
    let table = table();
    assert!(table.len() > 20, "{table:?}");
    let in_table: Vec<&String> = table.iter().flat_map(|(flags, ..)| flags).collect();
    for flag in &in_table {
        assert!(
            known.contains(flag),
            "docs/options.md names `--{flag}`, which is no flag"
        );
    }
    // Said elsewhere in the chapter: `cargo bench` passes --bench, and
    // --help prints the block below the table.
    let untabled = ["bench", "help"];
    for (flag, _) in help_flags() {
        assert!(
            in_table.contains(&&flag) || untabled.contains(&flag.as_str()),
            "`--{flag}` is missing from docs/options.md's table of options"
        );
    }
}

#[test]
fn the_chapter_s_table_gives_the_defaults_and_limits_the_run_takes() {
    let defaults = help_flags();
    let mut checked = 0;
    for (flags, meaning, default) in table() {
        let shown = defaults.iter().find(|(f, _)| *f == flags[0]);
        if let Some((flag, Some(value))) = shown {
            assert_eq!(&default, value, "`--{flag}`'s default in docs/options.md");
            checked += 1;
        }
        if flags[0] == "quick" {
            let usage = perfbench::run::cli::usage();
            let line = usage.lines().find(|l| l.contains("--quick ")).unwrap();
            assert!(line.ends_with(&format!("short run: {meaning}")), "{line}");
            checked += 1;
        }
    }
    assert_eq!(checked, 7, "the numeric defaults and --quick's settings");
    use perfbench::output::format::thousands;
    use perfbench::run::cli::{MAX_PERCENT, MAX_ROUNDS, MAX_SAMPLE_COUNT, MAX_SECONDS};
    let chapter = chapter().replace('\n', " ");
    for limit in [
        format!(
            "a sample count from 1 to {}",
            thousands(MAX_SAMPLE_COUNT as f64)
        ),
        format!("rounds from 1 to {}", thousands(MAX_ROUNDS as f64)),
        format!("times from 0 to {} s", thousands(MAX_SECONDS as f64)),
        format!("percentages from 0 to {}", thousands(MAX_PERCENT)),
    ] {
        assert!(
            chapter.contains(&limit),
            "docs/options.md should say {limit:?}"
        );
    }
}
