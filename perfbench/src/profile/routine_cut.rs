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

/// Whether a frame's name is perfbench's sampler (`perfbench::kernel::
/// sampling`), which the harness calls at a window's edges to toggle it
/// and which no routine calls.
fn is_sampler(name: &str) -> bool {
    name.starts_with("perfbench::kernel::sampling::")
        || name.starts_with("<perfbench::kernel::sampling::")
}

/// The stack of a sample in the routine, outermost first: `root` (fit
/// for the folded format by `folded_frame`), then the frames the
/// innermost measuring-code frame of `frames` called (frames outermost
/// first). `None` for a sample that cannot be placed in the routine: no
/// frame is measuring code (unwinding stopped short of the harness, or
/// the sample was taken outside it), or one below the cut is the sampler
/// being toggled at a window's edge.
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
    if inside.iter().any(|f| is_sampler(f.as_ref())) {
        return None;
    }
    let mut stack = Vec::with_capacity(inside.len() + 1);
    stack.push(folded_frame(root));
    stack.extend(inside.iter().map(|f| f.as_ref().to_string()));
    Some(stack)
}
