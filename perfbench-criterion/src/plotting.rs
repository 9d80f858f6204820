//! Criterion's plot settings: accepted, and named once where they cannot
//! mean the same (perfbench's report draws its own plots).

/// The scale of a summary plot's axis.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AxisScale {
    /// Linear.
    #[default]
    Linear,
    /// Logarithmic.
    Logarithmic,
}

/// How a group's summary plots are drawn.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PlotConfiguration {
    pub(crate) summary_scale: AxisScale,
}

impl PlotConfiguration {
    /// The scale of the summary plots' axis.
    pub fn summary_scale(mut self, new_scale: AxisScale) -> PlotConfiguration {
        self.summary_scale = new_scale;
        self
    }
}

/// The program Criterion draws plots with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlottingBackend {
    /// gnuplot.
    Gnuplot,
    /// The plotters crate.
    Plotters,
    /// No plots.
    None,
}

/// How a benchmark's samples grow (Criterion's choice; perfbench fits its
/// sampling plan to the time budget itself).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SamplingMode {
    /// Chosen from the routine's time.
    #[default]
    Auto,
    /// Samples of 1, 2, 3, … steps of iterations.
    Linear,
    /// Samples of as many iterations each.
    Flat,
}
