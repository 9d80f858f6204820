//! The profile's tests: names made fit for the folded format, the cut at
//! the routine, the maps and symbol tables on hand-made inputs, exactly;
//! and this very thread sampled with `cpu-clock` while a known caller
//! spins in a known callee, its stacks unwound with `.eh_frame` (the test
//! binary keeps no frame pointers) and symbolized. Where
//! `perf_event_open` is refused (a seccomp filter, a closed kernel), the
//! live tests say why and check nothing more.

use std::hint::black_box;
use std::os::unix::fs::MetadataExt;
use std::time::{Duration, Instant};

use perf_event_open_sys::bindings;

use super::dwarf_frames::DwarfFrame;
use super::maps::{executable_mappings, Mapping};
use super::module::this_process;
use super::routine_cut::cut_below;
use super::symbol_table::SymbolTable;
use super::symbolizer::dwarf_frames;
use super::*;
use crate::kernel::sampling::{
    SampleRate, Sampler, SamplingError, SamplingSpec, ThreadSample, UNWIND_REGS,
};
use crate::kernel::sys::{self, CounterAttr, TYPE_SOFTWARE};

#[test]
fn semicolons_and_control_characters_are_replaced() {
    assert_eq!(
        folded_frame("<[u8; 4] as Debug>::fmt"),
        "<[u8, 4] as Debug>::fmt"
    );
    assert_eq!(
        folded_frame("a\nb\tc\u{7f}d\u{85}"),
        "a\u{fffd}b\u{fffd}c\u{fffd}d\u{fffd}"
    );
    // Spaces stay: the folded format's count follows the last one.
    assert_eq!(folded_frame("<T as Trait>::f"), "<T as Trait>::f");
    assert_eq!(folded_frame(""), "[unknown]");
}

#[test]
fn long_names_are_cut_to_the_limit_with_a_mark() {
    let fits = "é".repeat(MAX_FRAME_CHARS);
    assert_eq!(folded_frame(&fits), fits);
    let over = format!("{fits}x");
    let cut = folded_frame(&over);
    assert_eq!(cut.chars().count(), MAX_FRAME_CHARS);
    assert_eq!(cut, format!("{}…", "é".repeat(MAX_FRAME_CHARS - 1)));
    // Replacements are counted as the characters they are.
    let semis = ";".repeat(MAX_FRAME_CHARS + 5);
    assert_eq!(
        folded_frame(&semis),
        format!("{}…", ",".repeat(MAX_FRAME_CHARS - 1))
    );
}

#[test]
fn rust_names_are_demangled_without_their_hash() {
    assert_eq!(
        demangled("_ZN4core3ptr13drop_in_place17h0123456789abcdefE"),
        "core::ptr::drop_in_place"
    );
    // v0: crate disambiguators dropped too.
    assert_eq!(demangled("_RNvCs1234_7mycrate3foo"), "mycrate::foo");
    assert_eq!(demangled("memcpy"), "memcpy");
    assert_eq!(
        frame_of_symbol("_ZN4core3ptr13drop_in_place17h0123456789abcdefE"),
        "core::ptr::drop_in_place"
    );
}

/// Frames of a sample in `iter`'s routine, outermost first, down to
/// `leaf`.
fn iter_frames(leaf: &[&str]) -> Vec<String> {
    let mut frames: Vec<String> = [
        "_start",
        "main",
        "perfbench::run::scheduler::run_steps",
        "perfbench::measure::bencher::Bencher::drive",
        "perfbench::measure::bencher::repeat",
        "perfbench::measure::bencher::Bencher::iter::{{closure}}",
    ]
    .iter()
    .map(|f| f.to_string())
    .collect();
    frames.extend(leaf.iter().map(|f| f.to_string()));
    frames
}

#[test]
fn the_cut_keeps_what_the_innermost_measuring_frame_called() {
    let frames = iter_frames(&["parse::light", "<[u8; 4] as Debug>::fmt"]);
    assert_eq!(
        routine_stack(&frames, "group/parse"),
        Some(vec![
            "group/parse".to_string(),
            "parse::light".to_string(),
            "<[u8; 4] as Debug>::fmt".to_string(),
        ])
    );
    // A sample in the routine's own (inlined) code is the root alone.
    assert_eq!(
        routine_stack(&iter_frames(&[]), "id"),
        Some(vec!["id".to_string()])
    );
    // The root is made fit for the folded format.
    assert_eq!(
        routine_stack(&iter_frames(&["f"]), "a;b\n"),
        Some(vec!["a,b\u{fffd}".to_string(), "f".to_string()])
    );
}

#[test]
fn trait_methods_of_measuring_code_are_measuring_code() {
    let frames = [
        "perfbench::measure::per_iter::Bracket::bracket_body",
        "<perfbench::measure::batched_inputs::Inputs as Drop>::drop",
        "user::routine",
    ];
    assert_eq!(
        routine_stack(&frames, "r"),
        Some(vec!["r".to_string(), "user::routine".to_string()])
    );
    assert!(is_measuring_code("perfbench::measure::bencher::repeat"));
    assert!(!is_measuring_code("perfbench::measured::x"));
    assert!(!is_measuring_code("my::perfbench::measure::x"));
}

#[test]
fn samples_outside_the_routine_are_not_placed() {
    // Unwinding stopped short of the harness.
    assert_eq!(routine_stack(&["user::routine", "leaf"], "r"), None);
    let empty: [&str; 0] = [];
    assert_eq!(routine_stack(&empty, "r"), None);
    // The sampler toggled at a window's edge.
    let edge = iter_frames(&[
        "perfbench::kernel::sampling::sampler::Sampler::enable",
        "ioctl",
    ]);
    assert_eq!(routine_stack(&edge, "r"), None);
    // The group's window closing, where a late overflow interrupt lands.
    for toggle in [
        "perfbench::kernel::sys::disable",
        "perfbench::counter::group::CounterGroup::enable",
        "<perfbench::counter::group::CounterGroup>::disable",
    ] {
        let edge = iter_frames(&[toggle, "__ioctl"]);
        assert_eq!(routine_stack(&edge, "r"), None, "{toggle}");
    }
    // perfbench's other code a routine may call is the routine's.
    let fixture = iter_frames(&["perfbench::fixtures::touch_fresh_pages", "memset"]);
    let placed = routine_stack(&fixture, "r").unwrap();
    assert_eq!(
        placed[1..],
        ["perfbench::fixtures::touch_fresh_pages", "memset"]
    );
}

#[test]
fn executable_mappings_are_read_from_maps_lines() {
    let maps = "\
55d0c0a00000-55d0c0a20000 r--p 00000000 fd:01 123 /usr/bin/my bench\n\
55d0c0a20000-55d0c0b00000 r-xp 00020000 fd:01 123 /usr/bin/my bench\n\
7f0000000000-7f0000001000 rw-p 00000000 00:00 0 \n\
7f0000001000-7f0000002000 r-xp 00000000 00:00 0\n\
7ffd1000e000-7ffd10010000 r-xp 00000000 00:00 0                          [vdso]\n\
not a line\n";
    assert_eq!(
        executable_mappings(maps),
        vec![
            Mapping {
                start: 0x55d0c0a20000,
                end: 0x55d0c0b00000,
                offset: 0x20000,
                path: "/usr/bin/my bench".to_string(),
            },
            Mapping {
                start: 0x7f0000001000,
                end: 0x7f0000002000,
                offset: 0,
                path: String::new(),
            },
            Mapping {
                start: 0x7ffd1000e000,
                end: 0x7ffd10010000,
                offset: 0,
                path: "[vdso]".to_string(),
            },
        ]
    );
}

#[test]
fn a_symbol_holds_the_addresses_of_its_size() {
    let table = SymbolTable::of(&[
        (0x2000, 0x10, "b"),
        (0x1000, 0x100, "a"),
        (0x1000, 0, "a_alias"),
        (0x3000, 0, "asm_no_size"),
    ]);
    assert_eq!(table.name_at(0xfff), None);
    assert_eq!(table.name_at(0x1000), Some("a"));
    assert_eq!(table.name_at(0x10ff), Some("a"));
    assert_eq!(table.name_at(0x1100), None);
    assert_eq!(table.name_at(0x200f), Some("b"));
    assert_eq!(table.name_at(0x2010), None);
    assert_eq!(table.name_at(0x3000), Some("asm_no_size"));
    assert_eq!(table.name_at(0x9999), Some("asm_no_size"));
}

fn dwarf(name: Option<&str>, line: u32) -> DwarfFrame {
    DwarfFrame {
        name: name.map(str::to_string),
        file: Some("src/lib.rs".to_string()),
        line: Some(line),
    }
}

fn frame(function: &str, line: Option<u32>) -> Frame {
    Frame {
        function: function.to_string(),
        file: line.map(|_| "src/lib.rs".to_string()),
        line,
    }
}

#[test]
fn inlined_frames_are_kept_where_dwarf_gives_their_paths() {
    // `debug = "limited"`: linkage names; the outermost named as the
    // symbol table names it.
    let inlined = vec![
        dwarf(Some("_ZN4core4hint9black_box17h0000000000000000E"), 3),
        dwarf(Some("_ZN5bench5inner17h1111111111111111E"), 7),
        dwarf(Some("_ZN5bench5outer17h2222222222222222E"), 9),
    ];
    assert_eq!(
        dwarf_frames(inlined.clone(), Some("bench::outer".to_string())),
        vec![
            frame("core::hint::black_box", Some(3)),
            frame("bench::inner", Some(7)),
            frame("bench::outer", Some(9)),
        ]
    );
    assert_eq!(
        dwarf_frames(inlined, None)[2],
        frame("bench::outer", Some(9))
    );
    // `debug = "line-tables-only"`: bare names; the function alone, with
    // the innermost line.
    let bare = vec![
        dwarf(Some("black_box<u64>"), 3),
        dwarf(Some("{closure#0}"), 7),
        dwarf(None, 9),
    ];
    assert_eq!(
        dwarf_frames(bare, Some("bench::outer".to_string())),
        vec![frame("bench::outer", Some(3))]
    );
    let alone = vec![dwarf(Some("plain_c_function"), 4)];
    assert_eq!(
        dwarf_frames(alone, None),
        vec![frame("plain_c_function", Some(4))]
    );
}

/// Spins in arithmetic only: the callee every live sample should land in.
#[inline(never)]
fn inner_spin(iterations: u64) -> u64 {
    let mut x = black_box(1u64);
    for i in 0..iterations {
        x = black_box(x.wrapping_mul(6364136223846793005).wrapping_add(i));
    }
    x
}

/// Calls [`inner_spin`] and uses its result after it returns, so the call
/// is no tail call.
#[inline(never)]
fn outer_spin(iterations: u64) -> u64 {
    let mut acc = 0;
    for _ in 0..8 {
        acc ^= inner_spin(black_box(iterations));
    }
    black_box(acc)
}

const OUTER: &str = "perfbench::profile::tests::outer_spin";
const INNER: &str = "perfbench::profile::tests::inner_spin";

#[test]
fn functions_are_named_from_the_symbol_table_alone() {
    // The symbol table of the executable, without DWARF: the path of a
    // default release build.
    let modules = this_process().unwrap();
    let address = inner_spin as fn(u64) -> u64 as usize as u64;
    let module = modules
        .iter()
        .find(|m| m.avma.contains(&address))
        .expect("inner_spin in a mapped module");
    let table = SymbolTable::new(&module.elf().unwrap());
    let name_at = |a: u64| {
        table
            .name_at(a.wrapping_sub(module.bias))
            .map(frame_of_symbol)
    };
    assert_eq!(name_at(address).as_deref(), Some(INNER));
    let outer = outer_spin as fn(u64) -> u64 as usize as u64;
    assert_eq!(name_at(outer + 1).as_deref(), Some(OUTER));
    // An address in no module.
    let mut resolver = StackResolver::new().unwrap();
    let nowhere = ThreadSample {
        ip: 8,
        ..ThreadSample::default()
    };
    assert_eq!(resolver.unwind(&nowhere), vec![8]);
    let frames = resolver.frames(&nowhere);
    assert_eq!(frames.len(), 1);
    assert_eq!(frames[0].function, UNKNOWN_FRAME);
}

fn cpu_clock() -> CounterAttr {
    CounterAttr {
        kind: TYPE_SOFTWARE,
        config: u64::from(bindings::PERF_COUNT_SW_CPU_CLOCK),
        config1: 0,
        config2: 0,
        exclude_user: false,
        exclude_kernel: true,
        exclude_hv: false,
        inherit: false,
    }
}

/// Whether this process runs as root (`/proc/self` is owned by the
/// effective user).
fn is_root() -> bool {
    std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0)
}

/// A sampler of this thread's user stacks, or `None`, said on stderr,
/// where this environment refuses perf events (a seccomp filter, or a
/// closed kernel for a user without privilege).
fn stack_sampler() -> Option<Sampler> {
    let spec = SamplingSpec {
        regs_user: UNWIND_REGS,
        stack_user: 16 * 1024,
        ..SamplingSpec::new(cpu_clock(), SampleRate::Period(100_000))
    };
    match Sampler::open(&spec) {
        Ok(s) => Some(s),
        Err(e @ SamplingError::Seccomp) if sys::seccomp_filtered() => {
            eprintln!("skipped: {e}");
            None
        }
        Err(e @ SamplingError::Paranoid(p))
            if !is_root() && sys::perf_event_paranoid() == Some(p) =>
        {
            eprintln!("skipped: {e}");
            None
        }
        Err(e) => panic!("sampling refused here: {e}"),
    }
}

/// Samples of [`outer_spin`] until `want` or 5 s have passed (a loaded
/// machine gives this thread little CPU time: the test then fails on the
/// count, never hangs).
fn sample_outer_spin(sampler: &mut Sampler, want: usize) -> Vec<ThreadSample> {
    let mut samples = Vec::new();
    let start = Instant::now();
    while samples.len() < want && start.elapsed() < Duration::from_secs(5) {
        sampler.enable().unwrap();
        outer_spin(200_000);
        sampler.disable().unwrap();
        sampler.drain(&mut samples).unwrap();
    }
    samples
}

/// Whether `frames` (outermost first) hold `outer` directly above `inner`.
fn calls(frames: &[String], outer: &str, inner: &str) -> bool {
    frames.windows(2).any(|w| w[0] == outer && w[1] == inner)
}

#[test]
fn live_stacks_unwind_through_the_caller_and_the_callee() {
    let Some(mut sampler) = stack_sampler() else {
        return;
    };
    let built = Instant::now();
    let mut resolver = StackResolver::new().unwrap();
    let built = built.elapsed();
    let samples = sample_outer_spin(&mut sampler, 200);
    assert!(samples.len() >= 200, "{} samples", samples.len());
    let resolved = Instant::now();
    let stacks: Vec<Vec<String>> = samples
        .iter()
        .map(|s| resolver.frames(s).into_iter().map(|f| f.function).collect())
        .collect();
    let resolved = resolved.elapsed();
    let through = stacks.iter().filter(|f| calls(f, OUTER, INNER)).count();
    eprintln!(
        "resolver made in {:.1} ms (DWARF: {}); {} samples unwound and symbolized \
         in {:.1} µs each; {through} through {OUTER} → {INNER}",
        built.as_secs_f64() * 1e3,
        resolver.has_dwarf(),
        samples.len(),
        resolved.as_secs_f64() * 1e6 / samples.len() as f64,
    );
    let example = stacks.iter().find(|f| !calls(f, OUTER, INNER));
    assert!(
        through * 10 >= samples.len() * 9,
        "{through} of {}; e.g. {example:?}",
        samples.len()
    );
    // Outside the innermost frames, the test's own function calls the
    // caller.
    let test = "perfbench::profile::tests::sample_outer_spin";
    assert!(
        stacks.iter().any(|f| calls(f, test, OUTER)),
        "{:?}",
        stacks[0]
    );
}

#[test]
fn live_stacks_are_cut_below_a_marker_frame() {
    let Some(mut sampler) = stack_sampler() else {
        return;
    };
    let mut resolver = StackResolver::new().unwrap();
    let samples = sample_outer_spin(&mut sampler, 100);
    assert!(samples.len() >= 100, "{} samples", samples.len());
    let mut in_inner = 0;
    for sample in &samples {
        let frames: Vec<String> = resolver
            .frames(sample)
            .into_iter()
            .map(|f| f.function)
            .collect();
        let cut = cut_below(&frames, "bench/id", |f| f == OUTER);
        // Every sample through the caller starts at the root; the ones in
        // the callee go on with it, and with what it called.
        if let Some(stack) = cut {
            assert_eq!(stack[0], "bench/id");
            in_inner += usize::from(stack.get(1).map(String::as_str) == Some(INNER));
        }
        // The profile's own cut finds no measuring code here.
        assert_eq!(resolver.stack(sample, "bench/id"), None);
    }
    assert!(
        in_inner * 10 >= samples.len() * 9,
        "{in_inner} of {}",
        samples.len()
    );
}
