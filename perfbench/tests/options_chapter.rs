//! The options chapter of the manual (docs/options.md) holds `--help` as the
//! flag table prints it: this test fails when the two differ, and
//! `PERFBENCH_WRITE_GOLDEN=1 cargo test -p perfbench --test options_chapter`
//! writes the chapter's block again from the table.

use std::path::Path;

const BEGIN: &str = "<!-- `--help`, from the flag table (run/cli.rs): begin -->\n";
const END: &str = "<!-- end -->\n";

/// The block the chapter must hold between its markers.
fn generated() -> String {
    format!("```text\n{}```\n", perfbench::run::cli::usage())
}

#[test]
fn the_options_chapter_shows_the_flag_table_s_help() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/options.md");
    let chapter = std::fs::read_to_string(&path).unwrap();
    let start = chapter.find(BEGIN).expect("the begin marker") + BEGIN.len();
    let end = start + chapter[start..].find(END).expect("the end marker");
    let want = generated();
    if std::env::var_os("PERFBENCH_WRITE_GOLDEN").is_some() {
        let written = format!("{}{want}{}", &chapter[..start], &chapter[end..]);
        std::fs::write(&path, written).unwrap();
        return;
    }
    assert_eq!(
        chapter[start..end],
        want,
        "docs/options.md differs from `--help`: run PERFBENCH_WRITE_GOLDEN=1 cargo test -p perfbench --test options_chapter"
    );
}
