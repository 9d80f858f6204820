//! The cut of a sampled stack at the benchmark's routine: the frames of
//! perfbench's harness above it go, and a root frame the caller names
//! (the benchmark's id) stands for the routine.
//!
//! perfbench's measuring code (`perfbench::measure::…`) calls the
//! routine: `repeat` calls `Bencher::iter`'s body closure through
//! `&mut dyn FnMut()`, and that generic closure calls the user's routine,
//! which is usually inlined into it, so that the routine's own code is
//! named `perfbench::measure::bencher::Bencher::iter::{{closure}}`
//! (`iter_custom`'s, `iter_batched`'s and per-iteration mode's closures
//! alike). So the innermost frame of measuring code is taken as the
//! routine's frame: it and everything outside it become the root, and the
//! frames it called follow. A sample whose innermost frame is measuring
//! code is then the routine's own (self) time, inlined code included.

use super::frame_name::folded_frame;

/// Whether a frame's name is perfbench's measuring code: the functions,
/// closures and methods of `perfbench::measure`.
pub fn is_measuring_code(name: &str) -> bool {
    name.starts_with("perfbench::measure::") || name.starts_with("<perfbench::measure::")
}

/// The code that opens and closes a window, which the harness calls at a
/// window's edges and no routine calls: the sampler, the counter group's
/// toggles and their `ioctl`s. A sample in it was taken as a window opened
/// or closed, or, where the overflow interrupt comes late (the emulated
/// arm64 PMU delivered 83 % of its samples in the closing `ioctl`), is the
/// skid of one taken in the routine: not placeable either way.
const WINDOW_EDGES: [&str; 4] = [
    "perfbench::kernel::sampling::",
    "perfbench::kernel::sys::enable",
    "perfbench::kernel::sys::disable",
    "perfbench::counter::group::CounterGroup",
];

/// Whether a frame's name is code at a window's edge ([`WINDOW_EDGES`]).
fn is_window_edge(name: &str) -> bool {
    let name = name.strip_prefix('<').unwrap_or(name);
    WINDOW_EDGES.iter().any(|edge| name.starts_with(edge))
}

/// The stack of a sample in the routine, outermost first: `root` (fit
/// for the folded format by `folded_frame`), then the frames the
/// innermost measuring-code frame of `frames` called (frames outermost
/// first). `None` for a sample that cannot be placed in the routine: no
/// frame is measuring code (unwinding stopped short of the harness, or
/// the sample was taken outside it), or one below the cut is code at a
/// window's edge (the sampler, the counter group's toggles and their
/// `ioctl`s).
pub fn routine_stack<S: AsRef<str>>(frames: &[S], root: &str) -> Option<Vec<String>> {
    cut_below(frames, root, is_measuring_code)
}

/// [`routine_stack`] with the innermost frame for which `is_marker`
/// holds as the routine's frame.
pub(super) fn cut_below<S: AsRef<str>>(
    frames: &[S],
    root: &str,
    is_marker: impl Fn(&str) -> bool,
) -> Option<Vec<String>> {
    let cut = frames.iter().rposition(|f| is_marker(f.as_ref()))?;
    let inside = &frames[cut + 1..];
    if inside.iter().any(|f| is_window_edge(f.as_ref())) {
        return None;
    }
    let mut stack = Vec::with_capacity(inside.len() + 1);
    stack.push(folded_frame(root));
    stack.extend(inside.iter().map(|f| f.as_ref().to_string()));
    Some(stack)
}
