//! The quiet metrics of a run (zero or rare counts, [`is_quiet`]), which
//! the default block leaves out, tallied over its benchmarks for the one
//! line that names them at the run's end.

use crate::analysis::quiet::is_quiet;
use crate::analysis::BenchResult;

/// The quiet metrics of a run, for the one line that names them at its
/// end: per metric, how many benchmarks had it, in how many it was quiet,
/// and its largest rate there.
#[derive(Default)]
pub struct Folded {
    metrics: Vec<FoldedMetric>,
}

/// One metric's tally in [`Folded`].
struct FoldedMetric {
    name: String,
    had: usize,
    quiet: usize,
    largest: f64,
}

impl Folded {
    /// Counts `r`'s metrics.
    pub fn add(&mut self, r: &BenchResult) {
        for m in &r.metrics {
            let at = match self.metrics.iter().position(|f| f.name == m.name) {
                Some(at) => at,
                None => {
                    self.metrics.push(FoldedMetric {
                        name: m.name.clone(),
                        had: 0,
                        quiet: 0,
                        largest: 0.0,
                    });
                    self.metrics.len() - 1
                }
            };
            let f = &mut self.metrics[at];
            f.had += 1;
            if is_quiet(m.unit, m.estimate()) {
                f.quiet += 1;
                // A rate below zero is the fit's noise: none happened.
                f.largest = f.largest.max(m.estimate().point);
            }
        }
    }

    /// `perfbench: rare or zero in every benchmark (largest per
    /// iteration): context-switches 7.3e-7, cpu-migrations 0`; a metric
    /// quiet in only some says in how many. `None` where none was quiet.
    pub fn line(&self) -> Option<String> {
        let (lead, parts) = self.parts()?;
        Some(format!("{lead} {}", parts.join(", ")))
    }

    /// [`Folded::line`]'s lead and its parts, for wrapping between them.
    pub fn parts(&self) -> Option<(&'static str, Vec<String>)> {
        let folded: Vec<&FoldedMetric> = self.metrics.iter().filter(|f| f.quiet > 0).collect();
        if folded.is_empty() {
            return None;
        }
        let everywhere = folded.iter().all(|f| f.quiet == f.had);
        let parts: Vec<String> = folded
            .iter()
            .map(|f| {
                let largest = match f.largest {
                    v if v > 0.0 => format!("{v:.1e}"),
                    _ => "0".into(),
                };
                match f.quiet == f.had {
                    true => format!("{} {largest}", f.name),
                    false => format!("{} {largest} (in {} of {})", f.name, f.quiet, f.had),
                }
            })
            .collect();
        let lead = match everywhere {
            true => "perfbench: rare or zero in every benchmark (largest per iteration):",
            false => "perfbench: rare or zero, so not shown (largest per iteration):",
        };
        Some((lead, parts))
    }
}
