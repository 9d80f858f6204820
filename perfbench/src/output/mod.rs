//! Every output of a run, each fed the same analysed results.

pub mod html;
pub mod report;
