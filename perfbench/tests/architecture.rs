//! The rules of ARCHITECTURE.md, checked on the source: layers import only
//! layers below them, `unsafe` lives in the kernel layer with a `SAFETY`
//! comment on each block, every file says what it is for, no function
//! outside tests is longer than a screen, no file holds more than a few
//! screens of code, and no two files or public types share a name, so that
//! a name alone says which one is meant.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The layers from the kernel up; a layer may use only those of a lower
/// rank. `stats` is pure numerics and uses none.
const LAYERS: &[(&str, u32)] = &[
    ("kernel", 0),
    ("stats", 0),
    ("counter", 1),
    ("fixtures", 1),
    ("profile", 1),
    ("measure", 2),
    ("analysis", 3),
    ("store", 4),
    ("output", 5),
    ("run", 6),
];

/// The longest function allowed outside tests, in lines.
const MAX_FUNCTION_LINES: usize = 80;

/// The most lines of code (a file's lines before its tests) a source file
/// may hold.
const MAX_FILE_LINES: usize = 600;

/// File names every folder may have: a module's root, a crate's, a
/// binary's, and a module's tests.
const SHARED_FILE_NAMES: &[&str] = &["mod.rs", "lib.rs", "main.rs", "tests.rs"];

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

/// The workspace's root, which messages name files from.
fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// `file` as a message names it: from the workspace's root.
fn shown(file: &Path) -> String {
    let root = workspace();
    file.strip_prefix(&root)
        .unwrap_or(file)
        .display()
        .to_string()
}

/// Every source file of the runtime, of the macro crate and of the
/// Criterion drop-in.
fn all_sources() -> Vec<PathBuf> {
    let macros = workspace().join("perfbench-macros/src");
    let criterion = workspace().join("perfbench-criterion/src");
    rust_files(&src())
        .into_iter()
        .chain(rust_files(&macros))
        .chain(rust_files(&criterion))
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

/// The file without its unit tests (`#[cfg(test)] mod tests`, inline or
/// in a sibling `tests.rs`, at the end).
fn without_tests(text: &str) -> &str {
    ["", "pub ", "pub(crate) ", "pub(super) "]
        .iter()
        .filter_map(|vis| text.find(&format!("#[cfg(test)]\n{vis}mod tests")))
        .min()
        .map_or(text, |end| &text[..end])
}

/// The code of `file` outside tests: none in a `tests.rs`, which is test
/// code throughout.
fn code_of<'t>(file: &Path, text: &'t str) -> &'t str {
    if file.file_name().is_some_and(|n| n == "tests.rs") {
        ""
    } else {
        without_tests(text)
    }
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
        for used in crate_paths(code_of(&file, &text)) {
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
    let lines: Vec<&str> = text.lines().collect();
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
        for (name, lines) in function_lengths(code_of(&file, &text)) {
            if lines > MAX_FUNCTION_LINES {
                long.push(format!("{}: {name} has {lines} lines", file.display()));
            }
        }
    }
    assert!(long.is_empty(), "{}", long.join("\n"));
}

/// The file names that stand more than once among `files`, besides
/// [`SHARED_FILE_NAMES`], each with every file of that name.
fn shared_file_names(files: &[PathBuf]) -> Vec<String> {
    let mut by_name: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for file in files {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        if !SHARED_FILE_NAMES.contains(&name.as_str()) {
            by_name.entry(name).or_default().push(shown(file));
        }
    }
    repeated(by_name)
}

/// The names of the public types `code` declares: `pub`, `pub(crate)` or
/// `pub(super)` structs, enums, traits and type aliases.
fn public_types(code: &str) -> Vec<String> {
    let mut names = Vec::new();
    for line in code.lines() {
        let line = line.trim_start();
        let Some(rest) = ["pub ", "pub(crate) ", "pub(super) "]
            .iter()
            .find_map(|p| line.strip_prefix(p))
        else {
            continue;
        };
        let Some(rest) = ["struct ", "enum ", "trait ", "type "]
            .iter()
            .find_map(|k| rest.strip_prefix(k))
        else {
            continue;
        };
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        names.push(name);
    }
    names
}

/// The types of Criterion's API that perfbench-criterion must name as
/// Criterion does, though perfbench has types of those names.
const CRITERION_NAMES: [&str; 6] = [
    "AsyncBencher",
    "BatchSize",
    "Bencher",
    "Measurement",
    "Profiler",
    "Throughput",
];

/// The public type names that `(file, code)` pairs declare more than once,
/// each with the files declaring it.
fn shared_type_names(sources: &[(PathBuf, String)]) -> Vec<String> {
    let mut by_name: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (file, code) in sources {
        let criterion = file.starts_with(workspace().join("perfbench-criterion"));
        for name in public_types(code) {
            // The drop-in's API is Criterion's, names included.
            if criterion && CRITERION_NAMES.contains(&name.as_str()) {
                continue;
            }
            by_name.entry(name).or_default().push(shown(file));
        }
    }
    repeated(by_name)
}

/// The entries of `by_name` with more than one place, as `name: places`.
fn repeated(by_name: BTreeMap<String, Vec<String>>) -> Vec<String> {
    by_name
        .into_iter()
        .filter(|(_, places)| places.len() > 1)
        .map(|(name, places)| format!("{name}: {}", places.join(", ")))
        .collect()
}

#[test]
fn no_two_source_files_share_a_name() {
    let shared = shared_file_names(&all_sources());
    assert!(
        shared.is_empty(),
        "file names that stand more than once (name the file for what it holds):\n{}",
        shared.join("\n")
    );
}

#[test]
fn no_two_public_types_share_a_name() {
    let sources: Vec<(PathBuf, String)> = all_sources()
        .into_iter()
        .map(|file| {
            let text = std::fs::read_to_string(&file).unwrap();
            let code = code_of(&file, &text).to_string();
            (file, code)
        })
        .collect();
    let shared = shared_type_names(&sources);
    assert!(
        shared.is_empty(),
        "public types of one name in more than one place:\n{}",
        shared.join("\n")
    );
}

#[test]
fn no_source_file_holds_more_than_a_few_screens_of_code() {
    let mut long = Vec::new();
    for file in all_sources() {
        let text = std::fs::read_to_string(&file).unwrap();
        let lines = code_of(&file, &text).lines().count();
        if lines > MAX_FILE_LINES {
            long.push(format!("{}: {lines} lines of code", shown(&file)));
        }
    }
    assert!(
        long.is_empty(),
        "files over {MAX_FILE_LINES} lines before their tests (split them by concept):\n{}",
        long.join("\n")
    );
}

#[test]
fn the_checks_themselves_catch_what_they_look_for() {
    let long_fn = format!("fn f() {{\n{}}}\n", "    x();\n".repeat(90));
    assert_eq!(function_lengths(&long_fn), [("f".to_string(), 92)]);
    assert_eq!(
        crate_paths("use crate::run::cli; $crate::run::main(); a_crate::x"),
        ["run"]
    );
    let file = src().join("counter/group/mod.rs");
    assert_eq!(layer_of(&file), Some("counter"));
    assert_eq!(layer_of(&src().join("lib.rs")), None);
    assert_eq!(without_tests("a\n#[cfg(test)]\nmod tests {}"), "a\n");
    assert_eq!(without_tests("a\n#[cfg(test)]\nmod tests;\n"), "a\n");
    assert_eq!(
        without_tests("a\n#[cfg(test)]\npub(crate) mod tests;"),
        "a\n"
    );
    assert_eq!(code_of(Path::new("a/tests.rs"), "fn f() {}\n"), "");
    assert_eq!(code_of(Path::new("a/b.rs"), "fn f() {}\n"), "fn f() {}\n");
}

#[test]
fn the_name_and_size_checks_catch_what_they_look_for() {
    let files: Vec<PathBuf> = [
        "a/x.rs",
        "b/x.rs",
        "a/y.rs",
        "a/mod.rs",
        "b/mod.rs",
        "a/lib.rs",
        "b/lib.rs",
        "a/main.rs",
        "b/main.rs",
        "a/tests.rs",
        "b/tests.rs",
    ]
    .iter()
    .map(PathBuf::from)
    .collect();
    assert_eq!(shared_file_names(&files), ["x.rs: a/x.rs, b/x.rs"]);
    let code = "pub struct A;\npub(crate) enum B {}\n    pub(super) trait C {}\npub type D = u8;\n\
                struct E;\npub fn f() {}\n/// pub struct G;\n";
    assert_eq!(public_types(code), ["A", "B", "C", "D"]);
    let sources = [
        (
            PathBuf::from("a.rs"),
            "pub struct A;\npub enum B {}".to_string(),
        ),
        (PathBuf::from("b.rs"), "pub(super) enum A {}".to_string()),
    ];
    assert_eq!(shared_type_names(&sources), ["A: a.rs, b.rs"]);
    let long = format!(
        "{}#[cfg(test)]\nmod tests;\n",
        "x();\n".repeat(MAX_FILE_LINES + 1)
    );
    assert_eq!(
        code_of(Path::new("a/b.rs"), &long).lines().count(),
        MAX_FILE_LINES + 1
    );
    assert_eq!(code_of(Path::new("a/tests.rs"), &long).lines().count(), 0);
}
