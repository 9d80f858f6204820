//! The rules of ARCHITECTURE.md, checked on the source: layers import only
//! layers below them, `unsafe` lives in the kernel layer with a `SAFETY`
//! comment on each block, every file says what it is for, and no function
//! outside tests is longer than a screen.

use std::path::{Path, PathBuf};

/// The layers from the kernel up; a layer may use only those of a lower
/// rank. `stats` is pure numerics and uses none.
const LAYERS: &[(&str, u32)] = &[
    ("kernel", 0),
    ("stats", 0),
    ("counter", 1),
    ("fixtures", 1),
    ("measure", 2),
    ("analysis", 3),
    ("store", 4),
    ("output", 5),
    ("run", 6),
];

/// The longest function allowed outside tests, in lines.
const MAX_FUNCTION_LINES: usize = 80;

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files.sort();
    files
}

fn src() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every source file of the runtime and of the macro crate.
fn all_sources() -> Vec<PathBuf> {
    let macros = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../perfbench-macros/src");
    rust_files(&src())
        .into_iter()
        .chain(rust_files(&macros))
        .collect()
}

/// The layer a file of `src/` belongs to (`None` for lib.rs).
fn layer_of(file: &Path) -> Option<&'static str> {
    let first = file.strip_prefix(src()).ok()?.components().next()?;
    let name = first.as_os_str().to_str()?.trim_end_matches(".rs");
    LAYERS.iter().map(|&(l, _)| l).find(|&l| l == name)
}

fn rank(layer: &str) -> u32 {
    LAYERS.iter().find(|&&(l, _)| l == layer).unwrap().1
}

/// The file without its unit tests (`#[cfg(test)] mod tests` at the end).
fn without_tests(text: &str) -> &str {
    text.find("#[cfg(test)]\nmod tests")
        .map_or(text, |end| &text[..end])
}

/// The layers named as `crate::LAYER` in `text`.
fn crate_paths(text: &str) -> Vec<String> {
    let mut used = Vec::new();
    for (i, _) in text.match_indices("crate::") {
        let before = text[..i].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
            continue; // `$crate::` in macros, or part of a longer name
        }
        let rest = &text[i + "crate::".len()..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        used.push(name);
    }
    used
}

#[test]
fn layers_import_only_layers_below_them() {
    let mut wrong = Vec::new();
    for file in rust_files(&src()) {
        let Some(layer) = layer_of(&file) else {
            continue;
        };
        let text = std::fs::read_to_string(&file).unwrap();
        for used in crate_paths(without_tests(&text)) {
            let Some(&(_, used_rank)) = LAYERS.iter().find(|&&(l, _)| l == used) else {
                continue;
            };
            if used != layer && used_rank >= rank(layer) {
                wrong.push(format!("{}: {layer} uses {used}", file.display()));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports against the layers:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn unsafe_code_is_only_in_the_kernel_layer_and_each_block_says_why() {
    let mut wrong = Vec::new();
    for file in rust_files(&src()) {
        let text = std::fs::read_to_string(&file).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (n, line) in lines.iter().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            if !code.contains("unsafe {") && !code.contains("unsafe impl") {
                continue;
            }
            if layer_of(&file) != Some("kernel") {
                wrong.push(format!(
                    "{}:{}: unsafe outside kernel",
                    file.display(),
                    n + 1
                ));
            }
            // The justification stands within the few lines above.
            let from = n.saturating_sub(8);
            if !lines[from..=n].iter().any(|l| l.contains("SAFETY:")) {
                wrong.push(format!("{}:{}: no SAFETY comment", file.display(), n + 1));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn every_file_says_what_it_is_for() {
    let mut silent = Vec::new();
    for file in all_sources() {
        let text = std::fs::read_to_string(&file).unwrap();
        if !text.starts_with("//!") {
            silent.push(file.display().to_string());
        }
    }
    assert!(
        silent.is_empty(),
        "files without a //! doc line: {silent:?}"
    );
}

/// The functions of `text` outside tests, with their length in lines: from
/// the `fn` line to the closing brace at the same indentation.
fn function_lengths(text: &str) -> Vec<(String, usize)> {
    let lines: Vec<&str> = without_tests(text).lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let trimmed = line.trim_start();
        let indent = &line[..line.len() - trimmed.len()];
        let signature = [
            "fn ",
            "pub fn ",
            "pub(crate) fn ",
            "pub(super) fn ",
            "unsafe fn ",
        ]
        .iter()
        .find_map(|p| trimmed.strip_prefix(p));
        let Some(signature) = signature else { continue };
        let name: String = signature
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let close = format!("{indent}}}");
        if let Some(end) = lines[i..].iter().position(|l| *l == close) {
            out.push((name, end + 1));
        }
    }
    out
}

#[test]
fn no_function_outside_tests_is_longer_than_a_screen() {
    let mut long = Vec::new();
    for file in all_sources() {
        let text = std::fs::read_to_string(&file).unwrap();
        for (name, lines) in function_lengths(&text) {
            if lines > MAX_FUNCTION_LINES {
                long.push(format!("{}: {name} has {lines} lines", file.display()));
            }
        }
    }
    assert!(long.is_empty(), "{}", long.join("\n"));
}

#[test]
fn the_checks_themselves_catch_what_they_look_for() {
    let long_fn = format!("fn f() {{\n{}}}\n", "    x();\n".repeat(90));
    assert_eq!(function_lengths(&long_fn), [("f".to_string(), 92)]);
    assert_eq!(
        crate_paths("use crate::run::cli; $crate::run::main(); a_crate::x"),
        ["run"]
    );
    let file = src().join("counter/group.rs");
    assert_eq!(layer_of(&file), Some("counter"));
    assert_eq!(layer_of(&src().join("lib.rs")), None);
    assert_eq!(without_tests("a\n#[cfg(test)]\nmod tests {}"), "a\n");
}
