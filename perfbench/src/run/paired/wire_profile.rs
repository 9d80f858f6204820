//! A profile as a serving build sends it (`--profile` in a paired run:
//! both builds profile their own routine, each in its own process), cut
//! to fit a reply line, and read back with the limits of a profile read
//! from elsewhere ([`Profile::refused`]): the paired build is any binary
//! the user named.

use serde::{Deserialize, Serialize};

use crate::profile::{Profile, MAX_STACKS};

/// The longest reply line that carries a profile: 8 MiB.
pub const PROFILE_REPLY_BYTES: usize = 8 * 1024 * 1024;

/// What a profile's stacks may take of a reply line; the rest of the line
/// holds its other fields, and every byte of a name may be escaped.
const STACK_BYTES: usize = PROFILE_REPLY_BYTES - 64 * 1024;

/// The frame a profile cut to fit stands its lightest stacks under.
pub const OTHER_STACKS: &str = "[other stacks]";

/// A profile as it is sent: its stacks as `[frames, events]`, heaviest
/// first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WireProfile {
    /// The event sampled.
    pub event: String,
    /// Iterations run while sampling.
    pub iterations: u64,
    /// Samples the kernel dropped.
    pub lost: u64,
    /// Samples taken.
    pub samples: u64,
    /// Each stack, outermost frame first, with its events.
    pub stacks: Vec<(Vec<String>, u64)>,
}

impl WireProfile {
    /// `p` as sent: its heaviest stacks, as many as fit a reply line and
    /// [`MAX_STACKS`]; the others' events stand under one frame,
    /// [`OTHER_STACKS`], below the first stack's root, so the totals hold.
    pub fn of(p: &Profile) -> WireProfile {
        let mut stacks: Vec<(Vec<String>, u64)> =
            p.stacks.iter().map(|(s, &n)| (s.clone(), n)).collect();
        stacks.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        let mut bytes = 0usize;
        let fits = stacks.iter().position(|(s, _)| {
            bytes += s.iter().map(|f| 6 * f.len() + 3).sum::<usize>() + 24;
            bytes > STACK_BYTES
        });
        let keep = fits.unwrap_or(stacks.len()).min(MAX_STACKS - 1);
        let cut: u64 = stacks[keep..].iter().map(|(_, n)| n).sum();
        stacks.truncate(keep);
        if cut > 0 {
            let root = p.stacks.keys().next().and_then(|s| s.first()).cloned();
            let root = root.unwrap_or_else(|| OTHER_STACKS.to_string());
            stacks.push((vec![root, OTHER_STACKS.to_string()], cut));
        }
        WireProfile {
            event: p.event.clone(),
            iterations: p.iterations,
            lost: p.lost,
            samples: p.samples,
            stacks,
        }
    }

    /// The profile sent, or why it cannot be taken: a stack twice, or
    /// anything [`Profile::refused`] refuses.
    pub fn profile(self) -> Result<Profile, &'static str> {
        if self.stacks.len() > MAX_STACKS {
            return Err("more than 100,000 stacks");
        }
        let mut p = Profile::new(&self.event);
        (p.iterations, p.lost, p.samples) = (self.iterations, self.lost, self.samples);
        for (stack, n) in self.stacks {
            if p.stacks.insert(stack, n).is_some() {
                return Err("a stack twice");
            }
        }
        match p.refused() {
            Some(why) => Err(why),
            None => Ok(p),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn profile(stacks: &[(&str, u64)]) -> Profile {
        crate::profile::folded_profile(100, stacks)
    }

    #[test]
    fn a_profile_reads_back_as_sent() {
        let p = profile(&[("b;f;g", 30), ("b;f", 10), ("b;h", 20)]);
        let wire = WireProfile::of(&p);
        let stacks: Vec<u64> = wire.stacks.iter().map(|s| s.1).collect();
        assert_eq!(stacks, vec![30, 20, 10], "heaviest first");
        let line = serde_json::to_string(&wire).unwrap();
        let back: WireProfile = serde_json::from_str(&line).unwrap();
        assert_eq!(back.profile().unwrap(), p);
    }

    #[test]
    fn a_profile_too_large_for_a_line_stands_its_lightest_stacks_under_one_frame() {
        let long = "n".repeat(990);
        let mut p = Profile::new("cycles");
        for i in 0..2_000u64 {
            p.add(vec!["b".into(), format!("{long}{i}")], 1_000 + i);
        }
        let wire = WireProfile::of(&p);
        let line = serde_json::to_string(&wire).unwrap();
        assert!(line.len() <= PROFILE_REPLY_BYTES, "{}", line.len());
        let back = wire.profile().unwrap();
        assert!(back.stacks.len() < 2_000);
        assert_eq!(back.events(), p.events(), "totals hold");
        let other = back
            .stacks
            .get(&vec!["b".to_string(), OTHER_STACKS.to_string()]);
        assert!(other.is_some_and(|&n| n >= 1_000));
        // The heaviest stack is kept whole.
        assert_eq!(
            back.stacks
                .get(&vec!["b".to_string(), format!("{long}1999")]),
            Some(&2_999)
        );
    }

    #[test]
    fn a_hostile_profile_is_refused_in_words() {
        let wire = |stacks: Vec<(Vec<String>, u64)>| WireProfile {
            event: "cycles".into(),
            iterations: 1,
            lost: 0,
            samples: 1,
            stacks,
        };
        let s = |frames: &[&str]| frames.iter().map(|f| f.to_string()).collect::<Vec<_>>();
        let refused = |w: WireProfile| w.profile().unwrap_err();
        assert_eq!(
            refused(wire(vec![(s(&["b", "a;b"]), 1)])),
            "a frame with `;` or a control character"
        );
        assert_eq!(
            refused(wire(vec![(s(&["b", "x\ny"]), 1)])),
            "a frame with `;` or a control character"
        );
        assert_eq!(refused(wire(vec![(s(&["b", ""]), 1)])), "an empty frame");
        assert_eq!(
            refused(wire(vec![(s(&[]), 1)])),
            "a stack of no frame or more than 1,024"
        );
        assert_eq!(
            refused(wire(vec![(vec!["f".to_string(); 1025], 1)])),
            "a stack of no frame or more than 1,024"
        );
        assert_eq!(
            refused(wire(vec![(s(&["b"]), 1), (s(&["b"]), 2)])),
            "a stack twice"
        );
        assert_eq!(
            refused(wire(vec![(s(&["b"]), u64::MAX)])),
            "a stack of more than 10^15 events"
        );
        let halves = vec![
            (s(&["a"]), 600_000_000_000_000),
            (s(&["b"]), 600_000_000_000_000),
        ];
        assert_eq!(refused(wire(halves)), "more than 10^15 events");
        let long = "x".repeat(1001);
        assert_eq!(
            refused(wire(vec![(s(&["b", &long]), 1)])),
            "a frame longer than 1000 characters"
        );
        let mut bad_event = wire(vec![(s(&["b"]), 1)]);
        bad_event.event = "cyc\u{1b}les".into();
        assert_eq!(refused(bad_event), "a bad event name");
    }
}
