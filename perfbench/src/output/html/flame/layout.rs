//! Where a flame graph's frames go: each frame spans the samples of the
//! stacks that pass through it, in the profile's order (sorted by stack,
//! frame by frame), so that a frame's children lie inside it and a frame
//! is the stacks `lo..hi` of that order. Its place is given in samples
//! (`start`, `samples`), exact, and drawn as shares of the whole.
//!
//! A huge profile stays a page of reasonable size: the [`MAX_DRAWN`]
//! widest frames are drawn, and none narrower than 1/[`MIN_SHARE_OF`] of
//! the samples; the siblings left out between two drawn ones are merged
//! into one box (`merged`), so at most 2·[`MAX_DRAWN`] + 1 boxes in all,
//! whatever the profile.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, HashMap};

/// Most frames a flame graph draws (merged boxes aside).
pub const MAX_DRAWN: usize = 2000;

/// A frame narrower than 1/`MIN_SHARE_OF` of the samples is merged.
pub const MIN_SHARE_OF: u128 = 1000;

/// The stacks of a profile in its order, each with its count.
pub(super) type Stacks<'a> = Vec<(&'a [String], u128)>;

/// The stacks of `stacks`, in order.
pub(super) fn stacks_of(stacks: &BTreeMap<Vec<String>, u64>) -> Stacks<'_> {
    stacks
        .iter()
        .map(|(s, &n)| (s.as_slice(), u128::from(n)))
        .collect()
}

/// A box of the graph: a frame, or siblings merged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct DrawnFrame {
    /// The stacks it spans, `lo..hi` in the profile's order.
    pub lo: usize,
    /// One past the last.
    pub hi: usize,
    /// Frames above it: 0 for the outermost.
    pub depth: usize,
    /// Samples before it in the profile's order.
    pub start: u128,
    /// Its samples.
    pub samples: u128,
    /// `Some(n)` for a box of `n` sibling frames merged.
    pub merged: Option<usize>,
}

impl DrawnFrame {
    /// The frame's path: the frames from the outermost to it.
    pub(super) fn path<'a>(&self, stacks: &Stacks<'a>) -> &'a [String] {
        &stacks[self.lo].0[..=self.depth]
    }
}

/// The parent of the frames at the top, for [`samples_in`].
const TOP: usize = usize::MAX;

/// The samples of `other` (another profile's stacks) in each of `frames`
/// (laid out from `stacks`): those of its stacks that pass through the
/// same frames; for a merged box, through a sibling between its first
/// and last that is not drawn. One walk down the drawn frames per stack
/// of `other`, so hostile stacks cost what their text does.
pub(super) fn samples_in(
    frames: &[DrawnFrame],
    stacks: &Stacks<'_>,
    other: &BTreeMap<Vec<String>, u64>,
) -> Vec<u128> {
    let mut by_path: HashMap<&[String], usize> = HashMap::new();
    let mut drawn: HashMap<(usize, &str), usize> = HashMap::new();
    let mut merged: HashMap<usize, Vec<(&str, &str, usize)>> = HashMap::new();
    for (i, f) in frames.iter().enumerate() {
        let path = f.path(stacks);
        let parent = match f.depth {
            0 => TOP,
            d => *by_path
                .get(&path[..d])
                .expect("frames come after their parents"),
        };
        match f.merged {
            None => {
                by_path.insert(path, i);
                drawn.insert((parent, path[f.depth].as_str()), i);
            }
            Some(_) => {
                let last = stacks[f.hi - 1].0[f.depth].as_str();
                let run = (path[f.depth].as_str(), last, i);
                merged.entry(parent).or_default().push(run);
            }
        }
    }
    let mut found = vec![0; frames.len()];
    for (stack, &n) in other {
        let mut at = TOP;
        for frame in stack {
            if let Some(&i) = drawn.get(&(at, frame.as_str())) {
                found[i] += u128::from(n);
                at = i;
                continue;
            }
            let runs = merged.get(&at).map(Vec::as_slice).unwrap_or_default();
            let run = runs
                .iter()
                .find(|r| r.0 <= frame.as_str() && frame.as_str() <= r.1);
            if let Some(&(_, _, i)) = run {
                found[i] += u128::from(n);
            }
            break;
        }
    }
    found
}

/// A frame that may be drawn, with the candidates below it once drawn.
struct Candidate {
    lo: usize,
    hi: usize,
    depth: usize,
    samples: u128,
    drawn: bool,
    children: Vec<usize>,
}

/// The boxes of `stacks`' flame graph, outermost first, each depth left
/// to right; the samples in all.
pub(super) fn layout(stacks: &Stacks<'_>) -> (Vec<DrawnFrame>, u128) {
    let before = prefix_sums(stacks);
    let total = *before.last().expect("one at least");
    let mut cands: Vec<Candidate> = Vec::new();
    let roots = expand(stacks, &before, 0, stacks.len(), 0, &mut cands);
    let mut heap: BinaryHeap<(u128, Reverse<usize>)> = roots
        .iter()
        .map(|&i| (cands[i].samples, Reverse(i)))
        .collect();
    let mut drawn = 0;
    while let Some((samples, Reverse(i))) = heap.pop() {
        if drawn == MAX_DRAWN || samples * MIN_SHARE_OF < total || samples == 0 {
            break;
        }
        drawn += 1;
        cands[i].drawn = true;
        let (lo, hi, depth) = (cands[i].lo, cands[i].hi, cands[i].depth + 1);
        let children = expand(stacks, &before, lo, hi, depth, &mut cands);
        heap.extend(children.iter().map(|&c| (cands[c].samples, Reverse(c))));
        cands[i].children = children;
    }
    let mut frames = Vec::new();
    place(&cands, &roots, 0, &before, &mut frames);
    for c in cands.iter().filter(|c| c.drawn) {
        place(&cands, &c.children, c.depth + 1, &before, &mut frames);
    }
    frames.sort_by_key(|f| (f.depth, f.lo));
    (frames, total)
}

/// The samples before each stack, and all of them last.
fn prefix_sums(stacks: &Stacks<'_>) -> Vec<u128> {
    let mut sums = Vec::with_capacity(stacks.len() + 1);
    let mut sum = 0;
    sums.push(0);
    for (_, n) in stacks {
        sum += n;
        sums.push(sum);
    }
    sums
}

/// The frames at `depth` of the stacks `lo..hi` (which share their first
/// `depth` frames), added to `cands`: a run of stacks with the same frame
/// there each, in order.
fn expand(
    stacks: &Stacks<'_>,
    before: &[u128],
    lo: usize,
    hi: usize,
    depth: usize,
    cands: &mut Vec<Candidate>,
) -> Vec<usize> {
    let mut found = Vec::new();
    let mut at = lo;
    while at < hi {
        let Some(frame) = stacks[at].0.get(depth) else {
            // The stack ends above: samples of the frame itself.
            at += 1;
            continue;
        };
        let end = (at..hi)
            .find(|&j| stacks[j].0.get(depth) != Some(frame))
            .unwrap_or(hi);
        found.push(cands.len());
        cands.push(Candidate {
            lo: at,
            hi: end,
            depth,
            samples: before[end] - before[at],
            drawn: false,
            children: Vec::new(),
        });
        at = end;
    }
    found
}

/// The boxes of the siblings `children` at `depth`: each drawn one, and
/// each run of those left out between them merged into one.
fn place(
    cands: &[Candidate],
    children: &[usize],
    depth: usize,
    before: &[u128],
    frames: &mut Vec<DrawnFrame>,
) {
    let mut run: Option<(usize, usize, usize)> = None;
    let close = |run: &mut Option<(usize, usize, usize)>, frames: &mut Vec<DrawnFrame>| {
        if let Some((lo, hi, n)) = run.take() {
            frames.push(DrawnFrame {
                lo,
                hi,
                depth,
                start: before[lo],
                samples: before[hi] - before[lo],
                merged: Some(n),
            });
        }
    };
    for &i in children {
        let c = &cands[i];
        if c.drawn {
            close(&mut run, frames);
            frames.push(DrawnFrame {
                lo: c.lo,
                hi: c.hi,
                depth,
                start: before[c.lo],
                samples: c.samples,
                merged: None,
            });
        } else if c.samples > 0 {
            run = Some(match run {
                Some((lo, _, n)) => (lo, c.hi, n + 1),
                None => (c.lo, c.hi, 1),
            });
        }
    }
    close(&mut run, frames);
}
