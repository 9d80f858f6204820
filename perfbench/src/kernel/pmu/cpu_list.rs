//! CPU lists as sysfs writes them (`0-7,16`): read from a PMU's `cpus`
//! file, and written the same way in messages.

use std::fmt;

/// CPUs shown as sysfs writes them: runs of consecutive CPUs as ranges,
/// `0-7,16`. The CPUs come in increasing order, as sysfs lists them.
#[derive(Clone, Copy, Debug)]
pub struct CpuList<'a>(pub &'a [u32]);

impl fmt::Display for CpuList<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut runs: Vec<(u32, u32)> = Vec::new();
        for &c in self.0 {
            match runs.last_mut() {
                Some((_, hi)) if *hi + 1 == c => *hi = c,
                _ => runs.push((c, c)),
            }
        }
        write_ranges(f, &runs)
    }
}

/// Writes inclusive `(low, high)` ranges separated by commas, a range of
/// one as its number: the form of sysfs's CPU lists and format files.
pub fn write_ranges(f: &mut fmt::Formatter<'_>, ranges: &[(u32, u32)]) -> fmt::Result {
    for (i, &(lo, hi)) in ranges.iter().enumerate() {
        if i > 0 {
            f.write_str(",")?;
        }
        if lo == hi {
            write!(f, "{lo}")?;
        } else {
            write!(f, "{lo}-{hi}")?;
        }
    }
    Ok(())
}

/// Parses a CPU list as sysfs writes it: `0-7,16`, `3`, or empty.
pub fn parse_cpu_list(text: &str) -> Result<Vec<u32>, String> {
    let text = text.trim();
    let mut cpus = Vec::new();
    if text.is_empty() {
        return Ok(cpus);
    }
    for part in text.split(',') {
        let num = |s: &str| {
            s.trim()
                .parse::<u32>()
                .map_err(|_| format!("`{s}` is not a CPU number in `{text}`"))
        };
        match part.split_once('-') {
            Some((lo, hi)) => {
                let (lo, hi) = (num(lo)?, num(hi)?);
                if lo > hi || hi - lo > 65_536 {
                    return Err(format!("bad CPU range `{part}`"));
                }
                cpus.extend(lo..=hi);
            }
            None => cpus.push(num(part)?),
        }
    }
    Ok(cpus)
}
