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

/// What is wrong with a CPU list, quoting it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CpuListError {
    /// A part that is no CPU number.
    NotCpu {
        /// The part.
        part: String,
        /// The whole list.
        text: String,
    },
    /// A range that runs backwards or spans more than 65,536 CPUs.
    BadRange {
        /// The range.
        range: String,
    },
}

impl fmt::Display for CpuListError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CpuListError::NotCpu { part, text } => {
                write!(f, "`{part}` is not a CPU number in `{text}`")
            }
            CpuListError::BadRange { range } => write!(f, "bad CPU range `{range}`"),
        }
    }
}

impl std::error::Error for CpuListError {}

/// Parses a CPU list as sysfs writes it: `0-7,16`, `3`, or empty.
pub fn parse_cpu_list(text: &str) -> Result<Vec<u32>, CpuListError> {
    let text = text.trim();
    let mut cpus = Vec::new();
    if text.is_empty() {
        return Ok(cpus);
    }
    for part in text.split(',') {
        let num = |s: &str| {
            s.trim().parse::<u32>().map_err(|_| CpuListError::NotCpu {
                part: s.into(),
                text: text.into(),
            })
        };
        match part.split_once('-') {
            Some((lo, hi)) => {
                let (lo, hi) = (num(lo)?, num(hi)?);
                if lo > hi || hi - lo > 65_536 {
                    return Err(CpuListError::BadRange { range: part.into() });
                }
                cpus.extend(lo..=hi);
            }
            None => cpus.push(num(part)?),
        }
    }
    Ok(cpus)
}
