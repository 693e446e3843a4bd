//! The online optimizer (method.md §5). Work in progress.
use super::kernel_model::{Geometry, LaunchShape};
use super::occupancy::Occupancy;

/// The launch the tuner chose for one problem.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LaunchPlan {
    pub shape: LaunchShape,
    pub geometry: Geometry,
    pub occupancy: Occupancy,
}
